package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// fakeConn is a connection that logs the statements it is given, with
// their arguments, and fails those that fail says to. It is also its own
// transaction.
type fakeConn struct {
	t    testing.TB
	log  []string
	fail func(sql string) error
	// rollbacks counts ROLLBACKs, begins and commits BEGINs and COMMITs.
	rollbacks, begins, commits int
	open                       bool
}

var (
	_ sqlx.Conn = (*fakeConn)(nil)
	_ sqlx.Tx   = (*fakeConn)(nil)
)

func (f *fakeConn) note(sql string, args []any) error {
	var b strings.Builder
	b.WriteString(sql)
	for i, a := range args {
		if i == 0 {
			b.WriteString(" [")
		} else {
			b.WriteString(", ")
		}
		switch v := a.(type) {
		case *intArg:
			b.WriteString(strconv.FormatInt(v.v, 10))
		case []byte:
			if !cPattern.Match(v) && !padPattern.Match(v) {
				f.t.Errorf("%s: value %q is neither a c nor a pad", sql, v)
			}
			fmt.Fprintf(&b, "'%s'", v)
		default:
			f.t.Errorf("%s: argument %d has type %T", sql, i, a)
		}
		if i == len(args)-1 {
			b.WriteString("]")
		}
	}
	f.log = append(f.log, b.String())
	if f.fail != nil {
		return f.fail(sql)
	}
	return nil
}

func (f *fakeConn) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	return 1, f.note(sql, args)
}

func (f *fakeConn) Query(_ context.Context, sql string, args ...any) (sqlx.Rows, error) {
	if err := f.note(sql, args); err != nil {
		return nil, err
	}
	return emptyRows{}, nil
}

func (f *fakeConn) QueryRow(_ context.Context, sql string, args ...any) sqlx.Row {
	f.t.Errorf("QueryRow(%s): the workers use Query", sql)
	return nil
}

func (f *fakeConn) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	if f.open {
		f.t.Error("BEGIN inside a transaction")
	}
	f.begins++
	if err := f.note("BEGIN", nil); err != nil {
		return nil, err
	}
	f.open = true
	return f, nil
}

func (f *fakeConn) Commit(context.Context) error {
	f.commits++
	f.open = false
	return f.note("COMMIT", nil)
}

func (f *fakeConn) Rollback(context.Context) error {
	f.rollbacks++
	f.open = false
	f.log = append(f.log, "ROLLBACK")
	return nil
}

func (f *fakeConn) Release() {}

type emptyRows struct{}

func (emptyRows) Next() bool          { return false }
func (emptyRows) Scan(...any) error   { return nil }
func (emptyRows) Err() error          { return nil }
func (emptyRows) Close()              {}
func (emptyRows) RawValues() [][]byte { return nil }

// countRecorder counts what a worker records, by operation index.
type countRecorder struct {
	ops, errs []int
}

func newCountRecorder(n int) *countRecorder {
	return &countRecorder{ops: make([]int, n), errs: make([]int, n)}
}

func (r *countRecorder) Record(op int, d time.Duration) {
	if d < 0 {
		panic("negative latency")
	}
	r.ops[op]++
}

func (r *countRecorder) RecordError(op int, _ error) { r.errs[op]++ }

// byName returns the counts keyed by operation name, leaving out zeros.
func byName(names []string, counts []int) map[string]int {
	m := map[string]int{}
	for i, n := range counts {
		if n != 0 {
			m[names[i]] = n
		}
	}
	return m
}

func nullDB(t testing.TB) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// fakeWorker returns worker 0 of 1 of the workload on conn, with seed 1.
func fakeWorker(t testing.TB, g *generator, conn sqlx.Conn) (*opLayout, *worker) {
	layout, ws := g.workers(dialect.Postgres{}, workload.OpsConfig{Concurrency: 1, Seed: 1}, false, func(int) sqlx.Conn { return conn })
	return layout, ws[0]
}

