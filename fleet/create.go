package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// MarkerTable is the table that marks a tenant complete in database and
// schema modes: it is created last, after the tenant's data is loaded, so a
// tenant without it is half-created. In column mode it holds one row per
// loaded tenant.
const MarkerTable = "stampede_tenant"

// Bar counts units of work done; the CLI draws it as a progress bar.
type Bar interface {
	// Add counts n more units done; it must be safe for concurrent use.
	Add(n int64)
	// Done stops the bar.
	Done()
}

// Target is what every fleet operation needs: the fleet, how to reach its
// server, and how much to do at once.
type Target struct {
	// Spec names the tenants.
	Spec Spec
	// Base are the options of a single-tenant run: URLs, driver, and in
	// schema and column modes the database that holds the tenants.
	Base sqlx.Options
	// Concurrency is the number of tenants worked on at once.
	Concurrency int
	// Workload is the workload's name, for messages.
	Workload string
	// Logf, when set, receives progress messages (one line each).
	Logf func(format string, args ...any)
	// NewBar, when set, returns a progress bar for total units.
	NewBar func(unit string, total int64) Bar
}

// env is one fleet operation's state: its target and the connections it
// holds open (to say how many when the server refuses one more).
type env struct {
	Target
	open atomic.Int64
}

func newEnv(t Target) *env {
	if t.Concurrency < 1 {
		t.Concurrency = 1
	}
	return &env{Target: t}
}

func (e *env) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

type nopBar struct{}

func (nopBar) Add(int64) {}
func (nopBar) Done()     {}

func (e *env) bar(unit string, total int64) Bar {
	if e.NewBar == nil {
		return nopBar{}
	}
	return e.NewBar(unit, total)
}

// connect opens opts with conns connections; close releases them.
func (e *env) connect(ctx context.Context, opts sqlx.Options, conns int) (db *sqlx.DB, closeDB func(), err error) {
	opts.MaxConns = conns
	if opts.AppName == "" {
		opts.AppName = "stampede"
	}
	db, err = sqlx.Open(ctx, opts)
	if err != nil {
		return nil, nil, e.explain(err)
	}
	e.open.Add(int64(conns))
	return db, func() { db.Close(); e.open.Add(-int64(conns)) }, nil
}

// adminOptions are the options of the maintenance connection that creates
// and drops tenant databases.
func (e *env) adminOptions() sqlx.Options {
	opts := e.Base
	opts.Database = "postgres"
	opts.SearchPath = ""
	return opts
}

// explain turns a refused connection (53300 too_many_connections) into an
// error that says how many connections stampede held and what limits them.
func (e *env) explain(err error) error {
	if err == nil {
		return nil
	}
	if sqlx.SQLState(err) == "53300" || strings.Contains(err.Error(), "too many clients") || strings.Contains(err.Error(), "too many connections") {
		return fmt.Errorf("the server refused a connection while stampede held up to %d open (max_connections, or the role's or database's CONNECTION LIMIT, limits them): lower --init-concurrency or --concurrency, or raise the limit: %s",
			e.open.Load(), lastLine(err))
	}
	return err
}

// lastLine returns the most specific part of an error message.
func lastLine(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}

// forEach calls fn for every id, at most n at once, and returns the first
// error (which cancels the calls not yet started).
func forEach(ctx context.Context, n int, ids []int, fn func(ctx context.Context, id int) error) error {
	return forEachWorker(ctx, n, ids, func(ctx context.Context, _, id int) error { return fn(ctx, id) })
}

