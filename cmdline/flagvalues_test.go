package cmdline

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/workload"
)

// TestFlagValuesDependentDefault: a flag whose default depends on other
// flags is recorded only when given (run.json recorded YCSB's
// read-proportion 0 beside -p readproportion=0.5: issue 34's NIT).
func TestFlagValuesDependentDefault(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Float64("read-proportion", 0, "")
	fs.Float64("update-proportion", 0, "")
	fs.Int64("field-count", 10, "")
	workload.SetDependentDefault(fs, "read-proportion")
	workload.SetDependentDefault(fs, "update-proportion")
	if err := fs.Parse([]string{"--update-proportion", "0.25"}); err != nil {
		t.Fatal(err)
	}
	got := FlagValues(fs, nil)
	if _, ok := got["read-proportion"]; ok {
		t.Errorf("read-proportion not given but recorded: %v", got)
	}
	if got["update-proportion"] != "0.25" || got["field-count"] != "10" {
		t.Errorf("given and plain defaults: %v", got)
	}
}
