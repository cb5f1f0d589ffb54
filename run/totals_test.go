package run_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestRunSavesTotals: a completed run (with a ramp-up) leaves totals.json
// and series.ndjson in its directory, and report's figures and the
// charts' series from them equal those streamed from its intervals with
// the files removed; an interrupted run leaves neither.
func TestRunSavesTotals(t *testing.T) {
	meta, _ := workload.Get("ycsb")
	for _, tc := range []struct {
		name      string
		interrupt bool
	}{{"completed", false}, {"interrupted", true}} {
		t.Run(tc.name, func(t *testing.T) {
			gen, err := workload.FromFlags(meta, "--workload=a", "-p", "recordcount=1000")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dir := t.TempDir()
			r, err := run.Start(ctx, run.Spec{
				Workload: gen, Conn: run.Conn{Driver: sqlx.DriverNull}, Concurrency: 2, MaxRate: 2000,
				Duration: 1500 * time.Millisecond, Ramp: 500 * time.Millisecond, DisplayEvery: 100 * time.Millisecond,
				Telemetry: run.Telemetry{Off: true}, ResultsDir: dir, Log: io.Discard,
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.interrupt {
				time.AfterFunc(900*time.Millisecond, cancel)
			}
			res, err := r.Wait()
			if err != nil && !tc.interrupt {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(res.Info.Dir, runlog.TotalsFile))
			if _, err := os.Stat(filepath.Join(res.Info.Dir, runlog.SeriesFile)); (err == nil) != (statErr == nil) {
				t.Errorf("%s and %s: one saved without the other (%v, %v)", runlog.TotalsFile, runlog.SeriesFile, statErr, err)
			}
			if tc.interrupt {
				if statErr == nil {
					t.Error("an interrupted run saved totals")
				}
				return
			}
			if statErr != nil {
				t.Fatalf("no %s: %v", runlog.TotalsFile, statErr)
			}
			view := func() []byte {
				rl, err := runlog.Open(res.Info.Dir)
				if err != nil {
					t.Fatal(err)
				}
				v, warns, err := results.Recompute([]*runlog.Run{rl}, results.Window{})
				if err != nil || len(warns) != 0 {
					t.Fatalf("Recompute: %v %v", err, warns)
				}
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			series := func() results.Series {
				rl, err := runlog.Open(res.Info.Dir)
				if err != nil {
					t.Fatal(err)
				}
				s, err := results.TimeSeries(rl)
				if err != nil || len(s.Warnings) != 0 || len(s.Ops) == 0 {
					t.Fatalf("TimeSeries: %v %v, %d ops", err, s.Warnings, len(s.Ops))
				}
				return s
			}
			saved, savedSeries := view(), series()
			for _, name := range []string{runlog.TotalsFile, runlog.SeriesFile} {
				if err := os.Remove(filepath.Join(res.Info.Dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			if streamed := view(); string(saved) != string(streamed) {
				t.Errorf("figures from totals.json differ from the stream:\n%s\n%s", saved, streamed)
			}
			if streamed := series(); !reflect.DeepEqual(savedSeries, streamed) {
				t.Errorf("series from series.ndjson differ from the stream:\n%+v\n%+v", savedSeries, streamed)
			}
		})
	}
}
