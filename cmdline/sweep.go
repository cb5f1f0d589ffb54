package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/sweep"
	"github.com/stampede-bench/stampede/workload"
)

// SweepFlags are the flags of `stampede sweep` besides run's: the SLO, the
// search and the pacing of steps. Register them after RunFlags: they make
// --max-rate, --concurrency and --threads take lists and ranges.
type SweepFlags struct {
	slo       string
	search    bool
	precision float64
	keepGoing bool
	pause     time.Duration
	repeat    int
	// checkpoint runs the server's CHECKPOINT before each step.
	checkpoint bool
	// reload loads the data again before each step (a swept data flag),
	// its lines on reloadLog.
	reload    bool
	reloadLog io.Writer
	// before is init's record of the data before a --reload sweep's
	// first load: what its end says how to load again.
	before *workload.Recorded
	// varied names the data settings the steps vary; typed maps those
	// given by a flag of their own to it (fieldlength: --field-length),
	// so that the sweep's lines spell them as the user did.
	varied map[string]bool
	typed  map[string]string
	// forceDrop lets --reload drop tables stampede did not make, as
	// init --force-drop does (the refusals name it).
	forceDrop bool
	// chart is the sweep's chart file; force replaces it.
	chart ChartFlag
	force bool
	// values are the swept flags' texts, by flag name.
	values map[string]*valuesFlag
}

// valuesFlag is a flag that takes one value or a sweep's values.
type valuesFlag struct {
	text string
	def  string
	// orig is the flag's own value, set to each step's (nil: --max-rate,
	// --concurrency and --threads, which the sweep sets itself).
	orig pflag.Value
	// size says the values are sizes (512M, 5M), whole numbers of bytes.
	size bool
	// disk holds the IO limits' disk flags as given (--io-path,
	// --io-device), which a step without the limit (none) leaves unset.
	disk map[string]string
	// none says the values hold none (a step without the limit).
	none bool
	// live says the command line is parsed: a value set since (a step's
	// run adopting what init loaded, workload.ReconcileLoad, as run
	// does) is the flag's own, set on orig too.
	live bool
	// parsed says the sweep set orig (the hardest value, then each
	// step's): the flag's value is orig's from then on, for whatever
	// reads the flag (a workload's properties, run.json, the load's
	// record), not the sweep's list.
	parsed bool
}

func (v *valuesFlag) String() string {
	if v.parsed && v.orig != nil {
		return v.orig.String() // the step's value
	}
	if v.text != "" {
		return v.text // run.json records the value given
	}
	return v.def
}
func (v *valuesFlag) Set(s string) error {
	if v.live && v.orig != nil {
		if err := v.orig.Set(s); err != nil {
			return err
		}
	}
	v.text = s
	return nil
}
func (v *valuesFlag) Type() string { return "values" }

// VerbHelp is the description of verb beyond its one line, followed by
// an empty line ("" for none).
func VerbHelp(verb string) string {
	switch verb {
	case "sweep":
		return sweepHelp + "\n\n"
	case "check":
		return "With several URLs, check runs the checks through each URL in turn (each may\nreach another server), naming each before its checks.\n\n"
	}
	return ""
}

// sweepHelp is `stampede sweep`'s description.
const sweepHelp = `Run a workload once per value of --max-rate or --concurrency, each step a run of
its own (a run directory tagged sweep=ID), and print a row per step: throughput,
latency percentiles, errors and, with --slo, whether the step met the objective.

Values: a list (1,2,4,8), a range with a step (1000:8000:1000) or a factor
(1000:64000:x2), or, with --search, a range alone (1000:64000). A sweep with --slo
stops after the first step that misses it (--keep-going runs the rest); --repeat N
runs the list N times in rounds and judges each value on the median of its runs
(a search re-runs its highest value met and lowest missed); a value that met above
one that missed is said (not monotone). Under a limit (--cpus, --memory, --io-*)
a higher value is a lighter load: the answer is the lowest limit meeting the SLO,
and a miss stops only a list going down; --search
looks for the highest value that meets it, bisecting the range until the highest
value met and the lowest missed are within --precision of each other (for workers,
one apart). Under --max-rate, latency counts from each operation's intended start,
so a step the server cannot keep up with misses a latency objective; and an SLO
without a rate term gets rate>=95%: a step that fell behind its schedule misses.

Any flag with a number is swept as --max-rate is (--cpus 0.5,1,2, --conns,
a fleet's --active 500,750,1000, a workload's own); two at once make a grid
(--cpus 0.5,1 --conns 4,8: the first given the outer loop). --checkpoint runs the
server's CHECKPOINT before each step; under --cpus a note column says where the
limit never bound (not throttled, the server under 90% of it); --format csv prints
the table for a spreadsheet; --chart sweep.svg (or .png) draws throughput against
the swept value and latency against throughput, the SLO and the answer marked
(a grid: a line per value of the first flag against the second, each line's answer
marked).

SLO terms, separated by commas: p50, p90, p95, p99, p99.9, max or mean <= a
duration (p99<=5ms); errors <= a count or a share of the operations
(errors<=0.1%); rate >= ops/s or a share of --max-rate (rate>=95%).`

