package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// ExecOptions configure Exec.
type ExecOptions struct {
	Target
	// Statement is the SQL applied to every tenant. It runs through the
	// simple protocol, so it may hold several statements separated by
	// semicolons (which then run as one transaction).
	Statement string
	// Record is the path of the NDJSON file that records the tenants done.
	Record string
	// Restart ignores (truncates) an existing record.
	Restart bool
	// Tables are the workload's tables: in column mode, the shared
	// tables that must be the fleet's (refuseColumnExec).
	Tables []string
	// Started, when set, is called once the tenants are known to be
	// stampede's and the record is open, just before the statement is
	// applied (to announce the work only when it begins).
	Started func()
}

// ErrNotTenants matches every *NotTenantsError (errors.Is).
var ErrNotTenants = errors.New("not stampede's tenants")

// NotTenantsError refuses a fleet exec on databases or schemas that the
// tenant pattern matches but stampede did not make.
type NotTenantsError struct {
	// Kind is "database" or "schema"; Names are those found; Pattern is
	// the --tenant-pattern that matched them.
	Kind    string
	Names   []string
	Pattern string
	// Where follows the names (" in database \"x\""), for tables.
	Where string
	// Verb is the command refused and what it does to tenants ("run runs
	// on"); "" is fleet exec's ("fleet exec applies statements to").
	Verb string
	// Why says what was found, when not that they have neither a marker
	// nor stampede's tenant mark (foreignTenantWhy).
	Why string
}

func (e *NotTenantsError) Error() string {
	what, verb := e.Kind+" "+strings.Join(e.Names, ", ")+e.Where+" is not a tenant", "it"
	if len(e.Names) > 1 {
		what, verb = e.Kind+"s "+strings.Join(e.Names, ", ")+e.Where+" are not tenants", "them"
	}
	cmd := e.Verb
	if cmd == "" {
		cmd = "fleet exec applies statements to"
	}
	if e.Kind == "table" {
		what = strings.Replace(what, " tenant", " column-mode fleet's table", 1)
		return fmt.Sprintf("%s stampede made (no %s marker of stampede's records its tenants): %s stampede's tenants only and left %s alone; load a fleet with `stampede init --tenants N --tenant-mode column` in a database of its own",
			what, MarkerTable, cmd, verb)
	}
	why := e.Why
	if why == "" {
		why = foreignTenantWhy(e.Names, nil, e.Pattern)
	}
	return fmt.Sprintf("%s stampede made (%s): %s stampede's tenants only and left %s alone; give the --tenant-pattern and --tenant-mode of a fleet `stampede init --tenants` created",
		what, why, cmd, verb)
}

// Is makes errors.Is(err, ErrNotTenants) true.
func (e *NotTenantsError) Is(target error) bool { return target == ErrNotTenants }

// RefuseForeignTenants returns a *NotTenantsError (see
// refuseForeignTenants) when a database or schema that t's pattern
// matches is not a tenant stampede made, so that a run or check never
// reads or rewrites a user's own rows; verb names the command and what it
// does to tenants ("run runs on").
//
// In column mode the tenants are rows of tables in the base database:
// those of tables (the workload's) that exist there are refused when no
// marker of stampede's records this workload's fleet.
func RefuseForeignTenants(ctx context.Context, t Target, verb string, tables []string) error {
	return newEnv(t).refuseForeignOf(ctx, verb, tables)
}

// refuseForeignOf is RefuseForeignTenants with e's survey, if any.
func (e *env) refuseForeignOf(ctx context.Context, verb string, tables []string) error {
	t := e.Target
	var err error
	if t.Spec.Mode == ModeColumn {
		err = e.refuseForeignColumnTables(ctx, tables)
	} else {
		err = e.refuseForeignTenants(ctx)
	}
	var nt *NotTenantsError
	if errors.As(err, &nt) {
		nt.Verb = verb
	}
	return err
}

