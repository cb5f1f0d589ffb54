package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// columnMarkerDDL creates column mode's marker: one row per loaded tenant.
func columnMarkerDDL(d dialect.Dialect) string {
	return "CREATE TABLE " + d.QuoteIdent(MarkerTable) +
		" (tenant_id INT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, seed BIGINT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())"
}

// columnGenerator returns a generator working on tenant id's rows.
func columnGenerator(newGen func() (workload.Generator, error), id int) (workload.Generator, error) {
	g, err := newGen()
	if err != nil {
		return nil, err
	}
	tc, ok := g.(workload.TenantColumner)
	if !ok {
		return nil, ColumnModeError(g.Meta().Name)
	}
	tc.SetTenant(id)
	return g, nil
}

// ColumnModeError is the error of --tenant-mode column on a workload whose
// tables cannot hold several tenants.
func ColumnModeError(workloadName string) error {
	return fmt.Errorf("workload %s cannot share tables between tenants (--tenant-mode column); use --tenant-mode database or schema", workloadName)
}

// refuseTableDependents refuses, unless ForceDrop, to drop the shared
// tables names when objects stampede did not make depend on them
// (workload.Dependents: a user's view, foreign key or column of their
// row type), before any is dropped; with ForceDrop it says so and
// returns true: drop them with CASCADE.
func (e *env) refuseTableDependents(ctx context.Context, db *sqlx.DB, names []string, action string) (bool, error) {
	ours, err := execMadeIn(ctx, db, nil)
	if err != nil {
		return false, err
	}
	ours = append(ours, e.outside.refs()...)
	deps, err := workload.DependentsBeyond(ctx, db, e.outside.targets(workload.Targets{Relations: quoted(db.Dialect(), names)}), ours)
	if err != nil || len(deps) == 0 {
		return false, err
	}
	var what string
	switch {
	case len(names) == 0:
		what = strings.TrimPrefix(e.outside.what(), " and ") + " in " + db.Where()
	case len(names) == 1:
		what = "the shared table " + names[0] + " in " + db.Where() + e.outside.what()
	default:
		what = "the shared tables " + nameList(names) + " in " + db.Where() + e.outside.what()
	}
	if e.ForceDrop {
		e.logf("%s", workload.ForceDropNote(what, len(names), deps))
		return true, nil
	}
	return false, &workload.DependentsError{What: what, Objects: deps, Action: action}
}

// columnResumeAction is what refuses, when init resumes a column-mode
// fleet, a shared table that stampede did not make.
const columnResumeAction = "init (which would load the missing tenants into it)"

