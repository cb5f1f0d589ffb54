package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Geometry, in points (1/72 inch). Images are rendered at 96 dots per
// inch, so a point is 4/3 of a pixel: the chart is 1000 pixels wide, as
// its SVG is in a browser.
const (
	dpi       = 96
	widthPx   = 1000
	width     = vg.Length(widthPx * 72 / dpi)
	margin    = 9   // around the chart
	keyW      = 135 // the column of keys right of the panels
	keyGap    = 10  // between a panel and its keys
	panelH    = 150 // a panel with its title and time axis
	panelGap  = 8   // between panels
	headStep  = 13  // between the heading's lines
	noteStep  = 12  // between the notes' lines
	headSize  = 9.5 // font sizes
	titleSize = 11
	tickSize  = 8.5
	keySize   = 8.5
	errH      = 4.5 // an error mark's height
	errRow    = 5.25
)

// sans returns the Liberation Sans font (part of gonum's default font
// collection) at size, bold or not.
func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

// textStyle returns a text style in the chart's font.
func textStyle(size vg.Length, bold bool, c color.Color) text.Style {
	return text.Style{Color: c, Font: sans(size, bold), Handler: plot.DefaultTextHandler}
}

// placed is a panel as drawn: its plot and the canvas of its data area,
// for the tooltips of interactive outputs.
type placed struct {
	panel *panel
	plot  *plot.Plot
	data  draw.Canvas
}

// height is the figure's height: its heading, panels and notes, rounded
// to a whole pixel.
func (f *figure) height() vg.Length {
	h := 2*margin + vg.Length(len(f.head))*headStep + 6 +
		vg.Length(len(f.panels))*(panelH+panelGap) + vg.Length(len(f.notes))*noteStep
	px := math.Ceil(float64(h) * dpi / 72)
	return vg.Length(px * 72 / dpi)
}

// draw draws the figure on dc, which is width by f.height() points.
func (f *figure) draw(dc draw.Canvas) ([]placed, error) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	// The heading, from the top.
	y := dc.Max.Y - margin
	for i, h := range f.head {
		size := vg.Length(headSize)
		if i == 0 {
			size = titleSize
		}
		sty := textStyle(size, h.bold, h.color)
		sty.YAlign = draw.YTop
		x := dc.Min.X + margin
		if h.swatch != nil {
			dc.FillPolygon(*h.swatch, rectPts(x, y-8, x+13, y-1))
			x += 18
		}
		dc.FillText(sty, vg.Point{X: x, Y: y}, h.text)
		y -= headStep
	}
	y -= 6

	// The panels, aligned by gonum's plot.Align: every data area has the
	// same left and right edge, so the time axes line up.
	n := len(f.panels)
	plots := make([][]*plot.Plot, n)
	keys := make([]*plot.Legend, n)
	for i := range f.panels {
		p, k, err := f.plot(i)
		if err != nil {
			return nil, err
		}
		plots[i], keys[i] = []*plot.Plot{p}, k
	}
	area := dc
	area.Max.Y = y
	area.Min.Y = y - vg.Length(n)*(panelH+panelGap) + panelGap
	area.Min.X += margin
	area.Max.X -= margin + keyW + keyGap
	tiles := draw.Tiles{Rows: n, Cols: 1, PadY: panelGap}
	cs := plot.Align(plots, tiles, area)
	var out []placed
	for i, row := range cs {
		p, c := plots[i][0], row[0]
		p.Draw(c)
		data := p.DataCanvas(c)
		pn := &f.panels[i]
		if pn.empty != "" {
			sty := textStyle(headSize, false, muted)
			sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
			data.FillText(sty, data.Center(), pn.empty)
		}
		if i == 0 && len(f.ramps) > 0 {
			x, _ := p.Transforms(&data)
			sty := textStyle(tickSize, false, muted)
			sty.YAlign = draw.YTop
			if x(f.ramps[0])-data.Min.X > sty.Width("ramp-up")+6 {
				data.FillText(sty, vg.Point{X: data.Min.X + 3, Y: data.Max.Y - 3}, "ramp-up")
			}
		}
		kc := draw.Crop(dc, 0, 0, 0, 0)
		kc.Min = vg.Point{X: area.Max.X + keyGap, Y: data.Min.Y}
		kc.Max = vg.Point{X: dc.Max.X - margin, Y: data.Max.Y}
		keys[i].Draw(kc)
		out = append(out, placed{panel: pn, plot: p, data: data})
	}

	// The notes, under the panels.
	y = area.Min.Y - 4
	for _, note := range f.notes {
		sty := textStyle(tickSize, false, muted)
		sty.YAlign = draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Min.X + margin, Y: y}, "note: "+note)
		y -= noteStep
	}
	return out, nil
}

