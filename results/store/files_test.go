package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// pgDatabase creates a database of the test server named prefix_N,
// dropped when tb ends, and returns its name, its URL and a connection
// pool to the server's own database (closed when tb ends). It skips tb
// when there is no test server.
func pgDatabase(tb testing.TB, prefix string) (name, dsn string, admin *sql.DB) {
	tb.Helper()
	server := os.Getenv("STAMPEDE_TEST_DATABASE")
	if server == "" {
		tb.Skip("Skipping due to missing environment variable STAMPEDE_TEST_DATABASE")
	}
	u, err := url.Parse(server)
	if err != nil {
		tb.Fatal(err)
	}
	admin, err = sql.Open("pgx", server)
	if err != nil {
		tb.Fatal(err)
	}
	name = fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		admin.Close()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			tb.Error(err)
		}
	})
	u.Path = "/" + name
	return name, u.String(), admin
}

// pgStore opens a store in a new database of the test server, dropped
// when the test ends, and returns it with its URL.
func pgStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	_, dsn, _ := pgDatabase(t, "store31_files")
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dsn
}

// sameFiles checks that the run directories a and b hold the same files
// with the same bytes (the lock-holding and hidden files aside).
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			if e.Name()[0] != '.' {
				out = append(out, e.Name())
			}
		}
		return out
	}
	na, nb := names(a), names(b)
	if fmt.Sprint(na) != fmt.Sprint(nb) {
		t.Fatalf("files %v, fetched %v", na, nb)
	}
	for _, n := range na {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s: %d bytes in the directory, %d fetched, not equal", n, len(x), len(y))
		}
	}
}

