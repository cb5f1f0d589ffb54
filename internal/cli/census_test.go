package cli_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBadInputCensus holds, verb family by verb family, the bad inputs a
// census of every verb found harmful or vague, each with the one line it
// must now give and its exit code. Cases that need a server are in
// TestBadInputCensusServer.
func TestBadInputCensus(t *testing.T) {
	results := t.TempDir()
	null := []string{"--driver", "null", "--results-dir", results}
	for _, tc := range []struct {
		family, name string
		args         []string
		code         int
		want         string
	}{
		{"run", "workers beyond memory", append([]string{"run", "ycsb", "--concurrency", "10000000"}, null...), 2,
			"--concurrency 10000000 would need about 610.4 GB of client memory (64.0 kB per worker)"},
		{"run", "threads beyond Go's", append([]string{"run", "ycsb", "--io-mode", "thread", "--threads", "9000"}, null...), 2,
			"--threads 9000 with --io-mode thread needs a thread per worker, and Go allows 10,000: use at most 8000"},
		{"run", "tenants beyond memory", append([]string{"run", "bank", "--tenants", "1000000000"}, null...), 2,
			"--tenants 1000000000 would need about 59.6 GB of client memory (64 B per tenant)"},
		{"run", "transfer past BIGINT", append([]string{"run", "bank", "--max-transfer", "9223372036854775807"}, null...), 2,
			"--max-transfer must be at most 1099511627776 (2^40), not 9223372036854775807: larger amounts could take balances out of BIGINT's range"},
		{"init", "total balance past BIGINT", []string{"init", "bank", "--rows", "10", "--initial-balance", "9223372036854775807", "--driver", "null"}, 2,
			"--initial-balance must be at most 461168601842738790 with --rows 10, not 9223372036854775807: the total balance, rows x initial-balance, must be at most 4611686018427387904 (2^62)"},
		{"check", "total balance past BIGINT", []string{"check", "bank", "--rows", "2", "--initial-balance", "2305843009213693953", "--driver", "null"}, 2,
			"--initial-balance must be at most 2305843009213693952 with --rows 2, not 2305843009213693953"},
		{"run", "checks skipped and asked for", append([]string{"run", "tpcc", "--skip-checks", "--expensive-checks"}, null...), 2,
			"--expensive-checks adds checks that --skip-checks skips: give one of them"},
		{"run", "results store refused before the run", append([]string{"run", "ycsb", "--results-url", "mysql://u:topsecret@h/db"}, null...), 2,
			`--results-url: unsupported results store URL scheme "mysql"`},
		{"run", "URL before the workload", []string{"run", "postgresql://u:topsecret@h/db", "ycsb"}, 2,
			`"postgresql://u:xxxxx@h/db" is a URL, not a workload: name the workload first`},
		{"run", "empty ranges", append([]string{"run", "oltp_read_write", "--range_size", "0"}, null...), 2,
			"--range_size=0: a range SELECT must span at least 1 id; to run none, give --range_selects=off"},
		{"init", "COPY streams beyond memory", []string{"init", "ycsb", "--driver", "null", "--concurrency", "100000000"}, 2,
			"--concurrency 100000000 would need about 381.5 TB of client memory (4.0 MB per COPY stream)"},
		{"runs", "reversed window", []string{"runs", "--results-dir", results, "--since", "1h", "--until", "2h"}, 2,
			"--since 1h is not before --until 2h: no run can start in that window; swap them"},
		{"runs", "results directory missing", []string{"runs", "--results-dir", "/nonexistent/runs"}, 2,
			"results directory /nonexistent/runs does not exist"},
		// Issue 28, items 4 and 5: a password's '@' unescaped; a tag key
		// given two values (all tags must match, and a run has one value
		// per key); an empty value selects the runs tagged so, not those
		// without the key.
		{"run", "@ in a password", append([]string{"run", "ycsb", "postgresql://u:Pw@topsecret@127.0.0.1:5602/db"}, "--results-dir", results), 2,
			"malformed connection URL postgresql://xxxxx@127.0.0.1:5602/db: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names"},
		{"run", "tag key twice", append([]string{"run", "ycsb", "--tag", "job=mix", "--tag", "job=pair"}, null...), 2,
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"runs", "tag key twice", []string{"runs", "--results-dir", results, "--tag", "job=mix", "--tag", "job=pair"}, 2,
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"report", "tag key twice", []string{"report", "--results-dir", results, "--tag", "job=mix", "--tag", "job=pair"}, 2,
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"report", "empty tag value, no run tagged so", []string{"report", "--results-dir", results, "--tag", "job="}, 2,
			"no run under " + results + " has the tags job= (job= selects the runs tagged job with an empty value, not the runs without job)"},
		{"limit", "keep with pid", []string{"limit", "--cpus", "0.5", "--keep", "--pid", "1"}, 2,
			"--keep applies to --watch and a command: with --pid the group always stays"},
	} {
		t.Run(tc.family+"/"+tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, tc.code, tc.want)
			if strings.Contains(r.stderr, "topsecret") {
				t.Errorf("password printed: %s", r.stderr)
			}
		})
	}

	// Options that do nothing in their context are said to do nothing.
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"cleanup with load and run flags", []string{"cleanup", "tpcc", "--fks", "--wait=false", "--driver", "null"},
			[]string{"warning: --fks does not change which tables cleanup drops: ignored", "warning: --wait only changes what `stampede run tpcc` does: cleanup ignores it"}},
		{"init with a run flag", []string{"init", "ycsb", "--workload", "b", "-p", "recordcount=10", "--driver", "null"},
			[]string{"warning: --workload only changes what `stampede run ycsb` does: init ignores it"}},
		{"percentile outside sysbench's output", append([]string{"run", "oltp_point_select", "--max-ops", "10", "--percentile", "99", "--telemetry=false"}, null...),
			[]string{"warning: --percentile=99 only chooses the percentile of --output-style sysbench's report"}},
	} {
		t.Run("ignored/"+tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// TestBadInputCensusServer holds the census's cases that need the test
// server: limits the server sets, and connection errors that must say
// what to check.
func TestBadInputCensusServer(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_census")
	mustRun(t, "init", "bank", "--rows", "10", "--db", db, srv)
	u, _ := url.Parse(srv)
	tls := *u
	q := tls.Query()
	q.Set("sslmode", "require")
	tls.RawQuery = q.Encode()
	results := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"connections beyond max_connections", []string{"run", "bank", "--concurrency", "100000", "--db", db, srv}, 2,
			"the run needs 100000 connections to " + u.Host + ", which accepts"},
		{"TLS asked of a server without it", []string{"run", "bank", "--db", db, tls.String()}, 1,
			"the server does not accept TLS: connect with sslmode=prefer or sslmode=disable"},
		{"no Unix socket", []string{"run", "bank", "host=/nonexistent/sock port=5432 user=postgres dbname=" + db}, 1,
			"no Unix socket /nonexistent/sock/.s.PGSQL.5432: is the server running, with /nonexistent/sock in its unix_socket_directories and port 5432?"},
		{"unknown URL key", []string{"run", "bank", "--db", db, srv + "&sslmdoe=disable"}, 2,
			`the connection string's key "sslmdoe" is neither a libpq connection parameter nor a setting the server knows (sent to it as a setting, it was refused): check the key's spelling, or drop it`},
		{"diff of a missing database", []string{"diff", "--tables", "bank", dbURL(t, "stampede_census_none"), dbURL(t, db)}, 2,
			`server A: cannot connect to ` + u.Host + ` (database "stampede_census_none", user "postgres"): database "stampede_census_none" does not exist (SQLSTATE 3D000); check the database the URL names (diff compares databases that exist)`},
		{"report chart into a missing directory", nil, 2, "directory /nonexistent/dir does not exist: create it, or write the chart elsewhere"},
		{"report of a run killed in its first interval", nil, 1, "is truncated at line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--results-dir", results)
			switch tc.name {
			case "report chart into a missing directory", "report of a run killed in its first interval":
				dir := censusRun(t, db, srv)
				args = []string{"report", dir, "--chart", "/nonexistent/dir/x.png"}
				if tc.code == 1 {
					b, err := os.ReadFile(filepath.Join(dir, "intervals.hlog"))
					if err != nil {
						t.Fatal(err)
					}
					// Keep the header and half a line of the first interval.
					cut := strings.Index(string(b), "\n") + 1
					for strings.HasPrefix(string(b[cut:]), "#") {
						cut += strings.Index(string(b[cut:]), "\n") + 1
					}
					if err := os.WriteFile(filepath.Join(dir, "intervals.hlog"), b[:cut+20], 0o644); err != nil {
						t.Fatal(err)
					}
					args = []string{"report", dir}
				}
			}
			r := stampede(t, args...)
			checkFinalError(t, r, tc.code, tc.want)
			if tc.code == 2 && r.stdout != "" {
				t.Errorf("refused, but printed first:\n%s", r.stdout)
			}
		})
	}
}

