package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Sweep is what a sweep's chart shows: throughput against the swept
// value, and latency percentiles against throughput, with the SLO's
// latency bounds as horizontal lines and the answer (the highest value
// that met the SLO, a limit's lowest, or without one the peak) marked on
// both. It is drawn
// from a sweep's points as package sweep judged them (each value's
// medians over its runs).
type Sweep struct {
	// Title heads the chart ("sweep ID: workload").
	Title string
	// Flag is the swept flag, as --max-rate.
	Flag string
	// Points are the values run, lowest first (a limit's none, no limit,
	// last), each drawn at its X.
	Points []SweepPoint `json:"points"`
	// NoneAt is where the swept value's axis (Flag's; a grid's Flag2's)
	// has none, a limit's step without the limit: at its right end, past
	// the highest number, with the tick label none; 0 when no point is
	// none.
	NoneAt float64 `json:"none_at,omitempty"`
	// SLO is the objective as text ("" for none); Bounds its latency
	// ceilings in milliseconds by percentile (p99: 5).
	SLO    string             `json:"slo,omitempty"`
	Bounds map[string]float64 `json:"slo_latency_ms,omitempty"`
	// Answer is the value marked as the answer (the highest met, or the
	// peak without an SLO), Miss the lowest above it that missed: each
	// the Value of a point, drawn at its X (a limit's none is 0, at
	// NoneAt).
	Answer float64 `json:"answer,omitempty"`
	Miss   float64 `json:"miss,omitempty"`
	// Lowest says the answer is the lowest value that met the SLO, not
	// the highest: the swept flag (a grid's Flag2) is a limit, such as
	// --cpus, under which a higher value is a lighter load.
	Lowest bool `json:"lowest,omitempty"`
	// AnswerLabel says what Answer is ("answer" or "peak"); "" when
	// nothing is marked as the answer.
	AnswerLabel string `json:"answer_label,omitempty"`
	// AnswerText is Answer as the user writes it (a limit's 5M or none);
	// "" prints the number. MissText is Miss's; "" when no value missed.
	AnswerText string `json:"answer_text,omitempty"`
	MissText   string `json:"miss_text,omitempty"`
	// Flag2 is a grid's second flag ("" for a sweep of one): Points then
	// hold each pair of values, drawn against Flag2 a line per value of
	// Flag, and Marks each line's answer.
	Flag2 string      `json:"flag2,omitempty"`
	Marks []SweepMark `json:"marks,omitempty"`
}

// SweepPoint is one value of a sweep: its throughput and latency
// percentiles (ms), and its verdict.
type SweepPoint struct {
	Value float64 `json:"value"`
	// X is where the point sits on the swept value's axis (Value's
	// place; a grid's Value2's): the number itself, or none's NoneAt.
	X float64 `json:"x"`
	// Value2 is a grid's second flag's value; Text is Value as the user
	// writes it (a grid's lines are named by it), Text2 Value2.
	Value2 float64 `json:"value2,omitempty"`
	Text   string  `json:"text,omitempty"`
	Text2  string  `json:"text2,omitempty"`
	Rate   float64 `json:"ops_per_sec"`
	P50    float64 `json:"p50_ms"`
	P95    float64 `json:"p95_ms"`
	P99    float64 `json:"p99_ms"`
	P999   float64 `json:"p99_9_ms"`
	Judged bool    `json:"judged"`
	Met    bool    `json:"met"`
}

// SweepDataID is the id of the SVG element that holds the chart's data
// (Sweep as JSON), so that a reader can take the figures drawn without
// reading them off the axes.
const SweepDataID = "stampede-sweep-data"

// sweep chart colours: met, missed, the SLO's bound.
var (
	metC  = color.RGBA{0x38, 0xa1, 0x69, 0xff}
	missC = color.RGBA{0xc5, 0x30, 0x30, 0xff}
)

// sweepHeight is a sweep chart's height: its two panels and heading.
const sweepHeight = vg.Length(2*panelH+4*headStep+3*margin) * 1.4

