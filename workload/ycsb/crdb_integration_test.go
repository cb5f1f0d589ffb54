package ycsb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

// recorder counts what a worker records, by series name.
type recorder struct{ n, errs map[int]int }

func (r *recorder) Record(op int, _ time.Duration) { r.n[op]++ }
func (r *recorder) RecordError(op int, _ error)    { r.errs[op]++ }

// TestDeleteAndTxnReadModifyWrite runs cockroach's delete (deleteproportion)
// and its read-modify-write in a transaction with SELECT FOR UPDATE on the
// test server: deletes remove rows, and a transaction's read and update
// are recorded as a read-modify-write's parts.
func TestDeleteAndTxnReadModifyWrite(t *testing.T) {
	db := freshDB(t)
	ctx := context.Background()
	g, _ := newConfig(t, "--record-count", "300", "--workload", "a",
		"--read-proportion", "0", "--update-proportion", "0", "--read-modify-write-proportion", "0.5", "--delete-proportion", "0.5",
		"--read-modify-write-in-txn", "--request-distribution", "uniform")
	load(t, db, g)
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ql.Close(ctx) }()
	rec := &recorder{n: map[int]int{}, errs: map[int]int{}}
	ql.Attach(0, rec)
	done := map[string]int{}
	for range 200 {
		res := ql.Workers[0](ctx)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		done[ql.Ops[res.Op]]++
	}
	deleted := done["delete"]
	if deleted == 0 || done["read-modify-write"] == 0 {
		t.Fatalf("operations %v: want deletes and read-modify-writes", done)
	}
	if n := countRows(t, db); n != 300-int64(deleted) {
		t.Errorf("%d rows after %d deletes of distinct keys from 300 (%d deletes found none: %v)", n, deleted, done["delete/unexpected_state"], done)
	}
	if rec.n[layout.part[0]]+rec.n[layout.partFail[0][statusNotFound]] != done["read-modify-write"] {
		t.Errorf("parts %v for %d read-modify-writes", rec.n, done["read-modify-write"])
	}
	txn := g.rmwTxn(g.cfg.statements(db.Dialect()))
	if txn == nil || !strings.HasSuffix(txn.readAll, " FOR UPDATE") || !strings.HasPrefix(txn.readAll, "SELECT * FROM usertable WHERE ycsb_key = $1") {
		t.Errorf("read-modify-write's read in a transaction: %+v", txn)
	}
	if got := g.cfg.statements(db.Dialect()).del; got != "DELETE FROM usertable WHERE ycsb_key = $1" {
		t.Errorf("delete statement %q", got)
	}
}
