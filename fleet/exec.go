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
	if err != nil || slices.Contains(m.Workloads, e.Workload) && !m.Foreign {
		return err
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
}

// execRecord is an append-only record of the tenants a statement was
// applied to; every line is fsynced before the next tenant counts as done.
type execRecord struct {
	mu sync.Mutex
	f  *os.File
}

// openRecord opens (creating it, or truncating it on restart) the record
// at path and returns the tenants it says are done. It is called before
// anything is applied, so that nothing is ever applied without a record.
func openRecord(path string, restart bool, hdr recordHeader) (*execRecord, map[int]bool, error) {
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
	done := map[int]bool{}
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
			done[l.Tenant] = true
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
	if err := e.refuseForeignTenants(ctx); err != nil {
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
	var ids []int
	if o.Spec.Mode == ModeColumn {
		if done[0] {
			res.Skipped = 1
		} else {
			ids = []int{0}
		}
	} else {
		for id := 1; id <= o.Spec.Tenants; id++ {
			if done[id] {
				res.Skipped++
			} else {
				ids = append(ids, id)
			}
		}
	}
	if res.Skipped > 0 {
		e.logf("%d tenants done by an earlier run (record %s) are skipped; --restart applies the statement to every tenant", res.Skipped, o.Record)
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
		return rec.append(recordLine{Tenant: id, Name: o.Spec.Name(id), Ms: stats.Ms(int64(d)), At: time.Now().UTC()})
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
// tenant's), and marks the indexes it made there as stampede's: the
// tenant is stampede's, and cleanup, which refuses to drop an index it
// did not make (workload.UserIndexesIn), drops what exec changed in it
// with it.
func execMarked(ctx context.Context, db *sqlx.DB, q sqlx.Querier, stmt string) error {
	if db.Null() || db.Dialect().Name() != "postgres" {
		_, err := q.Exec(ctx, stmt)
		return err
	}
	const indexes = `SELECT c.oid::bigint, format('COMMENT ON INDEX %I.%I IS %L', n.nspname, c.relname, 'made by stampede fleet exec')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('i', 'I') AND n.nspname = current_schema()`
	before := map[int64]bool{}
	if err := eachIndex(ctx, q, indexes, func(oid int64, _ string) { before[oid] = true }); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, stmt); err != nil {
		return err
	}
	var marks []string
	if err := eachIndex(ctx, q, indexes, func(oid int64, mark string) {
		if !before[oid] {
			marks = append(marks, mark)
		}
	}); err != nil {
		return err
	}
	for _, m := range marks {
		if _, err := q.Exec(ctx, m); err != nil {
			return fmt.Errorf("marking the index exec made: %w", err)
		}
	}
	return nil
}

// eachIndex calls f with each row (an OID and a text) of query on q.
func eachIndex(ctx context.Context, q sqlx.Querier, query string, f func(int64, string)) error {
	rows, err := q.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var oid int64
		var s string
		if err := rows.Scan(&oid, &s); err != nil {
			return err
		}
		f(oid, s)
	}
	return rows.Err()
}
