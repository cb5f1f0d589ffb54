package ycsb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// freshDB creates a database with a random name on the server of
// STAMPEDE_TEST_DATABASE (skipping the test when it is unset), opens it,
// and drops it when the test ends.
func freshDB(t testing.TB) *sqlx.DB {
	t.Helper()
	return testdb.Fresh(t, "stampede_ycsb_test", sqlx.Options{MaxConns: 16})
}

// load does what the engine's loader does: creates the tables, copies in
// their batches and creates their indexes.
func load(t testing.TB, db *sqlx.DB, g workload.Generator) {
	t.Helper()
	ctx := context.Background()
	for _, tab := range g.Tables() {
		if _, err := db.Exec(ctx, db.Dialect().CreateTable(tab.Name, tab.Schema)); err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		var total int64
		for b := 0; b < tab.InitialRows.NumBatches; b++ {
			rows = tab.InitialRows.FillBatch(b, rows[:0])
			n, err := db.CopyFrom(ctx, b, tab.Name, tab.Columns, pgx.CopyFromRows(rows))
			if err != nil {
				t.Fatalf("loading %s batch %d: %v", tab.Name, b, err)
			}
			total += n
		}
		if total != tab.InitialRows.NumRows {
			t.Fatalf("loaded %d rows into %s, want %d", total, tab.Name, tab.InitialRows.NumRows)
		}
		for _, idx := range tab.Indexes {
			if _, err := db.Exec(ctx, idx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func countRows(t testing.TB, db *sqlx.DB) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM usertable").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPostgres(t *testing.T) {
	db := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const records = 2500
	base := []string{"--record-count", fmt.Sprint(records)}
	g, c := newConfig(t, base...)

	// Before init: one-line errors that say what to do.
	want := "table usertable does not exist in database " + db.Database() + ": run `stampede init ycsb` first"
	if err := g.Hooks().PreRun(ctx, db); err == nil || err.Error() != want {
		t.Errorf("PreRun before init: %v, want %s", err, want)
	}
	if _, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1}); err == nil || err.Error() != want {
		t.Errorf("Ops before init: %v, want %s", err, want)
	}

	load(t, db, g)
	if err := g.Hooks().PreRun(ctx, db); err != nil {
		t.Fatalf("PreRun: %v", err)
	}
	wide, _ := newConfig(t, append(base, "--field-count", "11")...)
	if err := wide.Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "has no column field10") {
		t.Errorf("PreRun with more fields: %v", err)
	}
	var rep lines
	if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
		t.Fatalf("CheckConsistency: %v (%q)", err, rep)
	}
	if want := []string{
		"usertable: 2500 rows (expected at least 2500) PASS",
		"usertable: 2500 of 2500 loaded keys present PASS",
	}; strings.Join(rep, "\n") != strings.Join(want, "\n") {
		t.Errorf("check output %q, want %q", rep, want)
	}
	var field string
	if err := db.QueryRow(ctx, "SELECT field3 FROM usertable WHERE ycsb_key = $1", c.keyName(17)).Scan(&field); err != nil {
		t.Fatal(err)
	} else if len(field) != 100 {
		t.Errorf("field3 of key 17 has length %d", len(field))
	}

	// Each operation type on its own, through the workers.
	only := func(op int) []string {
		args := append([]string(nil), base...)
		for i, p := range opProperties {
			v := "0"
			if i == op {
				v = "1"
			}
			args = append(args, "-p", p+"="+v)
		}
		return args
	}
	const calls = 300
	for op := range opDelete { // YCSB's operations (delete's test: crdb_integration_test.go)
		for _, variant := range [][]string{nil, {"--read-all-fields=false", "--write-all-fields"}} {
			t.Run(opNames[op]+strings.Join(variant, ""), func(t *testing.T) {
				g, _ := newConfig(t, append(only(op), variant...)...)
				before := countRows(t, db)
				ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 3, Seed: uint64(op)})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = ql.Close(ctx) }() // a leaked connection would hang db.Close
				for i := 0; i < calls; i++ {
					res := ql.Workers[i%3](ctx)
					if res.Op != op || res.Err != nil {
						t.Fatalf("call %d: op %s, error %v", i, opNames[res.Op], res.Err)
					}
				}
				if err := ql.Close(ctx); err != nil {
					t.Fatal(err)
				}
				after := countRows(t, db)
				wantRows := before
				if op == opInsert {
					wantRows += calls
				}
				if after != wantRows {
					t.Errorf("%d rows after %d %ss, want %d", after, calls, opNames[op], wantRows)
				}
			})
		}
	}

	// A mixed run with inserts, after the inserts above: keys do not collide.
	t.Run("workload d twice", func(t *testing.T) {
		for run := 0; run < 2; run++ {
			func() {
				g, _ := newConfig(t, append(base, "--workload", "d", "--request-distribution", "latest")...)
				ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 4, Seed: 9})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = ql.Close(ctx) }()
				for i := 0; i < 2000; i++ {
					if res := ql.Workers[i%4](ctx); res.Err != nil || res.Op >= numOps {
						t.Fatalf("run %d call %d: %s: %v", run, i, ql.Ops[res.Op], res.Err)
					}
				}
			}()
		}
	})

	// Two clients that split the table run workload d at once, twice:
	// every read finds its row and no insert collides.
	t.Run("workload d split", func(t *testing.T) {
		for run := 0; run < 2; run++ {
			before := countRows(t, db)
			var wg sync.WaitGroup
			var inserts [2]int
			var mu sync.Mutex
			for client, start := range []int{0, records / 2} {
				g, _ := newConfig(t, append(base, "--workload", "d", "--insert-start", fmt.Sprint(start),
					"--insert-count", fmt.Sprint(records/2))...)
				ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 3, Seed: uint64(run)})
				if err != nil {
					t.Fatal(err)
				}
				for w := range ql.Workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < 1000; i++ {
							res := ql.Workers[w](ctx)
							if res.Err != nil || res.Op >= numOps {
								t.Errorf("client at %d, run %d, worker %d: %s: %v", start, run, w, ql.Ops[res.Op], res.Err)
								return
							}
							if res.Op == opInsert {
								mu.Lock()
								inserts[client]++
								mu.Unlock()
							}
						}
					}()
				}
				defer func() { _ = ql.Close(ctx) }()
			}
			wg.Wait()
			if after := countRows(t, db); after != before+int64(inserts[0]+inserts[1]) || inserts[0] == 0 || inserts[1] == 0 {
				t.Errorf("run %d: %d rows after %v inserts, %d before", run, after, inserts, before)
			}
		}
	})

	// Both paths: the fast one of a dedicated connection, and pgx's.
	for _, path := range []string{"raw", "pgx"} {
		t.Run("direct/"+path, func(t *testing.T) {
			testDirect(t, db, base, path)
		})
	}

	rep = nil
	if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
		t.Errorf("CheckConsistency after the runs: %v (%q)", err, rep)
	}
}

