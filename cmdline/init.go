package cmdline

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// Init holds the flags of `stampede init`.
type Init struct {
	drop        bool
	forceDrop   bool
	analyze     bool
	concurrency int
	threads     int
	seed        uint64
	outputStyle string
	sysbench    bool
	// pgbenchQuiet is pgbench's -q with --output-style pgbench.
	pgbenchQuiet bool
	// clients and index split the load (--clients, --client-index).
	clients, index int
	// dryRun checks the command line and loads nothing (--dry-run).
	dryRun bool
	// timer times a load in YCSB's form (--output-style ycsb).
	timer *output.YCSBLoadTimer
	fs    *pflag.FlagSet // the flags registered in, to tell which were given
}

// Register defines the flags on fs.
func (f *Init) Register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.BoolVar(&f.drop, "drop", false, "drop existing tables first (only tables stampede made: others are refused)")
	fs.BoolVar(&f.forceDrop, "force-drop", false, "--drop, and drop the tables (or tenant databases, schemas) even where stampede did not make them")
	fs.BoolVar(&f.analyze, "analyze", true, "refresh the planner's statistics (ANALYZE) after loading; the sysbench workloads skip it unless given, as sysbench's prepare does")
	fs.IntVar(&f.concurrency, "concurrency", 2*runtime.GOMAXPROCS(0), "number of parallel COPY streams")
	fs.IntVar(&f.threads, "threads", 0, "sysbench's name for --concurrency")
	_ = fs.MarkHidden("threads")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed for the generated data (0: pick one and print it)")
	fs.Uint64Var(&f.seed, "rand-seed", 0, "sysbench's name for --seed")
	_ = fs.MarkHidden("rand-seed")
	fs.BoolVar(&f.sysbench, "sysbench-syntax", false, "the command line is sysbench's prepare: --threads streams (default 1) and sysbench's lines (set by stampede for 'stampede SCRIPT [options] prepare')")
	_ = fs.MarkHidden("sysbench-syntax")
	fs.StringVar(&f.outputStyle, "output-style", "stampede", "output style: stampede, ycsb (inserts and times each row as YCSB's load does, and prints YCSB's load report on stdout, in YCSB's form) or pgbench (pgbench -i's lines, for the pgbench workload)")
	defer SetRange(fs, "clients", 1, 100000)
	fs.IntVar(&f.clients, "clients", 0, "this init is one of N that split the load (machines or pods started together): it loads its share of the data (YCSB's keys, sysbench's tables, TPC-C's warehouses, bank's rows, a fleet's tenants); the first creates the tables, the last builds the indexes, and run refuses the data until every share is in")
	fs.IntVar(&f.index, "client-index", 0, "with --clients, this init's share from 0 (a Kubernetes indexed Job's $(JOB_COMPLETION_INDEX))")
	fs.BoolVar(&f.dryRun, "dry-run", false, "check the command line as init does and say what it would load, connecting to nothing")
	fs.BoolVar(&f.pgbenchQuiet, "pgbench-quiet", false, "pgbench -i's -q: a progress line every 5 s (with --output-style pgbench)")
	_ = fs.MarkHidden("pgbench-quiet")
}

// PgbenchStyle says that init prints pgbench -i's lines (--output-style
// pgbench), and quiet its -q.
func (f *Init) PgbenchStyle() (on, quiet bool) { return f.outputStyle == "pgbench", f.pgbenchQuiet }

// ForceDrop reports whether --force-drop was given.
func (f *Init) ForceDrop() bool { return f.forceDrop }

