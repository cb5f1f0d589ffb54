package chart

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/stampede-bench/stampede/results"
)

// Colours. The palette is Tableau 10 without its red, which marks errors.
var (
	palette = []rgb{
		{0x1f, 0x77, 0xb4}, // blue
		{0xff, 0x7f, 0x0e}, // orange
		{0x2c, 0xa0, 0x2c}, // green
		{0x94, 0x67, 0xbd}, // purple
		{0x8c, 0x56, 0x4b}, // brown
		{0xe3, 0x77, 0xc2}, // pink
		{0x17, 0xbe, 0xcf}, // cyan
		{0xbc, 0xbd, 0x22}, // olive
		{0x7f, 0x7f, 0x7f}, // grey
	}
	errRed   = rgb{0xd6, 0x27, 0x28}
	ink      = rgb{0x22, 0x22, 0x22}
	muted    = rgb{0x66, 0x66, 0x66}
	gridC    = rgb{0xe6, 0xe6, 0xe6}
	frameC   = rgb{0xb0, 0xb0, 0xb0}
	rampC    = rgb{0x80, 0x80, 0x80}
	white    = rgb{0xff, 0xff, 0xff}
	keyGrey  = rgb{0x55, 0x55, 0x55}
	rampOpac = 0.13
)

// pal returns the i-th colour of the palette, cycling.
func pal(i int) rgb { return palette[i%len(palette)] }

// style is how a line is stroked.
type style struct {
	width float64
	dash  []float64
}

var (
	solid  = style{width: 1.6}
	bold   = style{width: 2.2}
	dashed = style{width: 1.6, dash: []float64{7, 4}}
	dotted = style{width: 1.8, dash: []float64{2, 3}}
)

// Geometry, in pixels.
const (
	width       = 1000
	marginL     = 70
	marginR     = 24
	plotH       = 150
	panelHead   = 24 // panel title above the plot
	panelFoot   = 40 // x tick labels and space below the plot
	maxOpCharts = 8  // operations with their own latency panel
)

// metric is one of the values drawn for each point of a track.
type metric struct {
	name  string
	style style
}

// track is the values of one entity (an operation, a disk, a process
// group, the host) in one run.
type track struct {
	entity string
	run    int
	spans  []results.Span
	vals   [][]float64 // per metric; NaN where there is no value
	errs   []int64     // per point; operations only
}

// family describes a kind of panel.
type family struct {
	// title returns a panel's title; entity is "" for a panel showing
	// every entity.
	title     func(entity string) string
	unit      string // "" for byte rates, whose unit is chosen per panel
	metrics   []metric
	log       bool
	fixedMax  float64 // the top of the y axis; 0 for the data's maximum
	perEntity bool    // one panel per entity even for a single run
	omitZero  string  // if set, entities that are 0 throughout are left out and listed in a note with this text
}

// line is one polyline of a panel.
type line struct {
	label string // in tooltips
	color rgb
	style style
	spans []results.Span
	vals  []float64
}

// errMark marks an interval with errors.
type errMark struct {
	from, to float64
	run      int
	title    string
}

// key is one entry of a panel's key.
type key struct {
	label string
	color rgb
	style style
}

// panel is one plot.
type panel struct {
	title    string
	unit     string
	div      float64 // values are divided by div for display
	keys     []key
	log      bool
	fixedMax float64
	lines    []line
	errs     []errMark
	// empty, if set, is written in the middle of the plot, which has no
	// line.
	empty string
}

// layout builds a drawing.
type layout struct {
	in     Input
	multi  bool
	d      *drawing
	notes  []string
	xscale scale
	xmax   float64 // the end of the time axis's data
}

// runName is how a run is named in tooltips and keys: its label or ID.
func (l *layout) runName(i int) string {
	if r := l.in.Runs[i]; r.Label != "" {
		return r.Label
	}
	return l.in.Runs[i].Series.ID
}