// testDirect runs a worker's operations one by one on a dedicated
// connection, through its fast path (path "raw") or through pgx ("pgx").
func testDirect(t *testing.T, db *sqlx.DB, base []string, path string) {
	ctx := context.Background()
	_, c := newConfig(t, base...)
	var conn sqlx.Conn = db.Conn(0, true)
	defer conn.Release()
	if path == "pgx" {
		conn = pgxOnly{conn}
	}
	w := newWorker(c, c.statements(db.Dialect()), conn, randgen.New(1, 1), randgen.NewAcknowledgedCounter(1<<40), nil)
	if (w.raw != nil) != (path == "raw") {
		t.Fatalf("path %s: worker's fast path %v", path, w.raw)
	}
	if err := w.read(ctx, w.setKey(5)); err != nil {
		t.Fatal(err)
	}
	if want := len(c.keyName(5)) + 10*100; w.rows != 1 || w.received != want {
		t.Errorf("read of key 5 received %d rows, %d bytes; want 1 row, %d bytes", w.rows, w.received, want)
	}
	if err := w.scan(ctx, w.setKey(5)); err != nil {
		t.Fatal(err)
	}
	if w.rows < 1 || w.received < w.rows*1000 {
		t.Errorf("scan from %s received %d rows, %d bytes", c.keyName(5), w.rows, w.received)
	}
	missing := int64(1 << 39)
	if err := w.read(ctx, w.setKey(missing)); !errors.Is(err, ErrNotFound) {
		t.Errorf("read of a missing key: %v", err)
	}
	if err := w.update(ctx, w.setKey(missing)); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of a missing key: %v", err)
	}
	w.inserts = randgen.NewAcknowledgedCounter(3) // key 3 exists
	if err := w.insert(ctx); err == nil || sqlx.SQLState(err) != "23505" {
		t.Errorf("insert of an existing key: %v", err)
	}
	if got := w.inserts.Last(); got != 3 {
		t.Errorf("failed insert not acknowledged: last %d", got)
	}
}

