package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

var compareT0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// compareWriteRun writes a finished run of n 1-second intervals with a
// 1.5s ramp-up. In interval i, read does reads+(i%3)*20 operations taking
// readUs+j/10 µs, and update 100+((i+shift)%2)*10 taking 2ms+j*10µs.
func compareWriteRun(t testing.TB, root, id string, start time.Time, n, reads, readUs, shift int) string {
	t.Helper()
	series := []string{"read", "update"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "ycsb", Series: series, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetRampEnd(start.Add(1500 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		read, update := stats.NewHistogram(), stats.NewHistogram()
		for j := range reads + (i%3)*20 {
			_ = read.RecordValue(int64(readUs*1000 + j*100))
		}
		for j := range 100 + ((i+shift)%2)*10 {
			_ = update.RecordValue(int64(2_000_000 + j*10_000))
		}
		ss := []runlog.IntervalSeries{
			{Name: "read", Hist: read, Count: read.TotalCount()},
			{Name: "update", Hist: update, Count: update.TotalCount(), Errors: int64(i % 2)},
		}
		s := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(s, s.Add(time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(time.Duration(n)*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, id)
}

// compareRuns writes run A and run B, which reads twice as fast.
func compareRuns(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	compareWriteRun(t, root, "20261122-103512-ycsb-aaaa", compareT0, 10, 1000, 200, 0)
	compareWriteRun(t, root, "20261122-113512-ycsb-bbbb", compareT0.Add(time.Hour), 10, 2000, 100, 1)
	return root
}

// TestCompareGolden compares synthetic runs and checks the output against
// golden files (go test -run Compare -update rewrites them).
func TestCompareGolden(t *testing.T) {
	root := compareRuns(t)
	for _, tc := range []struct {
		name, golden string
		args         []string
		stderr       string // the warning expected, if any
	}{
		{"text", "compare_text.golden", []string{"20261122-1035", "20261122-1135"}, ""},
		{"reversed", "compare_reversed.golden", []string{"20261122-113512-ycsb-bbbb", "20261122-103512-ycsb-aaaa"}, ""},
		// The same run on both sides compares nothing: it says so.
		{"same run", "compare_same.golden", []string{"20261122-1035", filepath.Join(root, "20261122-103512-ycsb-aaaa")},
			"warning: A and B are the same run, 20261122-103512-ycsb-aaaa: every ratio is 1 and nothing is compared; give two different runs\n"},
		{"json", "compare_json.golden", []string{"20261122-1035", "20261122-1135", "--format", "json"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"compare", "--results-dir", root}, tc.args...)...)
			if r.code != 0 || r.stderr != tc.stderr {
				t.Fatalf("exit %d, stderr %q; want exit 0, stderr %q", r.code, r.stderr, tc.stderr)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(strings.ReplaceAll(r.stdout, root, "ROOT")))
		})
	}
}

// TestCompareVerdicts checks the figures and the noise test in JSON.
func TestCompareVerdicts(t *testing.T) {
	root := compareRuns(t)
	r := stampede(t, "compare", "--results-dir", root, "20261122-1035", "20261122-1135", "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	type row struct {
		Name  string `json:"name"`
		Ratio struct {
			OpsPerSec *float64 `json:"ops_per_sec"`
			P50       *float64 `json:"p50"`
		} `json:"ratio"`
		Throughput struct {
			NA          int    `json:"n_a"`
			Verdict     string `json:"verdict"`
			Significant bool   `json:"significant"`
		} `json:"throughput"`
	}
	var c struct {
		Ops   []row `json:"ops"`
		Total row   `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Ops) != 2 {
		t.Fatalf("ops %+v", c.Ops)
	}
	read, upd := c.Ops[0], c.Ops[1]
	// The window starts at the ramp-up's end, in interval 1 of 0..9: it
	// takes the intervals that start after it, 2..9.
	if read.Name != "read" || !read.Throughput.Significant || read.Throughput.NA != 8 ||
		*read.Ratio.OpsPerSec < 1.9 || *read.Ratio.OpsPerSec > 2.1 || *read.Ratio.P50 > 1 {
		t.Errorf("read %+v", read)
	}
	if upd.Name != "update" || upd.Throughput.Verdict != "noise" || *upd.Ratio.P50 != 1 {
		t.Errorf("update %+v", upd)
	}
	if c.Total.Name != "__result" || c.Total.Throughput.Verdict != "*" {
		t.Errorf("total %+v", c.Total)
	}
}

func TestCompareBadInput(t *testing.T) {
	root := compareRuns(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no args", nil, 2, "name two sides to compare"},
		{"one arg", []string{"20261122-1035"}, 2, "name two sides to compare"},
		{"three args", []string{"a", "b", "c"}, 2, "`stampede compare` takes at most 2 arguments, not 3"},
		{"unknown run", []string{"20261122-1035", "nosuch"}, 2, `no run "nosuch"`},
		{"ambiguous", []string{"20261122", "20261122-1035"}, 2, "ambiguous run reference"},
		{"not a run", []string{"20261122-1035", root}, 2, "not a stampede run directory"},
		{"bad format", []string{"20261122-1035", "20261122-1135", "--format", "xml"}, 2, `unknown --format "xml"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"compare", "--results-dir", root}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 ||
				!strings.HasPrefix(lines[0], "stampede: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one error line containing %q", r.stderr, tc.want)
			}
		})
	}
}

