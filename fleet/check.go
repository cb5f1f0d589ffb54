package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// ErrMissingTenant marks a tenant that does not exist or is half-created.
var ErrMissingTenant = errors.New("tenant missing")

// TenantError is one tenant's failure.
type TenantError struct {
	// ID is the tenant's number.
	ID int
	// Name is the tenant's database or schema ("" in column mode).
	Name string
	// Err is what went wrong.
	Err error
}

// Error implements error: "tenant bank_7: ...".
func (e TenantError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("tenant %d: %s", e.ID, oneLine(e.Err.Error()))
	}
	return fmt.Sprintf("tenant %s: %s", e.Name, oneLine(e.Err.Error()))
}

// Unwrap returns Err.
func (e TenantError) Unwrap() error { return e.Err }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ResumeCommand returns the command that creates the fleet's missing
// tenants, for messages.
func (t Target) ResumeCommand() string {
	cmd := fmt.Sprintf("stampede init %s --tenants %d", t.Workload, t.Spec.Tenants)
	if t.Spec.Mode != ModeDatabase {
		cmd += " --tenant-mode " + string(t.Spec.Mode)
	}
	if t.Spec.Mode != ModeColumn && t.Spec.Pattern != DefaultPattern(t.Workload) {
		cmd += " --tenant-pattern " + t.Spec.Pattern
	}
	return cmd
}

func (t Target) missing(what string) error {
	return missingError(fmt.Sprintf("%s; run `%s` to resume creating the fleet", what, t.ResumeCommand()))
}

// missingError is a missing or half-created tenant; it is ErrMissingTenant.
type missingError string

func (e missingError) Error() string { return string(e) }

func (e missingError) Is(target error) bool { return target == ErrMissingTenant }

// CheckOptions configure Check.
type CheckOptions struct {
	Target
	// NewGenerator returns a generator configured as the user asked.
	NewGenerator func() (workload.Generator, error)
}

// CheckResult is the outcome of Check.
type CheckResult struct {
	// Checked is the number of tenants checked.
	Checked int
	// Failed lists the tenants that failed, by id.
	Failed []TenantError
}

// Check runs the workload's consistency checks on every tenant, at most
// Concurrency at once. A tenant that is missing or half-created fails
// with ErrMissingTenant. The error is for problems that stop the whole
// check (a refused connection, say), not for failing tenants.
func Check(ctx context.Context, o CheckOptions) (CheckResult, error) {
	e := newEnv(o.Target)
	var res CheckResult
	g, err := o.NewGenerator()
	if err != nil {
		return res, err
	}
	h, ok := g.(workload.Hookser)
	if !ok || h.Hooks().CheckConsistency == nil {
		return res, fmt.Errorf("workload %s has no consistency checks", g.Meta().Name)
	}
	present, shared, closeShared, err := e.inventory(ctx)
	if err != nil {
		return res, err
	}
	defer closeShared()
	var mu sync.Mutex
	fail := func(id int, err error) {
		mu.Lock()
		res.Failed = append(res.Failed, TenantError{ID: id, Name: o.Spec.Name(id), Err: err})
		mu.Unlock()
	}
	ids := make([]int, o.Spec.Tenants)
	for i := range ids {
		ids[i] = i + 1
	}
	bar := e.bar("tenants checked", int64(len(ids)))
	var checked atomic.Int64
	err = forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		defer bar.Add(1)
		checked.Add(1)
		if !present[id] {
			fail(id, e.missingTenant(id))
			return nil
		}
		var gen workload.Generator
		var err error
		if o.Spec.Mode == ModeColumn {
			gen, err = columnGenerator(o.NewGenerator, id)
		} else {
			gen, err = o.NewGenerator()
		}
		if err != nil {
			return err
		}
		db := shared
		if o.Spec.Mode != ModeColumn {
			tdb, closeDB, err := e.connectTenant(ctx, o.Spec, id, fail)
			if tdb == nil {
				return err
			}
			defer closeDB()
			db = tdb
			if _, ok, err := readMarker(ctx, db, ""); sqlx.SQLState(err) == "42501" {
				// A role that may not read the marker (the tenant
				// is stampede's: RefuseForeignTenants checked its
				// comment): its data says the rest.
			} else if err != nil {
				fail(id, err)
				return nil
			} else if !ok {
				fail(id, e.Target.missing(fmt.Sprintf("%s is half-created (no %s marker)", e.what(id), MarkerTable)))
				return nil
			}
		}
		rep := &lines{}
		if err := gen.(workload.Hookser).Hooks().CheckConsistency(ctx, db, rep); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fail(id, e.explain(err))
		}
		return nil
	})
	bar.Done()
	res.Checked = int(checked.Load())
	sort.Slice(res.Failed, func(i, j int) bool { return res.Failed[i].ID < res.Failed[j].ID })
	return res, err
}

