package cli_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// reportHashDir returns a digest of every file under root, to check that
// report never modifies a run directory.
func reportHashDir(t testing.TB, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sums[p] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func reportCheckUnchanged(t testing.TB, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("report changed the set of files: %d before, %d after", len(before), len(after))
	}
	for p, s := range before {
		if after[p] != s {
			t.Errorf("report modified %s", p)
		}
	}
}

// TestReportMatchesLiveRun does real null-driver runs and checks that the
// report recomputed from their run directories equals the figures the runs
// saved in summary.json when they finished.
func TestReportMatchesLiveRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"closed loop", []string{"--duration", "2s", "--display-every", "250ms"}},
		{"rated with ramp", []string{"--max-ops", "30000", "--max-rate", "40000", "--ramp", "300ms", "--display-every", "200ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "ycsb", "--driver", "null", "--concurrency", "4", "--results-dir", dir, "--format", "json"}, tc.args...)
			if r := stampede(t, args...); r.code != 0 {
				t.Fatalf("run: exit %d: %s", r.code, r.stderr)
			}
			infos, err := runlog.List(dir)
			if err != nil || len(infos) != 1 {
				t.Fatalf("runs: %v %v", infos, err)
			}
			run, err := runlog.Open(filepath.Join(dir, infos[0].ID))
			if err != nil {
				t.Fatal(err)
			}
			var live struct {
				ElapsedSec float64 `json:"elapsed_s"`
				Ops        []struct {
					Name string `json:"name"`
					stats.Summary
				} `json:"ops"`
				Total  stats.Summary `json:"total"`
				Series []struct {
					Name string `json:"name"`
					stats.Summary
				} `json:"series"`
			}
			if err := json.Unmarshal(run.Summary, &live); err != nil {
				t.Fatal(err)
			}
			before := reportHashDir(t, dir)
			r := stampede(t, "report", infos[0].ID[:len(infos[0].ID)-2], "--results-dir", dir, "--format", "json")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("report: exit %d: %s", r.code, r.stderr)
			}
			reportCheckUnchanged(t, before, reportHashDir(t, dir))
			var v results.View
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("report output is not one JSON object: %v\n%s", err, r.stdout)
			}
			same := func(what string, got, want stats.Summary) {
				t.Helper()
				if got.Count != want.Count || got.Errors != want.Errors || got.Mean != want.Mean || got.Min != want.Min ||
					got.P50 != want.P50 || got.P99 != want.P99 || got.P999 != want.P999 || got.Max != want.Max {
					t.Errorf("%s: recomputed %+v\nlive %+v", what, got, want)
				}
				// The live elapsed time uses the monotonic clock, the run
				// log the wall clock.
				if math.Abs(got.Seconds-want.Seconds) > 0.005 {
					t.Errorf("%s: recomputed over %gs, live %gs", what, got.Seconds, want.Seconds)
				}
			}
			if len(v.Ops) != len(live.Ops) || live.Total.Count == 0 {
				t.Fatalf("recomputed %d ops, live %d (total %d)", len(v.Ops), len(live.Ops), live.Total.Count)
			}
			for i, op := range live.Ops {
				if v.Ops[i].Name != op.Name {
					t.Errorf("op %d: %q, live %q", i, v.Ops[i].Name, op.Name)
				}
				same(op.Name, v.Ops[i].Summary, op.Summary)
			}
			same("total", v.Total, live.Total)
			for _, s := range live.Series {
				if results.IsOp(s.Name) || s.Count == 0 {
					continue
				}
				found := false
				for _, got := range v.Series {
					if got.Name == s.Name {
						found = true
						same(s.Name, got.Summary, s.Summary)
					}
				}
				if !found {
					t.Errorf("series %s missing from the report", s.Name)
				}
			}
			r = stampede(t, "report", filepath.Join(dir, infos[0].ID))
			if r.code != 0 || !strings.Contains(r.stdout, "__result") || !strings.Contains(r.stdout, "run "+infos[0].ID+": ycsb, started ") {
				t.Errorf("text report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

var reportT0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// reportWriteRun writes a deterministic run with a 1.5s ramp-up, under a
// rate (so with .service and .lag series), and returns its directory.
func reportWriteRun(t testing.TB, root, id string, start time.Time, n int, finish bool) string {
	t.Helper()
	series := []string{"read", "update", "read.service", "update.service", "read.lag", "update.lag"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "ycsb", Series: series, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetRampEnd(start.Add(1500 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var ss []runlog.IntervalSeries
		for k, name := range series {
			h := stats.NewHistogram()
			for j := range 100 * (2 - k%2) {
				_ = h.RecordValue(int64(50_000*(k/2+1) + i*20_000 + j*j*37))
			}
			errs := int64(0)
			if name == "update" {
				errs = int64(i % 2)
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: errs})
		}
		s := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(s, s.Add(time.Second), ss, map[string]float64{"reconnects": float64(i / 3)}); err != nil {
			t.Fatal(err)
		}
	}
	if finish {
		if err := w.Finish(start.Add(time.Duration(n)*time.Second), runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
	} else if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, id)
}

// TestReportGolden checks the text and JSON reports of synthetic runs
// against golden files (go test -run Report -update rewrites them).
func TestReportGolden(t *testing.T) {
	root := t.TempDir()
	reportWriteRun(t, root, "20261122-103512-ycsb-aaaa", reportT0, 8, true)
	reportWriteRun(t, root, "20261122-103513-ycsb-bbbb", reportT0.Add(time.Second), 8, true)
	killed := reportWriteRun(t, root, "20261122-103600-ycsb-cccc", reportT0.Add(48*time.Second), 5, false)
	f, err := os.OpenFile(filepath.Join(killed, runlog.HlogFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("Tag=read,53.000000,1.000,0.2,HISTFAAAA")
	f.Close()
	before := reportHashDir(t, root)
	for _, tc := range []struct {
		name, golden string
		args         []string
	}{
		{"text", "report_text.golden", []string{"20261122-103512"}},
		{"window", "report_window.golden", []string{"20261122-103512", "--from", "2s", "--to", "5s"}},
		{"include ramp", "report_ramp.golden", []string{"20261122-103512", "--include-ramp"}},
		{"two clients", "report_merge.golden", []string{"20261122-103512", "20261122-103513"}},
		{"killed", "report_killed.golden", []string{"20261122-103600"}},
		{"json", "report_json.golden", []string{"20261122-103512-ycsb-aaaa", "--format", "json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"report", "--results-dir", root}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got := r.stdout
			if r.stderr != "" {
				got += "--- stderr\n" + r.stderr
			}
			checkGolden(t, tc.golden, got)
		})
	}
	reportCheckUnchanged(t, before, reportHashDir(t, root))
}

// TestReportBadInput checks one-line errors and exit codes for bad input,
// and that no run directory is modified.
func TestReportBadInput(t *testing.T) {
	root := t.TempDir()
	run := reportWriteRun(t, root, "20261122-103512-ycsb-aaaa", reportT0, 4, true)
	reportWriteRun(t, root, "20261122-103513-ycsb-bbbb", reportT0.Add(time.Second), 4, true)
	notRun := filepath.Join(t.TempDir(), "plain")
	if err := os.Mkdir(notRun, 0o755); err != nil {
		t.Fatal(err)
	}
	before := reportHashDir(t, root)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no run", []string{}, 2, "requires at least 1 arg"},
		{"not a run directory", []string{notRun}, 2, "not a stampede run directory"},
		{"missing directory", []string{"./nonexistent/run"}, 2, "run not found"},
		{"unknown id", []string{"20991231"}, 2, `run not found: no run "20991231"`},
		{"ambiguous prefix", []string{"20261122-1035"}, 2, `ambiguous run reference "20261122-1035": matches 2 runs`},
		{"twice", []string{run, "20261122-103512"}, 2, "is given twice"},
		{"malformed from", []string{run, "--from", "10x"}, 2, `--from: malformed time "10x"`},
		{"negative to", []string{run, "--to", "-1s"}, 2, "--to: offset \"-1s\" is negative"},
		{"from and include-ramp", []string{run, "--from", "1s", "--include-ramp"}, 2, "not both"},
		{"bad format", []string{run, "--format", "xml"}, 2, `unknown --format "xml"`},
		{"unknown flag", []string{run, "--bogus"}, 2, "unknown flag: --bogus"},
		{"empty window", []string{run, "--from", "3s", "--to", "2s"}, 1, "the window is empty"},
		{"window after the end", []string{run, "--from", "1m"}, 1, "no complete interval in the window from +1m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"report", "--results-dir", root}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 ||
				!strings.HasPrefix(lines[0], "stampede: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one error line containing %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
		})
	}
	reportCheckUnchanged(t, before, reportHashDir(t, root))
}
