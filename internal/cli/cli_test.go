package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/clitest"

	"github.com/stampede-bench/stampede/internal/cli"
	"github.com/stampede-bench/stampede/runlog"
)

// result is one invocation's exit code and output.
type result struct {
	code           int
	stdout, stderr string
}

func stampede(t testing.TB, args ...string) result {
	t.Helper()
	return stampedeCtx(t, context.Background(), args...)
}

func stampedeCtx(t testing.TB, ctx context.Context, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.MainContext(ctx, args, &out, &errb)
	return result{code, out.String(), errb.String()}
}

// checkOneLineError fails unless r exited with code and its stderr is one
// error line containing want (warnings aside), with no stack trace.
func checkOneLineError(t *testing.T, r result, code int, want string) {
	t.Helper()
	clitest.OneLineError(t, r.code, r.stderr, code, want)
}

// checkFinalError checks that a command that failed after it started its
// work (and may have printed progress) ends with one error line containing
// want, with the exit code; it returns stderr's lines.
func checkFinalError(t *testing.T, r result, code int, want string) []string {
	t.Helper()
	return clitest.FinalError(t, r.code, r.stderr, code, want)
}

func writeFile(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "props")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInput checks that bad input gives a one-line error naming the
// problem, the right exit code, and never a panic.
func TestBadInput(t *testing.T) {
	badProps := writeFile(t, "recordcount=100\nthis line has no separator at all =\n")
	_ = badProps
	malformed := writeFile(t, "recordcount=abc\n")
	sum := writeFile(t, "readproportion=0\nupdateproportion=0\n") // all 0; other sums are rescaled, as YCSB's
	null := []string{"--driver", "null"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"no workload", []string{"run"}, 2, "name a workload"},
		{"unknown workload", []string{"run", "nosuch"}, 2, `unknown workload "nosuch"`},
		{"unknown workload init", []string{"init", "nosuch"}, 2, `unknown workload "nosuch"`},
		{"unknown flag", []string{"run", "ycsb", "--bogus"}, 2, "unknown flag: --bogus"},
		{"negative duration", append([]string{"run", "ycsb", "--duration", "-5s"}, null...), 2, "duration -5s is negative"},
		{"malformed duration", []string{"run", "ycsb", "--duration", "abc"}, 2, "--duration=abc: give a duration with its unit, such as 500ms, 60s or 10m"},
		{"negative op-timeout", append([]string{"run", "ycsb", "--op-timeout", "-1s"}, null...), 2, "op-timeout -1s is negative"},
		{"display-every too short", append([]string{"run", "ycsb", "--display-every", "1ns"}, null...), 2, "--display-every 1ns is shorter than 10ms: use 10ms or more"},
		{"negative max-ops", append([]string{"run", "ycsb", "--max-ops", "-1"}, null...), 2, "max-ops -1 is negative"},
		{"zero concurrency", append([]string{"run", "ycsb", "--concurrency", "0"}, null...), 2, "need at least 1 worker"},
		{"negative threads", append([]string{"oltp_point_select", "--threads=-2", "run"}, null...), 2, "--threads -2: need at least 1 worker"},
		{"negative loader threads", append([]string{"prepare", "oltp_point_select", "--threads=-2"}, null...), 2, "--threads -2: need at least 1 loader"},
		{"zero loaders", append([]string{"init", "ycsb", "--concurrency", "0"}, null...), 2, "--concurrency 0: need at least 1 loader"},
		{"threads disagree", append([]string{"run", "ycsb", "--concurrency", "2", "--threads", "3"}, null...), 2, "disagree"},
		{"bad format", append([]string{"run", "ycsb", "--format", "xml"}, null...), 2, `unknown --format "xml"`},
		{"bad latency", append([]string{"run", "ycsb", "--latency", "p99"}, null...), 2, `unknown --latency "p99"`},
		{"bad tag", append([]string{"run", "ycsb", "--tag", "novalue"}, null...), 2, `malformed --tag "novalue"`},
		{"tag key twice", append([]string{"run", "ycsb", "--tag", "job=mix", "--tag", "job=pair"}, null...), 2,
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"bad io mode", append([]string{"run", "ycsb", "--io-mode", "epoll"}, null...), 2, `unknown --io-mode "epoll"`},
		{"bad client sched", append([]string{"run", "ycsb", "--client-sched", "fifo"}, null...), 2, `unknown --client-sched "fifo": use batch or normal`},
		{"bad gc headroom", append([]string{"run", "ycsb", "--gc-headroom", "lots"}, null...), 2, `bad --gc-headroom: malformed size "lots"`},
		{"negative gc headroom", append([]string{"run", "ycsb", "--gc-headroom", "-1M"}, null...), 2, `bad --gc-headroom: size "-1M" is negative`},
		{"bad driver", []string{"run", "ycsb", "--driver", "oracle"}, 2, `unknown --driver "oracle"`},
		{"not a URL", []string{"run", "ycsb", "localhost:5432"}, 2, `unexpected argument "localhost:5432"`},
		{"wrong scheme", []string{"run", "ycsb", "mysql://u:topsecret@h/db"}, 2, `unsupported URL scheme "mysql"`},
		{"bad port", []string{"run", "ycsb", "postgresql://u:topsecret@h:notaport/db"}, 2, "malformed connection URL"},
		// An '@' in a password, unescaped: the rest of the password is not
		// taken for the host (issue 28: "cannot connect to PwH2x@127.0.0.1").
		{"@ in a password", []string{"run", "ycsb", "--duration", "1s", "postgresql://u:top@secret@127.0.0.1:1/db"}, 2,
			"malformed connection URL postgresql://xxxxx@127.0.0.1:1/db: it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names"},
		{"@ in a password, then /", []string{"run", "ycsb", "--duration", "1s", "postgresql://u:top@sec/ret@127.0.0.1:1/db"}, 2, "write '@' as %40"},
		{"@ in a password, cockroach's form", []string{"workload", "run", "ycsb", "--duration", "1s", "postgresql://u:top@secret@127.0.0.1:1/db"}, 2, "write '@' as %40"},
		{"@ in the results store's password", append([]string{"run", "ycsb", "--duration", "1s", "--results-url", "postgresql://u:top@secret@127.0.0.1:1/db"}, null...), 2,
			"malformed results store URL postgresql://xxxxx@127.0.0.1:1/db: it holds an '@'"},
		{"missing property file", []string{"run", "ycsb", "-P", "/nonexistent/workloada"}, 2, "/nonexistent/workloada"},
		{"malformed property", []string{"run", "ycsb", "-P", malformed}, 2, "recordcount"},
		{"proportions", []string{"run", "ycsb", "-P", sum}, 2, "operation proportions are all 0"},
		{"bad -p", []string{"run", "ycsb", "-p", "requestdistribution=gaussian"}, 2, "gaussian"},
		{"unknown workload letter", []string{"run", "ycsb", "--workload", "z"}, 2, `"z"`},
		{"unreachable server", []string{"run", "ycsb", "--duration", "1s", "postgresql://u:topsecret@127.0.0.1:1/db?connect_timeout=2"}, 1, "cannot connect to 127.0.0.1:1"},
		{"demo args", []string{"demo", "a", "b"}, 2, "`stampede demo` takes at most 1 argument, not 2: usage: stampede demo [URL] [flags]"},
		{"demo bad client sched", []string{"demo", "--client-sched", "rr"}, 2, `unknown --client-sched "rr": use batch or normal`},
		{"sysbench no verb", []string{"oltp_read_write", "--tables=2"}, 2, "say what to do with oltp_read_write"},
		{"sysbench tables=0", []string{"oltp_read_write", "--tables=0", "--driver=null", "run"}, 2, "--tables=0"},
		{"sysbench table_size", []string{"oltp_read_write", "--table_size=-1", "--driver=null", "prepare"}, 2, "table_size"},
		// sysbench accepts dashes for its scripts' underscores.
		{"sysbench table-size", []string{"oltp_read_write", "--table-size=-1", "--driver=null", "prepare"}, 2, "--table-size=-1: need at least 1 row per table"},
		{"sysbench point-selects", []string{"oltp_read_write", "--point-selects=-1", "--driver=null", "run"}, 2, "--point-selects=-1: must not be negative"},
		{"sysbench rand-type", []string{"oltp_point_select", "--rand-type=normal", "--driver=null", "run"}, 2, "--rand-type=normal: unknown distribution"},
		{"sysbench time", []string{"oltp_point_select", "--time=-3", "--driver=null", "run"}, 2, "--time=-3 is negative"},
		{"sysbench output style", []string{"oltp_point_select", "--output-style=mysql", "--driver=null", "run"}, 2, `unknown --output-style "mysql"`},
		{"sysbench db-driver", []string{"oltp_point_select", "--db-driver=mysql", "run"}, 2, `unsupported --db-driver "mysql"`},
		{"sysbench percentile", []string{"oltp_point_select", "--percentile=120", "--driver=null", "run"}, 2, "--percentile 120"},
		{"version args", []string{"version", "x"}, 2, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, tc.code, tc.want)
			if strings.Contains(r.stderr+r.stdout, "topsecret") || strings.Contains(r.stderr+r.stdout, "secret@") || strings.Contains(r.stderr+r.stdout, "ret@") {
				t.Errorf("password leaked: %s", r.stderr)
			}
		})
	}
}

