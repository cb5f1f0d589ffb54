package cli_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// chartRuns does two short null-driver runs with a ramp-up and returns
// their results directory and IDs.
func chartRuns(t *testing.T) (dir string, ids []string) {
	t.Helper()
	dir = t.TempDir()
	for _, rate := range []string{"10000", "20000"} { // both rated: report merges only runs of one kind of latency
		r := stampede(t, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--results-dir", dir,
			"--duration", "1200ms", "--ramp", "300ms", "--display-every", "200ms", "--max-rate", rate, "--tag", "rate="+rate)
		if r.code != 0 {
			t.Fatalf("run: exit %d: %s", r.code, r.stderr)
		}
	}
	infos, err := runlog.List(dir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("runs: %v %v", infos, err)
	}
	return dir, []string{infos[0].ID, infos[1].ID}
}

func TestChartFlag(t *testing.T) {
	dir, ids := chartRuns(t)
	out := t.TempDir()
	before := reportHashDir(t, dir)
	for _, ext := range []string{"svg", "png", "html"} {
		for _, cmd := range [][]string{
			{"report", ids[0]},
			{"report", ids[0], ids[1], "--format", "json"},
			{"compare", ids[0], ids[1]},
		} {
			file := filepath.Join(out, cmd[0]+strings.Join(cmd[1:], "-")+"."+ext)
			args := append(append([]string{}, cmd...), "--results-dir", dir, "--chart", file)
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "chart saved in "+file) {
				t.Errorf("%v: stderr %q does not name the chart", args, r.stderr)
			}
			if r.stdout == "" {
				t.Errorf("%v: no report on stdout", args)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			switch ext {
			case "png":
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				if img.Bounds().Dx() != 1000 {
					t.Errorf("%s: %v", file, img.Bounds())
				}
			case "html":
				// The dashboard's page, self-contained: its script and
				// uPlot inline, every request's answer embedded.
				s := string(b)
				for _, want := range []string{`<script type="application/json" id="stampede-static">`, "function showRun(", "uPlot", `"/api/runs/` + ids[0] + `/series"`} {
					if !strings.Contains(s, want) {
						t.Errorf("%s lacks %q", file, want)
					}
				}
				if strings.Contains(s, " src=") || strings.Contains(s, "<link") {
					t.Errorf("%s loads a file: it must hold everything", file)
				}
				if cmd[0] == "compare" && !strings.Contains(s, `"/api/compare?run=`+ids[0]+`\u0026run=`+ids[1]+`"`) {
					t.Errorf("%s holds no comparison of both runs", file)
				}
			case "svg":
				s := string(b)
				for _, want := range []string{"<svg", "throughput (ops/s)", "read: latency (ms, log scale)", ids[0]} {
					if !strings.Contains(s, want) {
						t.Errorf("%s lacks %q", file, want)
					}
				}
				if cmd[0] == "compare" && (!strings.Contains(s, "A  "+ids[0]) || !strings.Contains(s, "rate=20000")) {
					t.Errorf("%s: the legend does not name both runs", file)
				}
			}
		}
	}
	reportCheckUnchanged(t, before, reportHashDir(t, dir))
}

func TestChartFlagErrors(t *testing.T) {
	dir, ids := chartRuns(t)
	before := reportHashDir(t, dir)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"report bad extension", []string{"report", ids[0], "--chart", "out.jpg"}, 2, "--chart out.jpg: use .svg, .png or .html"},
		{"compare bad extension", []string{"compare", ids[0], ids[1], "--chart", "out"}, 2, "--chart out: use .svg, .png or .html"},
		// Refused before the report is printed (it used to fail after).
		{"missing directory", []string{"report", ids[0], "--chart", filepath.Join(dir, "no", "such", "dir", "c.svg")}, 2, "dir does not exist: create it, or write the chart elsewhere"},
		{"inside a run directory", []string{"report", ids[0], "--chart", filepath.Join(dir, ids[0], "c.svg")}, 2, "inside run directory"},
		{"compare inside a run directory", []string{"compare", ids[0], ids[1], "--chart", filepath.Join(dir, ids[1], "sub", "c.png")}, 2, "inside run directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(tc.args, "--results-dir", dir)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d: %s", r.code, tc.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "stampede: error: ") || !strings.Contains(last, tc.want) {
				t.Errorf("stderr %q, want one error line with %q", r.stderr, tc.want)
			}
			if tc.code == 2 && r.stdout != "" {
				t.Errorf("usage error after output: %q", r.stdout)
			}
		})
	}
	reportCheckUnchanged(t, before, reportHashDir(t, dir))
}

// TestChartTelemetry checks that results.TimeSeries reads the telemetry
// lines a run records (telemetry.Sample as runlog.Writer writes it), and
// that the chart draws them.
func TestChartTelemetry(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	w, err := runlog.Create(dir, runlog.RunInfo{ID: "20261122-100000-ycsb-7e1e", Workload: "ycsb", Series: []string{"read"}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		start := t0.Add(time.Duration(i) * time.Second)
		s := telemetry.Sample{Start: start, End: start.Add(time.Second),
			CPU:   telemetry.CPU{Cores: 2, User: 20, Nice: 1, System: 10, IRQ: 2, SoftIRQ: 3, IOWait: 4, Steal: 5, Idle: 55},
			Disks: []telemetry.Disk{{Name: "vda", ReadKBPerSec: 8, WriteKBPerSec: 4096}},
			Procs: []telemetry.ProcGroup{{Name: "postgres", Processes: 5, CPUCores: 1.25, ReadBytesPerSec: 100, WriteBytesPerSec: 4e6}},
		}
		if err := w.WriteTelemetry(s); err != nil {
			t.Fatal(err)
		}
		h := stats.NewHistogram()
		h.RecordValue(int64(time.Millisecond))
		if err := w.WriteInterval(start, start.Add(time.Second), []runlog.IntervalSeries{{Name: "read", Hist: h, Count: 1}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(3*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	tel := s.Telemetry
	if tel == nil || len(tel.CPU) != 3 || len(tel.Disks) != 1 || len(tel.Procs) != 1 {
		t.Fatalf("telemetry: %+v", tel)
	}
	want := results.CPUPoint{Span: results.Span{From: 1, To: 2}, User: 21, System: 15, Busy: 36, IOWait: 4, Steal: 5, Idle: 55}
	if tel.CPU[1] != want {
		t.Errorf("CPU = %+v, want %+v", tel.CPU[1], want)
	}
	if d := tel.Disks[0]; d.Name != "vda" || d.Points[2].WriteKBPerSec != 4096 || d.Points[2].ReadKBPerSec != 8 {
		t.Errorf("disk: %+v", d)
	}
	if g := tel.Procs[0]; g.Name != "postgres" || g.Points[0].CPUCores != 1.25 || g.Points[0].WriteBytesPerSec != 4e6 || g.Points[0].ReadBytesPerSec != 100 {
		t.Errorf("procs: %+v", g)
	}

	file := filepath.Join(t.TempDir(), "t.svg")
	if r := stampede(t, "report", run.Dir, "--include-ramp", "--chart", file); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"host CPU (% of all CPUs)", "disk vda: I/O (MiB/s)", "watched processes: CPU (cores)", "processes postgres: storage I/O (MiB/s)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