// rectPts returns a rectangle's corners.
func rectPts(x0, y0, x1, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

// plot builds the gonum plot of the i-th panel and its key.
func (f *figure) plot(i int) (*plot.Plot, *plot.Legend, error) {
	pn := &f.panels[i]
	p := plot.New()
	p.Title.Text = pn.title + " (" + pn.unit + ")"
	p.Title.TextStyle = textStyle(headSize, true, ink)
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
	p.Y.Tick.Label.XAlign = draw.XRight
	p.Y.Tick.Label.YAlign = draw.YCenter
	p.X.Tick.Label.XAlign = draw.XCenter
	p.X.Tick.Label.YAlign = draw.YTop

	// The time axis, shared by every panel.
	xmax := f.xmax
	if !(xmax > 0) {
		xmax = 1
	}
	p.X.Tick.Marker = timeTicks{}
	if i == len(f.panels)-1 {
		p.X.Label.Text = "seconds since start"
		p.X.Label.Position = draw.PosRight
		p.X.Label.Padding = 2
	}

	// The value axis.
	lo, hi := math.Inf(1), 0.0
	for _, ln := range pn.lines {
		for _, v := range ln.vals {
			if v /= pn.div; !math.IsNaN(v) && !math.IsInf(v, 0) {
				hi = math.Max(hi, v)
				if v > 0 {
					lo = math.Min(lo, v)
				}
			}
		}
	}
	if pn.log {
		if math.IsInf(lo, 1) {
			lo, hi = 0.1, 1
		}
		lo, hi = floor125(lo), ceil125(hi)
		if hi/lo < 2.5 {
			lo, hi = floor125(lo*0.99), ceil125(hi*1.01)
		}
		if math.Log10(hi/lo) > 3 {
			lo, hi = math.Pow(10, math.Floor(math.Log10(lo)+1e-9)), math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	} else {
		switch {
		case pn.fixedMax > 0:
			hi = pn.fixedMax
		case hi > 0:
			hi = roundUp(hi * 1.02) // room above the highest line
		default:
			hi = 1
		}
		lo = 0
		p.Y.Tick.Marker = kTicks{}
	}

	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = gridC, gridC
	grid.Vertical.Width, grid.Horizontal.Width = 0.75, 0.75
	p.Add(grid)
	for _, re := range f.ramps {
		p.Add(shade{to: math.Min(re, xmax), color: rampC})
	}
	var ls lines
	for _, ln := range pn.lines {
		for _, seg := range segments(ln, pn.div, pn.log, f.xmax) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return nil, nil, fmt.Errorf("chart: %s: %w", pn.title, err)
			}
			l.LineStyle = lineStyle(ln.color, ln.style)
			ls = append(ls, l)
		}
	}
	p.Add(ls)
	if len(pn.errs) > 0 {
		p.Add(errMarks(pn.errs))
	}
	// The ranges are the axes', not the data's: lines are clipped to them.
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = lo, hi

	k := plot.NewLegend()
	k.TextStyle = textStyle(keySize, false, ink)
	k.Top, k.Left = true, true
	k.ThumbnailWidth = 18
	k.Padding = 1.5
	room := int(math.Floor((panelH - 30) / (keySize*1.2 + 1.5)))
	for j, kk := range pn.keys {
		if j == room-1 && len(pn.keys) > room {
			k.Add(fmt.Sprintf("and %d more", len(pn.keys)-j))
			break
		}
		k.Add(fitText(k.TextStyle, kk.label, keyW-k.ThumbnailWidth-6), &plotter.Line{LineStyle: lineStyle(kk.color, kk.style)})
	}
	return p, &k, nil
}

// fitText shortens s with an ellipsis to fit w.
func fitText(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && sty.Width(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// lineStyle returns the draw style of a line.
func lineStyle(c color.RGBA, s style) draw.LineStyle {
	ls := draw.LineStyle{Color: c, Width: vg.Length(s.width)}
	for _, d := range s.dash {
		ls.Dashes = append(ls.Dashes, vg.Length(d))
	}
	return ls
}

// segments returns a line's polylines: a point at the middle of each
// span, broken where there is no finite value (and, on a log scale,
// where the value is not positive). A lone point is drawn as a level stroke across
// its span.
func segments(ln line, div float64, log bool, xmax float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	flush := func(i int) {
		switch len(cur) {
		case 0:
		case 1:
			sp := ln.spans[i]
			cur = plotter.XYs{{X: sp.From, Y: cur[0].Y}, {X: sp.To, Y: cur[0].Y}}
			fallthrough
		default:
			out = append(out, cur)
		}
		cur = nil
	}
	for i, v := range ln.vals {
		sp := ln.spans[i]
		if math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0) || sp.From < -0.5 || sp.To > xmax+0.5 {
			flush(i - 1)
			continue
		}
		cur = append(cur, plotter.XY{X: (sp.From + sp.To) / 2, Y: v / div})
	}
	flush(len(ln.vals) - 1)
	return out
}

// roundUp returns the first tick of gonum's default ticks (labelled or
// not) at or above v, so that a linear axis ends on a tick just above the
// data.
func roundUp(v float64) float64 {
	step := math.Inf(1)
	ts := plot.DefaultTicks{}.Ticks(0, v)
	for i := range ts {
		for j := range i {
			if d := math.Abs(ts[i].Value - ts[j].Value); d > 0 {
				step = math.Min(step, d)
			}
		}
	}
	if math.IsInf(step, 1) {
		return v
	}
	return round6(math.Ceil(v/step-1e-9) * step)
}

// kTicks is gonum's default ticker with thousands and millions written
// as 1.5k and 2M.
type kTicks struct{}

// Ticks implements plot.Ticker.
func (kTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ts {
		if t.Label != "" {
			dec := 0
			if j := strings.IndexByte(t.Label, '.'); j >= 0 {
				dec = len(t.Label) - j - 1
			}
			ts[i].Label = trimZeros(fmtNum(t.Value, dec))
		}
	}
	return ts
}

// timeTicks labels the time axis about ten times, in 1-2-5 steps, with
// unlabelled ticks between.
type timeTicks struct{}

// Ticks implements plot.Ticker.
func (timeTicks) Ticks(min, max float64) []plot.Tick {
	step := ceil125((max - min) / 10)
	minor := step / 5
	if m := round6(step / math.Pow(10, math.Floor(math.Log10(step)))); m == 2 {
		minor = step / 4
	}
	var ts []plot.Tick
	for i := math.Ceil(min / minor); i*minor <= max*(1+1e-9); i++ {
		v := round6(i * minor)
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = trimZeros(fmtNum(v, decimalsOf(step)))
		}
		ts = append(ts, t)
	}
	return ts
}