// refuseForeignColumnTables is RefuseForeignTenants in column mode.
func (e *env) refuseForeignColumnTables(ctx context.Context, tables []string) error {
	db, closeDB, err := e.connect(ctx, e.Base, 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil // the run or check says what is missing
		}
		return err
	}
	defer closeDB()
	m, err := readColumnMarker(ctx, db)
	if sqlx.SQLState(err) == "42501" {
		return nil // a role that may not read it: its rows say the rest
	}
	if err != nil {
		return err
	}
	if err := e.copiedColumnFleet(m); err != nil {
		return err
	}
	if slices.Contains(m.Workloads, e.Workload) && !m.Foreign {
		return nil
	}
	var found []string
	for _, tb := range tables {
		ok, err := workload.TableExists(ctx, db, tb)
		if err != nil {
			return err
		}
		if ok {
			found = append(found, tb)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return &NotTenantsError{Kind: "table", Names: shortList(found), Pattern: e.Spec.Pattern, Where: fmt.Sprintf(" in database %q", e.Base.Database)}
}

// copiedColumnFleet refuses (*NotTenantsError) the base database when
// its column-mode marker m is a copy: of the whole database (CREATE
// DATABASE ... TEMPLATE: m.CopiedFrom), or of the marker alone, bound to
// another table's OID (a restore of the fleet's pg_dump: m.Unbound).
// Its rows are the user's, as those of schema mode's copies are.
func (e *env) copiedColumnFleet(m columnMarker) error {
	why := copiedFleetWhy
	switch {
	case m.Unbound:
		why = unboundMarkerWhy
	case m.CopiedFrom == "":
		return nil
	}
	return &NotTenantsError{Kind: "database", Names: []string{e.Base.Database}, Pattern: e.Spec.Pattern, Why: why}
}

// refuseColumnExec refuses fleet exec in column mode (*NotTenantsError)
// unless the base database holds a column-mode fleet of the workload:
// stampede's marker recording its tenants beside shared tables (tables,
// those that exist) that are its own (foreignSharedTables), in the
// database the fleet was made in (not a copy: columnMarker.CopiedFrom).
// A user's database, tables of the workload's names or not, is refused
// as cleanup and run refuse it.
func (e *env) refuseColumnExec(ctx context.Context, tables []string) error {
	db, closeDB, err := e.connect(ctx, e.Base, 1)
	if err != nil {
		return err
	}
	defer closeDB()
	m, err := readColumnMarker(ctx, db)
	if err != nil {
		return err
	}
	var existing []string
	for _, tb := range tables {
		if ok, err := workload.TableExists(ctx, db, tb); err != nil {
			return err
		} else if ok {
			existing = append(existing, tb)
		}
	}
	if err := e.copiedColumnFleet(m); err != nil {
		return err
	}
	where := fmt.Sprintf(" in database %q", e.Base.Database)
	foreign := existing
	if m.Exists && !m.Foreign && slices.Contains(m.Workloads, e.Workload) {
		if foreign, err = foreignSharedTables(ctx, db, existing, m, e.Workload); err != nil {
			return err
		}
		if len(foreign) == 0 {
			return e.columnTenantCount(ctx, db)
		}
	}
	if len(foreign) == 0 {
		return &NotTenantsError{Kind: "database", Names: []string{e.Base.Database}, Pattern: e.Spec.Pattern,
			Why: fmt.Sprintf("no %s marker of stampede's records a column-mode fleet of %s in it", MarkerTable, e.Workload)}
	}
	return &NotTenantsError{Kind: "table", Names: shortList(foreign), Pattern: e.Spec.Pattern, Where: where}
}

// columnTenantCount refuses (*ColumnTenantsError) a fleet exec whose
// --tenants is not the number of tenants the column-mode fleet in db
// holds: the statement goes to the shared tables, every tenant's rows.
func (e *env) columnTenantCount(ctx context.Context, db *sqlx.DB) error {
	var n int
	err := db.QueryRow(ctx, "SELECT count(*) FROM "+db.Dialect().QuoteIdent(MarkerTable)+" WHERE workload = $1", e.Workload).Scan(&n)
	if sqlx.SQLState(err) == "42501" {
		return nil // a role that may not read it: the fleet's count is unknown
	}
	if err != nil {
		return fmt.Errorf("reading table %s: %w", MarkerTable, err)
	}
	if n != e.Spec.Tenants {
		return &ColumnTenantsError{Database: e.Base.Database, Tenants: n, Asked: e.Spec.Tenants}
	}
	return nil
}

// ColumnTenantsError refuses a column-mode fleet exec whose --tenants is
// not the fleet's number of tenants.
type ColumnTenantsError struct {
	// Database holds the fleet; Tenants is its number of tenants, Asked
	// the --tenants given.
	Database       string
	Tenants, Asked int
}

func (e *ColumnTenantsError) Error() string {
	return fmt.Sprintf("the column-mode fleet in database %q has %d tenants, not %d (--tenants): fleet exec applies the statement to the shared tables, every tenant's rows at once; give --tenants %d",
		e.Database, e.Tenants, e.Asked, e.Tenants)
}

// Is makes errors.Is(err, ErrNotTenants) true: bad input, as the
// refusal of what is not a tenant.
func (e *ColumnTenantsError) Is(target error) bool { return target == ErrNotTenants }

// refuseForeignTenants returns a *NotTenantsError when any database (or
// schema) of the fleet that exists is not stampede's tenant, so that a
// statement such as DROP TABLE never reaches a user's own databases that
// the pattern happens to match. Tenants that do not exist are left to
// Exec, which lists them as failed. Column mode has no tenant databases
// or schemas: the statement goes to the shared tables of the base
// database.
func (e *env) refuseForeignTenants(ctx context.Context) error {
	e.anyFleet = true
	defer func() { e.anyFleet = false }()
	var kind string
	var foreign []string
	switch e.Spec.Mode {
	case ModeDatabase:
		admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), 1)
		if err != nil {
			return err
		}
		defer closeAdmin()
		set, err := existingDatabases(ctx, admin, e.surveyed())
		if err != nil {
			return err
		}
		if foreign, err = e.foreignDatabases(ctx, admin, keys(set)); err != nil {
			return err
		}
		kind = "database"
	case ModeSchema:
		db, closeDB, err := e.connect(ctx, e.Base, 1)
		if err != nil {
			return err
		}
		defer closeDB()
		state, err := schemaState(ctx, db, e.surveyed())
		if err != nil {
			return err
		}
		if foreign, err = e.foreignSchemas(ctx, db, state); err != nil {
			return err
		}
		kind = "schema"
	}
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	return &NotTenantsError{Kind: kind, Names: shortList(foreign), Pattern: e.Spec.Pattern, Why: foreignTenantWhy(foreign, e.handMade, e.Spec.Pattern)}
}

