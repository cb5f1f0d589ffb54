package chart

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/results"
)

// The model: what a chart shows, chosen from the runs' series before any
// drawing. render.go draws it with gonum.org/v1/plot.

// Colours. The palette is Tableau 20 without its reds, which mark errors:
// Tableau 10's nine, then their light tints, so that a run sql of many
// scripts and statements draws each in its own colour.
var (
	palette = []color.RGBA{
		{0x1f, 0x77, 0xb4, 0xff}, // blue
		{0xff, 0x7f, 0x0e, 0xff}, // orange
		{0x2c, 0xa0, 0x2c, 0xff}, // green
		{0x94, 0x67, 0xbd, 0xff}, // purple
		{0x8c, 0x56, 0x4b, 0xff}, // brown
		{0xe3, 0x77, 0xc2, 0xff}, // pink
		{0x17, 0xbe, 0xcf, 0xff}, // cyan
		{0xbc, 0xbd, 0x22, 0xff}, // olive
		{0x7f, 0x7f, 0x7f, 0xff}, // grey
		{0xae, 0xc7, 0xe8, 0xff}, // light blue
		{0xff, 0xbb, 0x78, 0xff}, // light orange
		{0x98, 0xdf, 0x8a, 0xff}, // light green
		{0xc5, 0xb0, 0xd5, 0xff}, // light purple
		{0xc4, 0x9c, 0x94, 0xff}, // light brown
		{0xf7, 0xb6, 0xd2, 0xff}, // light pink
		{0x9e, 0xda, 0xe5, 0xff}, // light cyan
		{0xdb, 0xdb, 0x8d, 0xff}, // light olive
		{0xc7, 0xc7, 0xc7, 0xff}, // light grey
	}
	errRed  = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	ink     = color.RGBA{0x22, 0x22, 0x22, 0xff}
	muted   = color.RGBA{0x66, 0x66, 0x66, 0xff}
	gridC   = color.RGBA{0xe6, 0xe6, 0xe6, 0xff}
	axisC   = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
	rampC   = color.NRGBA{0x80, 0x80, 0x80, 0x21} // 13% grey
	keyGrey = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// pal returns the i-th colour of the palette, cycling.
func pal(i int) color.RGBA { return palette[i%len(palette)] }

// style is how a line is stroked, in points.
type style struct {
	width float64
	dash  []float64
}

var (
	solid  = style{width: 1.2}
	bold   = style{width: 1.7}
	dashed = style{width: 1.2, dash: []float64{5, 3}}
	dotted = style{width: 1.4, dash: []float64{1.5, 2.2}}
)

// maxOpCharts is the number of operations with their own latency panel:
// as many as the palette has colours (a run sql's scripts and their
// statements), every one drawn in its own.
const maxOpCharts = 18

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

// line is one line of a panel: a value per span, NaN where there is none.
type line struct {
	label string // in tooltips
	color color.RGBA
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
	color color.RGBA
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

// headLine is a line of the chart's heading; a swatch, if set, is drawn
// before it.
type headLine struct {
	text   string
	bold   bool
	color  color.RGBA
	swatch *color.RGBA
}

// figure is a chart's model: its heading, its panels on a shared time axis
// from 0 to xmax seconds, ramp-ups to shade and notes under the panels.
type figure struct {
	head   []headLine
	panels []panel
	xmax   float64
	ramps  []float64 // ramp-up ends, seconds
	notes  []string
	multi  bool
}

// builder collects a figure's notes while its panels are chosen.
type builder struct {
	in    Input
	multi bool
	notes []string
}

// runName is how a run is named in tooltips and keys: its label or ID.
func (b *builder) runName(i int) string {
	if r := b.in.Runs[i]; r.Label != "" {
		return r.Label
	}
	return b.in.Runs[i].Series.ID
}

// build chooses what the chart of in shows.
func build(in Input) *figure {
	b := &builder{in: in, multi: len(in.Runs) > 1}
	f := &figure{multi: b.multi}
	f.panels = b.panels()
	if len(f.panels) == 0 {
		// Nothing was recorded: draw the throughput panel's axes with a
		// note, not a chart without a plot that could be taken for a
		// broken file.
		f.panels = []panel{{title: "throughput", unit: "ops/s", div: 1, empty: "no data"}}
		b.notes = append(b.notes, "no data: the run recorded no operation, error or telemetry sample to draw")
	}
	// The time axis: seconds since each run's start, to the end of the
	// last interval; telemetry sampled outside it is not drawn.
	for _, r := range in.Runs {
		for _, op := range r.Series.Ops {
			if n := len(op.Points); n > 0 {
				f.xmax = math.Max(f.xmax, op.Points[n-1].To)
			}
		}
	}
	if f.xmax == 0 {
		for _, p := range f.panels {
			for _, ln := range p.lines {
				if n := len(ln.spans); n > 0 {
					f.xmax = math.Max(f.xmax, ln.spans[n-1].To)
				}
			}
		}
	}
	for _, r := range in.Runs {
		if re := r.Series.RampEnd; re > 0 && !slices.ContainsFunc(f.ramps, func(x float64) bool { return math.Abs(x-re) < f.xmax/300 }) {
			f.ramps = append(f.ramps, re)
		}
	}
	f.head = b.header()
	f.notes = b.notes
	for _, r := range in.Runs {
		f.notes = append(f.notes, r.Series.Warnings...)
	}
	return f
}

// panels turns the runs' series into panels: throughput, latency, then
// telemetry.
func (b *builder) panels() []panel {
	var thr, lat, cpu, disk, pcpu, pio []track
	var dropped []string
	for r, run := range b.in.Runs {
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
		b.notes = append(b.notes, fmt.Sprintf("latency not drawn for the operations beyond the first %d: %s", maxOpCharts, strings.Join(dropped, ", ")))
	}
	// The workload's own series, by name in the order the runs give them:
	// a reading at an instant is a point whose span is that instant.
	var wnames []string
	wtracks, wunits := map[string][]track{}, map[string]string{}
	for r, run := range b.in.Runs {
		for _, ws := range run.Workload {
			unit, div := workloadUnit(ws.Unit)
			n := min(len(ws.At), len(ws.Values))
			t := track{entity: ws.Name, run: r, spans: make([]results.Span, n), vals: [][]float64{make([]float64, n)}}
			for i := range n {
				t.spans[i] = results.Span{From: ws.At[i], To: ws.At[i]}
				t.vals[0][i] = ws.Values[i] / div
			}
			if _, ok := wtracks[ws.Name]; !ok {
				wnames = append(wnames, ws.Name)
				wunits[ws.Name] = unit
			}
			wtracks[ws.Name] = append(wtracks[ws.Name], t)
		}
	}
	var out []panel
	add := func(f family, ts []track) { out = append(out, b.family(f, ts)...) }
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
	for _, name := range wnames {
		title := b.in.Runs[0].Series.Workload + ": " + workloadTitle(name)
		add(family{
			title:     func(string) string { return title },
			unit:      wunits[name] + ", from the run's records",
			metrics:   []metric{{workloadTitle(name), solid}},
			perEntity: true,
		}, wtracks[name])
	}
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
		// What the disk wrote and read (iostat's wkB/s and rkB/s).
		metrics:  []metric{{"written", solid}, {"read", dashed}},
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
		// The kernel's per-process write charge is the page cache the
		// processes dirtied, not what reached the disk (see
		// telemetry.DirtiedNote): labelled as the run's summary labels it.
		metrics:  []metric{{"dirtied (pidstat kB_wr/s)", solid}, {"read", dashed}},
		omitZero: "process groups without storage I/O during the run",
	}, pio)
	return out
}

