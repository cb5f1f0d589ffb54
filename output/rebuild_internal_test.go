package output

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all" // register the workloads
)

// TestRebuildFlagAtDefault: runs of one workload whose run.json records a
// data flag at its default value in one run and leaves it out in another
// ran with the same value: their figures are rebuilt (before, the raw
// strings were compared and the figures dropped without a word); a value
// that really differs still leaves them out.
func TestRebuildFlagAtDefault(t *testing.T) {
	for _, name := range []string{"tpcc"} {
		t.Run(name, func(t *testing.T) {
			meta, ok := workload.Get(name)
			if !ok {
				t.Fatalf("workload %s not registered", name)
			}
			gen := meta.New()
			f, ok := gen.(workload.Flagser)
			if _, figs := gen.(workload.Figurer); !ok || !figs {
				t.Fatalf("%s has no flags or no figures", name)
			}
			flags := f.Flags()
			var data *pflag.Flag
			flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
				m := flags.Meta[fl.Name]
				if data == nil && !m.PerClient && !m.NotData && fl.Value.Type() == "int" && fl.DefValue != "" {
					data = fl
				}
			})
			if data == nil {
				t.Fatalf("%s has no integer data flag", name)
			}
			run := func(flagVals map[string]string) *runlog.Run {
				return &runlog.Run{Info: runlog.RunInfo{Workload: name, Flags: flagVals}}
			}
			written := run(map[string]string{data.Name: data.DefValue})
			omitted := run(map[string]string{})
			if gen, _ := rebuild([]*runlog.Run{written, omitted}); gen == nil {
				t.Errorf("--%s=%s written in one run and left out in the other: figures not rebuilt", data.Name, data.DefValue)
			}
			other := run(map[string]string{data.Name: data.DefValue + "1"})
			if gen, _ := rebuild([]*runlog.Run{written, other}); gen != nil {
				t.Errorf("--%s %s and %s: figures rebuilt for runs on different data", data.Name, data.DefValue, data.DefValue+"1")
			}
		})
	}
}
