package chart_test

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testOut, when set, is a directory the tests also write their charts to,
// for looking at them.
var testOut = os.Getenv("STAMPEDE_CHART_TEST_OUT")

var t0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// synthetic returns a small run: n intervals of 1s, a ramp-up of 2s,
// read and update operations (update errs in two intervals and does
// nothing in one), and telemetry with one disk that does I/O, one that
// does not, and a process group. k varies the figures.
func synthetic(id string, n int, k float64, tags map[string]string) chart.Run {
	s := results.Series{ID: id, Workload: "ycsb", Start: t0, Tags: tags, RampEnd: 2}
	read := results.OpSeries{Name: "read"}
	upd := results.OpSeries{Name: "update"}
	tel := &results.Telemetry{
		Disks: []results.DiskSeries{{Name: "vda"}, {Name: "loop0"}},
		Procs: []results.ProcSeries{{Name: "postgres"}},
	}
	for i := range n {
		f := float64(i)
		sp := results.Span{From: f, To: f + 1}
		ramp := min(1, (f+1)/2)
		r := results.OpPoint{Span: sp, Count: int64(9000 * ramp * k), Rate: 9000 * ramp * k,
			P50: 0.4 * k, P95: 1.1 * k, P99: 2.5*k + f/10, Max: 9 * k}
		u := results.OpPoint{Span: sp, Count: int64(1000 * ramp * k), Rate: 1000 * ramp * k,
			P50: 2 * k, P95: 7 * k, P99: 15*k + f, Max: 40 * k}
		if i == 3 {
			u = results.OpPoint{Span: sp, Errors: 4}
		}
		if i == 5 {
			u.Errors = 1
		}
		read.Points = append(read.Points, r)
		upd.Points = append(upd.Points, u)
		tel.CPU = append(tel.CPU, results.CPUPoint{Span: sp, User: 40 * k, System: 15, Busy: 40*k + 15, IOWait: 3 + f, Idle: 42 - 40*k - f})
		tel.Disks[0].Points = append(tel.Disks[0].Points, results.DiskPoint{Span: sp, ReadKBPerSec: 100, WriteKBPerSec: 5000 * k * ramp})
		tel.Disks[1].Points = append(tel.Disks[1].Points, results.DiskPoint{Span: sp})
		tel.Procs[0].Points = append(tel.Procs[0].Points, results.ProcPoint{Span: sp, CPUCores: 1.2 * k * ramp, WriteBytesPerSec: 4e6 * k})
	}
	s.Ops = []results.OpSeries{read, upd}
	s.Telemetry = tel
	total := stats.Summary{Count: int64(10000 * k * float64(n-2)), Errors: 5, Seconds: float64(n - 2), Rate: 10000 * k,
		Mean: 0.7 * k, P50: 0.4 * k, P95: 1.3 * k, P99: 9 * k, P999: 20 * k, Max: 40 * k}
	view := results.View{Runs: []string{id}, From: t0.Add(2 * time.Second), To: t0.Add(time.Duration(n) * time.Second),
		Seconds: float64(n - 2), Intervals: n - 2, Total: total,
		Ops: []results.OpView{{Name: "read", Summary: total}, {Name: "update", Summary: total}}}
	return chart.Run{Series: s, View: view}
}

func render(t *testing.T, f chart.Format, in chart.Input) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := chart.Write(&b, f, in); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := chart.Write(&again, f, in); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), again.Bytes()) {
		t.Fatalf("%v output differs between two renderings of the same input", f)
	}
	return b.Bytes()
}

func inputs() map[string]chart.Input {
	a := synthetic("20261122-103512-ycsb-aaaa", 8, 1, map[string]string{"variant": "base", "db": "pg<16>"})
	a.Label = "A"
	b := synthetic("20261122-113512-ycsb-bbbb", 7, 1.4, nil)
	b.Label = "B"
	return map[string]chart.Input{
		"single":  {Runs: []chart.Run{synthetic("20261122-103512-ycsb-aaaa", 8, 1, map[string]string{"variant": "base"})}},
		"compare": {Runs: []chart.Run{a, b}},
	}
}

func TestSVGGolden(t *testing.T) {
	for name, in := range inputs() {
		t.Run(name, func(t *testing.T) {
			got := render(t, chart.SVG, in)
			golden := filepath.Join("testdata", name+".svg.golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./chart -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("SVG differs from %s; if the change is intended, run go test ./chart -update and look at the result", golden)
			}
			for _, want := range []string{
				`<svg xmlns="http://www.w3.org/2000/svg"`,
				"throughput (ops/s)",
				"latency (ms, log scale)",
				"host CPU (% of all CPUs)",
				"errors in 3-4 s</title>",
				"not drawn, disks without I/O during the run: loop0",
			} {
				if !bytes.Contains(got, []byte(want)) {
					t.Errorf("SVG lacks %q", want)
				}
			}
			if bytes.Contains(got, []byte(`class="hv"`)) {
				t.Error("standalone SVG has hover bands")
			}
			if name == "compare" && !bytes.Contains(got, []byte("db=pg&lt;16&gt; variant=base")) {
				t.Error("tags are not escaped, or not in the legend")
			}
			if testOut != "" {
				os.WriteFile(filepath.Join(testOut, name+".svg"), got, 0o644)
			}
		})
	}
}