// family builds the panels of one family: with a single run, one panel
// holding every entity in its own colour (or one panel per entity if
// f.perEntity); with several runs, one panel per entity, one colour per
// run. Metrics are told apart by line style, or, in a single run's panel
// of one entity, by colour.
func (b *builder) family(f family, tracks []track) []panel {
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
			b.notes = append(b.notes, fmt.Sprintf("not drawn, %s: %s", f.omitZero, strings.Join(zero, ", ")))
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
	if !b.multi && !f.perEntity {
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
		return append(out, finish(p, f))
	}
	for ei, e := range entities {
		p := newPanel(f.title(e))
		for _, t := range tracks {
			if t.entity != e {
				continue
			}
			c := pal(ei)
			if b.multi {
				c = pal(t.run)
			}
			for mi, m := range f.metrics {
				label := m.name
				if b.multi {
					label = b.runName(t.run) + " " + m.name
				}
				p.lines = append(p.lines, line{label: label, color: c, style: m.style, spans: t.spans, vals: t.vals[mi]})
			}
			name := e
			if b.multi {
				name = b.runName(t.run) + " " + e
			}
			addErrs(&p, t, name)
		}
		switch {
		case b.multi:
			for r := range b.in.Runs {
				p.keys = append(p.keys, key{b.runName(r), pal(r), solid})
			}
			if len(f.metrics) > 1 {
				for _, m := range f.metrics {
					p.keys = append(p.keys, key{m.name, keyGrey, m.style})
				}
			}
		case len(f.metrics) > 1:
			for _, m := range f.metrics {
				p.keys = append(p.keys, key{m.name, pal(ei), m.style})
			}
		}
		out = append(out, finish(p, f))
	}
	return out
}

