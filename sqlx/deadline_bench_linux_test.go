package sqlx

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// BenchmarkDeadline measures how late a read waiting on a silent
// connection returns after a deadline set while it waits (what pgx does
// when a statement's context ends), in each I/O mode. Thread I/O looks at
// its deadlines each time a blocking call's timeout (blockingTimeout,
// 20 ms) ends, so the README says a deadline takes effect within 20 ms;
// the poller wakes the read at once. The deadline falls at a random point
// of that period. It reports the mean and the largest lateness over b.N
// reads (late-ms, max-late-ms): `scripts/bench deadline` prints the
// largest beside the 20 ms.
func BenchmarkDeadline(b *testing.B) {
	for _, mode := range ioModes {
		b.Run(mode.name, func(b *testing.B) {
			raw, _ := rawPair(b, mode.threadIO)
			r := rand.New(rand.NewPCG(1, 2))
			buf := make([]byte, 16)
			set := make(chan time.Time, 1)
			var sum, worst time.Duration
			for b.Loop() {
				_ = raw.SetReadDeadline(time.Time{})
				wait := time.Duration(r.Int64N(int64(2 * blockingTimeout)))
				time.AfterFunc(wait, func() {
					now := time.Now()
					set <- now
					_ = raw.SetReadDeadline(now)
				})
				_, err := raw.Read(buf)
				returned := time.Now()
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					b.Fatalf("Read returned %v, want a deadline error", err)
				}
				late := returned.Sub(<-set)
				sum += late
				worst = max(worst, late)
			}
			b.ReportMetric(float64(sum.Nanoseconds())/float64(b.N)/1e6, "late-ms")
			b.ReportMetric(float64(worst.Nanoseconds())/1e6, "max-late-ms")
		})
	}
}