// ResolveLoaders applies --threads (sysbench's name for --concurrency)
// and checks the number of loaders, naming the flag the user gave.
func (f *Init) ResolveLoaders() error {
	name := "--concurrency"
	if f.fs != nil && f.fs.Changed("threads") {
		if f.fs.Changed("concurrency") && f.threads != f.concurrency {
			return usagef("--threads %d and --concurrency %d disagree: give one of them", f.threads, f.concurrency)
		}
		f.concurrency, name = f.threads, "--threads"
	} else if f.sysbench && (f.fs == nil || !f.fs.Changed("concurrency")) {
		f.concurrency, name = 1, "--threads" // sysbench's default
	}
	// --force-drop implies --drop: the refusals of what stampede did not
	// make name --force-drop alone, and it must work as named.
	f.drop = f.drop || f.forceDrop
	if f.outputStyle != "stampede" && f.outputStyle != "ycsb" && f.outputStyle != "pgbench" {
		return usagef("unknown --output-style %q for init: use stampede, ycsb or pgbench", f.outputStyle)
	}
	if f.concurrency < 1 {
		return usagef("%s %d: need at least 1 loader", name, f.concurrency)
	}
	if err := f.resolveShare(); err != nil {
		return err
	}
	return run.CheckLoaders(name, f.concurrency)
}

// SysbenchSyntax says that the command line is sysbench's prepare (see
// sysbench.SyntaxFlag).
func (f *Init) SysbenchSyntax() bool { return f.sysbench }

// Concurrency is the number of loaders (after ResolveLoaders).
func (f *Init) Concurrency() int { return f.concurrency }

// LoadSpec returns the run.LoadSpec of init's flags for gen on conn
// (without its Log and Progress, the caller's).
func (f *Init) LoadSpec(gen workload.Generator, conn run.Conn) run.LoadSpec {
	spec := run.LoadSpec{Workload: gen, Conn: conn, Drop: f.drop, ForceDrop: f.forceDrop, Concurrency: f.concurrency, Seed: f.seed,
		Share: run.Part{Index: f.index, Count: f.clients}}
	if f.outputStyle == "ycsb" {
		// YCSB's load report times each insert: insert as YCSB does.
		f.timer = output.NewYCSBLoadTimer()
		spec.Timer = f.timer
	}
	if f.fs != nil && f.fs.Changed("analyze") {
		spec.Analyze = &f.analyze
	}
	return spec
}

// Report returns the run.LoadSpec's Done of init's flags: YCSB's load
// report on stdout with --output-style ycsb, of the inserts timed by the
// LoadSpec made before (a file it cannot export to said on stderr), nil
// otherwise.
func (f *Init) Report(gen workload.Generator, stdout, stderr io.Writer) func(int64, time.Duration) {
	if f.outputStyle != "ycsb" {
		return nil
	}
	return func(rows int64, elapsed time.Duration) {
		if err := output.YCSBLoad(stdout, gen, f.timer, rows, elapsed); err != nil {
			fmt.Fprintf(stderr, "cannot export YCSB's report: %v (the data is loaded)\n", err)
		}
	}
}

// LoadFleet creates the fleet op names as init's flags and fi say, and
// writes its summary to stdout (see writeFleetSummary); with --dry-run it
// checks op and says what it would create instead.
func (f *Init) LoadFleet(ctx context.Context, op run.FleetOp, fi *FleetInit, stdout io.Writer) error {
	if f.outputStyle == "ycsb" {
		return usagef("--output-style ycsb reports one database's load: drop it with --tenants")
	}
	op.ForceDrop = f.forceDrop
	op.Share = run.Part{Index: f.index, Count: f.clients}
	op.TenantRoles = fi.roles
	if f.dryRun {
		if err := run.ValidateLoadFleet(op); err != nil {
			return err
		}
		share := ""
		if p := op.Share; p.Count > 0 {
			first, last := fleet.ShareRange(op.Spec.Tenants, p.Index, p.Count)
			share = fmt.Sprintf(", client %d of %d's share (tenants %d..%d)", p.Index, p.Count, first, last)
		}
		fmt.Fprintf(stdout, "dry run: init %s, %s%s: the command line is valid; nothing was loaded\n", op.Workload.Meta().Name, plural(op.Spec.Tenants, "tenant"), share)
		return nil
	}
	tot, err := run.LoadFleet(ctx, op, f.concurrency, fi.extraTables, f.drop, f.seed)
	if err != nil {
		return err
	}
	writeFleetSummary(stdout, op.Spec.Tenants, op.Share, tot)
	return nil
}

