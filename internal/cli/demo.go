package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/internal/clientsched"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
)

// demoFlags control `stampede demo`.
type demoFlags struct {
	duration    time.Duration
	concurrency int
	records     int
	resultsDir  string
	keep        bool
	forceDrop   bool
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
refuses to start if a stampede_demo that it did not create exists (--force-drop drops it).`,
		Example: `  stampede demo
  stampede demo --duration 60s --concurrency 16
  stampede demo 'postgresql://postgres@127.0.0.1:5432/postgres?sslmode=disable'`,
		Args: cmdline.Positional(0, 1),
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
	fs.BoolVar(&f.forceDrop, "force-drop", false, "with a URL: drop a stampede_demo database that the demo did not create, instead of refusing to start")
	return cmd
}

func (a *app) demo(ctx context.Context, f *demoFlags, args []string) error {
	if _, err := clientsched.Parse(f.clientSched); err != nil {
		return usagef("unknown --client-sched %q: use batch or normal", f.clientSched)
	}
	if f.forceDrop && len(args) == 0 {
		return usagef("--force-drop drops a stampede_demo of a server given by URL: the throwaway server has nothing to drop; give a URL, or leave it out")
	}
	spec := run.DemoSpec{Keep: f.keep, ForceDrop: f.forceDrop, Duration: f.duration, Concurrency: f.concurrency, Records: f.records,
		ResultsDir: f.resultsDir, ClientSched: f.clientSched, Command: cmdline.RedactArgs(a.args), Log: a.stderr,
		Observers: []run.Observer{&output.Stampede{W: a.stdout}}}
	if len(args) == 1 {
		spec.URL = args[0]
	}
	_, err := run.Demo(ctx, spec)
	return err
}
