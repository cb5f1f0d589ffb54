package cli_test

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// census28Case is one bad input of the census of issue 28 ("Tests and
// proof"): over every verb and form, typed as a new user would, with the
// exit code and a part of the one line it must answer. Its arguments hold
// placeholders for what differs between machines ({port} of the test
// server, {nlport} where nothing listens, {ycsb} and the other databases,
// {run} and {run2} saved runs): see census28Expand.
type census28Case struct {
	n      int // the census's number of the case
	family string
	args   []string
	code   int
	want   string
	// oneLine: the answer is the error line alone (warnings aside); else
	// the command started its work, printed its progress, and failed with
	// the error as its last line (clitest.FinalError).
	oneLine bool
}

func strs(s ...string) []string { return s }

// census28Dir makes the working directory the census ran in: the files its
// cases name by relative path, a results directory with two saved runs,
// an empty one and one with a corrupt index; it returns the placeholders.
func census28Dir(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	t.Setenv("STAMPEDE_RESULTS_DIR", results)
	t.Chdir(dir)
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"binary.properties":    string(self[:300]), // an ELF header, as the census's
		"empty.txt":            "",
		"bad.cfg":              "not a cfg\n",
		"badthreads.cfg":       "threads=abc\n",
		"badnum.properties":    "recordcount=abc\n",
		"neg.properties":       "operationcount=-5\nrecordcount=1000\n",
		"corrupt/index.sqlite": "garbage\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll("emptyres", 0o755); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for range 2 {
		mustRun(t, "run", "ycsb", "--driver", "null", "--duration", "200ms", "--telemetry=false")
		entries, _ := filepath.Glob(filepath.Join(results, "*-ycsb-*"))
		runs = entries
	}
	if len(runs) != 2 {
		t.Fatalf("saved runs %v, want 2", runs)
	}
	// A port where nothing listens: bound, then released.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nlport := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return map[string]string{
		"{run}": filepath.Base(runs[0]), "{run2}": filepath.Base(runs[1]), "{nlport}": nlport,
		"{corrupt}": filepath.Join(dir, "corrupt"), "{emptyres}": filepath.Join(dir, "emptyres"),
	}
}

// census28Expand replaces the placeholders of args.
func census28Expand(args []string, ph map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range ph {
			a = strings.ReplaceAll(a, k, v)
		}
		out[i] = a
	}
	return out
}

// census28Check runs the cases, each with its expected exit code and line.
func census28Check(t *testing.T, cases []census28Case, ph map[string]string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.n)+"/"+tc.family, func(t *testing.T) {
			r := stampede(t, census28Expand(tc.args, ph)...)
			want := census28Expand([]string{tc.want}, ph)[0]
			if tc.oneLine {
				checkOneLineError(t, r, tc.code, want)
			} else {
				checkFinalError(t, r, tc.code, want)
			}
			if strings.Contains(r.stdout+r.stderr, "topsecret") {
				t.Errorf("the password shows: %s%s", r.stdout, r.stderr)
			}
		})
	}
}

