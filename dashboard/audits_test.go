package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/runlog"
)

// pageAudit is a row of an audits table of the page, as shown.
type pageAudit struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Required string `json:"required"`
	Result   string `json:"result"`
}

// pageAudits reads the audits table id of the page.
func pageAudits(t *testing.T, ctx context.Context, id string) []pageAudit {
	t.Helper()
	js := `[...document.querySelectorAll('#` + id + ` tbody tr')].map(tr => Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.field, td.textContent])))`
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]pageAudit](js))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestBrowserAudits runs TPC-C (a warehouse, against the test server) and
// opens its run page in Debian's Chromium: the audits table, made back
// into lines, is the audits block the run printed, and the checks table
// the checks' lines it printed, row for row; the page's audits are
// `report --format json`'s.
func TestBrowserAudits(t *testing.T) {
	root, id, out := serverRun(t, "stampede_dashaudits", "tpcc", []string{"--warehouses", "1"},
		[]string{"--warehouses", "1", "--wait=false", "--concurrency", "2", "--duration", "3s", "--telemetry=false"})

	ctx := browser(t)
	shotDir := shots(t)
	srv := serve(t, root, "")
	load(t, ctx, srv.URL+"/#/run/"+id, "run")
	screenshot(t, ctx, shotDir, "run-tpcc-audits")

	// The audits: each row made back into the run's line.
	audits := pageAudits(t, ctx, "audits")
	var fromPage []report.Audit
	for _, a := range audits {
		i := strings.LastIndex(a.Name, " (")
		if i < 0 || !strings.HasSuffix(a.Name, ")") {
			t.Fatalf("audit %q does not name its clause", a.Name)
		}
		fromPage = append(fromPage, report.Audit{Name: a.Name[:i], Clause: a.Name[i+2 : len(a.Name)-1], Required: a.Required, Result: a.Result, Detail: a.Value})
	}
	var lines bytes.Buffer
	if err := report.Audits(&lines, fromPage); err != nil {
		t.Fatal(err)
	}
	printed := out[strings.Index(out, "\naudits:\n"):]
	printed = printed[:strings.Index(printed[1:], "\n\n")+2]
	if lines.String() != printed || len(audits) < 15 {
		t.Errorf("the page's audits (%d), as lines:\n%s\nthe run printed:\n%s", len(audits), lines.String(), printed)
	}

	// The checks: each row made back into the run's line.
	var want, got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "tpcc: 3.3.2.") {
			want = append(want, l)
		}
	}
	for _, c := range pageAudits(t, ctx, "checks") {
		l := fmt.Sprintf("tpcc: %s: %s", c.Name, c.Result)
		if c.Result != "PASS" {
			l += " (" + c.Value + ")"
		} else if c.Value != "0 offending rows" || c.Required != "0 offending rows" {
			t.Errorf("check %s passed with %q, requiring %q", c.Name, c.Value, c.Required)
		}
		got = append(got, l)
	}
	if !reflect.DeepEqual(got, want) || len(want) != 12 {
		t.Errorf("the page's checks, as lines:\n%s\nthe run printed:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The page's audits are report's.
	var rep struct {
		Audits []report.Audit `json:"audits"`
	}
	if err := json.Unmarshal(stampede(t, "report", id, "--results-dir", root, "--format", "json"), &rep); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Audits, fromPage) {
		t.Errorf("report --format json's audits:\n%+v\nthe page's:\n%+v", rep.Audits, fromPage)
	}
}