// surveyed returns the names of the tenants e's survey reads (every
// tenant without one).
func (e *env) surveyed() []string {
	names := e.Spec.names()
	if s := e.survey; s != nil && s.last > 0 {
		// A range outside the fleet's is Open's to refuse.
		lo, hi := max(s.first, 1)-1, min(s.last, len(names))
		if lo >= hi {
			return nil
		}
		return names[lo:hi]
	}
	return names
}

// ExecResult is the outcome of Exec.
type ExecResult struct {
	// Applied is the number of tenants the statement succeeded on now.
	Applied int
	// Skipped is the number of tenants an earlier run had done.
	Skipped int
	// Failed lists the tenants where the statement failed, by id.
	Failed []TenantError
	// Latency holds the statement's latency on each tenant it succeeded on.
	Latency *hdrhistogram.Histogram
	// Elapsed is the time Exec took.
	Elapsed time.Duration
}

// recordHeader is the first line of an exec record.
type recordHeader struct {
	Statement string    `json:"statement"`
	Mode      Mode      `json:"mode"`
	Pattern   string    `json:"pattern,omitempty"`
	Database  string    `json:"database,omitempty"`
	Started   time.Time `json:"started"`
}

// recordLine is a line of an exec record: one tenant done.
type recordLine struct {
	Tenant int       `json:"tenant"`
	Name   string    `json:"name,omitempty"`
	Ms     float64   `json:"ms"`
	At     time.Time `json:"at"`
	// Identity is the tenant's identity when the statement was applied
	// (tenantIdentities): a tenant of the same name made again since
	// (cleanup, then init) is another tenant, not done.
	Identity string `json:"identity,omitempty"`
}

// execRecord is an append-only record of the tenants a statement was
// applied to; every line is fsynced before the next tenant counts as done.
type execRecord struct {
	mu sync.Mutex
	f  *os.File
}

