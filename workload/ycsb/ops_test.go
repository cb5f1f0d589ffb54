package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

func nullDB(t testing.TB) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestStatements(t *testing.T) {
	_, c := newConfig(t, "--field-count", "3")
	s := c.statements(dialect.Postgres{})
	for _, tc := range []struct{ got, want string }{
		{s.readAll, "SELECT * FROM usertable WHERE ycsb_key = $1"},
		{s.readField[2], "SELECT field2 FROM usertable WHERE ycsb_key = $1"},
		{s.updateAll, "UPDATE usertable SET field0 = $1, field1 = $2, field2 = $3 WHERE ycsb_key = $4"},
		{s.updateField[1], "UPDATE usertable SET field1 = $1 WHERE ycsb_key = $2"},
		{s.insert, "INSERT INTO usertable (ycsb_key, field0, field1, field2) VALUES ($1, $2, $3, $4)"},
		{s.scan, "SELECT * FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

func TestOpMixNull(t *testing.T) {
	const calls = 200000
	ctx := context.Background()
	db := nullDB(t)
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run(letter, func(t *testing.T) {
			g, c := newConfig(t, "--workload", letter)
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 4, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = ql.Close(ctx) }()
			if got := strings.Join(ql.Ops, ","); got != "read,update,insert,scan,read-modify-write,delete,"+
				"read/not_found,read/error,update/unexpected_state,update/error,insert/error,scan/error,"+
				"delete/unexpected_state,delete/error,"+
				"read-modify-write/read,read-modify-write/read/not_found,read-modify-write/read/error,"+
				"read-modify-write/update,read-modify-write/update/unexpected_state,read-modify-write/update/error,"+
				"scan/per-record" {
				t.Fatalf("ops %q", ql.Ops)
			}
			if len(ql.Workers) != 4 {
				t.Fatalf("%d workers", len(ql.Workers))
			}
			var counts [numOps]int
			for i := 0; i < calls; i++ {
				res := ql.Workers[i%len(ql.Workers)](ctx)
				if res.Err != nil || res.Op >= numOps {
					t.Fatalf("call %d: %s, %v", i, ql.Ops[res.Op], res.Err)
				}
				counts[res.Op]++
			}
			for op, n := range counts {
				got := float64(n) / calls
				if math.Abs(got-c.proportions[op]) > 0.01 {
					t.Errorf("%s: %.4f of calls, want %.4f", opNames[op], got, c.proportions[op])
				}
			}
		})
	}
}

func TestOpsDeterministic(t *testing.T) {
	ctx := context.Background()
	db := nullDB(t)
	run := func(seed uint64) []int {
		g, _ := newConfig(t, "--workload", "a")
		ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		ops := make([]int, 100)
		for i := range ops {
			ops[i] = ql.Workers[0](ctx).Op
		}
		return ops
	}
	if a, b := fmt.Sprint(run(1)), fmt.Sprint(run(1)); a != b {
		t.Error("the same seed gave different operations")
	}
	if a, b := fmt.Sprint(run(1)), fmt.Sprint(run(2)); a == b {
		t.Error("different seeds gave the same operations")
	}
}

// boundsConn is a fake connection that checks every key it is given
// against the shared insert counter.
type boundsConn struct {
	t       testing.TB
	c       *config
	inserts *randgen.AcknowledgedCounter

	mu       sync.Mutex
	inserted map[int64]int
	reads    int
}

func (b *boundsConn) keynum(arg any) int64 {
	key := string(arg.([]byte))
	n, err := strconv.ParseInt(strings.TrimPrefix(key, keyPrefix), 10, 64)
	if err != nil {
		b.t.Errorf("key %q: %v", key, err)
	}
	return n
}

func (b *boundsConn) checkRead(arg any) {
	k := b.keynum(arg)
	if last := b.inserts.Last(); k > last || k < 0 {
		b.t.Errorf("key %d chosen beyond the last acknowledged insert %d", k, last)
	}
	b.mu.Lock()
	b.reads++
	b.mu.Unlock()
}

func (b *boundsConn) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	if strings.HasPrefix(sql, "INSERT") {
		k := b.keynum(args[0])
		b.mu.Lock()
		b.inserted[k]++
		b.mu.Unlock()
		return 1, nil
	}
	b.checkRead(args[len(args)-1])
	return 1, nil
}

func (b *boundsConn) Query(_ context.Context, _ string, args ...any) (sqlx.Rows, error) {
	b.checkRead(args[0])
	return &oneRow{}, nil
}

func (b *boundsConn) QueryRow(_ context.Context, _ string, args ...any) sqlx.Row {
	b.checkRead(args[0])
	return okRow{}
}

