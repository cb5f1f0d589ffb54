package chart_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/chart"
)

// withWorkload returns r with churn's four series, readings every 2.5 s
// of the 8 s run (the last at its end).
func withWorkload(r chart.Run, k float64) chart.Run {
	at := []float64{0.01, 2.5, 5, 7.5, 8}
	r.Workload = []chart.WorkloadSeries{
		{Name: "database_size_bytes", Unit: "bytes", At: at, Values: []float64{8.1e6, 12.4e6 * k, 19e6 * k, 18.2e6 * k, 21.5e6 * k}},
		{Name: "tables_alive", Unit: "tables", At: at, Values: []float64{0, 12, 20 * k, 17, 19}},
		{Name: "rows_per_s", Unit: "rows/s", At: at[1:], Values: []float64{900 * k, 1450, 1210 * k, 1330}},
		{Name: "bytes_per_s", Unit: "bytes/s", At: at[1:], Values: []float64{0.21e6, 0.35e6 * k, 0.3e6, 0.33e6 * k}},
	}
	return r
}

// TestWorkloadSeriesDrawn: the workload's own series (churn's database
// size, tables alive, rows/s and bytes/s, output.WorkloadSeriesOf) get a
// panel each in the SVG and PNG charts, titled as the dashboard's page
// titles them, each reading drawn where its time and value put it on
// the axes the other panels share (drawnAreInput), for one run and for
// two compared; the PNG has the panels the SVG has.
func TestWorkloadSeriesDrawn(t *testing.T) {
	single := withWorkload(synthetic("20261122-103512-ycsb-aaaa", 8, 1, nil), 1)
	a, b := withWorkload(synthetic("20261122-103512-ycsb-aaaa", 8, 1, nil), 1), withWorkload(synthetic("20261122-113512-ycsb-bbbb", 7, 1.4, nil), 1.3)
	a.Label, b.Label = "A", "B"
	titles := []string{"ycsb: database size (MB, from the run's records)", "ycsb: tables alive (tables, from the run's records)",
		"ycsb: rows/s (rows/s, from the run's records)", "ycsb: bytes/s (MB/s, from the run's records)"}
	for name, in := range map[string]chart.Input{"single": {Runs: []chart.Run{single}}, "compare": {Runs: []chart.Run{a, b}}} {
		t.Run(name, func(t *testing.T) {
			drawnAreInput(t, in)
			svg := render(t, chart.SVG, in)
			doc := parseSVG(t, svg)
			for _, title := range titles {
				if !doc.hasText(title) {
					t.Errorf("SVG lacks the panel %q", title)
				}
			}
			// Four panels more than the same runs without the series.
			bare := chart.Input{Runs: append([]chart.Run(nil), in.Runs...)}
			for i := range bare.Runs {
				bare.Runs[i].Workload = nil
			}
			without := parseSVG(t, render(t, chart.SVG, bare))
			img, err := png.Decode(bytes.NewReader(render(t, chart.PNG, in)))
			if err != nil {
				t.Fatal(err)
			}
			w, h := pngSize(t, svg)
			_, h0 := pngSize(t, render(t, chart.SVG, bare))
			if got := img.Bounds(); got.Dx() != w || got.Dy() != h || doc.h <= without.h || h <= h0 {
				t.Errorf("PNG %v, SVG %dx%d; without the workload's series %d high", got, w, h, h0)
			}
			if testOut != "" {
				os.WriteFile(filepath.Join(testOut, "workload-"+name+".svg"), svg, 0o644)
				os.WriteFile(filepath.Join(testOut, "workload-"+name+".png"), render(t, chart.PNG, in), 0o644)
			}
		})
	}
}