// createColumns loads every tenant's rows into one shared set of tables.
func createColumns(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := columnGenerator(o.NewGenerator, 1)
	if err != nil {
		return t, err
	}
	if err := e.ensureBase(ctx); err != nil {
		return t, err
	}
	conns := e.Concurrency + 1
	db, closeDB, err := e.connect(ctx, e.Base, conns)
	if err != nil {
		return t, err
	}
	defer closeDB()
	d := db.Dialect()
	tables := gen.Tables()
	mk, err := readColumnMarker(ctx, db)
	if err != nil {
		return t, err
	}
	hasMarker := mk.Exists
	var existing []string // the shared tables that exist
	for _, name := range tableNames(tables) {
		if ok, err := workload.TableExists(ctx, db, name); err != nil {
			return t, err
		} else if ok {
			existing = append(existing, name)
		}
	}
	if err := sharedTablesCopied(ctx, db, &mk, existing); err != nil {
		return t, err
	}
	if !o.Drop && mk.CopiedFrom != "" {
		// A copy of the fleet's database: resuming would load tenants
		// into the user's copy. --force-drop reloads it, as --drop.
		if err := e.refuseCopiedColumn(db, mk, withMarker(existing, mk), columnResumeAction); err != nil {
			return t, err
		}
		o.Drop = true
	}
	if !o.Drop && hasMarker && mk.recordsOnly(e.Workload) && len(existing) > 0 {
		// Resuming: a shared table a user replaced is not the fleet's,
		// and the missing tenants' rows would go into it. --force-drop
		// drops it, as --drop would, and reloads every tenant.
		foreign, err := foreignSharedTables(ctx, db, existing, mk, e.Workload)
		if err != nil {
			return t, err
		}
		if len(foreign) > 0 && !e.ForceDrop {
			return t, e.refuseForeign("table", foreign, db.Where(), columnResumeAction)
		}
		o.Drop = len(foreign) > 0
	}
	switch {
	case o.Drop:
		foreign, err := foreignSharedTables(ctx, db, existing, mk, e.Workload)
		if err != nil {
			return t, err
		}
		ferr := e.refuseForeign("table", foreign, db.Where(), "--drop")
		aerr := e.refuseAddedColumns(ctx, db, gen, without(existing, foreign), "--drop")
		ours, merr := e.markerOf(mk, e.Workload, db.Where(), "--drop", true)
		drop := existing
		if ours {
			drop = append([]string{MarkerTable}, existing...)
		}
		cerr := e.refuseCopiedColumn(db, mk, withMarker(existing, mk), "--drop")
		if cerr != nil {
			aerr = nil // a copy's tenant_id is the fleet's column, not one added since
		}
		here, oerr := e.surveyColumnOutside(ctx, db, ours || !mk.Exists, "--drop")
		if oerr != nil && !errors.Is(oerr, workload.ErrForeign) {
			return t, oerr
		}
		cascade, derr := e.refuseTableDependents(ctx, db, drop, "--drop")
		if err := refusals(cerr, ferr, aerr, merr, oerr, derr); err != nil {
			return t, err
		}
		if len(drop) > 0 {
			e.logf("--drop: dropping the shared tables %s in database %q", nameList(drop), db.Database())
		}
		if err := e.dropOutsideViews(ctx, db, here); err != nil {
			return t, err
		}
		if err := dropColumnFleet(ctx, db, drop, cascade); err != nil {
			return t, err
		}
		if err := e.dropOutsideSaid(ctx, db); err != nil {
			return t, err
		}
		hasMarker = false
	case mk.Unbound:
		return t, fmt.Errorf("%w: table %s in database %q is not a fleet's marker (%s): use another --db, or to drop it anyway, add %s",
			workload.ErrTablesExist, MarkerTable, db.Database(), unboundMarkerWhy, workload.ForceDropFlag)
	case mk.Foreign:
		return t, fmt.Errorf("%w: table %s in database %q is not a fleet's marker (it has not its columns: %s): use another --db, or to drop it anyway, add %s",
			workload.ErrTablesExist, MarkerTable, db.Database(), strings.Join(columnMarkerColumns, ", "), workload.ForceDropFlag)
	case mk.other(e.Workload):
		return t, &OtherFleetError{Table: MarkerTable, Where: db.Where(), Workloads: mk.Workloads, Workload: e.Workload, Action: "init"}
	case !hasMarker && len(existing) > 0:
		// Tables without the fleet's marker were not made by a fleet
		// (the marker is created with them, in one transaction): a
		// single-tenant load's (marked: --drop replaces them) or the
		// user's (--force-drop).
		foreign, err := foreignSharedTables(ctx, db, existing, mk, e.Workload)
		if err != nil {
			return t, err
		}
		if len(foreign) > 0 {
			return t, fmt.Errorf("%w: table %s exists in database %q without the fleet's %s table, and stampede did not make it: use another --db, or to drop it anyway, add %s",
				workload.ErrTablesExist, foreign[0], db.Database(), MarkerTable, workload.ForceDropFlag)
		}
		return t, fmt.Errorf("%w: table %s exists in database %q without the fleet's %s table (a single-tenant load): pass --drop to drop and recreate the shared tables, or use another --db",
			workload.ErrTablesExist, existing[0], db.Database(), MarkerTable)
	}
	if !hasMarker {
		var stmts []string
		for _, tb := range tables {
			stmts = append(stmts, d.CreateTable(tb.Name, tb.Schema), dialect.CommentOnTable(d, tb.Name, workload.InitMark(gen)))
			stmts = append(stmts, tb.Indexes...)
		}
		stmts = append(stmts, columnMarkerDDL(d), dialect.CommentOnTableInDatabase(d, d.QuoteIdent(MarkerTable), columnMarkerMark))
		// Under the fleet's lock: the clients of a split init all find
		// no tables at first, and the first one makes them.
		err := e.locked(ctx, db, func(tx sqlx.Tx) error {
			var made bool
			if err := tx.QueryRow(ctx, visibleTable, MarkerTable).Scan(&made); err != nil || made {
				return err
			}
			_, err := tx.Exec(ctx, strings.Join(stmts, ";\n"))
			return err
		})
		if err != nil {
			return t, fmt.Errorf("creating the shared tables: %w", err)
		}
	}
	loaded := map[int]bool{}
	want := o.marker(gen)
	rows, err := db.Query(ctx, "SELECT tenant_id, workload, version, flags FROM "+d.QuoteIdent(MarkerTable))
	if err != nil {
		return t, err
	}
	for rows.Next() {
		var id int
		var m marker
		if err := rows.Scan(&id, &m.workload, &m.version, &m.flags); err != nil {
			rows.Close()
			return t, err
		}
		if err := compareMarker(fmt.Sprintf("%d", id), m, want); err != nil {
			rows.Close()
			return t, err
		}
		loaded[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, err
	}
	var missing []int
	f, l := o.span()
	for id := f; id <= l; id++ {
		if !loaded[id] {
			missing = append(missing, id)
		}
	}
	t.Existing = l - f + 1 - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants are loaded already; loading the %d missing", t.Existing, l-f+1, len(missing))
	}
	bar := e.bar("tenants", int64(len(missing)))
	var created atomic.Int64
	var stream atomic.Int64
	err = forEach(ctx, e.Concurrency, missing, func(ctx context.Context, id int) error {
		g, err := columnGenerator(o.NewGenerator, id)
		if err != nil {
			return err
		}
		// The hooks run per tenant, as workload.Setup with SkipCreate
		// runs them: PreLoad may clear what an earlier, interrupted load
		// of the tenant left in tables without a tenant_id column (TPC-C,
		// whose tenants are ranges of warehouses), PostLoad records the
		// tenant's load (TPC-C's tpcc_meta row).
		var hooks workload.Hooks
		if h, ok := g.(workload.Hookser); ok {
			hooks = h.Hooks()
		}
		if hooks.PreLoad != nil {
			if err := hooks.PreLoad(ctx, db); err != nil {
				return fmt.Errorf("tenant %d: %w", id, e.explain(err))
			}
		}
		for _, tb := range g.Tables() {
			// Rows of an earlier, interrupted load of this tenant.
			if slices.Contains(tb.Columns, workload.TenantColumn) {
				if _, err := db.Exec(ctx, "DELETE FROM "+d.QuoteIdent(tb.Name)+" WHERE "+workload.TenantColumn+" = $1", id); err != nil {
					return fmt.Errorf("tenant %d: clearing %s: %w", id, tb.Name, e.explain(err))
				}
			}
			if err := copyAll(ctx, db, int(stream.Add(1)), tb); err != nil {
				return fmt.Errorf("tenant %d: %w", id, e.explain(err))
			}
		}
		if hooks.PostLoad != nil {
			if err := hooks.PostLoad(ctx, db); err != nil {
				return fmt.Errorf("tenant %d: %w", id, e.explain(err))
			}
		}
		if _, err := db.Exec(ctx, "INSERT INTO "+d.QuoteIdent(MarkerTable)+" (tenant_id, workload, version, flags, seed) VALUES ($1, $2, $3, $4, $5)",
			id, want.workload, want.version, want.flags, int64(o.Seed)); err != nil {
			return fmt.Errorf("tenant %d: marking it loaded: %w", id, err)
		}
		created.Add(1)
		bar.Add(1)
		return nil
	})
	bar.Done()
	t.Created = int(created.Load())
	if err != nil {
		return t, err
	}
	if a, ok := d.(dialect.Analyzer); ok && t.Created > 0 {
		for _, tb := range tables {
			if _, err := db.Exec(ctx, a.AnalyzeTable(tb.Name)); err != nil {
				return t, fmt.Errorf("analyzing %s: %w", tb.Name, err)
			}
		}
	}
	t.Databases, t.Tables = 1, int64(len(tables)+1)
	err = db.QueryRow(ctx, "SELECT coalesce(sum(pg_total_relation_size(to_regclass(n))), 0)::bigint FROM unnest($1::text[]) n",
		quoted(d, append(tableNames(tables), MarkerTable))).Scan(&t.Bytes)
	return t, err
}