// Register defines the sweep's own flags and makes the swept ones take
// values. Call it after RunFlags.Register.
func (f *SweepFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.slo, "slo", "", "the service-level objective each step must meet, as terms separated by commas: p99<=5ms, errors<=0.1%, rate>=95% (of --max-rate)")
	fs.BoolVar(&f.search, "search", false, "search the range of a flag under which more is a heavier load (--max-rate 1000:64000, --concurrency, --conns, --active, --active-warehouses) for the highest value meeting --slo")
	fs.Float64Var(&f.precision, "precision", sweep.DefaultPrecision, "--search stops when the highest value met and the lowest missed are within this fraction")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "with --slo, run every step after one misses it")
	fs.DurationVar(&f.pause, "pause", 0, "wait this long between steps")
	fs.BoolVar(&f.checkpoint, "checkpoint", false, "run the server's CHECKPOINT before each step, so that no step pays for the writes of the one before (refused on a server without one)")
	fs.BoolVar(&f.forceDrop, "force-drop", false, "with --reload: drop the tables even where stampede did not make them, as init --force-drop does; without it the reload drops only what stampede made and refuses the rest")
	fs.BoolVar(&f.reload, "reload", false, "sweep a flag that changes what init loads (-p fieldlength, --field-length, --table_size): before each step, drop stampede's own load and load it again with the step's value (not part of the step's measurement)")
	f.chart.sweep = true
	fs.Var(&f.chart, "chart", "also draw the sweep into this file (.svg or .png): throughput against the swept value, latency against throughput, the SLO and the answer marked")
	fs.BoolVar(&f.force, "force", false, "replace the --chart file if it exists")
	fs.IntVar(&f.repeat, "repeat", 1, "run each value this many times, in rounds, and judge it on the median of its runs; a search re-runs its boundary until each value there has this many (default 3 with --search, but TPC-C's: --repeat 1 answers from single probes)")
	if fl := fs.Lookup("format"); fl != nil {
		fl.Usage = "output format: text, json (newline-delimited JSON) or csv (the table for spreadsheets; the rest on stderr)"
	}
	f.values = map[string]*valuesFlag{}
	for _, name := range []string{"max-rate", "concurrency", "threads"} {
		fl := fs.Lookup(name)
		v := &valuesFlag{def: fl.DefValue}
		fl.Value, f.values[name] = v, v
		fl.Usage += "; one value, or a sweep's: 1,2,4 or 1000:8000:1000, 1000:64000:x2, 1000:64000 with --search"
	}
	// Every other flag with a number (or a size) takes a sweep's values.
	fs.VisitAll(func(fl *pflag.Flag) {
		if notSwept[fl.Name] && f.values[fl.Name] == nil || fl.Name == "tenant-mode" {
			// A number (or a mode) a sweep does not vary: a list is
			// refused naming the flags it can.
			fl.Value = &oneValue{Value: fl.Value, name: fl.Name, f: f}
			return
		}
		if f.values[fl.Name] != nil || notSwept[fl.Name] || fl.Hidden {
			return
		}
		size := sizeFlags[fl.Name]
		if fl.Value.Type() == "duration" {
			fl.Value = &oneValue{Value: fl.Value, name: fl.Name, f: f}
			return
		}
		switch fl.Value.Type() {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		default:
			if !size {
				return
			}
		}
		v := &valuesFlag{def: fl.DefValue, orig: fl.Value, size: size}
		fl.Value, f.values[fl.Name] = v, v
	})
}

// oneValue is a flag with a value a sweep cannot vary (a duration): a
// list of values is refused, naming the flags that can be swept.
type oneValue struct {
	pflag.Value
	name string
	f    *SweepFlags
}

// Set implements pflag.Value.
func (v *oneValue) Set(s string) error {
	if strings.Contains(s, ",") || strings.Contains(s, ":") && v.Value.Type() != "string" {
		return fmt.Errorf("a sweep cannot vary --%s (it takes one value); it varies a flag with a number: %s", v.name, v.f.Sweepable())
	}
	return v.Value.Set(s)
}

