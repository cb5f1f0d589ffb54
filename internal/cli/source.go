package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// runSource is where a run's operations come from: one database (an
// ordinary run) or many tenants (a fleet run). runWorkload drives the
// engine, the run log and the output the same way for both.
type runSource struct {
	// load is the workers and operations the engine runs.
	load workload.QueryLoad
	// workers is the number of workers load must have.
	workers int
	// endpoints, database and serverVersion describe the server in
	// run.json; where says what the run works on in the first line.
	endpoints     []string
	database      string
	serverVersion string
	where         string
	// reconnects counts the connections re-established so far.
	reconnects func() int64
	// check runs the workload's consistency checks after the run; nil
	// when the source cannot.
	check func(ctx context.Context, r workload.Reporter) error
	// close releases the source's connections.
	close func()
	// rampDone, when set, is called when the engine's ramp ends (a fleet
	// leaves the ramp out of its tenants' figures too).
	rampDone func()
	// finish, when set, completes the summary after the final figures are
	// printed and prints its own part (a fleet's table) on out in the
	// run's --format.
	finish func(sum *runSummary, out io.Writer, format string)
	// tenantFigures says the workload's figures are per tenant (finish
	// reports them), not computed from the run's totals.
	tenantFigures bool
	// threadIO says the connections use thread I/O: the run gives each
	// worker a processor (GOMAXPROCS) so that a worker blocked in the
	// kernel does not hold back the others.
	threadIO bool
	// serverCPU, when set, returns the server's CPU over the run in cores
	// (from telemetry of the server's processes) and whether it is known.
	serverCPU func() (float64, bool)
}

// openSource opens the database of an ordinary run and asks the workload
// for its operations.
func (a *app) openSource(ctx context.Context, spec runSpec, opser workload.Opser, seed uint64) (*runSource, error) {
	gen, rf := spec.gen, spec.flags
	opts, err := spec.conn.options(spec.urls, gen.Meta().DatabaseName(), rf.concurrency)
	if err != nil {
		return nil, err
	}
	opts.Workers = rf.concurrency
	opts.StatementTimeout = rf.opTimeout
	opts.ThreadIO = rf.threadIO(opts)
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			db.Close()
		}
	}()
	h, _ := gen.(workload.Hookser)
	if h != nil && h.Hooks().PreRun != nil {
		if err := h.Hooks().PreRun(ctx, db); err != nil {
			return nil, err
		}
	}
	load, err := opser.Ops(ctx, db, workload.OpsConfig{Concurrency: rf.concurrency, Seed: seed, Warn: a.warnf, Error: spec.opErrors})
	if err != nil {
		return nil, err
	}
	src := &runSource{
		load:          load,
		workers:       rf.concurrency,
		endpoints:     db.Endpoints(),
		database:      db.Database(),
		serverVersion: db.ServerVersion(ctx),
		where:         fmt.Sprintf("database %q", db.Database()),
		reconnects:    db.Reconnects,
		close:         db.Close,
		threadIO:      opts.ThreadIO,
	}
	if h != nil && h.Hooks().CheckConsistency != nil {
		check := h.Hooks().CheckConsistency
		src.check = func(ctx context.Context, r workload.Reporter) error { return check(ctx, db, r) }
	}
	ok = true
	return src, nil
}

// warnf prints a non-fatal warning on stderr.
func (a *app) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "warning: "+format+"\n", args...)
}
