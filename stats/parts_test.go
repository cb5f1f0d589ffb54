package stats_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// TestAddSeriesParts records into parts of a series (as the engine does
// per endpoint) while parts are added, and checks that the parent holds
// exactly its own values and its parts', once each, in the interval and
// cumulative views, errors included.
func TestAddSeriesParts(t *testing.T) {
	start := time.Now()
	reg := stats.NewRegistry([]string{"read"}, 4, start)
	unused := reg.AddSeries("read@idle", 0) // never recorded into
	want := stats.NewHistogram()
	wantParts := map[string]int64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Workers 0-1 record into the parent, the others into a
			// part each, added while the others record.
			series := 0
			name := "read"
			if w >= 2 {
				name = fmt.Sprintf("read@ep%d", w)
				series = reg.AddSeries(name, 0)
			}
			h := reg.Handle(w)
			for i := range 1000 {
				d := time.Duration(w*1000+i) * time.Microsecond
				h.Record(series, d)
				mu.Lock()
				_ = want.RecordValue(stats.Clamp(d))
				wantParts[name]++
				mu.Unlock()
			}
			h.RecordError(series)
			h.Flush()
		}()
	}
	var sum int64 // the parent's interval counts (valid until the next Tick)
	for range 3 {
		sum += reg.Tick(time.Now()).Series[0].Interval.TotalCount()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	last := reg.Tick(time.Now())
	sum += last.Series[0].Interval.TotalCount()
	if n := len(last.Series); n != 6 {
		t.Fatalf("%d series, want 6: %v", n, reg.Names())
	}
	if u := last.Series[unused]; u.Interval == nil || u.Cumulative == nil || u.Cumulative.TotalCount() != 0 || u.CumErrors != 0 {
		t.Errorf("the part never recorded into: %+v", u)
	}
	if sum != 6000 {
		t.Errorf("the parent's intervals hold %d values, want 6000", sum)
	}
	parent := last.Series[0]
	if parent.Cumulative.TotalCount() != want.TotalCount() || !parent.Cumulative.Equals(want) {
		t.Errorf("parent cumulative: %d values, want %d, equal %v", parent.Cumulative.TotalCount(), want.TotalCount(), parent.Cumulative.Equals(want))
	}
	if parent.CumErrors != 6 {
		t.Errorf("parent errors %d, want 6 (2 own + 4 from parts)", parent.CumErrors)
	}
	for _, s := range last.Series[2:] {
		if s.Cumulative.TotalCount() != wantParts[s.Name] || s.CumErrors != 1 {
			t.Errorf("%s: %d values %d errors, want %d and 1", s.Name, s.Cumulative.TotalCount(), s.CumErrors, wantParts[s.Name])
		}
	}
}