// openRecord opens (creating it, or truncating it on restart) the record
// at path and returns the tenants it says are done, each with the
// identities (recordLine.Identity) it was done under. It is called before
// anything is applied, so that nothing is ever applied without a record.
func openRecord(path string, restart bool, hdr recordHeader) (*execRecord, map[int]map[string]bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("cannot keep the record of the tenants done under %s: %w: give --results-dir a directory you can write", filepath.Dir(filepath.Dir(path)), err)
	}
	flags := os.O_CREATE | os.O_RDWR | os.O_APPEND
	if restart {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600) // it holds the statement, as run directories their command lines
	if err != nil {
		return nil, nil, fmt.Errorf("opening the exec record: %w", err)
	}
	done := map[int]map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	first := true
	for sc.Scan() {
		if first {
			first = false
			var h recordHeader
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Statement != hdr.Statement || h.Mode != hdr.Mode || h.Pattern != hdr.Pattern {
				f.Close()
				return nil, nil, fmt.Errorf("exec record %s belongs to another statement or fleet: pass --restart to start a new record", path)
			}
			continue
		}
		var l recordLine
		if json.Unmarshal(sc.Bytes(), &l) == nil { // a line torn by a crash is not a tenant done
			if done[l.Tenant] == nil {
				done[l.Tenant] = map[string]bool{}
			}
			done[l.Tenant][l.Identity] = true
		}
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading the exec record %s: %w", path, err)
	}
	r := &execRecord{f: f}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			// End the line a crash tore, so the next one stands alone.
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("writing the exec record: %w", err)
			}
		}
	}
	if first {
		if err := r.append(hdr); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return r, done, nil
}

func (r *execRecord) append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing the exec record: %w", err)
	}
	if err := r.f.Sync(); err != nil {
		return fmt.Errorf("syncing the exec record: %w", err)
	}
	return nil
}

func (r *execRecord) close() error { return r.f.Close() }