// build lays the chart out.
func build(in Input) *drawing {
	l := &layout{in: in, multi: len(in.Runs) > 1, d: &drawing{w: width}}
	panels := l.panels()
	if len(panels) == 0 {
		// Nothing was recorded: draw the throughput panel's axes with a
		// note, not a chart without a plot that could be taken for a
		// broken file.
		panels = []panel{{title: "throughput", unit: "ops/s", div: 1, empty: "no data"}}
		l.notes = append(l.notes, "no data: the run recorded no operation, error or telemetry sample to draw")
	}

	// The time axis: seconds since each run's start, to the end of the
	// last interval; telemetry sampled outside it is not drawn.
	xmax := 0.0
	for _, r := range in.Runs {
		for _, op := range r.Series.Ops {
			if n := len(op.Points); n > 0 {
				xmax = math.Max(xmax, op.Points[n-1].To)
			}
		}
	}
	if xmax == 0 {
		for _, p := range panels {
			for _, ln := range p.lines {
				if n := len(ln.spans); n > 0 {
					xmax = math.Max(xmax, ln.spans[n-1].To)
				}
			}
		}
	}
	l.xscale = linear(0, xmax, 10, marginL, width-marginR)
	l.xmax = xmax

	y := l.header()
	for i, p := range panels {
		y = l.drawPanel(p, y, i == 0, i == len(panels)-1)
	}
	y = l.footer(y)
	l.d.h = int(math.Ceil(y))
	// The background goes first.
	l.d.shapes = append([]shape{rect{x: 0, y: 0, w: width, h: float64(l.d.h), fill: white}}, l.d.shapes...)
	return l.d
}

// panels turns the runs' series into panels: throughput, latency, then
// telemetry.
func (l *layout) panels() []panel {
	var thr, lat, cpu, disk, pcpu, pio []track
	var dropped []string
	for r, run := range l.in.Runs {
		s := run.Series
		for k, op := range s.Ops {
			n := len(op.Points)
			t := track{entity: op.Name, run: r, spans: make([]results.Span, n), vals: [][]float64{make([]float64, n)}, errs: make([]int64, n)}
			lt := track{entity: op.Name, run: r, spans: t.spans, vals: [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}}
			for i, p := range op.Points {
				t.spans[i] = p.Span
				t.vals[0][i] = p.Rate
				t.errs[i] = p.Errors
				for j, v := range []float64{p.P99, p.P95, p.P50} {
					if p.Count == 0 {
						v = math.NaN()
					}
					lt.vals[j][i] = v
				}
			}
			thr = append(thr, t)
			if k < maxOpCharts {
				lat = append(lat, lt)
			} else if !slices.Contains(dropped, op.Name) {
				dropped = append(dropped, op.Name)
			}
		}
		tel := s.Telemetry
		if tel == nil {
			continue
		}
		ct := track{run: r, vals: [][]float64{nil, nil}}
		for _, p := range tel.CPU {
			ct.spans = append(ct.spans, p.Span)
			ct.vals[0] = append(ct.vals[0], p.Busy)
			ct.vals[1] = append(ct.vals[1], p.IOWait)
		}
		cpu = append(cpu, ct)
		for _, d := range tel.Disks {
			t := track{entity: d.Name, run: r, vals: [][]float64{nil, nil}}
			for _, p := range d.Points {
				t.spans = append(t.spans, p.Span)
				t.vals[0] = append(t.vals[0], p.WriteKBPerSec*1024)
				t.vals[1] = append(t.vals[1], p.ReadKBPerSec*1024)
			}
			disk = append(disk, t)
		}
		for _, g := range tel.Procs {
			c := track{entity: g.Name, run: r, vals: [][]float64{nil}}
			io := track{entity: g.Name, run: r, vals: [][]float64{nil, nil}}
			for _, p := range g.Points {
				c.spans = append(c.spans, p.Span)
				c.vals[0] = append(c.vals[0], p.CPUCores)
				io.vals[0] = append(io.vals[0], p.WriteBytesPerSec)
				io.vals[1] = append(io.vals[1], p.ReadBytesPerSec)
			}
			io.spans = c.spans
			pcpu = append(pcpu, c)
			pio = append(pio, io)
		}
	}
	if len(dropped) > 0 {
		l.notes = append(l.notes, fmt.Sprintf("latency not drawn for the operations beyond the first %d: %s", maxOpCharts, strings.Join(dropped, ", ")))
	}
	var out []panel
	add := func(f family, ts []track) { out = append(out, l.family(f, ts)...) }
	add(family{
		title: func(e string) string {
			if e == "" {
				return "throughput"
			}
			return e + ": throughput"
		},
		unit:    "ops/s",
		metrics: []metric{{"ops/s", solid}},
	}, thr)
	add(family{
		title:     func(e string) string { return e + ": latency" },
		unit:      "ms, log scale",
		metrics:   []metric{{"p99", bold}, {"p95", dashed}, {"p50", dotted}},
		log:       true,
		perEntity: true,
	}, lat)
	add(family{
		title:    func(string) string { return "host CPU" },
		unit:     "% of all CPUs",
		metrics:  []metric{{"user+system", solid}, {"iowait", dashed}},
		fixedMax: 100,
	}, cpu)
	add(family{
		title: func(e string) string {
			if e == "" {
				return "disk I/O"
			}
			return "disk " + e + ": I/O"
		},
		metrics:  []metric{{"write", solid}, {"read", dashed}},
		omitZero: "disks without I/O during the run",
	}, disk)
	add(family{
		title: func(e string) string {
			if e == "" {
				return "watched processes: CPU"
			}
			return "processes " + e + ": CPU"
		},
		unit:    "cores",
		metrics: []metric{{"cores", solid}},
	}, pcpu)
	add(family{
		title: func(e string) string {
			if e == "" {
				return "watched processes: storage I/O"
			}
			return "processes " + e + ": storage I/O"
		},
		metrics:  []metric{{"write", solid}, {"read", dashed}},
		omitZero: "process groups without storage I/O during the run",
	}, pio)
	return out
}