// pgxOnly hides a Conn's fast path (sqlx.RawQuerier): the worker then
// runs its statements through Query and Exec, as on shared connections.
type pgxOnly struct{ sqlx.Conn }

// BenchmarkWorkerPostgres runs workloads a and c on one worker against
// STAMPEDE_TEST_DATABASE, through the fast path (raw) and through pgx,
// with a context that can be cancelled, as the engine's.
func BenchmarkWorkerPostgres(b *testing.B) {
	db := freshDB(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := []string{"--record-count", "10000"}
	g, _ := newConfig(b, base...)
	load(b, db, g)
	for _, letter := range []string{"a", "c"} {
		for _, path := range []string{"raw", "pgx"} {
			b.Run(letter+"/"+path, func(b *testing.B) {
				_, c := newConfig(b, append(base, "--workload", letter)...)
				var conn sqlx.Conn = db.Conn(0, true)
				defer conn.Release()
				if path == "pgx" {
					conn = pgxOnly{conn}
				}
				w := newWorker(c, c.statements(db.Dialect()), conn, randgen.New(1, 1), randgen.NewAcknowledgedCounter(c.recordCount-1), nil)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if res := w.run(ctx); res.Err != nil {
						b.Fatal(res.Err)
					}
				}
			})
		}
	}
}

// TestPostgresEncodeMatchesFill loads usertable through FillBatch and pgx
// (load) into one database and through the loader's fast path
// (EncodeBatch) into another, and checks that they hold the same rows,
// for constant and drawn value lengths, ordered keys and a tenant column.
func TestPostgresEncodeMatchesFill(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tenant int
		args   []string
	}{
		{"defaults", 0, nil},
		{"zipfian lengths, ordered keys", 0, []string{"--field-length-distribution", "zipfian", "--insert-order", "ordered", "--field-count", "4"}},
		{"tenant column", 5, []string{"--field-length-distribution", "uniform"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--record-count", "2345"}, tc.args...)
			var sums [2]string
			for i, encode := range []bool{false, true} {
				g, _ := newConfig(t, args...)
				g.SetSeed(9)
				if tc.tenant != 0 {
					g.SetTenant(tc.tenant)
				}
				db := freshDB(t)
				if encode {
					if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2, BatchesPerCopy: 1, SkipAnalyze: true}); err != nil {
						t.Fatal(err)
					}
				} else {
					load(t, db, g)
				}
				if err := db.QueryRow(ctx, "SELECT count(*) || ' ' || md5(string_agg(u::text, ';' ORDER BY u::text)) FROM usertable u").Scan(&sums[i]); err != nil {
					t.Fatal(err)
				}
			}
			if sums[0] != sums[1] || !strings.HasPrefix(sums[0], "2345 ") {
				t.Errorf("rows (count, md5) loaded through FillBatch: %s; through EncodeBatch: %s", sums[0], sums[1])
			}
		})
	}
}
