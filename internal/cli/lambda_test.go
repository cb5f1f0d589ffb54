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
		{"ingest rate zero", []string{"--ingest-rate", "0"}, "--ingest-rate must be a positive number of a second, not 0"},
		{"ingest rate NaN", []string{"--ingest-rate", "nan"}, "--ingest-rate must be a positive number of a second, not NaN"},
		{"ingest rate huge", []string{"--ingest-rate", "1e12"}, "--ingest-rate 1e+12 is more than any client reaches: use at most 1e9"},
		{"hot rate negative", []string{"--hot-rate", "-1"}, "--hot-rate must be a positive number of a second, not -1 (or 0 to turn it off)"},
		{"serve rate infinite", []string{"--serve-rate", "inf"}, "--serve-rate must be a positive number of a second, not +Inf (or 0 to turn it off)"},
		{"batch zero", []string{"--batch", "0"}, "--batch must be at least 1 event, not 0"},
		{"insert batch past the protocol", []string{"--ingest", "insert", "--batch", "20000"},
			"--batch 20000 with --ingest insert needs 100000 bind parameters, more than PostgreSQL's 65,535: use --batch 13107 or less, or --ingest copy"},
		{"ingest mode", []string{"--ingest", "stream"}, `--ingest must be copy or insert, not "stream"`},
		{"window zero", []string{"--window", "0s"}, "--window must be positive, such as 10s, not 0s"},
		{"window past the serving span", []string{"--window", "48h"}, "--window must be at most 24h (the serving query's span), not 48h0m0s"},
		{"batch every too short", []string{"--batch-every", "10ms"}, "--batch-every must be at least 100ms, such as 10s (or 0 for no recompute), not 10ms"},
		{"no sensors", []string{"--sensors", "0"}, "--sensors must be between 1 and 2147483647, not 0"},
		{"too few workers", []string{"--concurrency", "3"}, "lambda needs --concurrency 4 or more (one or more ingest workers, and one for each path that runs: the hot path, the serving queries, the batch recompute), not 3"},
		{"too few workers for the paths that run", []string{"--serve-rate", "0", "--concurrency", "2"},
			"lambda needs --concurrency 3 or more (one or more ingest workers, and one for each path that runs: the hot path, the serving queries, the batch recompute), not 2"},
		{"ingest rate cannot be off", []string{"--ingest-rate", "0"}, "--ingest-rate must be a positive number of a second, not 0"},
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
