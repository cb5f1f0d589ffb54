package cmdline_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
)

// TestRespell: an error names an underscored flag as the user typed it,
// whole flags only, and keeps the error's chain.
func TestRespell(t *testing.T) {
	base := errors.New("base")
	for _, tc := range []struct {
		args []string
		msg  string
		want string
	}{
		{[]string{"--table-size=0"}, "--table_size=0: need at least 1 row per table", "--table-size=0: need at least 1 row per table"},
		{[]string{"--table_size=0"}, "--table_size=0: need at least 1 row per table", "--table_size=0: need at least 1 row per table"},
		{nil, "--table_size=0: need at least 1 row per table", "--table_size=0: need at least 1 row per table"},
		{[]string{"--table-size", "5", "--range-size=9"}, "use --table_size=3 (what was prepared) with --range_size, not --table_sizes or x--table_size", "use --table-size=3 (what was prepared) with --range-size, not --table_sizes or x--table_size"},
		{[]string{"--point-selects=2"}, "--table_size and --point_selects", "--table_size and --point-selects"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.Int("table_size", 1, "")
		fs.Int("range_size", 1, "")
		fs.Int("point_selects", 1, "")
		fs.Int("tables", 1, "")
		cmdline.AcceptDashes(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		err := cmdline.Respell(fs, fmt.Errorf("%s: %w", tc.msg, base))
		if got := err.Error(); got != tc.want+": base" {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want+": base")
		}
		if !errors.Is(err, base) {
			t.Errorf("%v: the chain is lost", tc.args)
		}
	}
	if cmdline.Respell(pflag.NewFlagSet("t", pflag.ContinueOnError), nil) != nil {
		t.Error("a nil error respelled is not nil")
	}
}
