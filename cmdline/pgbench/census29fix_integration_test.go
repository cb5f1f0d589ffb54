package pgbench_test

import (
	"strings"
	"testing"
)

// TestCensus29OptionsAsPgbench: the pgbench lines census29b found
// answered in Go's words or accepted, run through both tools: real
// pgbench 15 refuses each (exit 1) with the phrase, and stampede says the
// same phrase in one line, exit 2, nothing run.
func TestCensus29OptionsAsPgbench(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	dir := t.TempDir()
	cases := []struct {
		args   []string
		phrase string // in both tools' error
	}{
		{[]string{"-c", "2x", "-t", "2"}, `invalid value "2x" for option -c/--clients`},
		{[]string{"-T", "1s"}, `invalid value "1s" for option -T/--time`},
		{[]string{"-P", "1.5", "-t", "2"}, `invalid value "1.5" for option -P/--progress`},
		{[]string{"-s", "abc", "-t", "2"}, `invalid value "abc" for option -s/--scale`},
		{[]string{"-i", "-s", "1.5"}, `invalid value "1.5" for option -s/--scale`},
		{[]string{"-i", "-F", "50.5"}, `invalid value "50.5" for option -F/--fillfactor`},
		{[]string{"-i", "--partitions=x"}, `invalid value "x" for option --partitions`},
		{[]string{"-R", "abc", "-t", "2"}, `invalid rate limit: "abc"`},
		{[]string{"-L", "abc", "-t", "2"}, `invalid latency limit: "abc"`},
		{[]string{"-n", "-l", "--aggregate-interval", "5", "-T", "2"}, "number of seconds for aggregation (5) must not be higher than test duration (2)"},
		{[]string{"-n", "-l", "--aggregate-interval", "2", "-T", "3"}, "duration (3) must be a multiple of aggregation interval (2)"},
		{[]string{"-n", "--progress-timestamp", "-t", "2"}, "--progress-timestamp is allowed only under --progress"},
		{[]string{"-n", "--aggregate-interval", "1", "-T", "1"}, "log aggregation is allowed only when actually logging transactions"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			full := append(append(append([]string{}, srv...), c.args...), db)
			_, pgErr, pgCode := run(t, true, dir, full...)
			stOut, stErr, stCode := run(t, false, dir, full...)
			if pgCode != 1 || !strings.Contains(pgErr, c.phrase) {
				t.Fatalf("pgbench: exit %d, %q: the case no longer holds", pgCode, pgErr)
			}
			if stCode != 2 || stOut != "" || strings.Count(stErr, "\n") != 1 || !strings.HasPrefix(stErr, "pgbench: error: ") || !strings.Contains(stErr, c.phrase) {
				t.Errorf("stampede: exit %d, stdout %q, stderr %q: want exit 2 and one line with %q", stCode, stOut, stErr, c.phrase)
			}
		})
	}
}