// what names tenant id's container for messages.
func (e *env) what(id int) string {
	switch e.Spec.Mode {
	case ModeDatabase:
		return fmt.Sprintf("database %q", e.Spec.Name(id))
	case ModeSchema:
		return fmt.Sprintf("schema %q in database %q", e.Spec.Name(id), e.Base.Database)
	}
	return fmt.Sprintf("tenant %d's rows in database %q", id, e.Base.Database)
}

func (e *env) missingTenant(id int) error {
	if e.Spec.Mode == ModeColumn {
		return e.Target.missing(fmt.Sprintf("not loaded (no row in %s)", MarkerTable))
	}
	return e.Target.missing(e.what(id) + " does not exist")
}

// inventory returns which tenants exist (in column mode: are marked
// loaded) and, in schema and column modes, a pool on the fleet's database
// with Concurrency connections (closeDB releases it).
func (e *env) inventory(ctx context.Context) (present map[int]bool, db *sqlx.DB, closeDB func(), err error) {
	present = map[int]bool{}
	closeDB = func() {}
	names := e.Spec.names()
	switch e.Spec.Mode {
	case ModeDatabase:
		admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), 1)
		if err != nil {
			return nil, nil, closeDB, err
		}
		defer closeAdmin()
		set, err := existingDatabases(ctx, admin, names)
		if err != nil {
			return nil, nil, closeDB, err
		}
		for _, id := range e.Spec.tenantIDs(set, true) {
			present[id] = true
		}
		return present, nil, closeDB, nil
	case ModeSchema:
		db, closeDB, err = e.connect(ctx, e.Base, e.Concurrency)
		if err != nil {
			if sqlx.IsMissingDatabase(err) {
				return present, nil, func() {}, nil
			}
			return nil, nil, func() {}, err
		}
		state, err := schemaState(ctx, db, names)
		if err != nil {
			closeDB()
			return nil, nil, func() {}, err
		}
		for id := 1; id <= e.Spec.Tenants; id++ {
			if _, ok := state[e.Spec.Name(id)]; ok {
				present[id] = true
			}
		}
		return present, db, closeDB, nil
	default:
		db, closeDB, err = e.connect(ctx, e.Base, e.Concurrency)
		if err != nil {
			if sqlx.IsMissingDatabase(err) {
				return present, nil, func() {}, nil
			}
			return nil, nil, func() {}, err
		}
		// The tenants of this workload's fleet: a user's table of the
		// marker's name records none, another workload's fleet none of
		// this one's.
		m, err := readColumnMarker(ctx, db)
		if err != nil || !m.Exists || m.Foreign {
			return present, db, closeDB, err
		}
		rows, err := db.Query(ctx, "SELECT tenant_id FROM "+db.Dialect().QuoteIdent(MarkerTable)+" WHERE workload = "+db.Dialect().Placeholder(1), e.Workload)
		if err != nil {
			closeDB()
			return nil, nil, func() {}, err
		}
		defer rows.Close()
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				closeDB()
				return nil, nil, func() {}, err
			}
			present[id] = true
		}
		return present, db, closeDB, rows.Err()
	}
}

// lines collects a check's report.
type lines struct {
	mu  sync.Mutex
	out []string
}

