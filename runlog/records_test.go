package runlog_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
)

// TestRecords: Records gives each interval's bounds, extras and series
// counts as Scan does (series sorted by name, no histograms), without
// reading intervals.hlog (blanked here), and stops at a damaged
// intervals.ndjson with a *TruncatedError after the complete records.
func TestRecords(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	w, err := runlog.Create(t.TempDir(), runlog.RunInfo{ID: "20261122-103512-rec-0001", Workload: "rec", Series: []string{"update", "read", "insert"}, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 5 {
		var ss []runlog.IntervalSeries
		for i, name := range []string{"update", "read", "insert"} {
			if name == "insert" && k < 2 {
				continue
			}
			h := hdrhistogram.New(1000, 100_000_000_000, 3)
			for v := range k * (i + 1) {
				_ = h.RecordValue(int64(1_000_000 + v))
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: int64(k % 2)})
		}
		at := start.Add(time.Duration(k) * time.Second)
		if err := w.WriteInterval(at, at.Add(time.Second+time.Duration(k)*time.Millisecond), ss, map[string]float64{"reconnects": float64(k)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(5*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Index      int
		Start, End time.Time
		Series     []runlog.ScanSeries
		Extra      map[string]float64
	}
	take := func(out *[]rec) func(iv *runlog.ScanInterval) error {
		return func(iv *runlog.ScanInterval) error {
			r := rec{iv.Index, iv.Start, iv.End, nil, iv.Extra}
			for _, s := range iv.Series {
				s.Hist = nil
				r.Series = append(r.Series, s)
			}
			slices.SortFunc(r.Series, func(a, b runlog.ScanSeries) int { return strings.Compare(a.Name, b.Name) })
			*out = append(*out, r)
			return nil
		}
	}
	var scanned, records []rec
	if err := run.Scan(take(&scanned)); err != nil {
		t.Fatal(err)
	}
	hlog := filepath.Join(w.Dir(), runlog.HlogFile)
	if err := os.WriteFile(hlog, nil, 0o600); err != nil { // Records does not read it
		t.Fatal(err)
	}
	if err := run.Records(take(&records)); err != nil {
		t.Fatal(err)
	}
	if len(scanned) != 5 || !reflect.DeepEqual(records, scanned) {
		t.Fatalf("Records:\n%+v\nScan:\n%+v", records, scanned)
	}
	var order []string
	if err := run.Records(func(iv *runlog.ScanInterval) error {
		for _, s := range iv.Series {
			order = append(order, s.Name)
		}
		return runlog.ErrStopScan
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"read", "update"}) {
		t.Errorf("first record's series %v, want them sorted by name", order)
	}

	ivl := filepath.Join(w.Dir(), runlog.IntervalsFile)
	data, err := os.ReadFile(ivl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ivl, data[:len(data)-20], 0o600); err != nil {
		t.Fatal(err)
	}
	records = nil
	err = run.Records(take(&records))
	var trunc *runlog.TruncatedError
	if !errors.As(err, &trunc) || trunc.Complete != 4 || len(records) != 4 {
		t.Fatalf("cut intervals.ndjson: %v after %d records, want a TruncatedError after 4", err, len(records))
	}
}