// forEachWorker is forEach that also tells fn which of the n workers
// (0..n-1) calls it; a worker's calls are sequential, so fn may keep
// per-worker state (a connection) indexed by it.
func forEachWorker(ctx context.Context, n int, ids []int, fn func(ctx context.Context, worker, id int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < min(n, len(ids)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(ids) {
					return
				}
				if err := fn(ctx, w, ids[i]); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// names returns the names of tenants 1..Tenants.
func (s Spec) names() []string {
	out := make([]string, s.Tenants)
	for i := range out {
		out[i] = s.Name(i + 1)
	}
	return out
}

// CreateOptions configure Create.
type CreateOptions struct {
	Target
	// NewGenerator returns a generator configured as the user asked (flags
	// parsed, seed set); it is called once per tenant in column mode.
	NewGenerator func() (workload.Generator, error)
	// Flags are the data-shaping flags, recorded in every tenant's marker:
	// a later init with other flags is refused instead of mixing data.
	Flags string
	// Seed is the data's seed, recorded in the marker.
	Seed uint64
	// LoadConcurrency is the number of COPY streams loading tenant 1 (and,
	// in column mode, each tenant).
	LoadConcurrency int
	// ExtraTables is the number of empty extra tables per tenant.
	ExtraTables int
	// Drop drops every tenant first.
	Drop bool
}

// Totals describes a fleet on the server.
type Totals struct {
	// Created is the number of tenants created by this call; Existing the
	// number that were already complete.
	Created, Existing int
	// Databases, Schemas and Tables count what the fleet holds.
	Databases, Schemas, Tables int64
	// Bytes is the fleet's size on the server.
	Bytes int64
	// Elapsed is the time the operation took.
	Elapsed time.Duration
}

// ErrTenantMismatch is returned when tenant 1 holds data loaded with other
// flags or another version of the workload.
var ErrTenantMismatch = errors.New("tenant loaded with other flags")

// Create creates the fleet's missing tenants: tenant 1 is loaded as a
// single-tenant init would load it, then every other tenant is copied from
// it (a database cloned from tenant 1 as a template, a schema filled in one
// transaction from tenant 1's tables), or in column mode loaded into shared
// tables. Tenants complete from an earlier call are kept, so an
// interrupted Create resumes where it stopped; with Drop every tenant is
// dropped first.
func Create(ctx context.Context, o CreateOptions) (Totals, error) {
	start := time.Now()
	e := newEnv(o.Target)
	if o.LoadConcurrency < 1 {
		o.LoadConcurrency = 1
	}
	var t Totals
	var err error
	switch o.Spec.Mode {
	case ModeDatabase:
		t, err = createDatabases(ctx, e, o)
	case ModeSchema:
		t, err = createSchemas(ctx, e, o)
	case ModeColumn:
		t, err = createColumns(ctx, e, o)
	default:
		err = fmt.Errorf("unknown tenant mode %q", o.Spec.Mode)
	}
	t.Elapsed = time.Since(start)
	return t, err
}

// marker is the content of a tenant's marker.
type marker struct {
	workload, version, flags string
}

func (o CreateOptions) marker(gen workload.Generator) marker {
	m := gen.Meta()
	return marker{workload: m.Name, version: m.Version, flags: o.Flags}
}

// markerDDL returns the statements that create and fill the marker table
// (qualified by schema when not empty).
func markerDDL(d dialect.Dialect, schema string, m marker) []string {
	name := d.QuoteIdent(MarkerTable)
	if schema != "" {
		name = d.QuoteIdent(schema) + "." + name
	}
	return []string{
		"CREATE TABLE " + name + " (workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
		fmt.Sprintf("INSERT INTO %s (workload, version, flags) VALUES (%s, %s, %s)", name, quoteLiteral(m.workload), quoteLiteral(m.version), quoteLiteral(m.flags)),
	}
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readMarker reads the marker of the tenant db connects to (schema, when
// not empty, qualifies it); ok is false when there is none.
func readMarker(ctx context.Context, db *sqlx.DB, schema string) (m marker, ok bool, err error) {
	d := db.Dialect()
	name := d.QuoteIdent(MarkerTable)
	if schema != "" {
		name = d.QuoteIdent(schema) + "." + name
	}
	var exists bool
	if err := db.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&exists); err != nil {
		return m, false, err
	}
	if !exists {
		return m, false, nil
	}
	rows, err := db.Query(ctx, "SELECT workload, version, flags FROM "+name+" LIMIT 1")
	if err != nil {
		return m, false, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&m.workload, &m.version, &m.flags); err != nil {
			return m, false, err
		}
		ok = true
	}
	return m, ok, rows.Err()
}

// compareMarker refuses a tenant 1 loaded with other flags.
func compareMarker(name string, got, want marker) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%w: tenant %s holds %s %s loaded with flags %q, not %q: give the same flags, or recreate the fleet with --drop",
		ErrTenantMismatch, name, got.workload, got.version, got.flags, want.flags)
}

// extraDDL returns the statements of k extra tables.
func extraDDL(d dialect.Dialect, schema string, k int) []string {
	var out []string
	for n := 1; n <= k; n++ {
		out = append(out, ExtraTableDDL(d, schema, n)...)
	}
	return out
}

// loadTenant1 creates tenant 1's tables in the database and schema opts
// names, loads them, adds the extra tables and, last, the marker.
func (e *env) loadTenant1(ctx context.Context, o CreateOptions, gen workload.Generator, opts sqlx.Options, schema string) error {
	db, closeDB, err := e.connect(ctx, opts, o.LoadConcurrency+1)
	if err != nil {
		return err
	}
	defer closeDB()
	rows := workload.TotalRows(gen.Tables())
	e.logf("loading tenant 1 (%s): %d rows, %d streams", o.Spec.Name(1), rows, o.LoadConcurrency)
	bar := e.bar("rows", rows)
	err = workload.Setup(ctx, db, gen, workload.LoadOptions{Concurrency: o.LoadConcurrency, Progress: bar.Add})
	bar.Done()
	if err != nil {
		return fmt.Errorf("loading tenant 1 (%s): %w", o.Spec.Name(1), err)
	}
	stmts := append(extraDDL(db.Dialect(), schema, o.ExtraTables), markerDDL(db.Dialect(), schema, o.marker(gen))...)
	if _, err := db.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
		return fmt.Errorf("creating tenant 1's extra tables and marker: %w", err)
	}
	return nil
}