// writeFleetSummary writes the closing lines of init --tenants: the
// tenants created now and already there, what they hold and the time it
// took. A split init's figures are its share's, and said so.
func writeFleetSummary(w io.Writer, tenants int, share run.Part, tot fleet.Totals) {
	if share.Count > 0 {
		first, last := fleet.ShareRange(tenants, share.Index, share.Count)
		fmt.Fprintf(w, "client %d of %d's share: tenants %d..%d of the fleet's %d\n", share.Index, share.Count, first, last, tenants)
		tenants = last - first + 1
	}
	fmt.Fprintf(w, "tenants:   %d (%d created now, %d already there)\n", tenants, tot.Created, tot.Existing)
	fmt.Fprintf(w, "databases: %d\nschemas:   %d\ntables:    %d\n", tot.Databases, tot.Schemas, tot.Tables)
	fmt.Fprintf(w, "size:      %s on the server\n", run.HumanBytes(tot.Bytes))
	if r := tot.Roles; r.Created+r.Existing > 0 {
		fmt.Fprintf(w, "roles:     %d login roles (%d created now, %d renewed) in %.2fs\n", r.Created+r.Existing, r.Created, r.Existing, r.Elapsed.Seconds())
	}
	rate := float64(tot.Created) / max(tot.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(w, "elapsed:   %s (%s tenants/s)\n", tot.Elapsed.Round(1e7), strconv.FormatFloat(rate, 'f', rateDigits(rate), 64))
}

// rateDigits is the number of decimals that show rate to 2 significant
// digits at least (1 for 10 or more; 0.029, not 0.0).
func rateDigits(rate float64) int {
	d := 1
	for lim := 1.0; rate > 0 && rate < lim && d < 6; lim /= 10 {
		d++
	}
	return d
}

// Concurrency is --init-concurrency: the tenants created at once.
func (f *FleetInit) Concurrency() int { return f.concurrency }

// ProgressBar returns a run.LoadSpec.Progress that draws a progress bar of
// the rows loaded (and bytes sent) on w.
func ProgressBar(w io.Writer) func(n, total int64, sent func() int64) {
	var bar *output.Progress
	return func(n, total int64, sent func() int64) {
		if bar == nil {
			bar = output.NewProgress(w, "rows", total)
			bar.Bytes = sent
		}
		if n < 0 {
			bar.Done()
			return
		}
		bar.Add(n)
	}
}

// resolveShare checks --clients and --client-index.
func (f *Init) resolveShare() error {
	changed := func(name string) bool { return f.fs != nil && f.fs.Changed(name) }
	switch {
	case changed("client-index") && !changed("clients"):
		return usagef("--client-index %d needs --clients: give the number of clients that split the load too", f.index)
	case changed("clients") && (f.clients < 1 || f.clients > 100000):
		return usagef("--clients %d: give the number of clients that split the load, from 1 to 100000", f.clients)
	case f.clients > 1 && !changed("client-index"):
		return usagef("--clients %d needs --client-index: give this client's share, from 0 to %d, a different one on each client", f.clients, f.clients-1)
	case f.clients > 0 && (f.index < 0 || f.index >= f.clients):
		return usagef("--client-index %d: give this client's share, from 0 to %d (--clients %d)", f.index, f.clients-1, f.clients)
	case f.clients > 0 && f.forceDrop:
		return usagef("--force-drop with --clients: the clients of a split load would drop each other's shares; run `stampede cleanup WORKLOAD --force-drop` once, then every client's init without --force-drop")
	case f.clients > 0 && f.drop:
		return usagef("--drop with --clients: the clients of a split load would drop each other's shares; run `stampede cleanup` once, then every client's init without --drop")
	case f.clients > 0 && f.sysbench:
		return usagef("--clients: a split load is stampede's init form, not sysbench's prepare: run `stampede init SCRIPT --clients N --client-index I ...`")
	case f.clients > 0 && f.outputStyle != "stampede":
		return usagef("--clients: a split load prints stampede's own lines; drop --output-style %s", f.outputStyle)
	}
	return nil
}