func (b *boundsConn) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	return nil, errors.New("no transactions")
}

func (b *boundsConn) Release() {}

type okRow struct{}

func (okRow) Scan(...any) error { return nil }

// oneRow is a result of one empty row: every key a test reads exists.
type oneRow struct{ done bool }

func (r *oneRow) Next() bool {
	ok := !r.done
	r.done = true
	return ok
}
func (*oneRow) Scan(...any) error   { return nil }
func (*oneRow) RawValues() [][]byte { return nil }
func (*oneRow) Err() error          { return nil }
func (*oneRow) Close()              {}

func TestKeysWithinInserts(t *testing.T) {
	const workers, calls = 4, 20000
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"latest", []string{"--workload", "d"}},
		{"zipfian", []string{"--workload", "e"}},
		{"exponential", []string{"--workload", "d", "--request-distribution", "exponential"}},
		{"uniform", []string{"--workload", "d", "--request-distribution", "uniform"}},
		{"hotspot", []string{"--workload", "d", "--request-distribution", "hotspot"}},
		{"sequential", []string{"--workload", "d", "--request-distribution", "sequential"}},
		{"insert only", []string{"-p", "readproportion=0", "-p", "updateproportion=0", "-p", "insertproportion=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--record-count", "1000", "--insert-order", "ordered"}, tc.args...)
			_, c := newConfig(t, args...)
			inserts := randgen.NewAcknowledgedCounter(c.recordCount)
			conn := &boundsConn{t: t, c: c, inserts: inserts, inserted: map[int64]int{}}
			s := c.statements(dialect.Postgres{})
			var seq *atomic.Int64
			if c.requestDist == distSequential {
				seq = new(atomic.Int64)
			}
			var wg sync.WaitGroup
			for i := 0; i < workers; i++ {
				w := newWorker(c, s, conn, randgen.New(3, workerStream(i)), inserts, seq)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := 0; j < calls; j++ {
						if res := w.run(context.Background()); res.Err != nil {
							t.Errorf("%s: %v", opNames[res.Op], res.Err)
							return
						}
					}
				}()
			}
			wg.Wait()
			n := int64(len(conn.inserted))
			if want := c.proportions[opInsert] * workers * calls; math.Abs(float64(n)-want) > want*0.1+1 {
				t.Errorf("%d inserts, expected about %.0f", n, want)
			}
			for k := c.recordCount; k < c.recordCount+n; k++ {
				if conn.inserted[k] != 1 {
					t.Fatalf("key %d inserted %d times: inserts are not consecutive from recordcount", k, conn.inserted[k])
				}
			}
			if last := inserts.Last(); last != c.recordCount+n-1 {
				t.Errorf("last acknowledged insert %d, want %d", last, c.recordCount+n-1)
			}
		})
	}
}

func TestSequential(t *testing.T) {
	_, c := newConfig(t, "--record-count", "5", "--insert-order", "ordered", "--request-distribution", "sequential")
	w := newWorker(c, c.statements(dialect.Postgres{}), nil, randgen.New(1, 1), randgen.NewAcknowledgedCounter(5), new(atomic.Int64))
	var got []int64
	for i := 0; i < 7; i++ {
		got = append(got, w.nextKeynum())
	}
	if fmt.Sprint(got) != "[0 1 2 3 4 0 1]" {
		t.Errorf("sequential keys %v", got)
	}
}

func TestMissingRowNull(t *testing.T) {
	// The null driver finds every key: reads and updates succeed.
	ctx := context.Background()
	g, _ := newConfig(t, "--workload", "f", "--write-all-fields", "--read-all-fields=false")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if res := ql.Workers[0](ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
}

func TestOpsWarn(t *testing.T) {
	g, _ := newConfig(t, "-p", "mystery=4")
	var warned []string
	_, err := g.Ops(context.Background(), nullDB(t), workload.OpsConfig{
		Concurrency: 1,
		Warn:        func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "mystery") {
		t.Errorf("warnings %q", warned)
	}
}

func TestWorkerAllocs(t *testing.T) {
	ctx := context.Background()
	g, _ := newConfig(t, "--workload", "c")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := ql.Workers[0]
	if allocs := testing.AllocsPerRun(1000, func() { w(ctx) }); allocs != 0 {
		t.Errorf("a read allocates %v times", allocs)
	}
}

func BenchmarkWorkerNull(b *testing.B) {
	ctx := context.Background()
	db := nullDB(b)
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		b.Run(letter, func(b *testing.B) {
			g, _ := newConfig(b, "--workload", letter)
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			w := ql.Workers[0]
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := w(ctx); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
