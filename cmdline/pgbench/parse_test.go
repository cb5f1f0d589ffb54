package pgbench

import (
	"os/user"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// osUser is the OS user's name, pgbench's last default database name.
func osUser(t *testing.T) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// TestParse turns pasted pgbench command lines into stampede's.
func TestParse(t *testing.T) {
	base := map[string]string{"PGUSER": "bench"}
	cases := []struct {
		line string
		env  map[string]string
		want string
	}{
		{"-i -s 10 bench", base,
			"init pgbench --scale 10 --init-steps dtgvp --as-pgbench --output-style pgbench postgresql://bench@localhost/bench"},
		{"-i -s5 -F 80 --foreign-keys --partitions=4 --partition-method hash -n -I dtGvp -h 10.0.0.1 -p 5433 -U alice db1", base,
			"init pgbench --scale 5 --init-steps dtGp --fillfactor 80 --foreign-keys --partitions 4 --partition-method hash --as-pgbench --output-style pgbench postgresql://alice@10.0.0.1:5433/db1"},
		{"-c 8 -j 2 -T 60 -P 5 -M prepared bench", base,
			"run sql -b tpcb-like --concurrency 8 --conns 8 --protocol prepared --pgbench-jobs 2 --jobs 2 --duration 60s --display-every 5s --pgbench-progress 5 --vacuum-first --truncate-history --max-tries 1 --output-style pgbench postgresql://bench@localhost/bench"},
		{"-S -t 1000 -c4 -n", map[string]string{"PGUSER": "u", "PGDATABASE": "d", "PGHOST": "/var/run/postgresql", "PGPORT": "5432"},
			"run sql -b select-only --concurrency 4 --conns 4 --protocol simple --pgbench-jobs 1 --max-ops 4000 --pgbench-transactions 1000 --max-tries 1 --output-style pgbench postgresql://u@/d?host=%2Fvar%2Frun%2Fpostgresql&port=5432"},
		{"-f read.sql@10 -f write.sql@1 -D maxid=100 -r --random-seed=42 -R 500 -T 30 -c 16 -j 4 db", base,
			"run sql -f read.sql@10 -f write.sql@1 --concurrency 16 --conns 16 --protocol simple --pgbench-jobs 4 --jobs 4 --duration 30s --latency intended --max-rate 500 --arrivals poisson --schedule-groups 4 --vacuum-first --truncate-history --report-per-command -D maxid=100 --seed 42 --max-tries 1 --output-style pgbench postgresql://bench@localhost/db"},
		{"-N -b select-only@3 -t 5 db", base,
			"run sql -b simple-update -b select-only@3 --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --max-ops 5 --pgbench-transactions 5 --vacuum-first --truncate-history --max-tries 1 --output-style pgbench postgresql://bench@localhost/db"},
		{"-c 2 -j 8 -T 5 db", map[string]string{"PGUSER": "x", "PGPASSWORD": "s3cret"},
			"run sql -b tpcb-like --concurrency 2 --conns 2 --protocol simple --pgbench-jobs 2 --jobs 2 --duration 5s --vacuum-first --truncate-history --max-tries 1 --output-style pgbench postgresql://x:s3cret@localhost/db"},
		{"-n -t 2 --max-tries=2 --verbose-errors db", base,
			"run sql -b tpcb-like --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --max-ops 2 --pgbench-transactions 2 --verbose-errors --max-tries 2 --output-style pgbench postgresql://bench@localhost/db"},
		// --max-tries 0: unlimited tries; -L bounds the tries' time.
		{"-n -T 2 --max-tries=0 -L 5 db", base,
			"run sql -b tpcb-like --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --duration 2s --pgbench-latency-limit 5 --unlimited-tries --tries-within 5000us --output-style pgbench postgresql://bench@localhost/db"},
		// -R -L with several scripts.
		{"-n -T 2 -R 100 -L 5 -b select-only -b simple-update db", base,
			"run sql -b select-only -b simple-update --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --duration 2s --latency intended --max-rate 100 --arrivals poisson --schedule-groups 1 --skip-late 5000us --pgbench-latency-limit 5 --max-tries 1 --output-style pgbench postgresql://bench@localhost/db"},
		// PGSERVICE: what is not given comes from the service's section.
		{"-S -t 1", map[string]string{"PGSERVICE": "bench"},
			"run sql -b select-only --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --max-ops 1 --pgbench-transactions 1 --vacuum-first --truncate-history --max-tries 1 --output-style pgbench postgresql:///" + osUser(t)},
		{"-S -t 1 -U bob other", map[string]string{"PGSERVICE": "bench"},
			"run sql -b select-only --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --max-ops 1 --pgbench-transactions 1 --vacuum-first --truncate-history --max-tries 1 --output-style pgbench postgresql://bob@/other"},
		{"-l -R 10 -L 5 -S -T 5 db", base,
			"run sql -b select-only --concurrency 1 --conns 1 --protocol simple --pgbench-jobs 1 --duration 5s --latency intended --max-rate 10 --arrivals poisson --schedule-groups 1 --skip-late 5000us --pgbench-latency-limit 5 --vacuum-first --truncate-history --log-prefix pgbench_log --max-tries 1 --output-style pgbench postgresql://bench@localhost/db"},
	}
	for _, c := range cases {
		l, err := Parse(strings.Fields(c.line), env(c.env))
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if got := strings.Join(l.Args, " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.line, got, c.want)
		}
	}
}

// TestParseRefuses: what stampede does not take, or pgbench refuses, in
// one line.
func TestParseRefuses(t *testing.T) {
	cases := []struct{ line, want string }{
		{"-d -T 5 db", "pgbench's --debug is not taken by stampede: pgbench 15's -d is --debug, not the database: give the database name as the last argument (stampede pgbench -c 4 -T 60 bench); to see each statement sent, have the server log it"},
		{"-d mydb -T 5", "pgbench 15's -d is --debug, not the database: give the database name as the last argument"},
		{"--log-prefix=x -T 5 db", "log file prefix (--log-prefix) is allowed only when logging transactions (-l)"},
		{"-R 100 -L 0 -T 5 db", "invalid latency limit: 0"},
		{"--max-tries=0 -t 5 db", "an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)"},
		{"--max-tries=-1 -T 5 db", `invalid number of maximum tries: "-1"`},
		{"--force-drop -n -t 5 db", "--force-drop lets -i drop pgbench's tables that stampede did not make, and a run empty pgbench_history in a copy of a database stampede loaded, and this line does neither (-n): leave it out"},
		{"-T 5 -t 10 db", "specify either a number of transactions (-t) or a duration (-T), not both"},
		{"-c 0 db", "-c/--clients must be in range 1..2147483647, not 0"},
		{"-c 99999999999 db", "-c/--clients must be in range 1..2147483647, not 99999999999"},
		{"-j 0 db", "-j/--jobs must be in range 1..2147483647, not 0"},
		{"-t 0 db", "-t/--transactions must be in range 1..2147483647, not 0"},
		{"-T -1 db", "-T/--time must be in range 1..2147483647, not -1"},
		{"-s 0 db", "-s/--scale must be in range 1..2147483647, not 0"},
		{"-i -s 0 db", "-s/--scale must be in range 1..2147483647, not 0"},
		{"-P 0 -t 2 db", "-P/--progress must be in range 1..2147483647, not 0"},
		{"-D -t 2 db", `invalid variable definition: "-t"`},
		{"-D x= -t 2 db", `invalid variable definition: "x="`},
		{"-D =1 -t 2 db", `invalid variable definition: "=1"`},
		{"--random-seed= -t 2 db", `unrecognized random seed option ""`},
		{"-b select-only@2147483648 -t 2 db", `-b "select-only@2147483648": the weight after @ must be a whole number from 1 to 2147483647`},
		{"-f a.sql@99999999999999999999 db", `-f "a.sql@99999999999999999999": the weight after @ must be a whole number from 1 to 2147483647`},
		// The same line, with pgbench's prefix, for 0 and a negative weight.
		{"-b select-only@0 -t 2 db", `-b "select-only@0": a weight of 0 never runs the script: give a whole number from 1 to 2147483647, or leave the script out (pgbench takes 0 beside a heavier script`},
		{"-b select-only@0 -b tpcb-like@1 -t 2 db", `-b "select-only@0": a weight of 0 never runs the script`},
		{"-f a.sql@-1 -t 2 db", `-f "a.sql@-1": the weight after @ must be a whole number from 1 to 2147483647 (FILE@10)`},
		{"--show-script=", `--show-script: built-in script "" is ambiguous: it begins select-only, simple-update, tpcb-like`},
		{"--show-script=s", `--show-script: built-in script "s" is ambiguous: it begins select-only, simple-update`},
		{"-M fast db", `invalid query mode (-M): "fast"`},
		{"--random-seed=abc db", `unrecognized random seed option "abc"`},
		{"-Z db", "pgbench has no option -Z"},
		{"--frobnicate db", "pgbench has no option --frobnicate"},
		{"-i -c 4 db", "cannot be used in initialization (-i) mode: --client runs a benchmark, and -i initialises"},
		{"-F 80 -T 5 db", "--fillfactor shapes what -i creates"},
		{"db1 db2", `pgbench takes one database name`},
		{"-p 99999 db", `port "99999" is not a port number`},
		{"-c x db", `invalid value "x" for option -c/--clients`},
		{"--show-script=nosuch", `--show-script: no built-in script "nosuch"`},
	}
	for _, c := range cases {
		_, err := Parse(strings.Fields(c.line), env(map[string]string{"PGUSER": "u"}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.line, err, c.want)
		}
	}
}

func TestParseOutputs(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"--show-script=select-only", "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"},
		{"-b list", builtinList},
		// pgbench takes a built-in's unambiguous prefix.
		{"--show-script=sel", "-- select-only: <builtin: select only>\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n\n"},
	} {
		l, err := Parse(strings.Fields(c.line), env(nil))
		if err != nil || l.Args != nil || l.Output != c.want {
			t.Errorf("%s: %v %q", c.line, err, l.Output)
		}
	}
}
