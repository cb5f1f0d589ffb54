package pgbench

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// TestParseRefusesCensus29: the pgbench lines census29b found accepted
// (pgbench refuses them) or answered in Go's words, each refused in one
// line in pgbench's words (exit 2), before anything runs.
func TestParseRefusesCensus29(t *testing.T) {
	cases := []struct{ line, want string }{
		// clear-goerr: pgbench's "invalid value "2x" for option -c/--clients".
		{"-c 2x -t 2 db", `invalid value "2x" for option -c/--clients: give a whole number`},
		{"-T 1s db", `invalid value "1s" for option -T/--time: give a whole number`},
		{"-P 1.5 -t 2 db", `invalid value "1.5" for option -P/--progress`},
		{"-s abc -t 2 db", `invalid value "abc" for option -s/--scale`},
		{"-i -s 1.5 db", `invalid value "1.5" for option -s/--scale`},
		{"-i -F 50.5 db", `invalid value "50.5" for option -F/--fillfactor`},
		{"-i --partitions=x db", `invalid value "x" for option --partitions`},
		// pgbench: "option '--foreign-keys' doesn't allow an argument" (chk28b F9).
		{"-i --foreign-keys=x db", "option --foreign-keys takes no value (--foreign-keys=x): give --foreign-keys alone"},
		{"-i --unlogged-tables=yes db", "option --unlogged-tables takes no value"},
		{"-R abc -t 2 db", `invalid rate limit: "abc"`},
		{"-R 1e400 -t 2 db", `invalid rate limit: "1e400"`},
		{"-L abc -t 2 db", `invalid latency limit: "abc"`},
		// chk29 nit 3: the run's bounds, said in -R's and -c's names
		// (they said --max-rate and --concurrency).
		{"-R 1e12 -t 2 db", "invalid rate limit: 1e+12 is more than any client reaches"},
		{"-c 100000000 -t 2 db", "-c 100000000 would need about"},
		// Accepted, pgbench refuses (or runs nonsense).
		{"-R nan -t 2 db", `invalid rate limit: "NaN" (not a rate`},
		{"-R inf -t 2 db", `invalid rate limit: "+Inf" (not a rate`},
		{"-l --aggregate-interval 5 -T 2 db", "number of seconds for aggregation (5) must not be higher than test duration (2)"},
		{"-l --aggregate-interval 2 -T 3 db", "duration (3) must be a multiple of aggregation interval (2)"},
		{"--progress-timestamp -t 2 db", "--progress-timestamp is allowed only under --progress"},
		{"-i --tablespace= -I dt db", "--tablespace is empty"},
		{"-i --index-tablespace= db", "--index-tablespace is empty"},
		// Vague: the message spoke of --sampling-rate and --log-prefix.
		{"--aggregate-interval 1 -T 1 db", "log aggregation is allowed only when actually logging transactions: add -l"},
	}
	for _, c := range cases {
		_, err := Parse(strings.Fields(c.line), env(map[string]string{"PGUSER": "u"}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "strconv") {
			t.Errorf("%s: %v, want one line with %q", c.line, err, c.want)
			continue
		}
		if !errors.Is(err, run.ErrInput) {
			t.Errorf("%s: %v is not an input error (exit 2)", c.line, err)
		}
	}
	// What pgbench takes stays taken.
	for _, line := range []string{"-l --aggregate-interval 2 -T 4 db", "-P 1 --progress-timestamp -T 2 db", "-i --partitions 2 --partition-method HASH db"} {
		if _, err := Parse(strings.Fields(line), env(map[string]string{"PGUSER": "u"})); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}
