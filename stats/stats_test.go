package stats_test

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// TestMergeIsExact checks that histograms recorded by many workers and
// merged by Tick equal one histogram holding every value.
func TestMergeIsExact(t *testing.T) {
	for _, tc := range []struct{ workers, shards, perWorker int }{
		{1, 1, 10000}, {2, 2, 10000}, {64, 8, 500}, {1000, 8, 20},
	} {
		reg := stats.NewRegistry([]string{"read", "write"}, tc.shards, time.Now())
		want := [2]*struct{ h any }{}
		_ = want
		wantRead, wantWrite := stats.NewHistogram(), stats.NewHistogram()
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < tc.workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				h := reg.Handle(w)
				r := rand.New(rand.NewPCG(1, uint64(w)))
				vals := make([]int64, tc.perWorker)
				for i := range vals {
					vals[i] = int64(r.ExpFloat64() * 1e6) // ~1ms mean, long tail
					series := i % 2
					h.Record(series, time.Duration(vals[i]))
				}
				h.RecordError(1)
				h.Flush()
				mu.Lock()
				for i, v := range vals {
					if i%2 == 0 {
						_ = wantRead.RecordValue(stats.Clamp(time.Duration(v)))
					} else {
						_ = wantWrite.RecordValue(stats.Clamp(time.Duration(v)))
					}
				}
				mu.Unlock()
			}(w)
		}
		wg.Wait()
		tk := reg.Tick(time.Now())
		if !tk.Series[0].Interval.Equals(wantRead) || !tk.Series[1].Interval.Equals(wantWrite) {
			t.Errorf("%+v: merged interval histograms differ from the direct ones", tc)
		}
		if !tk.Series[0].Cumulative.Equals(wantRead) {
			t.Errorf("%+v: cumulative differs", tc)
		}
		if tk.Series[1].Errors != int64(tc.workers) || tk.Series[0].Errors != 0 {
			t.Errorf("%+v: errors %d/%d", tc, tk.Series[0].Errors, tk.Series[1].Errors)
		}
		for _, q := range []float64{50, 99, 99.9} {
			if got, want := tk.Series[0].Interval.ValueAtQuantile(q), wantRead.ValueAtQuantile(q); got != want {
				t.Errorf("%+v: p%g %d != %d", tc, q, got, want)
			}
		}
	}
}

func TestTickIntervalsAndCumulative(t *testing.T) {
	start := time.Now()
	reg := stats.NewRegistry([]string{"op"}, 2, start)
	h := reg.Handle(0)
	for i := 0; i < 10; i++ {
		h.Record(0, time.Millisecond)
	}
	h.Flush()
	t1 := reg.Tick(start.Add(time.Second))
	if n := t1.Series[0].Interval.TotalCount(); n != 10 {
		t.Fatalf("interval 1: %d", n)
	}
	h1 := reg.Handle(1)
	h1.Record(0, 2*time.Millisecond)
	h1.Flush()
	t2 := reg.Tick(start.Add(2 * time.Second))
	if n := t2.Series[0].Interval.TotalCount(); n != 1 {
		t.Errorf("interval 2: %d", n)
	}
	if n := t2.Series[0].Cumulative.TotalCount(); n != 11 {
		t.Errorf("cumulative: %d", n)
	}
	if !t2.Start.Equal(start.Add(time.Second)) || !t2.End.Equal(start.Add(2*time.Second)) {
		t.Errorf("interval bounds %v..%v", t2.Start, t2.End)
	}
	if at := reg.ResetCumulative(); !at.Equal(start.Add(2 * time.Second)) {
		t.Errorf("cumulative view restarts at %v, want the last tick %v", at, start.Add(2*time.Second))
	}
	h.Record(0, time.Millisecond)
	h.Flush()
	t3 := reg.Tick(start.Add(3 * time.Second))
	if n := t3.Series[0].Cumulative.TotalCount(); n != 1 {
		t.Errorf("cumulative after reset: %d", n)
	}
	if !t3.CumStart.Equal(start.Add(2 * time.Second)) {
		t.Errorf("cum start %v", t3.CumStart)
	}
}

// TestResetMidInterval checks that a cumulative view reset during an
// interval starts where that interval started, since it counts the
// interval's values whole.
func TestResetMidInterval(t *testing.T) {
	start := time.Now()
	reg := stats.NewRegistry([]string{"op"}, 1, start)
	h := reg.Handle(0)
	h.Record(0, time.Millisecond)
	h.Flush()
	reg.Tick(start.Add(time.Second))
	h.Record(0, time.Millisecond) // before the reset, 1.004s in
	h.Flush()
	if at := reg.ResetCumulative(); !at.Equal(start.Add(time.Second)) {
		t.Errorf("cumulative view restarts at %v, want the interval's start %v", at, start.Add(time.Second))
	}
	h.Record(0, time.Millisecond)
	h.Flush()
	tk := reg.Tick(start.Add(2 * time.Second))
	if n := tk.Series[0].Cumulative.TotalCount(); n != 2 {
		t.Errorf("cumulative after a reset mid-interval: %d, want the interval's 2", n)
	}
	if !tk.CumStart.Equal(tk.Start) {
		t.Errorf("cumulative view starts at %v, its only interval at %v", tk.CumStart, tk.Start)
	}
}