func TestPNG(t *testing.T) {
	for name, in := range inputs() {
		t.Run(name, func(t *testing.T) {
			b := render(t, chart.PNG, in)
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			// The PNG is the SVG's drawing: same size.
			svg := render(t, chart.SVG, in)
			m := regexp.MustCompile(`width="(\d+)" height="(\d+)"`).FindSubmatch(svg)
			w, _ := strconv.Atoi(string(m[1]))
			h, _ := strconv.Atoi(string(m[2]))
			if got := img.Bounds(); got.Dx() != w || got.Dy() != h || w != 1000 || h < 800 {
				t.Errorf("PNG is %v, SVG %dx%d", got, w, h)
			}
			// Corners are white; the drawing is not blank.
			if r, g, bb, _ := img.At(0, 0).RGBA(); r>>8 != 0xff || g>>8 != 0xff || bb>>8 != 0xff {
				t.Errorf("corner is %v, want white", img.At(0, 0))
			}
			colours := map[uint32]bool{}
			for y := 0; y < h; y += 3 {
				for x := 0; x < w; x += 3 {
					r, g, b, _ := img.At(x, y).RGBA()
					colours[r>>8<<16|g>>8<<8|b>>8] = true
				}
			}
			if len(colours) < 20 {
				t.Errorf("only %d colours in the PNG", len(colours))
			}
			if testOut != "" {
				os.WriteFile(filepath.Join(testOut, name+".png"), b, 0o644)
			}
		})
	}
}

func TestHTML(t *testing.T) {
	in := inputs()["compare"]
	got := string(render(t, chart.HTML, in))
	svg := string(render(t, chart.SVG, in))
	for _, want := range []string{
		"<!DOCTYPE html>",
		"<title>ycsb: 20261122-103512-ycsb-aaaa vs 20261122-113512-ycsb-bbbb</title>",
		`<svg xmlns="http://www.w3.org/2000/svg"`,
		`class="hv"><title>3-4 s&#xA;A p99: 2.80 ms`,
		"B update: 4 errors in 3-4 s",
		"<caption>A: 20261122-103512-ycsb-aaaa (db=pg&lt;16&gt; variant=base), ycsb",
		"<td>total</td>",
		"</html>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Every shape of the SVG is in the page.
	if !strings.Contains(got, svg[strings.Index(svg, "<rect"):strings.Index(svg, "</svg>")][:2000]) {
		t.Error("the page does not contain the chart's SVG")
	}
	if testOut != "" {
		os.WriteFile(filepath.Join(testOut, "compare.html"), []byte(got), 0o644)
	}
}

func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		want chart.Format
		err  string
	}{
		{"a.svg", chart.SVG, ""},
		{"dir/b.PNG", chart.PNG, ""},
		{"c.html", chart.HTML, ""},
		{"out.jpg", 0, "out.jpg: use .svg, .png or .html"},
		{"noext", 0, "noext: use .svg, .png or .html"},
	} {
		got, err := chart.FormatOf(tc.path)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("FormatOf(%q) = %v, %v; want %v, %q", tc.path, got, err, tc.want, tc.err)
		}
	}
	if err := chart.Write(&bytes.Buffer{}, chart.SVG, chart.Input{}); err == nil {
		t.Error("Write with no run: no error")
	}
}

