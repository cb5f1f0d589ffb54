package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// UnloadedTables returns those of gen's tables that exist in db although
// no init of stampede's loaded them there: there is no record of gen's
// data in db and none of them carries stampede's mark (a user's own
// tables, or those of the real sysbench's prepare). A run works on their
// rows as they are, and its writes change them.
func UnloadedTables(ctx context.Context, db *sqlx.DB, gen Generator) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	found, err := hasRecord(ctx, db, DataKeyOf(gen))
	var denied *DeniedError
	if errors.As(err, &denied) {
		return nil, nil // a record the role may not read: ReconcileLoad warned
	}
	if err != nil || found {
		return nil, err
	}
	var out []string
	for _, t := range gen.Tables() {
		exists, err := TableExists(ctx, db, t.Name)
		if err != nil || !exists {
			if err != nil {
				return nil, err
			}
			continue
		}
		c, err := TableComment(ctx, db, t.Name)
		if err != nil {
			return nil, err
		}
		if IsMark(c) {
			return nil, nil
		}
		out = append(out, t.Name)
	}
	return out, nil
}

// LoadWrites reports whether a run of load may write: it has an
// operation of ClassWrite, or its classes do not tell reads from writes
// (whole transactions only).
func LoadWrites(load QueryLoad) bool {
	reads := false
	for _, c := range load.Classes {
		switch c {
		case ClassWrite:
			return true
		case ClassRead:
			reads = true
		}
	}
	return !reads
}

// UnloadedWarning is the warning a run prints (without "warning: ")
// before it writes into tables of database that no init of stampede's
// loaded (UnloadedTables, or those bulk_insert's run appends to), naming
// them and the workload whose init loads a copy.
func UnloadedWarning(tables []string, database, workload string) string {
	what, it, its := "table "+tables[0], "it", "its"
	if len(tables) > 1 {
		what, it, its = "tables "+strings.Join(tables, ", "), "them", "their"
	}
	return fmt.Sprintf("stampede did not load %s in database %q (no record of its init there, no mark on %s): the run writes into %s rows as they are; if they matter, run on a copy (`stampede init %s` loads one)",
		what, database, it, its, workload)
}
