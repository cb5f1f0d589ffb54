package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestLiveRule: a run whose copy says running is live while its writer
// shipped it within three beats and ten seconds, killed after.
func TestLiveRule(t *testing.T) {
	for _, tc := range []struct {
		age, beat time.Duration
		live      bool
	}{
		{0, time.Second, true},
		{time.Second, time.Second, true},
		{13 * time.Second, time.Second, true},
		{13*time.Second + time.Millisecond, time.Second, false},
		{time.Hour, time.Second, false},
		{10 * time.Second, 200 * time.Millisecond, true},
		{11 * time.Second, 200 * time.Millisecond, false},
		{40 * time.Second, 10 * time.Second, true},
		{41 * time.Second, 10 * time.Second, false},
	} {
		if got := store.Live(tc.age, tc.beat); got != tc.live {
			t.Errorf("Live(%v, %v) = %v, want %v", tc.age, tc.beat, got, tc.live)
		}
	}
}

// TestShipLive: a run shipped live (ShipLive) is listed (List, Get) and
// fetched (Fetch, read with runlog.Open) as running while its writer
// ships it, though no process holds a lock on the copy; as killed once
// its writer has been silent for longer than StaleAfter its beat (the
// store's record of its last ship moved back in time, as a writer killed
// that long ago leaves it); as completed once it ships its end. A run
// shipped by Ship alone (an upload) is never taken for live.
func TestShipLive(t *testing.T) {
	s, url := pgStore(t)
	ctx := context.Background()
	root := t.TempDir()
	const id = "20261122-103512-ycsb-live"
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "ycsb", Series: []string{"read"}, Start: t0,
		Tags: map[string]string{"job": "live"}, Flags: map[string]string{"concurrency": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	const beat = time.Second
	if _, err := s.ShipLive(ctx, w.Dir(), beat); err != nil {
		t.Fatal(err)
	}
	// Only the store's copy from now on: the directory is elsewhere.
	status := func(when string, want string) {
		t.Helper()
		rows, err := s.List(ctx, store.Filter{Tags: map[string]string{"job": "live"}})
		if err != nil || len(rows) != 1 || rows[0].Status != want {
			t.Errorf("%s: List %+v %v, want one run %s", when, rows, err, want)
		}
		row, err := s.Get(ctx, id)
		if err != nil || row.Status != want {
			t.Errorf("%s: Get %+v %v, want %s", when, row, err, want)
		}
		dir, err := s.Fetch(ctx, id, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(dir)
		if err != nil || run.Info.Status != want {
			t.Errorf("%s: the fetched copy reads %+v %v, want %s", when, run, err, want)
		}
	}
	status("at its start", runlog.StatusRunning)
	if row, _ := s.Get(ctx, id); row.Concurrency != 4 || row.Intervals != 0 || row.Start != t0 {
		t.Errorf("the run indexed at its start: %+v", row)
	}
	for i := range 3 {
		h := stats.NewHistogram()
		_ = h.RecordValue(1_000_000)
		st := t0.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), []runlog.IntervalSeries{{Name: "read", Hist: h, Count: 1}}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ShipLive(ctx, w.Dir(), beat); err != nil {
			t.Fatal(err)
		}
	}
	status("after 3 intervals", runlog.StatusRunning)

	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	age := func(d time.Duration) {
		t.Helper()
		if _, err := db.Exec(`UPDATE stampede_run_live SET shipped_at = now() - make_interval(secs => $2) WHERE run_id = $1`, id, d.Seconds()); err != nil {
			t.Fatal(err)
		}
	}
	age(store.StaleAfter(beat) - 2*time.Second)
	status("silent for a little under StaleAfter", runlog.StatusRunning)
	age(store.StaleAfter(beat) + time.Second)
	status("silent for longer than StaleAfter", runlog.StatusKilled)

	if err := w.Finish(t0.Add(3*time.Second), runlog.StatusCompleted, "", map[string]int{"ops": 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ShipLive(ctx, w.Dir(), beat); err != nil {
		t.Fatal(err)
	}
	if err := s.Index(ctx, w.Dir()); err != nil {
		t.Fatal(err)
	}
	status("ended", runlog.StatusCompleted)

	// A directory uploaded (Ship) while its run.json says running: a
	// killed run's, never live.
	other, err := runlog.Create(t.TempDir(), runlog.RunInfo{ID: "20261122-103513-ycsb-dead", Workload: "ycsb", Series: []string{"read"}, Start: t0,
		Tags: map[string]string{"job": "dead"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ship(ctx, other.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := s.Index(ctx, other.Dir()); err != nil {
		t.Fatal(err)
	}
	dir, err := s.Fetch(ctx, "20261122-103513-ycsb-dead", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if run, err := runlog.Open(dir); err != nil || run.Info.Status != runlog.StatusKilled {
		t.Errorf("an uploaded killed run reads %+v %v, want killed", run, err)
	}
	if rows, err := s.List(ctx, store.Filter{Tags: map[string]string{"job": "dead"}}); err != nil || len(rows) != 1 || rows[0].Status != runlog.StatusKilled {
		t.Errorf("an uploaded killed run is listed %+v %v, want killed", rows, err)
	}
}