// sizeFlags are the flags whose values are sizes (512M): a sweep takes
// them as numbers of bytes.
var sizeFlags = map[string]bool{"memory": true, "io-read-bps": true, "io-write-bps": true}

// workerFlags are the flags whose values are counts a client runs
// (workers, connections, tenants at work), by the unit they count: a
// sweep bounds them as workers (sweep.Workers).
var workerFlags = map[string]string{"concurrency": "workers", "threads": "workers", "active-workers": "workers", "conns": "connections", "conns-per-tenant": "connections", "active": "tenants"}

// sweepBound is the values swept flag name (its values flag vf) takes:
// a worker count's (workerFlags), a size's, else its own type's range.
func sweepBound(name string, vf *valuesFlag) sweep.Bound {
	if vf.size {
		return sweep.Bound{Size: true, Max: math.MaxInt64}
	}
	if unit, ok := workerFlags[name]; ok {
		b := sweep.Workers
		b.Unit = unit
		return b
	}
	typ := vf.orig.Type()
	max := map[string]int64{"int8": math.MaxInt8, "int16": math.MaxInt16, "int32": math.MaxInt32, "uint8": math.MaxUint8, "uint16": math.MaxUint16, "uint32": math.MaxUint32}[typ]
	if max == 0 && strings.Contains(typ, "int") {
		max = math.MaxInt64 // int, int64, uint, uint64: as much as a value holds exactly
	}
	return sweep.Bound{Whole: strings.Contains(typ, "int"), Max: max}
}

// notSwept are the flags with a number that a sweep does not vary: its
// own, and those of how the steps print.
var notSwept = map[string]bool{"clients": true, "client-index": true, "prometheus-port": true, "precision": true, "repeat": true, "percentile": true, "verbosity": true, "report-interval": true}

