package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// TestSplit runs 4 workers over two groups (the endpoints of their
// connections), one of which moves to the other group half way, under a
// rate and closed loop: each group's parts count the operations, failures
// and recorded statements of the connections in it, and add up exactly to
// the operations' own series.
func TestSplit(t *testing.T) {
	for _, rate := range []float64{0, 20000} {
		const perWorker = 2000
		cells := make([]atomic.Int32, 4)
		for w := range cells {
			cells[w].Store(int32(w % 2))
		}
		cells[3].Store(-1) // no connection yet: counts in the operation only
		ops := []string{"read", "write"}
		load := fakeLoad(4, ops, func(w int, call int64) workload.Result {
			if w == 1 && call == perWorker/2 {
				cells[1].Store(0) // failed over to group 0
			}
			if call%100 == 0 {
				return workload.Result{Op: 1, Err: errors.New("boom")}
			}
			return workload.Result{Op: int(call % 2)}
		})
		recs := make([]workload.Recorder, 4)
		load.Attach = func(w int, rec workload.Recorder) { recs[w] = rec }
		cfg := engine.Config{MaxOps: 4 * perWorker, MaxRate: rate, TolerateErrors: true, DisplayEvery: 20 * time.Millisecond}
		names := engine.Series{Ops: ops, Rated: rate > 0}.Names()
		// The parts laid out as Split wants them: a group's ops adjacent.
		reg := stats.NewRegistry(names, 2, time.Now())
		var table []int32
		for _, g := range []string{"a", "b"} {
			base := reg.AddSeries("read@"+g, 0)
			reg.AddSeries("write@"+g, 1)
			table = append(table, int32(base))
		}
		var tab atomic.Pointer[[]int32]
		tab.Store(&table)
		var final stats.Tick
		engine.RunSplit(context.Background(), cfg, load, reg, engine.Hooks{Tick: func(tk stats.Tick, last bool) {
			if last {
				final = tk
			}
		}}, &engine.Split{Cell: func(w int) *atomic.Int32 { return &cells[w] }, Bases: &tab})
		if recs[0] == nil {
			t.Fatal("no recorder attached")
		}
		series := map[string]stats.Series{}
		for _, s := range final.Series {
			series[s.Name] = s
		}
		for i, op := range ops {
			whole := series[op]
			a, b := series[op+"@a"], series[op+"@b"]
			if whole.Cumulative.TotalCount() == 0 {
				t.Fatalf("rate %g: no %s", rate, op)
			}
			// Worker 3 has no group: the parts hold less than the whole.
			parts := a.Cumulative.TotalCount() + b.Cumulative.TotalCount()
			if parts >= whole.Cumulative.TotalCount() || parts == 0 {
				t.Errorf("rate %g: %s parts %d, whole %d", rate, op, parts, whole.Cumulative.TotalCount())
			}
			if i == 1 && (a.CumErrors == 0 || b.CumErrors == 0 || a.CumErrors+b.CumErrors >= whole.CumErrors) {
				t.Errorf("rate %g: write errors a %d b %d whole %d", rate, a.CumErrors, b.CumErrors, whole.CumErrors)
			}
			// Group a has workers 0 and 2 and half of worker 1: 5 times
			// b's half of worker 1.
			if ra := float64(a.Cumulative.TotalCount()) / float64(b.Cumulative.TotalCount()); ra < 4.5 || ra > 5.5 {
				t.Errorf("rate %g: %s a/b = %.2f, want about 5", rate, op, ra)
			}
		}
		if rate > 0 {
			if s := series["read"+engine.ServiceSuffix]; s.Cumulative.TotalCount() != series["read"].Cumulative.TotalCount() {
				t.Errorf("service series %d, read %d", s.Cumulative.TotalCount(), series["read"].Cumulative.TotalCount())
			}
		}
	}
}

// BenchmarkSplit measures what splitting the figures by endpoint adds to
// each operation of a closed-loop run: 3 workers on 3 endpoints, an
// operation that does nothing, with and without a Split.
func BenchmarkSplit(b *testing.B) {
	for _, split := range []bool{false, true} {
		name := "whole"
		if split {
			name = "by-endpoint"
		}
		b.Run(name, func(b *testing.B) {
			ops := []string{"read", "update"}
			load := fakeLoad(3, ops, func(w int, call int64) workload.Result { return workload.Result{Op: int(call & 1)} })
			reg := stats.NewRegistry(engine.Series{Ops: ops}.Names(), 3, time.Now())
			var sp *engine.Split
			if split {
				cells := make([]atomic.Int32, 3)
				var table []int32
				for g := range 3 {
					cells[g].Store(int32(g))
					base := reg.AddSeries(fmt.Sprintf("read@%d", g), 0)
					reg.AddSeries(fmt.Sprintf("update@%d", g), 1)
					table = append(table, int32(base))
				}
				var tab atomic.Pointer[[]int32]
				tab.Store(&table)
				sp = &engine.Split{Cell: func(w int) *atomic.Int32 { return &cells[w] }, Bases: &tab}
			}
			b.ResetTimer()
			engine.RunSplit(context.Background(), engine.Config{MaxOps: int64(b.N), DisplayEvery: time.Second}, load, reg, engine.Hooks{}, sp)
		})
	}
}
