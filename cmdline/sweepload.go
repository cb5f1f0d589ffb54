package cmdline

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/sweep"
	"github.com/stampede-bench/stampede/workload"
)

// sweepAdopt makes a sweep given no --warehouses (TPC-C's) run its steps
// on the warehouses init loaded, as `stampede run` does (adoptWarehouses):
// the steps' runs, and the checks of the swept values before the first
// step (--active-warehouses at most those loaded), then take that count.
// It returns the line that says so, once the sweep starts ("" when it
// took none).
func sweepAdopt(ctx context.Context, spec RunArgs, f *SweepFlags) (string, error) {
	if vf := f.values["warehouses"]; vf != nil {
		vf.live = true // the count taken from the load is the flag's own
	}
	n, err := adoptWarehouses(ctx, spec)
	if err != nil || n == 0 {
		return "", err
	}
	return fmt.Sprintf("%s: the steps run on the %s that init loaded (tpcc_meta), as --warehouses was not given",
		spec.Gen.Meta().Name, plural(n, "warehouse")), nil
}

// sweepLoadFits checks, before a sweep's header and first step, that the
// database holds a load its steps can run on (TPC-C's: the version and
// tables of tpcc_meta's load, its --warehouses, the active warehouses
// within it), so that a load that does not fit is refused in one line
// rather than at a failed first step. Workloads that do not take their
// scale from the load, fleets and the null driver are left to the steps.
func sweepLoadFits(ctx context.Context, spec RunArgs, s run.Spec) error {
	if _, ok := spec.Gen.(interface {
		LoadedWarehouses(context.Context, *sqlx.DB) (int, bool)
	}); !ok || s.Fleet != nil {
		return nil
	}
	return run.CheckLoad(ctx, s)
}

// dataSettings is what gen's initial data depends on (its data settings
// and their values, workload.DataSpecer), "" when it does not say: two
// values of a swept flag that give two texts change what init loads.
func dataSettings(gen workload.Generator) string {
	ds, ok := gen.(workload.DataSpecer)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, s := range ds.DataSettings() {
		fmt.Fprintf(&b, "%s=%s\n", s.Name, s.Value)
	}
	return b.String()
}

// variedSettings names the data settings whose values differ between
// the steps' data (dataSettings' texts, one per step).
func variedSettings(data []string) map[string]bool {
	varied := map[string]bool{}
	first := map[string]string{}
	for i, d := range data {
		for _, line := range strings.Split(strings.TrimSpace(d), "\n") {
			name, v, _ := strings.Cut(line, "=")
			if i == 0 {
				first[name] = v
			} else if first[name] != v {
				varied[name] = true
			}
		}
	}
	return varied
}

// typedFlags maps gen's data settings that the command line gave by a
// flag of their own (YCSB's --field-length for -p fieldlength) to that
// flag.
func typedFlags(gen workload.Generator) map[string]string {
	out := map[string]string{}
	if ds, ok := gen.(workload.DataSpecer); ok {
		for _, s := range ds.DataSettings() {
			if s.Given && strings.HasPrefix(s.From, "--") {
				out[s.Name] = s.From
			}
		}
	}
	return out
}

// spelledArgs is rec.Args with the settings in typed given as the user
// gave them (--field-length 100, not -p fieldlength=100).
func spelledArgs(rec *workload.Recorded, typed map[string]string) []string {
	out := slices.Clone(rec.Args)
	for i, name := range rec.Names {
		if flag, ok := typed[name]; ok && i < len(rec.Values) {
			out[i] = flag + " " + rec.Values[i]
		}
	}
	return out
}

// settingsAt is gen's data settings named in varied, with their values
// now, as typed (--tables=1, -p fieldlength=100, --field-length=100).
func settingsAt(gen workload.Generator, varied map[string]bool) string {
	ds, ok := gen.(workload.DataSpecer)
	if !ok {
		return ""
	}
	var out []string
	for _, s := range ds.DataSettings() {
		switch {
		case !varied[s.Name]:
		case s.Given && strings.HasPrefix(s.From, "--"):
			out = append(out, s.From+"="+s.Value)
		case s.Form != nil:
			out = append(out, s.Form(s.Value))
		default:
			out = append(out, s.Flag+"="+s.Value)
		}
	}
	return strings.Join(out, " ")
}

// recordedAt is what rec (init's record) holds of the settings in varied,
// as given on a command line ("--tables 2, --table_size 500"), those in
// typed as the user gave them.
func recordedAt(rec *workload.Recorded, varied map[string]bool, typed map[string]string) string {
	args := spelledArgs(rec, typed)
	var out []string
	for i, name := range rec.Names {
		if varied[name] {
			out = append(out, args[i])
		}
	}
	return strings.Join(out, ", ")
}

