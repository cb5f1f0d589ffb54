package cmdline_test

import (
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/cmdline"
)

// TestSecrets checks the passwords Secrets finds in a command line, so that
// run.json's command, flags and tags, and every error, mask them.
func TestSecrets(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"URL", []string{"run", "ycsb", "postgresql://u:pw1@h/db"}, []string{"pw1"}},
		{"flag=value", []string{"run", "ycsb", "--pgsql-password=pw2"}, []string{"pw2"}},
		{"flag value", []string{"run", "ycsb", "--pgsql-password", "pw3", "--tag", "secret=pw3"}, []string{"pw3"}},
		{"cockroach's --password", []string{"workload", "run", "ycsb", "--password", "pw4"}, []string{"pw4"}},
		{"after --", []string{"gen", "k8s", "--", "run", "ycsb", "--pgsql-password", "pw5"}, []string{"pw5"}},
		{"password flag last", []string{"run", "ycsb", "--pgsql-password"}, nil},
		{"no password", []string{"run", "ycsb", "--tag", "job=x"}, nil},
	} {
		got := cmdline.Secrets(tc.args)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: Secrets(%q) = %q, want %q among them", tc.name, tc.args, got, w)
			}
		}
		if len(tc.want) == 0 && len(got) != 0 {
			t.Errorf("%s: Secrets(%q) = %q, want none", tc.name, tc.args, got)
		}
	}
	t.Setenv("PGPASSWORD", "envpw")
	if got := cmdline.Secrets([]string{"run", "ycsb"}); !slices.Equal(got, []string{"envpw"}) {
		t.Errorf("PGPASSWORD: %q", got)
	}
}
