package cmdline

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// Tenants name a fleet of tenants (--tenants, --tenant-mode,
// --tenant-pattern). init, check, cleanup, run and fleet exec share them.
type Tenants struct {
	tenants int
	mode    string
	pattern string
	fs      *pflag.FlagSet
}

// Register defines the flags on fs.
func (f *Tenants) Register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.IntVar(&f.tenants, "tenants", 0, "number of tenants, numbered 1..N (0: one ordinary database, no fleet)")
	fs.StringVar(&f.mode, "tenant-mode", string(fleet.ModeDatabase), "how tenants are separated: database (one each), schema (one each in one database) or column (shared tables with a tenant id)")
	fs.StringVar(&f.pattern, "tenant-pattern", "", "name of tenant databases or schemas, with one %d for the tenant's number (default WORKLOAD_%d, as bank_%d)")
}

// changed reports whether any of names was given on the command line.
func changed(fs *pflag.FlagSet, names ...string) string {
	for _, n := range names {
		if fs != nil && fs.Changed(n) {
			return n
		}
	}
	return ""
}

// plainIdent matches names PostgreSQL leaves as they are without quotes.
var plainIdent = lazyre.New(`^[a-z_][a-z0-9_$]*$`)

// Fleet returns the fleet the flags name, and whether there is one: with
// --tenants 0 (the default) there is none, and the other tenant flags are
// refused. Errors are one-line usage errors.
func (f *Tenants) Fleet(workloadName string) (fleet.Spec, bool, error) {
	if f.tenants == 0 {
		if n := changed(f.fs, "tenant-mode", "tenant-pattern"); n != "" {
			return fleet.Spec{}, false, usagef("--%s needs --tenants N (N >= 1)", n)
		}
		return fleet.Spec{}, false, nil
	}
	mode, err := fleet.ParseMode(f.mode)
	if err != nil {
		return fleet.Spec{}, false, asUsage(err)
	}
	if err := run.CheckTenants("--tenants", f.tenants); err != nil {
		return fleet.Spec{}, false, err
	}
	s := fleet.Spec{Tenants: f.tenants, Mode: mode, Pattern: f.pattern}
	if s.Pattern == "" {
		s.Pattern = fleet.DefaultPattern(workloadName)
	}
	if err := s.Validate(); err != nil {
		return s, false, asUsage(err)
	}
	if mode == fleet.ModeSchema && !plainIdent().MatchString(s.Name(s.Tenants)) {
		// search_path is sent unquoted, and the server folds it to lower
		// case: keep schema names that need no quoting.
		return s, false, usagef("--tenant-pattern %q: schema names must be lower-case letters, digits and _ (as %s)", s.Pattern, fleet.DefaultPattern(workloadName))
	}
	return s, true, nil
}

// growCommand returns the init command that adds tenants up to N to the
// fleet these flags name (init resumes a fleet), with its mode, pattern
// and the data flags given on this command line, for advice.
func (f *Tenants) growCommand(gen workload.Generator) string {
	cmd := "stampede init " + gen.Meta().Name + " --tenants N"
	if f.mode != string(fleet.ModeDatabase) {
		cmd += " --tenant-mode " + f.mode
	}
	if f.pattern != "" {
		cmd += " --tenant-pattern " + shellQuote(f.pattern)
	}
	if fl, ok := gen.(workload.Flagser); ok && fl.Flags().FlagSet != nil {
		flags := fl.Flags()
		flags.VisitAll(func(p *pflag.Flag) {
			if p.Changed && !flags.Meta[p.Name].RuntimeOnly {
				cmd += " --" + p.Name + " " + shellQuote(p.Value.String())
			}
		})
	}
	return cmd
}

// FleetInit holds init's fleet flags: --init-concurrency and --extra-tables.
type FleetInit struct {
	concurrency int
	extraTables int
	roles       bool
}

// Register defines the flags on fs.
func (f *FleetInit) Register(fs *pflag.FlagSet) {
	fs.IntVar(&f.concurrency, "init-concurrency", 4, "with --tenants: number of tenants created at once")
	fs.IntVar(&f.extraTables, "extra-tables", 0, "with --tenants: add this many empty tables of varied shapes to every tenant (extra_001, ...)")
	fs.BoolVar(&f.roles, "tenant-roles", false, "with --tenants (database or schema mode): give each tenant a login role of its own, named as the tenant, that may use its own database or schema only; runs then log in as each tenant's role (passwords derived from a secret kept on the server for the admin only, never printed)")
}