// cloneStrategy is the CREATE DATABASE strategy of tenant clones.
//
// PostgreSQL 15 copies a template either by WAL-logging every block
// (WAL_LOG, its default) or by copying its files between two checkpoints
// (FILE_COPY). Both allow concurrent clones of one template (each takes a
// share lock on it; measured on PostgreSQL 15). For 200 bank tenants of
// 100 rows (~7.5 MB databases, mostly system catalogs) on 2 cores, a busy
// shared server: WAL_LOG 16 and 13 clones/s at 4 at once, 25-34 at 8;
// FILE_COPY 5-8 at 4 and 12-29 at 8. On an idle server FILE_COPY was
// slightly ahead (20 vs 16 clones/s at 4, through psql), but its
// checkpoints flush every dirty buffer of the whole server, so its cost
// grows with everything else the server does, and clones queue behind
// them; WAL_LOG costs what the tenant weighs (its ~7.5 MB go through the
// WAL). WAL_LOG is faster where it matters and predictable.
const cloneStrategy = "WAL_LOG"

// serverVersion returns server_version_num.
func serverVersion(ctx context.Context, db *sqlx.DB) (int, error) {
	var v int
	err := db.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v)
	return v, err
}

// existingDatabases returns which of names exist as databases.
func existingDatabases(ctx context.Context, admin *sqlx.DB, names []string) (map[string]bool, error) {
	rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datname = ANY($1)", names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

// tenantIDs returns the ids of the tenants whose name is in set (present
// true) or not in it (present false).
func (s Spec) tenantIDs(set map[string]bool, present bool) []int {
	var ids []int
	for id := 1; id <= s.Tenants; id++ {
		if set[s.Name(id)] == present {
			ids = append(ids, id)
		}
	}
	return ids
}

// dropDatabases drops the tenant databases that exist.
func (e *env) dropDatabases(ctx context.Context, admin *sqlx.DB, names []string) (int, error) {
	ids := e.Spec.tenantIDs(sliceSet(names), true)
	bar := e.bar("tenants dropped", int64(len(ids)))
	defer bar.Done()
	err := forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		if _, err := admin.Exec(ctx, admin.Dialect().DropDatabase(e.Spec.Name(id))+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping database %q: %w", e.Spec.Name(id), err)
		}
		bar.Add(1)
		return nil
	})
	return len(ids), err
}

func sliceSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// createDatabases creates a database per tenant.
func createDatabases(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := o.NewGenerator()
	if err != nil {
		return t, err
	}
	admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), e.Concurrency)
	if err != nil {
		return t, err
	}
	defer closeAdmin()
	names := o.Spec.names()
	existing, err := existingDatabases(ctx, admin, names)
	if err != nil {
		return t, err
	}
	if o.Drop && len(existing) > 0 {
		n, err := e.dropDatabases(ctx, admin, keys(existing))
		if err != nil {
			return t, err
		}
		e.logf("dropped %d tenant databases", n)
		existing = map[string]bool{}
	}
	d := admin.Dialect()
	first := o.Spec.Name(1)
	t1opts := o.Spec.Options(e.Base, 1)
	want := o.marker(gen)
	if existing[first] {
		db, closeDB, err := e.connect(ctx, t1opts, 1)
		if err != nil {
			return t, err
		}
		m, ok, err := readMarker(ctx, db, "")
		closeDB()
		if err != nil {
			return t, err
		}
		if ok {
			if err := compareMarker(first, m, want); err != nil {
				return t, err
			}
		} else {
			e.logf("tenant database %q is half-loaded (no %s marker): dropping and reloading it", first, MarkerTable)
			if _, err := admin.Exec(ctx, d.DropDatabase(first)+" WITH (FORCE)"); err != nil {
				return t, fmt.Errorf("dropping half-loaded database %q: %w", first, err)
			}
			delete(existing, first)
		}
	}
	if !existing[first] {
		if _, err := admin.Exec(ctx, d.CreateDatabase(first)); err != nil {
			return t, fmt.Errorf("creating database %q: %w", first, err)
		}
		// The pools on tenant 1 are closed when loadTenant1 returns: a
		// template must have no other connection while it is cloned.
		if err := e.loadTenant1(ctx, o, gen, t1opts, ""); err != nil {
			return t, err
		}
		t.Created++
	} else {
		t.Existing++
	}
	missing := o.Spec.tenantIDs(existing, false)
	if len(missing) > 0 && missing[0] == 1 {
		missing = missing[1:]
	}
	t.Existing += o.Spec.Tenants - 1 - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants exist already; creating the %d missing", t.Existing, o.Spec.Tenants, len(missing))
	}
	clone := "CREATE DATABASE %s TEMPLATE " + d.QuoteIdent(first)
	if v, err := serverVersion(ctx, admin); err == nil && v >= 150000 {
		clone += " STRATEGY " + cloneStrategy
	}
	bar := e.bar("tenants", int64(len(missing)))
	var created atomic.Int64
	err = forEach(ctx, e.Concurrency, missing, func(ctx context.Context, id int) error {
		name := o.Spec.Name(id)
		for attempt := 0; ; attempt++ {
			_, err := admin.Exec(ctx, fmt.Sprintf(clone, d.QuoteIdent(name)))
			switch {
			case err == nil:
				created.Add(1)
				bar.Add(1)
				return nil
			case sqlx.SQLState(err) == "42P04": // exists: created concurrently
				bar.Add(1)
				return nil
			case sqlx.SQLState(err) == "55006" && attempt < 20 && ctx.Err() == nil:
				// Someone is connected to the template: wait a little.
				time.Sleep(time.Duration(50*(attempt+1)) * time.Millisecond)
			case sqlx.SQLState(err) == "55006":
				return fmt.Errorf("cannot clone tenant %d: database %q, the template of every tenant, is in use by other sessions; disconnect them and rerun", id, first)
			default:
				return fmt.Errorf("creating database %q from template %q: %w", name, first, e.explain(err))
			}
		}
	})
	bar.Done()
	t.Created += int(created.Load())
	if err != nil {
		return t, err
	}
	err = admin.QueryRow(ctx, "SELECT count(*), coalesce(sum(pg_database_size(datname)), 0)::bigint FROM pg_database WHERE datname = ANY($1)", names).
		Scan(&t.Databases, &t.Bytes)
	if err != nil {
		return t, err
	}
	t.Tables = t.Databases * int64(len(gen.Tables())+o.ExtraTables+1)
	return t, nil
}

// schemaState returns, for the tenant schemas that exist, whether each has
// its marker (is complete).
func schemaState(ctx context.Context, db *sqlx.DB, names []string) (map[string]bool, error) {
	rows, err := db.Query(ctx, `SELECT n.nspname, EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = $2)
		FROM pg_namespace n WHERE n.nspname = ANY($1)`, names, MarkerTable)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		var ok bool
		if err := rows.Scan(&n, &ok); err != nil {
			return nil, err
		}
		out[n] = ok
	}
	return out, rows.Err()
}

// dropSchemas drops the named schemas and everything in them.
func (e *env) dropSchemas(ctx context.Context, db *sqlx.DB, names []string) error {
	ids := e.Spec.tenantIDs(sliceSet(names), true)
	bar := e.bar("tenants dropped", int64(len(ids)))
	defer bar.Done()
	return forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		if _, err := db.Exec(ctx, "DROP SCHEMA IF EXISTS "+db.Dialect().QuoteIdent(e.Spec.Name(id))+" CASCADE"); err != nil {
			return fmt.Errorf("dropping schema %q: %w", e.Spec.Name(id), e.explain(err))
		}
		bar.Add(1)
		return nil
	})
}

