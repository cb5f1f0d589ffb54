package cli

import (
	"regexp"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/run"
)

// tenantFlags name a fleet of tenants (--tenants, --tenant-mode,
// --tenant-pattern). init, check, cleanup, run and fleet exec share them.
type tenantFlags struct {
	tenants int
	mode    string
	pattern string
	fs      *pflag.FlagSet
}

func (f *tenantFlags) register(fs *pflag.FlagSet) {
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
var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// spec returns the fleet the flags name, and whether there is one: with
// --tenants 0 (the default) there is none, and the other tenant flags are
// refused. Errors are one-line usage errors.
func (f *tenantFlags) spec(workloadName string) (fleet.Spec, bool, error) {
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
	if mode == fleet.ModeSchema && !plainIdent.MatchString(s.Name(s.Tenants)) {
		// search_path is sent unquoted, and the server folds it to lower
		// case: keep schema names that need no quoting.
		return s, false, usagef("--tenant-pattern %q: schema names must be lower-case letters, digits and _ (as %s)", s.Pattern, fleet.DefaultPattern(workloadName))
	}
	return s, true, nil
}

// fleetInitFlags are init's fleet flags.
type fleetInitFlags struct {
	concurrency int
	extraTables int
}

func (f *fleetInitFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.concurrency, "init-concurrency", 4, "with --tenants: number of tenants created at once")
	fs.IntVar(&f.extraTables, "extra-tables", 0, "with --tenants: add this many empty tables of varied shapes to every tenant (extra_001, ...)")
}

// validate checks the flags; on tells whether --tenants names a fleet.
func (f *fleetInitFlags) validate(fs *pflag.FlagSet, on bool) error {
	if !on {
		if n := changed(fs, "init-concurrency", "extra-tables"); n != "" {
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