// Sweepable names the flags f can sweep, for messages.
func (f *SweepFlags) Sweepable() string {
	names := make([]string, 0, len(f.values))
	for name := range f.values {
		names = append(names, "--"+name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Sweep parses the swept flag's values, resolves the run flags, and runs
// the sweep, printing its table on env.Stdout.
func Sweep(ctx context.Context, spec RunArgs, f *SweepFlags, env Env) (*sweep.Result, error) {
	fs, rf := spec.FS, spec.Flags
	if fs.Changed("output-style") {
		return nil, usagef("--output-style: a sweep prints its own table (--format json for NDJSON); its steps' runs are in their directories")
	}
	if fs.Changed("threads") && fs.Changed("concurrency") {
		return nil, usagef("give --threads or --concurrency, not both")
	}
	workers := "concurrency"
	if fs.Changed("threads") {
		workers = "threads"
	}
	switch {
	case fs.Changed("precision") && !f.search:
		return nil, usagef("--precision is the precision of --search: give --search, or drop it")
	case fs.Changed("precision") && !(f.precision > 0 && f.precision < 1):
		return nil, usagef("--precision %g: use a fraction above 0 and below 1 (0.05 for 5%%)", f.precision)
	case f.keepGoing && f.search:
		return nil, usagef("--keep-going runs the steps after one misses --slo, in a list: give a list, not --search")
	case f.keepGoing && !fs.Changed("slo"):
		return nil, usagef("--keep-going runs the steps after one misses --slo: give --slo (without it no step misses, and every step runs)")
	case fs.Changed("clients") || fs.Changed("start-at"):
		return nil, usagef("--clients and --start-at: a sweep runs from one client (its steps would not start together on several)")
	case f.repeat < 1:
		return nil, usagef("--repeat %d: give the runs per value, 1 or more (3 judges each value on the median of 3 runs)", f.repeat)
	case f.repeat > 1 && f.keepGoing:
		return nil, usagef("--keep-going: with --repeat %d every round runs every step (a median needs its runs); drop --keep-going", f.repeat)
	case fs.Changed("histogram"):
		return nil, usagef("--histogram: a sweep prints a row per step; `stampede report RUN` prints a step in full")
	}
	for _, t := range rf.tags {
		if k, _, _ := strings.Cut(t, "="); k == "sweep" || k == "sweep_step" {
			return nil, usagef("--tag %s: the sweep tags its runs %s itself; give your tag another name", t, k)
		}
	}
	if fs.Changed("max-rate") && strings.TrimSpace(f.values["max-rate"].text) == "0" && fs.Changed(workers) {
		f.values["max-rate"].text, fs.Lookup("max-rate").Changed = "", false // 0: closed loop, as in run
	}
	switch rf.format {
	case "text", "json", "csv":
	default:
		return nil, usagef("unknown --format %q: use text, json or csv (a row per step, for spreadsheets)", rf.format)
	}
	csv := rf.format == "csv"
	if csv {
		rf.format = "text" // the steps' runs print nothing; the table is CSV
	}
	var swept, single []given
	for _, g := range []given{{name: "max-rate", param: sweep.MaxRate}, {name: workers, param: sweep.Concurrency}} {
		if !fs.Changed(g.name) {
			continue
		}
		bound := sweep.Bound{}
		if g.param == sweep.Concurrency {
			bound = sweep.Workers
		}
		vals, err := sweep.ParseValues("--"+g.name, f.values[g.name].text, bound)
		if err != nil {
			return nil, usagef("%v", err)
		}
		g.vals, g.text = vals, f.values[g.name].text
		if vals.Bounds || len(vals.List) > 1 {
			swept = append(swept, g)
		} else {
			single = append(single, g)
		}
		// Resolve validates the hardest value: the most workers, the
		// highest rate.
		if g.param == sweep.Concurrency {
			rf.concurrency, rf.threads = int(vals.Hi), int(vals.Hi)
		} else {
			rf.maxRate = vals.Hi
		}
	}
	// Any other flag with a number: one value is the flag's as in run;
	// several are the sweep's.
	for _, name := range slices.Sorted(maps.Keys(f.values)) {
		vf := f.values[name]
		if vf.orig == nil || !fs.Changed(name) {
			continue
		}
		vf.parsed = true
		text := vf.text
		if vals, ok, err := noneList(name, text); ok {
			if err != nil {
				return nil, err
			}
			if len(vals.List) == 1 { // --cpus none alone: no limit, as if not given
				fs.Lookup(name).Changed = false
				continue
			}
			swept = append(swept, given{name: name, param: sweep.Param(name), vals: vals, vf: vf, whole: true, text: vf.text})
			vf.disk, vf.none = diskFlags(fs, name), true
			if err := vf.orig.Set(sweep.Format(vals.Hi)); err != nil { // Resolve validates the hardest value
				return nil, usagef("--%s %s: %v", name, vf.text, err)
			}
			continue
		}
		whole := strings.Contains(vf.orig.Type(), "int")
		if !strings.ContainsAny(text, ",:") {
			if err := vf.orig.Set(text); err != nil {
				return nil, usagef("--%s %s: %v", name, vf.text, err)
			}
			continue
		}
		vals, err := sweep.ParseValues("--"+name, text, sweepBound(name, vf))
		if err != nil {
			return nil, usagef("%v", err)
		}
		swept = append(swept, given{name: name, param: sweep.Param(name), vals: vals, vf: vf, whole: whole || vf.size, text: vf.text})
		// Resolve validates the hardest value.
		if err := vf.orig.Set(sweep.Format(vals.Hi)); err != nil {
			return nil, usagef("--%s %s: %v", name, vf.text, err)
		}
	}
	props, err := propSweeps(fs)
	if err != nil {
		return nil, err
	}
	swept = append(swept, props...)
	// The flag given first on the command line is the outer loop.
	slices.SortStableFunc(swept, func(a, b given) int { return argPos(env.Args, a.name) - argPos(env.Args, b.name) })
	switch {
	case len(swept) > 2:
		names := make([]string, len(swept))
		for i, g := range swept {
			names[i] = g.flag()
		}
		return nil, usagef("%s and %s all hold several values: a sweep varies one flag, or two as a grid; give the others one value", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	case len(swept) == 0 && len(single) == 1:
		swept = single // a sweep of one step
	case len(swept) == 0:
		if err := rf.Resolve(fs); err != nil {
			return nil, err // a run flag's own error first, as run gives it
		}
		if spec.Tenants != nil {
			quiet := env
			quiet.Stderr = io.Discard // its notes are for a run
			if _, err := fleetSpec(spec, quiet); err != nil {
				return nil, err // --active above --tenants
			}
		}
		return nil, usagef("give the values to sweep: --max-rate 1000:16000:x2, --concurrency 1,2,4,8 or any flag with a number, such as --cpus 0.5,1 (see `stampede sweep --help`)")
	}
	if err := rf.Resolve(fs); err != nil {
		return nil, err
	}
	var slo sweep.SLO
	if fs.Changed("slo") {
		var err error
		if slo, err = sweep.ParseSLO(f.slo); err != nil {
			return nil, usagef("%v", err)
		}
	}
	if spec.Gen.Meta().Name == "tpcc" && f.search {
		// TPC-C's search: clause 5.2.5's response times always, and an
		// efficiency of 85% unless --slo says otherwise.
		if !fs.Changed("slo") {
			slo, _ = sweep.ParseSLO(sweep.TPCCEfficiency)
		}
		more, _ := sweep.ParseSLO(sweep.TPCCResponseTimes)
		slo = slo.With(more)
		if err := tpccSearchSetUp(fs, slo); err != nil {
			return nil, err
		}
	}
	adopted := ""
	if !rf.dryRun {
		if adopted, err = sweepAdopt(ctx, spec, f); err != nil {
			return nil, usagef("%v", err)
		}
	}
	s, err := runSpec(spec, env)
	if err != nil {
		return nil, err
	}
	if err := checkConnStrings(s); err != nil {
		return nil, err // before the sweep's header and its first step
	}
	maxOps := s.MaxOps
	if d, ok := spec.Gen.(workload.RunDefaulter); ok && maxOps == 0 {
		maxOps = d.RunDefaults().MaxOps // YCSB's operationcount
	}
	if f.search && !fs.Changed("repeat") && spec.Gen.Meta().Name != "tpcc" {
		// A search confirms its boundary on medians of 3 runs, so that
		// one run's burst does not make the answer (TPC-C's verdicts
		// take their New-Order count's chance into account instead).
		f.repeat = 3
	}
	if s.Duration == 0 && maxOps == 0 {
		return nil, usagef("each step of a sweep needs an end: give --duration (such as 60s) or --max-ops")
	}
	s.Observers, s.Checks, s.Warnings = nil, env.Stderr, env.Stderr // the sweep prints its own table on stdout
	checkOnce := afterSweepChecks(spec.Gen, rf.skipChecks)
	s.SkipChecks = s.SkipChecks || checkOnce // once, after the last step
	if rf.verbosity > 2 {
		s.Log = stepLog{env.Stderr} // the steps' lines say what the runs' headers would
	}
	if swept[0].param == sweep.MaxRate || s.MaxRate > 0 {
		slo = slo.WithRateFloor()
	}
	sw := sweep.Spec{Base: s, Param: swept[0].param, Values: swept[0].vals, Search: f.search, Precision: f.precision,
		SLO: slo, KeepGoing: f.keepGoing, Pause: f.pause, Repeat: f.repeat, Whole: swept[0].whole}
	if len(swept) == 2 {
		sw.Param2, sw.Values2, sw.Whole2 = swept[1].param, swept[1].vals, swept[1].whole
	}
	built := false
	for _, g := range swept {
		built = built || g.vf != nil
	}
	if built {
		sw.Build = func(v, w float64) (run.Spec, error) {
			return buildStep(spec, env, swept, []float64{v, w})
		}
	}
	if spec.Gen.Meta().Name == "tpcc" && sw.Param == "active-warehouses" {
		if w := fs.Lookup("warehouses"); w != nil && w.Value.String() == sweep.Format(sw.Values.Hi) {
			sw.Top = fmt.Sprintf("that is every warehouse loaded (--warehouses %s): load more (`stampede init tpcc --drop --warehouses N`) to search higher", w.Value.String())
		}
	}
	if spec.Tenants != nil && spec.Tenants.tenants > 0 && sw.Param == "active" {
		if t := fs.Lookup("tenants"); t != nil && t.Value.String() == sweep.Format(sw.Values.Hi) {
			sw.Top = fmt.Sprintf("that is every tenant (--tenants %s): load more (`%s`) to search higher", t.Value.String(), spec.Tenants.growCommand(spec.Gen))
		}
	}
	if err := sw.Validate(); err != nil {
		return nil, usagef("%v", err)
	}
	chartPath, err := f.chart.Path()
	switch {
	case err != nil:
		return nil, err
	case chartPath != "" && chart.IsHTML(chartPath):
		return nil, usagef("--chart %s: a sweep's chart is .svg or .png; its interactive page is the dashboard's (`stampede serve`, the runs tagged sweep=ID)", chartPath)
	case f.force && chartPath == "":
		return nil, usagef("--force replaces the --chart file: give --chart, or drop --force")
	}
	if err := output.CheckChartPath(chartPath, nil, f.force); err != nil {
		return nil, usagef("%v", err)
	}
	if h, ok := spec.Gen.(workload.Hookser); ok && !built && h.Hooks().Validate != nil {
		// The workload's own flags, before the first step (buildStep
		// checks them at each value of another flag).
		if err := h.Hooks().Validate(); err != nil {
			return nil, usagef("%v", err)
		}
	}
	if built {
		// Every value is a valid run before the first step runs.
		ends := func(v sweep.Values) []float64 {
			if v.Bounds {
				return []float64{v.Lo, v.Hi}
			}
			return v.List
		}
		ws := []float64{0}
		if sw.Param2 != "" {
			ws = ends(sw.Values2)
		}
		var steps []run.Spec
		var data []string // the workload's data settings at each
		var fitErr error  // the first value that does not fit the load
		for _, v := range ends(sw.Values) {
			for _, w := range ws {
				b, err := sw.Build(v, w)
				if err == nil {
					err = run.CheckLimitTargets(b) // before the header, not at step 1
				}
				if err != nil {
					return nil, err
				}
				data = append(data, dataSettings(spec.Gen))
				steps = append(steps, b)
				if fitErr == nil && !rf.dryRun && !f.reload {
					fitErr = sweepLoadFits(ctx, spec, b) // at each end of the values, said unless a data flag's refusal says more
				}
			}
		}
		f.reloadLog = env.Stderr
		if err := sweepData(ctx, f, &sw, swept, steps, data, rf.dryRun); err != nil {
			return nil, err
		}
		if fitErr != nil {
			return nil, fitErr
		}
	} else if err := run.CheckLimitTargets(s); err != nil {
		return nil, err // before the header, as a built step's
	} else if f.reload {
		return nil, usagef("--reload loads the data again before each step of a sweep over a flag that changes it (-p fieldlength, --table_size): sweep such a flag, or drop --reload")
	}
	if f.forceDrop && !f.reload {
		return nil, usagef("--force-drop applies to --reload's drops: give --reload (with a swept data flag), or drop --force-drop")
	}
	if !rf.dryRun && !built {
		if err := sweepLoadFits(ctx, spec, s); err != nil {
			return nil, err
		}
	}
	if d, ok := spec.Gen.(workload.RunDefaulter); ok && s.Concurrency == 0 && sw.Param == sweep.MaxRate {
		if rd := d.RunDefaults(); rd.Concurrency > 0 { // TPC-C's terminals, named in the status lines
			s.Concurrency, sw.Base.Concurrency = rd.Concurrency, rd.Concurrency
			if s.Conn.Conns == 0 {
				sw.Base.Conn.Conns = rd.Conns
			}
		}
	}
	sw.ID = sweep.NewID(time.Now())
	plan := plural(len(sw.Values.List), "step")
	if f.repeat > 1 {
		plan = fmt.Sprintf("%d values, %d rounds", len(sw.Values.List), f.repeat)
	}
	values := swept[0].text
	if sw.Param2 != "" {
		n := len(sw.Values.List) * len(sw.Values2.List)
		plan = fmt.Sprintf("a grid of %s, %s the outer loop", plural(n, "step"), sw.Param.Flag())
		if f.repeat > 1 {
			plan = fmt.Sprintf("a grid of %d values, %s the outer loop, %d rounds", n, sw.Param.Flag(), f.repeat)
		}
		values += " × " + swept[1].flag() + " " + swept[1].text
	}
	if f.checkpoint {
		plan += ", CHECKPOINT before each step"
	}
	if sw.Search {
		plan = fmt.Sprintf("a search from %s to %s, within %g%%", sweep.Format(sw.Values.Lo), sweep.Format(sw.Values.Hi), sw.Precision*100)
		if f.repeat > 1 {
			plan += fmt.Sprintf(", its boundary confirmed on medians of %d runs", f.repeat)
		}
	}
	if fixed := fixedLimits(s.Limits.Limits, sw.Param, sw.Param2); !fixed.IsZero() {
		plan += ", each step under " + fixed.String()
	}
	dur := ""
	if rf.duration > 0 {
		dur = rf.duration.String() + " each"
	}
	p := &output.Sweep{W: env.Stdout, Status: env.Stderr, JSON: rf.format == "json", CSV: csv, Plan: plan, Duration: dur, Param: sw.Param, Param2: sw.Param2, Telemetry: !s.Telemetry.Off,
		Notes: !s.Limits.Limits.IsZero() || sw.Param == "cpus" || sw.Param2 == "cpus", Hint: func(cmd string) string {
			if fs.Changed("results-dir") {
				cmd += " --results-dir " + rf.resultsDir
			}
			if fs.Changed("results-url") {
				cmd += " --results-url " + s.Flags["results-url"]
			}
			return cmd
		}}
	if f, ok := spec.Gen.(workload.SweepFigurer); ok {
		p.Figures = f.SweepFigures()
	}
	sw.Observer = p
	if rf.dryRun {
		fmt.Fprintf(env.Stdout, "dry run: sweep of %s, %s %s (%s): the command line is valid; nothing was run\n", spec.Gen.Meta().Name, swept[0].flag(), values, plan)
		return nil, nil
	}
	if f.checkpoint {
		checkpoint, closeDB, err := run.Checkpointer(ctx, sw.Base)
		if err != nil {
			return nil, err
		}
		defer closeDB()
		sw.Between = checkpoint
	}
	stop, err := rf.startProfiles(env)
	if err != nil {
		return nil, err
	}
	defer stop()
	for _, vf := range f.values {
		vf.live = true
	}
	if adopted != "" {
		fmt.Fprintln(env.Stderr, adopted)
	}
	p.Header(sw.ID, spec.Gen.Meta().Name, swept[0].flag(), values, slo)
	res, err := sweep.Run(ctx, sw)
	if res != nil {
		sweepDataLeft(ctx, f, sw.Base, res, env.Hint)
		p.Done(res)
		if chartPath != "" {
			title := fmt.Sprintf("sweep %s: %s, %s %s", sw.ID, spec.Gen.Meta().Name, swept[0].flag(), values)
			if cerr := output.WriteSweepChart(chartPath, res, title); cerr != nil && err == nil {
				err = fmt.Errorf("the sweep ran, but its chart was not drawn: %w", cerr)
			} else if cerr == nil {
				fmt.Fprintf(env.Stderr, "chart saved in %s\n", chartPath)
			}
		}
	}
	if checkOnce && err == nil && res != nil && len(res.Steps) > 0 {
		// The steps' runs skipped the checks (seconds each, between
		// probes): the data every step wrote is checked once, here.
		fmt.Fprintln(env.Stderr, "\nconsistency checks, once after the sweep's last step (its steps' runs skip them; --skip-checks skips these too):")
		if cerr := run.Check(ctx, spec.Gen, s.Conn, env.Stderr, env.Stderr); cerr != nil {
			err = fmt.Errorf("the sweep ran, but the consistency checks after its last step failed: %w", cerr)
		}
	}
	if err == nil && len(swept) == 1 && swept[0].vf != nil && swept[0].vf.none && rf.format != "json" {
		out := env.Stdout
		if csv {
			out = env.Stderr // stdout holds the CSV only, for spreadsheets
		}
		err = compareNone(out, res)
	}
	return res, err
}

// buildStep is the run of a step that sets the swept flags to their
// values (vals[i] for swept[i]): each flag set again, resolved and made a
// run.Spec as `stampede run` makes one. --max-rate and --concurrency are
// left to the sweep, which sets them on the spec.
func buildStep(spec RunArgs, env Env, swept []given, vals []float64) (run.Spec, error) {
	at := make([]string, 0, len(swept))
	for i, g := range swept {
		at = append(at, fmt.Sprintf("%s %s", g.flag(), g.param.Text(vals[i])))
		if g.vf == nil {
			continue
		}
		if err := g.vf.orig.Set(stepValue(g.vf, vals[i])); err != nil {
			return run.Spec{}, usagef("%s %s: %v", g.flag(), g.param.Text(vals[i]), err)
		}
		if fl := spec.FS.Lookup(g.name); g.vf.none {
			given := vals[i] != noneValue
			fl.Changed = given // none: as if not given, with its disk
			for d, text := range g.vf.disk {
				if !given {
					text = ""
				}
				if err := spec.FS.Lookup(d).Value.Set(text); err != nil {
					return run.Spec{}, usagef("--%s %s: %v", d, text, err)
				}
			}
		}
	}
	rf := spec.Flags
	rf.warnings = nil // said once, at the sweep's start
	if err := rf.Resolve(spec.FS); err != nil {
		return run.Spec{}, err
	}
	if h, ok := spec.Gen.(workload.Hookser); ok && h.Hooks().Validate != nil {
		if err := h.Hooks().Validate(); err != nil {
			if strings.HasPrefix(err.Error(), at[0]+" ") {
				return run.Spec{}, usagef("%v", err) // it names the value itself
			}
			return run.Spec{}, usagef("%s: %v", strings.Join(at, ", "), err)
		}
	}
	s, err := runSpec(spec, Env{Args: env.Args, Secrets: env.Secrets, Stdout: io.Discard, Stderr: env.Stderr, Hint: env.Hint})
	if err != nil {
		return run.Spec{}, err
	}
	s.Observers, s.Checks, s.Warnings = nil, env.Stderr, env.Stderr
	if s.Limits.Limits.IsZero() && slices.ContainsFunc(swept, func(g given) bool { return g.vf != nil && g.vf.none }) {
		// A none step of a limit sweep runs without any limit: the
		// processes its other steps limit have none to be put under.
		s.Limits.Processes, s.Limits.Cmdlines, s.Limits.PIDs = nil, nil, nil
	}
	s.SkipChecks = s.SkipChecks || afterSweepChecks(spec.Gen, rf.skipChecks)
	if rf.verbosity > 2 {
		s.Log = stepLog{env.Stderr}
	}
	return s, nil
}

// tpccSearchSetUp refuses a TPC-C search under an SLO with efficiency
// whose probes cannot have one: without waits (--wait=false), or with
// other than 10 terminals per warehouse (--concurrency, --threads).
func tpccSearchSetUp(fs *pflag.FlagSet, slo sweep.SLO) error {
	if !strings.Contains(slo.String(), "efficiency") {
		return nil
	}
	if w := fs.Lookup("wait"); w != nil && w.Value.String() == "false" {
		return usagef("--wait=false: TPC-C's search judges efficiency, which needs the keying and think times: drop --wait=false, or give an --slo without efficiency")
	}
	for _, name := range []string{"concurrency", "threads"} {
		if fs.Changed(name) {
			return usagef("--%s: TPC-C's search judges efficiency, which needs 10 terminals per active warehouse (the search sets them): drop --%s, or give an --slo without efficiency", name, name)
		}
	}
	return nil
}

// afterSweepChecks reports whether gen's consistency checks, which a
// run of it runs after it ends (TPC-C's), run once after a sweep's last
// step instead of after every step's run (unless --skip-checks).
func afterSweepChecks(gen workload.Generator, skip bool) bool {
	c, ok := gen.(workload.AfterRunChecker)
	return ok && c.CheckAfterRun() && !skip
}

// stepLog is a sweep step's run log: it passes on warnings, and the note
// that the run takes the settings init loaded (workload.ReconcileLoad's,
// said by the first step: the later ones find the flags set), each
// line written whole.
type stepLog struct{ w io.Writer }

// Write implements io.Writer.
func (f stepLog) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("warning: ")) || bytes.HasPrefix(line, []byte("note: using ")) {
			if _, err := f.w.Write(line); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// given is a flag a sweep varies: its name, its values and, for any flag
// but --max-rate and --concurrency (which the sweep sets itself), its
// values flag.
type given struct {
	name  string
	param sweep.Param
	vals  sweep.Values
	vf    *valuesFlag
	whole bool
	// text is the values as given.
	text string
}

// argPos is where --name first appears in args (len(args) when it does
// not): the order in which the swept flags were given.
func argPos(args []string, name string) int {
	if k, ok := strings.CutPrefix(name, "p "); ok {
		name = "property" // -p k=...: where k= is
		for i, a := range args {
			if strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(a, "--property="), "-p"), " ="), k+"=") {
				return i
			}
		}
	}
	for i, a := range args {
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return i
		}
	}
	return len(args)
}

