package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

var t0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// spec describes a synthetic run.
type spec struct {
	id       string
	workload string
	start    time.Time
	tags     map[string]string
	n        int  // intervals
	rate     int  // read operations per interval
	running  bool // not finished
}

// writeRun writes a run directory under root and returns it.
func writeRun(t testing.TB, root string, s spec) string {
	t.Helper()
	series := []string{"read", "update"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: s.id, Workload: s.workload, Series: series, Start: s.start,
		Tags: s.tags, Seed: 42, Flags: map[string]string{"concurrency": "16"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.n {
		var ss []runlog.IntervalSeries
		for k, name := range series {
			h := stats.NewHistogram()
			for j := range s.rate / (1 + 9*k) {
				_ = h.RecordValue(int64(100_000*(k+1) + j*1_000 + i*10_000))
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: int64(k * i % 2)})
		}
		st := s.start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
	}
	if s.running {
		// The writer stays open (and holds the run's lock) until the test
		// ends, as a live run's does; a closed one would read as killed.
		t.Cleanup(func() { _ = w.Close() })
	} else if err := w.Finish(s.start.Add(time.Duration(s.n)*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, s.id)
}

var specs = []spec{
	{id: "20261122-103512-ycsb-aaaa", workload: "ycsb", start: t0, tags: map[string]string{"db": "pg16", "env": "ci"}, n: 5, rate: 1000},
	{id: "20261122-113512-ycsb-bbbb", workload: "ycsb", start: t0.Add(time.Hour), tags: map[string]string{"db": "pg17", "env": "ci"}, n: 4, rate: 2000},
	{id: "20261122-123512-tpcc-cccc", workload: "tpcc", start: t0.Add(2 * time.Hour), tags: map[string]string{"db": "pg17"}, n: 3, rate: 500},
	{id: "20261123-103512-ycsb-dddd", workload: "ycsb", start: t0.Add(24 * time.Hour), tags: map[string]string{"job": ""}, n: 2, rate: 100, running: true},
}

func writeRuns(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for _, s := range specs {
		writeRun(t, root, s)
	}
	return root
}

func openSQLite(t testing.TB, dir string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), store.DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ids(rows []store.RunRow) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID[len(r.ID)-4:])
	}
	return strings.Join(out, ",")
}

