package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// workloadChart is what the page shows of one of the workload's series:
// its chart's title, its points as drawn, the legend's text at the last
// point, and whether it sits among the telemetry's charts.
type workloadChart struct {
	Title       string      `json:"title"`
	Data        [][]float64 `json:"data"`
	Legend      string      `json:"legend"`
	InTelemetry bool        `json:"in_telemetry"`
}

// pageWorkloadCharts reads the workload's charts of the run page, the
// cursor put on each one's last point.
func pageWorkloadCharts(t *testing.T, ctx context.Context) map[string]workloadChart {
	t.Helper()
	js := `Object.fromEntries(Object.entries(window.stampedeWorkloadCharts || {}).map(([name, u]) => {
		const n = u.data[0].length - 1;
		u.setCursor({ left: u.valToPos(u.data[0][n], 'x'), top: u.valToPos(u.data[1][n], 'y') });
		const panel = u.root.parentElement;
		return [name, { title: panel.querySelector('h3').textContent, data: u.data,
			legend: u.root.querySelector('.u-legend .u-series:nth-child(2) .u-value').textContent,
			in_telemetry: panel.parentElement.id === 'telemetry' }];
	}))`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]workloadChart](js))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBrowserChurnSeries runs churn against the test server with the
// server's processes watched, and opens its run page, served and as
// `report --chart x.html` saves it, in Debian's Chromium: the database's
// size, the tables alive, rows/s and bytes/s are drawn among the
// telemetry's charts, beside the server's IO, each point the one `report
// --format json` gives, and the legend at the last point shows the run's
// final figure.
func TestBrowserChurnSeries(t *testing.T) {
	root, id, _ := serverRun(t, "churnviz_dash", "churn", nil,
		[]string{"--conns", "4", "--max-tables", "30", "--duration", "11s", "--seed", "5", "--watch-process", "^postgres$"})
	var rep struct {
		Figures map[string]float64 `json:"figures"`
		Series  []struct {
			Run    string    `json:"run"`
			Name   string    `json:"name"`
			Unit   string    `json:"unit"`
			At     []float64 `json:"at_s"`
			Values []float64 `json:"values"`
		} `json:"workload_series"`
	}
	if err := json.Unmarshal(stampede(t, "report", id, "--results-dir", root, "--format", "json"), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 4 {
		t.Fatalf("report --format json gives %d workload series, want 4 (size, tables alive, rows/s, bytes/s)", len(rep.Series))
	}
	page := filepath.Join(t.TempDir(), "churn.html")
	stampede(t, "report", id, "--results-dir", root, "--chart", page)

	titles := map[string]string{"database_size_bytes": "churn: database size (MB", "tables_alive": "churn: tables alive (tables",
		"rows_per_s": "churn: rows/s (rows/s", "bytes_per_s": "churn: bytes/s (MB/s"}
	ctx := browser(t)
	shotDir := shots(t)
	srv := serve(t, root, "")
	for _, at := range []string{srv.URL + "/#/run/" + id, "file://" + page} {
		load(t, ctx, at, "run")
		// The server's IO: the watched processes' panel, in the same box.
		io, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('#telemetry .chart[data-chart^="processes ^postgres$"]')`))
		if err != nil || !io {
			t.Errorf("%s: no panel of the server's processes among the telemetry's (%v)", at, err)
		}
		charts := pageWorkloadCharts(t, ctx)
		if len(charts) != len(rep.Series) {
			t.Errorf("%s: %d workload charts, report gives %d series", at, len(charts), len(rep.Series))
		}
		for _, s := range rep.Series {
			c, ok := charts[s.Name]
			if !ok {
				t.Errorf("%s: no chart of %s", at, s.Name)
				continue
			}
			div := map[string]float64{"bytes": 1e6, "bytes/s": 1e6}[s.Unit]
			if div == 0 {
				div = 1
			}
			if s.Run != id || !c.InTelemetry || !strings.HasPrefix(c.Title, titles[s.Name]) || len(c.Data) != 2 || len(c.Data[0]) != len(s.At) {
				t.Errorf("%s: chart of %s: %q, in the telemetry's box %v, %d points; report: run %s, %d points", at, s.Name, c.Title, c.InTelemetry, len(c.Data[0]), s.Run, len(s.At))
				continue
			}
			for i := range s.At {
				if c.Data[0][i] != s.At[i] || math.Abs(c.Data[1][i]*div-s.Values[i]) > 1e-9*math.Max(1, s.Values[i]) {
					t.Errorf("%s: %s point %d at %vs = %v, report gives %v at %vs", at, s.Name, i, c.Data[0][i], c.Data[1][i]*div, s.Values[i], s.At[i])
				}
			}
			last := s.Values[len(s.Values)-1]
			var want string
			switch s.Name {
			case "database_size_bytes":
				want = fmt.Sprintf("%.3f", rep.Figures["database_size_bytes"]/1e6)
				if last != rep.Figures["database_size_bytes"] {
					t.Errorf("the size's last point %v, the run's figure %v", last, rep.Figures["database_size_bytes"])
				}
			case "tables_alive":
				want = fmt.Sprintf("%.0f", rep.Figures["tables_alive"])
				if last != rep.Figures["tables_alive"] {
					t.Errorf("the tables alive's last point %v, the run's figure %v", last, rep.Figures["tables_alive"])
				}
			case "rows_per_s":
				want = fmt.Sprintf("%.1f", last)
			case "bytes_per_s":
				want = fmt.Sprintf("%.3f", last/1e6)
			}
			if c.Legend != want {
				t.Errorf("%s: %s's legend at the last point says %q, want %q", at, s.Name, c.Legend, want)
			}
		}
		screenshot(t, ctx, shotDir, "run-churn-"+map[bool]string{true: "saved", false: "served"}[strings.HasPrefix(at, "file:")])
	}
}