// Exec applies the statement to every tenant, at most Concurrency at
// once: in database mode connected to each tenant's database, in schema
// mode with the tenant's schema as search_path, in column mode once (on
// the shared tables, recorded as tenant 0). Every tenant done is appended
// to the record, so a rerun after a failure or an interruption skips the
// tenants done and applies the statement to the others only. Failing
// tenants are listed in the result; the error is for problems that stop
// everything (no record, a refused connection).
func Exec(ctx context.Context, o ExecOptions) (ExecResult, error) {
	start := time.Now()
	e := newEnv(o.Target)
	res := ExecResult{Latency: stats.NewHistogram()}
	hdr := recordHeader{Statement: o.Statement, Mode: o.Spec.Mode, Pattern: o.Spec.Pattern, Database: o.Base.Database, Started: start.UTC()}
	if o.Spec.Mode == ModeDatabase {
		hdr.Database = ""
	}
	refuse := e.refuseForeignTenants
	if o.Spec.Mode == ModeColumn {
		refuse = func(ctx context.Context) error { return e.refuseColumnExec(ctx, o.Tables) }
	}
	if err := refuse(ctx); err != nil {
		return res, err
	}
	ident, err := e.tenantIdentities(ctx)
	if err != nil {
		return res, err
	}
	rec, done, err := openRecord(o.Record, o.Restart, hdr)
	if err != nil {
		return res, err
	}
	defer rec.close()
	if o.Started != nil {
		o.Started()
	}
	all := []int{0}
	if o.Spec.Mode != ModeColumn {
		all = all[:0]
		for id := 1; id <= o.Spec.Tenants; id++ {
			all = append(all, id)
		}
	}
	var ids []int
	remade := 0
	for _, id := range all {
		switch {
		case done[id][ident[id]] || done[id][""]: // "": a record of an older stampede, which kept no identity
			res.Skipped++
		case len(done[id]) > 0 && ident[id] != "":
			remade++
			ids = append(ids, id)
		default:
			ids = append(ids, id)
		}
	}
	if res.Skipped > 0 {
		e.logf("%d tenants done by an earlier run (record %s) are skipped; --restart applies the statement to every tenant", res.Skipped, o.Record)
	}
	if remade > 0 {
		e.logf("%d tenants that the record %s names done were dropped and made again since (a new fleet): the statement is applied to them again", remade, o.Record)
	}
	if len(ids) == 0 {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	var mu sync.Mutex
	fail := func(id int, err error) {
		mu.Lock()
		res.Failed = append(res.Failed, TenantError{ID: id, Name: o.Spec.Name(id), Err: err})
		mu.Unlock()
	}
	var applied atomic.Int64
	succeed := func(id int, d time.Duration) error {
		mu.Lock()
		res.Latency.RecordValue(stats.Clamp(d))
		mu.Unlock()
		applied.Add(1)
		return rec.append(recordLine{Tenant: id, Name: o.Spec.Name(id), Ms: stats.Ms(int64(d)), At: time.Now().UTC(), Identity: ident[id]})
	}
	bar := e.bar("tenants", int64(len(ids)))
	defer bar.Done()
	switch o.Spec.Mode {
	case ModeColumn:
		db, closeDB, err := e.connect(ctx, e.Base, 1)
		if err != nil {
			return res, err
		}
		defer closeDB()
		t0 := time.Now()
		if err := execMarked(ctx, db, db, o.Statement); err != nil {
			fail(0, err)
		} else if err := succeed(0, time.Since(t0)); err != nil {
			return res, err
		}
		bar.Add(1)
	case ModeSchema:
		err = e.execSchemas(ctx, o, ids, fail, succeed, bar)
	default:
		err = e.execDatabases(ctx, o, ids, fail, succeed, bar)
	}
	res.Applied = int(applied.Load())
	sort.Slice(res.Failed, func(i, j int) bool { return res.Failed[i].ID < res.Failed[j].ID })
	res.Elapsed = time.Since(start)
	return res, err
}

// tenantIdentities returns each tenant's identity (by id; column mode's
// shared tables are 0): the OID of its database or schema, or in column
// mode of the fleet's marker, which a new fleet of the same names (after
// cleanup, or DROP and init) does not share. A tenant that does not
// exist has none, and none on other databases than PostgreSQL.
func (e *env) tenantIdentities(ctx context.Context) (map[int]string, error) {
	ident := map[int]string{}
	opts, query := e.Base, "SELECT nspname::text, oid::text FROM pg_namespace WHERE nspname = ANY($1)"
	names := e.Spec.names()
	switch e.Spec.Mode {
	case ModeDatabase:
		opts, query = e.adminOptions(), "SELECT datname::text, oid::text FROM pg_database WHERE datname = ANY($1)"
	case ModeColumn:
		names, query = []string{e.Base.Database}, "SELECT current_database()::text, to_regclass($1)::oid::text WHERE to_regclass($1) IS NOT NULL"
	}
	db, closeDB, err := e.connect(ctx, opts, 1)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if db.Null() || db.Dialect().Name() != "postgres" {
		return ident, nil
	}
	arg := any(names)
	if e.Spec.Mode == ModeColumn {
		arg = db.Dialect().QuoteIdent(MarkerTable)
	}
	rows, err := db.Query(ctx, query, arg)
	if err != nil {
		return nil, fmt.Errorf("reading the tenants' identities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, oid string
		if err := rows.Scan(&name, &oid); err != nil {
			return nil, err
		}
		if e.Spec.Mode == ModeColumn {
			ident[0] = "oid " + oid
		} else if id := slices.Index(names, name); id >= 0 {
			ident[id+1] = "oid " + oid
		}
	}
	return ident, rows.Err()
}

// execDatabases connects to each tenant's database in turn.
func (e *env) execDatabases(ctx context.Context, o ExecOptions, ids []int, fail func(int, error), succeed func(int, time.Duration) error, bar Bar) error {
	return forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		defer bar.Add(1)
		db, closeDB, err := e.connectTenant(ctx, o.Spec, id, fail)
		if db == nil {
			return err
		}
		defer closeDB()
		t0 := time.Now()
		if err := execMarked(ctx, db, db, o.Statement); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fail(id, err)
			return nil
		}
		return succeed(id, time.Since(t0))
	})
}

