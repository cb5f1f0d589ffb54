package all_test

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all"
)

// TestFlagUsageNamesNoArgument: a flag's help shows the text between its
// usage's first two backticks as the argument's name (pflag's
// UnquoteUsage), so a usage that quotes a command in backticks reads
// "-b, --builtin stampede init pgbench". No workload's flag has an
// argument name of several words.
func TestFlagUsageNamesNoArgument(t *testing.T) {
	for _, m := range workload.Registered() {
		f, ok := m.New().(workload.Flagser)
		if !ok {
			continue
		}
		f.Flags().VisitAll(func(fl *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(fl); strings.ContainsAny(name, " \t") {
				t.Errorf("%s --%s: its help names the argument %q (backticks in the usage): quote without backticks", m.Name, fl.Name, name)
			}
		})
	}
}
