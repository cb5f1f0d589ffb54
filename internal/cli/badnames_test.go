package cli_test

import "testing"

// TestBadInputNamesTheFlag checks that bad values are refused in one line
// naming the flag the user typed (not the engine's field, nor Go's
// strconv), with exit code 2.
func TestBadInputNamesTheFlag(t *testing.T) {
	results := t.TempDir()
	null := []string{"--driver", "null", "--results-dir", results}
	sb := []string{"oltp_read_write", "--pgsql-host=127.0.0.1", "--pgsql-port=1"}
	u := "postgresql://u@127.0.0.1:1/x"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sysbench events", append(sb, "--events=-5", "run"), "--events -5 is negative: use 0 for no limit"},
		{"sysbench rate", append(sb, "--rate=-5", "run"), "--rate -5 is negative: use 0 for no limit"},
		{"max-ops", append([]string{"run", "ycsb", "--max-ops", "-3"}, null...), "--max-ops -3 is negative: use 0 for no limit"},
		{"max-rate", append([]string{"run", "ycsb", "--max-rate", "-3"}, null...), "--max-rate -3 is negative: use 0 for no limit"},
		{"ramp", append([]string{"run", "ycsb", "--ramp", "-3s"}, null...), "--ramp -3s is negative"},
		{"max-rate huge", append([]string{"run", "ycsb", "--max-rate", "1e20"}, null...), "--max-rate 1e+20 is more than any client reaches (1e+09 operations a second)"},
		{"sysbench rate huge", append(sb, "--rate=1e12", "run"), "--rate 1e+12 is more than any client reaches"},
		{"max-rate nan", append([]string{"run", "ycsb", "--max-rate", "nan"}, null...), "--max-rate NaN is not a rate"},
		{"cockroach max-rate out of range", []string{"workload", "run", "ycsb", "--max-rate=1e309", "postgresql://u@127.0.0.1:1/ycsb"},
			"--max-rate=1e309 is out of range for a number"},
		{"sysbench rate nan", append(sb, "--rate=NaN", "run"), `invalid value for --rate: "NaN"`},
		{"ycsb target huge", []string{"run", "ycsb", "-P", "workloads/workloadc", "-target", "100000000000", "--driver", "null"},
			"-target 100000000000 is more than any client reaches"},
		{"cockroach max-rate huge", []string{"workload", "run", "ycsb", "--max-rate", "1e12", "postgresql://u@127.0.0.1:1/ycsb"},
			"--max-rate 1e+12 is more than any client reaches"},
		{"table_size exponent", append(sb, "--table_size=1e15", "prepare"), "--table_size=1e15: give a whole number in digits, such as --table_size=1000000000000000"},
		{"table_size fraction", []string{"init", "oltp_point_select", "--table_size=1.5", "--driver", "null"}, "--table_size=1.5: give a whole number"},
		{"max-ops out of range", append([]string{"run", "ycsb", "--max-ops", "99999999999999999999"}, null...),
			"--max-ops=99999999999999999999 is too large: give a whole number of at most 9223372036854775807"},
		{"bank max-transfer past its bound", append([]string{"run", "bank", "--max-transfer", "1099511627777"}, null...),
			"--max-transfer must be at most 1099511627776 (2^40), not 1099511627777"},
		{"bank max-transfer past int64", append([]string{"run", "bank", "--max-transfer", "99999999999999999999"}, null...),
			"--max-transfer=99999999999999999999 is too large: give a whole number of at most 9223372036854775807"},
		{"seed negative", append([]string{"run", "ycsb", "--seed", "-1"}, null...), "--seed=-1 is negative: give a whole number from 0 to 18446744073709551615"},
		{"duration without unit", append([]string{"run", "ycsb", "--duration", "x"}, null...), "--duration=x: give a duration with its unit"},
		{"diff conns", []string{"diff", "--tables", "t", "--conns", "0", u, u}, "--conns 0: need at least 1 connection per side"},
		{"diff max-rows", []string{"diff", "--tables", "t", "--max-rows", "-1", u, u}, "--max-rows -1: need at least 1 differing row"},
		{"diff converge", []string{"diff", "--tables", "t", "--converge", "-5s", u, u}, "--converge -5s is negative: use 0 to compare once"},
		{"runs results store scheme", []string{"runs", "--results-url", "mysql://h/db"}, `unsupported results store URL scheme "mysql": use sqlite:PATH, postgres:// or postgresql://`},
		{"run results store scheme", append([]string{"run", "ycsb", "--results-url", "mysql://h/db"}, null...), `--results-url: unsupported results store URL scheme "mysql"`},
		{"schedule-groups negative", append([]string{"run", "ycsb", "--max-rate", "100", "--schedule-groups", "-1"}, null...),
			"--schedule-groups -1 is negative: give 0 for one schedule per worker"},
		{"schedule-groups without a rate", append([]string{"run", "ycsb", "--schedule-groups", "2"}, null...),
			"--schedule-groups shares a schedule of --max-rate: give --max-rate too"},
		{"schedule-groups with sysbench's queue", append(sb, "--rate=10", "--schedule-groups=1", "run"),
			"--schedule-groups shares a schedule of --max-rate: give --max-rate too"},
		{"schedule-groups past the workers", append([]string{"run", "ycsb", "--max-rate", "100", "--concurrency", "2", "--schedule-groups", "3"}, null...),
			"--schedule-groups 3 is more than the 2 workers (--concurrency): give at most 2"},
		{"schedule-groups past a workload's own workers", append([]string{"run", "bank", "--max-rate", "100", "--schedule-groups", "9"}, null...),
			"schedule-groups 9 is more than the 8 workers: give at most 8"},
		{"jdbc empty -p", []string{"run", "jdbc", "-p", "-p", "db.url=jdbc:postgresql://127.0.0.1:1/x", "-p", "db.user=postgres"},
			"-p is followed by -p, not by a property: give -p name=value, or leave out the empty -p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOneLineError(t, stampede(t, tc.args...), 2, tc.want)
		})
	}
}

