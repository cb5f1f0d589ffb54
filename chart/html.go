package chart

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/stats"
)

// writeHTML writes a self-contained page: the chart as inline SVG with
// tooltips, then a table of each run's figures over its report window.
func writeHTML(w io.Writer, d *drawing, in Input) error {
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
	if err := writeSVG(&b, d, true); err != nil {
		return err
	}
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
