package chart_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

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

// svgDoc is what the tests read of an SVG: its size in points, its
// texts and its paths, in document order. gonum's SVG draws with y up
// inside a flipping group; the paths' points are read as written.
type svgDoc struct {
	w, h  float64
	texts []string
	paths []svgPath
}

type svgPath struct {
	style string
	pts   [][2]float64
}

// parseSVG decodes an SVG document as XML, failing the test if it is not
// well-formed.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var d svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	num := regexp.MustCompile(`-?[0-9.]+(?:e-?[0-9]+)?`)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					t.Fatalf("svg viewBox %q", attr["viewBox"])
				}
				d.w, _ = strconv.ParseFloat(vb[2], 64)
				d.h, _ = strconv.ParseFloat(vb[3], 64)
			case "text":
				inText = true
				d.texts = append(d.texts, "")
			case "path":
				p := svgPath{style: attr["style"]}
				ns := num.FindAllString(attr["d"], -1)
				for i := 0; i+1 < len(ns); i += 2 {
					x, _ := strconv.ParseFloat(ns[i], 64)
					y, _ := strconv.ParseFloat(ns[i+1], 64)
					p.pts = append(p.pts, [2]float64{x, y})
				}
				d.paths = append(d.paths, p)
			}
		case xml.CharData:
			if inText {
				d.texts[len(d.texts)-1] += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" {
				inText = false
			}
		}
	}
	if d.w == 0 {
		t.Fatal("no svg element")
	}
	return d
}

// hasText reports whether the document has a text element equal to s.
func (d svgDoc) hasText(s string) bool { return slices.Contains(d.texts, s) }

