// Package scripts_test checks the verdicts and parsers of scripts/bench
// (scripts/bench-lib.sh), run through bash as the script runs them.
package scripts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sh runs script in bash (with args as $1...) after sourcing lib.sh and
// bench-lib.sh, in dir, with $figures in dir, and returns its stdout, stderr and whether it
// succeeded.
func sh(t *testing.T, dir, script string, args ...string) (string, string, bool) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	prelude := `set -euo pipefail
source "$SCRIPTS/lib.sh"
source "$SCRIPTS/bench-lib.sh"
figures=$PWD/figures.tsv
STAGE=test
`
	cmd := exec.Command("bash", append([]string{"-c", prelude + script, "bash"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SCRIPTS="+wd)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err == nil
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerdict checks the one function every verdict goes through: a
// figure that was not measured (n/a, or an empty or garbled value: the
// checker of issue 28, F12.1, found an empty one aborting the bench) is
// MISSED when it has a target and NOT MEASURED without one, never an
// error; a target must be a number.
func TestVerdict(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		value, op, target string
		want              string // "" for an error
	}{
		{"0.04", "<=", "0.050", "MET"},
		{"0.050", "<=", "0.050", "MET"},
		{"0.051", "<=", "0.050", "MISSED"},
		{"n/a", "<=", "0.050", "MISSED"},
		{"1.0", ">=", "1.0", "MET"},
		{"0.99", ">=", "1.0", "MISSED"},
		{"-5.1", ">=", "-5", "MISSED"},
		{"-4.9", ">=", "-5", "MET"},
		{"1", "<", "1", "MISSED"},
		{"2", ">", "1", "MET"},
		{"1e-3", "<", "0.01", "MET"},
		{"14.7", "<=", "5", "MISSED"},
		{"3", "-", "-", "INFO"},
		{"n/a", "-", "-", "NOT MEASURED"},
		{"0", ">", "0", "MISSED"},
		{"", ">", "0", "MISSED"},
		{"", "-", "-", "NOT MEASURED"},
		{"fast", "<", "1", "MISSED"},
		{"12abc", "<", "100", "MISSED"},
		{"1", "==", "1", ""},
		{"1", "<=", "-", ""},
		{"1", "<=", "$spread", ""},
		{"1", "-", "3", ""},
	} {
		out, stderr, ok := sh(t, dir, `verdict "$1" "$2" "$3"`+"\n", tc.value, tc.op, tc.target)
		got := strings.TrimSpace(out)
		if tc.want == "" {
			if ok {
				t.Errorf("verdict %q %q %q: %q, want an error", tc.value, tc.op, tc.target, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("verdict %q %q %q: %q (%s), want %s", tc.value, tc.op, tc.target, got, stderr, tc.want)
		}
	}
}

// TestFigureSummary checks that figure prints each figure with its
// verdict and the summary counts them, a figure not measured as MISSED.
func TestFigureSummary(t *testing.T) {
	dir := t.TempDir()
	out, stderr, ok := sh(t, dir, `
figure "pacer lag p99, --pacer precise, 2000 ops/s" 0.0312 ms '<=' 0.050 "3 rounds"
figure "pacer lag p99, --pacer precise, 20000 ops/s" n/a ms '<=' 0.050 "3 rounds"
figure "CPU per transaction / go-tpc's" n/a x '<=' 0.5
figure "haproxy cost" 12.5 % - -
figure "fleet: fewest operations of a tenant" "" ops '>' 0
figure "client max RSS" "garbled" MB '<' 300 "GNU time"
figure "proxy hop" "" us - -
summary
`)
	if !ok {
		t.Fatalf("%s", stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, want := range []struct{ prefix, suffix string }{
		{"pacer lag p99, --pacer precise, 2000 ops/s:", "(target <= 0.050; 3 rounds) MET"},
		{"pacer lag p99, --pacer precise, 20000 ops/s:", "(target <= 0.050; not measured; 3 rounds) MISSED"},
		{"CPU per transaction / go-tpc's:", "(target <= 0.5; not measured) MISSED"},
		{"haproxy cost:", "(no target) INFO"},
		{"fleet: fewest operations of a tenant:", "n/a ops       (target > 0; not measured) MISSED"},
		{"client max RSS:", "(target < 300; not measured (read \"garbled\"); GNU time) MISSED"},
		{"proxy hop:", "(no target; not measured) NOT MEASURED"},
		{"7 figures: 1 MET, 4 MISSED (4 of them not measured), 1 NOT MEASURED, 1 with no target", ""},
	} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, want.prefix) && strings.HasSuffix(l, want.suffix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q...%q in:\n%s", want.prefix, want.suffix, out)
		}
	}
	if n := strings.Count(out, "\ntest "); n != 7 {
		t.Errorf("%d summary lines of stage test, want 7:\n%s", n, out)
	}
	if _, _, ok := sh(t, dir, `figure "base" 3 % '<=' "-$nothing"`+"\n"); ok {
		t.Error("figure accepted a target that is not a number")
	}
}

// TestParsers checks the parsers of tools' output on samples of it, and
// that a figure missing from the output is n/a, never 0, as are the
// arithmetic on it and the medians of rounds that lack it.
func TestParsers(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "pacer.json", `{"total": {"ops_per_sec": 2000.4, "p99_ms": 0.061, "count": 60012},
		"series": [{"name": "read", "p99_ms": 0.06}, {"name": "read.service", "p99_ms": 0.011},
		{"name": "pacer.lag", "p50_ms": 0.002, "p99_ms": 0.0312, "max_ms": 0.9}]}`)
	write(t, dir, "nolag.json", `{"total": {"ops_per_sec": 2000.4, "p99_ms": 0.061, "count": 60012},
		"series": [{"name": "read", "p99_ms": 0.06}]}`)
	write(t, dir, "gotpc.out", `[Current] NEW_ORDER - Takes(s): 10.0, Count: 100, TPM: 600.0
[Summary] DELIVERY - Takes(s): 29.9, Count: 120, TPM: 240.8, Sum(ms): 1.0, Avg(ms): 1.0
[Summary] NEW_ORDER - Takes(s): 30.0, Count: 1300, TPM: 2600.0, Sum(ms): 1.0, Avg(ms): 1.0
[Summary] NEW_ORDER_ERR - Takes(s): 30.0, Count: 7, TPM: 14.0, Sum(ms): 1.0, Avg(ms): 1.0
[Summary] PAYMENT - Takes(s): 30.0, Count: 1250, TPM: 2500.0, Sum(ms): 1.0, Avg(ms): 1.0
tpmC: 2600.0, tpmTotal: 5340.0, efficiency: 2021.8%
`)
	write(t, dir, "gotpc-empty.out", "tpmC: 0.0, efficiency: 0.0%\n")
	write(t, dir, "sb.out", `SQL statistics:
    transactions:                        12345  (411.50 per sec.)
`)
	write(t, dir, "sb-failed.out", "FATAL: unable to connect\n")
	write(t, dir, "run.json", `{"type": "interval", "count": 5}
{"type": "summary", "cumulative": {"count": 448979, "errors": 3, "ops_per_sec": 445622.2}}
`)
	write(t, dir, "run-failed.json", `{"type": "interval", "count": 5}`+"\n")
	write(t, dir, "pg.json", `{"type":"interval","elapsed_s":1.001,"op":"read"}
{"type":"summary","elapsed_s":6.004,"op":"","cumulative":{"count":9000,"errors":0},"extra":{"connect_s":2.313,"reconnects":0}}
`)
	write(t, dir, "held.txt", "setup 0\nsetup 412\nrun 1000\nrun 1000\nrun 1000\nmixed 819\nend 388\n")
	write(t, dir, "held-dropped.txt", "setup 0\nrun 1000\nrun 998\nrun 1000\nend 0\n")
	write(t, dir, "held-failed.txt", "setup 0\nrun 1000\nrun n/a\nend 0\n")
	write(t, dir, "held-none.txt", "setup 0\nsetup 1000\nend 1000\n")
	// GNU time's files: -f '%U %S %M', -f '%e %U %S %M', an empty one (the
	// command did not run) and a garbled one.
	write(t, dir, "usm.time", "1.50 0.25 204800\n")
	write(t, dir, "eusm.time", "Command exited with non-zero status 1\n12.04 3.00 0.50 102400\n")
	write(t, dir, "empty.time", "")
	write(t, dir, "garbled.time", "time: cannot run stampede: No such file\n")
	write(t, dir, "fleet.json", `{"fleet": {"ops_per_tenant_min": 17, "efficiency": {"min": 96.25}}}`)
	for _, tc := range []struct{ script, want string }{
		{"pacer_figures pacer.json", "2000 0.0610 0.0110 0.0020 0.0312 0.9000 60012"},
		{"pacer_figures nolag.json", "2000 0.0610 n/a n/a n/a n/a 60012"},
		{"pacer_figures missing.json", "n/a n/a n/a n/a n/a n/a n/a"},
		{"gotpc_count gotpc.out", "2670"},
		{"gotpc_count gotpc-empty.out", "n/a"},
		{"gotpc_count missing.out", "n/a"},
		{"sysbench_count sb.out", "12345"},
		{"sysbench_count sb-failed.out", "n/a"},
		{"tps_of sb.out", "411.50"},
		{"tps_of sb-failed.out", "n/a"},
		{"stampede_rate run.json", "445622 448979"},
		{"stampede_rate run-failed.json", "n/a n/a"},
		{"stampede_errors run.json", "3"},
		{"stampede_errors run-failed.json", "n/a"},
		{"stampede_field pg.json elapsed_s", "6.004"},
		{"stampede_field pg.json extra.connect_s", "2.313"},
		{"stampede_field pg.json cumulative.errors", "0"},
		{"stampede_field pg.json extra.missing", "n/a"},
		{"stampede_field pg.json cumulative", "n/a"},
		{"stampede_field run-failed.json elapsed_s", "n/a"},
		{"stampede_field missing.json elapsed_s", "n/a"},
		{"held_in_run held.txt", "1000"},
		{"held_in_run held-dropped.txt", "998"},
		{"held_in_run held-failed.txt", "n/a"},
		{"held_in_run held-none.txt", "n/a"},
		{"held_in_run missing.txt", "n/a"},
		{"ratio 3 4", "0.75"},
		{"ratio 3 0", "n/a"},
		{"ratio n/a 4", "n/a"},
		{"per_op_us 1.5 3000", "500.0"},
		{"per_op_us 1.5 n/a", "n/a"},
		{"change_pct 114.7 100", "14.7"},
		{"change_pct 1 n/a", "n/a"},
		{"millions 2500000", "2.50"},
		{"n0 1234567.4", "1,234,567"},
		{"n0 n/a", "n/a"},
		{"median 3 1 2", "2"},
		{"median 4 1 3 2", "2.5"},
		{"median 0.03 n/a 0.02", "n/a"},
		{"median", "n/a"},
		{"fmtn %.3f 0.03125", "0.031"},
		{"fmtn %.3f n/a", "n/a"},
		{"calc '%.0f' 'a * 1e6 / b' 12.5 \"$(gotpc_count gotpc-empty.out)\"", "n/a"},
		{"cpu_of usm.time", "1.75"},
		{"rss_mb usm.time", "210"},
		{"rss_of usm.time", "200"},
		{"wall_of eusm.time", "12.04"},
		{"cpu3_of eusm.time", "3.50"},
		{"rss_timed eusm.time", "105"},
		{"cpu_of empty.time", "n/a"},
		{"rss_mb empty.time", "n/a"},
		{"rss_of garbled.time", "n/a"},
		{"wall_of empty.time", "n/a"},
		{"wall_of garbled.time", "n/a"},
		{"cpu3_of missing.time", "n/a"},
		{"rss_timed garbled.time", "n/a"},
		{"json_num fleet.json fleet.ops_per_tenant_min", "17"},
		{"json_num fleet.json fleet.efficiency.min %.1f", "96.2"},
		{"json_num fleet.json fleet.missing", "n/a"},
		{"json_num missing.json fleet.efficiency.min", "n/a"},
		{"fmtn %.0f \"$(wall_of empty.time)\"", "n/a"},
	} {
		out, stderr, ok := sh(t, dir, tc.script+"\n")
		if got := strings.TrimSpace(out); !ok || got != tc.want {
			t.Errorf("%s: %q (%v, %s), want %q", tc.script, got, ok, stderr, tc.want)
		}
	}
}

// TestPgCPU: pg_cpu adds up, from a /proc made here (clock ticks of
// getconf CLK_TCK), the postmaster's utime, stime, cutime and cstime and
// its live children's utime and stime, and nothing of other processes or
// of the children's own reaped children; a comm with spaces and ')' is
// read past. A postmaster that is gone reads n/a.
func TestPgCPU(t *testing.T) {
	dir := t.TempDir()
	tck, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		t.Fatal(err)
	}
	hz, err := strconv.Atoi(strings.TrimSpace(string(tck)))
	if err != nil {
		t.Fatal(err)
	}
	// stat lays out pid (comm) state ppid, 9 more fields, then utime
	// stime cutime cstime (fields 14 to 17).
	stat := func(pid int, comm string, ppid, ut, st, cut, cst int) {
		if err := os.MkdirAll(filepath.Join(dir, strconv.Itoa(pid)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, strconv.Itoa(pid)), "stat",
			fmt.Sprintf("%d (%s) S %d 1 1 0 -1 4194560 100 0 0 0 %d %d %d %d 20 0 1 0\n", pid, comm, ppid, ut, st, cut, cst))
	}
	stat(100, "postgres", 1, 3*hz, 1*hz, 50*hz, 10*hz)               // 64 s: itself and its reaped backends
	stat(101, "postgres: checkpointer", 100, 2*hz, 2*hz, 7*hz, 7*hz) // 4 s: its own reaped children are not the server's backends
	stat(102, "postgres: bench ycsb 127.0.0.1(4) idle", 100, hz/2, hz/2, 0, 0)
	stat(103, "psql", 1, 9*hz, 9*hz, 9*hz, 9*hz) // not the server's
	out, errOut, ok := sh(t, dir, `PROC=$PWD pg_cpu 100; PROC=$PWD pg_cpu 999`)
	if !ok {
		t.Fatalf("pg_cpu: %s", errOut)
	}
	if want := "69.00\nn/a\n"; out != want {
		t.Errorf("pg_cpu printed %q, want %q (64 + 4 + 1 s, then n/a)", out, want)
	}
}

// TestCPULimit: the cores the server, the clients and other processes
// kept busy, and which is the limit: the largest of the three on a
// machine at least 90% busy, none below.
func TestCPULimit(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string // server s, clients s, wall s, busy %, CPUs
		want string
	}{
		{[]string{"17", "3", "10", "100", "2"}, "server 1.70 of 2 cores busy, clients 0.30, other processes 0.00 (machine 100% busy): the machine is full and the server is the limit"},
		{[]string{"6", "10", "10", "95", "2"}, "server 0.60 of 2 cores busy, clients 1.00, other processes 0.30 (machine 95% busy): the machine is full and the clients are the limit"},
		{[]string{"4", "3", "10", "99", "2"}, "server 0.40 of 2 cores busy, clients 0.30, other processes 1.28 (machine 99% busy): the machine is full and other processes are the limit"},
		{[]string{"8", "2", "10", "60", "2"}, "server 0.80 of 2 cores busy, clients 0.20, other processes 0.20 (machine 60% busy): no CPU is the limit; the load waits (disk, WAL flushes, locks)"},
		{[]string{"n/a", "2", "10", "60", "2"}, "n/a: the server's or the clients' CPU was not measured"},
	} {
		out, errOut, ok := sh(t, dir, `cpu_limit "$@"`, tc.args...)
		if !ok || strings.TrimSpace(out) != tc.want {
			t.Errorf("cpu_limit %v: %q %s, want %q", tc.args, out, errOut, tc.want)
		}
	}
}
