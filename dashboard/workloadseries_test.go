package dashboard_test

import (
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// writeChurnRun writes a synthetic churn run under root, 10 intervals,
// with the records a churn run keeps every 5 s (database size, tables
// alive, rows and bytes so far), or none.
func writeChurnRun(t *testing.T, root, id string, records bool) {
	t.Helper()
	s := spec{id: id, workload: "churn", start: t0, n: 10, rate: 50, running: true}
	w := writeRun(t, root, s)
	if records {
		for i, at := range []float64{0.02, 5, 10.01} {
			when := t0.Add(time.Duration(at * float64(time.Second)))
			for name, v := range map[string]float64{"database_size_bytes": 8e6 + float64(i)*3.5e6, "tables_alive": float64(4 + 3*i),
				"rows_total": float64(i * 5200), "bytes_total": float64(i) * 1.3e6} {
				w.Event(runlog.Event{Time: when, Kind: run.RecordEvent, Op: name, Value: v})
			}
		}
	}
	if err := w.Finish(t0.Add(10*time.Second), runlog.StatusCompleted, "", map[string]any{"note": "synthetic"}); err != nil {
		t.Fatal(err)
	}
}

// TestWorkloadSeriesDownloads: churn's series (database size, tables
// alive, rows/s, bytes/s) are in the dashboard's series CSV download,
// each reading a row equal to report --format json's workload_series,
// and in report --chart x.svg and x.png, a panel each (the PNG taller
// than the same run's without them by the SVG's four panels). A run
// without them keeps the CSV's columns as they were.
func TestWorkloadSeriesDownloads(t *testing.T) {
	root := t.TempDir()
	id, bare := "20261122-103512-churn-aaaa", "20261122-103512-churn-bbbb"
	writeChurnRun(t, root, id, true)
	writeChurnRun(t, root, bare, false)
	var rep struct {
		Series []struct {
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
		t.Fatalf("report --format json gives %d workload series, want 4", len(rep.Series))
	}

	srv := serve(t, root, "")
	code, body := get(t, srv.URL+"/api/runs/"+id+"/files/series.csv")
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if code != 200 || err != nil || len(rows) == 0 {
		t.Fatalf("series.csv: %d %v: %s", code, err, body)
	}
	head := strings.Join(rows[0], ",")
	if head != "op,from_s,to_s,count,errors,ops_per_sec,p50_ms,p95_ms,p99_ms,max_ms,series,unit,at_s,value" {
		t.Fatalf("series.csv header %s", head)
	}
	type reading struct {
		name, unit string
		at, v      float64
	}
	var got, want []reading
	ops := 0
	for _, r := range rows[1:] {
		if r[0] != "" {
			ops++
			if r[10] != "" || r[11] != "" || r[12] != "" || r[13] != "" {
				t.Errorf("an operation's row with a series' columns: %v", r)
			}
			continue
		}
		at, err1 := strconv.ParseFloat(r[12], 64)
		v, err2 := strconv.ParseFloat(r[13], 64)
		if err1 != nil || err2 != nil || strings.Join(r[:10], "") != "" {
			t.Errorf("series.csv row %v", r)
		}
		got = append(got, reading{r[10], r[11], at, v})
	}
	for _, s := range rep.Series {
		for i := range s.At {
			want = append(want, reading{s.Name, s.Unit, s.At[i], s.Values[i]})
		}
	}
	if len(got) != len(want) || ops != 2*10 { // 10 intervals of 2 operations
		t.Fatalf("series.csv: %d readings, %d operations' rows; report's series have %d readings", len(got), ops, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("series.csv reading %d: %+v, report gives %+v", i, got[i], want[i])
		}
	}
	_, body = get(t, srv.URL+"/api/runs/"+bare+"/files/series.csv")
	if first, _, _ := strings.Cut(string(body), "\n"); first != "op,from_s,to_s,count,errors,ops_per_sec,p50_ms,p95_ms,p99_ms,max_ms" {
		t.Errorf("a run without workload series: series.csv header %s", first)
	}

	dir := t.TempDir()
	svg, pngs := map[string][]byte{}, map[string]int{}
	for _, r := range []string{id, bare} {
		for _, ext := range []string{"svg", "png"} {
			p := filepath.Join(dir, r+"."+ext)
			stampede(t, "report", r, "--results-dir", root, "--chart", p)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if ext == "svg" {
				svg[r] = b
				continue
			}
			img, err := png.Decode(strings.NewReader(string(b)))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			pngs[r] = img.Bounds().Dy()
		}
	}
	for _, title := range []string{"churn: database size (MB, from the run&#39;s records)", "churn: tables alive (tables, from the run&#39;s records)",
		"churn: rows/s (rows/s, from the run&#39;s records)", "churn: bytes/s (MB/s, from the run&#39;s records)"} {
		if !strings.Contains(string(svg[id]), title) {
			t.Errorf("report --chart x.svg has no panel %q", title)
		}
		if strings.Contains(string(svg[bare]), title) {
			t.Errorf("the chart of a run without records has a panel %q", title)
		}
	}
	if pngs[id] <= pngs[bare] {
		t.Errorf("report --chart x.png is %d pixels high with churn's panels, %d without", pngs[id], pngs[bare])
	}
}