// sweepDataLeft says, at the end of a --reload sweep (one stopped in a
// step's reload too), what the database holds (the record of its last
// load, or none: a reload that did not finish) and, when that is not
// what init loaded before the sweep (f.before), the init command that
// loads that again (completed by hint, --drop: it drops only what stampede made).
// The sweep does not load it itself: a load can take long.
func sweepDataLeft(ctx context.Context, f *SweepFlags, s run.Spec, res *sweep.Result, hint func(string) string) {
	reloaded := slices.ContainsFunc(res.Steps, func(st sweep.Step) bool { return st.Reloaded })
	if f.before == nil || !reloaded && res.Stopped == "" {
		return
	}
	if hint == nil {
		hint = func(cmd string) string { return cmd }
	}
	init := strings.Join(f.before.Args, " ")
	after, err := run.Recorded(context.WithoutCancel(ctx), s)
	if !reloaded && err == nil && after != nil && strings.Join(after.Args, " ") == init {
		return // stopped before any step's reload began: init's data as it was
	}
	// The swept flag as typed: the hint then does not carry its list.
	res.Restore = hint(fmt.Sprintf("stampede init %s %s --drop", f.before.Workload, strings.Join(spelledArgs(f.before, f.typed), " ")))
	was := recordedAt(f.before, f.varied, f.typed)
	switch {
	case err != nil || after == nil:
		res.Data = fmt.Sprintf("database %q holds no complete load: the sweep's last reload did not finish (before the sweep it held %s)", f.before.Database, was)
	case strings.Join(after.Args, " ") == init:
		res.Data, res.Restore = fmt.Sprintf("database %q holds what it held before the sweep again (%s)", after.Database, was), ""
	default:
		res.Data = fmt.Sprintf("database %q now holds the sweep's last load (%s), not what it held before the sweep (%s), the other data flags as they were; the sweep does not load that back, as a load can take long",
			after.Database, recordedAt(after, f.varied, f.typed), was)
	}
}

// sweepData sets up, before the first step, a sweep whose values change
// what init loads (varies: a data flag, -p fieldlength): with --reload
// each step loads its data again first (sw.Reload: init --drop, which
// drops only what stampede made, and with it the tables of the load
// before it that this step's does not make: a step of --tables 1 after
// one of 3); without, it is refused in one line
// naming the flag, the value init loaded (steps are the runs at the
// values, read against the load's record) and --reload. --reload over
// values that change no data is refused too.
func sweepData(ctx context.Context, f *SweepFlags, sw *sweep.Spec, swept []given, steps []run.Spec, data []string, dryRun bool) error {
	varied := variedSettings(data)
	varies := len(varied) > 0
	f.varied, f.typed = varied, typedFlags(steps[0].Workload)
	flags := make([]string, len(swept))
	for i, g := range swept {
		flags[i] = g.flag() + " " + g.text
		if strings.HasPrefix(g.name, "p ") {
			flags[i] = g.flag() + "=" + g.text // -p fieldlength=50,200
		}
	}
	what := strings.Join(flags, " × ")
	if opts, err := steps[0].Conn.Options(steps[0].Workload.Meta().DatabaseName(), 1); err == nil && opts.Driver == sqlx.DriverNull {
		varies = false // no server, no load: nothing to reload
	}
	switch {
	case !varies && f.reload:
		if h, ok := steps[0].Workload.(workload.ReloadHinter); ok {
			for _, g := range swept {
				if hint := h.ReloadHint(g.name, g.text); hint != "" {
					return usagef("--reload does not load %s's data again per step of %s: %s", steps[0].Workload.Meta().Name, g.flag()+" "+g.text, hint)
				}
			}
		}
		return usagef("--reload loads the data again before each step of a sweep over a flag that changes it (-p fieldlength, --table_size) on a server; %s changes no data there: drop --reload", what)
	case !varies:
		return nil
	case f.reload:
		seed := mrand.Uint64() | 1 // one data seed for every step's load, said by each load
		adopted := false
		sw.Reload = func(ctx context.Context, s run.Spec) (string, error) {
			if !adopted && !dryRun { // the settings not swept, as init loaded them
				if err := run.AdoptRecorded(ctx, s); err != nil {
					return "", err
				}
				adopted = true
			}
			rec, err := run.Recorded(ctx, s)
			if err != nil {
				return "", err
			}
			if f.before == nil {
				f.before = rec // init's, before the sweep's first load
			}
			if rec != nil && rec.Same { // the load would load what the database holds
				return fmt.Sprintf("data already at %s, not reloaded", settingsAt(s.Workload, varied)), nil
			}
			return "", run.Load(ctx, run.LoadSpec{Workload: s.Workload, Conn: s.Conn, Drop: true, DropFormer: true, ForceDrop: f.forceDrop, Action: "--reload", Seed: seed, Log: f.reloadLog})
		}
		return nil
	}
	holds := ""
	if !dryRun {
		if rec, _ := run.Recorded(ctx, steps[0]); rec != nil && recordedAt(rec, varied, f.typed) != "" {
			holds = fmt.Sprintf(", and database %q holds %s (init's record, of %s)", rec.Database, recordedAt(rec, varied, f.typed), rec.Workload)
		}
	}
	return usagef("%s changes the data init loads%s: give --reload to reload the data at each step (dropping only stampede's tables), or sweep a flag that does not change the data (--concurrency, --max-rate, --conns)", what, holds)
}
