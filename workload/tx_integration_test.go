package workload_test

import (
	"context"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// flakyDDL makes flaky(), which raises a real serialization_failure
// (SQLSTATE 40001) the first time it is called and then returns true.
// It counts its calls with a sequence, which a rolled-back transaction
// or savepoint does not undo.
const flakyDDL = `
CREATE SEQUENCE flaky_calls;
CREATE TABLE done (txid BIGINT NOT NULL);
CREATE FUNCTION flaky() RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
	IF nextval('flaky_calls') = 1 THEN
		RAISE EXCEPTION 'flaky: first call fails' USING ERRCODE = 'serialization_failure';
	END IF;
	RETURN true;
END $$`

// TestRunTxPostgres runs, on the test server, a transaction whose first
// attempt fails with SQLSTATE 40001. PostgreSQL accepts CockroachDB's
// savepoint statements, so with the Cockroach dialect (forced, as Open
// would not pick it) the retry happens inside the transaction: both
// attempts see the same txid_current(). With the Postgres dialect the
// retry is a new transaction.
func TestRunTxPostgres(t *testing.T) {
	for _, tc := range []struct {
		d      dialect.Dialect
		sameTx bool
	}{
		{dialect.Cockroach{}, true},
		{dialect.Postgres{}, false},
	} {
		t.Run(tc.d.Name(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			db := testdb.Fresh(t, "stampede_runtx_test", sqlx.Options{MaxConns: 2, Workers: 1, Dialect: tc.d})
			if got := db.Dialect(); got != tc.d {
				t.Fatalf("Dialect() = %v, want %v as forced", got, tc.d)
			}
			if _, err := db.Exec(ctx, flakyDDL); err != nil {
				t.Fatal(err)
			}
			conn := db.Conn(0, true)
			defer conn.Release()

			rec := errorCounter{}
			var txids []int64
			var errs []error
			err := workload.RunTx(ctx, conn, db.Dialect(), sqlx.TxOptions{Isolation: sqlx.ReadCommitted}, rec, 0, "flaky",
				func(tx sqlx.Tx) error {
					var id int64
					if err := tx.QueryRow(ctx, "SELECT txid_current()").Scan(&id); err != nil {
						return err
					}
					txids = append(txids, id)
					if _, err := tx.Exec(ctx, "INSERT INTO done VALUES ($1)", id); err != nil {
						return err
					}
					var ok bool
					err := tx.QueryRow(ctx, "SELECT flaky()").Scan(&ok)
					errs = append(errs, err)
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) != 2 || sqlx.SQLState(errs[0]) != "40001" || errs[1] != nil {
				t.Fatalf("body's results %v, want a 40001 then success", errs)
			}
			if rec[0] != 1 {
				t.Errorf("%d retries counted, want 1", rec[0])
			}
			if same := txids[0] == txids[1]; same != tc.sameTx {
				t.Errorf("txids %v: same transaction %v, want %v", txids, same, tc.sameTx)
			}
			// The first attempt's insert was rolled back (to the savepoint,
			// or with its transaction); the second one's committed.
			var n, last int64
			if err := db.QueryRow(ctx, "SELECT count(*), max(txid) FROM done").Scan(&n, &last); err != nil {
				t.Fatal(err)
			}
			if n != 1 || last != txids[1] {
				t.Errorf("done holds %d rows, the last of txid %d; want 1 of %d", n, last, txids[1])
			}
		})
	}
}
