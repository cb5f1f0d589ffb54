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

	"github.com/stampede-bench/stampede/internal/golden"
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

// TestReportMatchesLiveRun does real runs (null driver, and against the
// test PostgreSQL) and checks that the report recomputed from each run
// directory's default window equals, exactly, what the run printed when it
// finished (its final lines and __result, in JSON or text) and saved in
// summary.json: counts, errors, every percentile, the seconds and ops/s.
// The ramp-ups end between ticks, on a tick's heels (where the engine ends
// no interval of its own) and at the run's start; the run ends with a
// partial interval. In text, the whole final block reads the same, the
// lines under __result included (reconnects, YCSB's read_return_ok).
func TestReportMatchesLiveRun(t *testing.T) {
	type runCase struct {
		name string
		args []string
		text bool // text output rather than JSON
	}
	null := []string{"--driver", "null", "--concurrency", "4"}
	cases := []runCase{
		{"closed loop", append([]string{"--duration", "2s", "--display-every", "250ms"}, null...), false},
		{"rated with ramp", append([]string{"--max-ops", "30000", "--max-rate", "40000", "--ramp", "300ms", "--display-every", "200ms"}, null...), false},
		{"ramp just after a tick", append([]string{"--duration", "1s", "--ramp", "205ms", "--display-every", "100ms"}, null...), true},
		{"ramp between ticks", append([]string{"--duration", "1s", "--ramp", "250ms", "--display-every", "100ms"}, null...), true},
		{"service latency", append([]string{"--max-ops", "3000", "--max-rate", "5000", "--latency", "service", "--display-every", "200ms"}, null...), true},
	}
	if srv := os.Getenv("STAMPEDE_TEST_DATABASE"); srv != "" {
		db := freshDB(t, "stampede_report_live")
		pg := []string{"--db", db, "-p", "recordcount=500", "--concurrency", "2", srv}
		if r := stampede(t, append([]string{"init", "ycsb"}, pg...)...); r.code != 0 {
			t.Fatalf("init: %d %s", r.code, r.stderr)
		}
		cases = append(cases,
			runCase{"postgres", append([]string{"--duration", "1s", "--ramp", "305ms", "--display-every", "100ms"}, pg...), false},
			runCase{"postgres text", append([]string{"--duration", "1s", "--ramp", "250ms", "--display-every", "200ms"}, pg...), true})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", "ycsb", "--results-dir", dir}, tc.args...)
			if !tc.text {
				args = append(args, "--format", "json")
			}
			runOut := stampede(t, args...)
			if runOut.code != 0 {
				t.Fatalf("run: exit %d: %s", runOut.code, runOut.stderr)
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
			// Every field, the seconds and ops/s included, is equal.
			same := func(what string, got, want stats.Summary) {
				t.Helper()
				if got != want {
					t.Errorf("%s: recomputed %+v\nlive       %+v", what, got, want)
				}
			}
			if len(v.Ops) != len(live.Ops) || live.Total.Count == 0 {
				t.Fatalf("recomputed %d ops, live %d (total %d)", len(v.Ops), len(live.Ops), live.Total.Count)
			}
			if v.Seconds != live.ElapsedSec || len(v.Taken) != 1 || v.Taken[0].Seconds != live.ElapsedSec {
				t.Errorf("recomputed over %gs (taken %+v), live %gs", v.Seconds, v.Taken, live.ElapsedSec)
			}
			if got := v.Total.Rate * v.Seconds; math.Abs(got-float64(v.Total.Count)) > 1e-9*float64(v.Total.Count) {
				t.Errorf("%g ops/s × %gs = %g, not the %d ops", v.Total.Rate, v.Seconds, got, v.Total.Count)
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
			text := stampede(t, "report", filepath.Join(dir, infos[0].ID))
			if text.code != 0 || !strings.Contains(text.stdout, "__result") || !strings.Contains(text.stdout, "run "+infos[0].ID+": ycsb, started ") {
				t.Errorf("text report: exit %d\n%s%s", text.code, text.stdout, text.stderr)
			}
			if tc.text {
				// The final block, per operation and __result, reads
				// the same.
				got, want := finalBlock(text.stdout), finalBlock(runOut.stdout)
				if got != want || !strings.Contains(want, "  read_return_ok: ") {
					t.Errorf("report's final block\n%s\nthe run's\n%s", got, want)
				}
				// And the telemetry block under it: the same samples.
				if got, want := telemetryBlock(text.stdout), telemetryBlock(runOut.stdout); got != want || want == "" {
					t.Errorf("report's telemetry\n%s\nthe run's\n%s", got, want)
				}
				return
			}
			// The run's final JSON lines: one per operation, then the
			// total.
			var finals []struct {
				Type       string        `json:"type"`
				Op         string        `json:"op"`
				Cumulative stats.Summary `json:"cumulative"`
			}
			for _, line := range strings.Split(strings.TrimSpace(runOut.stdout), "\n") {
				var f struct {
					Type       string        `json:"type"`
					Op         string        `json:"op"`
					Cumulative stats.Summary `json:"cumulative"`
				}
				if err := json.Unmarshal([]byte(line), &f); err == nil && (f.Type == "final" || f.Type == "summary") {
					finals = append(finals, f)
				}
			}
			if len(finals) != len(v.Ops)+1 || finals[len(finals)-1].Type != "summary" {
				t.Fatalf("the run printed %d final lines for %d ops", len(finals), len(v.Ops))
			}
			for i, op := range v.Ops {
				if finals[i].Op != op.Name {
					t.Errorf("final line %d is %q, report's op %q", i, finals[i].Op, op.Name)
				}
				same("printed "+op.Name, op.Summary, finals[i].Cumulative)
			}
			same("printed total", v.Total, finals[len(finals)-1].Cumulative)
		})
	}
}

