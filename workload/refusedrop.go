package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// RefuseDrop refuses, unless force, to drop tables (stampede's, gen's or
// its runs', by name on the search path) where something stampede did
// not make would go with them: db is a copy a user made of the database
// stampede loaded (RefuseCopiedDatabase), a user made indexes on them
// (UserIndexes), or objects stampede did not make depend on them
// (Dependents). Every problem is named in one refusal, which ends with
// ForceDropFlag. With force it returns the lines that say what goes, and
// whether the drop needs CASCADE. action is what would drop them
// ("--fresh", "-i"). It is the check of a drop that is not cleanup's or
// init --drop's (run.Cleanup and run.Load say more: a user's tables of
// the same names, added columns, roles).
func RefuseDrop(ctx context.Context, db *sqlx.DB, gen Generator, tables []string, force bool, action string) (notes []string, cascade bool, err error) {
	if db.Null() || len(tables) == 0 {
		return nil, false, nil
	}
	cerr := RefuseCopiedDatabase(ctx, db, action)
	var copied *CopiedDatabaseError
	if cerr != nil && !errors.As(cerr, &copied) {
		return nil, false, cerr
	}
	idx, err := UserIndexes(ctx, db, gen, tables)
	if err != nil {
		return nil, false, err
	}
	deps, err := Dependents(ctx, db, nil, tables)
	if err != nil {
		return nil, false, err
	}
	what := "table " + tables[0]
	switch {
	case len(tables) > 5:
		what = fmt.Sprintf("tables %s and %d more", strings.Join(tables[:5], ", "), len(tables)-5)
	case len(tables) > 1:
		what = "tables " + strings.Join(tables, ", ")
	}
	what += " in " + db.Where()
	if force {
		if copied != nil {
			notes = append(notes, copied.Note())
		}
		if len(idx) > 0 {
			notes = append(notes, fmt.Sprintf("%s: dropping %s, which stampede did not make", ForceDropFlag, strings.Join(idx, ", ")))
		}
		if len(deps) > 0 {
			notes = append(notes, ForceDropNote(what, len(tables), deps))
		}
		return notes, len(deps) > 0, nil
	}
	var ierr, derr error
	if len(idx) > 0 {
		ierr = &UserIndexesError{Indexes: idx, Where: db.Where(), Action: action}
	}
	if len(deps) > 0 {
		// Named by the tables each depends on, not every one dropped.
		rels := make([]string, len(tables))
		for i, t := range tables {
			rels[i] = db.Dialect().QuoteIdent(t)
		}
		on, objs, err := DependedOn(ctx, db, rels, tables, db.Where(), deps)
		if err != nil {
			return nil, false, err
		}
		derr = &DependentsError{What: on, Objects: objs, Action: action}
	}
	return nil, false, Refusal(cerr, ierr, derr)
}