// execSchemas keeps Concurrency connections to the fleet's database and
// points each at a tenant's schema before applying the statement there.
func (e *env) execSchemas(ctx context.Context, o ExecOptions, ids []int, fail func(int, error), succeed func(int, time.Duration) error, bar Bar) error {
	db, closeDB, err := e.connect(ctx, e.Base, e.Concurrency)
	if err != nil {
		return err
	}
	defer closeDB()
	state, err := schemaState(ctx, db, e.Spec.names())
	if err != nil {
		return err
	}
	// Each of the Concurrency workers keeps one connection.
	conns := make([]sqlx.Conn, e.Concurrency)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Release()
			}
		}
	}()
	return forEachWorker(ctx, e.Concurrency, ids, func(ctx context.Context, w, id int) error {
		if conns[w] == nil {
			conns[w] = db.Conn(w, true)
		}
		conn := conns[w]
		name := e.Spec.Name(id)
		defer bar.Add(1)
		if _, ok := state[name]; !ok {
			fail(id, e.missingTenant(id))
			return nil
		}
		if _, err := conn.Exec(ctx, "SELECT set_config('search_path', $1, false)", db.Dialect().QuoteIdent(name)); err != nil {
			return e.explain(err)
		}
		t0 := time.Now()
		err := execMarked(ctx, db, conn, o.Statement)
		d := time.Since(t0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fail(id, err)
			return nil
		}
		return succeed(id, d)
	})
}

// execMarked runs a fleet exec statement on q, in its current schema (a
// tenant's), and marks what it made there as stampede's (execMadeQuery):
// the tenant is stampede's, and cleanup, which refuses to drop a table,
// view, sequence, function, type, domain, schema or index it did not make
// (the census, workload.UserIndexesIn), or a trigger, rule, policy,
// statistics object or filled column on stampede's tables (execMadeOn),
// drops what exec changed in it with it.
func execMarked(ctx context.Context, db *sqlx.DB, q sqlx.Querier, stmt string) error {
	if db.Null() || db.Dialect().Name() != "postgres" {
		_, err := q.Exec(ctx, stmt)
		return err
	}
	before := map[string]bool{}
	if err := eachMade(ctx, q, func(key, _ string) { before[key] = true }); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, stmt); err != nil {
		return err
	}
	var marks []string
	if err := eachMade(ctx, q, func(key, mark string) {
		if !before[key] {
			marks = append(marks, mark)
		}
	}); err != nil {
		return err
	}
	for _, m := range marks {
		if _, err := q.Exec(ctx, m); err != nil {
			return fmt.Errorf("marking what exec made: %w", err)
		}
	}
	return nil
}

// execMark is the mark of what fleet exec made in a tenant, bound to the
// object's OID (dialect.MarkOIDSep), as the census reads marks
// (workload.Objects; an index's, workload.UserIndexesIn).
const execMark = workload.Mark + " fleet exec"