// family builds the panels of one family: with a single run, one panel
// holding every entity in its own colour (or one panel per entity if
// f.perEntity); with several runs, one panel per entity, one colour per
// run. Metrics are told apart by line style, or, in a single run's panel
// of one entity, by colour.
func (l *layout) family(f family, tracks []track) []panel {
	var entities []string
	for _, t := range tracks {
		if !slices.Contains(entities, t.entity) {
			entities = append(entities, t.entity)
		}
	}
	if f.omitZero != "" {
		var zero []string
		entities = slices.DeleteFunc(entities, func(e string) bool {
			for _, t := range tracks {
				if t.entity != e {
					continue
				}
				for _, vs := range t.vals {
					for _, v := range vs {
						if v != 0 && !math.IsNaN(v) {
							return false
						}
					}
				}
			}
			zero = append(zero, e)
			return true
		})
		if len(zero) > 0 {
			l.notes = append(l.notes, fmt.Sprintf("not drawn, %s: %s", f.omitZero, strings.Join(zero, ", ")))
		}
	}
	if len(entities) == 0 {
		return nil
	}
	index := func(e string) int { return slices.Index(entities, e) }
	newPanel := func(title string) panel {
		return panel{title: title, unit: f.unit, log: f.log, fixedMax: f.fixedMax, div: 1}
	}
	addErrs := func(p *panel, t track, name string) {
		for i, n := range t.errs {
			if n == 0 {
				continue
			}
			sp := t.spans[i]
			p.errs = append(p.errs, errMark{from: sp.From, to: sp.To, run: t.run,
				title: fmt.Sprintf("%s: %d errors in %s-%s s", name, n, fmtSec(sp.From), fmtSec(sp.To))})
		}
	}
	var out []panel
	if !l.multi && !f.perEntity {
		p := newPanel(f.title(""))
		byMetric := len(entities) == 1 && len(f.metrics) > 1
		if len(entities) == 1 && entities[0] != "" && len(f.metrics) > 1 {
			p.title = f.title(entities[0])
		}
		for _, t := range tracks {
			ei := index(t.entity)
			if ei < 0 {
				continue
			}
			for mi, m := range f.metrics {
				ln := line{label: t.entity, color: pal(ei), style: m.style, spans: t.spans, vals: t.vals[mi]}
				if len(f.metrics) > 1 {
					ln.label = strings.TrimSpace(t.entity + " " + m.name)
				}
				if byMetric {
					ln.color, ln.style = pal(mi), solid
				}
				p.lines = append(p.lines, ln)
			}
			addErrs(&p, t, t.entity)
		}
		switch {
		case byMetric:
			for mi, m := range f.metrics {
				p.keys = append(p.keys, key{m.name, pal(mi), solid})
			}
		default:
			for ei, e := range entities {
				p.keys = append(p.keys, key{e, pal(ei), solid})
			}
			if len(f.metrics) > 1 {
				for _, m := range f.metrics {
					p.keys = append(p.keys, key{m.name, keyGrey, m.style})
				}
			}
		}
		return append(out, l.finish(p, f))
	}
	for ei, e := range entities {
		p := newPanel(f.title(e))
		for _, t := range tracks {
			if t.entity != e {
				continue
			}
			c := pal(ei)
			if l.multi {
				c = pal(t.run)
			}
			for mi, m := range f.metrics {
				label := m.name
				if l.multi {
					label = l.runName(t.run) + " " + m.name
				}
				p.lines = append(p.lines, line{label: label, color: c, style: m.style, spans: t.spans, vals: t.vals[mi]})
			}
			name := e
			if l.multi {
				name = l.runName(t.run) + " " + e
			}
			addErrs(&p, t, name)
		}
		if len(f.metrics) > 1 {
			kc := pal(ei)
			if l.multi {
				kc = keyGrey
			}
			for _, m := range f.metrics {
				p.keys = append(p.keys, key{m.name, kc, m.style})
			}
		}
		out = append(out, l.finish(p, f))
	}
	return out
}

