package workload

import (
	"context"

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
	if found, err := hasRecord(ctx, db, DataKeyOf(gen)); err != nil || found {
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