// Validate checks the flags; on tells whether --tenants names a fleet.
func (f *FleetInit) Validate(fs *pflag.FlagSet, on bool) error {
	if !on {
		if n := changed(fs, "init-concurrency", "extra-tables", "tenant-roles"); n != "" {
			return usagef("--%s needs --tenants N (N >= 1)", n)
		}
		return nil
	}
	if f.concurrency < 1 {
		return usagef("--init-concurrency %d: need at least 1", f.concurrency)
	}
	if f.extraTables < 0 || f.extraTables > 999 {
		return usagef("--extra-tables %d: use 0 to 999", f.extraTables)
	}
	return nil
}

// FleetRun are the flags only `run` has for fleets: how many tenant
// workloads run at once, with how many connections, picked how.
type FleetRun struct {
	active         int
	connsPerTenant int
	pick           string
	rotate         bool
	tenantDuration time.Duration
}

// Register defines the flags on fs.
func (f *FleetRun) Register(fs *pflag.FlagSet) {
	fs.IntVar(&f.active, "active", 0, "with --tenants: number of tenant workloads run at once (default: every tenant)")
	fs.IntVar(&f.connsPerTenant, "conns-per-tenant", 1, "with --tenants: connections of each active tenant (a workload at its own rates, lambda, and sql: one per worker)")
	fs.StringVar(&f.pick, "pick", fleet.PickRandom, "with --tenants: which tenants are active: random (from --seed) or round-robin (1..M)")
	fs.BoolVar(&f.rotate, "rotate", false, "with --tenants: replace a tenant workload that fails, or whose --tenant-duration elapsed, by the next tenant (turns on --tolerate-errors)")
	fs.DurationVar(&f.tenantDuration, "tenant-duration", 0, "with --rotate: how long each tenant workload runs before the next tenant replaces it (0: until it fails)")
}

// validate checks the flags against the fleet spec (on tells whether
// --tenants names a fleet); errors are one-line usage errors.
func (f *FleetRun) validate(fs *pflag.FlagSet, spec fleet.Spec, on bool) error {
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
func fleetSpec(spec RunArgs, env Env) (*run.Fleet, error) {
	gen, rf, ff := spec.Gen, spec.Flags, spec.Fleet
	fspec, on, err := spec.Tenants.Fleet(gen.Meta().Name)
	if err != nil {
		return nil, err
	}
	if err := ff.validate(spec.FS, fspec, on); err != nil || !on {
		return nil, err
	}
	f := &run.Fleet{Spec: fspec, Active: ff.active, ConnsPerTenant: ff.connsPerTenant, Pick: ff.pick,
		Rotate: ff.rotate, TenantDuration: ff.tenantDuration}
	if spec.FS.Changed("concurrency") || spec.FS.Changed("threads") {
		f.WorkersPerTenant = rf.concurrency
	}
	if !spec.FS.Changed("conns-per-tenant") {
		f.ConnsPerTenant = 0 // the run's default: 1, or a worker's each for lambda's paths
	}
	wpt, _, err := run.TenantSizes(gen, *f)
	if err != nil {
		return nil, asUsage(err)
	}
	active := f.Active
	if p := rf.clients.part; p.Count > 0 {
		// Each client runs its share of the tenants and of --active.
		share, err := run.FleetShare(*f, p.Index, p.Count)
		if err != nil {
			return nil, asUsage(err)
		}
		active = share.Active
	}
	if err := run.CheckWorkersOf(fmt.Sprintf("--active %d × %s per tenant =", active, plural(wpt, "worker")), active*wpt, false, gen); err != nil {
		return nil, err
	}
	if _, err := run.TenantGenerators(gen, fspec); err != nil {
		return nil, err
	}
	if c, ok := gen.(workload.AfterRunChecker); ok && c.CheckAfterRun() && !rf.skipChecks {
		fmt.Fprintf(env.Stderr, "note: a fleet run checks no tenant's consistency after the run: `%s` checks every tenant\n",
			env.Hint(fmt.Sprintf("stampede check %s --tenants %d", gen.Meta().Name, fspec.Tenants)))
	}
	return f, nil
}

// refuseFleetConns refuses --conns in a fleet run, where each active
// tenant opens --conns-per-tenant connections and --conns would be
// ignored.
func refuseFleetConns(spec RunArgs) error {
	if spec.Tenants == nil || spec.Tenants.tenants == 0 || !spec.FS.Changed("conns") {
		return nil
	}
	loops := "default 1"
	if d, ok := spec.Gen.(workload.RunDefaulter); ok && d.RunDefaults().WorkersFromConns {
		loops = fmt.Sprintf("default 1, on each of which %s runs one loop", spec.Gen.Meta().Name)
	} else if ok && d.RunDefaults().ConnPerWorker {
		loops = "default one per worker"
	}
	return usagef("--conns %s with --tenants: a fleet run opens connections per tenant: give --conns-per-tenant N (each active tenant's connections, %s) and --active (the tenants run at once)",
		spec.FS.Lookup("conns").Value.String(), loops)
}

// plural is "1 worker" or "10 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