// Printf implements workload.Reporter.
func (l *lines) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out = append(l.out, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// DropOptions configure Drop.
type DropOptions struct {
	Target
	// Tables are the shared tables of column mode; in the other modes,
	// the workload's tables in each tenant (its generator's), which a
	// tenant may hold without stampede's mark (a schema tenant's clones):
	// a tenant holding any other object without the mark is refused
	// (workload.HoldsForeignError) unless ForceDrop.
	Tables []string
	// Gen is the workload's generator (in column mode, set to a tenant),
	// whose tables' columns tell a column a user added to one and
	// filled (workload.AddedColumns), refused unless ForceDrop; nil
	// checks no column.
	Gen workload.Generator
}

// Drop drops every tenant of the fleet that exists: databases (WITH
// (FORCE), disconnecting their sessions), schemas (stampede's tables by
// name, then RESTRICT: see dropSchemas), or in column
// mode the shared tables. It returns the number of tenants dropped (in
// column mode, of loaded tenants) and how many databases, schemas and
// tables of the fleet are left afterwards.
//
// It deletes the record of a split init of the fleet (LoadTable). In
// database and schema modes it then drops the fleet's tenant login
// roles (init --tenant-roles) and their secret: only roles that carry
// this fleet's mark; roles of the tenants' names that do not are left
// alone and named in left.Roles.Kept.
func Drop(ctx context.Context, o DropOptions) (dropped int, left Totals, err error) {
	e := newEnv(o.Target)
	// A role's holdings are one problem among those of the tenants
	// (databases or schemas the pattern matches that stampede did not
	// make...): one refusal names them all, so that --force-drop drops
	// only what it named.
	e.heldErr = e.refuseHeldRoles(ctx)
	if e.heldErr != nil && !errors.Is(e.heldErr, workload.ErrForeign) {
		return 0, left, e.heldErr
	}
	dropped, left, err = e.dropTenants(ctx, o)
	if err != nil {
		return dropped, left, err
	}
	if e.heldErr != nil { // no tenant to survey: the roles' refusal alone
		return dropped, left, e.heldErr
	}
	if err := e.clearShares(ctx); err != nil {
		return dropped, left, err
	}
	if o.Spec.Mode == ModeColumn {
		return dropped, left, nil
	}
	left.Roles.Dropped, left.Roles.Kept, err = e.dropRoles(ctx)
	return dropped, left, err
}

// dropTenants is Drop's work on the tenants' databases, schemas or
// tables.
func (e *env) dropTenants(ctx context.Context, o DropOptions) (dropped int, left Totals, err error) {
	switch o.Spec.Mode {
	case ModeDatabase:
		admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), e.Concurrency)
		if err != nil {
			return 0, left, err
		}
		defer closeAdmin()
		names := o.Spec.names()
		set, err := existingDatabases(ctx, admin, names)
		if err != nil {
			return 0, left, err
		}
		foreign, err := e.foreignDatabases(ctx, admin, keys(set))
		if err != nil {
			return 0, left, err
		}
		ferr := e.refuseForeign("database", foreign, "", "cleanup")
		holding, err := e.holdingDatabases(ctx, without(keys(set), foreign), o.Gen)
		if err != nil {
			return 0, left, err
		}
		herr := e.refuseHolding("database", holding, "on "+strings.Join(admin.Endpoints(), ","), "cleanup")
		werr := e.refuseDatabaseWork(ctx, admin, keys(set), "cleanup")
		if err := refusals(ferr, herr, werr, e.heldErr); err != nil {
			return 0, left, err
		}
		dropped, err = e.dropDatabases(ctx, admin, keys(set))
		if err != nil {
			return dropped, left, err
		}
		// Left: the tenants asked for that stay, and the fleet's
		// tenants past --tenants (cleanup --tenants 1 of 3 leaves 2).
		err = admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = ANY($1) OR datname ~ $2 AND $3 IN (shobj_description(oid, 'pg_database'), "+dialect.OwnComment(admin.Dialect(), "oid", "pg_database")+")",
			names, e.Spec.nameRegexp(), e.tenantMark()).Scan(&left.Databases)
		return dropped, left, err
	case ModeSchema:
		db, closeDB, err := e.connect(ctx, e.Base, e.Concurrency)
		if err != nil {
			if sqlx.IsMissingDatabase(err) {
				return 0, left, nil
			}
			return 0, left, err
		}
		defer closeDB()
		names := o.Spec.names()
		state, err := schemaState(ctx, db, names)
		if err != nil {
			return 0, left, err
		}
		foreign, err := e.foreignSchemas(ctx, db, state)
		if err != nil {
			return 0, left, err
		}
		ferr := e.refuseForeign("schema", foreign, db.Where(), "cleanup")
		holding, err := holdingSchemas(ctx, db, without(keys(state), foreign), o.Gen)
		if err != nil {
			return 0, left, err
		}
		herr := e.refuseHolding("schema", holding, "in "+db.Where(), "cleanup")
		oerr := e.surveyOutside(ctx, db, keys(state), keys(state), "cleanup")
		var derr error // with ForceDrop, dropSchemas says what depends
		if !e.ForceDrop {
			derr = e.refuseDependents(ctx, db, keys(state), foreign, "cleanup")
		}
		if err := refusals(ferr, herr, oerr, e.heldErr, derr); err != nil {
			return 0, left, err
		}
		if err := e.dropOutsideViews(ctx, db, keys(state)); err != nil {
			return 0, left, err
		}
		if err := e.dropSchemas(ctx, db, keys(state), o.Tables, "cleanup"); err != nil {
			return 0, left, err
		}
		if left.ExecOutside, err = e.dropOutside(ctx, db); err != nil {
			return len(state), left, err
		}
		err = db.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = ANY($1) OR nspname ~ $2 AND "+
			"($3 IN (obj_description(oid, 'pg_namespace'), "+dialect.OwnComment(db.Dialect(), "oid", "pg_namespace")+") OR "+
			dialect.OwnComment(db.Dialect(), "oid", "pg_namespace")+" = $3 || '"+dialect.DatabaseOIDTag+"' || (SELECT oid::text FROM pg_database WHERE datname = current_database()))",
			names, e.Spec.nameRegexp(), e.tenantMark()).Scan(&left.Schemas)
		return len(state), left, err
	default:
		present, db, closeDB, err := e.inventory(ctx)
		defer closeDB()
		if err != nil {
			return 0, left, err
		}
		if db == nil {
			return 0, left, nil // no database, no tables
		}
		if n := len(present); n > o.Spec.Tenants {
			return 0, left, &SharedTenantsError{Where: db.Where(), Tenants: n, Asked: o.Spec.Tenants}
		}
		marker, err := readColumnMarker(ctx, db)
		if err != nil {
			return 0, left, err
		}
		var existing []string
		for _, name := range o.Tables {
			if ok, err := workload.TableExists(ctx, db, name); err != nil {
				return 0, left, err
			} else if ok {
				existing = append(existing, name)
			}
		}
		if err := sharedTablesCopied(ctx, db, &marker, existing); err != nil {
			return 0, left, err
		}
		// Shared tables are dropped only where they carry the mark of
		// this workload's init, or a marker of this workload's fleet
		// vouches for them: a marker of another workload's fleet leaves
		// a user's table of this workload's names the user's.
		foreign, err := foreignSharedTables(ctx, db, existing, marker, e.Workload)
		if err != nil {
			return 0, left, err
		}
		ferr := e.refuseForeign("table", foreign, db.Where(), "cleanup")
		aerr := e.refuseAddedColumns(ctx, db, o.Gen, without(existing, foreign), "cleanup")
		var ours bool
		var merr error
		// Another fleet's marker is only left alone, and said so: not
		// while refusing.
		if ferr == nil && aerr == nil || !marker.other(e.Workload) || marker.Foreign {
			ours, merr = e.markerOf(marker, e.Workload, db.Where(), "cleanup", false)
		}
		drop := existing
		if ours {
			drop = append(drop, MarkerTable)
		}
		cerr := e.refuseCopiedColumn(db, marker, withMarker(existing, marker), "cleanup")
		if cerr != nil {
			aerr = nil // a copy's tenant_id is the fleet's column, not one added since
		}
		here, err := e.surveyColumnOutside(ctx, db, ours || !marker.Exists, "cleanup")
		if err != nil && !errors.Is(err, workload.ErrForeign) {
			return 0, left, err
		}
		oerr := err
		cascade, derr := e.refuseTableDependents(ctx, db, drop, "cleanup")
		if err := refusals(cerr, ferr, aerr, merr, oerr, derr); err != nil {
			return 0, left, err
		}
		if err := e.dropOutsideViews(ctx, db, here); err != nil {
			return 0, left, err
		}
		if err := dropColumnFleet(ctx, db, drop, cascade); err != nil {
			return 0, left, err
		}
		if left.ExecOutside, err = e.dropOutside(ctx, db); err != nil {
			return len(present), left, err
		}
		err = db.QueryRow(ctx, "SELECT count(*) FROM unnest($1::text[]) n WHERE to_regclass(n) IS NOT NULL",
			quoted(db.Dialect(), append(append([]string(nil), o.Tables...), MarkerTable))).Scan(&left.Tables)
		if err != nil {
			return len(present), left, err
		}
		// A shared table the user renamed to keep it is left, and
		// counted, with why.
		objs, err := workload.Objects(ctx, db)
		if err != nil {
			return len(present), left, err
		}
		left.KeptTables = workload.RenamedTables(objs, "*", o.Gen)
		left.Tables += int64(len(left.KeptTables))
		return len(present), left, nil
	}
}

