package stats_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// BenchmarkHandleRecord measures recording through a Handle, Flush
// included, of latencies spread over 1-5 ms (a few hundred buckets), with
// a Tick after every `per` values: a series recorded per times an
// interval in its shard. Up to 128 a series' shard histogram stays
// sparse (stats.Hist), above it turns dense; the dense histogram's cost
// is that of every series before Hist.
func BenchmarkHandleRecord(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]time.Duration, 1<<16)
	for i := range vals {
		vals[i] = time.Duration(1e6 + r.Int64N(4e6))
	}
	for _, per := range []int{100, 1000, 100_000} {
		b.Run(fmt.Sprint("per=", per), func(b *testing.B) {
			start := time.Now()
			reg := stats.NewRegistry([]string{"op"}, 1, start)
			h := reg.Handle(0)
			b.ResetTimer()
			for i := range b.N {
				h.Record(0, vals[i&(len(vals)-1)])
				if i%per == per-1 {
					h.Flush()
					b.StopTimer()
					reg.Tick(start.Add(time.Duration(i) * time.Millisecond))
					b.StartTimer()
				}
			}
			h.Flush()
		})
	}
}
