package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/stampede-bench/stampede/stats"
)

// writeHTML writes a self-contained page: the chart as inline SVG with
// tooltips, then a table of each run's figures over its report window.
func writeHTML(w io.Writer, f *figure, in Input) error {
	var b strings.Builder
	title := in.Title
	if title == "" {
		var ids []string
		for _, r := range in.Runs {
			ids = append(ids, r.Series.ID)
		}
		title = in.Runs[0].Series.Workload + ": " + strings.Join(ids, " vs ")
	}
	e := html.EscapeString
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>%s</title>
<style>
body{font-family:system-ui,sans-serif;margin:16px;color:#222}
table{border-collapse:collapse;margin:8px 0 20px;font-size:13px}
th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}
th:first-child,td:first-child{text-align:left}
caption{text-align:left;font-weight:bold;padding:4px 0}
.chart{overflow-x:auto}
</style>
</head>
<body>
<div class="chart">
`, e(title))
	var svg bytes.Buffer
	if err := writeSVG(&svg, f, f.hovers); err != nil {
		return err
	}
	// The SVG goes inline: without its XML declaration and comment.
	doc := svg.Bytes()
	doc = doc[bytes.Index(doc, []byte("<svg")):]
	b.Write(doc)
	b.WriteString("</div>\n<p>Hover over the chart for each interval's figures and over the red marks for error counts.</p>\n")
	for _, r := range in.Runs {
		v := r.View
		name := r.Series.ID
		if r.Label != "" {
			name = r.Label + ": " + name
		}
		if t := tagText(r.Series.Tags); t != "" {
			name += " (" + t + ")"
		}
		start := r.Series.Start
		fmt.Fprintf(&b, "<table>\n<caption>%s, %s, started %s; %d intervals from %s s to %s s (%s s)</caption>\n",
			e(name), e(r.Series.Workload), e(start.UTC().Format("2006-01-02 15:04:05 MST")), v.Intervals,
			fmtSec(v.From.Sub(start).Seconds()), fmtSec(v.To.Sub(start).Seconds()), fmtSec(v.Seconds))
		b.WriteString("<tr><th>operation</th><th>operations</th><th>errors</th><th>ops/s</th><th>mean ms</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr>\n")
		row := func(name string, s stats.Summary) {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
				e(name), s.Count, s.Errors, fmtVal(s.Rate), fmtVal(s.Mean), fmtVal(s.P50), fmtVal(s.P95), fmtVal(s.P99), fmtVal(s.P999), fmtVal(s.Max))
		}
		for _, op := range v.Ops {
			row(op.Name, op.Summary)
		}
		row("total", v.Total)
		for _, s := range v.Series {
			row(s.Name, s.Summary)
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// hovers writes the tooltips of the placed panels into an SVG of height h:
// an invisible band over each interval of each panel, titled with the
// interval's values of every line, and one over each error mark.
func (f *figure) hovers(w io.Writer, pl []placed, h vg.Length) {
	io.WriteString(w, "<style>.hv{fill:#000;fill-opacity:0}.hv:hover{fill-opacity:.07}.em{fill-opacity:0}</style>\n")
	rect := func(class string, x0, y0, x1, y1 vg.Length, title string) {
		fmt.Fprintf(w, `<rect x="%s" y="%s" width="%s" height="%s" class="%s"><title>%s</title></rect>`+"\n",
			num(x0), num(h-y1), num(x1-x0), num(y1-y0), class, esc(title))
	}
	for _, q := range pl {
		p, c := q.panel, q.data
		x, _ := q.plot.Transforms(&c)
		var ref *line
		for i := range p.lines {
			if ref == nil || len(p.lines[i].spans) > len(ref.spans) {
				ref = &p.lines[i]
			}
		}
		if ref != nil {
			for _, sp := range ref.spans {
				mid := (sp.From + sp.To) / 2
				if sp.From < -0.5 || sp.To > f.xmax+0.5 {
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
				rect("hv", x(sp.From), c.Min.Y, x(sp.To), c.Max.Y, b.String())
			}
		}
		for _, e := range p.errs {
			r := errRect(c, x, e)
			rect("em", r[0].X, r[0].Y, r[2].X, r[2].Y, e.title)
		}
	}
}

// esc escapes s for XML text; newlines stay, as &#xA;, which tooltips show
// as line breaks.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // writing to a strings.Builder never fails
	return b.String()
}
