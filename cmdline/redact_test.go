package cmdline

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestRedactArgs checks that a command line is recorded with its
// passwords masked and everything else as written, in every form a
// connection string takes (user info, query parameters, key=value DSN),
// including a password that is also the user's name, and that a secret is
// still scrubbed from the command's other words.
func TestRedactArgs(t *testing.T) {
	t.Setenv("PGPASSWORD", "")
	for _, tc := range []struct{ in, want []string }{
		{
			in:   []string{"stampede", "run", "bank", "--rows", "5", "postgresql://127.0.0.1:5605/bank?user=postgres&password=abc&sslmode=disable"},
			want: []string{"stampede", "run", "bank", "--rows", "5", "postgresql://127.0.0.1:5605/bank?user=postgres&password=xxxxx&sslmode=disable"},
		},
		{
			in:   []string{"run", "bank", "postgresql://postgres:postgres@127.0.0.1:5817/bank?sslmode=disable"},
			want: []string{"run", "bank", "postgresql://postgres:xxxxx@127.0.0.1:5817/bank?sslmode=disable"},
		},
		{
			in:   []string{"run", "bank", "host=127.0.0.1 user=bob password=bob dbname=bank sslmode=disable"},
			want: []string{"run", "bank", "host=127.0.0.1 user=bob password=xxxxx dbname=bank sslmode=disable"},
		},
		{
			in:   []string{"run", "bank", "--tag", "note=s3cretpw", "postgresql://bob:s3cretpw@h/db?application_name=x"},
			want: []string{"run", "bank", "--tag", "note=xxxxx", "postgresql://bob:xxxxx@h/db?application_name=x"},
		},
		{ // A lone pair is a tag, not a DSN: the secret in it is scrubbed.
			in:   []string{"run", "bank", "--tag", "user=s3cretpw", "postgresql://bob:s3cretpw@h/db"},
			want: []string{"run", "bank", "--tag", "user=xxxxx", "postgresql://bob:xxxxx@h/db"},
		},
	} {
		got := RedactArgs(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("RedactArgs(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestHintKeepsConnection checks that a suggested command carries the
// URL of the command line with its password masked and its other
// parameters (the user, sslmode) kept, so that it logs in as the same
// user.
func TestHintKeepsConnection(t *testing.T) {
	flags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Int("rows", 0, "")
		fs.Bool("drop", false, "")
		return fs
	}
	for _, tc := range []struct{ url, want string }{
		{"postgresql://127.0.0.1:5605/bank?user=postgres&password=abc&sslmode=disable", "'postgresql://127.0.0.1:5605/bank?user=postgres&password=xxxxx&sslmode=disable'"},
		{"postgresql://postgres:postgres@127.0.0.1:5605/bank", "postgresql://postgres:xxxxx@127.0.0.1:5605/bank"},
		{"host=127.0.0.1 user=bob password=abc dbname=bank", "'host=127.0.0.1 user=bob password=xxxxx dbname=bank'"},
	} {
		h := Hinter{
			Argv:    []string{"run", "bank", "--rows", "5", tc.url},
			Current: flags(),
			Flags:   func(verb, wl string) *pflag.FlagSet { return flags() },
		}
		got := h.Hints("run `stampede init bank --drop` first")
		want := "run `stampede init bank --drop --rows 5 " + tc.want + "` first"
		if got != want {
			t.Errorf("hint for %s:\n got %s\nwant %s", tc.url, got, want)
		}
		if strings.Contains(got, "abc") {
			t.Errorf("hint leaks the password: %s", got)
		}
	}
}

// TestHintReloadIsOneProcess: a hint that reloads with --drop leaves a
// split run's --clients and --client-index behind (init refuses --drop
// with them); one without --drop keeps them.
func TestHintReloadIsOneProcess(t *testing.T) {
	flags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Int("warehouses", 0, "")
		fs.Int("clients", 1, "")
		fs.Int("client-index", 0, "")
		fs.Bool("drop", false, "")
		return fs
	}
	url := "postgresql://bench@db/tpcc"
	for _, tc := range []struct{ argv, hint, want string }{
		{"run tpcc --warehouses 8 --clients 2 --client-index 0 " + url, "stampede init tpcc --drop --warehouses 8",
			"stampede init tpcc --drop --warehouses 8 " + url},
		{"run tpcc --clients=2 --client-index=1 --warehouses 8 " + url, "stampede init tpcc --drop",
			"stampede init tpcc --drop --warehouses 8 " + url},
		{"run tpcc --warehouses 8 --clients 2 --client-index 0 " + url, "stampede init tpcc",
			"stampede init tpcc --warehouses 8 --clients 2 --client-index 0 " + url},
	} {
		h := Hinter{Argv: strings.Fields(tc.argv), Current: flags(), Flags: func(verb, wl string) *pflag.FlagSet { return flags() }}
		if got := h.Complete(tc.hint); got != tc.want {
			t.Errorf("%s: hint %q\n got %s\nwant %s", tc.argv, tc.hint, got, tc.want)
		}
	}
}
