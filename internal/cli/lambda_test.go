package cli_test

import "testing"

// TestLambdaBadInput checks that lambda's bad flags, and run flags that
// would change its own rates, are refused in one line with exit 2 before
// anything runs.
func TestLambdaBadInput(t *testing.T) {
	results := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ingest rate zero", []string{"--ingest-rate", "0"}, "--ingest-rate 0 is out of range: give a number of events a second above 0, at most 1e9"},
		{"ingest rate NaN", []string{"--ingest-rate", "nan"}, "--ingest-rate NaN is out of range: give a number of events a second above 0, at most 1e9"},
		{"ingest rate huge", []string{"--ingest-rate", "1e12"}, "--ingest-rate 1e+12 is out of range: give a number of events a second above 0, at most 1e9"},
		{"hot rate negative", []string{"--hot-rate", "-1"}, "--hot-rate -1 is out of range: give a number of hot-path queries a second above 0, at most 1e9 (or 0 to turn it off)"},
		{"serve rate infinite", []string{"--serve-rate", "inf"}, "--serve-rate +Inf is out of range: give a number of serving queries a second above 0, at most 1e9 (or 0 to turn it off)"},
		{"batch zero", []string{"--batch", "0"}, "--batch 0 is out of range: give a whole number from 1 to 1000000 events (each batch is held in memory)"},
		{"insert batch past the protocol", []string{"--ingest", "insert", "--batch", "20000"},
			"--batch 20000 with --ingest insert needs 100000 bind parameters, more than PostgreSQL's 65,535: use --batch 13107 or less, or --ingest copy"},
		{"ingest mode", []string{"--ingest", "stream"}, `--ingest must be copy or insert, not "stream"`},
		{"window zero", []string{"--window", "0s"}, "--window must be positive, such as 10s, not 0s"},
		{"window past the serving span", []string{"--window", "48h"}, "--window must be at most 24h (the serving query's span), not 48h0m0s"},
		{"batch every too short", []string{"--batch-every", "10ms"}, "--batch-every must be at least 100ms, such as 10s (or 0 for no recompute), not 10ms"},
		{"no sensors", []string{"--sensors", "0"}, "--sensors 0 is out of range: give a whole number from 1 to 2147483647"},
		{"too few workers", []string{"--concurrency", "3"}, "lambda needs --concurrency 4 or more (one or more ingest workers, and one for each path that runs: the hot path, the serving queries, the batch recompute), not 3"},
		{"too few workers for the paths that run", []string{"--serve-rate", "0", "--concurrency", "2"},
			"lambda needs --concurrency 3 or more (one or more ingest workers, and one for each path that runs: the hot path, the serving queries, the batch recompute), not 2"},
		{"ingest rate cannot be off", []string{"--ingest-rate", "0"}, "--ingest-rate 0 is out of range: give a number of events a second above 0, at most 1e9"},
		{"max-rate beside its own rates", []string{"--max-rate", "100"},
			"workload lambda schedules at its own rates (21.1 operations a second in all): give them with its flags, not --max-rate 100"},
		{"several clients", []string{"--clients", "2", "--client-index", "0"},
			"lambda runs from one client (--clients 2): its batch recompute's horizon needs every ingest worker's committed events; run it from one client with more --concurrency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "lambda", "--driver", "null", "--duration", "1s", "--results-dir", results}, tc.args...)
			checkOneLineError(t, stampede(t, args...), 2, tc.want)
		})
	}
}

// TestChurnLambdaRanges: each number flag of churn and lambda says its
// own range in one line, exit 2, both for a value too large for its type
// (the flag's range annotation, workload.SetFlagRange) and for one in
// the type's range but out of the flag's (the workload's Validate): the
// same range in both, never the type's.
func TestChurnLambdaRanges(t *testing.T) {
	results := t.TempDir()
	huge := "99999999999999999999"
	for _, tc := range []struct {
		workload string
		args     []string
		want     string
	}{
		{"churn", []string{"--max-tables", huge}, "--max-tables=" + huge + " is out of range: give a whole number from 1 to 1000000: see `stampede run churn --help`"},
		{"churn", []string{"--max-tables", "0"}, "--max-tables 0 is out of range: give a whole number from 1 to 1000000 (at least one table per loop, --concurrency)"},
		{"churn", []string{"--max-tables", "-3"}, "--max-tables -3 is out of range: give a whole number from 1 to 1000000 (at least one table per loop, --concurrency)"},
		{"churn", []string{"--max-tables", "1000001"}, "--max-tables 1000001 is out of range: give a whole number from 1 to 1000000 (at least one table per loop, --concurrency)"},
		{"lambda", []string{"--sensors", huge}, "--sensors=" + huge + " is out of range: give a whole number from 1 to 2147483647: see `stampede run lambda --help`"},
		{"lambda", []string{"--sensors", "2147483648"}, "--sensors 2147483648 is out of range: give a whole number from 1 to 2147483647"},
		{"lambda", []string{"--sensors", "-1"}, "--sensors -1 is out of range: give a whole number from 1 to 2147483647"},
		{"lambda", []string{"--batch", huge}, "--batch=" + huge + " is out of range: give a whole number from 1 to 1000000: see `stampede run lambda --help`"},
		{"lambda", []string{"--batch", "1000001"}, "--batch 1000001 is out of range: give a whole number from 1 to 1000000 events (each batch is held in memory)"},
		{"lambda", []string{"--ingest-rate", "1e400"}, "--ingest-rate=1e400 is out of range: give a number of at most 1e9: see `stampede run lambda --help`"},
		{"lambda", []string{"--ingest-rate", "-5"}, "--ingest-rate -5 is out of range: give a number of events a second above 0, at most 1e9"},
		{"lambda", []string{"--hot-rate", "1e400"}, "--hot-rate=1e400 is out of range: give a number of at most 1e9: see `stampede run lambda --help`"},
		{"lambda", []string{"--hot-rate", "2e9"}, "--hot-rate 2e+09 is out of range: give a number of hot-path queries a second above 0, at most 1e9 (or 0 to turn it off)"},
		{"lambda", []string{"--serve-rate", "1e400"}, "--serve-rate=1e400 is out of range: give a number of at most 1e9: see `stampede run lambda --help`"},
		{"lambda", []string{"--serve-rate", "1e300"}, "--serve-rate 1e+300 is out of range: give a number of serving queries a second above 0, at most 1e9 (or 0 to turn it off)"},
	} {
		t.Run(tc.workload+" "+tc.args[0]+" "+tc.args[1], func(t *testing.T) {
			args := append([]string{"run", tc.workload, "--driver", "null", "--duration", "1s", "--results-dir", results}, tc.args...)
			checkOneLineError(t, stampede(t, args...), 2, tc.want)
		})
	}
}
