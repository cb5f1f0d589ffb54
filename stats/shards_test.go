package stats_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// BenchmarkTick measures one interval's Tick of a pgbench select-only run
// at 3,000 transactions a second: two series (the script and its
// statement), 8 workers, latencies of 1-5 ms, over 1 and 4 shards.
func BenchmarkTick(b *testing.B) {
	for _, shards := range []int{1, 4, 8} {
		b.Run(fmt.Sprintf("shards=%d", shards), func(b *testing.B) {
			reg := stats.NewRegistry([]string{"select-only", "select-only:2"}, shards, time.Now())
			hs := make([]*stats.Handle, 8)
			for i := range hs {
				hs[i] = reg.Handle(i)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			now := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				for j := 0; j < 3000; j++ {
					h := hs[j%8]
					d := time.Duration(1e6 + rng.Int64N(4e6))
					h.Record(0, d)
					h.Record(1, d-20*time.Microsecond)
				}
				for _, h := range hs {
					h.Flush()
				}
				now = now.Add(time.Second)
				b.StartTimer()
				reg.Tick(now)
			}
		})
	}
}

// TestShardsFor: one shard per worker up to 4 per CPU, and one on a
// single CPU, where no two workers run at once.
func TestShardsFor(t *testing.T) {
	for _, c := range []struct{ workers, cpus, want int }{
		{8, 1, 1}, {1, 1, 1}, {1000, 1, 1}, {8, 0, 1},
		{0, 2, 1}, {1, 2, 1}, {2, 2, 2}, {8, 2, 8}, {9, 2, 8}, {1000, 2, 8}, {16, 8, 16}, {100, 8, 32},
	} {
		if got := stats.ShardsFor(c.workers, c.cpus); got != c.want {
			t.Errorf("ShardsFor(%d workers, %d CPUs) = %d, want %d", c.workers, c.cpus, got, c.want)
		}
	}
}