// checkConnStrings refuses, without connecting, connection strings that
// no run could use (a malformed URL, a password with an unescaped '@'),
// as the first run would when its step had started.
func checkConnStrings(s run.Spec) error {
	opts, err := s.Conn.Options(s.Workload.Meta().DatabaseName(), 1)
	if err == nil {
		_, err = sqlx.ParseConfigs(opts)
	}
	if err != nil {
		return usageError{err} // as the run's (sqlx.Open's) own refusal
	}
	return nil
}

// fixedLimits returns the limits every step of a sweep over params runs
// under: l without the swept ones, for the sweep's first line.
func fixedLimits(l limit.Limits, params ...sweep.Param) limit.Limits {
	for _, p := range params {
		switch {
		case p == "cpus":
			l.CPUs = 0
		case p == "memory":
			l.MemoryBytes = 0
		case strings.HasPrefix(string(p), "io-"):
			var kept []limit.DeviceIO
			for _, d := range l.IO {
				switch p {
				case "io-read-bps":
					d.ReadBPS = 0
				case "io-write-bps":
					d.WriteBPS = 0
				case "io-read-iops":
					d.ReadIOPS = 0
				case "io-write-iops":
					d.WriteIOPS = 0
				}
				if d.ReadBPS+d.WriteBPS+d.ReadIOPS+d.WriteIOPS > 0 {
					kept = append(kept, d)
				}
			}
			l.IO = kept
		}
	}
	return l
}
