package results_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestParallelMergeSameAsSequential: Recompute's merge of many runs, read
// several at once into one accumulator per reading goroutine and those
// merged at the end, gives the view of reading them one after another
// (GOMAXPROCS 1: one goroutine reads every run in order), to the bit;
// and each operation's figures are those of the library's own decoding
// of every interval's histogram merged one by one (runlog.Intervals,
// PackedHistogram.MergeInto). The runs differ in length, start, latency
// shapes (narrow, exponential, long tails of seconds) and series that
// see no operation in some intervals.
func TestParallelMergeSameAsSequential(t *testing.T) {
	root := t.TempDir()
	names := []string{"read", "update", "scan"}
	start := time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)
	var runs []*runlog.Run
	for c := range 7 {
		r := rand.New(rand.NewPCG(uint64(c), 31))
		at := start.Add(time.Duration(c) * 10 * time.Millisecond)
		info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261130-040000-bench-%04d", c), Workload: "bench",
			Series: names, Start: at, Host: runlog.HostFacts(), StampedeVersion: "test",
			Tags: map[string]string{"job": "par", "client": fmt.Sprintf("%d/7", c)}}
		w, err := runlog.Create(root, info)
		if err != nil {
			t.Fatal(err)
		}
		series := make([]runlog.IntervalSeries, len(names))
		for i := range series {
			series[i] = runlog.IntervalSeries{Name: names[i], Hist: stats.NewHistogram()}
		}
		n := 20 + 7*c
		for k := range n {
			for i := range series {
				h := series[i].Hist
				h.Reset()
				if (k+i+c)%5 != 0 { // some intervals see none
					mean := float64(time.Millisecond) * float64(1+i*7+c)
					for range r.IntN(400) {
						d := time.Duration(r.ExpFloat64() * mean)
						if r.IntN(100) == 0 {
							d *= 1000 // a tail of seconds
						}
						_ = h.RecordValue(stats.Clamp(d))
					}
				}
				series[i].Count = h.TotalCount()
				series[i].Errors = int64(r.IntN(3))
			}
			s := at.Add(time.Duration(k) * time.Second)
			if err := w.WriteInterval(s, s.Add(time.Second), series, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(at.Add(time.Duration(n)*time.Second), runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(filepath.Join(root, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	from, err := results.ParseBound("0s")
	if err != nil {
		t.Fatal(err)
	}
	view := func(procs int) []byte {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		v, warnings, err := results.Recompute(runs, results.Window{From: from})
		if err != nil || len(warnings) > 0 {
			t.Fatalf("GOMAXPROCS %d: %v %v", procs, err, warnings)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	seq := view(1)
	for _, procs := range []int{2, 4, 7} {
		if par := view(procs); string(par) != string(seq) {
			t.Errorf("GOMAXPROCS %d: the view differs from the sequential one's:\n%s\n%s", procs, par, seq)
		}
	}
	// The library's decoding, merged interval by interval.
	var v results.View
	if err := json.Unmarshal(seq, &v); err != nil {
		t.Fatal(err)
	}
	for _, op := range v.Ops {
		h := stats.NewHistogram()
		var errs int64
		for _, run := range runs {
			ivs, err := run.Intervals()
			if err != nil {
				t.Fatal(err)
			}
			for _, iv := range ivs {
				d := iv.Series[op.Name]
				d.Packed.MergeInto(h)
				errs += d.Errors
			}
		}
		want := stats.Summarize(h, errs, time.Duration(v.Seconds*float64(time.Second)))
		if got, _ := json.Marshal(op.Summary); string(got) != string(must(json.Marshal(want))) {
			t.Errorf("%s: %s, want the library's %s", op.Name, got, must(json.Marshal(want)))
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