// logTicks labels a log axis at 1, 2 and 5 times powers of ten when it
// spans at most three decades, and at powers of ten otherwise.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	mults := []float64{1, 2, 5}
	if math.Log10(max/min) > 3 {
		mults = []float64{1}
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(min)) - 1; e <= math.Ceil(math.Log10(max)); e++ {
		for _, m := range mults {
			v := round6(m * math.Pow(10, e))
			if v >= min*(1-1e-9) && v <= max*(1+1e-9) {
				ts = append(ts, plot.Tick{Value: v, Label: fmtNum(v, decimalsOf(v))})
			}
		}
	}
	return ts
}

// lines is a plotter of a panel's lines. It draws them as gonum's
// plotter.Line does, without their glyph boxes: a line has no glyph to
// keep inside the plot, and gonum asks for the boxes, one per point,
// each time it pads the plot (several times per panel), which took 90% of
// the memory of a one-hour chart.
type lines []*plotter.Line

// Plot implements plot.Plotter.
func (ls lines) Plot(c draw.Canvas, p *plot.Plot) {
	for _, l := range ls {
		l.Plot(c, p)
	}
}

// shade is a plotter of the ramp-up: the plot's height from the start of
// the time axis to a time.
type shade struct {
	to    float64
	color color.Color
}

// Plot implements plot.Plotter.
func (s shade) Plot(c draw.Canvas, p *plot.Plot) {
	x, _ := p.Transforms(&c)
	c.FillPolygon(s.color, rectPts(c.Min.X, c.Min.Y, x(s.to), c.Max.Y))
}

// errMarks is a plotter of intervals with errors: red marks along the
// bottom of the plot, one row per run.
type errMarks []errMark

// Plot implements plot.Plotter.
func (es errMarks) Plot(c draw.Canvas, p *plot.Plot) {
	x, _ := p.Transforms(&c)
	for _, e := range es {
		c.FillPolygon(errRed, errRect(c, x, e))
	}
}

// errRect returns the corners of an error mark.
func errRect(c draw.Canvas, x func(float64) vg.Length, e errMark) []vg.Point {
	x0, x1 := x(e.from), x(e.to)
	x1 = max(x1-0.75, x0+1.5)
	y0 := c.Min.Y + 0.75 + errRow*vg.Length(e.run)
	return rectPts(x0, y0, x1, y0+errH)
}

// render draws the figure on a canvas of gonum's.
func (f *figure) render(c vg.CanvasSizer) ([]placed, error) {
	return f.draw(draw.New(c))
}

// svgFonts names fonts metric-compatible with Liberation Sans, for
// viewers that lack it: the text keeps the widths it was laid out with.
const svgFonts = "font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"

// writeSVG writes f as an SVG document.
func writeSVG(w io.Writer, f *figure) error {
	c := vgsvg.NewWith(vgsvg.UseWH(width, f.height()))
	if _, err := f.render(c); err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	out := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFonts))
	_, err := w.Write(out)
	return err
}

// writePNG writes f as a PNG image 1000 pixels wide.
func writePNG(w io.Writer, f *figure) error {
	c := vgimg.NewWith(vgimg.UseWH(width, f.height()), vgimg.UseDPI(dpi))
	if _, err := f.render(c); err != nil {
		return err
	}
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// num renders an SVG coordinate with at most two decimals.
func num(v vg.Length) string {
	return trimZeros(strconv.FormatFloat(float64(v), 'f', 2, 64))
}
