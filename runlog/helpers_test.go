package runlog_test

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
)

var t0 = time.Date(2026, 11, 22, 10, 35, 12, 123456789, time.UTC)

func fixedHost() runlog.Host {
	return runlog.Host{
		Hostname:    "bench1",
		OS:          "linux",
		Arch:        "amd64",
		Kernel:      "6.8.0-test",
		GoVersion:   "go1.26.8",
		CPUs:        16,
		MemoryBytes: 64 << 30,
	}
}

func testInfo(id string, start time.Time) runlog.RunInfo {
	return runlog.RunInfo{
		ID:              id,
		Workload:        "ycsb",
		WorkloadVersion: "1.2",
		Command:         []string{"stampede", "run", "ycsb", "--duration", "10m", "--dsn", "postgres://u:***@db/x?a=1&b=2"},
		Flags:           map[string]string{"duration": "10m", "workers": "64", "mix": "read=95,update=5"},
		Tags:            map[string]string{"env": "ci"},
		Series:          []string{"read", "update"},
		StampedeVersion: "v0.3.0",
		ServerVersion:   "PostgreSQL 17.2",
		Endpoints:       []string{"db:5432"},
		Database:        "x",
		Seed:            42,
		Host:            fixedHost(),
		Start:           start,
	}
}

// newHist returns a nanosecond histogram holding values.
func newHist(t testing.TB, values ...int64) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000_000, 3)
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatalf("record %d: %v", v, err)
		}
	}
	return h
}

// intervalSeries returns deterministic data for interval i (0-based): read
// always has values, update is empty in interval 1.
func intervalSeries(t testing.TB, i int) []runlog.IntervalSeries {
	var read, update []int64
	for j := range 200 {
		read = append(read, int64(100_000+i*50_000+j*7_919))
	}
	if i != 1 {
		for j := range 20 {
			update = append(update, int64(2_000_000+i*1_000_000+j*333_333))
		}
	}
	return []runlog.IntervalSeries{
		{Name: "read", Hist: newHist(t, read...), Count: int64(len(read)), Errors: int64(i)},
		{Name: "update", Hist: newHist(t, update...), Count: int64(len(update)), Errors: 0},
	}
}

func intervalBounds(i int) (time.Time, time.Time) {
	start := t0.Add(time.Duration(i) * time.Second)
	return start, start.Add(time.Second)
}

// writeIntervals writes intervals from to to-1 with intervalSeries and
// returns what was written.
func writeIntervals(t testing.TB, w *runlog.Writer, from, to int) [][]runlog.IntervalSeries {
	t.Helper()
	var all [][]runlog.IntervalSeries
	for i := from; i < to; i++ {
		s := intervalSeries(t, i)
		start, end := intervalBounds(i)
		var extra map[string]float64
		if i%2 == 0 {
			extra = map[string]float64{"reconnects": float64(i), "pool_wait_ms": 1.5}
		}
		if err := w.WriteInterval(start, end, s, extra); err != nil {
			t.Fatalf("WriteInterval %d: %v", i, err)
		}
		all = append(all, s)
	}
	return all
}

func appendFile(t testing.TB, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keepLines truncates path to its first n lines.
func keepLines(t testing.TB, path string, n int) {
	t.Helper()
	lines := bytes.SplitAfter(readFile(t, path), []byte("\n"))
	if err := os.WriteFile(path, bytes.Join(lines[:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

func countLines(t testing.TB, path string) int {
	t.Helper()
	return bytes.Count(readFile(t, path), []byte("\n"))
}

type fileState struct {
	size    int64
	mode    fs.FileMode
	modTime time.Time
	sum     [32]byte
}

// snapshot records every file and directory under root.
func snapshot(t testing.TB, root string) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{size: fi.Size(), mode: fi.Mode(), modTime: fi.ModTime()}
		if fi.Mode().IsRegular() {
			st.sum = sha256.Sum256(readFile(t, path))
		}
		m[path] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
