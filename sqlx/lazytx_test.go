package sqlx_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestPipelinedTx runs transactions with TxOptions.Pipeline on a
// dedicated connection: BEGIN travels with the first statement and
// COMMIT with the last (QueryCommit), and every outcome (commit, failed
// statement, failed BEGIN, rollback, nothing sent) leaves the data and the
// connection as a plain transaction would.
func TestPipelinedTx(t *testing.T) {
	ctx := context.Background()
	db, conn := openWorkerDB(t)
	if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS pipelined_t; CREATE TABLE pipelined_t (k int PRIMARY KEY, v int)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "DROP TABLE IF EXISTS pipelined_t") })
	count := func(t *testing.T, k int) int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, "SELECT count(*) FROM pipelined_t WHERE k = $1", k).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// idle checks that the connection is usable and outside a
	// transaction block (where SAVEPOINT fails with 25P01).
	idle := func(t *testing.T, when string) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(new(int)); err != nil {
			t.Fatalf("%s: the connection fails: %v", when, err)
		}
		if _, err := conn.Exec(ctx, "SAVEPOINT idle_check"); sqlx.SQLState(err) != "25P01" {
			t.Fatalf("%s: SAVEPOINT says the connection is in a transaction (%v)", when, err)
		}
	}
	pipelined := sqlx.TxOptions{Isolation: sqlx.RepeatableRead, Pipeline: true}

	t.Run("commit with the last statement", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tx.(sqlx.CommitPipeliner); !ok {
			t.Fatalf("a pipelined Tx of a dedicated Conn (%T) is not a CommitPipeliner", tx)
		}
		var iso string
		if err := tx.QueryRow(ctx, "SELECT current_setting('transaction_isolation')").Scan(&iso); err != nil || iso != "repeatable read" {
			t.Fatalf("isolation inside the transaction: %q, %v", iso, err)
		}
		if n, err := tx.Exec(ctx, "INSERT INTO pipelined_t VALUES (1, 1)"); err != nil || n != 1 {
			t.Fatalf("INSERT: %d, %v", n, err)
		}
		var v int
		if err := sqlx.QueryRowCommit(ctx, tx, "INSERT INTO pipelined_t VALUES (2, 2) RETURNING v * 10").Scan(&v); err != nil || v != 20 {
			t.Fatalf("QueryRowCommit: %d, %v", v, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("Commit after QueryCommit: %v", err)
		}
		if count(t, 1) != 1 || count(t, 2) != 1 {
			t.Error("the transaction's rows are missing after COMMIT")
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Errorf("Rollback after Commit: %v", err)
		}
		idle(t, "after the commit")
	})

	t.Run("one statement", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := sqlx.QueryCommit(ctx, tx, "INSERT INTO pipelined_t VALUES (3, 3), (4, 4) RETURNING k")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil || n != 2 {
			t.Fatalf("BEGIN, INSERT and COMMIT in one round trip: %d rows, %v", n, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, 3) != 1 || count(t, 4) != 1 {
			t.Error("rows missing")
		}
		idle(t, "after a one-statement transaction")
	})

	t.Run("failed last statement", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO pipelined_t VALUES (5, 5)"); err != nil {
			t.Fatal(err)
		}
		// A duplicate key: COMMIT after it is skipped by the server.
		err = sqlx.QueryRowCommit(ctx, tx, "INSERT INTO pipelined_t VALUES (1, 1) RETURNING k").Scan(new(int))
		if sqlx.SQLState(err) != "23505" {
			t.Fatalf("QueryRowCommit of a duplicate: %v, want SQLSTATE 23505", err)
		}
		if err := tx.Commit(ctx); err == nil {
			t.Fatal("Commit after a failed QueryCommit succeeded")
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatalf("Rollback: %v", err)
		}
		if count(t, 5) != 0 {
			t.Error("the failed transaction's first row was committed")
		}
		idle(t, "after a failed last statement")
	})

	t.Run("failed first statement", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO pipelined_t VALUES (1, 1)"); sqlx.SQLState(err) != "23505" {
			t.Fatalf("first statement: %v, want SQLSTATE 23505", err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatalf("Rollback: %v", err)
		}
		idle(t, "after a failed first statement")
	})

	t.Run("rollback", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO pipelined_t VALUES (6, 6)"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, 6) != 0 {
			t.Error("a rolled back row is there")
		}
		idle(t, "after a rollback")
	})

	t.Run("no statement", func(t *testing.T) {
		for _, end := range []string{"commit", "rollback"} {
			tx, err := conn.Begin(ctx, pipelined)
			if err != nil {
				t.Fatal(err)
			}
			if end == "commit" {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
			if err != nil {
				t.Errorf("%s of an empty transaction: %v", end, err)
			}
		}
		idle(t, "after empty transactions")
	})

	t.Run("no row", func(t *testing.T) {
		tx, err := conn.Begin(ctx, pipelined)
		if err != nil {
			t.Fatal(err)
		}
		err = sqlx.QueryRowCommit(ctx, tx, "SELECT k FROM pipelined_t WHERE k < 0").Scan(new(int))
		if !errors.Is(err, sqlx.ErrNoRows) {
			t.Fatalf("QueryRowCommit with no row: %v, want ErrNoRows", err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		idle(t, "after no row")
	})

	t.Run("without pipelining", func(t *testing.T) {
		// QueryCommit on a plain transaction runs the statement alone.
		tx, err := conn.Begin(ctx, sqlx.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tx.(sqlx.CommitPipeliner); ok {
			t.Errorf("a Tx without Pipeline (%T) is a CommitPipeliner", tx)
		}
		if err := sqlx.QueryRowCommit(ctx, tx, "INSERT INTO pipelined_t VALUES (7, 7) RETURNING k").Scan(new(int)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if count(t, 7) != 1 {
			t.Error("row 7 missing")
		}
	})
}
