package sqlx_test

import (
	"context"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestFastPathContextPerStatement: statements run each under a context of
// its own that is cancelled when it returns, as the engine's --op-timeout
// gives them, all succeed. The fast path watched each context with
// context.AfterFunc, and a cancelled context's function, run late on its
// own goroutine after the next statement had begun, set that statement's
// deadline to now: chkx found 242 of 250 one-row selects failing with
// i/o timeout under --op-timeout 300ms, where none fail without it.
func TestFastPathContextPerStatement(t *testing.T) {
	for _, threadIO := range []bool{false, true} {
		t.Run(map[bool]string{false: "poller", true: "thread"}[threadIO], func(t *testing.T) {
			_, conn := openWorkerDBIO(t, threadIO)
			rq, ok := conn.(sqlx.RawQuerier)
			if !ok {
				t.Fatalf("%T is not a RawQuerier", conn)
			}
			const n = 5000
			failed := 0
			var first error
			for i := 0; i < n; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err := rq.QueryRaw(ctx, "SELECT $1::int", [][]byte{[]byte("7")}, nil)
				cancel()
				if err != nil {
					failed++
					if first == nil {
						first = err
					}
				}
			}
			if failed > 0 {
				t.Fatalf("%d of %d statements under a context of their own failed; the first: %v", failed, n, first)
			}
		})
	}
}
