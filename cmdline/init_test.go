package cmdline

import (
	"runtime"
	"testing"

	"github.com/spf13/pflag"
)

// TestInitLoaders checks the number of loaders init resolves: sysbench's
// prepare (--sysbench-syntax) loads with --threads, default 1, as sysbench
// does; stampede's init with --concurrency, default 2 per CPU.
func TestInitLoaders(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--sysbench-syntax"}, 1},
		{[]string{"--sysbench-syntax", "--threads=3"}, 3},
		{[]string{"--sysbench-syntax", "--concurrency=5"}, 5},
		{nil, 2 * runtime.GOMAXPROCS(0)},
		{[]string{"--threads=3"}, 3},
	} {
		var f Init
		fs := pflag.NewFlagSet("init", pflag.ContinueOnError)
		f.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := f.ResolveLoaders(); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got := f.Concurrency(); got != tc.want {
			t.Errorf("%q: %d loaders, want %d", tc.args, got, tc.want)
		}
	}
}