// testStore runs the store tests on s.
func testStore(t *testing.T, s *store.Store) {
	ctx := context.Background()
	root := writeRuns(t)
	for _, sp := range specs {
		if err := s.Index(ctx, filepath.Join(root, sp.id)); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "aaaa,bbbb,cccc,dddd" {
		t.Fatalf("List: %s", got)
	}

	// The stored figures are those results.Recompute gives.
	run, err := runlog.Open(filepath.Join(root, specs[0].id))
	if err != nil {
		t.Fatal(err)
	}
	view, _, err := results.Recompute([]*runlog.Run{run}, results.Window{})
	if err != nil {
		t.Fatal(err)
	}
	a := all[0]
	if a.Count != view.Total.Count || a.OpsPerSec != view.Total.Rate || a.P99 != view.Total.P99 || a.Intervals != 5 ||
		a.Seed != 42 || a.Concurrency != 16 || a.Status != "completed" || a.End == nil || !a.Start.Equal(t0) ||
		a.Tags["db"] != "pg16" || a.Workload != "ycsb" || !filepath.IsAbs(a.Dir) {
		t.Errorf("row %+v, view total %+v", a, view.Total)
	}
	if d := all[3]; d.Status != "running" || d.End != nil {
		t.Errorf("running run: %+v", d)
	}
	got, err := s.Get(ctx, specs[0].id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ops) != 2 || got.Ops[0].Name != "read" || got.Ops[0].Count != view.Ops[0].Count || got.Ops[1].P99 != view.Ops[1].P99 {
		t.Errorf("ops %+v, view %+v", got.Ops, view.Ops)
	}
	if _, err := s.Get(ctx, "nosuch"); err == nil || !strings.Contains(err.Error(), "not in the results store") {
		t.Errorf("Get(nosuch): %v", err)
	}

	for _, tc := range []struct {
		name string
		f    store.Filter
		want string
	}{
		{"workload", store.Filter{Workload: "ycsb"}, "aaaa,bbbb,dddd"},
		{"tag", store.Filter{Tags: map[string]string{"db": "pg17"}}, "bbbb,cccc"},
		{"two tags", store.Filter{Tags: map[string]string{"db": "pg17", "env": "ci"}}, "bbbb"},
		{"tag no match", store.Filter{Tags: map[string]string{"db": "pg15"}}, ""},
		// An empty value selects the runs tagged with it, not those
		// without the key (runlog.MatchTags).
		{"empty value", store.Filter{Tags: map[string]string{"job": ""}}, "dddd"},
		{"empty value and another", store.Filter{Tags: map[string]string{"job": "", "db": "pg17"}}, ""},
		{"empty value of a key no run has", store.Filter{Tags: map[string]string{"zone": ""}}, ""},
		{"tag, limit", store.Filter{Tags: map[string]string{"db": "pg17"}, Limit: 1}, "cccc"},
		{"tag, limit above the matches", store.Filter{Tags: map[string]string{"env": "ci"}, Limit: 5}, "aaaa,bbbb"},
		{"since", store.Filter{Since: t0.Add(time.Hour)}, "bbbb,cccc,dddd"},
		{"until", store.Filter{Until: t0.Add(time.Hour)}, "aaaa"},
		{"since until", store.Filter{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Hour)}, "bbbb,cccc"},
		{"limit", store.Filter{Limit: 2}, "cccc,dddd"},
		{"all", store.Filter{Workload: "ycsb", Tags: map[string]string{"env": "ci"}, Since: t0, Limit: 1}, "bbbb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := s.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(rows); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	// Re-indexing is idempotent.
	for range 2 {
		if err := s.Index(ctx, filepath.Join(root, specs[1].id)); err != nil {
			t.Fatal(err)
		}
	}
	again, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, all) {
		t.Errorf("re-indexing changed the rows:\n%+v\n%+v", again, all)
	}

	// Rebuilding from the directories lists the same runs; a deleted
	// directory disappears.
	if err := os.RemoveAll(filepath.Join(root, specs[2].id)); err != nil {
		t.Fatal(err)
	}
	n, err := s.Rebuild(ctx, root)
	if err != nil || n != 3 {
		t.Fatalf("Rebuild: %d %v", n, err)
	}
	rebuilt, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]store.RunRow{}, all[:2]...), all[3])
	if !reflect.DeepEqual(rebuilt, want) {
		t.Errorf("rebuilt:\n%+v\nwant\n%+v", rebuilt, want)
	}
	if rows, _ := s.List(ctx, store.Filter{Tags: map[string]string{"db": "pg17"}}); ids(rows) != "bbbb" {
		t.Errorf("tags of a removed run remain: %s", ids(rows))
	}
}

func TestSQLite(t *testing.T) {
	testStore(t, openSQLite(t, t.TempDir()))
}

