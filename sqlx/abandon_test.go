package sqlx_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestAbandon checks, against the real server, that Abandon, called from
// another goroutine while worker 0 waits for pg_sleep(30), makes the
// worker's call return at once with an error, that its next call fails
// with ErrAbandoned instead of taking another connection, that the
// backend goes away (cancelled, its connection closed), that a worker
// not abandoned goes on, and that the DB's Close does not wait for the
// abandoned connection: with the worker's own connection (poller and
// thread I/O) and with connections shared per call (fewer than the
// workers; on one endpoint, and on two, which sharedConn fails over
// between).
func TestAbandon(t *testing.T) {
	u := testDatabaseURL(t)
	for _, tc := range []struct {
		name            string
		conns, workers  int
		threadIO, query bool
		endpoints       int
	}{
		{"own connection, poller", 3, 2, false, false, 1},
		{"own connection, thread I/O", 3, 2, true, true, 1},
		{"shared connections, exec", 2, 3, false, false, 1},
		{"shared connections, rows", 2, 3, false, true, 1},
		{"shared connections, two endpoints", 4, 6, false, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			urls := []string{u.String(), u.String()}[:tc.endpoints] // the same server twice: sqlx's failover between them
			db, err := sqlx.Open(ctx, sqlx.Options{URLs: urls, MaxConns: tc.conns, Workers: tc.workers,
				ThreadIO: tc.threadIO, AppName: "sqlx_abandon"})
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					db.Close()
				}
			}()
			if n := len(db.Endpoints()); n != tc.endpoints {
				t.Fatalf("%d endpoints, want %d", n, tc.endpoints)
			}
			stuck, other := db.Conn(0, true), db.Conn(1, true)
			returned := make(chan error, 1)
			go func() {
				if tc.query {
					rows, err := stuck.Query(ctx, "SELECT pg_sleep(30)")
					if err == nil {
						for rows.Next() {
						}
						err = rows.Err()
						rows.Close()
					}
					returned <- err
					return
				}
				_, err := stuck.Exec(ctx, "SELECT pg_sleep(30)")
				returned <- err
			}()
			if n := backends(t, db, true, 1); n != 1 {
				t.Fatalf("%d backends in pg_sleep, want worker 0's", n)
			}
			began := time.Now()
			db.Abandon([]int{0})
			select {
			case err := <-returned:
				if err == nil {
					t.Error("the abandoned call succeeded")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the abandoned call has not returned 10 s after Abandon")
			}
			if took := time.Since(began); took > 5*time.Second {
				t.Errorf("Abandon and the call's return took %s", took)
			}
			if _, err := stuck.Exec(ctx, "SELECT 1"); !errors.Is(err, sqlx.ErrAbandoned) {
				t.Errorf("the abandoned worker's next call: %v, want ErrAbandoned", err)
			}
			if n := backends(t, db, false, 0); n != 0 {
				t.Errorf("%d backends of pg_sleep still there 10 s after Abandon", n)
			}
			var one int
			if err := other.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Errorf("worker 1, not abandoned: %d, %v", one, err)
			}
			stuck.Release()
			other.Release()
			done := make(chan struct{})
			go func() { db.Close(); close(done) }()
			select {
			case <-done:
				closed = true
			case <-time.After(10 * time.Second):
				t.Fatal("the DB's Close still waits 10 s after Abandon")
			}
		})
	}
}

// backends waits up to 10 s for the number of the server's backends of
// db's application that run pg_sleep (sleeping) or ran it last (any
// state) to be want, and returns the last count.
func backends(t *testing.T, db *sqlx.DB, sleeping bool, want int) int {
	t.Helper()
	q := `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = 'sqlx_abandon' AND pid <> pg_backend_pid() AND query LIKE '%pg\_sleep(30)%'`
	if sleeping { // not while pgx prepares the statement, before it runs
		q += ` AND wait_event = 'PgSleep'`
	}
	var n int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if err := db.QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == want || time.Now().After(deadline) {
			return n
		}
	}
}
