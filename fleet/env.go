package fleet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// MarkerTable is the table that marks a tenant complete in database and
// schema modes: it is created last, after the tenant's data is loaded, so a
// tenant without it is half-created. In column mode it holds one row per
// loaded tenant.
const MarkerTable = workload.TenantMarkerTable

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
	// ForceDrop lets Drop, and Create with Drop, drop databases, schemas
	// and tables that are not stampede's tenants (--force-drop); without
	// it they are refused (*workload.ForeignError).
	ForceDrop bool
}

// env is one fleet operation's state: its target and the connections it
// holds open (to say how many when the server refuses one more).
type env struct {
	Target
	open atomic.Int64
	// anyFleet takes the tenants of any workload's fleet for tenants
	// (fleet exec); else those of another workload's fleet are refused.
	anyFleet bool
	// survey holds what SurveyTenants reads once: the tenants it reads
	// (first..last, 0 for every one) and the marker of the first, kept
	// when telling it stampede's read it.
	survey *survey
	// keepRoles are the tenant roles cleanup --force-drop keeps, as they
	// own or hold privileges on objects outside their tenants
	// (refuseHeldRoles).
	keepRoles map[string]bool
	// heldErr is the RoleHoldsError of Drop's survey of the tenant
	// roles, said in the one refusal beside the tenants' own problems.
	heldErr error
	// handMade are the databases or schemas that foreignDatabases and
	// foreignSchemas found holding a table of the marker's name that is
	// not stampede's marker, or stampede's in a database not marked as
	// a tenant (foundCopy), for refuseForeign's message.
	handMade map[string]found
	// inside is, by tenant database, what holdingDatabases found done
	// to it as a whole that only a connection to it tells
	// (workload.DatabaseWorkInside), for refuseDatabaseWork.
	inside map[string][]string
	// outside is what fleet exec made in a schema- or column-mode
	// fleet's database outside the tenants (surveyOutside), which the
	// drop takes after them (dropOutside).
	outside execOutside
}

// survey is SurveyTenants' part of an env.
type survey struct {
	first, last int
	// marker is the first tenant's marker, read is true once it was
	// read (ok: it has one).
	marker   marker
	ok, read bool
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

// ensureBase creates the fleet's database (of schema and column modes)
// when it does not exist, and says so.
func (e *env) ensureBase(ctx context.Context) error {
	created, err := sqlx.EnsureDatabase(ctx, e.Base)
	if err != nil {
		return e.explain(err)
	}
	if created {
		e.logf("created database %q", e.Base.Database)
	}
	return nil
}

// connectTenant connects to tenant id's own database (or schema) with
// spec's options and one connection. A database that does not exist is
// tenant id's failure, reported through fail: db is then nil and err nil.
func (e *env) connectTenant(ctx context.Context, spec Spec, id int, fail func(int, error)) (db *sqlx.DB, closeDB func(), err error) {
	db, closeDB, err = e.connect(ctx, spec.Options(e.Base, id), 1)
	if err != nil && sqlx.IsMissingDatabase(err) {
		fail(id, e.missingTenant(id))
		return nil, nil, nil
	}
	return db, closeDB, err
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

// nameList renders names for a message: all of them up to five, then the
// first five and how many more.
func nameList(names []string) string {
	const shown = 5
	// Shorter names first: tenant_2 before tenant_10.
	names = slices.Clone(names)
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
