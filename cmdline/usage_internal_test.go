package cmdline

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestFlagUsageNamesNoArgument: pflag shows the text between a usage's
// first two backticks as the flag's argument name, so a usage that quotes
// a command in backticks reads "--output-style stampede load jdbc ...".
// No flag of init's, run's, sweep's, the fleets', limits' or telemetry's
// has an argument name of several words.
func TestFlagUsageNamesNoArgument(t *testing.T) {
	var sets []*pflag.FlagSet
	for _, r := range []interface{ Register(*pflag.FlagSet) }{
		&ClientFlags{}, &SplitFlags{}, &Conn{}, &Tenants{}, &FleetInit{}, &FleetRun{},
		&Init{}, &Telemetry{}, &Limits{}, &RunFlags{},
	} {
		fs := pflag.NewFlagSet("one", pflag.ContinueOnError)
		r.Register(fs)
		sets = append(sets, fs)
	}
	// The sweep's flags go after run's (SweepFlags.Register).
	sweep := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	(&RunFlags{}).Register(sweep)
	(&SweepFlags{}).Register(sweep)
	sets = append(sets, sweep)
	for _, set := range sets {
		set.VisitAll(func(fl *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(fl); strings.ContainsAny(name, " \t") {
				t.Errorf("--%s: its help names the argument %q (backticks in the usage): quote without backticks", fl.Name, name)
			}
		})
	}
}