func TestWorkloadsAndVersion(t *testing.T) {
	r := stampede(t, "workloads")
	if r.code != 0 || !strings.Contains(r.stdout, "ycsb") {
		t.Errorf("workloads: %d %q", r.code, r.stdout)
	}
	r = stampede(t, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "stampede ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
	r = stampede(t, "run", "ycsb", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Examples:") || !strings.Contains(r.stdout, "--max-rate") {
		t.Errorf("help: %d %q", r.code, r.stdout)
	}
}

// TestNullRun runs YCSB on the null driver and checks the text output
// and the saved run directory.
func TestNullRun(t *testing.T) {
	dir := t.TempDir()
	r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--display-every", "250ms",
		"--concurrency", "2", "--seed", "42", "--results-dir", dir, "--tag", "purpose=test")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"_elapsed___errors__ops/sec(inst)", " read\n", " update\n", "__result"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "seed 42") || !strings.Contains(r.stderr, "results saved in "+dir) {
		t.Errorf("stderr: %s", r.stderr)
	}
	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	info := runs[0]
	if info.Seed != 42 || info.Status != "completed" || info.Tags["purpose"] != "test" || info.End == nil {
		t.Errorf("run.json: %+v", info)
	}
	run, err := runlog.Open(filepath.Join(dir, info.ID))
	if err != nil {
		t.Fatal(err)
	}
	ivs, err := run.Intervals()
	if err != nil || len(ivs) < 3 {
		t.Fatalf("intervals: %d %v", len(ivs), err)
	}
	var sum struct {
		Ops []struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
		} `json:"ops"`
		Total struct {
			Count int64 `json:"count"`
		} `json:"total"`
	}
	if err := json.Unmarshal(run.Summary, &sum); err != nil {
		t.Fatal(err)
	}
	var logged int64
	for _, iv := range ivs {
		for name, s := range iv.Series {
			if name == "read" || name == "update" {
				logged += s.Count
			}
		}
	}
	if sum.Total.Count == 0 || logged != sum.Total.Count {
		t.Errorf("interval log holds %d operations, summary %d", logged, sum.Total.Count)
	}
}

func TestNullRunJSON(t *testing.T) {
	r := stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "20000", "--format", "json",
		"--results-dir", t.TempDir(), "--max-rate", "40000", "--display-every", "200ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	types := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		types[obj["type"].(string)]++
	}
	if types["summary"] != 1 || types["final"] < 2 {
		t.Errorf("object types %v", types)
	}
}
