package cmdline

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	pgline "github.com/stampede-bench/stampede/cmdline/pgbench"
	sbline "github.com/stampede-bench/stampede/cmdline/sysbench"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// Load is `stampede init` of gen on urls as init's flags f and cf say,
// in sysbench's or pgbench's form when the command line is theirs: its
// log and progress on stderr, a report (YCSB's, sysbench's) on stdout.
func (f *Init) Load(ctx context.Context, gen workload.Generator, cf *Conn, urls []string, stdout, stderr io.Writer) error {
	if err := f.ResolveLoaders(); err != nil {
		return err
	}
	conn, err := cf.Spec(urls)
	if err != nil {
		return err
	}
	spec := f.LoadSpec(gen, conn)
	spec.Log, spec.Done, spec.Progress = stderr, f.Report(gen, stdout, stderr), ProgressBar(stderr)
	if f.SysbenchSyntax() {
		sbline.Prepare(&spec, f.Concurrency(), stdout, stderr)
	}
	on, quiet := f.PgbenchStyle()
	if pgline.InitsItself(gen) {
		// pgbench -i's own init (--as-pgbench) says its steps as
		// pgbench does, and has no lines of stampede's to print.
		if f.fs != nil && f.fs.Changed("output-style") && !on {
			return usagef("--as-pgbench prints pgbench -i's lines: leave out --output-style %s", f.outputStyle)
		}
		on = true
	}
	if on {
		if err := pgline.Init(&spec, quiet, stderr); err != nil {
			return err
		}
	}
	if f.dryRun {
		if err := run.ValidateLoad(spec); err != nil {
			return err
		}
		fmt.Fprintln(stdout, loadDryRunLine(gen, spec.Share))
		return nil
	}
	return run.Load(ctx, spec)
}

// loadDryRunLine says what init of gen would load, for --dry-run: its
// share of a split load ("client 1 of 3's share (keys 10000-19999)").
func loadDryRunLine(gen workload.Generator, share run.Part) string {
	what := ""
	if sl, ok := gen.(workload.ShareLoader); ok && share.Count > 0 {
		what = fmt.Sprintf(", client %d of %d's share (%s)", share.Index, share.Count, sl.ShareOf(share.Index, share.Count))
	}
	return fmt.Sprintf("dry run: init %s%s: the command line is valid; nothing was loaded", gen.Meta().Name, what)
}

// Check is `stampede check` of gen on urls.
func Check(ctx context.Context, gen workload.Generator, cf *Conn, urls []string, stdout, stderr io.Writer) error {
	conn, err := cf.Spec(urls)
	if err != nil {
		return err
	}
	return run.Check(ctx, gen, conn, stdout, stderr)
}

// Cleanup is `stampede cleanup` of gen on urls, in sysbench's form when
// fs's hidden --sysbench-syntax says the command line is sysbench's
// (its --threads then says which bulk_insert tables go).
func Cleanup(ctx context.Context, gen workload.Generator, cf *Conn, urls []string, forceDrop bool, fs *pflag.FlagSet, stdout, stderr io.Writer) error {
	conn, err := cf.Spec(urls)
	if err != nil {
		return err
	}
	spec := run.CleanupSpec{Workload: gen, Conn: conn, ForceDrop: forceDrop, Log: stderr}
	if sb, _ := fs.GetBool("sysbench-syntax"); sb {
		threads, _ := fs.GetInt("threads")
		return sbline.Cleanup(ctx, spec, threads, stdout)
	}
	return run.Cleanup(ctx, spec)
}