// workloadTablesIn lists the tables of schema that a clone copies with
// their rows: all but the extra tables and the marker.
func workloadTablesIn(ctx context.Context, db *sqlx.DB, schema string) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> $2 AND tablename NOT LIKE 'extra\_%' ORDER BY tablename`, schema, MarkerTable)
	if err != nil {
		return nil, fmt.Errorf("listing the tables of schema %q: %w", schema, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// schemaCloneSQL returns the statements that create tenant schema to as a
// copy of schema from: its tables (LIKE ... INCLUDING ALL: columns,
// defaults, constraints, indexes) and their rows, the extra tables, and
// the marker last.
func schemaCloneSQL(d dialect.Dialect, from, to string, tables []string, extra int) string {
	f, s := d.QuoteIdent(from), d.QuoteIdent(to)
	stmts := []string{"CREATE SCHEMA " + s}
	copyTable := func(name string, rows bool) {
		q := d.QuoteIdent(name)
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.%s (LIKE %s.%s INCLUDING ALL)", s, q, f, q))
		if rows {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.%s SELECT * FROM %s.%s", s, q, f, q))
		}
	}
	for _, t := range tables {
		copyTable(t, true)
	}
	stmts = append(stmts, extraDDL(d, to, extra)...)
	copyTable(MarkerTable, true)
	return strings.Join(stmts, ";\n")
}

// createSchemas creates a schema per tenant in one database.
func createSchemas(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := o.NewGenerator()
	if err != nil {
		return t, err
	}
	if created, err := sqlx.EnsureDatabase(ctx, e.Base); err != nil {
		return t, e.explain(err)
	} else if created {
		e.logf("created database %q", e.Base.Database)
	}
	db, closeDB, err := e.connect(ctx, e.Base, e.Concurrency)
	if err != nil {
		return t, err
	}
	defer closeDB()
	d := db.Dialect()
	names := o.Spec.names()
	state, err := schemaState(ctx, db, names)
	if err != nil {
		return t, err
	}
	if o.Drop && len(state) > 0 {
		if err := e.dropSchemas(ctx, db, keys(state)); err != nil {
			return t, err
		}
		e.logf("dropped %d tenant schemas", len(state))
		state = map[string]bool{}
	}
	first := o.Spec.Name(1)
	complete, exists := state[first]
	if exists && complete {
		m, _, err := readMarker(ctx, db, first)
		if err != nil {
			return t, err
		}
		if err := compareMarker(first, m, o.marker(gen)); err != nil {
			return t, err
		}
		t.Existing++
	} else {
		if exists {
			e.logf("tenant schema %q is half-loaded (no %s marker): dropping and reloading it", first, MarkerTable)
			if _, err := db.Exec(ctx, "DROP SCHEMA "+d.QuoteIdent(first)+" CASCADE"); err != nil {
				return t, fmt.Errorf("dropping half-loaded schema %q: %w", first, err)
			}
		}
		if _, err := db.Exec(ctx, "CREATE SCHEMA "+d.QuoteIdent(first)); err != nil {
			return t, fmt.Errorf("creating schema %q: %w", first, err)
		}
		if err := e.loadTenant1(ctx, o, gen, o.Spec.Options(e.Base, 1), first); err != nil {
			return t, err
		}
		t.Created++
	}
	var missing []int
	for id := 2; id <= o.Spec.Tenants; id++ {
		if !state[o.Spec.Name(id)] {
			missing = append(missing, id)
		}
	}
	t.Existing += o.Spec.Tenants - 1 - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants exist already; creating the %d missing", t.Existing, o.Spec.Tenants, len(missing))
	}
	// Every table of tenant 1 but the extra ones and the marker: the
	// workload's tables and those its hooks made (tpcc_meta, say).
	tables, err := workloadTablesIn(ctx, db, first)
	if err != nil {
		return t, err
	}
	bar := e.bar("tenants", int64(len(missing)))
	var created atomic.Int64
	err = forEach(ctx, e.Concurrency, missing, func(ctx context.Context, id int) error {
		name := o.Spec.Name(id)
		sql := schemaCloneSQL(d, first, name, tables, o.ExtraTables)
		if _, half := state[name]; half {
			// A schema without its marker (created outside one
			// transaction, by hand say) is replaced.
			sql = "DROP SCHEMA " + d.QuoteIdent(name) + " CASCADE;\n" + sql
		}
		// A multi-statement simple-protocol query runs as one implicit
		// transaction: the tenant is created whole or not at all, in one
		// round trip. Its commit need not wait for the WAL flush: a
		// tenant lost to a crash is simply missing, and the next init
		// creates it.
		if _, err := db.Exec(ctx, "SET synchronous_commit = off;\n"+sql); err != nil {
			return fmt.Errorf("creating tenant schema %q: %w", name, e.explain(err))
		}
		created.Add(1)
		bar.Add(1)
		return nil
	})
	bar.Done()
	t.Created += int(created.Load())
	if err != nil {
		return t, err
	}
	err = db.QueryRow(ctx, `SELECT count(DISTINCT n.oid), count(c.oid) FILTER (WHERE c.relkind IN ('r', 'p')),
		coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relkind IN ('r', 'p', 'm')), 0)::bigint
		FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid WHERE n.nspname = ANY($1)`, names).
		Scan(&t.Schemas, &t.Tables, &t.Bytes)
	t.Databases = 1
	return t, err
}

// tenantIDColumn is the column that tells tenants' rows apart in column
// mode's shared tables (see workload.TenantColumner); a table without it
// is keyed some other way, and the workload's PreLoad hook clears it.
const tenantIDColumn = "tenant_id"

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

// createColumns loads every tenant's rows into one shared set of tables.
func createColumns(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := columnGenerator(o.NewGenerator, 1)
	if err != nil {
		return t, err
	}
	if created, err := sqlx.EnsureDatabase(ctx, e.Base); err != nil {
		return t, e.explain(err)
	} else if created {
		e.logf("created database %q", e.Base.Database)
	}
	conns := e.Concurrency + 1
	db, closeDB, err := e.connect(ctx, e.Base, conns)
	if err != nil {
		return t, err
	}
	defer closeDB()
	d := db.Dialect()
	tables := gen.Tables()
	dropAll := func() error {
		for _, name := range append([]string{MarkerTable}, tableNames(tables)...) {
			if _, err := db.Exec(ctx, d.DropTable(name)); err != nil {
				return fmt.Errorf("dropping table %s: %w", name, err)
			}
		}
		return nil
	}
	hasMarker, err := workload.TableExists(ctx, db, MarkerTable)
	if err != nil {
		return t, err
	}
	if o.Drop {
		if err := dropAll(); err != nil {
			return t, err
		}
		hasMarker = false
	} else if !hasMarker {
		for _, tb := range tables {
			if ok, err := workload.TableExists(ctx, db, tb.Name); err != nil {
				return t, err
			} else if ok {
				e.logf("table %s exists without the %s marker (a half-created fleet or a single-tenant load): dropping and recreating the shared tables", tb.Name, MarkerTable)
				if err := dropAll(); err != nil {
					return t, err
				}
				break
			}
		}
	}
	if !hasMarker {
		var stmts []string
		for _, tb := range tables {
			stmts = append(stmts, d.CreateTable(tb.Name, tb.Schema))
			stmts = append(stmts, tb.Indexes...)
		}
		stmts = append(stmts, columnMarkerDDL(d))
		if _, err := db.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
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
	for id := 1; id <= o.Spec.Tenants; id++ {
		if !loaded[id] {
			missing = append(missing, id)
		}
	}
	t.Existing = o.Spec.Tenants - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants are loaded already; loading the %d missing", t.Existing, o.Spec.Tenants, len(missing))
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
			if slices.Contains(tb.Columns, tenantIDColumn) {
				if _, err := db.Exec(ctx, "DELETE FROM "+d.QuoteIdent(tb.Name)+" WHERE "+tenantIDColumn+" = $1", id); err != nil {
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

func tableNames(tables []workload.Table) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.Name
	}
	return out
}

func quoted(d dialect.Dialect, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = d.QuoteIdent(n)
	}
	return out
}

// copyAll copies every batch of t's initial rows in one COPY.
func copyAll(ctx context.Context, db *sqlx.DB, stream int, t workload.Table) error {
	if t.InitialRows.NumBatches == 0 {
		return nil
	}
	src := &batches{fill: t.InitialRows.FillBatch, end: t.InitialRows.NumBatches}
	if _, err := db.CopyFrom(ctx, stream, t.Name, t.Columns, src); err != nil {
		return fmt.Errorf("loading %s: %w", t.Name, err)
	}
	return nil
}

// batches feeds batches [0, end) to COPY.
type batches struct {
	fill func(int, [][]any) [][]any
	next int
	end  int
	rows [][]any
	i    int
}

func (b *batches) Next() bool {
	b.i++
	for b.i >= len(b.rows) {
		if b.next >= b.end {
			return false
		}
		b.rows = b.fill(b.next, b.rows[:0])
		b.next++
		b.i = 0
	}
	return true
}

func (b *batches) Values() ([]any, error) { return b.rows[b.i], nil }

func (b *batches) Err() error { return nil }
