package ycsb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

// logConn is a fake connection that logs each statement and its
// arguments as text, and finds one row for every read, update and scan.
type logConn struct{ log []string }

func (l *logConn) add(sql string, params []string) {
	l.log = append(l.log, sql+" "+strings.Join(params, "|"))
}

func (l *logConn) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	l.add(sql, argText(args))
	return 1, nil
}

func (l *logConn) Query(_ context.Context, sql string, args ...any) (sqlx.Rows, error) {
	l.add(sql, argText(args))
	return &oneRow{}, nil
}

func (l *logConn) QueryRow(context.Context, string, ...any) sqlx.Row { return okRow{} }

func (l *logConn) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	return nil, errors.New("no transactions")
}

func (l *logConn) Release() {}

// argText is the text of the arguments the pgx path binds.
func argText(args []any) []string {
	s := make([]string, len(args))
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			s[i] = string(b)
		} else {
			s[i] = fmt.Sprint(a)
		}
	}
	return s
}

// rawLogConn is a logConn with the fast path: it logs QueryRaw's
// parameters.
type rawLogConn struct{ logConn }

func (l *rawLogConn) QueryRaw(_ context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	s := make([]string, len(params))
	for i, p := range params {
		s[i] = string(p)
	}
	l.add(sql, s)
	if row != nil {
		row([][]byte{[]byte("k"), []byte("v")})
	}
	return 1, nil
}

// TestRawPath checks that a worker on a connection with the fast path
// (sqlx.RawQuerier) sends the statements, in the order and with the
// parameters, that the same worker sends through Query and Exec, with and
// without a tenant, and that the fast path allocates nothing.
func TestRawPath(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tenant int
		args   []string
	}{
		{"a", 0, []string{"--workload", "a"}},
		{"e", 0, []string{"--workload", "e", "-p", "maxscanlength=1000"}},
		{"f all fields", 0, []string{"--workload", "f", "--write-all-fields", "--read-all-fields=false"}},
		{"insert only", 0, []string{"-p", "readproportion=0", "-p", "updateproportion=0", "-p", "insertproportion=1"}},
		{"tenant", 7, []string{"-p", "readproportion=0.3", "-p", "updateproportion=0.3", "-p", "scanproportion=0.2", "-p", "insertproportion=0.2"}},
		{"tenant all fields", 300, []string{"--workload", "f", "-p", "readproportion=0.3", "-p", "scanproportion=0.2", "--write-all-fields"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newTenant(t, tc.tenant, append([]string{"--record-count", "1000"}, tc.args...)...)
			s := c.statements(dialect.Postgres{})
			run := func(conn sqlx.Conn) *worker {
				w := newWorker(c, s, conn, randgen.New(5, workerStream(0)), randgen.NewAcknowledgedCounter(c.recordCount), nil)
				for i := 0; i < 2000; i++ {
					if res := w.run(ctx); res.Err != nil {
						t.Fatalf("%s: %v", opNames[res.Op], res.Err)
					}
				}
				return w
			}
			slow, fast := &logConn{}, &rawLogConn{}
			if w := run(slow); w.raw != nil {
				t.Fatal("a Conn without QueryRaw took the fast path")
			}
			if w := run(fast); w.raw == nil {
				t.Fatal("a RawQuerier did not take the fast path")
			}
			if len(slow.log) != len(fast.log) {
				t.Fatalf("%d statements through Query and Exec, %d through QueryRaw", len(slow.log), len(fast.log))
			}
			for i := range slow.log {
				if slow.log[i] != fast.log[i] {
					t.Fatalf("statement %d:\nQuery/Exec %s\nQueryRaw   %s", i, slow.log[i], fast.log[i])
				}
			}
		})
	}
}

// nopRawConn is a fast-path connection that does nothing: a read finds
// one row.
type nopRawConn struct{ logConn }

func (nopRawConn) QueryRaw(_ context.Context, _ string, _ [][]byte, row func([][]byte)) (int64, error) {
	if row != nil {
		row(nil)
	}
	return 1, nil
}

func TestRawWorkerAllocs(t *testing.T) {
	ctx := context.Background()
	for _, letter := range []string{"a", "c", "e", "f"} {
		_, c := newTenant(t, 3, "--workload", letter)
		w := newWorker(c, c.statements(dialect.Postgres{}), &nopRawConn{}, randgen.New(1, 1), randgen.NewAcknowledgedCounter(c.recordCount), nil)
		if allocs := testing.AllocsPerRun(1000, func() { w.run(ctx) }); allocs != 0 {
			t.Errorf("workload %s: an operation allocates %v times", letter, allocs)
		}
	}
}
