package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// tenantMark is the comment on the tenant databases and schemas a fleet
// creates: with the MarkerTable (created last), it tells them from a
// user's databases and schemas that a --tenant-pattern happens to match,
// half-created tenants included.
func (e *env) tenantMark() string {
	return workload.Mark + " fleet tenant of " + e.Workload
}

// markDatabase puts the tenant mark on database name.
func (e *env) markDatabase(ctx context.Context, admin *sqlx.DB, name string) error {
	if _, err := admin.Exec(ctx, dialect.CommentOnDatabase(admin.Dialect(), name, e.tenantMark())); err != nil {
		return fmt.Errorf("marking database %q as a tenant of stampede's: %w", name, err)
	}
	return nil
}

// foreignDatabases returns those of names, databases that exist, that are
// not stampede's tenants: without the tenant mark and without the
// MarkerTable (tenants of a stampede that did not mark them have it).
func (e *env) foreignDatabases(ctx context.Context, admin *sqlx.DB, names []string) ([]string, error) {
	comments, err := comments(ctx, admin, dialect.DatabaseCommentsQuery(admin.Dialect()), names)
	if err != nil {
		return nil, fmt.Errorf("reading the comments of the tenant databases: %w", err)
	}
	var foreign []string
	for _, id := range e.Spec.tenantIDs(sliceSet(names), true) {
		name := e.Spec.Name(id)
		if workload.IsMark(comments[name]) {
			continue
		}
		db, closeDB, err := e.connect(ctx, e.Spec.Options(e.Base, id), 1)
		if err != nil {
			return nil, err
		}
		ok, err := workload.TableExists(ctx, db, MarkerTable)
		closeDB()
		if err != nil {
			return nil, err
		}
		if !ok {
			foreign = append(foreign, name)
		}
	}
	return foreign, nil
}

// foreignSchemas returns the schemas of state (name: has its MarkerTable)
// that are not stampede's tenants: without the marker and without the
// tenant mark.
func foreignSchemas(ctx context.Context, db *sqlx.DB, state map[string]bool) ([]string, error) {
	var unmarked []string
	for name, complete := range state {
		if !complete {
			unmarked = append(unmarked, name)
		}
	}
	if len(unmarked) == 0 {
		return nil, nil
	}
	comments, err := comments(ctx, db, dialect.SchemaCommentsQuery(db.Dialect()), unmarked)
	if err != nil {
		return nil, fmt.Errorf("reading the comments of the tenant schemas: %w", err)
	}
	var foreign []string
	for _, name := range unmarked {
		if !workload.IsMark(comments[name]) {
			foreign = append(foreign, name)
		}
	}
	slices.Sort(foreign)
	return foreign, nil
}

// comments runs a query of (name, comment) rows for names.
func comments(ctx context.Context, db *sqlx.DB, query string, names []string) (map[string]string, error) {
	rows, err := db.Query(ctx, query, names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var c *string
		if err := rows.Scan(&name, &c); err != nil {
			return nil, err
		}
		if c != nil {
			out[name] = *c
		}
	}
	return out, rows.Err()
}

// refuseForeign refuses, unless ForceDrop, to drop the databases or
// schemas (kind) named foreign, which are not stampede's tenants, by
// action ("cleanup", "--drop"); with ForceDrop it says that it drops them.
func (e *env) refuseForeign(kind string, foreign []string, where, action string) error {
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	if e.ForceDrop {
		e.logf("%s: dropping %s %s, which stampede did not make", workload.ForceDropFlag, kind+"s", nameList(foreign))
		return nil
	}
	why := fmt.Sprintf("neither a %s marker table nor stampede's comment; --tenant-pattern %q merely matches the name", MarkerTable, e.Spec.Pattern)
	if e.Spec.Mode == ModeColumn {
		why = fmt.Sprintf("no %s marker table beside it and no mark of stampede's on it: a table of the shared tables' name", MarkerTable)
	}
	return &workload.ForeignError{Kind: kind, Names: shortList(foreign), Where: where, Action: action, Why: why}
}

// shortList keeps the first ten names, and says how many more there are.
func shortList(names []string) []string {
	if len(names) <= 10 {
		return names
	}
	return append(slices.Clone(names[:10]), fmt.Sprintf("and %d more", len(names)-10))
}

// foreignSharedTables returns those of the shared tables of column mode
// that exist and are not stampede's: without the fleet's MarkerTable
// beside them and without stampede's mark.
func foreignSharedTables(ctx context.Context, db *sqlx.DB, existing []string, hasMarker bool) ([]string, error) {
	if hasMarker {
		return nil, nil
	}
	var foreign []string
	for _, name := range existing {
		c, err := workload.TableComment(ctx, db, name)
		if err != nil {
			return nil, err
		}
		if !workload.IsMark(c) {
			foreign = append(foreign, name)
		}
	}
	return foreign, nil
}

// where names the database of db and its server, for messages.
func where(db *sqlx.DB) string {
	return fmt.Sprintf("database %q on %s", db.Database(), strings.Join(db.Endpoints(), ","))
}
