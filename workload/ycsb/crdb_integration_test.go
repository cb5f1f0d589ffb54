package ycsb

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// TestJSONLayout loads cockroach's --json layout and runs every operation
// on it: reads find the rows, updates merge a field into the object,
// inserts add objects, and check passes.
func TestJSONLayout(t *testing.T) {
	db := freshDB(t)
	ctx := context.Background()
	g, _ := newConfig(t, "--json", "--record-count", "200", "--workload", "a",
		"--read-proportion", "0.3", "--update-proportion", "0.3", "--insert-proportion", "0.2", "--scan-proportion", "0.1",
		"--read-modify-write-proportion", "0.1", "--read-all-fields=false")
	load(t, db, g)
	var nfields int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM jsonb_object_keys((SELECT field FROM usertable LIMIT 1))").Scan(&nfields); err != nil || nfields != 10 {
		t.Fatalf("a loaded row's object has %d fields (%v), want 10", nfields, err)
	}
	if err := g.Hooks().PreRun(ctx, db); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ql.Close(ctx) }()
	rec := &recorder{n: map[int]int{}, errs: map[int]int{}}
	ql.Attach(0, rec)
	done := map[string]int{}
	for range 300 {
		res := ql.Workers[0](ctx)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		done[ql.Ops[res.Op]]++
	}
	for _, op := range []string{"read", "update", "insert", "scan", "read-modify-write"} {
		if done[op] == 0 {
			t.Errorf("no %s succeeded: %v (errors %v)", op, done, rec.errs)
		}
	}
	if n := countRows(t, db); n != 200+int64(done["insert"]) {
		t.Errorf("%d rows after %d inserts into 200", n, done["insert"])
	}
	var bad int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM usertable WHERE (SELECT count(*) FROM jsonb_object_keys(field)) <> 10").Scan(&bad); err != nil || bad != 0 {
		t.Errorf("%d rows whose object lost or gained fields (%v)", bad, err)
	}
	var l lines
	if err := g.Hooks().CheckConsistency(ctx, db, &l); err != nil {
		t.Errorf("check: %v %v", err, l)
	}
}

// TestJSONLayoutMismatch runs each layout against a table of the other:
// the run is refused before it starts, naming --json.
func TestJSONLayoutMismatch(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		load, run []string
		want      string
	}{
		{[]string{"--json"}, nil, "loaded with --json"},
		{nil, []string{"--json"}, "loaded without --json"},
	} {
		db := freshDB(t)
		g, _ := newConfig(t, append([]string{"--record-count", "50"}, tc.load...)...)
		load(t, db, g)
		r, _ := newConfig(t, append([]string{"--record-count", "50"}, tc.run...)...)
		err := r.Hooks().PreRun(ctx, db)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("load %q, run %q: %v, want one line saying %q", tc.load, tc.run, err, tc.want)
		}
	}
}

// TestJSONTenants loads two tenants into one --json table and runs
// tenant 1's writes: tenant 2's rows stay as loaded.
func TestJSONTenants(t *testing.T) {
	db := freshDB(t)
	ctx := context.Background()
	args := []string{"--json", "--record-count", "100", "--workload", "a", "--read-proportion", "0.2", "--update-proportion", "0.2",
		"--insert-proportion", "0.2", "--delete-proportion", "0.2", "--scan-proportion", "0.1", "--read-modify-write-proportion", "0.1",
		"--write-all-fields"}
	g1, _ := newTenant(t, 1, args...)
	g2, _ := newTenant(t, 2, args...)
	load(t, db, g1)
	for _, tab := range g2.Tables() {
		for b := 0; b < tab.InitialRows.NumBatches; b++ {
			if _, err := db.CopyFrom(ctx, b, tab.Name, tab.Columns, pgx.CopyFromRows(tab.InitialRows.FillBatch(b, nil))); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := rawRows(t, db, "SELECT ycsb_key, field::text FROM usertable WHERE tenant_id = 2 ORDER BY ycsb_key")
	if len(before) != 100 {
		t.Fatalf("tenant 2 has %d rows, want 100", len(before))
	}
	if err := g1.Hooks().PreRun(ctx, db); err != nil {
		t.Fatal(err)
	}
	ql, err := g1.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ql.Close(ctx) }()
	done := map[string]int{}
	for range 300 {
		res := ql.Workers[0](ctx)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		done[ql.Ops[res.Op]]++
	}
	for _, op := range []string{"read", "update", "insert", "delete", "scan", "read-modify-write"} {
		if done[op] == 0 {
			t.Errorf("no %s succeeded: %v", op, done)
		}
	}
	if after := rawRows(t, db, "SELECT ycsb_key, field::text FROM usertable WHERE tenant_id = 2 ORDER BY ycsb_key"); !reflect.DeepEqual(after, before) {
		t.Errorf("tenant 1's run changed tenant 2's rows")
	}
	if n := tenantRows(t, db, 1); n != 100+int64(done["insert"])-int64(done["delete"]) {
		t.Errorf("tenant 1: %d rows after %d inserts and %d deletes into 100", n, done["insert"], done["delete"])
	}
}
