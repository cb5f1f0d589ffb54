package sqlscript_test

import (
	"strings"
	"testing"
)

// TestVacuumFirstOneWorker: run sql with one worker and --vacuum-first
// ends (it hung: the vacuum waited for a second connection from a pool of
// one, held by the worker), vacuums as pgbench does (the server's
// vacuum_count), and empties pgbench_history as pgbench does only where
// stampede may: a pgbench_history that real pgbench made is kept, with a
// warning, unless --truncate-history names it.
func TestVacuumFirstOneWorker(t *testing.T) {
	name, u, c := freshDB(t, "fix29b_vac")
	dir := t.TempDir()
	pgbench(t, dir, name, "-i", "-q", "-s", "1")
	pgbench(t, dir, name, "-n", "-t", "5") // five rows of history, pgbench's
	vacuums := func() int64 {
		exec1(t, c, "SELECT pg_stat_clear_snapshot()")
		return count(t, c, "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'pgbench_branches'")
	}
	cases := []struct {
		args    []string
		history int64 // rows of pgbench_history after the run of 3
		warned  bool
	}{
		{[]string{"--vacuum-first"}, 5 + 3, true},
		{[]string{"--vacuum-first", "--truncate-history"}, 3, false},
		{[]string{"--vacuum-first", "--vacuum-accounts"}, 3 + 3, true},
	}
	for _, k := range cases {
		t.Run(strings.Join(k.args, " "), func(t *testing.T) {
			before := vacuums()
			args := append([]string{"run", "sql", "-b", "tpcb-like", "--concurrency", "1", "--max-ops", "3", "--results-dir", dir}, k.args...)
			r, ended := runBounded(t, dir, nil, 0, append(args, u)...)
			if !ended {
				t.Fatalf("run sql %s did not end in 30 s (3 transactions)\n%s%s", strings.Join(k.args, " "), r.stdout, r.stderr)
			}
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := count(t, c, "SELECT count(*) FROM pgbench_history"); got != k.history {
				t.Errorf("pgbench_history holds %d rows after the run, want %d", got, k.history)
			}
			if warned := strings.Contains(r.stderr, "pgbench_history was not made by stampede"); warned != k.warned {
				t.Errorf("warned %v, want %v:\n%s", warned, k.warned, r.stderr)
			}
			for try := 0; try < 50 && vacuums() == before; try++ {
				exec1(t, c, "SELECT pg_sleep(0.1)")
			}
			if vacuums() == before {
				t.Errorf("the server counted no VACUUM of pgbench_branches")
			}
		})
	}
}

// TestTriesFlagsBadInput: the flags the pgbench form gives run sql for
// pgbench's --max-tries 0, -L's bound on the tries and the emptying of
// pgbench_history are refused in one line where they cannot apply.
func TestTriesFlagsBadInput(t *testing.T) {
	_, u, _ := freshDB(t, "fix29b_tries")
	dir := t.TempDir()
	write(t, dir, "one.sql", "SELECT 1;\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--truncate-history"}, "--truncate-history empties pgbench_history with what --vacuum-first does"},
		{[]string{"--unlimited-tries", "--max-tries", "3"}, "--unlimited-tries and --max-tries 3 both bound the tries"},
		{[]string{"--tries-within", "5ms"}, "--tries-within 5ms bounds the time of pgbench's tries"},
		{[]string{"--max-tries", "2", "--tries-within", "-5ms"}, "--tries-within -5ms bounds the time of pgbench's tries"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append(append([]string{"run", "sql", "-f", "one.sql", "--max-ops", "1", "--results-dir", dir}, c.args...), u)
			oneLine(t, stampede(t, dir, args...), c.want)
		})
	}
}
