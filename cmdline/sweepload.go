package cmdline

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
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