// finish picks the unit of a byte-rate panel.
func (l *layout) finish(p panel, f family) panel {
	if f.unit != "" {
		return p
	}
	mx := 0.0
	for _, ln := range p.lines {
		for _, v := range ln.vals {
			if !math.IsNaN(v) {
				mx = math.Max(mx, v)
			}
		}
	}
	p.unit, p.div = "B/s", 1
	for _, u := range []struct {
		div  float64
		name string
	}{{1 << 30, "GiB/s"}, {1 << 20, "MiB/s"}, {1 << 10, "KiB/s"}} {
		if mx >= 2*u.div {
			p.unit, p.div = u.name, u.div
			break
		}
	}
	return p
}

// header draws the title and legend and returns where the panels start.
func (l *layout) header() float64 {
	y := 24.0
	runs := l.in.Runs
	title := l.in.Title
	if title == "" {
		title = runs[0].Series.Workload
		if l.multi {
			var names []string
			for i := range runs {
				names = append(names, l.runName(i))
			}
			title += ": " + strings.Join(names, " vs ")
		}
	}
	if !l.multi {
		s := runs[0].Series
		title += " | run " + s.ID + " | " + s.Start.UTC().Format("2006-01-02 15:04:05 MST")
		if t := tagText(s.Tags); t != "" {
			title += " | " + t
		}
	}
	l.text(marginL, y, title, anchorStart, true, ink)
	y += lineH + 2
	for i, r := range runs {
		fig := figures(r)
		if l.multi {
			name := r.Series.ID
			if r.Label != "" {
				name = r.Label + "  " + name
			}
			if t := tagText(r.Series.Tags); t != "" {
				name += " (" + t + ")"
			}
			l.d.shapes = append(l.d.shapes, rect{x: marginL, y: y - 9, w: 18, h: 10, fill: pal(i)})
			l.text(marginL+24, y, name+", "+r.Series.Start.UTC().Format("2006-01-02 15:04:05 MST"), anchorStart, true, ink)
			y += lineH
			l.text(marginL+24, y, fig, anchorStart, false, ink)
		} else {
			l.text(marginL, y, fig, anchorStart, false, ink)
		}
		y += lineH
	}
	hint := "shaded: ramp-up | red marks under throughput: intervals with errors"
	if l.multi {
		hint = "time from each run's start | " + hint
	}
	l.text(marginL, y, hint, anchorStart, false, muted)
	return y + 14
}

// figures renders a run's key figures.
func figures(r Run) string {
	v := r.View
	if v.Intervals == 0 {
		return "no complete interval in the report window"
	}
	start := r.Series.Start
	t := v.Total
	from := v.From.Sub(start).Seconds()
	window := fmt.Sprintf("%s-%s s", fmtSec(from), fmtSec(v.To.Sub(start).Seconds()))
	if re := r.Series.RampEnd; re > 0 && math.Abs(from-re) < 0.001 {
		window += " (after the ramp-up)"
	}
	return fmt.Sprintf("%s: %s ops/s | p50 %s ms | p95 %s ms | p99 %s ms | max %s ms | %d errors",
		window, fmtVal(t.Rate), fmtVal(t.P50), fmtVal(t.P95), fmtVal(t.P99), fmtVal(t.Max), t.Errors)
}