// dropColumnFleet drops, in one transaction, the shared tables and
// marker drop (with CASCADE when cascade) and what fleet exec made in the
// fleet's database (dropExecMadeHere): stampede's, which cleanup would
// otherwise leave behind, each still marked as fleet exec's.
func dropColumnFleet(ctx context.Context, db *sqlx.DB, drop []string, cascade bool) error {
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var schema string
	if db.Dialect().Name() == "postgres" && !db.Null() {
		if err := tx.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			return err
		}
		// Its views first: they may read the shared tables.
		if err := dropExecMade(ctx, db, tx, schema, "'v', 'm'", "VIEW"); err != nil {
			return fmt.Errorf("dropping the views fleet exec made: %w", err)
		}
	}
	for _, name := range drop {
		sql := db.Dialect().DropTable(name)
		if cascade {
			sql += " CASCADE"
		}
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("dropping table %s: %w", name, err)
		}
	}
	if schema != "" {
		if err := dropExecMadeHere(ctx, db, tx, schema); err != nil {
			return fmt.Errorf("dropping what fleet exec made: %w", err)
		}
	}
	return tx.Commit(ctx)
}

// dropExecMadeHere drops, in tx, the tables, routines, domains, types and
// sequences of schema that carry the mark of what fleet exec made
// (execMark) bound to them, in that order (a serial's sequence goes with
// its table), without
// CASCADE: a user's object that depends on one fails the drop, which then
// drops nothing.
func dropExecMadeHere(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, schema string) error {
	if err := dropExecMade(ctx, db, tx, schema, "'r', 'p'", "TABLE"); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND `+dialect.OwnComment(db.Dialect(), "p.oid", "pg_proc")+` = $2`, schema, execMark)
	if err != nil {
		return err
	}
	var sigs []string
	for rows.Next() {
		var sig string
		if err := rows.Scan(&sig); err != nil {
			rows.Close()
			return err
		}
		sigs = append(sigs, sig)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, sig := range sigs {
		if _, err := tx.Exec(ctx, "DROP ROUTINE "+sig); err != nil {
			return err
		}
	}
	if err := dropExecTypes(ctx, db, tx, schema); err != nil {
		return err
	}
	return dropExecMade(ctx, db, tx, schema, "'S'", "SEQUENCE")
}

// SharedTenantsError refuses a column-mode cleanup of fewer tenants than
// the fleet holds: its shared tables hold every tenant's rows, so dropping
// them drops them all.
type SharedTenantsError struct {
	// Where the shared tables are; Tenants the fleet's tenants, Asked
	// the --tenants given.
	Where          string
	Tenants, Asked int
}

func (e *SharedTenantsError) Error() string {
	return fmt.Sprintf("column mode's shared tables in %s hold the rows of all %d tenants of the fleet, and cleanup drops whole tables (--tenants %d would drop them all): nothing was dropped; to drop the fleet, give --tenants %d",
		e.Where, e.Tenants, e.Asked, e.Tenants)
}