// TestGoldenEvents checks the statements of one event of each workload
// with the default options (bulk_insert: three events and the final
// flush) against testdata/events.golden; -update rewrites it.
func TestGoldenEvents(t *testing.T) {
	ctx := context.Background()
	var out strings.Builder
	for _, s := range scripts {
		g := newGen(t, s.name)
		conn := &fakeConn{t: t}
		if s.event == nil {
			w := newBulkWorker("sbtest1", 0, 1, conn)
			for range 3 {
				if res := w.run(ctx); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			if err := w.flush(ctx, false); err != nil {
				t.Fatal(err)
			}
		} else {
			_, w := fakeWorker(t, g, conn)
			if res := w.run(ctx); res.Err != nil || res.Op != 0 {
				t.Fatalf("%s: %+v", s.name, res)
			}
		}
		fmt.Fprintf(&out, "# %s\n%s\n\n", s.name, strings.Join(conn.log, "\n"))
	}
	golden.Check(t, filepath.Join("testdata", "events.golden"), []byte(out.String()))
}

// TestEventCountsNull runs one event of each workload through Ops on the
// null driver and checks what it recorded.
func TestEventCountsNull(t *testing.T) {
	ctx := context.Background()
	db := nullDB(t)
	for _, tc := range []struct {
		name string
		args []string
		want map[string]int
	}{
		{"oltp_read_write", nil, map[string]int{
			"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1,
			"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "begin": 1, "commit": 1,
		}},
		{"oltp_read_write", []string{"--skip_trx", "--range_selects=off", "--point_selects=3", "--delete_inserts=2"}, map[string]int{
			"point_select": 3, "index_update": 1, "non_index_update": 1, "delete": 2, "insert": 2,
		}},
		{"oltp_read_write", []string{"--simple_ranges=2", "--sum_ranges=0", "--index_updates=4", "--non_index_updates=0"}, map[string]int{
			"point_select": 10, "simple_range": 2, "order_range": 1, "distinct_range": 1,
			"index_update": 4, "delete": 1, "insert": 1, "begin": 1, "commit": 1,
		}},
		{"oltp_read_only", nil, map[string]int{
			"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1, "begin": 1, "commit": 1,
		}},
		{"oltp_write_only", nil, map[string]int{
			"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "begin": 1, "commit": 1,
		}},
		{"oltp_point_select", []string{"--point_selects=7"}, map[string]int{"point_select": 1}},
		{"oltp_insert", nil, map[string]int{"insert": 1}},
		{"oltp_insert", []string{"--auto_inc=off"}, map[string]int{"insert": 1}},
		{"oltp_delete", nil, map[string]int{"delete": 1}},
		{"oltp_update_index", nil, map[string]int{"index_update": 1}},
		{"oltp_update_index", []string{"--index_updates=3"}, map[string]int{"index_update": 3}},
		{"oltp_update_non_index", nil, map[string]int{"non_index_update": 1}},
		{"select_random_points", nil, map[string]int{"random_points": 1}},
		{"select_random_ranges", nil, map[string]int{"random_ranges": 1}},
		{"bulk_insert", nil, map[string]int{}},
	} {
		t.Run(strings.Join(append([]string{tc.name}, tc.args...), " "), func(t *testing.T) {
			g := newGen(t, tc.name, tc.args...)
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = ql.Close(ctx) }()
			if ql.Ops[0] != "transaction" || ql.Classes[0] != workload.ClassTransaction || len(ql.Classes) != len(ql.Ops) {
				t.Fatalf("ops %q, classes %v", ql.Ops, ql.Classes)
			}
			for name := range tc.want {
				if !strings.Contains(strings.Join(ql.Ops, ","), name) {
					t.Errorf("ops %q lack %s", ql.Ops, name)
				}
			}
			recs := []*countRecorder{newCountRecorder(len(ql.Ops)), newCountRecorder(len(ql.Ops))}
			for i := range ql.Workers {
				ql.Attach(i, recs[i])
			}
			if res := ql.Workers[1](ctx); res.Err != nil || res.Op != 0 {
				t.Fatalf("event: %+v", res)
			}
			if got := byName(ql.Ops, recs[1].ops); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("one event recorded %v\nwant              %v", got, tc.want)
			}
			if got := byName(ql.Ops, recs[0].ops); len(got) != 0 {
				t.Errorf("the other worker recorded %v", got)
			}
			if got := byName(ql.Ops, recs[1].errs); len(got) != 0 {
				t.Errorf("errors %v", got)
			}
		})
	}
}

func TestOpsLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		ops  string
	}{
		{"oltp_read_write", nil, "transaction point_select simple_range sum_range order_range distinct_range index_update non_index_update delete insert begin commit index_update/no_rows non_index_update/no_rows delete/no_rows"},
		{"oltp_read_write", []string{"--skip_trx", "--range_selects=off"}, "transaction point_select index_update non_index_update delete insert index_update/no_rows non_index_update/no_rows delete/no_rows"},
		{"oltp_read_only", nil, "transaction point_select simple_range sum_range order_range distinct_range begin commit"},
		{"oltp_write_only", nil, "transaction index_update non_index_update delete insert begin commit index_update/no_rows non_index_update/no_rows delete/no_rows"},
		{"oltp_point_select", nil, "transaction point_select"},
		{"oltp_insert", nil, "transaction insert"},
		{"oltp_delete", nil, "transaction delete delete/no_rows"},
		{"oltp_update_index", nil, "transaction index_update index_update/no_rows"},
		{"oltp_update_non_index", nil, "transaction non_index_update non_index_update/no_rows"},
		{"bulk_insert", nil, "transaction insert"},
		{"select_random_points", nil, "transaction random_points"},
		{"select_random_ranges", nil, "transaction random_ranges"},
	} {
		ql, err := newGen(t, tc.name, tc.args...).Ops(context.Background(), nullDB(t), workload.OpsConfig{Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(ql.Ops, " "); got != tc.ops {
			t.Errorf("%s %q: ops %s\nwant %s", tc.name, tc.args, got, tc.ops)
		}
		for i, op := range ql.Ops {
			want := map[string]workload.OpClass{"transaction": workload.ClassTransaction, "begin": workload.ClassOther, "commit": workload.ClassOther}[op]
			if strings.HasSuffix(op, "/no_rows") {
				want = workload.ClassOther // sysbench's pgsql driver: no row affected
			} else if strings.Contains(op, "select") || strings.Contains(op, "range") || strings.Contains(op, "points") {
				want = workload.ClassRead
			} else if strings.Contains(op, "update") || op == "insert" || op == "delete" {
				want = workload.ClassWrite
			}
			if ql.Classes[i] != want {
				t.Errorf("%s: %s has class %v, want %v", tc.name, op, ql.Classes[i], want)
			}
		}
	}
}

func TestTableChoice(t *testing.T) {
	g := newGen(t, "oltp_read_write", "--tables=4", "--table_size=50")
	conn := &fakeConn{t: t}
	_, w := fakeWorker(t, g, conn)
	for range 200 {
		if res := w.run(context.Background()); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	tables := map[string]int{}
	for _, l := range conn.log {
		for n := 1; n <= 5; n++ {
			if strings.Contains(l, "sbtest"+strconv.Itoa(n)+" ") {
				tables["sbtest"+strconv.Itoa(n)]++
			}
		}
		if i := strings.Index(l, "WHERE id="); i >= 0 {
			id, err := strconv.Atoi(strings.Trim(l[strings.LastIndex(l, "[")+1:], "]"))
			if err != nil && !strings.HasPrefix(l, "UPDATE") {
				t.Fatalf("%s: %v", l, err)
			}
			if err == nil && (id < 1 || id > 50) {
				t.Errorf("%s: id out of [1, 50]", l)
			}
		}
	}
	if len(tables) != 4 {
		t.Errorf("statements went to %v", tables)
	}
	for name, n := range tables {
		if n < 200*18/4/2 {
			t.Errorf("%s got %d statements of %d", name, n, 200*18)
		}
	}
}

func TestSegments(t *testing.T) {
	// select_random_* worker w of n draws k from [w, w+1] × table_size/n
	// (truncated): sb_rand(rmin, rmax).
	g := newGen(t, "select_random_points", "--table_size=1000", "--rand-type=uniform")
	seen := make([][2]int64, 3)
	for w := range 3 {
		seg := g.segment(w, 3)
		lo, hi := int64(1<<62), int64(-1)
		r := randgen.New(1, uint64(w))
		for range 20000 {
			v := seg.Next(r)
			lo, hi = min(lo, v), max(hi, v)
		}
		seen[w] = [2]int64{lo, hi}
	}
	if want := [][2]int64{{0, 333}, {333, 666}, {666, 1000}}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("segments %v, want %v", seen, want)
	}
}

func TestRestarts(t *testing.T) {
	ctx := context.Background()
	pgErr := func(code string) error { return fmt.Errorf("boom: %w", &pgconn.PgError{Code: code}) }
	for _, tc := range []struct {
		name      string
		failAt    string // a statement prefix
		err       error
		failures  int // how many times it fails
		wantErr   string
		restarts  int
		rollbacks int
	}{
		{"deadlock", "DELETE", pgErr("40P01"), 1, "", 1, 1},
		{"serialization at commit", "COMMIT", pgErr("40001"), 2, "", 2, 0}, // a failed COMMIT ends the transaction
		{"duplicate key", "INSERT", pgErr("23505"), 3, "", 3, 3},
		{"lost connection", "UPDATE", io.ErrUnexpectedEOF, 2, "", 2, 2},
		{"lost connection at begin", "BEGIN", io.ErrUnexpectedEOF, 1, "", 1, 0},
		{"other error", "SELECT", pgErr("42P01"), 1, "point_select: boom: :  (SQLSTATE 42P01)", 0, 1},
		{"endless conflicts", "UPDATE", pgErr("40001"), 1000, "event restarted 100 times, giving up: index_update: boom: :  (SQLSTATE 40001)", 100, 101},
		{"server gone", "BEGIN", io.ErrUnexpectedEOF, 1000, "connection lost 6 times in a row: begin: unexpected EOF", 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			left := tc.failures
			conn := &fakeConn{t: t, fail: func(sql string) error {
				if strings.HasPrefix(sql, tc.failAt) && left > 0 {
					left--
					return tc.err
				}
				return nil
			}}
			layout, w := fakeWorker(t, newGen(t, "oltp_read_write"), conn)
			rec := newCountRecorder(len(layout.names))
			w.rec = rec
			start := time.Now()
			res := w.run(ctx)
			if tc.name == "server gone" && time.Since(start) < 700*time.Millisecond {
				t.Errorf("gave up after %s, without backing off", time.Since(start))
			}
			got := ""
			if res.Err != nil {
				got = res.Err.Error()
			}
			if got != tc.wantErr || res.Op != 0 {
				t.Errorf("result op %d, error %q\nwant error %q", res.Op, got, tc.wantErr)
			}
			if rec.errs[0] != tc.restarts {
				t.Errorf("%d errors recorded, want %d", rec.errs[0], tc.restarts)
			}
			if conn.rollbacks != tc.rollbacks {
				t.Errorf("%d rollbacks, want %d", conn.rollbacks, tc.rollbacks)
			}
			if conn.open {
				t.Error("transaction left open")
			}
			if tc.wantErr == "" && rec.ops[layout.index[kCommit]] != 1 {
				t.Errorf("%d commits recorded", rec.ops[layout.index[kCommit]])
			}
		})
	}
}