// execMadeQuery lists the relations, routines, types and domains of the
// current schema, the schemas, the extensions (but their members), the
// statistics objects, triggers, rules, policies and columns of the
// current schema's tables, each as a key (catalog and OID) and the
// statement that marks it (execMark; a column's, which has no OID of its
// own, unbound): a relation's row type too (dialect.RowTypeMarkSep),
// which a user's COMMENT ON TABLE leaves. It lists the relations (but
// indexes), routines, types and domains of the schemas outside the
// tenants (outsideSchemas) too, and the statistics objects, triggers,
// rules and policies of their tables. A schema, an extension, and a
// relation, routine or type outside the current schema are marked with
// the database's OID as well (outsideMark): the fleet's cleanup drops
// them after the tenants (execOutside), in the database they were made
// in only.
var execMadeQuery = `SELECT 'c' || c.oid, format('COMMENT ON %s %I.%I IS %L',
		CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE'
			WHEN 'i' THEN 'INDEX' WHEN 'I' THEN 'INDEX' ELSE 'TABLE' END,
		n.nspname, c.relname, '` + execMark + `; oid ' || c.oid)
		|| CASE WHEN c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.reltype <> 0 THEN format(';
COMMENT ON TYPE %s IS %L', c.reltype::regtype, '` + execMark + `; oid ' || c.oid || '` + dialect.RowTypeMarkSep + `' || (SELECT oid FROM pg_database WHERE datname = current_database())) ELSE '' END
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f', 'i', 'I') AND n.nspname = current_schema() AND ` + notMember("pg_class", "c.oid") + `
	UNION ALL
	SELECT 'p' || p.oid, format('COMMENT ON %s %s IS %L', CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
		p.oid::regprocedure, '` + execMark + `; oid ' || p.oid)
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE p.prokind IN ('f', 'p') AND n.nspname = current_schema() AND ` + notMember("pg_proc", "p.oid") + `
	UNION ALL
	SELECT 't' || t.oid, format('COMMENT ON %s %I.%I IS %L', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
		n.nspname, t.typname, '` + execMark + `; oid ' || t.oid)
	FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
	WHERE n.nspname = current_schema() AND t.typtype IN ('b', 'c', 'd', 'e', 'r') AND t.typelem = 0
		AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c') AND ` + notMember("pg_type", "t.oid") + `
	UNION ALL
	SELECT 'n' || n.oid, format('COMMENT ON SCHEMA %I IS %L', n.nspname, ` + outsideMark("n.oid") + `)
	FROM pg_namespace n WHERE n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
	UNION ALL
	SELECT 'e' || x.oid, format('COMMENT ON EXTENSION %I IS %L', x.extname, ` + outsideMark("x.oid") + `)
	FROM pg_extension x WHERE x.extname <> 'plpgsql'
	UNION ALL
	SELECT 'c' || c.oid, format('COMMENT ON %s %I.%I IS %L',
		CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
		n.nspname, c.relname, ` + outsideMark("c.oid") + `)
		|| CASE WHEN c.relkind <> 'S' AND c.reltype <> 0 THEN format(';
COMMENT ON TYPE %s IS %L', c.reltype::regtype, '` + execMark + `; oid ' || c.oid || '` + dialect.RowTypeMarkSep + `' || (SELECT oid FROM pg_database WHERE datname = current_database())) ELSE '' END
	FROM pg_class c JOIN ` + outsideSchemas + ` ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f') AND ` + notMember("pg_class", "c.oid") + `
	UNION ALL
	SELECT 'p' || p.oid, format('COMMENT ON %s %s IS %L', CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
		p.oid::regprocedure, ` + outsideMark("p.oid") + `)
	FROM pg_proc p JOIN ` + outsideSchemas + ` ON n.oid = p.pronamespace
	WHERE p.prokind IN ('f', 'p') AND ` + notMember("pg_proc", "p.oid") + `
	UNION ALL
	SELECT 't' || t.oid, format('COMMENT ON %s %I.%I IS %L', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
		n.nspname, t.typname, ` + outsideMark("t.oid") + `)
	FROM pg_type t JOIN ` + outsideSchemas + ` ON n.oid = t.typnamespace
	WHERE t.typtype IN ('b', 'c', 'd', 'e', 'r') AND t.typelem = 0
		AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c') AND ` + notMember("pg_type", "t.oid") + `
	UNION ALL
	SELECT 'x' || s.oid, format('COMMENT ON STATISTICS %I.%I IS %L', n.nspname, s.stxname, '` + execMark + `; oid ' || s.oid)
	FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace WHERE ` + hereOrOutside + `
	UNION ALL
	SELECT 'g' || g.oid, format('COMMENT ON TRIGGER %I ON %I.%I IS %L', g.tgname, n.nspname, c.relname, '` + execMark + `; oid ' || g.oid)
	FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE NOT g.tgisinternal AND ` + hereOrOutside + `
	UNION ALL
	SELECT 'r' || r.oid, format('COMMENT ON RULE %I ON %I.%I IS %L', r.rulename, n.nspname, c.relname, '` + execMark + `; oid ' || r.oid)
	FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'f') AND ` + hereOrOutside + `
	UNION ALL
	SELECT 'o' || o.oid, format('COMMENT ON POLICY %I ON %I.%I IS %L', o.polname, n.nspname, c.relname, '` + execMark + `; oid ' || o.oid)
	FROM pg_policy o JOIN pg_class c ON c.oid = o.polrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE ` + hereOrOutside + `
	UNION ALL
	SELECT 'a' || a.attrelid || '.' || a.attnum, format('COMMENT ON COLUMN %I.%I.%I IS %L', n.nspname, c.relname, a.attname, '` + execMark + `')
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND n.nspname = current_schema()`

// eachMade calls f with each row of execMadeQuery on q.
func eachMade(ctx context.Context, q sqlx.Querier, f func(key, mark string)) error {
	rows, err := q.Query(ctx, execMadeQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key, mark string
		if err := rows.Scan(&key, &mark); err != nil {
			return err
		}
		f(key, mark)
	}
	return rows.Err()
}