// finish picks the unit of a byte-rate panel.
func finish(p panel, f family) panel {
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

// header returns the chart's heading: the title, each run's figures and a
// hint on what is marked.
func (b *builder) header() []headLine {
	runs := b.in.Runs
	title := b.in.Title
	if title == "" {
		title = runs[0].Series.Workload
		if b.multi {
			var names []string
			for i := range runs {
				names = append(names, b.runName(i))
			}
			title += ": " + strings.Join(names, " vs ")
		}
	}
	if !b.multi {
		s := runs[0].Series
		title += " | run " + s.ID + " | " + s.Start.UTC().Format("2006-01-02 15:04:05 MST")
		if t := tagText(s.Tags); t != "" {
			title += " | " + t
		}
	}
	out := []headLine{{text: title, bold: true, color: ink}}
	for i, r := range runs {
		fig := figures(r)
		if b.multi {
			name := r.Series.ID
			if r.Label != "" {
				name = r.Label + "  " + name
			}
			if t := tagText(r.Series.Tags); t != "" {
				name += " (" + t + ")"
			}
			c := pal(i)
			out = append(out, headLine{text: name + ", " + r.Series.Start.UTC().Format("2006-01-02 15:04:05 MST"), bold: true, color: ink, swatch: &c})
		}
		out = append(out, headLine{text: fig, color: ink})
	}
	hint := "shaded: ramp-up | red marks under throughput: intervals with errors"
	if b.multi {
		hint = "time from each run's start | " + hint
	}
	return append(out, headLine{text: hint, color: muted})
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

// workloadUnit returns how a workload series in unit is drawn: bytes as
// MB (10^6, as the run's figures print them), the rest as they are.
func workloadUnit(unit string) (shown string, div float64) {
	switch unit {
	case "bytes":
		return "MB", 1e6
	case "bytes/s":
		return "MB/s", 1e6
	}
	return unit, 1
}

// workloadTitle names a workload series in its panel's title as the
// dashboard's page does: database_size_bytes is "database size",
// rows_per_s "rows/s".
func workloadTitle(name string) string {
	name = strings.TrimSuffix(name, "_bytes")
	if n, ok := strings.CutSuffix(name, "_per_s"); ok {
		name = n + "/s"
	}
	return strings.ReplaceAll(name, "_", " ")
}