// WriteSweep renders s in format f to w: two panels, throughput against
// s.Flag and latency against throughput. The SVG carries s as JSON in a
// <metadata id="stampede-sweep-data"> element.
func WriteSweep(w io.Writer, f Format, s Sweep) error {
	if len(s.Points) == 0 {
		return fmt.Errorf("chart: the sweep has no completed step to draw")
	}
	h := sweepHeight
	var buf bytes.Buffer
	switch f {
	case SVG:
		c := vgsvg.NewWith(vgsvg.UseWH(width, h))
		if err := s.draw(draw.New(c)); err != nil {
			return err
		}
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		data, err := json.Marshal(s)
		if err != nil {
			return err
		}
		out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFonts))
		// The data after the opening <svg ...> element.
		if i := bytes.Index(out, []byte("<svg")); i >= 0 {
			if j := bytes.IndexByte(out[i:], '>'); j >= 0 {
				at := i + j + 1
				meta := []byte(`<metadata id="` + SweepDataID + `">` + html.EscapeString(string(data)) + `</metadata>`)
				out = append(out[:at:at], append(meta, out[at:]...)...)
			}
		}
		_, err = w.Write(out)
		return err
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(width, h), vgimg.UseDPI(dpi))
		if err := s.draw(draw.New(c)); err != nil {
			return err
		}
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	}
	return fmt.Errorf("chart: unknown format %v", f)
}

// draw draws the chart on dc: the title, then the two panels.
func (s Sweep) draw(dc draw.Canvas) error {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	y := dc.Max.Y - margin
	sty := textStyle(titleSize, true, ink)
	sty.YAlign = draw.YTop
	dc.FillText(sty, vg.Point{X: dc.Min.X + margin, Y: y}, s.Title)
	y -= headStep + 2
	sub := "no SLO: the peak marked"
	if s.SLO != "" {
		sub = "SLO " + s.SLO + ": green met, red missed"
	}
	sty = textStyle(headSize, false, muted)
	sty.YAlign = draw.YTop
	for _, line := range wrapText(sty, sub, dc.Max.X-dc.Min.X-2*margin) {
		dc.FillText(sty, vg.Point{X: dc.Min.X + margin, Y: y}, line)
		y -= headStep
	}
	y -= 4

	tp, lat, err := s.plots()
	if err != nil {
		return err
	}
	area := dc
	area.Max.Y = y
	area.Min.Y += margin
	area.Min.X += margin
	area.Max.X -= margin
	cs := plot.Align([][]*plot.Plot{{tp}, {lat}}, draw.Tiles{Rows: 2, Cols: 1, PadY: 3 * panelGap}, area)
	tp.Draw(cs[0][0])
	lat.Draw(cs[1][0])
	return nil
}

// newSweepPlot is a panel in the style of the chart's others.
func newSweepPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(headSize, true, ink)
	// Centred, inside the panel's top (not above it, over the heading).
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = 3
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Padding = 0
		a.LineStyle.Color = axisC
		a.Tick.LineStyle.Color = axisC
		a.Tick.Length = 3
		a.Tick.Label = textStyle(tickSize, false, muted)
		a.Label.TextStyle = textStyle(tickSize, false, muted)
		a.Label.TextStyle.XAlign = draw.XCenter
	}
	// The tick labels beside their ticks, outside the data area, as the
	// run charts' (the default alignment drew both axes' labels inside
	// it, the two at the origin over each other).
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Y.Tick.Marker = kTicks{}
	p.X.Tick.Marker = kTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridC, gridC
	p.Add(grid)
	p.Legend = plot.NewLegend()
	p.Legend.TextStyle = textStyle(keySize, false, ink)
	p.Legend.Top, p.Legend.Left = false, false // the labels of the marks are top left
	p.Legend.ThumbnailWidth = 18
	// Rows a line of text apart (gonum's default steps by the text's
	// height above its baseline, so that rows overlapped).
	p.Legend.Padding = 2.5
	p.Legend.XOffs, p.Legend.YOffs = -4, 4
	return p
}