// finalBlock returns the lines of a text report's final block, from the
// per-operation header through the __result line and the lines under it
// (reconnects, reconnects@ENDPOINT, failures by code, the workload's
// figures such as YCSB's read_return_ok), up to the first blank line.
// telemetryBlock returns the telemetry block of a final block: from its
// "telemetry:" line to the next empty line.
func telemetryBlock(out string) string {
	i := strings.Index(out, "\ntelemetry: ")
	if i < 0 {
		return ""
	}
	rest := out[i+1:]
	if k := strings.Index(rest, "\n\n"); k >= 0 {
		rest = rest[:k+1]
	}
	return rest
}

func finalBlock(out string) string {
	i := strings.Index(out, "_elapsed___errors_____ops(total)")
	if i < 0 {
		return ""
	}
	j := strings.Index(out[i:], "__result\n")
	if j < 0 {
		return ""
	}
	end := i + j + len("__result\n")
	rest := out[end:]
	if k := strings.Index(rest, "\n\n"); k >= 0 {
		rest = rest[:k+1]
	}
	return out[i:end] + rest
}

var reportT0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// reportWriteRun writes a deterministic run with a 1.5s ramp-up, under a
// rate (so with .service and .lag series), and returns its directory.
func reportWriteRun(t testing.TB, root, id string, start time.Time, n int, finish bool) string {
	t.Helper()
	return reportWriteSeries(t, root, id, start, n, finish, []string{"read", "update", "read.service", "update.service", "read.lag", "update.lag"})
}

// reportWriteClosedRun writes a finished closed-loop run as reportWriteRun
// does: its operations' series alone, which hold service times.
func reportWriteClosedRun(t testing.TB, root, id string, start time.Time, n int) string {
	t.Helper()
	return reportWriteSeries(t, root, id, start, n, true, []string{"read", "update"})
}