// TestEmptyRun checks what the chart of a run without intervals draws: the
// header, a throughput panel with its frame, axes and labels, "no data" in
// the plot, and a note that says why; in every format.
func TestEmptyRun(t *testing.T) {
	in := chart.Input{Runs: []chart.Run{{Series: results.Series{ID: "x", Workload: "kv", Start: t0}}}}
	svg := string(render(t, chart.SVG, in))
	for _, want := range []string{
		`>kv | run x | 2026-11-22 10:35:12 UTC</text>`, // the header
		`>throughput (ops/s)</text>`,                   // the panel's title and unit
		`text-anchor="middle" fill="#666666" xml:space="preserve">no data</text>`,
		`>seconds since start</text>`, // the x axis's label
		`>note: no data: the run recorded no operation, error or telemetry sample to draw</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the empty run's SVG lacks %q:\n%s", want, svg)
		}
	}
	// The axes: tick labels from 0 to 1 on both (no data gives them no
	// other range), and the plot's frame, a closed rectangle.
	ticks := regexp.MustCompile(`text-anchor="(middle|end)" fill="#666666" xml:space="preserve">([0-9.]+)</text>`).FindAllStringSubmatch(svg, -1)
	var x, y []string
	for _, m := range ticks {
		if m[1] == "middle" {
			x = append(x, m[2])
		} else {
			y = append(y, m[2])
		}
	}
	if len(x) < 2 || x[0] != "0.0" || x[len(x)-1] != "1.0" || len(y) < 2 || y[0] != "0.0" || y[len(y)-1] != "1.0" {
		t.Errorf("axis tick labels: x %v, y %v; want both from 0 to 1", x, y)
	}
	if !regexp.MustCompile(`<polyline fill="none" stroke="#b0b0b0" stroke-width="1" stroke-linejoin="round" points="70\.5,([0-9.]+) 975\.5,([0-9.]+) 975\.5,([0-9.]+) 70\.5,([0-9.]+) 70\.5,([0-9.]+)"/>`).MatchString(svg) {
		t.Errorf("no plot frame in the empty run's SVG:\n%s", svg)
	}
	if strings.Contains(svg, "stroke-width=\"1.6\"") {
		t.Errorf("the empty run's SVG draws a data line")
	}

	page := string(render(t, chart.HTML, in))
	for _, want := range []string{">throughput (ops/s)</text>", ">no data</text>", "note: no data: the run recorded no operation"} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty run's HTML lacks %q", want)
		}
	}

	b := render(t, chart.PNG, in)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`width="(\d+)" height="(\d+)"`).FindStringSubmatch(svg)
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	if got := img.Bounds(); got.Dx() != w || got.Dy() != h || h < 200 {
		t.Errorf("PNG is %v, SVG %dx%d; want the same size, with room for a panel", got, w, h)
	}
	// The frame's left edge is drawn: a dark pixel on the plot's border.
	dark := 0
	for y := 0; y < h; y++ {
		if r, g, bb, _ := img.At(70, y).RGBA(); r>>8 < 0xc0 && g>>8 < 0xc0 && bb>>8 < 0xc0 {
			dark++
		}
	}
	if dark < 100 {
		t.Errorf("the PNG's plot frame is missing: %d dark pixels on its left edge", dark)
	}
	if testOut != "" {
		os.WriteFile(filepath.Join(testOut, "empty.svg"), []byte(svg), 0o644)
		os.WriteFile(filepath.Join(testOut, "empty.png"), b, 0o644)
	}
}

// TestShortLastInterval charts a synthetic run directory whose last
// interval lasted 11 ms (53 operations after three seconds held at 4000
// ops/s, and telemetry at 34% iowait): it is drawn merged into the second
// before it, not as a point of its own at 4.8k ops/s and 34% iowait.
func TestShortLastInterval(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-kv-short", Workload: "kv", Series: []string{"write"}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	type sample struct {
		Start time.Time `json:"start"`
		End   time.Time `json:"end"`
		CPU   struct {
			User   float64 `json:"user_pct"`
			IOWait float64 `json:"iowait_pct"`
			Idle   float64 `json:"idle_pct"`
		} `json:"cpu"`
	}
	if err := w.WriteTelemetry(sample{Start: t0, End: t0}); err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	for _, iv := range []struct {
		from, to time.Duration
		n        int
		iowait   float64
	}{{0, 1000 * ms, 4000, 2}, {1000 * ms, 2000 * ms, 4000, 2}, {2000 * ms, 3000 * ms, 4000, 2}, {3000 * ms, 3011 * ms, 53, 34}} {
		h := stats.NewHistogram()
		for i := range iv.n {
			_ = h.RecordValue(int64(1e6 + i))
		}
		start, end := t0.Add(iv.from), t0.Add(iv.to)
		if err := w.WriteInterval(start, end, []runlog.IntervalSeries{{Name: "write", Hist: h, Count: h.TotalCount()}}, nil); err != nil {
			t.Fatal(err)
		}
		s := sample{Start: start, End: end}
		s.CPU.User, s.CPU.IOWait, s.CPU.Idle = 20, iv.iowait, 80-iv.iowait
		if err := w.WriteTelemetry(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(3011*ms), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(filepath.Join(root, "20261122-103512-kv-short"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	page := string(render(t, chart.HTML, chart.Input{Runs: []chart.Run{{Series: s}}}))
	bands := regexp.MustCompile(`class="hv"><title>([0-9.]+-[0-9.]+ s)&#xA;([^<]*)</title>`).FindAllStringSubmatch(page, -1)
	var throughput, cpu []string
	for _, b := range bands {
		switch {
		case strings.HasPrefix(b[2], "write: "):
			throughput = append(throughput, b[1]+" "+b[2])
		case strings.HasPrefix(b[2], "user+system: "):
			cpu = append(cpu, b[1]+" "+strings.ReplaceAll(b[2], "&#xA;", " | "))
		}
	}
	want := []string{"0-1 s write: 4000 ops/s", "1-2 s write: 4000 ops/s", "2-3.01 s write: 4009 ops/s"}
	if strings.Join(throughput, "; ") != strings.Join(want, "; ") {
		t.Errorf("throughput points:\n  %s\nwant\n  %s", strings.Join(throughput, "\n  "), strings.Join(want, "\n  "))
	}
	if len(cpu) != 3 || !strings.HasPrefix(cpu[2], "2-3.01 s") || !strings.Contains(cpu[2], "iowait: 2.35 %") {
		t.Errorf("host CPU points:\n  %s\nwant the last over 2-3.01 s at 2.35%% iowait", strings.Join(cpu, "\n  "))
	}
	if testOut != "" {
		os.WriteFile(filepath.Join(testOut, "short-last.html"), []byte(page), 0o644)
	}
}