// tagText renders tags as "k=v k=v", sorted.
func tagText(tags map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		parts = append(parts, k+"="+tags[k])
	}
	return strings.Join(parts, " ")
}

// fmtSec renders seconds since the start: 12, 12.5, 0.25.
func fmtSec(s float64) string {
	return trimZeros(fmt.Sprintf("%.2f", s))
}

// text adds a text shape.
func (l *layout) text(x, y float64, s string, anchor int, bold bool, c rgb) {
	l.d.shapes = append(l.d.shapes, text{x: x, y: y, s: s, anchor: anchor, bold: bold, color: c})
}

// drawPanel draws p with its top at y and returns the top of the next.
func (l *layout) drawPanel(p panel, y float64, first, last bool) float64 {
	x0, x1 := float64(marginL), float64(width-marginR)
	top := y + panelHead
	bottom := top + plotH

	// Title, unit and key.
	title := p.title + " (" + p.unit + ")"
	l.text(x0, y+14, title, anchorStart, true, ink)
	kx := x0 + textWidth(title) + 24
	for _, k := range p.keys {
		l.d.shapes = append(l.d.shapes, path{pts: []pt{{kx, y + 10}, {kx + 24, y + 10}}, stroke: k.color, width: k.style.width, dash: k.style.dash})
		l.text(kx+30, y+14, k.label, anchorStart, false, ink)
		kx += 30 + textWidth(k.label) + 18
	}

	// The y scale.
	ys := l.yscale(p, bottom, top)

	// Ramp-up; runs whose ramp-ups end within 3 pixels share one shade.
	var ramps []float64
	for _, r := range l.in.Runs {
		re := rnd(l.xscale.at(r.Series.RampEnd))
		if r.Series.RampEnd <= 0 || slices.ContainsFunc(ramps, func(x float64) bool { return math.Abs(x-re) < 3 }) {
			continue
		}
		ramps = append(ramps, re)
		l.d.shapes = append(l.d.shapes, rect{x: x0, y: top, w: re - x0, h: plotH, fill: rampC, opacity: rampOpac})
		if first && len(ramps) == 1 && re-x0 > textWidth("ramp-up")+8 {
			l.text(x0+4, top+13, "ramp-up", anchorStart, false, muted)
		}
	}

	// Grid and tick labels.
	for _, v := range ys.ticks {
		py := math.Round(ys.at(v)) + 0.5
		l.d.shapes = append(l.d.shapes, path{pts: []pt{{x0, py}, {x1, py}}, stroke: gridC, width: 1})
		l.text(x0-6, py+4, ys.label(v), anchorEnd, false, muted)
	}
	for _, v := range l.xscale.ticks {
		px := math.Round(l.xscale.at(v)) + 0.5
		l.d.shapes = append(l.d.shapes, path{pts: []pt{{px, top}, {px, bottom}}, stroke: gridC, width: 1})
		l.text(px, bottom+15, l.xscale.label(v), anchorMiddle, false, muted)
	}
	if last {
		l.text(x1, bottom+30, "seconds since start", anchorEnd, false, muted)
	}
	l.d.shapes = append(l.d.shapes, path{pts: []pt{{x0 + .5, top + .5}, {x1 - .5, top + .5}, {x1 - .5, bottom - .5}, {x0 + .5, bottom - .5}, {x0 + .5, top + .5}}, stroke: frameC, width: 1})

	if p.empty != "" {
		l.text((x0+x1)/2, (top+bottom)/2+4, p.empty, anchorMiddle, false, muted)
	}

	// Lines.
	for _, ln := range p.lines {
		for _, seg := range l.segments(ln, ys, p.div) {
			l.d.shapes = append(l.d.shapes, path{pts: seg, stroke: ln.color, width: ln.style.width, dash: ln.style.dash})
		}
	}

	// Tooltips: one band per interval of the line with the most points.
	l.hovers(p, top)

	// Errors, as red marks along the bottom, one row per run.
	for _, e := range p.errs {
		ex0, ex1 := l.xscale.at(e.from), l.xscale.at(e.to)
		w := math.Max(ex1-ex0-1, 2)
		l.d.shapes = append(l.d.shapes, rect{x: ex0, y: bottom - 7 - 7*float64(e.run), w: w, h: 6, fill: errRed, title: e.title})
	}
	if last {
		return bottom + panelFoot
	}
	return bottom + panelFoot - 12
}

