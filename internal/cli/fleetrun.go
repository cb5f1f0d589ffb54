package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// fleetRunFlags are the flags only `run` has for fleets: how many tenant
// workloads run at once, with how many connections, picked how.
type fleetRunFlags struct {
	active         int
	connsPerTenant int
	pick           string
	rotate         bool
	tenantDuration time.Duration
}

func (f *fleetRunFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.active, "active", 0, "with --tenants: number of tenant workloads run at once (default: every tenant)")
	fs.IntVar(&f.connsPerTenant, "conns-per-tenant", 1, "with --tenants: connections of each active tenant")
	fs.StringVar(&f.pick, "pick", fleet.PickRandom, "with --tenants: which tenants are active: random (from --seed) or round-robin (1..M)")
	fs.BoolVar(&f.rotate, "rotate", false, "with --tenants: replace a tenant workload that fails, or whose --tenant-duration elapsed, by the next tenant (turns on --tolerate-errors)")
	fs.DurationVar(&f.tenantDuration, "tenant-duration", 0, "with --rotate: how long each tenant workload runs before the next tenant replaces it (0: until it fails)")
}

// validate checks the flags against the fleet spec (on tells whether
// --tenants names a fleet); errors are one-line usage errors.
func (f *fleetRunFlags) validate(fs *pflag.FlagSet, spec fleet.Spec, on bool) error {
	if !on {
		if n := changed(fs, "active", "conns-per-tenant", "pick", "rotate", "tenant-duration"); n != "" {
			return usagef("--%s needs --tenants N (N >= 1)", n)
		}
		return nil
	}
	if !fs.Changed("active") {
		f.active = spec.Tenants
	}
	switch {
	case f.active < 1:
		return usagef("--active %d: need at least 1 active tenant", f.active)
	case f.active > spec.Tenants:
		return usagef("--active %d is more than --tenants %d: at most every tenant can be active", f.active, spec.Tenants)
	case f.connsPerTenant < 1:
		return usagef("--conns-per-tenant %d: need at least 1 connection", f.connsPerTenant)
	case f.tenantDuration < 0:
		return usagef("--tenant-duration %s is negative", f.tenantDuration)
	case fs.Changed("tenant-duration") && !f.rotate:
		return usagef("--tenant-duration needs --rotate: without it every tenant workload runs for the whole run")
	}
	switch f.pick {
	case fleet.PickRandom, fleet.PickRoundRobin:
	default:
		return usagef("unknown --pick %q: use random or round-robin", f.pick)
	}
	return nil
}

// fleetSpec returns the run's fleet when --tenants names one (nil
// otherwise), checking the fleet flags; it says that a fleet run checks
// no tenant's consistency.
func (a *app) fleetSpec(spec runSpec) (*run.Fleet, error) {
	gen, rf, ff := spec.gen, spec.flags, spec.fleet
	fspec, on, err := spec.tenants.spec(gen.Meta().Name)
	if err != nil {
		return nil, err
	}
	if err := ff.validate(spec.fs, fspec, on); err != nil || !on {
		return nil, err
	}
	f := &run.Fleet{Spec: fspec, Active: ff.active, ConnsPerTenant: ff.connsPerTenant, Pick: ff.pick,
		Rotate: ff.rotate, TenantDuration: ff.tenantDuration}
	if spec.fs.Changed("concurrency") || spec.fs.Changed("threads") {
		f.WorkersPerTenant = rf.concurrency
	}
	wpt := f.WorkersPerTenant
	if wpt == 0 {
		wpt = run.DefaultWorkersPerTenant(gen)
	}
	if err := run.CheckWorkers(fmt.Sprintf("--active %d × %s per tenant =", f.Active, plural(wpt, "worker")), f.Active*wpt, false); err != nil {
		return nil, err
	}
	if _, err := run.TenantGenerators(gen, fspec); err != nil {
		return nil, err
	}
	if c, ok := gen.(workload.AfterRunChecker); ok && c.CheckAfterRun() && !rf.skipChecks {
		fmt.Fprintf(a.stderr, "note: a fleet run checks no tenant's consistency after the run: `%s` checks every tenant\n",
			a.completeHint(fmt.Sprintf("stampede check %s --tenants %d", gen.Meta().Name, fspec.Tenants)))
	}
	return f, nil
}

// plural is "1 worker" or "10 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