// TestCompareWorkloadsDiffer checks that comparing runs of two workloads
// says so in a warning (and in the JSON), and still compares them.
func TestCompareWorkloadsDiffer(t *testing.T) {
	root := compareRuns(t)
	path := filepath.Join(root, "20261122-113512-ycsb-bbbb", runlog.RunFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"workload": "ycsb"`, `"workload": "bank"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "compare", "--results-dir", root, "20261122-1035", "20261122-1135")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: run 20261122-103512-ycsb-aaaa is ycsb and run 20261122-113512-ycsb-bbbb is bank") {
		t.Errorf("compare of ycsb and bank: %d %q", r.code, r.stderr)
	}
	r = stampede(t, "compare", "--results-dir", root, "--format", "json", "20261122-1035", "20261122-1135")
	if !strings.Contains(r.stdout, "is ycsb and run") {
		t.Errorf("the JSON's warnings lack the workloads: %s", r.stdout)
	}
}

// TestCompareRealRunsAtTwoRates runs one script against the test server at
// 200 and at 400 operations a second for 4 seconds each and compares them:
// twice the throughput, every interval near its rate, is beyond noise. The
// ratio is checked against the rates asked for (8 workers: at load 30 two
// workers stalled by the scheduler held the 400 back). Before, a run's last
// interval of a few milliseconds (a rate made of one or two operations)
// could turn such a difference into "noise".
func TestCompareRealRunsAtTwoRates(t *testing.T) {
	srv := testServer(t)
	dir, root := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(script, []byte("-- name: one\nSELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, rate := range []string{"200", "400"} {
		mustRun(t, "run", "sql", "-f", script, "--max-rate", rate, "--duration", "4s", "--concurrency", "8",
			"--telemetry=false", "--results-dir", root, srv)
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if p := filepath.Join(root, e.Name()); e.IsDir() && (len(runs) == 0 || runs[0] != p) {
				runs = append(runs, p)
			}
		}
	}
	if len(runs) != 2 {
		t.Fatalf("run directories %v", runs)
	}
	r := mustRun(t, "compare", "--results-dir", root, runs[0], runs[1], "--format", "json")
	type row struct {
		Name  string `json:"name"`
		Ratio struct {
			OpsPerSec *float64 `json:"ops_per_sec"`
		} `json:"ratio"`
		Throughput struct {
			N1          int    `json:"n_a"`
			N2          int    `json:"n_b"`
			Verdict     string `json:"verdict"`
			Significant bool   `json:"significant"`
		} `json:"throughput"`
	}
	var c struct {
		Ops   []row `json:"ops"`
		Total row   `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	for _, op := range append(c.Ops, c.Total) {
		th := op.Throughput
		if th.Verdict != "*" || !th.Significant || th.N1 < 3 || th.N2 < 3 {
			t.Errorf("%s: verdict %q over %d and %d intervals, want \"*\"", op.Name, th.Verdict, th.N1, th.N2)
		}
		if op.Ratio.OpsPerSec == nil {
			t.Errorf("%s: no ops/s ratio, want 2 (400/200)", op.Name)
		} else if *op.Ratio.OpsPerSec < 1.8 || *op.Ratio.OpsPerSec > 2.2 {
			t.Errorf("%s: ops/s B/A %.3f, want 2 (400/200)", op.Name, *op.Ratio.OpsPerSec)
		}
	}
	if len(c.Ops) == 0 {
		t.Errorf("no operations compared: %s", r.stdout)
	}
}
