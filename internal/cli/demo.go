package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/internal/clientsched"
	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// demoFlags control `stampede demo`.
type demoFlags struct {
	duration    time.Duration
	concurrency int
	records     int
	resultsDir  string
	keep        bool
	clientSched string
}

func (a *app) demoCmd() *cobra.Command {
	f := &demoFlags{}
	cmd := &cobra.Command{
		Use:   "demo [URL]",
		Short: "Load and run YCSB workload A on a throwaway local PostgreSQL (or on URL)",
		Long: `demo shows what stampede does in under a minute. With no URL it starts a throwaway
PostgreSQL from the server binaries installed on this machine (initdb and pg_ctl, in a
temporary directory, listening on 127.0.0.1 only; as root it runs the server as the
postgres user), loads YCSB's usertable, runs YCSB workload A (50% reads, 50% updates,
zipfian keys) for 20 seconds, prints the results and where they were saved, then stops
the server and removes its files (also after Ctrl-C). With a URL it runs the same
against that server in a database of its own, stampede_demo: it creates it, marks it as
the demo's (a comment), and drops it at the end; it never touches another database, and
refuses to start if a stampede_demo that it did not create exists.`,
		Example: `  stampede demo
  stampede demo --duration 60s --concurrency 16
  stampede demo 'postgresql://postgres@127.0.0.1:5432/postgres?sslmode=disable'`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.demo(cmd.Context(), f, args)
		},
	}
	fs := cmd.Flags()
	fs.DurationVar(&f.duration, "duration", 20*time.Second, "how long to run workload A")
	fs.IntVar(&f.concurrency, "concurrency", 8, "number of workers")
	fs.IntVar(&f.records, "records", 100000, "rows to load into usertable")
	fs.StringVar(&f.resultsDir, "results-dir", "", "where the run directory is written (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&f.clientSched, "client-sched", string(clientsched.Batch), "scheduling policy of stampede's threads during the run: batch (SCHED_BATCH, the default) or normal; see stampede run --help")
	fs.BoolVar(&f.keep, "keep", false, "with no URL: leave the throwaway server running (its URL is printed) instead of removing it; with a URL: keep the stampede_demo database")
	return cmd
}

func (a *app) demo(ctx context.Context, f *demoFlags, args []string) error {
	if f.duration <= 0 || f.concurrency < 1 || f.records < 1 {
		return usagef("--duration, --concurrency and --records must be positive")
	}
	if _, err := clientsched.Parse(f.clientSched); err != nil {
		return usagef("unknown --client-sched %q: use batch or normal", f.clientSched)
	}
	var url string
	var watch []string // the throwaway server, whose CPU and IO the telemetry records
	db := "ycsb"       // on the throwaway server, whose every database is the demo's
	if len(args) == 1 {
		url = args[0]
		db = demoDatabase
		release, err := a.claimDemoDatabase(ctx, url, f.keep)
		if err != nil {
			return err
		}
		defer release()
	} else {
		fmt.Fprintln(a.stderr, "==> starting a throwaway PostgreSQL on 127.0.0.1")
		srv, err := localpg.Start(ctx, localpg.Options{Log: a.stderr, Detach: f.keep})
		if err != nil {
			return err
		}
		if f.keep {
			fmt.Fprintf(a.stderr, "==> server left running: %s\n", srv.URL("ycsb"))
		} else {
			defer func() {
				fmt.Fprintln(a.stderr, "==> stopping the throwaway PostgreSQL and removing its files")
				if err := srv.Stop(); err != nil {
					fmt.Fprintf(a.stderr, "warning: %v\n", err)
				}
			}()
		}
		fmt.Fprintf(a.stderr, "==> PostgreSQL %s is listening on 127.0.0.1:%d\n", srv.Version(), srv.Port())
		url = srv.URL("postgres")
		if pid, err := srv.PID(); err == nil {
			watch = []string{fmt.Sprintf("--watch-pid=%d", pid)}
		}
	}
	meta, ok := workload.Get("ycsb")
	if !ok {
		return fmt.Errorf("the ycsb workload is not built in")
	}
	records := fmt.Sprintf("recordcount=%d", f.records)
	gen, err := workload.FromFlags(meta, "--workload=a", "-p", records)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "==> stampede init ycsb --workload a -p %s --db %s --drop\n", records, db)
	cf := &connFlags{driver: "postgres", db: db}
	inf := &initFlags{drop: true, concurrency: 4, seed: 1}
	if err := a.initWorkload(ctx, gen, cf, inf, []string{url}); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	fmt.Fprintf(a.stderr, "==> stampede run ycsb --workload a --db %s --duration %s --concurrency %d\n", db, f.duration, f.concurrency)
	rgen, err := workload.FromFlags(meta, "--workload=a", "-p", records)
	if err != nil {
		return err
	}
	rf := &runFlags{}
	fs := newRunFlagSet(rf)
	if err := fs.Parse(append([]string{
		"--duration=" + f.duration.String(),
		fmt.Sprintf("--concurrency=%d", f.concurrency),
		"--results-dir=" + f.resultsDir,
		"--client-sched=" + f.clientSched,
	}, watch...)); err != nil {
		return err
	}
	if err := rf.resolve(fs); err != nil {
		return err
	}
	out, err := a.runWorkload(ctx, runSpec{gen: rgen, conn: cf, flags: rf, fs: fs, urls: []string{url}})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "\n==> done: %.0f ops/s, p99 %.2f ms over %.0fs. Every interval's histograms are in %s\n",
		out.Summary.Total.Rate, out.Summary.Total.P99, out.Summary.ElapsedSec, out.Info.Dir)
	return nil
}

// The database the demo works in on a server given by URL, and the owner
// its mark names (see sqlx.ClaimDatabase).
const (
	demoDatabase = "stampede_demo"
	demoOwner    = "stampede demo"
)

// claimDemoDatabase creates the demo's own database on the server of url
// (or reuses the one an earlier demo left), refusing if a database of
// that name exists that the demo did not make. release drops it again,
// unless keep.
func (a *app) claimDemoDatabase(ctx context.Context, url string, keep bool) (release func(), err error) {
	opts := sqlx.Options{URLs: []string{url}, MaxConns: 1, AppName: "stampede demo"}
	cfgs, err := sqlx.ParseConfigs(opts)
	if err != nil {
		return nil, asUsage(err)
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
	if errors.Is(err, sqlx.ErrNotOwned) {
		return nil, fmt.Errorf("database %q already exists on %s and stampede demo did not create it: the demo only works in a database of its own; drop or rename that one, or give the URL of another server", demoDatabase, where)
	}
	if err != nil {
		return nil, err
	}
	what := "created"
	if !created {
		what = "reusing the one an earlier demo left"
	}
	end := "dropped at the end (--keep keeps it)"
	if keep {
		end = "kept at the end (--keep)"
	}
	fmt.Fprintf(a.stderr, "==> the demo works in its own database %q on %s: %s; %s\n", demoDatabase, where, what, end)
	return func() {
		if keep {
			fmt.Fprintf(a.stderr, "==> database %q kept on %s; `stampede demo URL` reuses it and drops it at its end\n", demoDatabase, where)
			return
		}
		fmt.Fprintf(a.stderr, "==> dropping the demo's database %q on %s\n", demoDatabase, where)
		ctx := context.WithoutCancel(ctx)
		admin, err := sqlx.Open(ctx, opts)
		if err == nil {
			err = sqlx.DropClaimedDatabase(ctx, admin, demoDatabase, demoOwner)
			admin.Close()
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(err.Error()))
		}
	}, nil
}
