package cmdline

import (
	"slices"
	"testing"
)

// TestHelpAsFlag checks that help of a topic is asked as --help of it.
func TestHelpAsFlag(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"help"}, []string{"help"}},
		{[]string{"help", "run", "ycsb"}, []string{"run", "ycsb", "--help"}},
		{[]string{"help", "load"}, []string{"load", "--help"}},
		{[]string{"help", "--nope"}, []string{"help", "--nope"}},
		{[]string{"run", "help"}, []string{"run", "help"}},
	} {
		if got := HelpAsFlag(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("HelpAsFlag(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