// TestSync checks that Sync indexes only new runs and runs whose status
// changed.
func TestSync(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeRun(t, root, specs[0])
	s := openSQLite(t, root)
	if n, err := s.Sync(ctx, root); n != 1 || err != nil {
		t.Fatalf("first Sync: %d %v", n, err)
	}
	if n, err := s.Sync(ctx, root); n != 0 || err != nil {
		t.Fatalf("second Sync: %d %v", n, err)
	}
	writeRun(t, root, specs[1])
	// A run that was indexed while running and has finished since.
	running := specs[3]
	dir := writeRun(t, root, running)
	if n, err := s.Sync(ctx, root); n != 2 || err != nil {
		t.Fatalf("third Sync: %d %v", n, err)
	}
	info, err := os.ReadFile(filepath.Join(dir, runlog.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runlog.RunFile),
		[]byte(strings.Replace(string(info), `"status": "running"`, `"status": "interrupted"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Sync(ctx, root); n != 1 || err != nil {
		t.Fatalf("fourth Sync: %d %v", n, err)
	}
	rows, err := s.List(ctx, store.Filter{})
	if err != nil || len(rows) != 3 || rows[2].Status != "interrupted" {
		t.Fatalf("rows %+v %v", rows, err)
	}
	// An unreadable run is reported, the others indexed.
	bad := filepath.Join(root, "20261124-000000-x-eeee")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, runlog.RunFile), []byte(`{"format_version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	writeRun(t, root, specs[2])
	n, err := s.Sync(ctx, root)
	if n != 1 || err == nil {
		t.Errorf("Sync with a bad run: %d %v", n, err)
	}
}

// TestNoIntervals checks that a run without a complete interval is
// indexed, with no figures and a warning.
func TestNoIntervals(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeRun(t, root, spec{id: "20261122-103512-ycsb-ffff", workload: "ycsb", start: t0, running: true})
	s := openSQLite(t, root)
	if n, err := s.Sync(ctx, root); n != 1 || err != nil {
		t.Fatalf("Sync: %d %v", n, err)
	}
	rows, err := s.List(ctx, store.Filter{})
	if err != nil || len(rows) != 1 || rows[0].Count != 0 || len(rows[0].Warnings) != 1 {
		t.Fatalf("rows %+v %v", rows, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ url, want string }{
		{"mysql://u:topsecret@h/db", `unsupported results store URL scheme "mysql"`},
		{"sqlite:", "no file name"},
		{"postgresql://u:topsecret@127.0.0.1:1/db?connect_timeout=2", "cannot reach the results store postgresql://u:xxxxx@127.0.0.1:1/db?connect_timeout=2: connection refused"},
	} {
		s, err := store.Open(ctx, tc.url)
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", tc.url)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%s: %v", tc.url, err)
		}
	}
}

// TestPostgres runs the store tests on a fresh PostgreSQL database.
func TestPostgres(t *testing.T) {
	_, dsn, _ := pgDatabase(t, "stampede_store")
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testStore(t, s)
	// Opening an existing store keeps it.
	s2, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if rows, err := s2.List(context.Background(), store.Filter{}); err != nil || len(rows) != 3 {
		t.Errorf("reopened: %d rows, %v", len(rows), err)
	}
}

// synthRows returns n synthetic rows, one a minute.
func synthRows(n int) []store.RunRow {
	rows := make([]store.RunRow, n)
	for i := range rows {
		start := t0.Add(time.Duration(i) * time.Minute)
		end := start.Add(time.Minute)
		rows[i] = store.RunRow{
			ID: fmt.Sprintf("%s-ycsb-%04x", start.Format("20060102-150405"), i), Dir: "/runs/x", Workload: "ycsb",
			Start: start, End: &end, Status: "completed", Seed: uint64(i), Concurrency: 16,
			Tags: map[string]string{"db": fmt.Sprint("pg", 14+i%4), "env": "ci"}, StampedeVersion: "v0.1.0",
			Seconds: 60, Intervals: 60, Count: int64(1000 * i), OpsPerSec: float64(i), P50: 1, P95: 2, P99: 3, P999: 4, Max: 5,
		}
	}
	return rows
}

// TestList10k lists a store of 10,000 runs: every run comes back, in the
// order of their start, and each filter selects exactly its runs at that size. How long
// listing takes (the target is under 100 ms) is measured by
// BenchmarkList10k in `scripts/bench results`, not here: timings in tests
// fail on busy machines and prove nothing on idle ones.
func TestList10k(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 10_000
	ctx := context.Background()
	s := openSQLite(t, t.TempDir())
	want := synthRows(n)
	if err := s.Put(ctx, want, nil); err != nil {
		t.Fatal(err)
	}
	// check compares got with the synthetic rows of the indexes idx, in
	// that order.
	check := func(name string, got []store.RunRow, idx []int) {
		t.Helper()
		if len(got) != len(idx) {
			t.Fatalf("%s: %d rows, want %d", name, len(got), len(idx))
		}
		for k, i := range idx {
			g, w := got[k], want[i]
			if g.ID != w.ID || !g.Start.Equal(w.Start) || g.End == nil || !g.End.Equal(*w.End) || g.Seed != w.Seed ||
				g.Count != w.Count || g.OpsPerSec != w.OpsPerSec || !reflect.DeepEqual(g.Tags, w.Tags) {
				t.Fatalf("%s: row %d is %s (start %v, count %d, tags %v), want %s (start %v, count %d, tags %v)",
					name, k, g.ID, g.Start, g.Count, g.Tags, w.ID, w.Start, w.Count, w.Tags)
			}
		}
	}
	// oldest lists the indexes i with keep(i), oldest (smallest) first.
	oldest := func(keep func(int) bool) []int {
		var idx []int
		for i := range n {
			if keep(i) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	all := func(int) bool { return true }

	rows, err := s.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	check("all runs", rows, oldest(all))

	rows, err = s.List(ctx, store.Filter{Tags: map[string]string{"db": "pg15"}, Workload: "ycsb"})
	if err != nil {
		t.Fatal(err)
	}
	check("db=pg15, ycsb", rows, oldest(func(i int) bool { return i%4 == 1 }))

	rows, err = s.List(ctx, store.Filter{Tags: map[string]string{"db": "pg15", "env": "ci"}})
	if err != nil {
		t.Fatal(err)
	}
	check("db=pg15, env=ci", rows, oldest(func(i int) bool { return i%4 == 1 }))

	// Since is inclusive, Until exclusive: runs 2,500 to 7,499.
	rows, err = s.List(ctx, store.Filter{Since: want[2500].Start, Until: want[7500].Start})
	if err != nil {
		t.Fatal(err)
	}
	check("since run 2,500, until run 7,500", rows, oldest(func(i int) bool { return i >= 2500 && i < 7500 }))

	rows, err = s.List(ctx, store.Filter{Limit: 25, Tags: map[string]string{"db": "pg14"}})
	if err != nil {
		t.Fatal(err)
	}
	pg14 := oldest(func(i int) bool { return i%4 == 0 })
	check("latest 25 of db=pg14", rows, pg14[len(pg14)-25:])

	for _, f := range []store.Filter{
		{Workload: "bank"},
		{Tags: map[string]string{"db": "pg13"}},
		{Tags: map[string]string{"db": "pg15", "env": "prod"}},
		{Since: want[n-1].Start.Add(time.Second)},
	} {
		rows, err := s.List(ctx, f)
		if err != nil || len(rows) != 0 {
			t.Errorf("filter %+v: %d rows, %v; want none", f, len(rows), err)
		}
	}
}

// BenchmarkList10k measures listing 10,000 runs from the SQLite store; the
// target is under 100 ms (`scripts/bench results` prints it beside it).
func BenchmarkList10k(b *testing.B) {
	ctx := context.Background()
	s := openSQLite(b, b.TempDir())
	if err := s.Put(ctx, synthRows(10_000), nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.List(ctx, store.Filter{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListByTag10k measures listing the 2,500 runs of one tag value
// among 10,000, which List selects with runlog.MatchTags (as report does)
// rather than in SQL.
func BenchmarkListByTag10k(b *testing.B) {
	ctx := context.Background()
	s := openSQLite(b, b.TempDir())
	if err := s.Put(ctx, synthRows(10_000), nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rows, err := s.List(ctx, store.Filter{Tags: map[string]string{"db": "pg15"}})
		if err != nil || len(rows) != 2_500 {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
}

// TestOpenReadOnly checks that a store opened read-only lists what the
// store holds, refuses every write, leaves the SQLite file as it was, and
// that a missing SQLite file is an error wrapping fs.ErrNotExist, not a
// new file.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	root := writeRuns(t)
	dir := t.TempDir()
	rw := openSQLite(t, dir)
	if _, err := rw.Sync(ctx, root); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	path := filepath.Join(dir, store.DefaultFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(ctx, store.DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rows, err := ro.List(ctx, store.Filter{})
	if err != nil || len(rows) != len(specs) {
		t.Fatalf("%d rows, %v; want %d", len(rows), err, len(specs))
	}
	if _, err := ro.Get(ctx, specs[0].id); err != nil {
		t.Errorf("get: %v", err)
	}
	if err := ro.Index(ctx, filepath.Join(root, specs[0].id)); err == nil {
		t.Errorf("Index on a read-only store succeeded")
	}
	if err := ro.Delete(ctx, specs[1].id); err == nil {
		t.Errorf("Delete on a read-only store succeeded")
	}
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the store's file changed (%v)", err)
	}
	missing := filepath.Join(t.TempDir(), "none.sqlite")
	if _, err := store.OpenReadOnly(ctx, "sqlite:"+missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReadOnly created %s", missing)
	}
}

// TestLoad checks that Load gives the row and operations Index stores.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	root := writeRuns(t)
	s := openSQLite(t, t.TempDir())
	for _, sp := range specs {
		dir := filepath.Join(root, sp.id)
		if err := s.Index(ctx, dir); err != nil {
			t.Fatal(err)
		}
		got, err := store.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Get(ctx, sp.id)
		if err != nil {
			t.Fatal(err)
		}
		// The store orders operations by name.
		slices.SortFunc(got.Ops, func(a, b store.OpRow) int { return strings.Compare(a.Name, b.Name) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Load %+v, store %+v", sp.id, got, want)
		}
	}
}
