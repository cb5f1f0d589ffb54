package sqlx_test

import (
	"context"
	"testing"
	"time"
)

// TestRawIOCancelsServerWait checks, against the real server, that a
// context that ends while the client waits for a slow statement ends the
// wait (pgx cancels through a cancel request and the connection's
// deadline, both of which must work on the raw-I/O connection), and that
// the worker's connection then runs statements again, with the poller and
// with thread I/O.
func TestRawIOCancelsServerWait(t *testing.T) {
	for _, threadIO := range []bool{false, true} {
		t.Run(map[bool]string{false: "poller", true: "thread"}[threadIO], func(t *testing.T) {
			testRawIOCancelsServerWait(t, threadIO)
		})
	}
}

func testRawIOCancelsServerWait(t *testing.T, threadIO bool) {
	_, conn := openWorkerDBIO(t, threadIO)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	began := time.Now()
	var one int
	err := conn.QueryRow(ctx, "SELECT 1 FROM pg_sleep(30)").Scan(&one)
	took := time.Since(began)
	if err == nil {
		t.Fatal("a 30 s statement under a 200 ms context succeeded")
	}
	if took > 10*time.Second {
		t.Fatalf("the statement returned %v after its context ended (error: %v)", took, err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	for i := 0; ; i++ { // the first call may find the connection closed and reconnect
		err = conn.QueryRow(ctx2, "SELECT 41 + 1").Scan(&one)
		if err == nil || i == 2 {
			break
		}
	}
	if err != nil || one != 42 {
		t.Fatalf("after the cancelled statement: %d, %v; want 42, nil", one, err)
	}
}
