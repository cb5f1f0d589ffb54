package cmdline

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
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

// sweepData sets up, before the first step, a sweep whose values change
// what init loads (varies: a data flag, -p fieldlength): with --reload
// each step loads its data again first (sw.Reload: init --drop, which
// drops only what stampede made, and with it the tables of the load
// before it that this step's does not make: a step of --tables 1 after
// one of 3); without, it is refused in one line
// naming the flag, the value init loaded (steps are the runs at the
// values, read against the load's record) and --reload. --reload over
// values that change no data is refused too.
func sweepData(ctx context.Context, f *SweepFlags, sw *sweep.Spec, swept []given, steps []run.Spec, varies, dryRun bool) error {
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
		return usagef("--reload loads the data again before each step of a sweep over a flag that changes it (-p fieldlength, --table_size) on a server; %s changes no data there: drop --reload", what)
	case !varies:
		return nil
	case f.reload:
		seed := mrand.Uint64() | 1 // one data seed for every step's load, said by each load
		adopted := false
		sw.Reload = func(ctx context.Context, s run.Spec) error {
			if !adopted && !dryRun { // the settings not swept, as init loaded them
				if err := run.AdoptRecorded(ctx, s); err != nil {
					return err
				}
				adopted = true
			}
			return run.Load(ctx, run.LoadSpec{Workload: s.Workload, Conn: s.Conn, Drop: true, DropFormer: true, ForceDrop: f.forceDrop, Seed: seed, Log: f.reloadLog})
		}
		return nil
	}
	loaded := ""
	for _, s := range steps {
		if dryRun {
			break
		}
		if m, _ := run.LoadMismatch(ctx, s); m != nil {
			loaded = fmt.Sprintf(", and init (of %s) loaded database %q with %s", m.Workload, m.Database, m.LoadedArg)
			break
		}
	}
	return usagef("%s changes what init loads%s: give --reload to load each step's data again before it (dropping only stampede's own load), or sweep one value", what, loaded)
}