// throughputPlot is throughput against the swept value, each value a
// point coloured by its verdict, the answer and miss as vertical lines.
func (s Sweep) throughputPlot() (*plot.Plot, error) {
	p := newSweepPlot("throughput against "+s.Flag, s.Flag, "ops/s")
	xy := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		xy[i] = plotter.XY{X: pt.X, Y: pt.Rate}
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	l.LineStyle = lineStyle(pal(0), bold)
	p.Add(l)
	p.Legend.Add("ops/s", l)
	if s.Flag == "--max-rate" {
		sched := plotter.XYs{{X: s.Points[0].Value, Y: s.Points[0].Value}, {X: s.Points[len(s.Points)-1].Value, Y: s.Points[len(s.Points)-1].Value}}
		sl, err := plotter.NewLine(sched)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		sl.LineStyle = lineStyle(keyGrey, dashed)
		p.Add(sl)
		p.Legend.Add("scheduled", sl)
	}
	if err := s.verdictPoints(p, func(pt SweepPoint) plotter.XY { return plotter.XY{X: pt.X, Y: pt.Rate} }); err != nil {
		return nil, err
	}
	x := map[float64]float64{}
	for _, pt := range s.Points {
		x[pt.Value] = pt.X
	}
	marked := s.vlines(p, func(v float64) (float64, bool) { at, ok := x[v]; return at, ok })
	hi, hiX := 0.0, 0.0
	for _, pt := range s.Points {
		hi = math.Max(hi, math.Max(pt.Rate, pt.Value*boolf(s.Flag == "--max-rate")))
		hiX = math.Max(hiX, pt.X)
	}
	p.Y.Min, p.Y.Max = 0, roundUp(math.Max(hi, 1)*1.05)
	p.X.Min, p.X.Max = 0, hiX*1.03
	s.noneTicks(&p.X)
	placeLegend(p, marked, xy)
	return p, nil
}

// noneTicks labels the swept value's axis a, when a value is none (a
// limit's step without the limit, at NoneAt, its right end), with the
// values as written (0.5, 5M) and none: a few limits, whose numbers'
// ticks (5e+06, or 25M where none is) would mislead.
func (s Sweep) noneTicks(a *plot.Axis) {
	if s.NoneAt <= 0 {
		return
	}
	ticks := []plot.Tick{{Value: s.NoneAt, Label: "none"}}
	for _, pt := range s.Points {
		text := pt.Text
		if s.Flag2 != "" {
			text = pt.Text2
		}
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == pt.X }) {
			ticks = append(ticks, plot.Tick{Value: pt.X, Label: text})
		}
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
}