// censusRun runs bank for a second and returns its run directory.
func censusRun(t *testing.T, db, srv string) string {
	t.Helper()
	dir := t.TempDir()
	mustRun(t, "run", "bank", "--duration", "1s", "--telemetry=false", "--db", db, "--results-dir", dir, srv)
	runs, _ := filepath.Glob(filepath.Join(dir, "*bank*"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v", runs)
	}
	return runs[0]
}

// TestVagueAnswers holds the inputs a later census found answered vaguely
// or not at all: flags that did nothing in their context, errors that
// blamed the wrong word, a generated file HAProxy rejects. Each is refused
// in one line that names the real problem, exit 2.
func TestVagueAnswers(t *testing.T) {
	dir := t.TempDir()
	h := "postgresql://postgres@127.0.0.1:5432/x"
	hap := func(args ...string) []string {
		return append(append([]string{"gen", "haproxy", "--out", filepath.Join(dir, "haproxy.cfg")}, args...), h)
	}
	own := filepath.Join(dir, "oltp_read_write.lua")
	if err := os.WriteFile(own, []byte("require(\"oltp_common\")\nfunction event()\n   execute_point_selects()\nend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "workload.bin")
	if err := os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00\x00recordcount=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k8s := []string{"gen", "k8s", "--image", "stampede:dev", "--clients", "2", "--out", filepath.Join(dir, "job.yaml")}
	for _, tc := range []struct {
		family, name string
		args         []string
		code         int
		want         string
	}{
		{"gen", "haproxy bind not an address", hap("--bind", "999.1.1.1"), 2,
			`bind address "999.1.1.1" is neither an IP address nor a host name, so HAProxy would refuse to start`},
		{"gen", "haproxy maxconn 0", hap("--maxconn", "0"), 2,
			"--maxconn 0: HAProxy needs a limit of at least 1 connection (leave --maxconn out for 4096)"},
		{"gen", "haproxy check-interval 0", hap("--check-interval", "0"), 2,
			"--check-interval 0s: give at least 1ms (leave --check-interval out for 1s)"},
		{"gen", "haproxy http-port with pgsql", hap("--http-port", "8008"), 2,
			"--http-port is the port of --check cockroach's health check, and --check pgsql does not use it"},
		{"gen", "haproxy check-user with tcp", hap("--check-user", "x", "--check", "tcp"), 2,
			"--check-user is the user --check pgsql's health check logs in as, and --check tcp logs in as no one"},
		{"gen", "k8s claim and size", append(k8s, "--results-claim", "shared", "--results-size", "5Gi", "--", "run", "ycsb"), 2,
			"gen k8s: --results-size sizes the claim gen k8s creates, and --results-claim shared is an existing claim"},
		{"gen", "k8s misspelt workload", append(k8s, "--", "run", "ycbs"), 2,
			`gen k8s: unknown workload "ycbs" in the clients' command line after --: see ` + "`stampede workloads`"},
		{"run", "URL first, then flags", []string{"run", "postgresql://u:topsecret@h/db", "ycsb", "--duration", "2s"}, 2,
			`"postgresql://u:xxxxx@h/db" is a URL, not a workload: name the workload first`},
		{"run", "several clients without an index", []string{"run", "ycsb", "--clients", "4", "--driver", "null"}, 2,
			"--clients 4 needs --client-index: give this client's index, from 0 to 3, a different one on each client"},
		{"run", "--db against the URL's database", []string{"run", "ycsb", "--db", "bank", "postgresql://u:topsecret@127.0.0.1:1/ycsb"}, 2,
			`--db bank and database "ycsb", which postgresql://u:xxxxx@127.0.0.1:1/ycsb names, disagree: give one of them`},
		{"run", "--db against a conninfo's dbname", []string{"run", "ycsb", "--db", "bank", "host=127.0.0.1 port=1 dbname=ycsb"}, 2,
			`--db bank and database "ycsb", which host=127.0.0.1 port=1 dbname=ycsb names, disagree`},
		{"demo", "no records", []string{"demo", "--records", "0"}, 2, "--records 0: need at least 1 row to load"},
		{"demo", "no workers", []string{"demo", "--concurrency", "0"}, 2, "--concurrency 0: need at least 1 worker"},
		{"demo", "no time", []string{"demo", "--duration", "0"}, 2, "--duration 0s: give a positive duration, such as 20s"},
		{"demo", "workers beyond memory, before any load", []string{"demo", "--concurrency", "10000000", "postgresql://u:topsecret@127.0.0.1:1/x"}, 2,
			"--concurrency 10000000 would need about 610.4 GB of client memory (64.0 kB per worker)"},
		{"diff", "a workload's flag of the wrong type", []string{"diff", "--workload", "oltp_read_write --tables x", "--results-dir", dir, "postgresql://u@127.0.0.1:1/a", "postgresql://u@127.0.0.1:1/b"}, 2,
			"--workload oltp_read_write: --tables=x: give a whole number"},
		{"run", "a binary -P file", []string{"run", "ycsb", "-P", binary, "--driver", "null"}, 2,
			"property file " + binary + " is not text (byte 0x7f at offset 0): give a file of YCSB's key=value lines, such as workloads/workloada"},
		{"run", "a binary -P file, YCSB's form", []string{"run", "jdbc", "-P", binary, "-p", "db.url=jdbc:postgresql://127.0.0.1:1/x"}, 2,
			"property file " + binary + " is not text (byte 0x7f at offset 0)"},
		{"run", "misspelt workload, then flags", []string{"run", "ycbs", "--duration", "2s"}, 2,
			`unknown workload "ycbs": see ` + "`stampede workloads`"},
		{"sysbench", "a user's own script", []string{own, "--pgsql-host=127.0.0.1", "--pgsql-port=1", "run"}, 2,
			own + " is not sysbench 1.0.20's oltp_read_write.lua (its contents differ): stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua"},
	} {
		t.Run(tc.family+"/"+tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, tc.code, tc.want)
			if strings.Contains(r.stderr, "topsecret") {
				t.Errorf("password printed: %s", r.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "haproxy.cfg")); err == nil {
		t.Error("a refused gen haproxy wrote its file")
	}
}

// TestVagueAnswersWarned holds the flags that do nothing in their context
// but stay accepted, as sysbench and cockroach's workload accept their
// options on every command: a workload's flag that only shapes what init
// creates, given to run; a flag that only matters beside another one; a
// proxy's faults on a listener that is down. Each gets one warning line,
// and the command runs (exit 0); the same flag where it acts gets none.
func TestVagueAnswersWarned(t *testing.T) {
	null := []string{"--driver", "null", "--results-dir", t.TempDir(), "--telemetry=false", "--max-ops", "20"}
	port, apiPort := strconv.Itoa(freePort(t)), strconv.Itoa(freePort(t))
	// A running proxy for `proxy set`: listener east, no faults.
	api := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startProxy(t, "--api", api, "--listen", fmt.Sprintf("%d=127.0.0.1:1,name=east", freePort(t)))
	waitDial(t, api)
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for no warning at all
	}{
		{"run tpcc --fks", append([]string{"run", "tpcc", "--fks", "--wait=false"}, null...),
			"warning: --fks only changes what `stampede init tpcc` creates: run uses the tables as they were loaded and ignores it"},
		{"run --secondary=on", append([]string{"run", "oltp_read_write", "--secondary=on"}, null...),
			"warning: --secondary only changes what `stampede init oltp_read_write` creates: run uses the tables as they were loaded and ignores it"},
		{"init --secondary=on", []string{"init", "oltp_read_write", "--secondary=on", "--table_size", "10", "--driver", "null"}, ""},
		{"select-for-update without the transaction", append([]string{"run", "ycsb", "--select-for-update=false"}, null...),
			"warning: --select-for-update=false only changes the reads of --read-modify-write-in-txn's transactions, which this run does not use: ignored"},
		{"select-for-update with the transaction", append([]string{"run", "ycsb", "--read-modify-write-in-txn", "--select-for-update=false"}, null...), ""},
		{"proxy down with latency", []string{"proxy", "--down", "--latency", "30ms", "--listen", "127.0.0.1:" + port, "--to", "127.0.0.1:1", "--api", "off"},
			"warning: listener 127.0.0.1:" + port + " is down, and with --api off stays so: its other faults (latency 30ms) do nothing"},
		// The command suggested goes to the proxy's own API.
		{"proxy down with latency and an API", []string{"proxy", "--down", "--latency", "30ms", "--listen", "127.0.0.1:" + port, "--to", "127.0.0.1:1", "--api", "127.0.0.1:" + apiPort},
			"warning: listener 127.0.0.1:" + port + " is down, so its other faults (latency 30ms) do nothing until it is up again (`stampede proxy set --api 127.0.0.1:" + apiPort + " 127.0.0.1:" + port + " --down=false`)"},
		// proxy set warns as proxy does (in order: the listener keeps
		// its faults between cases).
		{"proxy set latency while up", []string{"proxy", "set", "east", "--latency", "5ms", "--api", api}, ""},
		{"proxy set down with latency", []string{"proxy", "set", "east", "--down", "--latency", "5ms", "--api", api},
			"warning: listener east is down, so its other faults (latency 5ms) do nothing until it is up again (`stampede proxy set --api " + api + " east --down=false`)"},
		{"proxy set latency while down", []string{"proxy", "set", "east", "--latency", "7ms", "--api", api},
			"warning: listener east is down, so its other faults (latency 7ms) do nothing until it is up again (`stampede proxy set --api " + api + " east --down=false`)"},
		{"proxy set up again", []string{"proxy", "set", "east", "--down=false", "--api", api}, ""},
		{"proxy set down alone", []string{"proxy", "set", "east", "--replace", "--down", "--api", api}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if tc.args[0] == "proxy" && tc.args[1] != "set" { // runs until interrupted
				ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
			}
			defer cancel()
			r := stampedeCtx(t, ctx, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var warnings []string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(l, "warning: ") && !strings.Contains(l, "--wait") {
					warnings = append(warnings, l)
				}
			}
			switch {
			case tc.want == "" && len(warnings) > 0:
				t.Errorf("warned: %q", warnings)
			case tc.want != "" && (len(warnings) != 1 || warnings[0] != tc.want):
				t.Errorf("warnings %q, want %q", warnings, tc.want)
			}
		})
	}
}

// TestVagueAnswersRuns holds the census's vague answers about saved runs:
// a second --chart that silently replaced the first, a --chart that
// overwrote an existing file. Both are refused, exit 2, before any output
// and with nothing written.
func TestVagueAnswersRuns(t *testing.T) {
	dir, ids := chartRuns(t)
	out := t.TempDir()
	existing := filepath.Join(out, "mine.svg")
	if err := os.WriteFile(existing, []byte("the user's own file"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(out, "a.svg"), filepath.Join(out, "b.png")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"report two charts", []string{"report", ids[0], "--chart", a, "--chart", b}, 2,
			"--chart given 2 times (" + a + ", " + b + "): one chart is drawn, into one file: give --chart once"},
		{"compare two charts", []string{"compare", ids[0], ids[1], "--chart", a, "--chart", b}, 2,
			"--chart given 2 times"},
		{"report chart over a file", []string{"report", ids[0], "--chart", existing}, 2,
			"--chart " + existing + " exists: not overwritten (add --force to replace it, or give another --chart)"},
		{"compare chart over a file", []string{"compare", ids[0], ids[1], "--chart", existing}, 2,
			"--chart " + existing + " exists: not overwritten"},
		{"chart into a directory", []string{"report", ids[0], "--chart", out + ".svg"}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" { // a directory named like a chart
				if err := os.Mkdir(out+".svg", 0o755); err != nil {
					t.Fatal(err)
				}
				tc.want = "--chart " + out + ".svg is a directory: give a file name"
			}
			r := stampede(t, append(tc.args, "--results-dir", dir)...)
			checkOneLineError(t, r, tc.code, tc.want)
			if r.stdout != "" {
				t.Errorf("refused after printing:\n%s", r.stdout)
			}
		})
	}
	for _, f := range []string{a, b} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s written by a refused command", f)
		}
	}
	if got, _ := os.ReadFile(existing); string(got) != "the user's own file" {
		t.Errorf("%s overwritten without --force", existing)
	}
	r := stampede(t, "report", ids[0], "--chart", existing, "--force", "--results-dir", dir)
	if got, _ := os.ReadFile(existing); r.code != 0 || !strings.HasPrefix(string(got), "<") {
		t.Errorf("--force: exit %d, file %.40q: %s", r.code, got, r.stderr)
	}
}

