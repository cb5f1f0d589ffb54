package results_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// TestViewsOnlyForSeveralIntervals: a completed run of one interval gets
// no saved views (the interval is its own view), one of two gets both,
// and Recompute's view of either is the same with or without them.
func TestViewsOnlyForSeveralIntervals(t *testing.T) {
	for _, tc := range []struct {
		intervals int
		views     bool
	}{{1, false}, {2, true}} {
		t.Run(fmt.Sprintf("%d intervals", tc.intervals), func(t *testing.T) {
			run := writeRun(t, t.TempDir(), runSpec{id: "short", intervals: synthetic(tc.intervals)})
			streamed, _, err := results.Recompute([]*runlog.Run{run}, results.Window{})
			if err != nil {
				t.Fatal(err)
			}
			if err := results.SaveViews(run); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{runlog.TotalsFile, runlog.SeriesFile} {
				if _, err := os.Stat(filepath.Join(run.Dir, name)); (err == nil) != tc.views {
					t.Errorf("%s saved: %v, want %v", name, err == nil, tc.views)
				}
			}
			saved, _, err := results.Recompute([]*runlog.Run{run}, results.Window{})
			if err != nil {
				t.Fatal(err)
			}
			if streamed.Total.Count == 0 || !reflect.DeepEqual(saved, streamed) {
				t.Errorf("the view after SaveViews differs from the streamed one:\n%+v\n%+v", saved, streamed)
			}
		})
	}
}
