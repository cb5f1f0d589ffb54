package procmatch_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/procmatch"
)

// TestMatch checks the name and command-line rules on the processes that
// made name matching the default: a server, its backends (whose command
// lines are rewritten), clients and monitors whose arguments name it.
func TestMatch(t *testing.T) {
	type proc struct {
		comm string
		args []string
	}
	var (
		postmaster = proc{"postgres", []string{"/usr/lib/postgresql/16/bin/postgres", "-D", "/var/lib/pg"}}
		backend    = proc{"postgres", []string{"postgres: 16/main: app shop 127.0.0.1(51234) idle"}}
		psql       = proc{"psql", []string{"psql", "postgresql://app@127.0.0.1/shop"}}
		pidstat    = proc{"pidstat", []string{"pidstat", "-C", "postgres", "1"}}
		shell      = proc{"sh", []string{"sh", "-c", "sleep 30 # postgresql://x"}}
		tserver    = proc{"yugabyte-tserve", []string{"/home/yb/bin/yugabyte-tserver", "--fs_data_dirs=/mnt/d0"}}
		cut        = proc{"abcdefghijklmno", []string{"other"}} // 15 bytes, argv[0] unrelated
		kthread    = proc{"kworker/0:1", nil}
		all        = []proc{postmaster, backend, psql, pidstat, shell, tserver, cut, kthread}
	)
	for _, tc := range []struct {
		expr    string
		cmdline bool
		want    []proc
	}{
		{"postgres", false, []proc{postmaster, backend}},
		{"^postgres$", false, []proc{postmaster, backend}},
		{"postgres", true, []proc{postmaster, backend, psql, pidstat, shell}},
		{"^postgres: .* idle$", true, []proc{backend}},
		{"bin/postgres -D", true, []proc{postmaster}},
		{"^yugabyte-tserver$", false, []proc{tserver}}, // completed from argv[0]
		{"^yugabyte-tserve$", false, nil},              // the completed name is matched, not the cut one
		{"^abcdefghijklmno$", false, []proc{cut}},
		{"kworker", false, []proc{kthread}},
		{"kworker", true, nil}, // no command line
		{"(?i)PSQL", false, []proc{psql}},
	} {
		p, err := procmatch.Compile(tc.expr, tc.cmdline)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, pr := range all {
			calls := 0
			args := func() []string { calls++; return pr.args }
			if p.Match(pr.comm, args) {
				got = append(got, pr.comm+" "+strings.Join(pr.args, " "))
			}
			if !tc.cmdline && len(pr.comm) != 15 && calls > 0 {
				t.Errorf("%q: the command line of %s was read for a name match", tc.expr, pr.comm)
			}
		}
		var want []string
		for _, pr := range tc.want {
			want = append(want, pr.comm+" "+strings.Join(pr.args, " "))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q (cmdline %v) matches\n  %s\nwant\n  %s", tc.expr, tc.cmdline, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		if p.String() != tc.expr || p.Cmdline() != tc.cmdline {
			t.Errorf("pattern %q reads back as %q, cmdline %v", tc.expr, p, p.Cmdline())
		}
	}
	if _, err := procmatch.Compile("pg(bouncer", false); err == nil || !strings.Contains(err.Error(), `invalid process pattern "pg(bouncer"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("bad pattern: %v", err)
	}
}
