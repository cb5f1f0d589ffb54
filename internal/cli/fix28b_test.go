package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkloadHelp: `stampede ycsb --help` (and -h, the name alone, and
// `stampede help ycsb`) prints help, exit 0, naming the verbs that take
// the workload (pgbench is the pgbench form: -h is its host); a workload line without a verb and without --help is
// still refused (chk28b F5).
func TestWorkloadHelp(t *testing.T) {
	for _, w := range []string{"ycsb", "tpcc", "bank", "sql", "churn", "lambda"} {
		for _, args := range [][]string{{w, "--help"}, {w, "-h"}, {w}, {"help", w}, {w, "--workload", "a", "--help"}} {
			r := stampede(t, args...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
				continue
			}
			for _, want := range []string{w + ": ", "stampede init     " + w, "stampede cleanup  " + w, "`stampede " + w + " [flags] prepare|run|check|cleanup`", "Usage:\n  stampede run " + w} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%v: the help lacks %q:\n%s", args, want, r.stdout)
				}
			}
		}
	}
	r := stampede(t, "ycsb", "--workload", "a")
	checkOneLineError(t, r, 2, "say what to do with ycsb")
}

// TestFix28bClearAnswers: the bad inputs chk28b found answered in Go's or
// cobra's words, each in one clear line (chk28b F9).
func TestFix28bClearAnswers(t *testing.T) {
	file := writeFile(t, "x")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cleanup", "ycsb", "--force-drop=maybe", "--driver", "null"}, 2, `invalid value "maybe" for --force-drop: give true or false: see ` + "`stampede cleanup ycsb --help`"},
		{[]string{"demo", "--keep=maybe"}, 2, `invalid value "maybe" for --keep: give true or false`},
		{[]string{"run", "ycsb", "--telemetry=maybe", "--driver", "null"}, 2, `invalid value "maybe" for --telemetry: give true or false`},
		{[]string{"run", "ycsb", "--tolerate-errors=2", "--driver", "null"}, 2, `invalid value "2" for --tolerate-errors: give true or false`},
		{[]string{"init", "bank", "--drop=yes", "--driver", "null"}, 2, `invalid value "yes" for --drop: give true or false`},
		{[]string{"runs", "--rebuild=x"}, 2, `invalid value "x" for --rebuild: give true or false`},
		{[]string{"workload", "run", "ycsb", "--tolerate-errors=x"}, 2, `invalid value "x" for --tolerate-errors: give true or false`},
		{[]string{"--help=maybe"}, 2, `invalid value "maybe" for --help: give true or false`},
		{[]string{"compare", "20261129-102311-ycsb-e3a0"}, 2, "name two sides to compare: two runs (A B), two groups of runs (A1,A2,... B1,B2,...) or --a-tag/--b-tag key=value"},
		{[]string{"diff", "postgresql://u@h/db"}, 2, "`stampede diff` takes exactly 2 arguments, not 1: usage: stampede diff URL_A URL_B [flags]"},
		{[]string{"proxy", "set"}, 2, "`stampede proxy set` takes exactly 1 argument, not 0: usage: stampede proxy set NAME [faults] [flags]"},
		{[]string{"runs", "upload"}, 2, "`stampede runs upload` takes at least 1 argument, not 0"},
		{[]string{"runs", "extra"}, 2, "unknown command \"extra\" for \"stampede runs\": see `stampede runs --help`"},
		{[]string{"run", "ycsb", "--driver", "null", "--max-ops", "10", "--results-dir", "/proc/1"}, 2, "cannot save results in /proc/1: it exists, but the system refuses new directories in it"},
		{[]string{"run", "ycsb", "--driver", "null", "--max-ops", "10", "--results-dir", file}, 2, "cannot save results in " + file + ": it is not a directory: give --results-dir a directory you can write"},
		{[]string{"diff", "--workload", "oltp_read_write foo bar", "postgresql://u@127.0.0.1:1/a", "postgresql://u@127.0.0.1:1/b"}, 2, `--workload oltp_read_write: unexpected "foo bar": give the workload's flags only`},
		{[]string{"diff", "--workload", "oltp_read_write 'unterminated", "postgresql://u@127.0.0.1:1/a", "postgresql://u@127.0.0.1:1/b"}, 2, `--workload oltp_read_write: unexpected "'unterminated"`},
		{[]string{"pgbench", "-i", "--foreign-keys=x", "db"}, 2, "option --foreign-keys takes no value (--foreign-keys=x): give --foreign-keys alone"},
	} {
		r := stampede(t, tc.args...)
		if tc.args[0] == "pgbench" {
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.want)
			}
			continue
		}
		checkOneLineError(t, r, tc.code, tc.want)
		if strings.Contains(r.stderr, "strconv") || strings.Contains(r.stderr, "arg(s)") || strings.Contains(r.stderr, "mkdir") {
			t.Errorf("%v: Go's or cobra's words: %s", tc.args, r.stderr)
		}
	}
	if _, err := os.Stat("/nonexistent"); err == nil {
		t.Fatal("/nonexistent exists")
	}
}