// TestDamagedIndex checks that a results store SQLite cannot read is
// named as such, with the command that makes it anew, and that that
// command (runs --rebuild, as the help promises) moves it aside and
// indexes the runs again instead of failing the same way.
func TestDamagedIndex(t *testing.T) {
	dir, ids := chartRuns(t)
	index := filepath.Join(dir, "index.sqlite")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(index + suffix)
	}
	if err := os.WriteFile(index, []byte("not a database, whatever it was\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "runs", "--results-dir", dir)
	checkOneLineError(t, r, 1, "the results store "+index+" is damaged (SQLite cannot read it): it only indexes the run directories, so `stampede runs --rebuild` moves it aside and indexes them again")
	r = stampede(t, "runs", "--rebuild", "--results-dir", dir)
	if r.code != 0 {
		t.Fatalf("runs --rebuild: exit %d: %s", r.code, r.stderr)
	}
	aside, _ := filepath.Glob(index + ".damaged-*")
	if len(aside) != 1 || !strings.Contains(r.stderr, "the results store could not be read: moved it aside to "+aside[0]) {
		t.Fatalf("moved aside %v; stderr:\n%s", aside, r.stderr)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != "not a database, whatever it was\n" {
		t.Errorf("the damaged file was not kept as it was: %q", b)
	}
	for _, id := range ids {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("run %s not listed after the rebuild:\n%s", id, r.stdout)
		}
	}
	if r := stampede(t, "runs", "--results-dir", dir); r.code != 0 || !strings.Contains(r.stdout, ids[0]) {
		t.Errorf("runs after the rebuild: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}