// TestShipFetch ships a run directory while it is written (after every
// few intervals, with a half-written line at the end of a file), then
// finished; what the store gives back is the directory byte for byte, a
// Ship of a directory the store holds sends nothing, and another copy of
// the run is refused.
func TestShipFetch(t *testing.T) {
	s, _ := pgStore(t)
	ctx := context.Background()
	root := t.TempDir()
	series := []string{"read", "update"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-ycsb-ship", Workload: "ycsb", Series: series, Start: t0,
		Tags: map[string]string{"job": "ship"}, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	dir := w.Dir()
	for i := range 7 {
		var ss []runlog.IntervalSeries
		for k, name := range series {
			h := stats.NewHistogram()
			for j := range 100 * (k + 1) {
				_ = h.RecordValue(int64(100_000 + j*1_000 + i*10_000))
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount()})
		}
		w.Event(runlog.Event{Kind: "error", Op: "read", Message: fmt.Sprint("interval ", i)})
		st := t0.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteTelemetry(map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 1 {
			// A line being written: not sent until it is complete.
			f, err := os.OpenFile(filepath.Join(dir, runlog.TelemetryFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := f.Stat()
			_, _ = f.WriteString(`{"half":`)
			if res, err := s.Ship(ctx, dir); err != nil || res.Bytes == 0 {
				t.Fatalf("ship after interval %d: %+v %v", i, res, err)
			}
			_ = f.Truncate(fi.Size())
			f.Close()
		}
	}
	if err := w.Finish(t0.Add(7*time.Second), runlog.StatusCompleted, "", map[string]int{"ops": 2100}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Ship(ctx, dir); err != nil || res.Bytes == 0 {
		t.Fatalf("final ship: %+v %v", res, err)
	}
	if res, err := s.Ship(ctx, dir); err != nil || res.Bytes != 0 {
		t.Errorf("ship of a run the store holds: %+v %v, want nothing sent", res, err)
	}
	id, err := s.FindFiles(ctx, "20261122-103512-ycsb-sh")
	if err != nil || id != "20261122-103512-ycsb-ship" {
		t.Fatalf("FindFiles by prefix: %q %v", id, err)
	}
	if _, err := s.FindFiles(ctx, "2026112"+"3"); !errors.Is(err, runlog.ErrRunNotFound) {
		t.Errorf("FindFiles of no run: %v", err)
	}
	fetched, err := s.Fetch(ctx, id, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, dir, fetched)
	if _, err := s.Fetch(ctx, "20261123-000000-ycsb-none", t.TempDir()); !errors.Is(err, runlog.ErrRunNotFound) {
		t.Errorf("Fetch of no run: %v", err)
	}

	// The run as older versions wrote it (no totals.json) was shipped and
	// fetched above; its totals saved later are shipped, fetched, and read
	// from the fetched copy with the figures of the stream.
	rl, err := runlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	streamed, _, err := results.Recompute([]*runlog.Run{rl}, results.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if err := results.SaveTotals(rl); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Ship(ctx, dir); err != nil || res.Bytes == 0 {
		t.Fatalf("ship of the totals: %+v %v", res, err)
	}
	fetched, err = s.Fetch(ctx, id, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, dir, fetched)
	if _, err := os.Stat(filepath.Join(fetched, runlog.TotalsFile)); err != nil {
		t.Fatalf("fetched copy without %s: %v", runlog.TotalsFile, err)
	}
	fr, err := runlog.Open(fetched)
	if err != nil {
		t.Fatal(err)
	}
	if v, warns, err := results.Recompute([]*runlog.Run{fr}, results.Window{}); err != nil || len(warns) != 0 || !reflect.DeepEqual(v, streamed) {
		t.Errorf("figures from the fetched totals: %v %v, differ from the stream's: %+v %+v", err, warns, v, streamed)
	}

	// Another copy: an interval line changed (same length).
	other := filepath.Join(t.TempDir(), id)
	if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	ivl, _ := os.ReadFile(filepath.Join(other, runlog.IntervalsFile))
	ivl[len(ivl)-3] ^= 1
	if err := os.WriteFile(filepath.Join(other, runlog.IntervalsFile), ivl, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ship(ctx, other); !errors.Is(err, store.ErrDifferentCopy) {
		t.Errorf("ship of another copy: %v, want ErrDifferentCopy", err)
	}
	fetched, err = s.Fetch(ctx, id, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, dir, fetched) // untouched

	// Every file of the finished run is compared whole: one byte
	// changed anywhere (not only in the last chunk), a file added or
	// removed, is another copy, refused naming the file; the store keeps
	// its own.
	for _, c := range []struct {
		name   string
		change func(path string) error
	}{
		{runlog.SummaryFile, changeDigit},
		{runlog.RunFile, changeDigit},
		{runlog.IntervalsFile, changeDigit},
		{runlog.HlogFile, changeDigit},
		{runlog.EventsFile, changeDigit},
		{runlog.TelemetryFile, os.Remove},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := filepath.Join(t.TempDir(), id)
			if err := os.CopyFS(other, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			if err := c.change(filepath.Join(other, c.name)); err != nil {
				t.Fatal(err)
			}
			_, err := s.Ship(ctx, other)
			if !errors.Is(err, store.ErrDifferentCopy) || !strings.Contains(err.Error(), c.name) {
				t.Errorf("ship of a copy with %s changed: %v, want ErrDifferentCopy naming it", c.name, err)
			}
			fetched, err := s.Fetch(ctx, id, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sameFiles(t, dir, fetched)
		})
	}
	// An identical copy elsewhere is already in the store.
	same := filepath.Join(t.TempDir(), id)
	if err := os.CopyFS(same, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Ship(ctx, same); err != nil || res.Bytes != 0 {
		t.Errorf("ship of an identical copy: %+v %v, want nothing sent", res, err)
	}
}

// changeDigit changes the last digit of the file at path (the file
// stays valid JSON or NDJSON, as one a user edited).
func changeDigit(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.LastIndexAny(b, "0123456789")
	if i < 0 {
		return fmt.Errorf("%s has no digit", path)
	}
	b[i] = '0' + (b[i]-'0'+1)%10
	return os.WriteFile(path, b, 0o600)
}

// BenchmarkShipHour writes a run of one hour (3,600 one-second intervals
// of 10 operation types) while shipping it to a PostgreSQL store after
// every interval, as a run does, then fetches it back and recomputes its
// figures from the fetched copy, as report does: it reports the time per
// interval's Ship, and the time to fetch and to recompute.
func BenchmarkShipHour(b *testing.B) {
	for b.Loop() {
		benchShipHour(b)
	}
}

func benchShipHour(b *testing.B) {
	_, dsn, _ := pgDatabase(b, "store31_bench")
	ctx := context.Background()
	s, err := store.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	series := make([]string, 10)
	for i := range series {
		series[i] = fmt.Sprintf("op%d", i)
	}
	root := b.TempDir()
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-ycsb-hour", Workload: "ycsb", Series: series, Start: t0})
	if err != nil {
		b.Fatal(err)
	}
	const n = 3600
	var shipTime time.Duration
	for i := range n {
		var ss []runlog.IntervalSeries
		for k, name := range series {
			h := stats.NewHistogram()
			for j := range 50 {
				_ = h.RecordValue(int64(100_000 + j*7_919 + k*1_000 + i))
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount()})
		}
		st := t0.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), ss, nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := s.Ship(ctx, w.Dir()); err != nil {
			b.Fatal(err)
		}
		shipTime += time.Since(t1)
	}
	if err := w.Finish(t0.Add(n*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Ship(ctx, w.Dir()); err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	dir, err := s.Fetch(ctx, "20261122-103512-ycsb-hour", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	fetch := time.Since(t1)
	run, err := runlog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	t2 := time.Now()
	if _, _, err := results.Recompute([]*runlog.Run{run}, results.Window{}); err != nil {
		b.Fatal(err)
	}
	recompute := time.Since(t2)
	b.ReportMetric(float64(shipTime.Microseconds())/n, "us/ship")
	b.ReportMetric(fetch.Seconds(), "s/fetch")
	b.ReportMetric(recompute.Seconds(), "s/recompute")
}

// BenchmarkShipInterval ships a run to a PostgreSQL store after each of
// its one-second intervals of 10 operation types, with a telemetry sample
// each (Ship, as `runs upload` sends a directory): it reports the time
// per Ship (us/ship) and the transactions the store's server committed
// per Ship (commits/ship, from the server's own pg_stat_database, read
// once the store's connections are closed and their statistics flushed,
// less those of opening the store, counted apart).
func BenchmarkShipInterval(b *testing.B) { benchShipInterval(b, false) }

// BenchmarkShipLiveInterval is BenchmarkShipInterval with ShipLive, as a
// run ships itself: the interval and the writer's liveness in one
// transaction.
func BenchmarkShipLiveInterval(b *testing.B) { benchShipInterval(b, true) }

func benchShipInterval(b *testing.B, live bool) {
	name, dsn, db := pgDatabase(b, "store31_benchiv")
	ctx := context.Background()
	// commits returns the transactions committed in the store's
	// database, once the store's connections (closed) flushed their
	// statistics.
	commits := func() int64 {
		time.Sleep(1500 * time.Millisecond)
		var n int64
		if _, err := db.Exec("SELECT pg_stat_clear_snapshot()"); err != nil {
			b.Fatal(err)
		}
		if err := db.QueryRow("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", name).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	open := func() *store.Store {
		s, err := store.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	series := make([]string, 10)
	for i := range series {
		series[i] = fmt.Sprintf("op%d", i)
	}
	w, err := runlog.Create(b.TempDir(), runlog.RunInfo{ID: "20261122-103512-ycsb-iv", Workload: "ycsb", Series: series, Start: t0})
	if err != nil {
		b.Fatal(err)
	}
	s := open()
	if _, err := s.Ship(ctx, w.Dir()); err != nil {
		b.Fatal(err)
	}
	s.Close()
	c0 := commits()
	s = open()
	var shipTime time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		var ss []runlog.IntervalSeries
		for k, name := range series {
			h := stats.NewHistogram()
			for j := range 50 {
				_ = h.RecordValue(int64(100_000 + j*7_919 + k*1_000 + i))
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount()})
		}
		st := t0.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), ss, nil); err != nil {
			b.Fatal(err)
		}
		if err := w.WriteTelemetry(map[string]int{"i": i}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t1 := time.Now()
		ship := s.Ship
		if live {
			ship = func(ctx context.Context, dir string) (store.ShipResult, error) {
				return s.ShipLive(ctx, dir, time.Second)
			}
		}
		if _, err := ship(ctx, w.Dir()); err != nil {
			b.Fatal(err)
		}
		shipTime += time.Since(t1)
		i++
	}
	b.StopTimer()
	s.Close()
	c1 := commits()
	open().Close()
	c2 := commits()
	b.ReportMetric(float64(shipTime.Microseconds())/float64(i), "us/ship")
	b.ReportMetric(float64(c1-c0-(c2-c1))/float64(i), "commits/ship")
}