// dataPaths returns the paths that draw data lines (1.2 points wide or
// more, not grey), left of the keys' column.
func (d svgDoc) dataPaths() []svgPath {
	var out []svgPath
	w := regexp.MustCompile(`stroke-width:([0-9.]+)`)
	for _, p := range d.paths {
		m := w.FindStringSubmatch(p.style)
		if m == nil || strings.Contains(p.style, "#B0B0B0") || strings.Contains(p.style, "#E6E6E6") {
			continue
		}
		if v, _ := strconv.ParseFloat(m[1], 64); v < 1.2 || p.pts[0][0] > d.w*0.78 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// seg is an expected line: points in data coordinates, and whether its
// panel has a log scale.
type seg struct {
	name string
	pts  [][2]float64
	log  bool
}

// opLine returns the expected segments of one value of an operation's
// points: a point at the middle of each interval, broken where skip says,
// a lone point drawn as a level stroke across its interval.
func opLine(name string, spans []results.Span, vals []float64, skip []bool, log bool) []seg {
	var out []seg
	var cur [][2]float64
	flush := func(i int) {
		if len(cur) == 1 {
			cur = [][2]float64{{spans[i].From, cur[0][1]}, {spans[i].To, cur[0][1]}}
		}
		if len(cur) > 0 {
			out = append(out, seg{name, cur, log})
		}
		cur = nil
	}
	for i, v := range vals {
		if skip != nil && skip[i] {
			flush(i - 1)
			continue
		}
		cur = append(cur, [2]float64{(spans[i].From + spans[i].To) / 2, v})
	}
	flush(len(vals) - 1)
	return out
}

// expected returns the lines the chart of in must draw, in order: for each
// panel (throughput, latency per operation, host CPU, each disk with I/O,
// process CPU, process I/O), its lines, run by run.
func expected(in chart.Input) []seg {
	multi := len(in.Runs) > 1
	type col struct {
		name  string
		spans []results.Span
		vals  []float64
		skip  []bool
		log   bool
	}
	var panels [][]col
	add := func(multiPanel bool, entity func(r chart.Run) [][]col) {
		if !multi && !multiPanel {
			var p []col
			for _, r := range in.Runs {
				for _, e := range entity(r) {
					p = append(p, e...)
				}
			}
			panels = append(panels, p)
			return
		}
		// One panel per entity, each run's lines in it.
		byRun := make([][][]col, len(in.Runs))
		for i, r := range in.Runs {
			byRun[i] = entity(r)
		}
		for e := range byRun[0] {
			var p []col
			for i := range in.Runs {
				p = append(p, byRun[i][e]...)
			}
			panels = append(panels, p)
		}
	}
	mib := func(kb []float64) []float64 {
		out := make([]float64, len(kb))
		for i, v := range kb {
			out[i] = v / 1024
		}
		return out
	}
	add(false, func(r chart.Run) [][]col {
		var out [][]col
		for _, op := range r.Series.Ops {
			c := col{name: op.Name + " ops/s"}
			for _, p := range op.Points {
				c.spans, c.vals = append(c.spans, p.Span), append(c.vals, p.Rate)
			}
			out = append(out, []col{c})
		}
		return out
	})
	add(true, func(r chart.Run) [][]col {
		var out [][]col
		for _, op := range r.Series.Ops {
			var e []col
			for q, get := range map[string]func(results.OpPoint) float64{
				"p99": func(p results.OpPoint) float64 { return p.P99 },
				"p95": func(p results.OpPoint) float64 { return p.P95 },
				"p50": func(p results.OpPoint) float64 { return p.P50 },
			} {
				c := col{name: op.Name + " " + q, log: true}
				for _, p := range op.Points {
					c.spans, c.vals, c.skip = append(c.spans, p.Span), append(c.vals, get(p)), append(c.skip, p.Count == 0)
				}
				e = append(e, c)
			}
			slices.SortFunc(e, func(a, b col) int { return -strings.Compare(a.name, b.name) }) // p99, p95, p50
			out = append(out, e)
		}
		return out
	})
	// The workload's own series: a panel each, a reading a point.
	add(true, func(r chart.Run) [][]col {
		var out [][]col
		for _, ws := range r.Workload {
			c := col{name: ws.Name}
			div := map[string]float64{"bytes": 1e6, "bytes/s": 1e6}[ws.Unit]
			if div == 0 {
				div = 1
			}
			for i, at := range ws.At {
				c.spans, c.vals = append(c.spans, results.Span{From: at, To: at}), append(c.vals, ws.Values[i]/div)
			}
			out = append(out, []col{c})
		}
		return out
	})
	add(false, func(r chart.Run) [][]col {
		busy, io := col{name: "busy"}, col{name: "iowait"}
		for _, p := range r.Series.Telemetry.CPU {
			busy.spans, busy.vals = append(busy.spans, p.Span), append(busy.vals, p.Busy)
			io.spans, io.vals = append(io.spans, p.Span), append(io.vals, p.IOWait)
		}
		return [][]col{{busy, io}}
	})
	add(multi, func(r chart.Run) [][]col {
		var out [][]col
		for _, d := range r.Series.Telemetry.Disks {
			w, rd := col{name: d.Name + " write"}, col{name: d.Name + " read"}
			var wk, rk []float64
			for _, p := range d.Points {
				w.spans, rd.spans = append(w.spans, p.Span), append(rd.spans, p.Span)
				wk, rk = append(wk, p.WriteKBPerSec), append(rk, p.ReadKBPerSec)
			}
			if slices.Max(wk) == 0 && slices.Max(rk) == 0 {
				continue // the chart leaves out disks without I/O
			}
			w.vals, rd.vals = mib(wk), mib(rk)
			out = append(out, []col{w, rd})
		}
		return out
	})
	add(false, func(r chart.Run) [][]col {
		var out [][]col
		for _, g := range r.Series.Telemetry.Procs {
			c := col{name: g.Name + " cores"}
			for _, p := range g.Points {
				c.spans, c.vals = append(c.spans, p.Span), append(c.vals, p.CPUCores)
			}
			out = append(out, []col{c})
		}
		return out
	})
	add(false, func(r chart.Run) [][]col {
		var out [][]col
		for _, g := range r.Series.Telemetry.Procs {
			w, rd := col{name: g.Name + " write"}, col{name: g.Name + " read"}
			for _, p := range g.Points {
				w.spans, w.vals = append(w.spans, p.Span), append(w.vals, p.WriteBytesPerSec)
				rd.spans, rd.vals = append(rd.spans, p.Span), append(rd.vals, p.ReadBytesPerSec)
			}
			out = append(out, []col{w, rd})
		}
		return out
	})
	var out []seg
	for pi, p := range panels {
		for _, c := range p {
			for _, s := range opLine(c.name, c.spans, c.vals, c.skip, c.log) {
				s.name = fmt.Sprintf("panel %d: %s", pi, s.name)
				out = append(out, s)
			}
		}
	}
	return out
}

// panelOf returns the panel number of an expected segment's name.
func panelOf(s seg) string { return s.name[:strings.Index(s.name, ":")] }

// TestDrawnSeriesAreTheInput reads the data lines of the SVG and checks
// that they are the runs' series: one path per expected line segment, in
// order, with as many points, and every point an affine image of the
// interval's middle and value (of its logarithm on a latency panel), with
// one time scale for every panel and one value scale per panel.
func TestDrawnSeriesAreTheInput(t *testing.T) {
	for name, in := range inputs() {
		t.Run(name, func(t *testing.T) { drawnAreInput(t, in) })
	}
}

// drawnAreInput is TestDrawnSeriesAreTheInput's check of one input.
func drawnAreInput(t *testing.T, in chart.Input) {
	t.Helper()
	doc := parseSVG(t, render(t, chart.SVG, in))
	got, want := doc.dataPaths(), expected(in)
	if len(got) != len(want) {
		t.Fatalf("%d data paths in the SVG, want %d", len(got), len(want))
	}
	// Pair every drawn point with its data: the time with x, for
	// all panels together; the value (its logarithm on a log
	// scale) with y, panel by panel.
	var xs [][2]float64
	ys := map[string][][2]float64{}
	for i, w := range want {
		g := got[i]
		if len(g.pts) != len(w.pts) {
			t.Fatalf("%s: path of %d points, want %d", w.name, len(g.pts), len(w.pts))
		}
		for j, p := range w.pts {
			v := p[1]
			if w.log {
				v = math.Log10(v)
			}
			xs = append(xs, [2]float64{p[0], g.pts[j][0]})
			ys[panelOf(w)] = append(ys[panelOf(w)], [2]float64{v, g.pts[j][1]})
		}
	}
	// Each must be one affine map, increasing, up to the SVG's
	// rounding of coordinates to 5 significant digits.
	check := func(what string, pairs [][2]float64) (a, b float64) {
		var n, su, sv, suu, suv float64
		for _, q := range pairs {
			n, su, sv, suu, suv = n+1, su+q[0], sv+q[1], suu+q[0]*q[0], suv+q[0]*q[1]
		}
		den := n*suu - su*su
		if den == 0 { // a constant: every point must be drawn at the same place
			for _, q := range pairs {
				if math.Abs(q[1]-pairs[0][1]) > 0.1 {
					t.Errorf("%s: the same value drawn at %g and %g", what, pairs[0][1], q[1])
				}
			}
			return 0, 0
		}
		a = (n*suv - su*sv) / den
		b = (sv - a*su) / n
		if a <= 0 {
			t.Errorf("%s: drawn decreasing (slope %g)", what, a)
		}
		for _, q := range pairs {
			if d := math.Abs(a*q[0] + b - q[1]); d > 0.1 {
				t.Errorf("%s: %g drawn at %g, %.2f points from the scale's %g", what, q[0], q[1], d, a*q[0]+b)
			}
		}
		return a, b
	}
	// The time axis runs from the start (0 s) to the end of the
	// last interval (8 s), where the vertical grid lines begin and
	// end.
	a, b := check("time axis", xs)
	gx := []float64{}
	for _, p := range doc.paths {
		if strings.Contains(p.style, "stroke:#E6E6E6") && p.pts[0][0] == p.pts[1][0] {
			gx = append(gx, p.pts[0][0])
		}
	}
	if len(gx) == 0 || math.Abs(b-slices.Min(gx)) > 0.1 || math.Abs(a*8+b-slices.Max(gx)) > 0.1 {
		t.Errorf("0 s drawn at x %g and 8 s at %g; the time axis spans %g to %g", b, a*8+b, slices.Min(gx), slices.Max(gx))
	}
	for pn, pairs := range ys {
		check(pn+" value axis", pairs)
	}
}

func TestSVG(t *testing.T) {
	for name, in := range inputs() {
		t.Run(name, func(t *testing.T) {
			got := render(t, chart.SVG, in)
			golden.Check(t, filepath.Join("testdata", name+".svg.golden"), got)
			doc := parseSVG(t, got)
			if doc.w != 750 {
				t.Errorf("SVG is %g points wide, want 750 (1000 pixels)", doc.w)
			}
			wantTexts := []string{
				"2-8 s (after the ramp-up): 10000 ops/s | p50 0.400 ms | p95 1.30 ms | p99 9.00 ms | max 40.0 ms | 5 errors",
				"read: latency (ms, log scale)", "update: latency (ms, log scale)",
				"host CPU (% of all CPUs)",
				"p99", "p95", "p50", "ramp-up", "seconds since start",
				"note: not drawn, disks without I/O during the run: loop0",
			}
			if name == "single" {
				wantTexts = append(wantTexts, "ycsb | run 20261122-103512-ycsb-aaaa | 2026-11-22 10:35:12 UTC | variant=base",
					"throughput (ops/s)", "read", "update", "disk vda: I/O (MiB/s)", "watched processes: CPU (cores)",
					// The legends say what is drawn: the disk's writes, the
					// processes' dirtied pages (not a bare "write").
					"written", "dirtied (pidstat kB_wr/s)")
			} else {
				wantTexts = append(wantTexts, "ycsb: A vs B", "A  20261122-103512-ycsb-aaaa (db=pg<16> variant=base), 2026-11-22 10:35:12 UTC",
					"read: throughput (ops/s)", "update: throughput (ops/s)", "A", "B", "processes postgres: CPU (cores)")
			}
			for _, w := range wantTexts {
				if !doc.hasText(w) {
					t.Errorf("SVG lacks the text %q", w)
				}
			}
			// Each interval with errors is marked in red: update's 3-4 s
			// and 5-6 s, in each run.
			red := 0
			for _, p := range doc.paths {
				if strings.Contains(p.style, "fill:#D62728") {
					red++
				}
			}
			if want := 2 * len(in.Runs); red != want {
				t.Errorf("%d error marks, want %d", red, want)
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

// pngSize returns the size in pixels of an SVG drawn at 96 dpi.
func pngSize(t *testing.T, svg []byte) (int, int) {
	t.Helper()
	d := parseSVG(t, svg)
	return int(math.Round(d.w * 96 / 72)), int(math.Round(d.h * 96 / 72))
}

func TestPNG(t *testing.T) {
	for name, in := range inputs() {
		t.Run(name, func(t *testing.T) {
			b := render(t, chart.PNG, in)
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			// The PNG is the SVG's drawing at 96 dpi.
			w, h := pngSize(t, render(t, chart.SVG, in))
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
			// The palette's colours are drawn: blue and orange lines, the
			// red error marks.
			for _, c := range []uint32{0x1f77b4, 0xff7f0e, 0xd62728} {
				if !colours[c] {
					t.Errorf("no pixel of #%06x in the PNG", c)
				}
			}
			if testOut != "" {
				os.WriteFile(filepath.Join(testOut, name+".png"), b, 0o644)
			}
		})
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
		{"c.html", 0, "c.html: use .svg or .png"},
		{"out.jpg", 0, "out.jpg: use .svg or .png"},
		{"noext", 0, "noext: use .svg or .png"},
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
	svgb := render(t, chart.SVG, in)
	doc := parseSVG(t, svgb)
	for _, want := range []string{
		"kv | run x | 2026-11-22 10:35:12 UTC", // the header
		"throughput (ops/s)",                   // the panel's title and unit
		"no data",
		"seconds since start", // the x axis's label
		"note: no data: the run recorded no operation, error or telemetry sample to draw",
	} {
		if !doc.hasText(want) {
			t.Errorf("the empty run's SVG lacks the text %q:\n%s", want, svgb)
		}
	}
	// The axes: tick labels from 0 to 1 on both (no data gives them no
	// other range), and the two axis lines.
	var labels []string
	for _, s := range doc.texts {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			labels = append(labels, s)
		}
	}
	if len(labels) < 4 || labels[0] != "0" || !slices.Contains(labels, "1") {
		t.Errorf("axis tick labels %v; want both axes from 0 to 1", labels)
	}
	var axes []svgPath
	for _, p := range doc.paths {
		if strings.Contains(p.style, "stroke:#B0B0B0") && len(p.pts) == 2 {
			if d := math.Hypot(p.pts[1][0]-p.pts[0][0], p.pts[1][1]-p.pts[0][1]); d > 100 {
				axes = append(axes, p)
			}
		}
	}
	if len(axes) != 2 {
		t.Errorf("%d axis lines in the empty run's SVG, want 2", len(axes))
	}
	if n := len(doc.dataPaths()); n != 0 {
		t.Errorf("the empty run's SVG draws %d data lines", n)
	}

	for _, want := range []string{">throughput (ops/s)</text>", ">no data</text>", "note: no data: the run recorded no operation"} {
		if !strings.Contains(string(svgb), want) {
			t.Errorf("the empty run's SVG lacks %q", want)
		}
	}

	b := render(t, chart.PNG, in)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	w, h := pngSize(t, svgb)
	if got := img.Bounds(); got.Dx() != w || got.Dy() != h || h < 200 {
		t.Errorf("PNG is %v, SVG %dx%d; want the same size, with room for a panel", got, w, h)
	}
	// The value axis is drawn: grey pixels along its line (SVG points, y
	// up, to PNG pixels, y down).
	if len(axes) == 2 {
		var v svgPath
		for _, a := range axes {
			if a.pts[0][0] == a.pts[1][0] {
				v = a
			}
		}
		x := int(v.pts[0][0] * 96 / 72)
		y0, y1 := int((doc.h-max(v.pts[0][1], v.pts[1][1]))*96/72), int((doc.h-min(v.pts[0][1], v.pts[1][1]))*96/72)
		grey := 0
		for y := y0; y <= y1; y++ {
			for dx := -1; dx <= 1; dx++ {
				if r, _, _, _ := img.At(x+dx, y).RGBA(); r>>8 < 0xf0 {
					grey++
					break
				}
			}
		}
		if grey < (y1-y0)*9/10 {
			t.Errorf("the PNG's value axis is missing: %d of %d pixels drawn at x=%d", grey, y1-y0+1, x)
		}
	}
	if testOut != "" {
		os.WriteFile(filepath.Join(testOut, "empty.svg"), svgb, 0o644)
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
	// The points drawn (the SVG's and PNG's, and the dashboard's).
	var throughput, cpu []string
	for _, p := range s.Ops[0].Points {
		throughput = append(throughput, fmt.Sprintf("%g-%g s write: %.0f ops/s", p.From, p.To, p.Rate))
	}
	for _, p := range s.Telemetry.CPU {
		cpu = append(cpu, fmt.Sprintf("%g-%g s iowait: %.2f %%", p.From, p.To, p.IOWait))
	}
	want := []string{"0-1 s write: 4000 ops/s", "1-2 s write: 4000 ops/s", "2-3.011 s write: 4009 ops/s"}
	if strings.Join(throughput, "; ") != strings.Join(want, "; ") {
		t.Errorf("throughput points:\n  %s\nwant\n  %s", strings.Join(throughput, "\n  "), strings.Join(want, "\n  "))
	}
	if len(cpu) != 3 || !strings.HasPrefix(cpu[2], "2-3.011 s") || !strings.Contains(cpu[2], "iowait: 2.35 %") {
		t.Errorf("host CPU points:\n  %s\nwant the last over 2-3.011 s at 2.35%% iowait", strings.Join(cpu, "\n  "))
	}
	if testOut != "" {
		svg := render(t, chart.SVG, chart.Input{Runs: []chart.Run{{Series: s}}})
		os.WriteFile(filepath.Join(testOut, "short-last.svg"), svg, 0o644)
	}
}

// TestKeysAndOddValues checks the keys' column (an entry per operation up
// to what the panel's height holds, then "and N more"; a name too long
// for the column shortened with an ellipsis) and that values no axis can
// show (infinite, or not positive on a log scale) break the line instead
// of failing the chart.
func TestKeysAndOddValues(t *testing.T) {
	long := strings.Repeat("a_very_long_statement_name_", 4)
	for _, tc := range []struct {
		name   string
		ops    []string
		odd    func(p *results.OpPoint)
		want   []string
		absent []string
	}{
		{name: "two operations", ops: []string{"read", "update"}, want: []string{"read", "update"}},
		{name: "twelve operations", ops: []string{"op00", "op01", "op02", "op03", "op04", "op05", "op06", "op07", "op08", "op09", "op10", "op11"},
			want: []string{"op00", "op08", "and 3 more"}, absent: []string{"op09", "op11"}},
		{name: "long name", ops: []string{long}, want: []string{long[:20]}, absent: []string{long}},
		{name: "infinite rate", ops: []string{"read"}, odd: func(p *results.OpPoint) { p.Rate = math.Inf(1) }, want: []string{"read"}},
		{name: "zero latency", ops: []string{"read"}, odd: func(p *results.OpPoint) { p.P50, p.P95, p.P99 = 0, 0, 0 }, want: []string{"read: latency (ms, log scale)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := results.Series{ID: "x", Workload: "kv", Start: t0}
			for _, name := range tc.ops {
				op := results.OpSeries{Name: name}
				for i := range 6 {
					p := results.OpPoint{Span: results.Span{From: float64(i), To: float64(i + 1)}, Count: 10, Rate: 10, P50: 1, P95: 2, P99: 3, Max: 4}
					if i == 2 && tc.odd != nil {
						tc.odd(&p)
					}
					op.Points = append(op.Points, p)
				}
				s.Ops = append(s.Ops, op)
			}
			in := chart.Input{Runs: []chart.Run{{Series: s}}}
			doc := parseSVG(t, render(t, chart.SVG, in))
			for _, w := range tc.want {
				if !slices.ContainsFunc(doc.texts, func(s string) bool { return strings.HasPrefix(s, w) }) {
					t.Errorf("no text starting %q in %q", w, doc.texts)
				}
			}
			for _, a := range tc.absent {
				if doc.hasText(a) {
					t.Errorf("text %q drawn", a)
				}
			}
			if tc.name == "long name" && !slices.ContainsFunc(doc.texts, func(s string) bool { return strings.HasSuffix(s, "…") && strings.HasPrefix(s, "a_very") }) {
				t.Errorf("the long name is not shortened with an ellipsis: %q", doc.texts)
			}
			if tc.odd != nil {
				// The line with the odd value at its third point is drawn in
				// two pieces: points 1-2 and 4-6.
				var two int
				for _, p := range doc.dataPaths() {
					if len(p.pts) == 2 || len(p.pts) == 3 {
						two++
					}
				}
				if two == 0 {
					t.Errorf("no line broken at the odd value")
				}
			}
		})
	}
}
