package results_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// TestSeriesFileBytesAsBefore: for the runs TestSavedSeriesEqualStream
// saves (a ramp-up with errors; endpoints' parts and a short last
// interval; a plain run), series.ndjson written as the intervals stream
// by is byte for byte the file SaveSeries wrote from the whole series in
// memory (results.SeriesFileReference), whether written alone or with
// totals.json (SaveViews).
func TestSeriesFileBytesAsBefore(t *testing.T) {
	for _, tc := range append(seriesRuns(),
		namedRun{"plain", runSpec{id: "other", intervals: synthetic(6)}},
		namedRun{"ramp and a short last interval", runSpec{id: "rampshort", intervals: synthetic(5), rampEnd: time.Second, lastLen: 200 * time.Millisecond}},
	) {
		t.Run(tc.name, func(t *testing.T) {
			run := writeRun(t, t.TempDir(), tc.spec)
			want, err := results.SeriesFileReference(run)
			if err != nil || len(want) == 0 {
				t.Fatalf("reference: %v, %d bytes", err, len(want))
			}
			path := filepath.Join(run.Dir, runlog.SeriesFile)
			for _, save := range []func(*runlog.Run) error{results.SaveSeries, results.SaveViews} {
				_ = os.Remove(path)
				if err := save(run); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%v: series.ndjson differs from the reference:\n%s\n%s", err, got, want)
				}
			}
		})
	}
}