// TestFix28bVague: chk28b F3's three answers: gen k8s blames the misspelt
// workload even without --clients, gen haproxy refuses --http-port 0
// (taken for 8080 without a word), and a damaged index is named without
// SQLite's raw text, with the rebuild advice once.
func TestFix28bVague(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "k8s", "--image", "x/stampede:1", "--", "run", "ycbs", "postgresql://postgres@db/ycsb"},
			`gen k8s: unknown workload "ycbs" in the clients' command line after --: see ` + "`stampede workloads`"},
		{[]string{"gen", "k8s", "--image", "x/stampede:1", "--clients", "2", "--", "run", "ycbs", "postgresql://postgres@db/ycsb"},
			`gen k8s: unknown workload "ycbs" in the clients' command line after --`},
		{[]string{"gen", "haproxy", "--http-port", "0", "--check", "cockroach", "-o", filepath.Join(dir, "h.cfg"), "postgresql://root@h:26257/db"},
			"gen haproxy: --http-port 0: give the nodes' HTTP port, from 1 to 65535 (leave --http-port out for 8080)"},
		{[]string{"gen", "haproxy", "--http-port", "70000", "--check", "cockroach", "-o", filepath.Join(dir, "h.cfg"), "postgresql://root@h:26257/db"},
			"gen haproxy: --http-port 70000: give the nodes' HTTP port, from 1 to 65535"},
	} {
		checkOneLineError(t, stampede(t, tc.args...), 2, tc.want)
	}
	if _, err := os.Stat(filepath.Join(dir, "h.cfg")); err == nil {
		t.Error("gen haproxy wrote its file")
	}

	res := filepath.Join(dir, "results")
	if err := os.MkdirAll(res, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res, "index.sqlite"), []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "10", "--telemetry=false", "--results-dir", res)
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	var warned []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "cannot index the run") {
			warned = append(warned, l)
		}
	}
	if len(warned) != 1 || strings.Count(warned[0], "stampede runs --rebuild") != 1 || strings.Contains(warned[0], "(26)") ||
		!strings.Contains(warned[0], "index.sqlite is damaged (SQLite cannot read it)") {
		t.Errorf("the warning: %q", warned)
	}
	checkOneLineError(t, stampede(t, "runs", "--results-dir", res), 1, "index.sqlite is damaged (SQLite cannot read it): it only indexes the run directories, so `stampede runs --rebuild` moves it aside")
}

// TestCompareClosedWithRated: compare refuses a closed-loop run (latency
// is service time) beside a rated one (latency from the intended start),
// as report refuses to merge them (chk28b F7b: p99 0.002 ms beside 8.3 ms,
// "B/A 5416.86", without a word); two runs of one kind compare.
func TestCompareClosedWithRated(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for _, extra := range [][]string{nil, {"--max-rate", "1000"}, {"--max-rate", "500"}} {
		r := stampede(t, append([]string{"run", "ycsb", "--driver", "null", "--duration", "300ms", "--telemetry=false", "--results-dir", dir}, extra...)...)
		if r.code != 0 {
			t.Fatalf("run %v: exit %d: %s", extra, r.code, r.stderr)
		}
		entries, _ := filepath.Glob(filepath.Join(dir, "*-ycsb-*"))
		for _, e := range entries {
			if !slices.Contains(ids, filepath.Base(e)) {
				ids = append(ids, filepath.Base(e))
			}
		}
	}
	if len(ids) != 3 {
		t.Fatalf("runs %v", ids)
	}
	r := stampede(t, "compare", "--results-dir", dir, ids[0], ids[1])
	checkOneLineError(t, r, 2, "the runs measured different latencies, which cannot be set side by side: "+ids[0]+" showed each operation's service time (closed loop, or --latency service), "+ids[1]+" latency from each operation's intended start (under a rate)")
	if r := stampede(t, "compare", "--results-dir", dir, ids[1], ids[2]); r.code != 0 {
		t.Errorf("compare of two rated runs: exit %d: %s", r.code, r.stderr)
	}
}
