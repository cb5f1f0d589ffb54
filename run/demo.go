package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// DemoSpec says what Demo does.
type DemoSpec struct {
	// URL is the server to run against; "" starts a throwaway PostgreSQL
	// (see package localpg) and removes it at the end.
	URL string
	// Keep keeps the throwaway server running, or with a URL the demo's
	// database.
	Keep bool
	// Duration, Concurrency and Records shape the run: YCSB workload A
	// for Duration with Concurrency workers on Records rows.
	Duration    time.Duration
	Concurrency int
	Records     int
	// ResultsDir, ClientSched, Command, Observers and Checks are as in
	// Spec.
	ResultsDir  string
	ClientSched string
	Command     []string
	Observers   []Observer
	// ForceDrop drops a stampede_demo database on URL that the demo did
	// not create (--force-drop); without it the demo refuses to start.
	ForceDrop bool
	// Log receives the demo's lines (stderr on the command line).
	Log io.Writer
}

// Demo shows what stampede does: it loads YCSB's usertable and runs
// workload A on a throwaway local PostgreSQL, or on spec.URL in a
// database of its own (stampede_demo, created and marked as the demo's,
// dropped at the end; a stampede_demo it did not make is refused).
func Demo(ctx context.Context, spec DemoSpec) (*Result, error) {
	log := spec.Log
	if log == nil {
		log = io.Discard
	}
	switch {
	case spec.Duration <= 0:
		return nil, inputf("--duration %v: give a positive duration, such as 20s", spec.Duration)
	case spec.Concurrency < 1:
		return nil, inputf("--concurrency %d: need at least 1 worker", spec.Concurrency)
	case spec.Records < 1:
		return nil, inputf("--records %d: need at least 1 row to load", spec.Records)
	}
	meta, ok := workload.Get("ycsb")
	if !ok {
		return nil, fmt.Errorf("the ycsb workload is not built in")
	}
	records := fmt.Sprintf("recordcount=%d", spec.Records)
	gen, err := workload.FromFlags(meta, "--workload=a", "-p", records)
	if err != nil {
		return nil, err
	}
	// Before any server starts or row loads: Start would refuse the
	// workers only after the load.
	if err := CheckWorkersOf("--concurrency", spec.Concurrency, false, gen); err != nil {
		return nil, err
	}
	if err := writableResults(spec.ResultsDir); err != nil {
		return nil, err
	}
	url, db := spec.URL, "ycsb" // on the throwaway server, whose every database is the demo's
	var watch []int             // the throwaway server, whose CPU and IO the telemetry records
	if url != "" {
		db = demoDatabase
		release, err := claimDemoDatabase(ctx, url, gen, spec.Keep, spec.ForceDrop, log)
		if err != nil {
			return nil, err
		}
		defer release()
	} else {
		fmt.Fprintln(log, "==> starting a throwaway PostgreSQL on 127.0.0.1")
		srv, err := localpg.Start(ctx, localpg.Options{Log: log, Detach: spec.Keep})
		if err != nil {
			return nil, err
		}
		if spec.Keep {
			fmt.Fprintf(log, "==> server left running: %s\n", srv.URL("ycsb"))
		} else {
			defer func() {
				fmt.Fprintln(log, "==> stopping the throwaway PostgreSQL and removing its files")
				if err := srv.Stop(); err != nil {
					fmt.Fprintf(log, "warning: %v\n", err)
				}
			}()
		}
		fmt.Fprintf(log, "==> PostgreSQL %s is listening on 127.0.0.1:%d\n", srv.Version(), srv.Port())
		url = srv.URL("postgres")
		if pid, err := srv.PID(); err == nil {
			watch = []int{pid}
		}
	}
	conn := Conn{URLs: []string{url}, Database: db}
	fmt.Fprintf(log, "==> stampede init ycsb --workload a -p %s --db %s --drop\n", records, db)
	// db is the demo's: a throwaway server's, or the stampede_demo
	// database that claimDemoDatabase made sure is its own. Its --drop
	// forces only when the user said so: what a user made there since
	// the census (a trigger on usertable, say) is refused as anywhere.
	force := spec.URL == "" || spec.ForceDrop
	if err := Load(ctx, LoadSpec{Workload: gen, Conn: conn, Drop: true, ForceDrop: force, Concurrency: 4, Seed: 1, Log: log}); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	fmt.Fprintf(log, "==> stampede run ycsb --workload a --db %s --duration %s --concurrency %d\n", db, spec.Duration, spec.Concurrency)
	if gen, err = workload.FromFlags(meta, "--workload=a", "-p", records); err != nil {
		return nil, err
	}
	r, err := Start(ctx, Spec{Workload: gen, Conn: conn, Duration: spec.Duration, Concurrency: spec.Concurrency,
		ClientSched: spec.ClientSched, ResultsDir: spec.ResultsDir, Command: spec.Command, Observers: spec.Observers,
		Telemetry: Telemetry{WatchPIDs: watch}, Log: log,
		Flags: map[string]string{"duration": spec.Duration.String(), "concurrency": fmt.Sprint(spec.Concurrency),
			"records": fmt.Sprint(spec.Records), "client-sched": spec.ClientSched}})
	if err != nil {
		return nil, err
	}
	res, err := r.Wait()
	if err != nil {
		return res, err
	}
	fmt.Fprintf(log, "\n==> done: %.0f ops/s, p99 %.2f ms over %.0fs. Every interval's histograms are in %s\n",
		res.Summary.Total.Rate, res.Summary.Total.P99, res.Summary.ElapsedSec, res.Info.Dir)
	return res, nil
}

