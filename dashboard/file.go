package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// StaticDoc is the data a saved page carries: the page to show (a fragment
// of the dashboard's, such as "#/run/ID") and the answer of every API
// request that page makes, by request path, as the server would answer it.
type StaticDoc struct {
	Page string `json:"page"`
	// Saved says what saved the page and when, shown in its header.
	Saved string                     `json:"saved"`
	Docs  map[string]json.RawMessage `json:"docs"`
}

// WriteStatic writes the dashboard's page of runs as one self-contained
// HTML file: the same script, style sheet and uPlot, inlined, with the
// answers of the API requests the page makes embedded, so that it works
// from a file, with no server and no network. One run gives its run page,
// with views[0] as its figures (report's window); several give the compare
// page (each run beside the first, as `stampede compare` sets them), with
// each run's figures over views[i]. The charts zoom and show each
// interval's values on hover, but a zoomed window's figures, which the
// server recomputes from the histograms, are not in the file: the page
// says so and gives the `stampede report --from --to` command that
// computes them. With by ("endpoint" or "locality", see
// results.TimeSeriesBy) each operation's parts are drawn beside it. saved
// says what wrote the file (such as "stampede report --chart").
func WriteStatic(w io.Writer, runs []*runlog.Run, views []results.View, by, saved string) error {
	if len(runs) == 0 || len(views) != len(runs) {
		return fmt.Errorf("dashboard: %d runs and %d views to save", len(runs), len(views))
	}
	doc := StaticDoc{Saved: saved + ", " + time.Now().UTC().Format("2006-01-02 15:04:05Z"), Docs: map[string]json.RawMessage{}}
	put := func(path string, v any) error {
		data, err := json.Marshal(v)
		if err == nil {
			data, err = redactJSON(data)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		doc.Docs[path] = data
		return nil
	}
	var ids []string
	for i, run := range runs {
		id := run.Info.ID
		ids = append(ids, "run="+url.QueryEscape(id))
		base := "/api/runs/" + url.PathEscape(id)
		rd := RunDoc{Run: header(run), Summary: run.Summary}
		if views[i].Intervals > 0 {
			rep := output.NewReportDoc([]*runlog.Run{run}, views[i])
			rd.Report = &rep
		} else {
			rd.ReportError = "no interval of the run in the report's window"
		}
		s, err := seriesDocBy(run, by)
		if err != nil {
			return err
		}
		tel, warnings := results.TelemetrySeries(run)
		if err := put(base, rd); err != nil {
			return err
		}
		if err := put(base+"/series", s); err != nil {
			return err
		}
		if err := put(base+"/telemetry", telemetryDoc(tel, warnings)); err != nil {
			return err
		}
	}
	title := runs[0].Info.ID
	if len(runs) == 1 {
		doc.Page = "#/run/" + url.PathEscape(runs[0].Info.ID)
	} else {
		q := strings.Join(ids, "&")
		doc.Page = "#/compare?" + q
		out := compareDoc{Base: runs[0].Info.ID}
		for _, run := range runs[1:] {
			c, _, err := results.Compare(runs[0], run)
			if err != nil {
				return err
			}
			out.Comparisons = append(out.Comparisons, c)
			title += " vs " + run.Info.ID
		}
		if err := put("/api/compare?"+q, out); err != nil {
			return err
		}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	// json.Marshal escapes <, > and &: the data cannot end its script
	// element.
	page, err := staticPage(title, data)
	if err != nil {
		return err
	}
	_, err = w.Write(page)
	return err
}

// compareDoc is the answer of /api/compare.
type compareDoc struct {
	Base        string               `json:"base"`
	Comparisons []results.Comparison `json:"comparisons"`
}

// staticPage returns the dashboard's page with its assets inlined and
// data, a StaticDoc, embedded.
func staticPage(title string, data []byte) ([]byte, error) {
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(assets, "assets/"+name)
		if err != nil {
			return "", err
		}
		// A script or style sheet inlined must not hold its own end tag.
		if bytes.Contains(bytes.ToLower(b), []byte("</script")) || bytes.Contains(bytes.ToLower(b), []byte("</style")) {
			return "", fmt.Errorf("dashboard: %s holds an end tag and cannot be inlined", name)
		}
		return string(b), nil
	}
	var parts [4]string
	for i, name := range []string{"vendor/uplot/uPlot.min.css", "app.css", "vendor/uplot/uPlot.iife.min.js", "app.js"} {
		var err error
		if parts[i], err = read(name); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stampede: %s</title>
<style>
%s
</style>
<style>
%s
</style>
<script>
%s
</script>
<script type="application/json" id="stampede-static">%s</script>
</head>
<body>
<header class="top">
  <span class="brand">stampede</span>
  <span class="muted" id="saved"></span>
  <span id="status" class="status" role="status"></span>
</header>
<main id="main"></main>
<script>
%s
</script>
</body>
</html>
`, html.EscapeString(title), parts[0], parts[1], parts[2], data, parts[3])
	return b.Bytes(), nil
}