func TestSkipTrxRestart(t *testing.T) {
	// Without a transaction there is nothing to roll back.
	fails := 1
	conn := &fakeConn{t: t, fail: func(sql string) error {
		if strings.HasPrefix(sql, "INSERT") && fails > 0 {
			fails--
			return &pgconn.PgError{Code: "23505"}
		}
		return nil
	}}
	_, w := fakeWorker(t, newGen(t, "oltp_write_only", "--skip_trx"), conn)
	if res := w.run(context.Background()); res.Err != nil {
		t.Fatal(res.Err)
	}
	if conn.rollbacks != 0 || conn.begins != 0 {
		t.Errorf("%d rollbacks, %d begins", conn.rollbacks, conn.begins)
	}
	if n := strings.Count(strings.Join(conn.log, "\n"), "DELETE"); n != 2 {
		t.Errorf("%d deletes, want 2 (the event restarted once)", n)
	}
}

func TestCancelledEvent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	conn := &fakeConn{t: t, fail: func(sql string) error {
		if strings.HasPrefix(sql, "UPDATE") {
			cancel()
			return errors.New("interrupted")
		}
		return nil
	}}
	_, w := fakeWorker(t, newGen(t, "oltp_read_write"), conn)
	res := w.run(ctx)
	if !errors.Is(res.Err, context.Canceled) {
		t.Errorf("error %v, want one wrapping context.Canceled", res.Err)
	}
	if conn.rollbacks != 1 {
		t.Errorf("%d rollbacks", conn.rollbacks)
	}
}