// yscale returns the panel's y scale between the pixels bottom and top.
func (l *layout) yscale(p panel, bottom, top float64) scale {
	lo, hi := math.Inf(1), 0.0
	for _, ln := range p.lines {
		for _, v := range ln.vals {
			if math.IsNaN(v) {
				continue
			}
			v /= p.div
			hi = math.Max(hi, v)
			if v > 0 {
				lo = math.Min(lo, v)
			}
		}
	}
	if p.log {
		if math.IsInf(lo, 1) {
			lo, hi = 0.1, 1
		}
		return logScale(lo, hi, bottom, top)
	}
	if p.fixedMax > 0 {
		hi = p.fixedMax
	}
	return linear(0, hi, 5, bottom, top)
}

// segments returns a line's polylines: points at the middle of each span,
// broken where there is no value.
func (l *layout) segments(ln line, ys scale, div float64) [][]pt {
	var out [][]pt
	var cur []pt
	flush := func(i int) {
		switch len(cur) {
		case 0:
		case 1: // a lone point: a short level stroke across its span
			sp := ln.spans[i]
			y := cur[0].y
			cur = []pt{{rnd(l.xscale.at(sp.From)), y}, {rnd(l.xscale.at(sp.To)), y}}
			fallthrough
		default:
			out = append(out, cur)
		}
		cur = nil
	}
	for i, v := range ln.vals {
		sp := ln.spans[i]
		if math.IsNaN(v) || sp.From < -0.5 || sp.To > l.xmax+0.5 {
			flush(i - 1)
			continue
		}
		cur = append(cur, pt{rnd(l.xscale.at((sp.From + sp.To) / 2)), rnd(ys.at(v / div))})
	}
	flush(len(ln.vals) - 1)
	return out
}

// rnd rounds a coordinate to 1/10 pixel, keeping the SVG output short.
func rnd(v float64) float64 { return math.Round(v*10) / 10 }

// hovers adds a tooltip band per interval to p.
func (l *layout) hovers(p panel, top float64) {
	var ref *line
	for i := range p.lines {
		if ref == nil || len(p.lines[i].spans) > len(ref.spans) {
			ref = &p.lines[i]
		}
	}
	if ref == nil {
		return
	}
	for _, sp := range ref.spans {
		mid := (sp.From + sp.To) / 2
		if sp.From < -0.5 || sp.To > l.xmax+0.5 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s-%s s", fmtSec(sp.From), fmtSec(sp.To))
		for _, ln := range p.lines {
			i := sort.Search(len(ln.spans), func(i int) bool { return ln.spans[i].To > mid })
			val := "-"
			if i < len(ln.spans) && ln.spans[i].From <= mid && !math.IsNaN(ln.vals[i]) {
				val = fmtVal(ln.vals[i]/p.div) + " " + strings.TrimSuffix(p.unit, ", log scale")
			}
			fmt.Fprintf(&b, "\n%s: %s", ln.label, val)
		}
		x0, x1 := l.xscale.at(sp.From), l.xscale.at(sp.To)
		l.d.shapes = append(l.d.shapes, rect{x: rnd(x0), y: top, w: rnd(x1 - x0), h: plotH, title: b.String(), hover: true})
	}
}

// footer draws the notes and the runs' warnings and returns the bottom.
func (l *layout) footer(y float64) float64 {
	notes := slices.Clone(l.notes)
	for _, r := range l.in.Runs {
		notes = append(notes, r.Series.Warnings...)
	}
	for _, n := range notes {
		l.text(marginL, y, "note: "+n, anchorStart, false, muted)
		y += lineH
	}
	return y + 4
}