// TestRunClock checks that tick times are on the run's clock: their
// wall-clock readings (what the run log keeps) differ by exactly the
// monotonic durations between them.
func TestRunClock(t *testing.T) {
	start := time.Now()
	reg := stats.NewRegistry([]string{"op"}, 1, start)
	var prev time.Time
	for i := 0; i < 5; i++ {
		time.Sleep(time.Millisecond)
		now := time.Now()
		tk := reg.Tick(now)
		if got, want := tk.End.Round(0).Sub(start.Round(0)), now.Sub(start); got != want {
			t.Errorf("tick %d: wall-clock offset %v, monotonic %v", i, got, want)
		}
		if i > 0 && !tk.Start.Equal(prev) {
			t.Errorf("tick %d starts at %v, the previous ended at %v", i, tk.Start, prev)
		}
		if got, want := tk.End.Round(0).Sub(tk.Start.Round(0)), tk.End.Sub(tk.Start); got != want {
			t.Errorf("tick %d: wall-clock length %v, monotonic %v", i, got, want)
		}
		prev = tk.End
	}
	// Times without a monotonic reading are kept as they are.
	wall := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	reg = stats.NewRegistry([]string{"op"}, 1, wall)
	if tk := reg.Tick(wall.Add(time.Second)); !tk.End.Equal(wall.Add(time.Second)) {
		t.Errorf("tick at %v, want %v", tk.End, wall.Add(time.Second))
	}
}

func TestClamp(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want int64
	}{{-5, 0}, {0, 0}, {time.Millisecond, 1e6}, {time.Hour, stats.Highest}} {
		if got := stats.Clamp(tc.in); got != tc.want {
			t.Errorf("Clamp(%s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestPrecision(t *testing.T) {
	h := stats.NewHistogram()
	for _, v := range []time.Duration{time.Microsecond, 123456 * time.Nanosecond, 60 * time.Second} {
		h.Reset()
		_ = h.RecordValue(stats.Clamp(v))
		// Precision is 3 significant digits or 1µs, whichever is coarser.
		got := h.ValueAtQuantile(50)
		tolerance := max(float64(v)*0.001, float64(time.Microsecond))
		if diff := float64(got - int64(v)); diff > tolerance || diff < -tolerance {
			t.Errorf("%s recorded as %dns", v, got)
		}
	}
}

func TestSummarize(t *testing.T) {
	h := stats.NewHistogram()
	for i := 1; i <= 100; i++ {
		_ = h.RecordValue(int64(i) * 1e6)
	}
	s := stats.Summarize(h, 3, 10*time.Second)
	if s.Count != 100 || s.Errors != 3 || s.Rate != 10 {
		t.Errorf("counts: %+v", s)
	}
	if s.P50 < 49.9 || s.P50 > 50.1 || s.P99 < 98.9 || s.P99 > 99.1 || s.Max < 99.9 || s.Max > 100.1 {
		t.Errorf("quantiles: %+v", s)
	}
}

func BenchmarkRecord(b *testing.B) {
	reg := stats.NewRegistry([]string{"op"}, 2, time.Now())
	h := reg.Handle(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.Record(0, time.Duration(i&0xffff)*time.Microsecond)
	}
	h.Flush()
}

func TestLogBuckets(t *testing.T) {
	h := stats.NewHistogram()
	for _, v := range []time.Duration{time.Millisecond, time.Millisecond, 2 * time.Millisecond, 50 * time.Millisecond, time.Nanosecond} {
		_ = h.RecordValue(stats.Clamp(v))
	}
	b := stats.LogBuckets(h, 1024, 0.001, 100000)
	var total int64
	for i, x := range b {
		total += x.Count
		if i > 0 && x.Value <= b[i-1].Value {
			t.Errorf("buckets not increasing: %v", b)
		}
	}
	if total != 5 || len(b) != 4 {
		t.Errorf("buckets %v", b)
	}
	if b[1].Count != 2 || b[1].Value > 1.0 || b[1].Value < 0.98 {
		t.Errorf("1ms bucket %+v", b[1])
	}
}

// TestErrorLabels checks that failures counted under labels are counted
// in the errors column too, per interval and since the cumulative start,
// from many workers at once.
func TestErrorLabels(t *testing.T) {
	reg := stats.NewRegistry([]string{"a", "b"}, 4, time.Now())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := reg.Handle(w)
			for i := range 100 {
				if i%2 == 0 {
					h.RecordErrorLabel(0, "errors_40001")
				} else {
					h.RecordErrorLabel(1, "retries_conn")
				}
			}
		}()
	}
	wg.Wait()
	t1 := reg.Tick(time.Now())
	if t1.Labels["errors_40001"] != 400 || t1.Labels["retries_conn"] != 400 || t1.Series[0].Errors != 400 || t1.Series[1].Errors != 400 {
		t.Errorf("interval labels %v, errors %d %d", t1.Labels, t1.Series[0].Errors, t1.Series[1].Errors)
	}
	reg.Handle(0).RecordErrorLabel(0, "errors_40001")
	t2 := reg.Tick(time.Now())
	if t2.Labels["errors_40001"] != 1 || len(t2.Labels) != 1 || t2.CumLabels["errors_40001"] != 401 || t2.CumLabels["retries_conn"] != 400 {
		t.Errorf("second interval labels %v, cumulative %v", t2.Labels, t2.CumLabels)
	}
	reg.ResetCumulative()
	if t3 := reg.Tick(time.Now()); t3.Labels != nil || t3.CumLabels != nil {
		t.Errorf("after a reset and no failure: %v %v", t3.Labels, t3.CumLabels)
	}
}
