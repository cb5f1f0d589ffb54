package dashboard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/stats"
)

// sweepLines are the NDJSON objects `stampede sweep --format json`
// prints.
type sweepLine struct {
	Type  string        `json:"type"`
	ID    string        `json:"id"`
	N     int           `json:"step"`
	Value float64       `json:"value"`
	Run   string        `json:"run"`
	Total stats.Summary `json:"total"`
	Met   *bool         `json:"slo_met"`
	Why   string        `json:"slo_missed"`
	Best  *sweepLine    `json:"best"`
	Miss  *sweepLine    `json:"miss"`
	Peak  *sweepLine    `json:"peak"`
	Concl string        `json:"conclusion"`
}

// TestSweepPage reads sweeps back from their runs: /api/sweeps/ID must
// give each step's figures, verdict and the answer (best, miss, peak and
// the conclusion) that `stampede sweep --format json` printed when it ran;
// for a sweep by rate with an SLO and one by workers without. The sweep
// page draws its curves in Chromium (screenshots saved). An unknown sweep
// is a 404.
func TestSweepPage(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	sweeps := map[string][]sweepLine{}
	for _, args := range [][]string{
		{"--max-rate", "50000,200000,800000,3200000", "--latency", "service", "--keep-going", "--slo", "p99<=1ms"},
		{"--concurrency", "1,2,4"},
	} {
		cmd := append([]string{"sweep", "ycsb", "--driver", "null", "--duration", "1s", "--ramp", "200ms", "--results-dir", root, "--format", "json"}, args...)
		out := stampede(t, cmd...)
		var lines []sweepLine
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		var id string
		for sc.Scan() {
			var l sweepLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%v in %s", err, sc.Bytes())
			}
			if l.Type == "sweep" {
				id = l.ID
			}
			lines = append(lines, l)
		}
		sweeps[id] = lines
	}
	srv := serve(t, root, "")
	for id, lines := range sweeps {
		var doc dashboard.SweepDoc
		getJSON(t, srv.URL+"/api/sweeps/"+id, &doc)
		steps := 0
		for _, l := range lines {
			switch l.Type {
			case "step":
				if steps >= len(doc.Steps) {
					t.Fatalf("sweep %s: %d steps served, the sweep ran more", id, len(doc.Steps))
				}
				s := doc.Steps[steps]
				steps++
				if s.N != l.N || s.Value != l.Value || s.Run != l.Run || s.Total != l.Total {
					t.Errorf("sweep %s step %d: served %+v, the sweep printed %+v", id, l.N, s, l)
				}
				if (l.Met != nil) != s.Judged || (l.Met != nil && (*l.Met != s.Met || l.Why != s.Why)) {
					t.Errorf("sweep %s step %d: served judged %v met %v %q, the sweep printed %v %q", id, l.N, s.Judged, s.Met, s.Why, l.Met, l.Why)
				}
			case "sweep_result":
				num := func(x *sweepLine) int {
					if x == nil {
						return 0
					}
					return x.N
				}
				if doc.Best != num(l.Best) || doc.Miss != num(l.Miss) || doc.Peak != num(l.Peak) {
					t.Errorf("sweep %s: served best %d miss %d peak %d, the sweep printed %d %d %d", id, doc.Best, doc.Miss, doc.Peak, num(l.Best), num(l.Miss), num(l.Peak))
				}
				if doc.Conclusion != l.Concl {
					t.Errorf("sweep %s: served the conclusion %q, the sweep printed %q", id, doc.Conclusion, l.Concl)
				}
			}
		}
		if steps != len(doc.Steps) {
			t.Errorf("sweep %s: %d steps served, %d run", id, len(doc.Steps), steps)
		}
		t.Logf("sweep %s over --%s, SLO %q: %s", id, doc.Param, doc.SLO, doc.Conclusion)
	}
	wantError(t, srv.URL+"/api/sweeps/20261122-000000-none", http.StatusNotFound, "no sweep 20261122-000000-none")

	ctx := browser(t)
	out := shots(t)
	k := 0
	for id := range sweeps {
		k++
		load(t, ctx, srv.URL+"/#/?group=sweep="+id, "runs")
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#sweep-link`)), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="sweep"]`))); err != nil {
			t.Fatal(err)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[window.stampedeCharts.length, document.querySelectorAll('#steps tr[data-step]').length]`))
		if err != nil || n[0] != 2 || n[1] != len(sweeps[id])-2 {
			t.Errorf("sweep page %s: %v charts and steps (want 2 and %d), %v", id, n, len(sweeps[id])-2, err)
		}
		screenshot(t, ctx, out, fmt.Sprintf("sweep-%d", k))
	}
}
