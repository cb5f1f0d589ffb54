package engine_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/workload"
)

// TestNetPollerWorkersShare: on one processor, workers whose operations
// park while they wait (a round trip over net.Pipe to an echoing
// goroutine, as a poller's wait parks) all progress, and every operation
// is counted, whether the engine yields them at its flushes (NetPoller
// false) or leaves them to park in their waits (NetPoller true).
func TestNetPollerWorkersShare(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const workers = 4
	for _, netPoller := range []bool{false, true} {
		t.Run(fmt.Sprintf("netpoller=%v", netPoller), func(t *testing.T) {
			load := workload.QueryLoad{Ops: []string{"echo"}}
			for range workers {
				a, b := net.Pipe()
				t.Cleanup(func() { a.Close(); b.Close() })
				go func() { // the "server": echoes each byte back
					buf := make([]byte, 1)
					for {
						if _, err := b.Read(buf); err != nil {
							return
						}
						if _, err := b.Write(buf); err != nil {
							return
						}
					}
				}()
				buf := make([]byte, 1)
				load.Workers = append(load.Workers, func(ctx context.Context) workload.Result {
					if _, err := a.Write(buf); err != nil {
						return workload.Result{Err: err}
					}
					_, err := a.Read(buf)
					return workload.Result{Err: err}
				})
			}
			res, final := run(t, context.Background(), engine.Config{Duration: 200 * time.Millisecond, NetPoller: netPoller}, load)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var ops int64
			for w, ws := range res.Workers {
				if ws.Ops == 0 {
					t.Errorf("worker %d did no operation", w)
				}
				ops += ws.Ops
			}
			if got := final.Series[0].Cumulative.TotalCount(); got != ops || ops == 0 {
				t.Errorf("%d operations recorded, the workers did %d", got, ops)
			}
		})
	}
}