// The database the demo works in on a server given by URL, and the owner
// its mark names (see sqlx.ClaimDatabase).
const (
	demoDatabase = "stampede_demo"
	demoOwner    = "stampede demo"
)

// claimDemoDatabase creates the demo's own database on the server of url
// (or reuses the one an earlier demo left), refusing if a database of
// that name exists that the demo did not make, or that an earlier demo
// left (--keep) and that now holds objects stampede did not make (a
// user's table, say: gen's are the demo's), unless force drops it first.
// release drops it again, unless keep, or unless it then holds objects
// stampede did not make (made while the demo ran), which a warning names.
func claimDemoDatabase(ctx context.Context, url string, gen workload.Generator, keep, force bool, log io.Writer) (release func(), err error) {
	opts := sqlx.Options{URLs: []string{url}, MaxConns: 1, AppName: "stampede demo"}
	cfgs, err := sqlx.ParseConfigs(opts)
	if err != nil {
		return nil, asInput(err)
	}
	if cfgs[0].ConnConfig.Database == demoDatabase {
		// The demo's database cannot drop itself: manage it from the
		// server's maintenance database.
		opts.Database = "postgres"
	}
	admin, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	where := strings.Join(admin.Endpoints(), ",")
	created, err := sqlx.ClaimDatabase(ctx, admin, demoDatabase, demoOwner)
	forced := false // whether force dropped anything
	if errors.Is(err, sqlx.ErrNotOwned) && force {
		forced = true
		fmt.Fprintf(log, "%s: dropping database %q on %s, which stampede demo did not create\n", workload.ForceDropFlag, demoDatabase, where)
		if _, err := admin.Exec(ctx, admin.Dialect().DropDatabase(demoDatabase)); err != nil {
			return nil, fmt.Errorf("dropping database %q: %w", demoDatabase, err)
		}
		created, err = sqlx.ClaimDatabase(ctx, admin, demoDatabase, demoOwner)
	}
	if errors.Is(err, sqlx.ErrNotOwned) {
		return nil, inputf("database %q already exists on %s and stampede demo did not create it: the demo works only in a database of its own, and leaves that one alone; give the URL of another server, or to drop it anyway, add %s", demoDatabase, where, workload.ForceDropFlag)
	}
	if err != nil {
		return nil, err
	}
	if !created {
		foreign, err := demoForeign(ctx, opts, gen)
		if err != nil {
			return nil, err
		}
		if len(foreign) > 0 && !force {
			return nil, asInput(&workload.HoldsForeignError{Kind: "database", Names: []string{demoDatabase}, Where: "on " + where,
				Objects: foreign, Action: "the demo"})
		}
		if len(foreign) > 0 {
			forced = true
			fmt.Fprintf(log, "%s: dropping database %q on %s with objects stampede did not make: %s\n", workload.ForceDropFlag, demoDatabase, where, strings.Join(foreign, ", "))
			if _, err := admin.Exec(ctx, admin.Dialect().DropDatabase(demoDatabase)); err != nil {
				return nil, fmt.Errorf("dropping database %q: %w", demoDatabase, err)
			}
			if created, err = sqlx.ClaimDatabase(ctx, admin, demoDatabase, demoOwner); err != nil {
				return nil, err
			}
		}
	}
	if force && !forced {
		// Not refused: whether there is anything to drop is the
		// server's state, which the user may not know; said, not silent.
		fmt.Fprintf(log, "note: %s dropped nothing: no database %q on %s holds anything stampede did not make\n", workload.ForceDropFlag, demoDatabase, where)
	}
	what := "created"
	if !created {
		what = "reusing the one an earlier demo left"
	}
	end := "dropped at the end (--keep keeps it)"
	if keep {
		end = "kept at the end (--keep)"
	}
	fmt.Fprintf(log, "==> the demo works in its own database %q on %s: %s; %s\n", demoDatabase, where, what, end)
	return func() {
		if keep {
			fmt.Fprintf(log, "==> database %q kept on %s; `stampede demo URL` reuses it and drops it at its end\n", demoDatabase, where)
			return
		}
		ctx := context.WithoutCancel(ctx)
		// What a user made in the database while the demo ran (a table
		// of theirs, the demo's usertable renamed to keep it) is not the
		// demo's to drop: the database stays, and the line says so.
		foreign, err := demoForeign(ctx, opts, gen)
		if err != nil {
			fmt.Fprintf(log, "warning: database %q on %s left in place: listing its objects failed (%s)\n", demoDatabase, where, oneLine(err.Error()))
			return
		}
		if len(foreign) > 0 {
			fmt.Fprintf(log, "warning: %s\n", oneLine((&workload.HoldsForeignError{Kind: "database", Names: []string{demoDatabase}, Where: "on " + where,
				Objects: foreign, Action: "the demo's end"}).Error()))
			return
		}
		fmt.Fprintf(log, "==> dropping the demo's database %q on %s\n", demoDatabase, where)
		admin, err := sqlx.Open(ctx, opts)
		if err == nil {
			err = sqlx.DropClaimedDatabase(ctx, admin, demoDatabase, demoOwner)
			admin.Close()
		}
		if err != nil {
			fmt.Fprintf(log, "warning: %s\n", oneLine(err.Error()))
		}
	}, nil
}

// writableResults checks, before the demo starts a server and loads it,
// that its run directory can be saved under dir (the default when empty),
// rather than failing after the load.
func writableResults(dir string) error {
	root, err := ResultsRoot(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return saveRootError(root, err)
	}
	f, err := os.CreateTemp(root, ".stampede-demo-check-*")
	if err != nil {
		return saveRootError(root, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// demoForeign returns the objects of the demo's database (on the server
// of opts) that stampede did not make: neither marked nor gen's; and a
// user's work on the database as a whole (workload.DatabaseWorkOf).
func demoForeign(ctx context.Context, opts sqlx.Options, gen workload.Generator) ([]string, error) {
	opts.Database = demoDatabase
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	foreign, err := workload.ForeignObjectsIn(ctx, db, gen)
	if err != nil {
		return nil, err
	}
	// And a user's work on the database itself (its settings, grants,
	// owner...), which dropping it would lose as well.
	work, err := workload.DatabaseWorkOf(ctx, db, "")
	return append(foreign, work...), err
}