func TestBulkFlush(t *testing.T) {
	ctx := context.Background()
	conn := &fakeConn{t: t}
	w := newBulkWorker("sbtest3", 41, 1, conn)
	rec := newCountRecorder(2)
	w.rec = rec
	events := 0
	for len(conn.log) < 2 {
		if res := w.run(ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
		events++
	}
	first := conn.log[0]
	if !strings.HasPrefix(first, "INSERT INTO sbtest3 VALUES(42,42),(43,43),") {
		t.Fatalf("statement starts %.60s", first)
	}
	if len(first) > bulkMaxStatement-1 || len(first) < bulkMaxStatement-30 {
		t.Errorf("statement of %d bytes, sysbench's buffer is %d", len(first), bulkMaxStatement)
	}
	rows := strings.Count(first, "(")
	second := conn.log[1]
	if !strings.HasPrefix(second, fmt.Sprintf("INSERT INTO sbtest3 VALUES(%d,%d),", 42+rows, 42+rows)) {
		t.Errorf("second statement starts %.60s after %d rows", second, rows)
	}
	if rec.ops[1] != 2 {
		t.Errorf("%d inserts recorded", rec.ops[1])
	}
}

// BenchmarkEventNull measures the workload's own cost per event on the
// null driver.
func BenchmarkEventNull(b *testing.B) {
	ctx := context.Background()
	db := nullDB(b)
	for _, s := range scripts {
		b.Run(s.name, func(b *testing.B) {
			g := newGen(b, s.name)
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			ql.Attach(0, newCountRecorder(len(ql.Ops)))
			w := ql.Workers[0]
			b.ReportAllocs()
			for b.Loop() {
				if res := w(ctx); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

func TestEventAllocsNull(t *testing.T) {
	ctx := context.Background()
	for _, s := range scripts {
		if s.event == nil {
			continue // bulk_insert allocates its statement text once per 512 KiB
		}
		ql, err := newGen(t, s.name).Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		ql.Attach(0, newCountRecorder(len(ql.Ops)))
		if allocs := testing.AllocsPerRun(200, func() { ql.Workers[0](ctx) }); allocs != 0 {
			t.Errorf("%s: an event allocates %v times", s.name, allocs)
		}
	}
}