// reportWriteSeries writes the run reportWriteRun describes with the
// given series.
func reportWriteSeries(t testing.TB, root, id string, start time.Time, n int, finish bool, series []string) string {
	t.Helper()
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
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(got))
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
	reportWriteClosedRun(t, root, "20261122-103700-ycsb-dddd", reportT0.Add(108*time.Second), 4)
	reportWriteClosedRun(t, root, "20261122-103701-ycsb-eeee", reportT0.Add(109*time.Second), 4)
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
		{"no run", []string{}, 2, "name the runs to report: run ids, prefixes or directories, or --tag key=value"},
		{"not a run directory", []string{notRun}, 2, "not a stampede run directory"},
		{"malformed tag", []string{"--tag", "novalue"}, 2, `malformed --tag "novalue": use key=value`},
		{"tag key twice", []string{"--tag", "job=mix", "--tag", "job=pair"}, 2, "--tag job=mix and --tag job=pair give the key job two values"},
		{"empty tag value no run has", []string{"--tag", "job="}, 2, "no run under"},
		{"missing directory", []string{"./nonexistent/run"}, 2, "run not found"},
		{"unknown id", []string{"20991231"}, 2, `run not found: no run "20991231"`},
		{"ambiguous prefix", []string{"20261122-1035"}, 2, `ambiguous run reference "20261122-1035": matches 2 runs`},
		{"twice", []string{run, "20261122-103512"}, 2, "is given twice"},
		{"malformed from", []string{run, "--from", "10x"}, 2, `--from: malformed time "10x"`},
		{"negative to", []string{run, "--to", "-1s"}, 2, "--to: offset \"-1s\" is negative"},
		{"from and include-ramp", []string{run, "--from", "1s", "--include-ramp"}, 2, "not both"},
		{"bad format", []string{run, "--format", "xml"}, 2, `unknown --format "xml"`},
		{"unknown flag", []string{run, "--bogus"}, 2, "unknown flag: --bogus"},
		{"--from after --to", []string{run, "--from", "3s", "--to", "2s"}, 2, "the window is empty: --from 3s is not before --to 2s; give a --to after --from"},
		{"--from equal to --to", []string{run, "--from", "2s", "--to", "2s"}, 2, "the window is empty: --from 2s is not before --to 2s"},
		{"--to before the ramp-up's end", []string{run, "--to", "1s"}, 2, "the window --to 1s (starting at the ramp-up's end, +1.5s) is empty: its intervals span +0s to +4s, its ramp-up ended at +1.5s; give --from, or --include-ramp, to start it earlier"},
		{"window after the run", []string{run, "--from", "1m"}, 2, "run 20261122-103512-ycsb-aaaa: the window --from 1m0s lies after the run: its intervals span +0s to +4s"},
		{"window before the run", []string{run, "--from", "2026-11-22T10:00:00Z", "--to", "2026-11-22T10:35:00Z"}, 2, "lies before the run: its intervals span +0s to +4s"},
		{"window shorter than an interval", []string{run, "--from", "1500ms", "--to", "1600ms"}, 2, "the window --from 1.5s --to 1.6s is shorter than the run's intervals there (1s) and holds none: an interval counts when it starts in the window; the nearest exact window is --from 1s --to 2s"},
		{"window in no run", []string{run, "20261122-103513", "--from", "1m"}, 2, "none of the 2 runs has an interval in the window: run 20261122-103512-ycsb-aaaa: the window --from 1m0s lies after the run"},
		{"closed loop and rated", []string{"20261122-103700", run}, 2, "the runs measured different latencies, which one figure cannot merge: 20261122-103700-ycsb-dddd showed each operation's service time (closed loop, or --latency service), 20261122-103512-ycsb-aaaa showed latency from each operation's intended start (under a rate); report them separately: stampede report 20261122-103700-ycsb-dddd, then stampede report 20261122-103512-ycsb-aaaa"},
		{"two closed loop and two rated", []string{"20261122-103512", "20261122-103700", "20261122-103513", "20261122-103701", "--format", "json"}, 2,
			"20261122-103700-ycsb-dddd 20261122-103701-ycsb-eeee all showed each operation's service time (closed loop, or --latency service), 20261122-103512-ycsb-aaaa 20261122-103513-ycsb-bbbb all showed latency from each operation's intended start (under a rate); report them separately: stampede report 20261122-103700-ycsb-dddd 20261122-103701-ycsb-eeee, then stampede report 20261122-103512-ycsb-aaaa 20261122-103513-ycsb-bbbb"},
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

// TestReportSameLatency checks that report merges runs whose latencies
// mean the same thing, closed-loop runs together and rated runs together,
// and that the merge of two closed-loop runs counts both runs' operations.
func TestReportSameLatency(t *testing.T) {
	root := t.TempDir()
	reportWriteClosedRun(t, root, "20261122-103700-ycsb-dddd", reportT0, 4)
	reportWriteClosedRun(t, root, "20261122-103701-ycsb-eeee", reportT0.Add(time.Second), 4)
	reportWriteRun(t, root, "20261122-103512-ycsb-aaaa", reportT0, 4, true)
	reportWriteRun(t, root, "20261122-103513-ycsb-bbbb", reportT0.Add(time.Second), 4, true)
	for _, tc := range []struct {
		name string
		runs []string
	}{
		{"closed loop", []string{"20261122-103700", "20261122-103701"}},
		{"rated", []string{"20261122-103512", "20261122-103513"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"report", "--results-dir", root, "--format", "json"}, tc.runs...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var v results.View
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatal(err)
			}
			// Each run's window takes its intervals after the 1.5 s
			// ramp-up (2 of 4), each with 200 reads.
			reads := int64(-1)
			for _, op := range v.Ops {
				if op.Name == "read" {
					reads = op.Summary.Count
				}
			}
			if reads != 2*2*200 {
				t.Errorf("read: %d operations merged (-1: none), want 800", reads)
			}
			if len(v.Runs) != 2 {
				t.Errorf("runs %v, want 2", v.Runs)
			}
		})
	}
}