// TestBadConnectionConfigExitsTwo checks that a bad endpoints
// configuration exits 2 (bad input) with advice whether or not a URL is
// given beside it, and whether it is found before or after connecting.
func TestBadConnectionConfigExitsTwo(t *testing.T) {
	results := t.TempDir()
	const noFile = "give --endpoints-file a readable file of endpoints, one URL per line"
	for _, tc := range []struct {
		name   string
		args   []string
		server bool
		want   string
	}{
		{"endpoints file alone", []string{"run", "ycsb", "--endpoints-file", "/nonexistent_chk"}, false, noFile},
		{"endpoints file and a URL", []string{"run", "ycsb", "--endpoints-file", "/nonexistent_chk", "postgresql://u@127.0.0.1:1/x"}, false, noFile},
		{"init endpoints file and a URL", []string{"init", "ycsb", "--endpoints-file", "/nonexistent_chk", "postgresql://u@127.0.0.1:1/x"}, false, noFile},
		{"locality keys without localities", []string{"run", "ycsb", "--locality-keys", "own", "--duration", "1s"}, true,
			"has no locality: give --locality after its URL (or ?locality= in it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] == "run" {
				args = append(args, "--results-dir", results)
			}
			if tc.server {
				db := freshDB(t, "stampede_badconf")
				if r := stampede(t, "init", "ycsb", "-p", "recordcount=100", dbURL(t, db)); r.code != 0 {
					t.Fatalf("init: %d %s", r.code, r.stderr)
				}
				args = append(args, "-p", "recordcount=100", dbURL(t, db), dbURL(t, db))
			}
			checkOneLineError(t, stampede(t, args...), 2, tc.want)
		})
	}
}