// TestBrowserEndpoints runs YCSB over three endpoints with --by-endpoint
// (the null driver) and opens its run page in Debian's Chromium: the
// per-endpoint table is `report --by-endpoint --format json`'s endpoints,
// to the last digit, and the per-endpoint charts are drawn, one series per
// operation and endpoint, whose point for an interval is that interval's
// figures as `report --by-endpoint --from --to` computes them.
func TestBrowserEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	eps := []string{"postgresql://10.0.0.1:26257/ycsb", "postgresql://10.0.0.2:26257/ycsb", "postgresql://10.0.0.3:26257/ycsb"}
	stampede(t, append([]string{"run", "ycsb", "--driver", "null", "--duration", "4s", "--display-every", "1s", "--concurrency", "3",
		"--by-endpoint", "--telemetry=false", "--results-dir", root}, eps...)...)
	infos, err := runlog.List(root)
	if err != nil || len(infos) != 1 {
		t.Fatalf("runs: %v %v", infos, err)
	}
	id := infos[0].ID
	ctx := browser(t)
	srv := serve(t, root, "")
	load(t, ctx, srv.URL+"/#/run/"+id, "run")
	screenshot(t, ctx, shots(t), "run-by-endpoint")

	var rep struct {
		Endpoints []map[string]any `json:"endpoints"`
	}
	if err := json.Unmarshal(stampede(t, "report", id, "--results-dir", root, "--by-endpoint", "--format", "json"), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{}
	for _, e := range rep.Endpoints {
		want[e["name"].(string)] = e
	}
	if len(want) != 6 {
		t.Fatalf("report --by-endpoint gives %d operations by endpoint, want 2 x 3", len(want))
	}
	checkRows(t, "per-endpoint table", pageFigures(t, ctx, "endpoint-figures"), want)

	// The charts: throughput and latency, a series per operation and
	// endpoint; the point of the interval that starts about 2s into the
	// run is that interval's report.
	type chart struct {
		Title  string      `json:"title"`
		Labels []string    `json:"labels"`
		Data   [][]float64 `json:"data"`
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chart](`window.stampedeCharts.filter(u => u.root.closest('#endpoint-charts')).map(u => ({
		title: u.root.closest('.chart').dataset.chart, labels: u.series.map(s => s.label), data: u.data}))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 || !strings.HasPrefix(charts[0].Title, "throughput per endpoint") || !strings.HasPrefix(charts[1].Title, "latency per endpoint") {
		t.Fatalf("per-endpoint charts: %+v", charts)
	}
	var win struct {
		Endpoints []map[string]any `json:"endpoints"`
		Taken     []struct {
			To float64 `json:"to_offset_s"`
		} `json:"taken"`
	}
	if err := json.Unmarshal(stampede(t, "report", id, "--results-dir", root, "--by-endpoint", "--from", "1.5s", "--to", "2.5s", "--format", "json"), &win); err != nil {
		t.Fatal(err)
	}
	if len(win.Taken) != 1 || len(win.Endpoints) != 6 {
		t.Fatalf("report --from 1.5s --to 2.5s: %+v", win)
	}
	point := func(c chart) int {
		for i, x := range c.Data[0] {
			if x == win.Taken[0].To {
				return i
			}
		}
		t.Fatalf("%s: no point at %vs, the end of the interval report took: %v", c.Title, win.Taken[0].To, c.Data[0])
		return 0
	}
	tp, lat := charts[0], charts[1]
	i, j := point(tp), point(lat)
	for _, e := range win.Endpoints {
		name := e["name"].(string)
		found := 0
		for k, label := range tp.Labels {
			if label == name {
				found++
				if g, w := tp.Data[k][i], e["ops_per_sec"].(float64); g != w {
					t.Errorf("throughput of %s at %vs: the chart %v, report %v", name, tp.Data[0][i], g, w)
				}
			}
		}
		for k, label := range lat.Labels {
			for _, q := range []string{"p50", "p95", "p99", "max"} {
				if label == name+" "+q {
					found++
					if g, w := lat.Data[k][j], e[q+"_ms"].(float64); g != w {
						t.Errorf("%s of %s at %vs: the chart %v, report %v", q, name, lat.Data[0][j], g, w)
					}
				}
			}
		}
		if found != 5 {
			t.Errorf("%s: %d of its 5 series in the charts (%v, %v)", name, found, tp.Labels, lat.Labels)
		}
	}
}
