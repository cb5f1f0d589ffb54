// Command benchruns writes synthetic run directories for scripts/bench:
// the clients of one benchmark (tags job=NAME and client=I/N), each a run
// of the given length with one interval log line per operation type and
// interval, written by stampede's own run-log writer (runlog.Writer), with
// latencies drawn at random (exponential, a different mean per operation
// type) at the given rate. Each interval is fsynced, as a run does: on a
// slow disk the writes take minutes, so only -distinct clients are written
// that way and the others are copies of them (each run directory copied
// byte for byte, its run.json given its own ID and client tag).
//
//	go run ./scripts/benchruns -root DIR -clients 100 -duration 1h -interval 10s -ops 10 -rate 50
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

func main() {
	root := flag.String("root", "", "directory the run directories are written under (required)")
	clients := flag.Int("clients", 100, "number of clients (runs)")
	duration := flag.Duration("duration", time.Hour, "length of each run")
	interval := flag.Duration("interval", 10*time.Second, "length of each interval")
	ops := flag.Int("ops", 10, "operation types")
	rate := flag.Float64("rate", 50, "operations per second of each type in each client")
	job := flag.String("job", "bench", "the job tag")
	distinct := flag.Int("distinct", 10, "clients written by the run-log writer; the others are copies of them")
	totals := flag.Bool("totals", true, "save each run's totals.json and series.ndjson as a run's end does (false: runs as older versions wrote them)")
	parallel := flag.Int("parallel", 32, "runs written at once (each interval is fsynced: on a slow disk, writing many at once overlaps the waits)")
	flag.Parse()
	if *root == "" || *clients < 1 || *ops < 1 || *interval <= 0 || *duration < *interval || *rate < 0 {
		fmt.Fprintln(os.Stderr, "benchruns: give -root DIR, and -clients, -ops at least 1, -duration at least -interval, -rate at least 0")
		os.Exit(2)
	}
	names := make([]string, *ops)
	for i := range names {
		names[i] = fmt.Sprintf("op%d", i)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, *clients)
	next := make(chan int)
	for range max(*parallel, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				if err := write(*root, *job, c, *clients, names, start, *duration, *interval, *rate, *totals); err != nil {
					errs <- err
				}
			}
		}()
	}
	k := min(max(*distinct, 1), *clients)
	for c := range k {
		next <- c
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, "benchruns:", err)
		os.Exit(1)
	}
	for c := k; c < *clients; c++ {
		if err := copyRun(*root, c%k, c, *clients); err != nil {
			fmt.Fprintln(os.Stderr, "benchruns:", err)
			os.Exit(1)
		}
	}
}

// runID is client c's run ID.
func runID(c int) string { return fmt.Sprintf("20261122-100000-bench-%04d", c) }

// copyRun copies client from's run directory as client c's.
func copyRun(root string, from, c, clients int) error {
	src, dst := filepath.Join(root, runID(from)), filepath.Join(root, runID(c))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if e.Name() == runlog.RunFile {
			var info runlog.RunInfo
			if err := json.Unmarshal(data, &info); err != nil {
				return err
			}
			info.ID = runID(c)
			info.Tags["client"] = fmt.Sprintf("%d/%d", c, clients)
			if data, err = json.MarshalIndent(info, "", "  "); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// write writes client c's run.
func write(root, job string, c, clients int, names []string, start time.Time, duration, interval time.Duration, rate float64, totals bool) error {
	s := start.Add(time.Duration(c) * time.Millisecond) // clients start together, within a few ms
	info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: runID(c), Workload: "bench",
		Series: names, Start: s, Host: runlog.HostFacts(), StampedeVersion: "bench",
		Tags: map[string]string{"job": job, "client": fmt.Sprintf("%d/%d", c, clients)}}
	w, err := runlog.Create(root, info)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(uint64(c), 31))
	series := make([]runlog.IntervalSeries, len(names))
	for i := range series {
		series[i] = runlog.IntervalSeries{Name: names[i], Hist: stats.NewHistogram()}
	}
	perInterval := int(rate * interval.Seconds())
	n := int(duration / interval)
	for k := range n {
		for i := range series {
			h := series[i].Hist
			h.Reset()
			mean := float64(time.Millisecond) * (0.5 + float64(i)*0.5)
			for range perInterval {
				_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * mean)))
			}
			series[i].Count = h.TotalCount()
			series[i].Errors = int64(r.IntN(2))
		}
		at := s.Add(time.Duration(k) * interval)
		if err := w.WriteInterval(at, at.Add(interval), series, nil); err != nil {
			return err
		}
	}
	if err := w.Finish(s.Add(time.Duration(n)*interval), runlog.StatusCompleted, "", nil); err != nil || !totals {
		return err
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		return err
	}
	return results.SaveViews(run)
}