// TestCensus28 keeps the census's bad inputs that need no server, each
// answered in one clear line.
func TestCensus28(t *testing.T) {
	ph := census28Dir(t)
	census28Check(t, []census28Case{
		{1, "root", strs("--nope"), 2, "unknown flag: --nope: see `stampede --help`", true},
		{2, "root", strs("-x"), 2, "unknown shorthand flag: 'x' in -x: see `stampede --help`", true},
		{3, "root", strs("frobnicate"), 2, "unknown command \"frobnicate\": see `stampede --help`", true},
		{4, "root", strs("rn", "ycsb"), 2, "unknown command \"rn\": see `stampede --help`", true},
		{6, "root", strs("workloads", "extra"), 2, "unknown command \"extra\" for \"stampede workloads\": see `stampede workloads --help`", true},
		{7, "root", strs("workloads", "--nope"), 2, "unknown flag: --nope: see `stampede workloads --help`", true},
		{8, "root", strs("version", "--nope"), 2, "unknown flag: --nope: see `stampede version --help`", true},
		// The checker of issue 28 (F8.1): help of what stampede does not
		// have printed the general help, exit 0.
		{2910, "root", strs("help", "nosuch"), 2, "unknown command \"nosuch\": see `stampede --help`", true},
		{2911, "root", strs("nosuchcmd", "--help"), 2, "unknown command \"nosuchcmd\": see `stampede --help`", true},
		{2912, "run", strs("run", "nosuch", "--help"), 2, "unknown workload \"nosuch\" for `stampede run`: see `stampede workloads`", true},
		{2913, "run", strs("help", "run", "nosuch"), 2, "unknown workload \"nosuch\" for `stampede run`: see `stampede workloads`", true},
		{2914, "init", strs("init", "nosuch", "-h"), 2, "unknown workload \"nosuch\" for `stampede init`: see `stampede workloads`", true},
		// The checker's other unclear answers: one flag named for one
		// wrong value; no negative range for a count; a binary file said
		// to be one, its bytes not echoed; a bind address with a port.
		{2920, "cockroach", strs("workload", "init", "ycsb", "--insert-count", "-5", "postgresql://postgres@127.0.0.1:{nlport}?sslmode=disable"), 2, "--insert-count must not be negative, not -5", true},
		{2921, "diff", strs("diff", "--workload", "oltp_read_write --tables 99999999999999999999", "postgresql://postgres@127.0.0.1:{nlport}/a?sslmode=disable", "postgresql://postgres@127.0.0.1:{nlport}/b?sslmode=disable"), 2, "--workload oltp_read_write: --tables=99999999999999999999 is too large: give a whole number of at most 9223372036854775807", true},
		{2922, "hammerdb", strs("hammerdbcli", "auto", "binary.properties"), 2, "hammerdbcli: binary.properties is not a Tcl script (it holds bytes that are not text): give HammerDB's script, such as `stampede hammerdbcli auto SCRIPT.tcl`", true},
		{2923, "run", strs("run", "bank", "--endpoints-file", "binary.properties", "--duration", "1s", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 2, "binary.properties is not a text file (line 1 holds bytes that are not text): give a file of endpoints, one connection URL per line", true},
		{2925, "sweep", strs("sweep", "bank", "--max-rate", "10,20", "--duration", "1s", "postgresql://u:topsecret@H2x@127.0.0.1:{nlport}/x"), 2, "malformed connection URL postgresql://xxxxx@127.0.0.1:{nlport}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{2924, "genhaproxy", strs("gen", "haproxy", "--bind", "[::1]:15799", "-o", "-", "postgresql://postgres@127.0.0.1:5432/x"), 2, "gen haproxy: bind address \"[::1]:15799\" holds a port: give the address alone (--bind ::1) and the port with --port 15799", true},
		{9, "root", strs("version", "extra"), 2, "unknown command \"extra\" for \"stampede version\": see `stampede version --help`", true},
		{10, "root", strs(""), 2, "unknown command \"\": see `stampede --help`", true},
		{11, "root", strs("--help=maybe"), 2, "invalid value \"maybe\" for --help: give true or false: see `stampede --help`", true},
		{12, "root", strs("workloads", "--format", "xml"), 2, "unknown flag: --format: see `stampede workloads --help`", true},
		{13, "root", strs("runz"), 2, "unknown command \"runz\": see `stampede --help`", true},
		{14, "root", strs("init-ycsb"), 2, "unknown command \"init-ycsb\": see `stampede --help`", true},
		{16, "init", strs("init"), 2, "name a workload: `stampede init NAME [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{19, "init", strs("init", "ycsb", "--record-count", "-5", "--driver", "null"), 2, "recordcount must be at least 1, not -5 (from --record-count)", true},
		{20, "init", strs("init", "ycsb", "--record-count", "0", "--driver", "null"), 2, "recordcount must be at least 1, not 0 (from --record-count)", true},
		{21, "init", strs("init", "ycsb", "--record-count", "abc", "--driver", "null"), 2, "--record-count=abc: give a whole number: see `stampede init ycsb --help`", true},
		{22, "init", strs("init", "ycsb", "--record-count", "99999999999999999999", "--driver", "null"), 2, "--record-count=99999999999999999999 is too large: give a whole number of at most 9223372036854775807: see `stampede init ycsb --help`", true},
		{23, "init", strs("init", "ycsb", "--field-count", "0", "--driver", "null"), 2, "fieldcount must be at least 1, not 0 (from --field-count)", true},
		{24, "init", strs("init", "ycsb", "--field-count", "-1", "--driver", "null"), 2, "fieldcount must be at least 1, not -1 (from --field-count)", true},
		{25, "init", strs("init", "ycsb", "--field-length", "0", "--driver", "null"), 2, "fieldlength must be at least 1, not 0 (from --field-length)", true},
		{26, "init", strs("init", "ycsb", "--field-length-distribution", "weird", "--driver", "null"), 2, "unknown fieldlengthdistribution \"weird\" (from --field-length-distribution): use constant, uniform, zipfian or histogram", true},
		{27, "init", strs("init", "ycsb", "--insert-order", "random", "--driver", "null"), 2, "unknown insertorder \"random\" (from --insert-order): use hashed or ordered", true},
		{28, "init", strs("init", "ycsb", "--workload", "z", "--driver", "null"), 2, "unknown --workload \"z\": use a, b, c, d, e or f", true},
		{29, "init", strs("init", "ycsb", "--workload", "/nonexistent/file", "--driver", "null"), 2, "unknown --workload \"/nonexistent/file\": use a, b, c, d, e or f", true},
		{30, "init", strs("init", "ycsb", "--concurrency", "0", "--driver", "null"), 2, "--concurrency 0: need at least 1 loader", true},
		{31, "init", strs("init", "ycsb", "--concurrency", "-3", "--driver", "null"), 2, "--concurrency -3: need at least 1 loader", true},
		{32, "init", strs("init", "ycsb", "--duration", "10s", "--driver", "null"), 2, "unknown flag: --duration: see `stampede init ycsb --help`", true},
		{33, "init", strs("init", "ycsb", "--max-rate", "100", "--driver", "null"), 2, "unknown flag: --max-rate: see `stampede init ycsb --help`", true},
		{34, "init", strs("init", "ycsb", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{35, "init", strs("init", "ycsb", "notaurl"), 2, "unexpected argument \"notaurl\": URLs look like postgresql://user@host:port/db (see `stampede init ycsb --help`)", true},
		{36, "init", strs("init", "ycsb", "postgresql://127.0.0.1:99999/x"), 2, "malformed connection URL postgresql://127.0.0.1:99999/x: invalid port", true},
		{37, "init", strs("init", "ycsb", "mysql://u@h/db"), 2, "unsupported URL scheme \"mysql\" in mysql://u@h/db: use postgresql:", true},
		{45, "init", strs("init", "bank", "--rows", "0", "--driver", "null"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 0", true},
		{46, "init", strs("init", "bank", "--rows", "-1", "--driver", "null"), 2, "--rows must be at least 2 (a transfer needs two accounts), not -1", true},
		{47, "init", strs("init", "bank", "--rows", "abc", "--driver", "null"), 2, "--rows=abc: give a whole number: see `stampede init bank --help`", true},
		{48, "init", strs("init", "bank", "--initial-balance", "-5", "--driver", "null"), 2, "--initial-balance must not be negative, not -5", true},
		{49, "init", strs("init", "bank", "--payload-bytes", "-1", "--driver", "null"), 2, "--payload-bytes must not be negative, not -1", true},
		{50, "init", strs("init", "bank", "--batch-size", "0", "--driver", "null"), 2, "--batch-size must be at least 1, not 0", true},
		{51, "init", strs("init", "tpcc", "--warehouses", "0", "--driver", "null"), 2, "--warehouses must be at least 1, not 0", true},
		{52, "init", strs("init", "tpcc", "--warehouses", "-1", "--driver", "null"), 2, "--warehouses must be at least 1, not -1", true},
		{53, "init", strs("init", "tpcc", "--warehouses", "100000000", "--driver", "null"), 2, "--warehouses must be at most 1048576, not 100000000", true},
		{54, "init", strs("init", "tpcc", "--fks=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --fks: give true or false: see `stampede init tpcc --help`", true},
		{55, "init", strs("init", "oltp_read_write", "--tables", "0", "--driver", "null"), 2, "--tables=0: need at least 1 table", true},
		{56, "init", strs("init", "oltp_read_write", "--tables", "-1", "--driver", "null"), 2, "--tables=-1: need at least 1 table", true},
		{57, "init", strs("init", "oltp_read_write", "--table_size", "-1", "--driver", "null"), 2, "--table_size=-1: need at least 1 row per table", true},
		{59, "init", strs("init", "oltp_read_write", "--mysql-db=x", "--driver", "null"), 2, "unknown flag: --mysql-db: see `stampede init oltp_read_write --help`", true},
		{60, "init", strs("init", "ycsb", "--tenants", "-1", "--driver", "null"), 2, "--tenants -1: need at least 1 tenant", true},
		{61, "init", strs("init", "ycsb", "--tenants", "2", "--tenant-pattern", "noformat", "--driver", "null"), 2, "--tenant-pattern \"noformat\": the pattern must hold exactly one %d (and no other %), as in tpcc_%d", true},
		{62, "init", strs("init", "ycsb", "--tenants", "2", "--tenant-pattern", "%s", "--driver", "null"), 2, "--tenant-pattern \"%s\": the pattern must hold exactly one %d (and no other %), as in tpcc_%d", true},
		{63, "init", strs("init", "ycsb", "--tenants", "2", "--tenant-mode", "wrong", "--driver", "null"), 2, "unknown tenant mode \"wrong\": use database, schema or column", true},
		{67, "init", strs("init", "ycsb", "--conns", "-1", "--driver", "null"), 2, "--conns -1 is negative", true},
		{68, "init", strs("init", "ycsb", "--endpoints-file", "/nonexistent", "--driver", "null"), 2, "cannot read the endpoints file: open /nonexistent: no such file or directory: give --endpoints-file a readable file of endpoints, one URL per line", true},
		{71, "init", strs("init", "ycsb", "-p", "nokey", "--driver", "null"), 2, "malformed -p \"nokey\": expected key=value", true},
		{72, "init", strs("init", "ycsb", "--init-concurrency", "0", "--driver", "null"), 2, "--init-concurrency needs --tenants N (N >= 1)", true},
		{73, "init", strs("init", "ycsb", "--extra-tables", "-1", "--driver", "null"), 2, "--extra-tables needs --tenants N (N >= 1)", true},
		{75, "init", strs("init", "ycsb", "--seed", "-1", "--driver", "null"), 2, "--seed=-1 is negative: give a whole number from 0 to 18446744073709551615: see `stampede init ycsb --help`", true},
		{76, "init", strs("init", "ycsb", "--output-style", "weird", "--driver", "null"), 2, "unknown --output-style \"weird\" for init: use stampede, ycsb or pgbench", true},
		{77, "init", strs("init", "ycsb", "--analyze=perhaps", "--driver", "null"), 2, "invalid value \"perhaps\" for --analyze: give true or false: see `stampede init ycsb --help`", true},
		{84, "init", strs("init", "tpcc", "--warehouses", "1", "--active-warehouses", "5", "--driver", "null"), 2, "--active-warehouses 5 must be at most --warehouses 1", true},
		{85, "init", strs("init", "ycsb", "--tag", "a=b", "--driver", "null"), 2, "unknown flag: --tag: see `stampede init ycsb --help`", true},
		{86, "init", strs("init", "ycsb", "--clients", "2", "--driver", "null"), 2, "--clients 2 needs --client-index: give this client's share, from 0 to 1, a different one on each client", true},
		{87, "init", strs("init", "ycsb", "--record-count", "100", "--insert-count", "200", "--driver", "null"), 2, "insertstart (0) + insertcount (200) exceeds recordcount (100)", true},
		{88, "init", strs("init", "ycsb", "--insert-start", "-5", "--driver", "null"), 2, "insertstart must be at least 0, not -5 (from --insert-start)", true},
		{89, "init", strs("init", "ycsb", "--zero-padding", "-1", "--driver", "null"), 2, "zeropadding must be at least 0, not -1 (from --zero-padding)", true},
		{90, "init", strs("init", "bank", "--rows", "10", "--drop", "--force-drop=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --force-drop: give true or false: see `stampede init bank --help`", true},
		{91, "init", strs("init", "ycsb", "-P", "w/binary.properties", "--driver", "null"), 2, "cannot read property file w/binary.properties: no such file or directory", true},
		{101, "run", strs("run"), 2, "name a workload: `stampede run NAME [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{102, "run", strs("run", "ycsb", "--duration", "abc", "--driver", "null"), 2, "--duration=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede run ycsb --help`", true},
		{103, "run", strs("run", "ycsb", "--duration", "-5s", "--driver", "null"), 2, "--duration -5s is negative: use 0 for no limit or a positive duration like 60s", true},
		{106, "run", strs("run", "ycsb", "--duration", "5", "--driver", "null"), 2, "--duration=5: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede run ycsb --help`", true},
		{107, "run", strs("run", "ycsb", "--duration", "1s", "--max-rate", "-1", "--driver", "null"), 2, "--max-rate -1 is negative: use 0 for no limit", true},
		{108, "run", strs("run", "ycsb", "--duration", "1s", "--max-rate", "abc", "--driver", "null"), 2, "--max-rate=abc: give a number: see `stampede run ycsb --help`", true},
		{110, "run", strs("run", "ycsb", "--duration", "1s", "--max-rate", "1e300", "--driver", "null"), 2, "--max-rate 1e+300 is more than any client reaches (1e+09 operations a second): use a lower rate, or 0 for no limit", true},
		{111, "run", strs("run", "ycsb", "--duration", "1s", "--concurrency", "0", "--driver", "null"), 2, "--concurrency 0: need at least 1 worker", true},
		{112, "run", strs("run", "ycsb", "--duration", "1s", "--concurrency", "-1", "--driver", "null"), 2, "--concurrency -1: need at least 1 worker", true},
		{113, "run", strs("run", "ycsb", "--duration", "1s", "--concurrency", "1.5", "--driver", "null"), 2, "--concurrency=1.5: give a whole number: see `stampede run ycsb --help`", true},
		{114, "run", strs("run", "ycsb", "--duration", "1s", "--ramp", "-1s", "--driver", "null"), 2, "--ramp -1s is negative: use 0 for no ramp or a positive duration like 30s", true},
		{116, "run", strs("run", "ycsb", "--duration", "1s", "--display-every", "0", "--driver", "null"), 2, "--display-every 0s is shorter than 10ms: use 10ms or more", true},
		{117, "run", strs("run", "ycsb", "--duration", "1s", "--display-every", "-1s", "--driver", "null"), 2, "--display-every -1s is shorter than 10ms: use 10ms or more", true},
		{118, "run", strs("run", "ycsb", "--duration", "1s", "--format", "xml", "--driver", "null"), 2, "unknown --format \"xml\": use text or json", true},
		{119, "run", strs("run", "ycsb", "--duration", "1s", "--tag", "noequals", "--driver", "null"), 2, "malformed --tag \"noequals\": use key=value", true},
		{120, "run", strs("run", "ycsb", "--duration", "1s", "--tag", "=v", "--driver", "null"), 2, "malformed --tag \"=v\": use key=value", true},
		{123, "run", strs("run", "ycsb", "--duration", "1s", "--latency", "weird", "--driver", "null"), 2, "unknown --latency \"weird\": use intended, service or both", true},
		{124, "run", strs("run", "ycsb", "--duration", "1s", "--pacer", "weird", "--driver", "null"), 2, "unknown --pacer \"weird\": use precise or coarse", true},
		{125, "run", strs("run", "ycsb", "--duration", "1s", "--op-timeout", "-1s", "--driver", "null"), 2, "--op-timeout -1s is negative: use 0 for none", true},
		{126, "run", strs("run", "ycsb", "--duration", "1s", "--io-mode", "weird", "--driver", "null"), 2, "unknown --io-mode \"weird\": use auto, thread or poller", true},
		{127, "run", strs("run", "ycsb", "--duration", "1s", "--client-sched", "weird", "--driver", "null"), 2, "unknown --client-sched \"weird\": use batch or normal", true},
		{128, "run", strs("run", "ycsb", "--duration", "1s", "--gc-headroom", "abc", "--driver", "null"), 2, "bad --gc-headroom: malformed size \"abc\": give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576 (0 keeps Go's default pacing)", true},
		{129, "run", strs("run", "ycsb", "--duration", "1s", "--prometheus-port", "99999", "--driver", "null"), 2, "--prometheus-port 99999 is not a port number", true},
		{130, "run", strs("run", "ycsb", "--duration", "1s", "--prometheus-port", "-1", "--driver", "null"), 2, "--prometheus-port -1 is not a port number", true},
		{131, "run", strs("run", "ycsb", "--duration", "1s", "--prometheus-listen", "notanaddr", "--driver", "null"), 2, "--prometheus-listen \"notanaddr\": not host:port: give host:port, such as 127.0.0.1:9090 (or :9090 for every interface)", true},
		{132, "run", strs("run", "ycsb", "--duration", "1s", "--clients", "0", "--driver", "null"), 2, "--clients 0: give the number of clients of the benchmark, from 1 to 100000", true},
		{133, "run", strs("run", "ycsb", "--duration", "1s", "--clients", "2", "--client-index", "5", "--driver", "null"), 2, "--client-index 5: give this client's index, from 0 to 1 (--clients 2)", true},
		{134, "run", strs("run", "ycsb", "--duration", "1s", "--clients", "2", "--client-index", "-1", "--driver", "null"), 2, "--client-index -1: give this client's index, from 0 to 1 (--clients 2)", true},
		{135, "run", strs("run", "ycsb", "--duration", "1s", "--client-index", "1", "--driver", "null"), 2, "--client-index 1 needs --clients: give the number of clients too", true},
		{136, "run", strs("run", "ycsb", "--duration", "1s", "--start-at", "garbage", "--driver", "null"), 2, "--start-at garbage is not a time; give an RFC 3339 time (2026-11-26T07:00:00Z), Unix seconds, or next:DURATION (next:1m)", true},
		{138, "run", strs("run", "ycsb", "--duration", "1s", "--watch-process", "[", "--driver", "null"), 2, "invalid process pattern \"[\": error parsing regexp: missing closing ]: `[` (use Go regexp syntax, e.g. \"^postgres$\")", true},
		{141, "run", strs("run", "ycsb", "--duration", "1s", "--cpus", "-1", "--driver", "null"), 2, "--cpus -1: give a positive number of cores, such as 0.5", true},
		{142, "run", strs("run", "ycsb", "--duration", "1s", "--cpus", "abc", "--driver", "null"), 2, "--cpus=abc: give a number: see `stampede run ycsb --help`", true},
		{143, "run", strs("run", "ycsb", "--duration", "1s", "--memory", "abc", "--driver", "null"), 2, "--memory: malformed size \"abc\": give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{144, "run", strs("run", "ycsb", "--duration", "1s", "--memory", "-5M", "--driver", "null"), 2, "--memory: size \"-5M\" is negative: give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{145, "run", strs("run", "ycsb", "--duration", "1s", "--io-read-bps", "xyz", "--driver", "null"), 2, "--io-read-bps: malformed size \"xyz\": give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{146, "run", strs("run", "ycsb", "--duration", "1s", "--io-device", "sda", "--driver", "null"), 2, "--io-path and --io-device say which disk the IO limits apply to: give one of --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops too", true},
		{147, "run", strs("run", "ycsb", "--duration", "1s", "--io-path", "/nonexistent/path", "--driver", "null"), 2, "--io-path and --io-device say which disk the IO limits apply to: give one of --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops too", true},
		{148, "run", strs("run", "ycsb", "--duration", "1s", "--output-style", "weird", "--driver", "null"), 2, "unknown --output-style \"weird\": use stampede, sysbench, ycsb or pgbench", true},
		{149, "run", strs("run", "ycsb", "--duration", "1s", "--percentile", "101", "--driver", "null"), 2, "--percentile 101 must be in (0, 100], or 0 with --output-style sysbench", true},
		{150, "run", strs("run", "ycsb", "--duration", "1s", "--percentile", "-1", "--driver", "null"), 2, "--percentile -1 must be in (0, 100], or 0 with --output-style sysbench", true},
		{151, "run", strs("run", "ycsb", "--duration", "1s", "--read-proportion", "-0.5", "--driver", "null"), 2, "readproportion must not be negative, not -0.5 (from --read-proportion)", true},
		{152, "run", strs("run", "ycsb", "--duration", "1s", "--read-proportion", "abc", "--driver", "null"), 2, "--read-proportion=abc: give a number: see `stampede run ycsb --help`", true},
		{153, "run", strs("run", "ycsb", "--duration", "1s", "--request-distribution", "weird", "--driver", "null"), 2, "unknown requestdistribution \"weird\" (from --request-distribution): use uniform, zipfian, latest, hotspot, exponential or sequential", true},
		{154, "run", strs("run", "ycsb", "--duration", "1s", "--zipfian-constant", "-1", "--driver", "null"), 2, "zipfianconstant must be at least 0 and less than 1, not -1 (from --zipfian-constant)", true},
		{155, "run", strs("run", "ycsb", "--duration", "1s", "--max-scan-length", "0", "--driver", "null"), 2, "maxscanlength (0) is less than minscanlength (1)", true},
		{156, "run", strs("run", "ycsb", "--duration", "1s", "--min-scan-length", "10", "--max-scan-length", "5", "--driver", "null"), 2, "maxscanlength (5) is less than minscanlength (10)", true},
		{157, "run", strs("run", "ycsb", "--duration", "1s", "--hotspot-data-fraction", "2", "--driver", "null"), 2, "hotspotdatafraction must be between 0 and 1, not 2 (from --hotspot-data-fraction)", true},
		{158, "run", strs("run", "ycsb", "--duration", "1s", "--measurement-interval", "weird", "--driver", "null"), 2, "unknown measurement.interval \"weird\" (from --measurement-interval): use op, intended or both", true},
		{159, "run", strs("run", "ycsb", "--duration", "1s", "--insert-start", "-1", "--driver", "null"), 2, "insertstart must be at least 0, not -1 (from --insert-start)", true},
		{160, "run", strs("run", "ycsb", "--duration", "1s", "--scan-length-distribution", "weird", "--driver", "null"), 2, "unknown scanlengthdistribution \"weird\" (from --scan-length-distribution): use uniform or zipfian", true},
		{161, "run", strs("run", "ycsb", "--duration", "1s", "--workload", "g", "--driver", "null"), 2, "unknown --workload \"g\": use a, b, c, d, e or f", true},
		{162, "run", strs("run", "ycsb", "--duration", "1s", "-p", "recordcount=abc", "--driver", "null"), 2, "invalid recordcount \"abc\" (from -p): not an integer", true},
		{163, "run", strs("run", "ycsb", "--duration", "1s", "-p", "operationcount=-1", "--driver", "null"), 2, "operationcount must be at least 0, not -1 (from -p)", true},
		{164, "run", strs("run", "ycsb", "--duration", "1s", "-P", "nonexistent.properties", "--driver", "null"), 2, "cannot read property file nonexistent.properties: no such file or directory", true},
		{166, "run", strs("run", "ycsb", "--duration", "1s", "-P", "badnum.properties", "--driver", "null"), 2, "invalid recordcount \"abc\" (from badnum.properties:1): not an integer", true},
		{167, "run", strs("run", "ycsb", "--duration", "1s", "-P", "/tmp", "--driver", "null"), 2, "cannot read property file /tmp: is a directory", true},
		{169, "run", strs("run", "bank", "--duration", "1s", "--rows", "0", "--driver", "null"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 0", true},
		{170, "run", strs("run", "bank", "--duration", "1s", "--rows", "1", "--driver", "null"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 1", true},
		{171, "run", strs("run", "bank", "--duration", "1s", "--max-transfer", "0", "--driver", "null"), 2, "--max-transfer must be at least 1, not 0", true},
		{172, "run", strs("run", "bank", "--duration", "1s", "--max-transfer", "-1", "--driver", "null"), 2, "--max-transfer must be at least 1, not -1", true},
		{173, "run", strs("run", "bank", "--duration", "1s", "--payload-bytes", "-1", "--driver", "null"), 2, "--payload-bytes must not be negative, not -1", true},
		{174, "run", strs("run", "bank", "--duration", "1s", "--max-transfer", "9223372036854775807", "--driver", "null"), 2, "--max-transfer must be at most 1099511627776 (2^40), not 9223372036854775807: larger amounts could take balances out of BIGINT's range", true},
		{176, "run", strs("run", "tpcc", "--duration", "1s", "--mix", "weird", "--driver", "null"), 2, "--mix: \"weird\" is not name=weight", true},
		{177, "run", strs("run", "tpcc", "--duration", "1s", "--mix", "new_order=50,payment=60", "--driver", "null"), 2, "--mix: unknown transaction \"new_order\" (want newOrder, payment, orderStatus, delivery or stockLevel)", true},
		{178, "run", strs("run", "tpcc", "--duration", "1s", "--isolation", "weird", "--driver", "null"), 2, "--isolation must be read-committed, repeatable-read or serializable, not \"weird\"", true},
		{179, "run", strs("run", "tpcc", "--duration", "1s", "--active-warehouses", "5", "--warehouses", "1", "--driver", "null"), 2, "--active-warehouses 5 must be at most --warehouses 1", true},
		{181, "run", strs("run", "tpcc", "--duration", "1s", "--active-workers", "-1", "--driver", "null"), 2, "--active-workers must not be negative, not -1", true},
		{182, "run", strs("run", "tpcc", "--duration", "1s", "--warehouses", "0", "--driver", "null"), 2, "--warehouses must be at least 1, not 0", true},
		{183, "run", strs("run", "oltp_read_write", "--duration", "1s", "--point_selects", "-1", "--driver", "null"), 2, "--point_selects=-1: must not be negative", true},
		{184, "run", strs("run", "oltp_read_write", "--duration", "1s", "--rand-type", "weird", "--driver", "null"), 2, "--rand-type=weird: unknown distribution (valid: uniform, gaussian, special, pareto, zipfian)", true},
		{185, "run", strs("run", "oltp_read_write", "--duration", "1s", "--tables", "0", "--driver", "null"), 2, "--tables=0: need at least 1 table", true},
		{186, "run", strs("run", "oltp_read_write", "--duration", "1s", "--rand-pareto-h", "2", "--driver", "null"), 2, "--rand-pareto-h=2: must be between 0 and 1, exclusive", true},
		{187, "run", strs("run", "oltp_read_write", "--duration", "1s", "--rand-zipfian-exp", "-1", "--driver", "null"), 2, "--rand-zipfian-exp=-1: must be a non-negative number", true},
		{188, "run", strs("run", "oltp_read_write", "--duration", "1s", "--rand-spec-pct", "200", "--driver", "null"), 2, "--rand-spec-pct=200: must be a percentage, 0 to 100", true},
		{189, "run", strs("run", "oltp_read_write", "--duration", "1s", "--table_size", "0", "--driver", "null"), 2, "--table_size=0: need at least 1 row per table", true},
		{190, "run", strs("run", "oltp_read_write", "--duration", "1s", "--delete_inserts", "-1", "--driver", "null"), 2, "--delete_inserts=-1: must not be negative", true},
		{191, "run", strs("run", "oltp_read_write", "--duration", "1s", "--auto_inc=maybe", "--driver", "null"), 2, "invalid argument \"maybe\" for \"--auto_inc\" flag: \"maybe\" is not a boolean: use on or off: see `stampede run oltp_read_write --help`", true},
		{196, "run", strs("run", "ycsb", "--duration", "1s", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{197, "run", strs("run", "ycsb", "--duration", "1s", "--results-dir", "/proc/nope", "--driver", "null"), 2, "cannot save results in /proc/nope: the system refuses to make it (a special file system such as /proc): give --results-dir a directory you can write", true},
		{198, "run", strs("run", "ycsb", "--duration", "1s", "--results-dir", "/etc/passwd", "--driver", "null"), 2, "cannot save results in /etc/passwd: it is not a directory: give --results-dir a directory you can write", true},
		// 200 (--results-url to a store that is down) is no longer an error: the run
		// goes on in its directory and says so once (TestRunIntoStore).
		{201, "run", strs("run", "ycsb", "--duration", "1s", "--drop", "--driver", "null"), 2, "unknown flag: --drop: see `stampede run ycsb --help`", true},
		{202, "run", strs("run", "ycsb", "--duration", "1s", "--force-drop", "--driver", "null"), 2, "--force-drop applies to the drops of a run that drops tables (run churn --fresh); ycsb's run drops none: drop --force-drop", true},
		// fix28ac: churn's run drops only with --fresh.
		{2030, "run", strs("run", "churn", "--duration", "1s", "--force-drop", "--driver", "null"), 2, "--force-drop applies to --fresh only (churn's run drops nothing without it): add --fresh, or leave out --force-drop", true},
		{203, "run", strs("run", "ycsb", "--duration", "1s", "--max-ops", "-1", "--driver", "null"), 2, "--max-ops -1 is negative: use 0 for no limit", true},
		{204, "run", strs("run", "ycsb", "--duration", "1s", "--seed", "abc", "--driver", "null"), 2, "--seed=abc: give a whole number: see `stampede run ycsb --help`", true},
		{206, "run", strs("run", "ycsb", "--duration", "1s", "--active", "5", "--driver", "null"), 2, "--active needs --tenants N (N >= 1)", true},
		{207, "run", strs("run", "ycsb", "--duration", "1s", "--tenants", "2", "--pick", "weird", "--driver", "null"), 2, "unknown --pick \"weird\": use random or round-robin", true},
		{208, "run", strs("run", "ycsb", "--duration", "1s", "--tenant-duration", "1s", "--driver", "null"), 2, "--tenant-duration needs --tenants N (N >= 1)", true},
		{209, "run", strs("run", "ycsb", "--duration", "1s", "--tenants", "2", "--conns-per-tenant", "0", "--driver", "null"), 2, "--conns-per-tenant 0: need at least 1 connection", true},
		{210, "run", strs("run", "ycsb", "--duration", "1s", "--tenants", "2", "--active", "5", "--driver", "null"), 2, "--active 5 is more than --tenants 2: at most every tenant can be active", true},
		{213, "run", strs("run", "ycsb", "--duration", "1s", "--slo", "p99<10ms", "--driver", "null"), 2, "unknown flag: --slo: see `stampede run ycsb --help`", true},
		{214, "run", strs("run", "ycsb", "--duration", "1s", "--search", "--driver", "null"), 2, "unknown flag: --search: see `stampede run ycsb --help`", true},
		{215, "run", strs("run", "ycsb", "--duration", "1s", "--record-count", "0", "--driver", "null"), 2, "recordcount must be at least 1, not 0 (from --record-count)", true},
		{216, "run", strs("run", "ycsb", "--duration", "1s", "--field-count", "0", "--driver", "null"), 2, "fieldcount must be at least 1, not 0 (from --field-count)", true},
		{217, "run", strs("run", "ycsb", "--duration", "1s", "--conns", "-5", "--driver", "null"), 2, "--conns -5 is negative", true},
		{218, "run", strs("run", "ycsb", "--duration", "1s", "--endpoints-file", "empty.txt", "--driver", "null"), 2, "the endpoints file empty.txt lists no endpoint: put one connection URL per line", true},
		{219, "run", strs("run", "ycsb", "--duration", "1s", "--endpoints-file", "/nonexistent", "--driver", "null"), 2, "cannot read the endpoints file: open /nonexistent: no such file or directory: give --endpoints-file a readable file", true},
		{220, "run", strs("run", "ycsb", "--duration", "1s", "--locality", "region=", "--driver", "null"), 2, "invalid argument \"region=\" for \"--locality\" flag: malformed locality \"region=\": use KEY=VALUE tiers separated by commas, as region=east or region=us-east1,zone=a: see `stampede run ycsb --help`", true},
		{222, "run", strs("run", "ycsb", "--duration", "1s", "--locality-keys", "weird", "--driver", "null"), 2, "--locality-keys \"weird\": use shared or own", true},
		{223, "run", strs("run", "ycsb", "--duration", "1s", "--limit-pid", "-3", "--driver", "null"), 2, "--limit-process, --limit-cmdline and --limit-pid need a limit: --cpus, --memory, --io-read-bps, --io-write-bps, --io-read-iops or --io-write-iops", true},
		{224, "run", strs("run", "ycsb", "--duration", "1s", "--io-write-iops", "-5", "--driver", "null"), 2, "--io-write-iops -5: give a positive number of operations per second", true},
		{225, "run", strs("run", "ycsb", "--duration", "1s", "--telemetry=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --telemetry: give true or false: see `stampede run ycsb --help`", true},
		{226, "run", strs("run", "ycsb", "--duration", "1s", "postgresql://postgres:topsecret@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{227, "run", strs("run", "ycsb", "--duration", "1s", "--tag", "secret=topsecret", "postgresql://postgres:topsecret@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{228, "run", strs("run", "ycsb", "--duration", "1s", "--display-telemetry", "--telemetry=false", "--driver", "null"), 2, "--watch-process, --watch-cmdline, --watch-pid and --display-telemetry need --telemetry=true", true},
		{229, "run", strs("run", "ycsb", "--duration", "1s", "--histogram=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --histogram: give true or false: see `stampede run ycsb --help`", true},
		{230, "run", strs("run", "ycsb", "--duration", "1s", "--by-endpoint", "--by-locality=x", "--driver", "null"), 2, "invalid value \"x\" for --by-locality: give true or false: see `stampede run ycsb --help`", true},
		{236, "run", strs("run", "ycsb", "--duration", "1s", "--json=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --json: give true or false: see `stampede run ycsb --help`", true},
		{302, "check", strs("check"), 2, "name a workload: `stampede check NAME [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{304, "check", strs("check", "ycsb", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{323, "check", strs("check", "ycsb", "notaurl"), 2, "unexpected argument \"notaurl\": URLs look like postgresql://user@host:port/db (see `stampede check ycsb --help`)", true},
		{340, "cleanup", strs("cleanup"), 2, "name a workload: `stampede cleanup NAME [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{347, "cleanup", strs("cleanup", "ycsb", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{355, "cleanup", strs("cleanup", "ycsb", "notaurl"), 2, "unexpected argument \"notaurl\": URLs look like postgresql://user@host:port/db (see `stampede cleanup ycsb --help`)", true},
		{356, "cleanup", strs("cleanup", "ycsb", "mysql://x@y/z"), 2, "unsupported URL scheme \"mysql\" in mysql://x@y/z: use postgresql:", true},
		{370, "sweep", strs("sweep"), 2, "name a workload: `stampede sweep NAME --max-rate 1000:16000:x2 [--slo p99<=5ms] [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{372, "sweep", strs("sweep", "ycsb", "--concurrency", "1:16:x0", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"1:16:x0\": the factor \"x0\" is not a number above 1 (x2 doubles each step)", true},
		{373, "sweep", strs("sweep", "ycsb", "--concurrency", "16:1", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"16:1\": the range's end 1 is not above its start 16", true},
		{374, "sweep", strs("sweep", "ycsb", "--concurrency", "abc", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"abc\": \"abc\" is not a number; give values as 1,2,4 or a range as 1000:8000:1000, 1000:64000:x2 or 1000:64000", true},
		{375, "sweep", strs("sweep", "ycsb", "--concurrency", "0:4", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"0:4\": 0 is not positive; every step needs a value above 0", true},
		{376, "sweep", strs("sweep", "ycsb", "--concurrency", "-1,2", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"-1,2\": -1 is not positive; every step needs a value above 0", true},
		{377, "sweep", strs("sweep", "ycsb", "--concurrency", "1:4:+0", "--duration", "1s", "--driver", "null"), 2, "--concurrency \"1:4:+0\": +0 is not positive; every step needs a value above 0", true},
		{378, "sweep", strs("sweep", "ycsb", "--max-rate", "100:50", "--duration", "1s", "--driver", "null"), 2, "--max-rate \"100:50\": the range's end 50 is not above its start 100", true},
		{379, "sweep", strs("sweep", "ycsb", "--max-rate", "abc", "--duration", "1s", "--driver", "null"), 2, "--max-rate \"abc\": \"abc\" is not a number; give values as 1,2,4 or a range as 1000:8000:1000, 1000:64000:x2 or 1000:64000", true},
		{380, "sweep", strs("sweep", "ycsb", "--max-rate", "-5,10", "--duration", "1s", "--driver", "null"), 2, "--max-rate \"-5,10\": -5 is not positive; every step needs a value above 0", true},
		{381, "sweep", strs("sweep", "ycsb", "--max-rate", "100:1000", "--concurrency", "1:4", "--duration", "1s", "--driver", "null"), 2, "--concurrency 1:4 has no step: give a list (4,8) or a step (4:16:x2)", true},
		{382, "sweep", strs("sweep", "ycsb", "--duration", "1s", "--driver", "null"), 2, "give the values to sweep: --max-rate 1000:16000:x2, --concurrency 1,2,4,8 or any flag with a number, such as --cpus 0.5,1 (see `stampede sweep --help`)", true},
		{383, "sweep", strs("sweep", "ycsb", "--search", "--duration", "1s", "--driver", "null"), 2, "give the values to sweep: --max-rate 1000:16000:x2, --concurrency 1,2,4,8 or any flag with a number, such as --cpus 0.5,1 (see `stampede sweep --help`)", true},
		{384, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--duration", "1s", "--driver", "null"), 2, "--search looks for the highest --max-rate meeting an SLO: give one, as --slo 'p99<=5ms'", true},
		{385, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99<=", "--duration", "1s", "--driver", "null"), 2, "--slo term \"p99<=\": \"\" is not a positive duration with a unit (5ms, 500us, 1.5s)", true},
		{386, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99 is small", "--duration", "1s", "--driver", "null"), 2, "--slo term \"p99 is small\" has no bound: write terms such as p99<=5ms, p99.9<20ms, newOrder.p90<=5s (an operation's), errors<=0.1%, rate>=95% (of --max-rate), rate>=5000 (ops/s) or efficiency>=85% (TPC-C's), separated by commas", true},
		{387, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p101<=2ms", "--duration", "1s", "--driver", "null"), 2, "--slo term \"p101<=2ms\": unknown figure \"p101\"; write terms such as p99<=5ms, p99.9<20ms, newOrder.p90<=5s (an operation's), errors<=0.1%, rate>=95% (of --max-rate), rate>=5000 (ops/s) or efficiency>=85% (TPC-C's), separated by commas", true},
		{388, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99<=2parsecs", "--duration", "1s", "--driver", "null"), 2, "--slo term \"p99<=2parsecs\": \"2parsecs\" is not a positive duration with a unit (5ms, 500us, 1.5s)", true},
		{389, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99<=2ms", "--precision", "0", "--duration", "1s", "--driver", "null"), 2, "--precision 0: use a fraction above 0 and below 1 (0.05 for 5%)", true},
		{390, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99<=2ms", "--precision", "-1", "--duration", "1s", "--driver", "null"), 2, "--precision -1: use a fraction above 0 and below 1 (0.05 for 5%)", true},
		{391, "sweep", strs("sweep", "ycsb", "--search", "--max-rate", "100:1000", "--slo", "p99<=2ms", "--precision", "5", "--duration", "1s", "--driver", "null"), 2, "--precision 5: use a fraction above 0 and below 1 (0.05 for 5%)", true},
		{392, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--pause", "-1s", "--duration", "1s", "--driver", "null"), 2, "--pause -1s is negative: give the time to wait between steps, or 0", true},
		{394, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--precision", "0.1", "--duration", "1s", "--driver", "null"), 2, "--precision is the precision of --search: give --search, or drop it", true},
		{395, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "abc", "--driver", "null"), 2, "--duration=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede sweep ycsb --help`", true},
		{396, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--drop", "--driver", "null"), 2, "unknown flag: --drop: see `stampede sweep ycsb --help`", true},
		{397, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--clients", "2", "--client-index", "3", "--driver", "null"), 2, "--clients and --start-at: a sweep runs from one client (its steps would not start together on several)", true},
		{398, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--format", "xml", "--driver", "null"), 2, "unknown --format \"xml\": use text, json or csv (a row per step, for spreadsheets)", true},
		{399, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "step 1 (--max-rate 100): cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", false},
		{402, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--tenants", "2", "--active", "1,3", "--driver", "null"), 2, "--active 3 is more than --tenants 2: at most every tenant can be active", true},
		{403, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--keep-going=maybe", "--driver", "null"), 2, "invalid value \"maybe\" for --keep-going: give true or false: see `stampede sweep ycsb --help`", true},
		{405, "sweep", strs("sweep", "ycsb", "--max-rate", "1,,", "--duration", "1s", "--driver", "null"), 2, "--max-rate \"1,,\": \"\" is not a number; give values as 1,2,4 or a range as 1000:8000:1000, 1000:64000:x2 or 1000:64000", true},
		{406, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--tag", "bad", "--driver", "null"), 2, "malformed --tag \"bad\": use key=value", true},
		{408, "sweep", strs("sweep", "bank", "--max-rate", "100,200", "--duration", "1s", "--rows", "1", "--driver", "null"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 1", true},
		{409, "sweep", strs("sweep", "tpcc", "--max-rate", "100,200", "--duration", "1s", "--warehouses", "0", "--driver", "null"), 2, "--warehouses must be at least 1, not 0", true},
		{410, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "--ramp", "-1s", "--driver", "null"), 2, "--ramp -1s is negative: use 0 for no ramp or a positive duration like 30s", true},
		{411, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--concurrency", "1,2", "--conns", "1,2", "--duration", "1s", "--driver", "null"), 2, "--max-rate, --concurrency and --conns all hold several values: a sweep varies one flag, or two as a grid; give the others one value", true},
		{412, "sweep", strs("sweep", "ycsb", "--max-rate", "100:1000", "--concurrency", "1,2", "--search", "--slo", "p99<=5ms", "--duration", "1s", "--driver", "null"), 2, "--search varies one flag, and --max-rate and --concurrency both hold several values: give one of them a single value, or drop --search to run the grid", true},
		{413, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--checkpoint", "--duration", "1s", "--driver", "null"), 2, "--checkpoint: the null driver has no server to checkpoint; drop --checkpoint or --driver null", true},
		{414, "sweep", strs("sweep", "ycsb", "--tenants", "500", "--active", "500,750,1000", "--duration", "1s", "--driver", "null"), 2, "--active 1000 is more than --tenants 500: at most every tenant can be active", true},
		{415, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--repeat", "0", "--duration", "1s", "--driver", "null"), 2, "--repeat 0: give the runs per value, 1 or more (3 judges each value on the median of 3 runs)", true},
		{416, "sweep", strs("sweep", "ycsb", "--cpus", "0.5:2", "--search", "--slo", "p99<=5ms", "--duration", "1s", "--driver", "null"), 2, "--search over --cpus: the search assumes a higher value is a heavier load (it looks for the most that meets the SLO), which stampede cannot say of --cpus: sweep a list (--cpus 1,2,4) and read the table, or search --max-rate, --concurrency, --threads, --conns, --active, --active-warehouses, --active-workers", true},
		{421, "report", strs("report"), 2, "name the runs to report: run ids, prefixes or directories, or --tag key=value (see `stampede runs`)", true},
		{422, "report", strs("report", "nosuchrun"), 2, "run not found: no run \"nosuchrun\" under ", true},
		{424, "report", strs("report", "{run}", "--from", "abc"), 2, "--from: malformed time \"abc\": want an offset from the run's start such as 30s or 2m, or an RFC 3339 time such as 2026-11-22T10:36:00Z", true},
		{425, "report", strs("report", "{run}", "--from", "10s", "--to", "5s"), 2, "the window is empty: --from 10s is not before --to 5s; give a --to after --from", true},
		{426, "report", strs("report", "{run}", "--from", "-5s"), 2, "--from: offset \"-5s\" is negative: give a time after the run's start", true},
		{428, "report", strs("report", "{run}", "--format", "xml"), 2, "unknown --format \"xml\": use text or json", true},
		{429, "report", strs("report", "{run}", "--chart", "out.txt"), 2, "--chart out.txt: use .svg, .png or .html", true},
		{430, "report", strs("report", "{run}", "--chart", "/nonexistent-dir/x.svg"), 2, "--chart /nonexistent-dir/x.svg: directory /nonexistent-dir does not exist: create it, or write the chart elsewhere", true},
		{431, "report", strs("report", "{run}", "--tag", "noeq"), 2, "malformed --tag \"noeq\": use key=value", true},
		{432, "report", strs("report", "--tag", "job=nosuchjob"), 2, "no run under ", true},
		{433, "report", strs("report", "{run}", "--by-locality=maybe"), 2, "invalid value \"maybe\" for --by-locality: give true or false: see `stampede report --help`", true},
		{434, "report", strs("report", "{run}", "--results-dir", "/nonexistent/runs"), 2, "run not found: no run \"{run}\" under /nonexistent/runs", true},
		{435, "report", strs("report", "{run}", "--results-dir", "{corrupt}"), 2, "run not found: no run \"{run}\" under {corrupt}", true},
		{436, "report", strs("report", "/etc/passwd"), 2, "not a stampede run directory: /etc/passwd (not a directory)", true},
		{437, "report", strs("report", "empty.txt"), 2, "run not found: no run \"empty.txt\" under ", true},
		{438, "report", strs("report", "{run}", "--duration", "5s"), 2, "unknown flag: --duration: see `stampede report --help`", true},
		{439, "report", strs("report", "{run}", "--max-rate", "5"), 2, "unknown flag: --max-rate: see `stampede report --help`", true},
		{443, "report", strs("report", "{run}", "--include-ramp=maybe"), 2, "invalid value \"maybe\" for --include-ramp: give true or false: see `stampede report --help`", true},
		{444, "report", strs("report", "{run}", "{run}"), 2, "run {run} is given twice ({run} and {run}): each run counts once", true},
		{447, "report", strs("report", "{run}", "--tag", "job="), 2, "no run under ", true},
		{448, "report", strs("report", "{run}", "--format", "json", "--chart", "c.xyz"), 2, "--chart c.xyz: use .svg, .png or .html", true},
		{449, "report", strs("report", ""), 2, "run not found: empty run reference", true},
		{450, "report", strs("report", "--results-dir", "{emptyres}"), 2, "name the runs to report: run ids, prefixes or directories, or --tag key=value (see `stampede runs`)", true},
		{451, "runs", strs("runs", "extra"), 2, "unknown command \"extra\" for \"stampede runs\": see `stampede runs --help`", true},
		{452, "runs", strs("runs", "--limit", "-1"), 2, "--limit -1 is negative", true},
		{453, "runs", strs("runs", "--limit", "abc"), 2, "--limit=abc: give a whole number: see `stampede runs --help`", true},
		{454, "runs", strs("runs", "--format", "xml"), 2, "unknown --format \"xml\": use text or json", true},
		{455, "runs", strs("runs", "--since", "garbage"), 2, "--since: malformed time \"garbage\": want an RFC 3339 time or date (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (24h)", true},
		{456, "runs", strs("runs", "--until", "garbage"), 2, "--until: malformed time \"garbage\": want an RFC 3339 time or date (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (24h)", true},
		{458, "runs", strs("runs", "--tag", "noeq"), 2, "malformed --tag \"noeq\": use key=value", true},
		{459, "runs", strs("runs", "--tag", "=x"), 2, "malformed --tag \"=x\": use key=value", true},
		{460, "runs", strs("runs", "--results-dir", "/nonexistent/runs2"), 2, "results directory /nonexistent/runs2 does not exist: name the directory runs were saved in (run --results-dir), or leave --results-dir out for ~/.stampede/runs", true},
		{463, "runs", strs("runs", "--results-url", "mysql://x"), 2, "unsupported results store URL scheme \"mysql\": use sqlite:PATH, postgres:// or postgresql://", true},
		{465, "runs", strs("runs", "--results-url", "postgresql://postgres@127.0.0.1:{nlport}/r?sslmode=disable"), 1, "cannot reach the results store postgresql://postgres@127.0.0.1:{nlport}/r?sslmode=disable: connection refused; is the server running and listening there? check host and port; or omit --results-url", true},
		{466, "runs", strs("runs", "--results-url", "postgresql://postgres:Pw@topsecret@127.0.0.1:{nlport}/r"), 2, "malformed results store URL postgresql://xxxxx@127.0.0.1:{nlport}/r: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{468, "runs", strs("runs", "--duration", "5s"), 2, "unknown flag: --duration: see `stampede runs --help`", true},
		{469, "runs", strs("runs", "--rebuild=maybe"), 2, "invalid value \"maybe\" for --rebuild: give true or false: see `stampede runs --help`", true},
		{470, "runs", strs("runs", "--since", "-5h"), 2, "--since: duration \"-5h\" is negative: give how long ago", true},
		{471, "runs", strs("runs", "--since", "1h", "--until", "2h"), 2, "--since 1h is not before --until 2h: no run can start in that window; swap them", true},
		{472, "runs", strs("runs", "--limit", "99999999999999999999"), 2, "--limit=99999999999999999999 is too large: give a whole number of at most 9223372036854775807: see `stampede runs --help`", true},
		{473, "runs", strs("runs", "--results-dir", "/etc/passwd"), 2, "results directory /etc/passwd is not a directory: name the directory runs were saved in (run --results-dir)", true},
		{475, "runs", strs("runs", "{run}"), 2, "unknown command \"{run}\" for \"stampede runs\": see `stampede runs --help`", true},
		{476, "compare", strs("compare"), 2, "name two sides to compare: two runs (A B), two groups of runs (A1,A2,... B1,B2,...) or --a-tag/--b-tag key=value", true},
		{477, "compare", strs("compare", "{run}"), 2, "name two sides to compare: two runs (A B), two groups of runs (A1,A2,... B1,B2,...) or --a-tag/--b-tag key=value", true},
		{478, "compare", strs("compare", "{run}", "nosuchrun"), 2, "run not found: no run \"nosuchrun\" under ", true},
		{479, "compare", strs("compare", "nosuch1", "nosuch2"), 2, "run not found: no run \"nosuch1\" under ", true},
		{480, "compare", strs("compare", "{run}", "{run2}", "extra"), 2, "`stampede compare` takes at most 2 arguments, not 3", true},
		{482, "compare", strs("compare", "{run}", "{run2}", "--format", "xml"), 2, "unknown --format \"xml\": use text or json", true},
		{483, "compare", strs("compare", "{run}", "{run2}", "--chart", "x.txt"), 2, "--chart x.txt: use .svg, .png or .html", true},
		{484, "compare", strs("compare", "{run}", "{run2}", "--chart", "/nonexistent-dir/y.svg"), 2, "--chart /nonexistent-dir/y.svg: directory /nonexistent-dir does not exist: create it, or write the chart elsewhere", true},
		{485, "compare", strs("compare", "{run}", "{run2}", "--results-dir", "/nonexistent/r3"), 2, "run not found: no run \"{run}\" under /nonexistent/r3", true},
		{486, "compare", strs("compare", "{run}", "{run2}", "--from", "5s"), 2, "unknown flag: --from: see `stampede compare --help`", true},
		{487, "compare", strs("compare", "{run}", "{run2}", "--tag", "a=b"), 2, "unknown flag: --tag: see `stampede compare --help`", true},
		{488, "compare", strs("compare", "{run}", "{run2}", "--by-endpoint=maybe"), 2, "invalid value \"maybe\" for --by-endpoint: give true or false: see `stampede compare --help`", true},
		{489, "compare", strs("compare", "/etc/passwd", "{run}"), 2, "not a stampede run directory: /etc/passwd (not a directory)", true},
		{490, "compare", strs("compare", "{run}", ""), 2, "run not found: empty run reference", true},
		{491, "compare", strs("compare", "{run}", "{run2}", "--results-dir", "{corrupt}"), 2, "run not found: no run \"{run}\" under {corrupt}", true},
		{500, "demo", strs("demo", "--duration", "abc"), 2, "--duration=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede demo --help`", true},
		{501, "demo", strs("demo", "--records", "abc"), 2, "--records=abc: give a whole number: see `stampede demo --help`", true},
		{502, "demo", strs("demo", "--client-sched", "weird"), 2, "unknown --client-sched \"weird\": use batch or normal", true},
		{504, "demo", strs("demo", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{505, "demo", strs("demo", "notaurl"), 2, "malformed connection URL \"notaurl\": expected postgresql://user@host:port/db or key=value pairs", true},
		{508, "demo", strs("demo", "--workload", "b"), 2, "unknown flag: --workload: see `stampede demo --help`", true},
		{509, "demo", strs("demo", "--max-rate", "5"), 2, "unknown flag: --max-rate: see `stampede demo --help`", true},
		{510, "demo", strs("demo", "--records", "99999999999999999999"), 2, "--records=99999999999999999999 is too large: give a whole number of at most 9223372036854775807: see `stampede demo --help`", true},
		{513, "demo", strs("demo", "--keep=maybe"), 2, "invalid value \"maybe\" for --keep: give true or false: see `stampede demo --help`", true},
		{514, "limit", strs("limit"), 2, "say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS", true},
		{515, "limit", strs("limit", "--cpus", "-1", "--", "true"), 2, "--cpus -1: give a positive number of cores, such as 0.5", true},
		{516, "limit", strs("limit", "--cpus", "abc", "--", "true"), 2, "--cpus=abc: give a number: see `stampede limit --help`", true},
		{517, "limit", strs("limit", "--cpus", "0", "--", "true"), 2, "--cpus 0: give a positive number of cores, such as 0.5", true},
		{518, "limit", strs("limit", "--memory", "abc", "--", "true"), 2, "--memory: malformed size \"abc\": give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{519, "limit", strs("limit", "--memory", "-1G", "--", "true"), 2, "--memory: size \"-1G\" is negative: give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{520, "limit", strs("limit", "--io-read-bps", "xyz", "--io-path", "/", "--", "true"), 2, "--io-read-bps: malformed size \"xyz\": give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576", true},
		{521, "limit", strs("limit", "--io-read-bps", "5M", "--", "true"), 2, "an IO limit needs a disk: give --io-path (a path on it, such as the data directory) or --io-device MAJ:MIN", true},
		{522, "limit", strs("limit", "--io-device", "999:999", "--io-read-bps", "5M", "--", "true"), 2, "--io-device: block device 999:999 does not exist (no /sys/dev/block/999:999): give MAJ:MIN of a disk from lsblk, or a path on it", true},
		{523, "limit", strs("limit", "--io-path", "/nonexistent/x", "--io-read-bps", "5M", "--", "true"), 2, "--io-path: /nonexistent/x does not exist: give a data directory, a file, a /dev node or MAJ:MIN of a disk", true},
		{524, "limit", strs("limit", "--io-read-iops", "-5", "--io-path", "/", "--", "true"), 2, "--io-read-iops -5: give a positive number of operations per second", true},
		{525, "limit", strs("limit", "--pid", "-1", "--cpus", "1"), 2, "--pid -1 is not a process ID", true},
		{527, "limit", strs("limit", "--pid", "abc", "--cpus", "1"), 2, "invalid argument \"abc\" for \"--pid\" flag: strconv.Atoi: parsing \"abc\": invalid syntax: see `stampede limit --help`", true},
		{528, "limit", strs("limit", "--watch", "[", "--cpus", "1"), 2, "malformed --watch regular expression \"[\": error parsing regexp: missing closing ]: `[` (use Go regexp syntax, e.g. \"^postgres$\")", true},
		{529, "limit", strs("limit", "--watch-cmdline", "(", "--cpus", "1"), 2, "malformed --watch-cmdline regular expression \"(\": error parsing regexp: missing closing ): `(` (use Go regexp syntax, e.g. \"^postgres$\")", true},
		{531, "limit", strs("limit", "--remove", ""), 2, "--remove needs the name of the group to remove: `stampede limit --remove NAME` (see `stampede limit --help`)", true},
		{532, "limit", strs("limit", "--name", "a/b", "--cpus", "1", "--", "true"), 2, "invalid group name \"a/b\": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", true},
		{533, "limit", strs("limit", "--name", "../x", "--cpus", "1", "--", "true"), 2, "invalid group name \"../x\": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", true},
		{535, "limit", strs("limit", "--cpus", "1"), 2, "say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS", true},
		{536, "limit", strs("limit", "--duration", "5s", "--cpus", "1", "--", "true"), 2, "--duration bounds --watch and --watch-cmdline only", true},
		{537, "limit", strs("limit", "--duration", "-1s", "--watch", "x", "--cpus", "1"), 2, "--duration -1s is negative", true},
		{538, "limit", strs("limit", "--keep", "--pid", "1", "--cpus", "1", "--watch", "x"), 2, "say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS", true},
		{539, "limit", strs("limit", "--cpus", "1", "--pid", "1", "--", "true"), 2, "say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS", true},
		{540, "limit", strs("limit", "--remove", "x", "--cpus", "1"), 2, "--remove takes no other flags or command (got --cpus): see `stampede limit --help`", true},
		{541, "limit", strs("limit", "--watch", "x"), 2, "no limit given: give at least one of --cpus, --memory, --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops", true},
		{543, "limit", strs("limit", "nosuchcmd"), 2, "unexpected argument \"nosuchcmd\": put the command after --, as in `stampede limit --name NAME --cpus 0.5 -- COMMAND ARGS`", true},
		{545, "fleet", strs("fleet", "nosuch"), 2, "unknown command \"nosuch\" for \"stampede fleet\": see `stampede fleet --help`", true},
		{546, "fleet", strs("fleet", "exec"), 2, "give the statement to apply: `stampede fleet exec --workload NAME --tenants N 'ALTER TABLE ...' [URL...]`", true},
		{553, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "SELECT 1", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"postgres\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{564, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "SELECT 1", "notaurl"), 2, "unexpected argument \"notaurl\": give one statement, then URLs (quote the statement)", true},
		{601, "diff", strs("diff"), 2, "`stampede diff` takes exactly 2 arguments, not 0", true},
		{630, "genhaproxy", strs("gen", "nosuch"), 2, "unknown generator \"nosuch\": use `stampede gen haproxy` or `stampede gen k8s`", true},
		{631, "genhaproxy", strs("gen", "haproxy"), 2, "gen haproxy: no URL: give the nodes' connection URLs, e.g. postgresql://postgres@10.0.0.1:5432 postgresql://postgres@10.0.0.2:5432", true},
		{632, "genhaproxy", strs("gen", "haproxy", "notaurl", "-o", "-"), 2, "gen haproxy: malformed connection URL \"notaurl\": expected postgresql://user@host:port/db or key=value pairs", true},
		{650, "genhaproxy", strs("gen", "haproxy", "mysql://x@y/z", "-o", "-"), 2, "gen haproxy: unsupported URL scheme \"mysql\" in mysql://x@y/z: use postgresql:", true},
		{656, "genhaproxy", strs("gen", "haproxy", "postgresql://h1:5432,h2:notaport/db", "-o", "-"), 2, "gen haproxy: malformed connection URL postgresql://h1:5432,h2:notaport/db: invalid port", true},
		{661, "genk8s", strs("gen", "k8s"), 2, "gen k8s: give each client's command line after --, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`", true},
		{666, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-"), 2, "gen k8s: give each client's command line after --, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`", true},
		{682, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "run", "ycsb", "postgresql://postgres:topsecret@h/db"), 2, "gen k8s: the clients' command line holds a password, which is never written into a manifest: give the URL without it, store it in a Secret and give --password-secret NAME; the Secret is made with kubectl create secret generic NAME --from-literal=password=PASSWORD", true},
		{687, "proxy", strs("proxy"), 2, "proxy: no --listen: give --listen ADDR --to ADDR, or --listen ADDR=UPSTREAM", true},
		{688, "proxy", strs("proxy", "--listen", "127.0.0.1:6101"), 2, "proxy: --listen 127.0.0.1:6101: say where to forward: --to HOST:PORT, or --listen 127.0.0.1:6101=HOST:PORT", true},
		{689, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "notanaddr"), 2, "proxy: upstream \"notanaddr\": give host:port, e.g. 127.0.0.1:6001", true},
		{715, "proxy", strs("proxy", "--listen", "6101="), 2, "proxy: upstream \"\": give host:port, e.g. 127.0.0.1:6001", true},
		{717, "proxyset", strs("proxy", "set"), 2, "`stampede proxy set` takes exactly 1 argument, not 0", true},
		{720, "proxyset", strs("proxy", "set", "east", "--latency", "5ms", "--api", "127.0.0.1:1x"), 2, "proxy set: --api: API address \"127.0.0.1:1x\": port \"1x\" is not a port (1-65535): give host:port, e.g. 127.0.0.1:8474", true},
		{721, "proxyset", strs("proxy", "set", "east", "--latency", "abc"), 2, "invalid argument \"abc\" for \"--latency\" flag: not a duration (use e.g. 30ms or 2s): see `stampede proxy set --help`", true},
		{723, "proxyset", strs("proxy", "set", "east", "--bandwidth", "abc"), 2, "invalid argument \"abc\" for \"--bandwidth\" flag: not a rate (use e.g. 500KB/s or 10MB/s): see `stampede proxy set --help`", true},
		{724, "proxyset", strs("proxy", "set", "east", "west", "--latency", "5ms"), 2, "`stampede proxy set` takes exactly 1 argument, not 2", true},
		{725, "proxyset", strs("proxy", "set", "east", "--replace=maybe"), 2, "invalid value \"maybe\" for --replace: give true or false: see `stampede proxy set --help`", true},
		{726, "proxyset", strs("proxy", "set", "east", "--listen", "127.0.0.1:1", "--latency", "5ms"), 2, "unknown flag: --listen: see `stampede proxy set --help`", true},
		{727, "proxyset", strs("proxy", "set", "--latency", "5ms"), 2, "`stampede proxy set` takes exactly 1 argument, not 0", true},
		{729, "proxyset", strs("proxy", "set", "east", "--api", "garbage", "--latency", "5ms"), 2, "proxy set: --api: API address \"garbage\": give host:port, e.g. 127.0.0.1:8474", true},
		{820, "sysbench", strs("oltp_read_write", "--db-driver=mysql", "--time=1", "run"), 2, "unsupported --db-driver \"mysql\": stampede speaks PostgreSQL's protocol only (PostgreSQL, CockroachDB, YugabyteDB...): use --db-driver=pgsql", true},
		{821, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={nlport}", "--time=1", "run"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"sbtest\", user \"sbtest\"): connection refused; is the server running and listening there? check host and port", true},
		{822, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=abc", "--time=1", "run"), 2, "invalid value for --pgsql-port: \"abc\" (a whole number)", true},
		{867, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=notajdbcurl", "-p", "db.user=postgres"), 2, "db.url \"notajdbcurl\" is not a JDBC URL: use jdbc:postgresql://HOST:PORT/DB (from -p)", true},
		{868, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:mysql://127.0.0.1/x", "-p", "db.user=postgres"), 2, "db.url \"jdbc:mysql://127.0.0.1/x\" is for JDBC's mysql driver: stampede speaks PostgreSQL's wire protocol only (jdbc:postgresql://HOST:PORT/DB) (from -p)", true},
		{869, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{nlport}/x", "-p", "db.user=postgres", "-p", "maxexecutiontime=1"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{874, "ycsbform", strs("run", "jdbc", "-P"), 2, "-P needs a value", true},
		// The checker of issue 28 (F4.1): a db.url with user information
		// printed its password, with an IPv6 hint.
		{2901, "ycsbform", strs("run", "jdbc", "-p", "db.url=jdbc:postgresql://postgres:topsecret@127.0.0.1:{nlport}/x"), 2, "db.url \"jdbc:postgresql://xxxxx@127.0.0.1:{nlport}/x\" holds a user or password before '@', which PostgreSQL's JDBC driver (and so YCSB's JDBC binding) does not read: give them as -p db.user=USER -p db.passwd=PASSWORD, or as the URL's parameters (jdbc:postgresql://HOST:PORT/DB?user=USER&password=PASSWORD) (from -p)", true},
		{2902, "ycsbform", strs("run", "jdbc", "-p", "db.url=jdbc:mysql://u:topsecret@127.0.0.1/x"), 2, "db.url \"jdbc:mysql://xxxxx@127.0.0.1/x\" is for JDBC's mysql driver", true},
		{898, "cockroach", strs("workload"), 2, "name what to do: `stampede workload init|run|check WORKLOAD [flags] [URL...]` (workloads: bank, tpcc, ycsb)", true},
		{900, "cockroach", strs("workload", "run"), 2, "name the workload: `stampede workload run WORKLOAD [flags] [URL...]` (workloads: bank, tpcc, ycsb)", true},
		{1006, "cockroach", strs("workload", "run", "ycsb", "--duration=1s", "postgresql://postgres@127.0.0.1:{nlport}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"ycsb\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{1017, "cockroach", strs("workload", "check", "ycsb", "postgresql://postgres@127.0.0.1:{nlport}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"ycsb\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{1018, "cockroach", strs("workload", "run", "ycsb", "--password=topsecret", "--duration=1s", "postgresql://postgres@127.0.0.1:{nlport}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"ycsb\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		// The census's 718 and 719 asked the default API address; here one where nothing listens.
		{718, "proxyset", strs("proxy", "set", "east", "--api", "127.0.0.1:{nlport}"), 1, "proxy set: no proxy API answers at 127.0.0.1:{nlport} (connection refused): start `stampede proxy` first, or give --api the address its --api listens on", true},
		{719, "proxyset", strs("proxy", "set", "east", "--latency", "5ms", "--api", "127.0.0.1:{nlport}"), 1, "proxy set: no proxy API answers at 127.0.0.1:{nlport} (connection refused)", true},
		// Left over by the census: config files sysbench 1.0.20 reads
		// without a word (it skips a line without '='), and the flag
		// that named the database.
		{2801, "sysbench", strs("oltp_read_write", "--config-file=bad.cfg", "--time=1", "run", "postgresql://postgres@127.0.0.1:{nlport}/x"), 2, "--config-file bad.cfg, line 1: \"not a cfg\" is not NAME=VALUE (sysbench 1.0.20 skips such a line without a word): write it as NAME=VALUE, or start it with # to keep it as a comment", true},
		{2802, "sysbench", strs("oltp_read_write", "--config-file=binary.properties", "--time=1", "run", "postgresql://postgres@127.0.0.1:{nlport}/x"), 2, "--config-file binary.properties is not a text file (line 1 holds bytes that are not text): give a file of NAME=VALUE lines", true},
		{2803, "sysbench", strs("oltp_read_write", "--pgsql-db=census_sb", "--time=1", "run", "postgresql://postgres@127.0.0.1:{nlport}/x"), 2, "--pgsql-db census_sb and database \"x\", which postgresql://postgres@127.0.0.1:{nlport}/x names, disagree: give one of them", true},
		{2804, "sysbench", strs("oltp_read_write", "--pgsql_db=census_sb", "--time=1", "run", "postgresql://postgres@127.0.0.1:{nlport}/x"), 2, "--pgsql-db census_sb and database \"x\"", true},
		{2805, "run", strs("run", "oltp_read_write", "--db=census_sb", "--duration=1s", "postgresql://postgres@127.0.0.1:{nlport}/x"), 2, "--db census_sb and database \"x\", which postgresql://postgres@127.0.0.1:{nlport}/x names, disagree: give one of them", true},
		// A fault's own value is checked before the API is asked (the
		// census's note: a connection error instead of the bad value);
		// jitter against latency needs the listener's, from the API.
		{1101, "proxyset", strs("proxy", "set", "east", "--reset-fraction", "5", "--api", "127.0.0.1:{nlport}"), 2, "invalid argument \"5\" for \"--reset-fraction\" flag: reset-fraction 5: must be between 0 and 1: see `stampede proxy set --help`", true},
		{1102, "proxyset", strs("proxy", "set", "east", "--jitter", "-1ms", "--api", "127.0.0.1:{nlport}"), 2, "invalid argument \"-1ms\" for \"--jitter\" flag: jitter -1ms: must not be negative: see `stampede proxy set --help`", true},
		{1103, "proxyset", strs("proxy", "set", "east", "--latency", "1500us", "--api", "127.0.0.1:{nlport}"), 2, "invalid argument \"1500us\" for \"--latency\" flag: latency 1.5ms: whole milliseconds only (toxiproxy's unit)", true},
		{1104, "proxyset", strs("proxy", "set", "east", "--jitter", "3ms", "--api", "127.0.0.1:{nlport}"), 1, "proxy set: no proxy API answers at 127.0.0.1:{nlport} (connection refused)", true},
		// A reset fraction of 0 resets no connection, which --reset
		// contradicts (and the field's 0 means all): refused.
		{1105, "proxyset", strs("proxy", "set", "east", "--reset-fraction", "0", "--api", "127.0.0.1:{nlport}"), 2, "invalid argument \"0\" for \"--reset-fraction\" flag: a fraction of 0 would reset no connection: give one above 0 and up to 1 (e.g. 0.1 for 10% of connections), or leave --reset out (--reset=false) to reset none", true},
		{1106, "proxy", strs("proxy", "--listen", "203.0.113.1:6101", "--to", "127.0.0.1:1", "--reset", "--reset-fraction", "0"), 2, "invalid argument \"0\" for \"--reset-fraction\" flag: a fraction of 0 would reset no connection", true},
		{1107, "proxy", strs("proxy", "--listen", "203.0.113.1:6101=127.0.0.1:1,reset-fraction=0"), 2, "proxy: --listen \"203.0.113.1:6101=127.0.0.1:1,reset-fraction=0\": reset-fraction=0: a fraction of 0 would reset no connection", true},
	}, ph)
}

// TestCensus28Server keeps the census's bad inputs that need a server:
// loaded data sets of every workload, a database holding a user's own
// tables named as stampede's (usertable, bank, sbtest1, customer, item),
// an empty database, and two databases a --tenant-pattern matches that
// stampede did not make (one with a user's bank). After the cases, every
// row of the user's own tables is still there.
func TestCensus28Server(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	if u.User.Username() != "postgres" || u.Hostname() != "127.0.0.1" || u.Query().Get("sslmode") != "disable" {
		t.Skipf("the census's cases connect as postgres to 127.0.0.1 with sslmode=disable, not as %s", srv)
	}
	ph := census28Dir(t)
	ph["{port}"] = u.Port()
	for _, w := range []string{"ycsb", "bank", "tpcc", "sb", "own", "empty"} {
		db := freshDB(t, "census28_"+w)
		adminExec(t, "CREATE DATABASE "+db)
		ph["{"+w+"}"] = db
	}
	dbu := func(w string) string { return dbURL(t, ph["{"+w+"}"]) }
	mustRun(t, "init", "ycsb", "--record-count", "1000", dbu("ycsb"))
	mustRun(t, "init", "bank", "--rows", "100", dbu("bank"))
	mustRun(t, "init", "oltp_read_write", "--table_size", "1000", dbu("sb"))
	mustRun(t, "init", "tpcc", "--warehouses", "1", dbu("tpcc"))
	own := ph["{own}"]
	execIn(t, own, "CREATE TABLE usertable (ycsb_key TEXT PRIMARY KEY, field0 TEXT)", "INSERT INTO usertable VALUES ('mine', 'precious')",
		"CREATE TABLE bank (id INT PRIMARY KEY, balance INT)", "INSERT INTO bank VALUES (1, 100)",
		"CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT, c TEXT, pad TEXT)", "INSERT INTO sbtest1 VALUES (1, 1, 'x', 'y')",
		"CREATE TABLE customer (c_id INT PRIMARY KEY)", "INSERT INTO customer VALUES (1)",
		"CREATE TABLE item (i_id INT PRIMARY KEY)", "INSERT INTO item VALUES (1)")
	// Two databases that --tenant-pattern {ipat} matches, not stampede's.
	prefix := freshDB(t, "census28i") + "_"
	ph["{ipat}"], ph["{i1}"], ph["{i2}"] = prefix+"%d", prefix+"1", prefix+"2"
	for _, id := range []string{"1", "2"} {
		name := prefix + id
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
		adminExec(t, "CREATE DATABASE "+name)
	}
	execIn(t, prefix+"1", "CREATE TABLE bank (id INT PRIMARY KEY, balance INT)", "INSERT INTO bank VALUES (1, 100)")
	census28Check(t, []census28Case{
		{17, "init", strs("init", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown workload \"nosuch\": see `stampede workloads` (available: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{18, "init", strs("init", "ycsbb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown workload \"ycsbb\": see `stampede workloads` (available: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{38, "init", strs("init", "ycsb", "postgresql://postgres:Pw@topsecret@127.0.0.1:{port}/x"), 2, "malformed connection URL postgresql://xxxxx@127.0.0.1:{port}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{39, "init", strs("init", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "foo"), 2, "unexpected argument \"foo\": URLs look like postgresql://user@host:port/db (see `stampede init ycsb --help`)", true},
		{40, "init", strs("init", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table usertable already exists in database \"{own}\" and stampede did not make it, and init does not load into it (its columns are (field0 text, ycsb_key text), not ycsb's (ycsb_key, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9, of character types)): load into another database (--db NAME), or to drop it anyway, add --force-drop", true},
		{41, "init", strs("init", "ycsb", "--drop", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table usertable in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop", true},
		{42, "init", strs("init", "bank", "--drop", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table bank in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop", true},
		{43, "init", strs("init", "oltp_read_write", "--drop", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table sbtest1 in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop", true},
		{44, "init", strs("init", "tpcc", "--drop", "--warehouses", "1", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "tables item, customer in database \"{own}\" on 127.0.0.1:{port} were not made by stampede (no mark of stampede's init on them, which every table stampede's init makes carries): --drop leaves them alone; to drop them anyway, add --force-drop", true},
		{69, "init", strs("init", "ycsb", "--locality", "garbage", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "invalid argument \"garbage\" for \"--locality\" flag: malformed locality \"garbage\": use KEY=VALUE tiers separated by commas, as region=east or region=us-east1,zone=a: see `stampede init ycsb --help`", true},
		{74, "init", strs("init", "ycsb", "--driver", "mysql", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --driver \"mysql\": use postgres or null", true},
		{79, "init", strs("init", "ycsb", "postgresql://nosuchuser@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{port} (database \"{ycsb}\", user \"nosuchuser\"): role \"nosuchuser\" does not exist (SQLSTATE 28000); check the user name and password", true},
		{80, "init", strs("init", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=bogus"), 2, "malformed connection URL postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=bogus: failed to configure TLS: sslmode is invalid", true},
		{175, "run", strs("run", "tpcc", "--duration", "1s", "--warehouses", "3", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "database {tpcc} holds 1 warehouse, not --warehouses 3: give --warehouses 1, or reload with `stampede init tpcc --drop --warehouses 3 'postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable'`", true},
		{192, "run", strs("run", "ycsb", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable"), 1, "table usertable does not exist in database {empty}: run `stampede init ycsb 'postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable'` first", true},
		{193, "run", strs("run", "bank", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "table bank does not exist in database {ycsb}: run `stampede init bank 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'` first", true},
		{194, "run", strs("run", "oltp_read_write", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "table sbtest1 does not exist in database \"{ycsb}\": run `stampede prepare oltp_read_write 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'` (or `stampede init oltp_read_write 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'`) first", true},
		{195, "run", strs("run", "tpcc", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "table tpcc_meta does not exist in database {ycsb}: run `stampede init tpcc 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'` first", true},
		{205, "run", strs("run", "ycsb", "--duration", "1s", "--tenants", "2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "is missing: its database does not exist; create the fleet's missing tenants with `stampede init ycsb --tenants 2", false},
		{231, "run", strs("run", "ycsb", "--duration", "1s", "--driver", "", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --driver \"\": use postgres or null", true},
		{233, "run", strs("run", "ycsb", "--duration", "1s", "--db", "census_nosuch", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{port} (database \"census_nosuch\", user \"postgres\"): database \"census_nosuch\" does not exist (SQLSTATE 3D000); load it with `stampede init ycsb --db census_nosuch 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'` (which creates the database), or name another database with --db", true},
		{234, "run", strs("run", "ycsb", "--duration", "1s", "--db", "{bank}", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--db {bank} and database \"{ycsb}\", which postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable names, disagree: give one of them", true},
		{303, "check", strs("check", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown workload \"nosuch\": see `stampede workloads` (available: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{305, "check", strs("check", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable"), 1, "table usertable does not exist in database {empty}: run `stampede init ycsb 'postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable'` first", true},
		{306, "check", strs("check", "bank", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "table bank does not exist in database {ycsb}: run `stampede init bank 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'` first", true},
		{307, "check", strs("check", "tpcc", "--warehouses", "3", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "database {tpcc} holds 1 warehouse, not --warehouses 3: run `stampede check tpcc --warehouses 1 'postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable'`, or leave --warehouses out to check the warehouses init loaded", true},
		{308, "check", strs("check", "tpcc", "--warehouses", "0", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "--warehouses must be at least 1, not 0", true},
		{309, "check", strs("check", "tpcc", "--expensive-checks=maybe", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "invalid value \"maybe\" for --expensive-checks: give true or false: see `stampede check tpcc --help`", true},
		{310, "check", strs("check", "ycsb", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --duration: see `stampede check ycsb --help`", true},
		{311, "check", strs("check", "ycsb", "--max-rate", "5", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --max-rate: see `stampede check ycsb --help`", true},
		{312, "check", strs("check", "bank", "--rows", "0", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 0", true},
		{313, "check", strs("check", "bank", "--rows", "abc", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--rows=abc: give a whole number: see `stampede check bank --help`", true},
		{314, "check", strs("check", "bank", "--rows", "5", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--rows 5 differs from what init (of bank) loaded into database \"{bank}\", --rows 100: give --rows 100, or reload with `stampede init bank --drop --rows 5 'postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable'`", true},
		{315, "check", strs("check", "oltp_read_write", "--tables", "0", "postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable"), 2, "--tables=0: need at least 1 table", true},
		{316, "check", strs("check", "oltp_read_write", "--tables", "3", "postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable"), 2, "--tables 3 differs from what init (of oltp_read_write) loaded into database \"{sb}\", --tables 1: give --tables 1, or reload with `stampede init oltp_read_write --drop --tables 3 'postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable'`", true},
		{317, "check", strs("check", "oltp_read_write", "--table_size", "5000", "postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable"), 2, "--table_size 5000 differs from what init (of oltp_read_write) loaded into database \"{sb}\", --table_size 1000: give --table_size 1000, or reload with `stampede init oltp_read_write --drop --table_size 5000 'postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable'`", true},
		{318, "check", strs("check", "ycsb", "--record-count", "5000", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "-p recordcount=5000 (from --record-count) differs from what init (of ycsb) loaded into database \"{ycsb}\", -p recordcount=1000: give -p recordcount=1000, or reload with `stampede init ycsb --drop -p recordcount=5000 --record-count 5000 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'`", true},
		{319, "check", strs("check", "ycsb", "--tenants", "2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 1, "2 of 2 tenants failed their checks (listed above)", true},
		{320, "check", strs("check", "ycsb", "--tenants", "-2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--tenants -2: need at least 1 tenant", true},
		{321, "check", strs("check", "ycsb", "--db", "census_nosuch", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{port} (database \"census_nosuch\", user \"postgres\"): database \"census_nosuch\" does not exist (SQLSTATE 3D000); load it with `stampede init ycsb --db census_nosuch 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'` (which creates the database), or name another database with --db", true},
		{324, "check", strs("check", "ycsb", "--concurrency", "4", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --concurrency: see `stampede check ycsb --help`", true},
		{325, "check", strs("check", "ycsb", "--tag", "a=b", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --tag: see `stampede check ycsb --help`", true},
		{326, "check", strs("check", "ycsb", "--drop", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --drop: see `stampede check ycsb --help`", true},
		{327, "check", strs("check", "ycsb", "--format", "json", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --format: see `stampede check ycsb --help`", true},
		{328, "check", strs("check", "bank", "--tenants", "2", "--tenant-pattern", "{ipat}", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "are not tenants stampede made", true},
		{329, "check", strs("check", "ycsb", "--driver", "weird", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --driver \"weird\": use postgres or null", true},
		{330, "check", strs("check", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 1, "table usertable in database {own} has no column field1 (fieldcount is 10): run `stampede init ycsb 'postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable'` with the same properties", true},
		{331, "check", strs("check", "bank", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 1, "bank consistency check failed: 1 rows with total balance 100, expected 1000 rows with 1000000 (difference -999900)", true},
		{332, "check", strs("check", "oltp_read_write", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 1, "1 of 1 tables failed the consistency check", true},
		{333, "check", strs("check", "tpcc", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 1, "table tpcc_meta does not exist in database {own}: run `stampede init tpcc 'postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable'` first", true},
		{334, "check", strs("check", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "ycsb"), 2, "\"postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable\" is a URL, not a workload: name the workload first, as in `stampede check WORKLOAD [flags] URL...` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{335, "check", strs("check", "ycsb", "postgresql://postgres:Pw@topsecret@127.0.0.1:{port}/x"), 2, "malformed connection URL postgresql://xxxxx@127.0.0.1:{port}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{336, "check", strs("check", "tpcc", "--mix", "weird", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "--mix: \"weird\" is not name=weight", true},
		{337, "check", strs("check", "tpcc", "--isolation", "weird", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "--isolation must be read-committed, repeatable-read or serializable, not \"weird\"", true},
		{338, "check", strs("check", "ycsb", "--conns", "-1", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--conns -1 is negative", true},
		{339, "check", strs("check", "bank", "--max-transfer", "0", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--max-transfer must be at least 1, not 0", true},
		{341, "cleanup", strs("cleanup", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown workload \"nosuch\": see `stampede workloads` (available: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{342, "cleanup", strs("cleanup", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table usertable in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): cleanup leaves it alone; to drop it anyway, add --force-drop", true},
		{343, "cleanup", strs("cleanup", "bank", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table bank in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): cleanup leaves it alone; to drop it anyway, add --force-drop", true},
		{344, "cleanup", strs("cleanup", "tpcc", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "tables item, customer in database \"{own}\" on 127.0.0.1:{port} were not made by stampede (no mark of stampede's init on them, which every table stampede's init makes carries): cleanup leaves them alone; to drop them anyway, add --force-drop", true},
		{345, "cleanup", strs("cleanup", "oltp_read_write", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table sbtest1 in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): cleanup leaves it alone; to drop it anyway, add --force-drop", true},
		{346, "cleanup", strs("cleanup", "bank", "--tenants", "2", "--tenant-pattern", "{ipat}", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "databases {i1}, {i2} were not made by stampede (neither a stampede_tenant marker table nor stampede's tenant mark bound to it; --tenant-pattern \"{ipat}\" merely matches the name): cleanup leaves them alone; to drop them anyway, add --force-drop", true},
		{348, "cleanup", strs("cleanup", "ycsb", "postgresql://postgres@127.0.0.1:{port}/census_nosuch?sslmode=disable"), 1, "database \"census_nosuch\" does not exist on 127.0.0.1:{port}, nothing was dropped: check the database's name, or name another database with --db", true},
		{349, "cleanup", strs("cleanup", "ycsb", "--drop", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --drop: see `stampede cleanup ycsb --help`", true},
		{350, "cleanup", strs("cleanup", "ycsb", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --duration: see `stampede cleanup ycsb --help`", true},
		{351, "cleanup", strs("cleanup", "ycsb", "--force-drop=maybe", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "invalid value \"maybe\" for --force-drop: give true or false: see `stampede cleanup ycsb --help`", true},
		{352, "cleanup", strs("cleanup", "ycsb", "--tenants", "-1", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--tenants -1: need at least 1 tenant", true},
		{353, "cleanup", strs("cleanup", "ycsb", "--tenant-mode", "wrong", "--tenants", "2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown tenant mode \"wrong\": use database, schema or column", true},
		{354, "cleanup", strs("cleanup", "ycsb", "--tenant-pattern", "nopat", "--tenants", "2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--tenant-pattern \"nopat\": the pattern must hold exactly one %d (and no other %), as in tpcc_%d", true},
		{357, "cleanup", strs("cleanup", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "ycsb"), 2, "\"postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable\" is a URL, not a workload: name the workload first, as in `stampede cleanup WORKLOAD [flags] URL...` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{358, "cleanup", strs("cleanup", "ycsb", "--tag", "a=b", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --tag: see `stampede cleanup ycsb --help`", true},
		{359, "cleanup", strs("cleanup", "ycsb", "--concurrency", "0", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --concurrency: see `stampede cleanup ycsb --help`", true},
		{360, "cleanup", strs("cleanup", "ycsb", "--driver", "weird", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --driver \"weird\": use postgres or null", true},
		{361, "cleanup", strs("cleanup", "ycsb", "--db", "", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable"), 2, "table usertable in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): cleanup leaves it alone; to drop it anyway, add --force-drop", true},
		{362, "cleanup", strs("cleanup", "ycsb", "--conns", "-1", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--conns -1 is negative", true},
		{363, "cleanup", strs("cleanup", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=bogus"), 2, "malformed connection URL postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=bogus: failed to configure TLS: sslmode is invalid", true},
		{364, "cleanup", strs("cleanup", "tpcc", "--warehouses", "0", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "--warehouses must be at least 1, not 0", true},
		{365, "cleanup", strs("cleanup", "oltp_read_write", "--tables", "0", "postgresql://postgres@127.0.0.1:{port}/{sb}?sslmode=disable"), 2, "--tables=0: need at least 1 table", true},
		{366, "cleanup", strs("cleanup", "ycsb", "--format", "json", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --format: see `stampede cleanup ycsb --help`", true},
		{367, "cleanup", strs("cleanup", "bank", "--rows", "-1", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--rows must be at least 2 (a transfer needs two accounts), not -1", true},
		{368, "cleanup", strs("cleanup", "ycsb", "--record-count", "abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--record-count=abc: give a whole number: see `stampede cleanup ycsb --help`", true},
		{369, "cleanup", strs("cleanup", "ycsb", "-p", "nokey", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "malformed -p \"nokey\": expected key=value", true},
		{400, "sweep", strs("sweep", "ycsb", "--max-rate", "100,200", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable"), 1, "step 1 (--max-rate 100): table usertable does not exist in database {empty}: run `stampede init ycsb 'postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable'` first", false},
		{446, "report", strs("report", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "run not found: postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable does not exist", true},
		{492, "compare", strs("compare", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "run not found: postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable does not exist", true},
		{503, "demo", strs("demo", "--results-dir", "/proc/nope", "--duration", "1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "cannot save results in /proc/nope: the system refuses to make it (a special file system such as /proc): give --results-dir a directory you can write", true},
		{506, "demo", strs("demo", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "`stampede demo` takes at most 1 argument, not 2", true},
		{511, "demo", strs("demo", "postgresql://postgres:Pw@topsecret@127.0.0.1:{port}/x"), 2, "malformed connection URL postgresql://xxxxx@127.0.0.1:{port}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{547, "fleet", strs("fleet", "exec", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "name the fleet's workload with --workload (it names the default tenant pattern and database)", true},
		{548, "fleet", strs("fleet", "exec", "--workload", "nosuch", "--tenants", "2", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "unknown workload \"nosuch\": see `stampede workloads` (available: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		{549, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "0", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "give the number of tenants: --tenants N", true},
		{550, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "-1", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--tenants -1: need at least 1 tenant", true},
		{554, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-pattern", "{ipat}", "DROP TABLE bank", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "databases {i1}, {i2} are not tenants stampede made (neither a stampede_tenant marker table nor stampede's tenant mark bound to it; --tenant-pattern \"{ipat}\" merely matches the name): fleet exec applies statements to stampede's tenants only and left them alone; give the --tenant-pattern and --tenant-mode of a fleet `stampede init --tenants` created", true},
		{555, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-pattern", "nopat", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--tenant-pattern \"nopat\": the pattern must hold exactly one %d (and no other %), as in tpcc_%d", true},
		{556, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-mode", "wrong", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "unknown tenant mode \"wrong\": use database, schema or column", true},
		{557, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--concurrency", "0", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--concurrency 0: need at least 1", true},
		{558, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--concurrency", "-1", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--concurrency -1: need at least 1", true},
		{559, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--restart=maybe", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "invalid value \"maybe\" for --restart: give true or false: see `stampede fleet exec --help`", true},
		{560, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--duration", "5s", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "unknown flag: --duration: see `stampede fleet exec --help`", true},
		{561, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--driver", "weird", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "unknown --driver \"weird\": use postgres or null", true},
		{562, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "SELECT 1", "SELECT 2", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "unexpected argument \"SELECT 2\": give one statement, then URLs (quote the statement)", true},
		{563, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "SELEC garbage", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 1, "the statement failed on 2 tenants (listed above): fix them and run the same command again; the 0 tenants done are skipped", false},
		{565, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--results-dir", "/proc/nope", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 1, "cannot keep the record of the tenants done under /proc/nope: mkdir /proc/nope: no such file or directory: give --results-dir a directory you can write", true},
		{566, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "abc", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--tenants=abc: give a whole number: see `stampede fleet exec --help`", true},
		{567, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "--conns", "-1", "SELECT 1", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "--conns -1 is negative", true},
		{568, "fleet", strs("fleet", "exec", "--workload", "bank", "--tenants", "2", "", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "the statement is empty", true},
		{602, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "`stampede diff` takes exactly 2 arguments, not 1", true},
		{603, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "`stampede diff` takes exactly 2 arguments, not 3", true},
		{604, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable", "--tables", "usertable"), 2, "server B: cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{605, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable", "--workload", "ycsb"), 1, "the nodes differ", false},
		{606, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--workload", "nosuch"), 2, "the same URL is given twice: give the two nodes to compare", true},
		{610, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--conns", "0", "--tables", "usertable"), 2, "--conns 0: need at least 1 connection per side", true},
		{611, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--conns", "-1", "--tables", "usertable"), 2, "--conns -1: need at least 1 connection per side", true},
		{612, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--max-rows", "-1", "--tables", "usertable"), 2, "--max-rows -1: need at least 1 differing row to locate and print", true},
		{613, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--converge", "-1s", "--tables", "usertable"), 2, "--converge -1s is negative: use 0 to compare once, or a duration such as 30s", true},
		{614, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--converge", "abc", "--tables", "usertable"), 2, "--converge=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede diff --help`", true},
		{615, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--format", "xml", "--tables", "usertable"), 2, "unknown --format \"xml\": use text or json", true},
		{616, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--db", "x", "--tables", "usertable"), 2, "unknown flag: --db: see `stampede diff --help`", true},
		{617, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--tables", "usertable", "--workload", "ycsb"), 2, "give --workload or --tables, not both: either says which tables to compare (neither compares every table)", true},
		{618, "diff", strs("diff", "notaurl", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--tables", "usertable"), 2, "server A: malformed connection URL \"notaurl\": expected postgresql://user@host:port/db or key=value pairs", true},
		{619, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "mysql://a@b/c", "--tables", "usertable"), 2, "server B: unsupported URL scheme \"mysql\" in mysql://a@b/c: use postgresql:", true},
		{621, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres:Pw@topsecret@127.0.0.1:{port}/x", "--tables", "usertable"), 2, "server B: malformed connection URL postgresql://xxxxx@127.0.0.1:{port}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{622, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--duration", "5s", "--tables", "usertable"), 2, "unknown flag: --duration: see `stampede diff --help`", true},
		{623, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--no-pk=maybe", "--tables", "usertable"), 2, "invalid value \"maybe\" for --no-pk: give true or false: see `stampede diff --help`", true},
		{624, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/census_nosuch?sslmode=disable", "--tables", "usertable"), 2, "server B: cannot connect to 127.0.0.1:{port} (database \"census_nosuch\", user \"postgres\"): database \"census_nosuch\" does not exist (SQLSTATE 3D000); check the database the URL names (diff compares databases that exist)", true},
		{628, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--canonical-hash=maybe", "--tables", "usertable"), 2, "invalid value \"maybe\" for --canonical-hash: give true or false: see `stampede diff --help`", true},
		{635, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--port", "0", "-o", "-"), 2, "gen haproxy: port 0 is out of range: use 1-65535", true},
		{636, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--port", "70000", "-o", "-"), 2, "gen haproxy: port 70000 is out of range: use 1-65535", true},
		{637, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--port", "-1", "-o", "-"), 2, "gen haproxy: port -1 is out of range: use 1-65535", true},
		{638, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--stats-port", "70000", "-o", "-"), 2, "gen haproxy: stats port 70000 is out of range: use 1-65535", true},
		{639, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--check", "weird", "-o", "-"), 2, "gen haproxy: unknown health check \"weird\": use pgsql, cockroach, tcp", true},
		{640, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--check-interval", "-1s", "-o", "-"), 2, "gen haproxy: check interval -1s: must be at least 1ms", true},
		{641, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--check-interval", "abc", "-o", "-"), 2, "--check-interval=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede gen haproxy --help`", true},
		{642, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--connect-timeout", "-1s", "-o", "-"), 2, "gen haproxy: connect timeout -1s: must be at least 1ms", true},
		{644, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--maxconn", "-5", "-o", "-"), 2, "gen haproxy: maxconn -5: must be at least 1", true},
		{645, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--maxconn", "abc", "-o", "-"), 2, "--maxconn=abc: give a whole number: see `stampede gen haproxy --help`", true},
		{646, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--http-port", "70000", "--check", "cockroach", "-o", "-"), 2, "gen haproxy: --http-port 70000: give the nodes' HTTP port, from 1 to 65535 (leave --http-port out for 8080)", true},
		{647, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "-o", "/nonexistent-dir/h.cfg"), 2, "gen haproxy: --out /nonexistent-dir/h.cfg: directory /nonexistent-dir does not exist (create it first)", true},
		{648, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "-o", "empty.txt"), 2, "gen haproxy: empty.txt exists: not overwritten (add --force to replace it, or give another --out)", true},
		{649, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--force=maybe", "-o", "-"), 2, "invalid value \"maybe\" for --force: give true or false: see `stampede gen haproxy --help`", true},
		{652, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--duration", "5s", "-o", "-"), 2, "unknown flag: --duration: see `stampede gen haproxy --help`", true},
		{653, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres:Pw@topsecret@127.0.0.1:{port}/x", "-o", "-"), 2, "gen haproxy: malformed connection URL postgresql://xxxxx@127.0.0.1:{port}/x: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names", true},
		{655, "genhaproxy", strs("gen", "haproxy", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--stats-port", "{port}", "-o", "-"), 2, "gen haproxy: the stats port ", true},
		{663, "genk8s", strs("gen", "k8s", "--clients", "0", "--image", "x", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --clients 0: give the number of client pods, from 1 to 10000", true},
		{664, "genk8s", strs("gen", "k8s", "--clients", "-1", "--image", "x", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --clients -1: give the number of client pods, from 1 to 10000", true},
		{665, "genk8s", strs("gen", "k8s", "--clients", "2", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --image: give the container image whose entrypoint is the stampede binary", true},
		{667, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "init", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: the clients' command line after -- is `run WORKLOAD [flags] URL...`, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`", true},
		{668, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "run", "ycsb", "--duration", "abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: the command line of client 0 would not run: --duration=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede run ycsb --help`", true},
		{669, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--cpu", "abc", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --cpu \"abc\" is not a positive Kubernetes quantity (such as 2 or 500m CPUs, 4Gi of memory or storage, at least 1Mi)", true},
		{670, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--memory", "abc", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --memory \"abc\" is not a positive Kubernetes quantity (such as 2 or 500m CPUs, 4Gi of memory or storage, at least 1Mi)", true},
		{671, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--name", "Bad_Name!", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --name \"Bad_Name!\": give a Kubernetes name: lower-case letters, digits and '-', at most 52 characters, starting and ending with a letter or digit", true},
		{672, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--namespace", "Bad NS", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --namespace \"Bad NS\" is not a Kubernetes namespace name", true},
		{673, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--start-at", "garbage", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --start-at garbage is not a time; give an RFC 3339 time (2026-11-26T07:00:00Z), Unix seconds, or next:DURATION (next:1m)", true},
		{674, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--results-size", "abc", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --results-size \"abc\" is not a positive Kubernetes quantity (such as 2 or 500m CPUs, 4Gi of memory or storage, at least 1Mi)", true},
		{676, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "/nonexistent-dir/k.yaml", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --out /nonexistent-dir/k.yaml: directory /nonexistent-dir does not exist (create it first)", true},
		{677, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "empty.txt", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: empty.txt exists: not overwritten (add --force to replace it, or give another --out)", true},
		{678, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "run", "ycsb", "--clients", "3", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --clients is gen k8s's to set in each client's command line: drop it (gen k8s sets --clients, --client-index, --start-at, --results-dir and --results-url)", true},
		{679, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "--results-dir", "/x"), 2, "gen k8s: --results-dir is gen k8s's to set in each client's command line: drop it (gen k8s sets --clients, --client-index, --start-at, --results-dir and --results-url)", true},
		{680, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: give each client's command line after --, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`", true},
		{681, "genk8s", strs("gen", "k8s", "--clients", "abc", "--image", "x", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--clients=abc: give a whole number: see `stampede gen k8s --help`", true},
		{684, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "sweep", "ycsb", "--max-rate", "1,2", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: the clients' command line after -- is `run WORKLOAD [flags] URL...`, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`", true},
		{685, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "-o", "-", "--", "run", "ycsb", "--tag", "job=other", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "gen k8s: --tag job=other: gen k8s tags each client's run job=NAME and client=I/N itself: give your tag another name", true},
		{686, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--duration", "5s", "-o", "-", "--", "run", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --duration: see `stampede gen k8s --help`", true},
		{690, "proxy", strs("proxy", "--listen", "garbage", "--to", "127.0.0.1:{port}"), 2, "proxy: listen address \"garbage\": give host:port, e.g. 127.0.0.1:6001", true},
		{691, "proxy", strs("proxy", "--listen", "127.0.0.1:99999", "--to", "127.0.0.1:{port}"), 2, "proxy: listen address \"127.0.0.1:99999\": port 99999 is out of range (1-65535)", true},
		{692, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--latency", "-5ms"), 2, "invalid argument \"-5ms\" for \"--latency\" flag: latency -5ms: must not be negative: see `stampede proxy --help`", true},
		{693, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--latency", "abc"), 2, "invalid argument \"abc\" for \"--latency\" flag: not a duration (use e.g. 30ms or 2s): see `stampede proxy --help`", true},
		{694, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--jitter", "50ms", "--latency", "10ms"), 2, "proxy: jitter 50ms is more than latency 10ms: a delay cannot be negative", true},
		{695, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--bandwidth", "abc"), 2, "invalid argument \"abc\" for \"--bandwidth\" flag: not a rate (use e.g. 500KB/s or 10MB/s): see `stampede proxy --help`", true},
		{696, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--bandwidth", "-5KB/s"), 2, "invalid argument \"-5KB/s\" for \"--bandwidth\" flag: not a rate (use e.g. 500KB/s or 10MB/s): see `stampede proxy --help`", true},
		{697, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--reset-fraction", "2"), 2, "invalid argument \"2\" for \"--reset-fraction\" flag: reset-fraction 2: must be between 0 and 1: see `stampede proxy --help`", true},
		{698, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--reset-fraction", "abc"), 2, "invalid argument \"abc\" for \"--reset-fraction\" flag: not a number (use e.g. 0.1 for 10% of connections): see `stampede proxy --help`", true},
		{699, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--reset-after", "-1s"), 2, "invalid argument \"-1s\" for \"--reset-after\" flag: reset-after -1s: must not be negative: see `stampede proxy --help`", true},
		{700, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--stall-timeout", "-1s"), 2, "invalid argument \"-1s\" for \"--stall-timeout\" flag: stall-timeout -1s: must not be negative: see `stampede proxy --help`", true},
		{701, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--procs", "-1"), 2, "proxy: --procs -1: give 1 or more (0 leaves Go's default)", true},
		{702, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--api", "garbage"), 2, "proxy: --api: API address garbage: listen tcp: address garbage: missing port in address", true},
		{705, "proxy", strs("proxy", "--listen", "6101=127.0.0.1:{port},name=a,latency=abc"), 2, "proxy: --listen \"6101=127.0.0.1:{port},name=a,latency=abc\": latency=abc: not a duration (use e.g. 30ms or 2s)", true},
		{706, "proxy", strs("proxy", "--listen", "6101=127.0.0.1:{port},bogus=1"), 2, "proxy: --listen \"6101=127.0.0.1:{port},bogus=1\": unknown fault \"bogus\": use latency, jitter, bandwidth, reset, reset-after, reset-fraction, stall, stall-timeout or down", true},
		{707, "proxy", strs("proxy", "--listen", "6101=127.0.0.1:{port}", "--listen", "6101=127.0.0.1:{port}"), 2, "proxy: two listeners ask for the same address (the 1st and 2nd --listen: 127.0.0.1:6101): give each its own port", true},
		{708, "proxy", strs("proxy", "--listen", "6101=127.0.0.1:{port},name=a", "--listen", "6102=127.0.0.1:{port},name=a"), 2, "proxy: two listeners are named \"a\": give each its own name=", true},
		{709, "proxy", strs("proxy", "--listen", "127.0.0.1:{port}=127.0.0.1:{port}"), 2, "proxy: listener 127.0.0.1:{port}: the address is in use by another process: pick another port", true},
		{710, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--listen", "127.0.0.1:6102", "--to", "127.0.0.1:{port}"), 2, "proxy: --to goes with one --listen ADDR; for several, give --listen LISTEN=UPSTREAM each", true},
		{711, "proxy", strs("proxy", "--listen", "6101=127.0.0.1:{port}", "--to", "127.0.0.1:{port}"), 2, "proxy: --to goes with one --listen ADDR; for several, give --listen LISTEN=UPSTREAM each", true},
		{712, "proxy", strs("proxy", "extra", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}"), 2, "unknown command \"extra\" for \"stampede proxy\": see `stampede proxy --help`", true},
		{713, "proxy", strs("proxy", "--listen", "127.0.0.1:6101", "--to", "127.0.0.1:{port}", "--duration", "5s"), 2, "unknown flag: --duration: see `stampede proxy --help`", true},
		{714, "proxy", strs("proxy", "--listen", "=127.0.0.1:{port}"), 2, "proxy: listen address \"\": give host:port, e.g. 127.0.0.1:6001", true},
		{801, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--workload", "nosuch"), 2, "unknown --workload \"nosuch\": see `stampede workloads`", true},
		{802, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--workload", "oltp_read_write --tables x"), 2, "--workload oltp_read_write: --tables=x: give a whole number", true},
		{803, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--tables", "nosuchtable"), 2, "A (127.0.0.1:{port}/{ycsb}) and B (localhost:{port}/{ycsb}) are the same server and database: give two different nodes", true},
		{804, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--tables", ""), 2, "A (127.0.0.1:{port}/{ycsb}) and B (localhost:{port}/{ycsb}) are the same server and database: give two different nodes", true},
		{805, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--results-dir", "/proc/nope", "--tables", "usertable"), 2, "cannot save results in /proc/nope: the system refuses to make it (a special file system such as /proc): give --results-dir a directory you can write", true},
		{806, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--tables", "usertable;drop table x"), 2, "A (127.0.0.1:{port}/{ycsb}) and B (localhost:{port}/{ycsb}) are the same server and database: give two different nodes", true},
		{807, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--workload", "ycsb --record-count abc"), 2, "--workload ycsb: --record-count=abc: give a whole number", true},
		{808, "diff", strs("diff", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@localhost:{port}/{ycsb}?sslmode=disable", "--workload", ""), 2, "A (127.0.0.1:{port}/{ycsb}) and B (localhost:{port}/{ycsb}) are the same server and database: give two different nodes", true},
		{809, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--time=abc"), 2, "invalid value for --time: \"abc\" (a whole number)", true},
		{810, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--time=-5"), 2, "--time=-5 is negative: use 0 for no limit", true},
		{811, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--threads=0"), 2, "--threads 0: need at least 1 worker", true},
		{812, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--threads=-1"), 2, "--threads -1: need at least 1 worker", true},
		{813, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--threads=abc"), 2, "invalid value for --threads: \"abc\" (a whole number)", true},
		{814, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--rate=-1"), 2, "--rate -1 is negative: use 0 for no limit", true},
		{815, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--events=-1"), 2, "--events -1 is negative: use 0 for no limit", true},
		{816, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "run", "--report-interval=-1"), 2, "--report-interval=-1 is negative", true},
		{817, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run", "--bogus-option=1"), 2, "unknown flag: --bogus-option: see `stampede run oltp_read_write --help`", true},
		{818, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "frobnicate"), 2, "unknown command \"frobnicate\": sysbench's scripts take prepare, run, cleanup or help (and stampede's check)", true},
		{819, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1"), 2, "say what to do with oltp_read_write: `stampede oltp_read_write [options] prepare|run|cleanup|help` (sysbench's commands, and check)", true},
		{823, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db=census_nosuch", "--time=1", "run"), 1, "cannot connect to 127.0.0.1:{port} (database \"census_nosuch\", user \"postgres\"): database \"census_nosuch\" does not exist (SQLSTATE 3D000); create it (createdb) and load it with the same command line ending in prepare, or name another database with --pgsql-db", true},
		{824, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={empty}", "--time=1", "run"), 1, "table sbtest1 does not exist in database \"{empty}\": run `stampede prepare oltp_read_write --pgsql-host=127.0.0.1 --pgsql-port={port} --pgsql-user=postgres --pgsql-db={empty} --sysbench-syntax` (or `stampede init oltp_read_write --pgsql-host=127.0.0.1 --pgsql-port={port} --pgsql-user=postgres --pgsql-db={empty} --sysbench-syntax`) first", true},
		{825, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--tables=0", "run"), 2, "--tables=0: need at least 1 table", true},
		{826, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--table_size=abc", "run"), 2, "--table_size=abc: give a whole number: see `stampede run oltp_read_write --help`", true},
		{827, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--point_selects=-3", "run"), 2, "--point_selects=-3: must not be negative", true},
		{828, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--rand-type=weird", "run"), 2, "--rand-type=weird: unknown distribution (valid: uniform, gaussian, special, pareto, zipfian)", true},
		{829, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--range_selects=maybe", "run"), 2, "invalid argument \"maybe\" for \"--range_selects\" flag: \"maybe\" is not a boolean: use on or off: see `stampede run oltp_read_write --help`", true},
		{830, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--config-file=/nonexistent.cfg", "run"), 2, "cannot read --config-file: open /nonexistent.cfg: no such file or directory", true},
		{832, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--config-file=badthreads.cfg", "run"), 2, "invalid value for --threads: \"abc\" (a whole number)", true},
		{834, "sysbench", strs("oltp_nosuch", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run"), 2, "unknown command or sysbench script \"oltp_nosuch\": stampede runs the sysbench scripts oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, oltp_insert, oltp_delete, oltp_update_index, oltp_update_non_index, bulk_insert, select_random_points, select_random_ranges (their names, or a path ending in NAME.lua); see `stampede --help` for its commands", true},
		{835, "sysbench", strs("empty.txt", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run"), 2, "unknown command or sysbench script \"empty.txt\": stampede runs the sysbench scripts oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only, oltp_insert, oltp_delete, oltp_update_index, oltp_update_non_index, bulk_insert, select_random_points, select_random_ranges (their names, or a path ending in NAME.lua); see `stampede --help` for its commands", true},
		{836, "sysbench", strs("/usr/share/sysbench/oltp_nosuch.lua", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run"), 2, "unknown sysbench script \"/usr/share/sysbench/oltp_nosuch.lua\": stampede runs only its own implementation of sysbench 1.0.20's bundled scripts (oltp_point_select.lua, oltp_read_only.lua, oltp_read_write.lua, oltp_write_only.lua, oltp_insert.lua, oltp_delete.lua, oltp_update_index.lua, oltp_update_non_index.lua, bulk_insert.lua, select_random_points.lua, select_random_ranges.lua), never a script's Lua: run this one with sysbench", true},
		{837, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={own}", "cleanup"), 2, "table sbtest1 in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): cleanup leaves it alone; to drop it anyway, add --force-drop", true},
		{838, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={own}", "prepare"), 2, "table sbtest1 already exists in database \"{own}\" and stampede did not make it: load into another database (--pgsql-db=NAME), or to drop it anyway, add --force-drop", true},
		{839, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "prepare"), 2, "table sbtest1 already exists in database \"{sb}\": use --drop to recreate it, or `stampede cleanup oltp_read_write --pgsql-host=127.0.0.1 --pgsql-port={port} --pgsql-user=postgres --pgsql-db={sb} --sysbench-syntax`", true},
		{840, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--mysql-host=x", "run"), 2, "--mysql-host is the MySQL driver's: stampede speaks PostgreSQL's protocol only (--db-driver=pgsql, with --pgsql-host, --pgsql-port, --pgsql-user, --pgsql-password, --pgsql-db)", true},
		{841, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--percentile=101", "run"), 2, "--percentile 101 must be in (0, 100], or 0 with --output-style sysbench", true},
		{842, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--histogram=maybe", "run"), 2, "invalid value for --histogram: \"maybe\" (use on or off)", true},
		{843, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--warmup-time=-1", "run"), 2, "--warmup-time is not supported: it is sysbench 1.1's (1.0.20 refuses it too); stampede's --ramp=Ns starts the threads over N seconds and leaves that time out of the final report", true},
		{844, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run", "extra"), 2, "unexpected argument \"extra\": a sysbench command line is SCRIPT [options] COMMAND, with one command (here run)", true},
		{846, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "run", "notaurl"), 2, "unexpected argument \"notaurl\": a sysbench command line is SCRIPT [options] COMMAND, with one command (here run)", true},
		{848, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--db-ps-mode=weird", "run"), 2, "unknown --db-ps-mode \"weird\": use auto (prepared statements) or disable (statements as text)", true},
		{849, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--forced-shutdown=abc", "run"), 2, "invalid value for --forced-shutdown: \"abc\" (use off, seconds after --time, or a percentage of --time such as 5%)", true},
		{851, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time", "1", "run"), 2, "unknown command \"1\": sysbench's scripts take prepare, run, cleanup or help (and stampede's check)", true},
		{852, "sysbench", strs("bulk_insert", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--tables=-1", "run"), 2, "table sbtest1 in database \"{sb}\" on 127.0.0.1:{port} is not bulk_insert's (id, k) but has 4 columns: drop it (`stampede cleanup` of the workload that made it), or load into another database (--pgsql-db=NAME)", true},
		{853, "sysbench", strs("select_random_points", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--random_points=-1", "run"), 2, "--random_points=-1: need at least 1 point", true},
		{854, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "--time=1", "--rand-seed=abc", "run"), 2, "invalid value for --rand-seed: \"abc\" (a whole number)", true},
		{855, "sysbench", strs("oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port={port}", "--pgsql-user=postgres", "--pgsql-db={sb}", "help", "extra"), 2, "unexpected argument \"extra\": a sysbench command line is SCRIPT [options] COMMAND, with one command (here help)", true},
		{857, "ycsbform", strs("run", "jdbc", "-P", "workloads/nosuch", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "cannot read property file workloads/nosuch: no such file or directory", true},
		{858, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-threads", "abc"), 2, "invalid threadcount \"abc\" (from -threads): use an integer of at least 1", true},
		{859, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-threads", "0"), 2, "invalid threadcount \"0\" (from -threads): use an integer of at least 1", true},
		{860, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-threads", "-1"), 2, "invalid threadcount \"-1\" (from -threads): use an integer of at least 1", true},
		{861, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-target", "abc"), 2, "invalid target \"abc\" (from -target): use an integer of at least 0", true},
		{862, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-target", "-5"), 2, "invalid target \"-5\" (from -target): use an integer of at least 0", true},
		{863, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "operationcount=abc"), 2, "invalid operationcount \"abc\" (from -p): not an integer", true},
		{864, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "maxexecutiontime=-1"), 2, "invalid maxexecutiontime \"-1\" (from -p): use an integer of at least 0", true},
		{865, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "readproportion=abc"), 2, "invalid readproportion \"abc\" (from -p): not a number", true},
		{866, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "requestdistribution=weird"), 2, "unknown requestdistribution \"weird\" (from -p): use uniform, zipfian, latest, hotspot, exponential or sequential", true},
		{870, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{empty}?sslmode=disable", "-p", "db.user=postgres", "-p", "maxexecutiontime=1"), 1, "table usertable does not exist in database {empty}: run `stampede init ycsb --output-style ycsb -P workloads/workloada 'postgresql://postgres@127.0.0.1:{port}/{empty}?sslmode=disable'` first", true},
		{871, "ycsbform", strs("run", "mongodb", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "YCSB binding mongodb is not supported: stampede runs YCSB over PostgreSQL's wire protocol: use jdbc or postgrenosql (`stampede run jdbc -P workloads/workloada -p db.url=jdbc:postgresql://HOST:PORT/DB`)", true},
		{872, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p"), 2, "-p needs a value", true},
		{873, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "noequals"), 2, "malformed -p \"noequals\": expected key=value", true},
		{876, "ycsbform", strs("run", "jdbc", "-P", "/tmp", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "cannot read property file /tmp: is a directory", true},
		{877, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-s", "-l"), 2, "-l needs a value", true},
		{878, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-bogusflag"), 2, "unknown YCSB option -bogusflag: YCSB's are -P, -p, -threads, -target, -s, -load, -t, -db, -l and bin/ycsb's -cp and -jvm-args; stampede's flags start with -- (see `stampede run ycsb --help`)", true},
		{879, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "db.passwd=topsecret", "-p", "maxexecutiontime=1", "-p", "db.url=jdbc:postgresql://127.0.0.1:{nlport}/x"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused; is the server running and listening there? check host and port", true},
		{880, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{own}?sslmode=disable", "-p", "db.user=postgres", "-p", "maxexecutiontime=1"), 1, "table usertable in database {own} has no column field1 (fieldcount is 10): run `stampede init ycsb --output-style ycsb -P workloads/workloada 'postgresql://postgres@127.0.0.1:{port}/{own}?sslmode=disable'` with the same properties", true},
		{881, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{own}?sslmode=disable", "-p", "db.user=postgres"), 2, "table usertable already exists in database \"{own}\" and stampede did not make it, and init does not load into it (its columns are (field0 text, ycsb_key text), not ycsb's (ycsb_key, field0, field1, field2, field3, field4, field5, field6, field7, field8, field9, of character types)): load into another database (db.url's database), or to drop it anyway, add --force-drop", true},
		{882, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "table usertable already exists in database \"{ycsb}\", and init does not load into it (it holds rows (init loads only into an empty usertable of ycsb's columns)): use --drop to recreate it, or `stampede cleanup ycsb 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'`", true},
		{883, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-threads", "0"), 2, "invalid threadcount \"0\" (from -threads): use an integer of at least 1", true},
		{884, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "recordcount=-5"), 2, "recordcount must be at least 1, not -5 (from -p)", true},
		{885, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "insertstart=abc"), 2, "invalid insertstart \"abc\" (from -p): not an integer", true},
		{886, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "jdbc.batchupdateapi=maybe"), 2, "invalid jdbc.batchupdateapi \"maybe\" (from -p): not true or false", true},
		{887, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "db.batchsize=-1"), 2, "table usertable already exists in database \"{ycsb}\", and init does not load into it (it holds rows (init loads only into an empty usertable of ycsb's columns)): use --drop to recreate it, or `stampede cleanup ycsb 'postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable'`", true},
		{888, "ycsbform", strs("load", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-cp"), 2, "-cp needs a value", true},
		{889, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "hdrhistogram.percentiles=abc"), 2, "invalid hdrhistogram.percentiles \"abc\" (from -p): use percentiles in (0, 100] separated by commas, such as 50,95,99", true},
		{891, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "status.interval=-1", "-s"), 2, "invalid status.interval \"-1\" (from -p): use an integer of at least 1", true},
		{892, "ycsbform", strs("ycsb", "-t", "-db", "site.ycsb.BogusDB", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "YCSB binding site.ycsb.BogusDB is not supported: stampede runs YCSB over PostgreSQL's wire protocol: use jdbc or postgrenosql (`stampede run jdbc -P workloads/workloada -p db.url=jdbc:postgresql://HOST:PORT/DB`)", true},
		{893, "ycsbform", strs("ycsb", "-t", "-load", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "-load and -t both given: give one (YCSB's load phase or its transactions)", true},
		{894, "ycsbform", strs("shell", "jdbc", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres"), 2, "YCSB's shell (interactive mode) is not supported: use `stampede load jdbc` and `stampede run jdbc`", true},
		{895, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=nosuchuser", "-p", "maxexecutiontime=1"), 1, "cannot connect to 127.0.0.1:{port} (database \"{ycsb}\", user \"nosuchuser\"): role \"nosuchuser\" does not exist (SQLSTATE 28000); check the user name and password", true},
		{896, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "fieldcount=0"), 2, "fieldcount must be at least 1, not 0 (from -p)", true},
		{897, "ycsbform", strs("run", "jdbc", "-P", "workloads/workloada", "-p", "db.url=jdbc:postgresql://127.0.0.1:{port}/{ycsb}?sslmode=disable", "-p", "db.user=postgres", "-p", "zeropadding=-1"), 2, "zeropadding must be at least 0, not -1 (from -p)", true},
		{899, "cockroach", strs("workload", "frob", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown `workload frob`: use init, run or check, as in `stampede workload run ycsb URL`", true},
		{901, "cockroach", strs("workload", "run", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "cockroach's workload \"nosuch\" is not one stampede runs: use bank, tpcc, ycsb (or `stampede run` for stampede's own workloads)", true},
		{902, "cockroach", strs("workload", "run", "ycsb", "--duration=abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--duration=abc: give a duration with its unit, such as 500ms, 60s or 10m: see `stampede workload run ycsb --help`", true},
		{903, "cockroach", strs("workload", "run", "ycsb", "--duration=-1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable specifies database \"{ycsb}\", but database \"ycsb\" is expected (the workload's, or --db)", true},
		{905, "cockroach", strs("workload", "run", "ycsb", "--concurrency=abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--concurrency=abc: give a whole number: see `stampede workload run ycsb --help`", true},
		{907, "cockroach", strs("workload", "run", "ycsb", "--workload=Z", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --workload \"Z\": use A, B, C, D, E, F or CUSTOM (as cockroach's ycsb)", true},
		{908, "cockroach", strs("workload", "run", "ycsb", "--read-freq=abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--read-freq=abc: give a number: see `stampede workload run ycsb --help`", true},
		{909, "cockroach", strs("workload", "run", "ycsb", "--read-freq=-1", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--read-freq -1 is negative", true},
		{910, "cockroach", strs("workload", "run", "ycsb", "--request-distribution=weird", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --request-distribution \"weird\": use zipfian, uniform, latest", true},
		{915, "cockroach", strs("workload", "run", "ycsb", "--bogus-flag", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --bogus-flag: see `stampede workload run ycsb --help`", true},
		{916, "cockroach", strs("workload", "run", "ycsb", "--db={bank}", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable specifies database \"{ycsb}\", but database \"{bank}\" is expected (the workload's, or --db)", true},
		{917, "cockroach", strs("workload", "run", "ycsb", "--method=weird", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--method=weird: stampede prepares each statement once per connection and binds its arguments, as cache_statement (prepare) does; other issue methods are not available", true},
		{918, "cockroach", strs("workload", "run", "ycsb", "--isolation-level=weird", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown --isolation-level \"weird\": use serializable, snapshot, repeatable_read or read_committed", true},
		{919, "cockroach", strs("workload", "run", "ycsb", "--tolerate-errors=maybe", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "invalid value \"maybe\" for --tolerate-errors: give true or false: see `stampede workload run ycsb --help`", true},
		{921, "cockroach", strs("workload", "run", "ycsb", "--duration=1s", "--partition-affinity=1", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "unknown flag: --partition-affinity: see `stampede workload run ycsb --help`", true},
		{923, "cockroach", strs("workload", "run", "tpcc", "--wait=maybe", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "invalid value \"maybe\" for --wait: use true, false or a factor of the keying and think times in [0, 1000], not \"maybe\"", true},
		{924, "cockroach", strs("workload", "run", "tpcc", "--partitions=3", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "--partitions 3 without --partition-affinity: stampede partitions no table", true},
		{925, "cockroach", strs("workload", "run", "bank", "--rows=0", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{bank}?sslmode=disable"), 2, "--rows must be at least 2 (a transfer needs two accounts), not 0", true},
		{932, "cockroach", strs("workload", "init", "ycsb", "--insert-count=-5", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--insert-count must not be negative, not -5", true},
		{933, "cockroach", strs("workload", "init", "ycsb", "--record-count=abc", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "--record-count=abc: give a whole number: see `stampede workload init ycsb --help`", true},
		{934, "cockroach", strs("workload", "init", "ycsb", "--families=maybe", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "invalid value \"maybe\" for --families: give true or false: see `stampede workload init ycsb --help`", true},
		{935, "cockroach", strs("workload", "init", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "cockroach's workload \"nosuch\" is not one stampede runs: use bank, tpcc, ycsb (or `stampede run` for stampede's own workloads)", true},
		{938, "cockroach", strs("workload", "check", "nosuch", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "cockroach's workload \"nosuch\" is not one stampede runs: use bank, tpcc, ycsb (or `stampede run` for stampede's own workloads)", true},
		{939, "cockroach", strs("workload", "check", "tpcc", "--expensive-checks=maybe", "postgresql://postgres@127.0.0.1:{port}/{tpcc}?sslmode=disable"), 2, "invalid value \"maybe\" for --expensive-checks: give true or false: see `stampede workload check tpcc --help`", true},
		{942, "cockroach", strs("workload", "run", "ycsb", "--conn-vars=garbage", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "expected \"key=value\" format for --conn-vars, got \"garbage\"", true},
		{943, "cockroach", strs("workload", "run", "ycsb", "--secure=maybe", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable"), 2, "invalid value \"maybe\" for --secure: give true or false: see `stampede workload run ycsb --help`", true},
		{1001, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--duration=-1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--duration -1s is negative: use 0 to run until interrupted", true},
		{1002, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--concurrency=0", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--concurrency 0: need at least 1 worker", true},
		{1003, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--max-rate=-5", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--max-rate -5 is not a rate: use a positive number of operations per second, or 0 for no limit", true},
		{1004, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--display-format=weird", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "unknown --display-format \"weird\": use simple or incremental-json", true},
		{1005, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--histograms=/nonexistent-dir/h.json", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--histograms /nonexistent-dir/h.json: directory /nonexistent-dir does not exist: create it, or write the export elsewhere", true},
		{1007, "cockroach", strs("workload", "run", "ycsb", "--db={empty}", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 1, "table usertable does not exist in database {empty}: run `stampede workload init ycsb --db={empty} 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'` first", true},
		{1008, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--ramp=-1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--ramp -1s is negative: use 0 for no ramp", true},
		{1009, "cockroach", strs("workload", "run", "tpcc", "--db={tpcc}", "--warehouses=3", "--duration=1s", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "database {tpcc} holds 1 warehouse, not --warehouses 3: give --warehouses 1, or reload with `stampede workload init tpcc --drop --warehouses 3 --db={tpcc} 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'`", true},
		{1010, "cockroach", strs("workload", "init", "ycsb", "--db={own}", "--drop", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "table usertable in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop", true},
		{1011, "cockroach", strs("workload", "init", "bank", "--db={own}", "--drop", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "table bank in database \"{own}\" on 127.0.0.1:{port} was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop", true},
		{1012, "cockroach", strs("workload", "init", "tpcc", "--db={own}", "--drop", "--warehouses=1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "tables item, customer in database \"{own}\" on 127.0.0.1:{port} were not made by stampede (no mark of stampede's init on them, which every table stampede's init makes carries): --drop leaves them alone; to drop them anyway, add --force-drop", true},
		{1013, "cockroach", strs("workload", "init", "ycsb", "--db={ycsb}", "--data-loader=weird", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "unknown --data-loader \"weird\": use insert, copy, import or auto", true},
		{1014, "cockroach", strs("workload", "init", "ycsb", "--db={ycsb}", "--init-conns=0", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--init-conns 0: need at least 1 connection", true},
		{1015, "cockroach", strs("workload", "init", "ycsb", "--db={ycsb}", "--splits=-1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "table usertable already exists in database \"{ycsb}\", and init does not load into it (it holds rows (init loads only into an empty usertable of ycsb's columns)): use --drop to recreate it, or `stampede cleanup ycsb --db={ycsb} 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'`", true},
		{1016, "cockroach", strs("workload", "check", "tpcc", "--db={tpcc}", "--warehouses=3", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "database {tpcc} holds 1 warehouse, not --warehouses 3: run `stampede workload check tpcc --warehouses 1 --db={tpcc} 'postgresql://postgres@127.0.0.1:{port}?sslmode=disable'`, or leave --warehouses out to check the warehouses init loaded", true},
		{1021, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable", "--duration=1s", "extra"), 2, "\"extra\" is not a postgresql:// URL (cockroach workload takes URLs only)", true},
		{1022, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--duration=1s", "--seed=-1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--seed=-1 is negative: give a whole number from 0 to 18446744073709551615: see `stampede workload run ycsb --help`", true},
		{1023, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--duration=1s", "--max-ops=-1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--max-ops=-1 is negative: give a whole number from 0 to 18446744073709551615: see `stampede workload run ycsb --help`", true},
		{1024, "cockroach", strs("workload", "run", "ycsb", "--db={ycsb}", "--duration=1s", "--scan-freq=1", "--max-scan-length=0", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--scan-freq set with --workload=B: the shares apply with --workload=CUSTOM only (as cockroach's)", true},
		{1025, "cockroach", strs("workload", "run", "bank", "--db={bank}", "--duration=1s", "--max-transfer=0", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "unknown flag: --max-transfer: see `stampede workload run bank --help`", true},
		{1026, "cockroach", strs("workload", "run", "tpcc", "--db={tpcc}", "--duration=1s", "--mix=weird=1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--mix: unknown transaction \"weird\" (want newOrder, payment, orderStatus, delivery or stockLevel)", true},
		{1027, "cockroach", strs("workload", "run", "tpcc", "--db={tpcc}", "--duration=1s", "--workers=-1", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--workers -1 is negative", true},
		{1028, "cockroach", strs("workload", "run", "tpcc", "--db={tpcc}", "--duration=1s", "--active-warehouses=5", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "--active-warehouses 5 is more than the 1 warehouse that init loaded (tpcc_meta): give --active-warehouses 1 or fewer", true},
		{1029, "cockroach", strs("workload", "cleanup", "ycsb", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "unknown `workload cleanup`: use init, run or check, as in `stampede workload run ycsb URL`", true},
		{1030, "cockroach", strs("workload", "init", "bank", "--db={bank}", "--tenants", "2", "postgresql://postgres@127.0.0.1:{port}?sslmode=disable"), 2, "unknown flag: --tenants: see `stampede workload init bank --help`", true},
	}, ph)
	for _, tb := range []string{"usertable", "bank", "sbtest1", "customer", "item"} {
		if n := queryInt(t, own, "SELECT count(*) FROM "+tb); n != 1 {
			t.Errorf("the user's own %s holds %d rows after the census, not its 1", tb, n)
		}
	}
	if n := queryInt(t, prefix+"1", "SELECT count(*) FROM bank"); n != 1 {
		t.Errorf("the user's bank in %s1, which --tenant-pattern matched, holds %d rows after the census, not its 1", prefix, n)
	}
}

// TestCensus28Quiet keeps the census's inputs that were accepted without a
// word or answered vaguely and need no server: each is now refused in one
// line that names the problem and what to do, or, where the input is
// valid but compares nothing, warned about.
func TestCensus28Quiet(t *testing.T) {
	ph := census28Dir(t)
	nl := "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"
	census28Check(t, []census28Case{
		// An address HAProxy refuses when it starts ("invalid address").
		{634, "genhaproxy", strs("gen", "haproxy", nl, "--bind", "notanip", "-o", "-"), 2, "gen haproxy: bind address \"notanip\" is not an IP address, and the host name does not resolve here (no such host), so HAProxy would refuse to start: give the IP address to listen on (such as 127.0.0.1 or ::1), or none for every interface", true},
		{651, "genhaproxy", strs("gen", "haproxy", nl, nl, "-o", "-"), 2, "gen haproxy: URLs 1 and 2 name the same node, 127.0.0.1:{nlport}: give each node once", true},
		{122, "run", strs("run", "ycsb", "--driver", "null", "--duration", "200ms", "--telemetry=false", "--tag", "k y=v"), 2, "malformed --tag \"k y=v\": the key \"k y\" holds a space; use key=value with a key without spaces, such as k_y=v", true},
		{474, "runs", strs("runs", "--tag", "a b=c"), 2, "malformed --tag \"a b=c\": the key \"a b\" holds a space; use key=value with a key without spaces, such as a_b=c", true},
		{70, "init", strs("init", "ycsb", "-p", "--driver", "null"), 2, "-p took the flag --driver as its value, leaving \"null\" over: -p needs key=value right after it (see `stampede init ycsb --help`)", true},
		{180, "run", strs("run", "tpcc", "--duration", "1s", "--wait", "maybe", "--driver", "null"), 2, "unexpected argument \"maybe\" after --wait: a boolean flag takes its value after '=', as --wait=false (see `stampede run tpcc --help`)", true},
		{301, "run", strs("run", "tpcc", "--duration", "1s", "--wait", "false", "--driver", "null"), 2, "unexpected argument \"false\" after --wait: a boolean flag takes its value after '=', as --wait=false (see `stampede run tpcc --help`)", true},
		{212, "run", strs("run", "--duration", "1s", nl), 2, "--duration is a workload's flag: name the workload first, as in `stampede run NAME [flags] [URL...]` (workloads: bank, bulk_insert, churn, lambda, oltp_delete, oltp_insert, oltp_point_select, oltp_read_only, oltp_read_write, oltp_update_index, oltp_update_non_index, oltp_write_only, pgbench, select_random_points, select_random_ranges, sql, tpcc, ycsb)", true},
		// The name of a Secret is no password: printed as given.
		{683, "genk8s", strs("gen", "k8s", "--clients", "2", "--image", "x", "--password-secret", "Bad Secret", "-o", "-", "--", "run", "ycsb", nl), 2, "gen k8s: --password-secret \"Bad Secret\" is not a Kubernetes name: give the name of the Secret that holds the password", true},
		// A file stampede did not make: nothing suggests moving or rebuilding it.
		{464, "runs", strs("runs", "--results-url", "sqlite:/etc/passwd"), 2, "the results store /etc/passwd is not a SQLite database, nor stampede's index.sqlite: stampede leaves that file alone; give --results-url a path of its own (sqlite:PATH)", true},
	}, ph)
	// The same run on both sides compares nothing: compare says so.
	r := stampede(t, "compare", ph["{run}"], ph["{run}"])
	want := "warning: A and B are the same run, " + ph["{run}"] + ": every ratio is 1 and nothing is compared; give two different runs\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("481/compare: exit %d, stderr %q; want exit 0 and %q", r.code, r.stderr, want)
	}
}

// TestCensus28QuietServer keeps the census's inputs of that kind that
// need a server: check with a second URL where nothing listens checks
// every URL, and init --drop refuses tenants stampede did not make before
// it prints any progress.
func TestCensus28QuietServer(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	if u.User.Username() != "postgres" || u.Hostname() != "127.0.0.1" || u.Query().Get("sslmode") != "disable" {
		t.Skipf("the census's cases connect as postgres to 127.0.0.1 with sslmode=disable, not as %s", srv)
	}
	ph := census28Dir(t)
	ph["{port}"] = u.Port()
	ph["{ycsb}"] = freshDB(t, "census28q_ycsb")
	adminExec(t, "CREATE DATABASE "+ph["{ycsb}"])
	ycsbURL := dbURL(t, ph["{ycsb}"])
	mustRun(t, "init", "ycsb", "--record-count", "1000", ycsbURL)
	prefix := freshDB(t, "census28q") + "_"
	ph["{ipat}"] = prefix + "%d"
	for _, id := range []string{"1", "2"} {
		name := prefix + id
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
		adminExec(t, "CREATE DATABASE "+name)
	}
	census28Check(t, []census28Case{
		{322, "check", strs("check", "ycsb", "postgresql://postgres@127.0.0.1:{port}/{ycsb}?sslmode=disable", "postgresql://postgres@127.0.0.1:{nlport}/x?sslmode=disable"), 1, "cannot connect to 127.0.0.1:{nlport} (database \"x\", user \"postgres\"): connection refused", false},
		{64, "init", strs("init", "bank", "--tenants", "2", "--tenant-pattern", "{ipat}", "--drop", "postgresql://postgres@127.0.0.1:{port}/postgres?sslmode=disable"), 2, "were not made by stampede (neither a stampede_tenant marker table nor stampede's tenant mark bound to it; --tenant-pattern \"{ipat}\" merely matches the name): --drop leaves them alone; to drop them anyway, add --force-drop", true},
	}, ph)
	// Every URL is checked, each named before its checks.
	r := stampede(t, "check", "ycsb", ycsbURL, ycsbURL)
	if r.code != 0 || strings.Count(r.stdout, "1000 of 1000 loaded keys present PASS") != 2 || !strings.Contains(r.stderr, "(URL 2 of 2)") {
		t.Errorf("check through two URLs: exit %d, want 0 and each URL's checks:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// hintRE finds the commands a message suggests, in backticks.
var hintRE = regexp.MustCompile("`(stampede [^`]+)`")

// TestSuggestedCommandsRun runs the commands that refusals suggest, as a
// user pastes them, and checks that each runs without a warning: a
// suggested command carries only the flags it uses. Before, the cleanup
// suggested after a refused YCSB load (`stampede load jdbc -P FILE`)
// carried -P and warned that it does not change which tables cleanup
// drops, and so did init's --rows and --record-count.
func TestSuggestedCommandsRun(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	wl := writeFile(t, "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=20\nreadproportion=1\nupdateproportion=0\n")
	for _, tc := range []struct {
		name string
		// args loads, and loads again: the second is refused with a
		// suggestion ({db} is the case's database).
		args []string
		want string // the suggestion
	}{
		{"YCSB form load", strs("load", "jdbc", "-P", wl, "-p", "db.url=jdbc:postgresql://"+u.Host+"/{db}?sslmode=disable", "-p", "db.user="+u.User.Username()),
			"stampede cleanup ycsb "},
		{"init bank --rows", strs("init", "bank", "--rows", "10", "{url}"), "stampede cleanup bank "},
		{"init ycsb --record-count", strs("init", "ycsb", "--record-count", "20", "{url}"), "stampede cleanup ycsb "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "census28_hint")
			adminExec(t, "CREATE DATABASE "+db)
			args := census28Expand(tc.args, map[string]string{"{db}": db, "{url}": dbURL(t, db)})
			mustRun(t, args...)
			r := stampede(t, args...)
			m := hintRE.FindStringSubmatch(r.stderr)
			if r.code != 2 || m == nil || !strings.HasPrefix(m[1], tc.want) {
				t.Fatalf("a second load: exit %d, no suggestion %q...:\n%s", r.code, tc.want, r.stderr)
			}
			words := shellWords(t, m[1])
			r = stampede(t, words[1:]...)
			if r.code != 0 || strings.Contains(r.stderr, "warning") {
				t.Errorf("the suggestion %s: exit %d\n%s", m[1], r.code, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
				t.Errorf("the suggested cleanup left %d tables", n)
			}
		})
	}
}

// TestResultsURLMissingDirectory: a results store in a directory that does
// not exist is refused in one line that names the directory, and the
// directory is not created (before, it was, silently); a results
// directory given with --results-dir is still created.
func TestResultsURLMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "dir")
	store := "sqlite:" + filepath.Join(missing, "x.db")
	results := filepath.Join(dir, "results")
	if err := os.MkdirAll(results, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", strs("run", "ycsb", "--driver", "null", "--duration", "200ms", "--telemetry=false", "--results-dir", results, "--results-url", store)},
		{"runs", strs("runs", "--results-dir", results, "--results-url", store)},
		{"runs --rebuild", strs("runs", "--rebuild", "--results-dir", results, "--results-url", store)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, 2, "results store "+store+": "+missing+" does not exist: create the directory, or give a file in a directory that exists")
			if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
				t.Errorf("%s created %s", tc.name, filepath.Join(dir, "missing"))
			}
		})
	}
	created := filepath.Join(dir, "new", "results")
	mustRun(t, "run", "ycsb", "--driver", "null", "--duration", "200ms", "--telemetry=false", "--results-dir", created)
	if _, err := os.Stat(filepath.Join(created, "index.sqlite")); err != nil {
		t.Errorf("--results-dir %s was not created with its index: %v", created, err)
	}
}