// boolf is 1 for true, 0 for false.
func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// latencyPlot is the latency percentiles against throughput (log
// scale), the SLO's bounds as horizontal lines, the answer's throughput
// as a vertical line.
func (s Sweep) latencyPlot() (*plot.Plot, error) {
	p := newSweepPlot("latency against throughput (ms, log scale), each value a point", "ops/s (each value's throughput)", "ms")
	pts := slices.Clone(s.Points)
	slices.SortStableFunc(pts, func(a, b SweepPoint) int { return cmpf(a.Rate, b.Rate) })
	lo, hi := math.Inf(1), 0.0
	var all plotter.XYs // every point drawn, for the legend's corner
	for i, pc := range []struct {
		name string
		get  func(SweepPoint) float64
	}{{"p50", func(p SweepPoint) float64 { return p.P50 }}, {"p95", func(p SweepPoint) float64 { return p.P95 }},
		{"p99", func(p SweepPoint) float64 { return p.P99 }}, {"p99.9", func(p SweepPoint) float64 { return p.P999 }}} {
		var xy plotter.XYs
		for _, pt := range pts {
			if v := pc.get(pt); v > 0 {
				xy = append(xy, plotter.XY{X: pt.Rate, Y: v})
				all = append(all, plotter.XY{X: pt.Rate, Y: v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		l.LineStyle = lineStyle(pal(i), solid)
		sc.Color = pal(i)
		sc.Radius = 2
		p.Add(l, sc)
		p.Legend.Add(pc.name, l, sc)
	}
	xlo, xhi := 0.0, pts[len(pts)-1].Rate*1.03
	if xhi <= xlo {
		xhi = 1
	}
	for _, m := range sortedKeys(s.Bounds) {
		b := s.Bounds[m]
		lo, hi = math.Min(lo, b), math.Max(hi, b)
		l, err := plotter.NewLine(plotter.XYs{{X: xlo, Y: b}, {X: xhi, Y: b}})
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		l.LineStyle = lineStyle(missC, style{width: 1.5, dash: []float64{8, 4}})
		p.Add(l)
		label := "SLO " + m + " <= " + fmtVal(b) + " ms"
		p.Legend.Add(label, l)
	}
	logLatencyAxis(p, lo, hi)
	rate := map[float64]float64{}
	for _, pt := range s.Points {
		rate[pt.Value] = pt.Rate
	}
	marked := s.vlines(p, func(v float64) (float64, bool) { r, ok := rate[v]; return r, ok })
	p.X.Min, p.X.Max = xlo, xhi
	placeLegend(p, marked, all)
	return p, nil
}

// verdictPoints adds each judged value as a green (met) or red (missed)
// point at xy(point).
func (s Sweep) verdictPoints(p *plot.Plot, xy func(SweepPoint) plotter.XY) error {
	for _, v := range []struct {
		met   bool
		name  string
		color color.RGBA
	}{{true, "met", metC}, {false, "missed", missC}} {
		var pts plotter.XYs
		for _, pt := range s.Points {
			if pt.Judged && pt.Met == v.met {
				pts = append(pts, xy(pt))
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		sc.Color, sc.Radius, sc.Shape = v.color, 3.5, draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(v.name, sc)
	}
	return nil
}

// vlines marks the answer and the miss as labelled vertical lines at x(v).
func (s Sweep) vlines(p *plot.Plot, x func(v float64) (float64, bool)) []float64 {
	label := s.AnswerLabel
	if label == "" {
		label = "answer"
	}
	text := func(v float64, t string) string {
		if t != "" {
			return t
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	var ls vlines
	for _, m := range []struct {
		v      float64
		marked bool
		text   string
		color  color.RGBA
	}{{s.Answer, s.AnswerLabel != "" || s.Answer != 0, label + ": " + s.Flag + " " + text(s.Answer, s.AnswerText), metC},
		{s.Miss, s.MissText != "" || s.Miss != 0, "missed: " + s.Flag + " " + text(s.Miss, s.MissText), missC}} {
		if !m.marked {
			continue // none to mark: a value of 0 is none's, marked by its text
		}
		at, ok := x(m.v)
		if !ok {
			continue
		}
		ls = append(ls, vline{x: at, color: m.color, text: m.text})
	}
	p.Add(ls)
	xs := make([]float64, len(ls))
	for i, l := range ls {
		xs[i] = l.x
	}
	return xs
}

// placeLegend puts p's legend in the corner its data leaves free, once
// p's axes are set: bottom right unless points or the vertical lines at
// xs (the answer's, the miss's) are there (none, no limit, and often
// the answer sit at the swept axis's right end), then top left, bottom
// left, top right; the corner with the fewest when none is free.
func placeLegend(p *plot.Plot, xs []float64, pts plotter.XYs) {
	type corner struct{ top, left bool }
	best, fewest := corner{}, -1
	for _, c := range []corner{{false, false}, {true, true}, {false, true}, {true, false}} {
		inX := func(x float64) bool {
			n := p.X.Norm(x)
			if c.left {
				return n <= 0.3
			}
			return n >= 0.7
		}
		k := 0
		for _, pt := range pts {
			y := p.Y.Norm(pt.Y)
			if inX(pt.X) && (c.top && y >= 0.6 || !c.top && y <= 0.4) {
				k++
			}
		}
		for _, x := range xs {
			if inX(x) {
				k += 2 // a line crosses the legend, top or bottom
			}
		}
		if fewest < 0 || k < fewest {
			best, fewest = c, k
		}
		if k == 0 {
			break
		}
	}
	p.Legend.Top, p.Legend.Left = best.top, best.left
	if best.left {
		p.Legend.XOffs = 4
	}
	if best.top {
		p.Legend.YOffs = -4
	}
}

// vlines are a panel's labelled vertical lines: every line first, then
// every label on a white ground, so that no line (its own, the other's,
// a curve) is drawn over a label.
type vlines []vline

// Plot implements plot.Plotter.
func (ls vlines) Plot(c draw.Canvas, p *plot.Plot) {
	for _, l := range ls {
		l.line(c, p)
	}
	for i, l := range ls {
		l.label(c, p, i)
	}
}

// vline is a labelled, dashed vertical line across a panel.
type vline struct {
	x     float64
	color color.RGBA
	text  string
}

// line draws the dashed line across the panel.
func (l vline) line(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	ls := lineStyle(l.color, style{width: 1.5, dash: []float64{5, 4}})
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
}

// label draws the line's label at its top, the i-th of the panel's a
// line lower, on a white ground a little wider than the text (a
// browser's fallback font may set it wider than measured here), clear
// of its own line.
func (l vline) label(c draw.Canvas, p *plot.Plot, i int) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	const gap, pad = 5, 2
	sty := textStyle(keySize, false, l.color)
	sty.YAlign = draw.YTop
	w := sty.Width(l.text) * 1.1
	x0 := x + gap // the ground's left edge
	if x0+w+pad > c.Max.X {
		x0 = x - gap - w // left of the line
	}
	y := c.Max.Y - 2 - vg.Length(i)*keySize*1.4
	ground := vg.Rectangle{Min: vg.Point{X: x0 - pad, Y: y - keySize*1.2}, Max: vg.Point{X: x0 + w + pad, Y: y + 1}}
	c.SetColor(color.White)
	c.Fill(ground.Path())
	if x0 < x {
		sty.XAlign = draw.XRight
		c.FillText(sty, vg.Point{X: x0 + w, Y: y}, l.text)
		return
	}
	c.FillText(sty, vg.Point{X: x0, Y: y}, l.text)
}

// cmpf orders floats.
func cmpf(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortedKeys are m's keys in order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// logLatencyAxis sets p's Y axis to a log scale over the latencies lo..hi
// (ms), rounded out to 1-2-5 steps and at least 2.5x wide; 0.1-1 ms when
// there are none (lo infinite).
func logLatencyAxis(p *plot.Plot, lo, hi float64) {
	if math.IsInf(lo, 1) {
		lo, hi = 0.1, 1
	}
	lo, hi = floor125(lo), ceil125(hi)
	if hi/lo < 2.5 {
		lo, hi = floor125(lo*0.99), ceil125(hi*1.01)
	}
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	p.Y.Min, p.Y.Max = lo, hi
}

// wrapText breaks s into lines no wider than w in sty, after a comma or
// before a space (an SLO's terms, TPC-C's six, stay whole); a word wider
// than w is a line of its own.
func wrapText(sty text.Style, s string, w vg.Length) []string {
	var words []string
	start := 0
	for i, r := range s {
		if r == ',' || r == ' ' && i > start {
			end := i
			if r == ',' {
				end = i + 1
			}
			words = append(words, s[start:end])
			start = end
		}
	}
	words = append(words, s[start:])
	var lines []string
	line := ""
	for _, word := range words {
		if line != "" && sty.Width(line+word) > w {
			lines = append(lines, line)
			word = strings.TrimLeft(word, " ")
			line = ""
		}
		line += word
	}
	return append(lines, line)
}
