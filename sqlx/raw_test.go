package sqlx_test

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestQueryRaw runs statements through the fast path of a dedicated
// connection, in and out of a transaction, and after the connection is
// replaced (its prepared statements are then prepared again).
func TestQueryRaw(t *testing.T) {
	ctx := context.Background()
	db, conn := openWorkerDB(t)
	rq, ok := conn.(sqlx.RawQuerier)
	if !ok {
		t.Fatalf("a dedicated Conn (%T) is not a RawQuerier", conn)
	}
	var got []string
	row := func(v [][]byte) { got = append(got, string(v[0])+"|"+string(v[1])) }
	const q = "SELECT g, $2::text FROM generate_series(1, $1::int) g"
	for range 2 { // prepared, then reused
		got = got[:0]
		n, err := rq.QueryRaw(ctx, q, [][]byte{[]byte("3"), []byte("x")}, row)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 || len(got) != 3 || got[0] != "1|x" || got[2] != "3|x" {
			t.Fatalf("QueryRaw returned %d rows %q, want 3 rows 1|x..3|x", n, got)
		}
	}
	if _, err := rq.QueryRaw(ctx, "SELECT $1::int", [][]byte{[]byte("nan")}, nil); sqlx.SQLState(err) != "22P02" {
		t.Fatalf("QueryRaw with a bad parameter: %v, want SQLSTATE 22P02", err)
	}

	tx, err := conn.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rtx, ok := tx.(sqlx.RawQuerier)
	if !ok {
		t.Fatalf("a Tx of a dedicated Conn (%T) is not a RawQuerier", tx)
	}
	if _, err := rtx.QueryRaw(ctx, "CREATE TEMP TABLE raw_t (v int) ON COMMIT DROP", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := rtx.QueryRaw(ctx, "INSERT INTO raw_t VALUES ($1), ($2)", [][]byte{[]byte("1"), nil}, nil); err != nil || n != 2 {
		t.Fatalf("INSERT in a transaction: %d rows, %v", n, err)
	}
	if n, err := rtx.QueryRaw(ctx, q, [][]byte{[]byte("2"), []byte("y")}, nil); err != nil || n != 2 {
		t.Fatalf("a statement prepared outside the transaction: %d rows, %v", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// A lost connection is replaced by the next call, which prepares its
	// statements again.
	var pid int64
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	if _, err := rq.QueryRaw(ctx, q, [][]byte{[]byte("1"), []byte("z")}, nil); err == nil {
		// The loss may be noticed by this call (an error) or the
		// next one (a reconnect).
		t.Log("the terminated connection answered once more")
	}
	got = got[:0]
	if n, err := rq.QueryRaw(ctx, q, [][]byte{[]byte("1"), []byte("z")}, row); err != nil || n != 1 || got[0] != "1|z" {
		t.Fatalf("after reconnecting: %d rows %q, %v", n, got, err)
	}
}

// TestQueryRawNoAllocs: a statement on a dedicated connection outside a
// transaction (HammerDB's call of a routine, a sysbench point select)
// allocates nothing per run under a context that can be cancelled, as a
// run's workers have; through pgconn's ExecStatement it made 5
// allocations. Its rows still reach the caller, and an error still comes
// back as the server's.
func TestQueryRawNoAllocs(t *testing.T) {
	_, conn := openWorkerDB(t)
	rq := conn.(sqlx.RawQuerier)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := [][]byte{[]byte("7"), []byte("abc")}
	rows := 0
	var last string
	row := func(v [][]byte) { rows++; last = string(v[1]) }
	const sql = "SELECT $1::int + 1 AS x, $2::text || 'd' AS y"
	if _, err := rq.QueryRaw(ctx, sql, params, row); err != nil { // prepares it
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if n, err := rq.QueryRaw(ctx, sql, params, nil); err != nil || n != 1 {
			t.Fatalf("%d rows, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per statement, want 0", allocs)
	}
	if n, err := rq.QueryRaw(ctx, sql, params, row); err != nil || n != 1 || rows != 2 || last != "abcd" {
		t.Errorf("%d rows (%d seen, last %q), %v; want 1 row, abcd", n, rows, last, err)
	}
	if _, err := rq.QueryRaw(ctx, sql, [][]byte{[]byte("x"), nil}, nil); sqlx.SQLState(err) != "22P02" {
		t.Errorf("a bad parameter: %v, want SQLSTATE 22P02", err)
	}
	if n, err := rq.QueryRaw(ctx, sql, params, nil); err != nil || n != 1 {
		t.Errorf("after an error: %d rows, %v", n, err)
	}
}
