package workload_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// The statements RunTx sends, as fakeConn logs them. The body's
// statement is "body".
const (
	begin      = "BEGIN"
	commit     = "COMMIT"
	rollback   = "ROLLBACK"
	savepoint  = "SAVEPOINT cockroach_restart"
	release    = "RELEASE SAVEPOINT cockroach_restart"
	rollbackTo = "ROLLBACK TO SAVEPOINT cockroach_restart"
	body       = "body"
)

var (
	errConflict = &pgconn.PgError{Severity: "ERROR", Code: "40001", Message: "restart transaction"}
	errDeadlock = &pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"}
	errUnique   = &pgconn.PgError{Severity: "ERROR", Code: "23505", Message: "duplicate key value"}
	errLost     = fmt.Errorf("reading: %w", io.ErrUnexpectedEOF)
	// errIntended is a workload's own rollback sentinel, as tpcc's.
	errIntended = fmt.Errorf("intended rollback: %w", workload.ErrRollback)
)

// fakeConn is a sqlx.Conn, and the sqlx.Tx it begins, that logs the
// statements it is sent and fails them as its script says.
type fakeConn struct {
	log []string
	// fail holds, per statement, the results of its next calls: nil for
	// success. A statement without entries left succeeds.
	fail map[string][]error
	// always, when set, is the result of every call of that statement.
	always map[string]error
	opts   []sqlx.TxOptions
}

func (c *fakeConn) do(stmt string) error {
	c.log = append(c.log, stmt)
	if err, ok := c.always[stmt]; ok {
		return err
	}
	if q := c.fail[stmt]; len(q) > 0 {
		c.fail[stmt] = q[1:]
		return q[0]
	}
	return nil
}

func (c *fakeConn) Exec(_ context.Context, sql string, _ ...any) (int64, error) {
	return 0, c.do(sql)
}

func (c *fakeConn) Query(context.Context, string, ...any) (sqlx.Rows, error) { panic("unused") }
func (c *fakeConn) QueryRow(context.Context, string, ...any) sqlx.Row        { panic("unused") }

func (c *fakeConn) Begin(_ context.Context, opts sqlx.TxOptions) (sqlx.Tx, error) {
	c.opts = append(c.opts, opts)
	if err := c.do(begin); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *fakeConn) Commit(context.Context) error   { return c.do(commit) }
func (c *fakeConn) Rollback(context.Context) error { return c.do(rollback) }
func (c *fakeConn) Release()                       {}

// errorCounter is a Recorder that counts errors per op.
type errorCounter map[int]int

func (errorCounter) Record(int, time.Duration)     {}
func (e errorCounter) RecordError(op int, _ error) { e[op]++ }

// repeat returns n copies of the sequence seq, concatenated.
func repeat(n int, seq ...string) []string {
	var out []string
	for range n {
		out = append(out, seq...)
	}
	return out
}

// cat concatenates sequences.
func cat(seqs ...[]string) []string { return slices.Concat(seqs...) }

// conflicts returns n conflict errors.
func conflicts(n int) []error { return slices.Repeat([]error{errConflict}, n) }

// TestRunTx checks the statements RunTx sends with both retry protocols
// (whole transactions for Postgres, CockroachDB's savepoints for
// Cockroach), the errors it returns and the retries it counts.
func TestRunTx(t *testing.T) {
	const op = 3
	maxRetries := workload.MaxConflictRetries
	for _, tc := range []struct {
		name   string
		fail   map[string][]error
		always map[string]error
		// cancel cancels the context once body has run this many times.
		cancel int
		// Per protocol: the statements, and the retries counted.
		whole, savepoints         []string
		wholeRetries, spRetries   int
		wantErr                   error  // errors.Is the result, nil for success
		sameErr                   bool   // the result is wantErr itself
		errText                   string // the result's text contains it
		wholePauses, savepointPau int    // pauses made
		// savepointOnly says the failures are of the savepoint protocol's
		// statements: whole transactions succeed.
		savepointOnly bool
	}{
		{
			name:       "success",
			whole:      []string{begin, body, commit},
			savepoints: []string{begin, savepoint, body, release, commit},
		},
		{
			name:         "conflict then success",
			fail:         map[string][]error{body: {errConflict}},
			whole:        []string{begin, body, rollback, begin, body, commit},
			savepoints:   []string{begin, savepoint, body, rollbackTo, body, release, commit},
			wholeRetries: 1, spRetries: 1,
		},
		{
			name:         "deadlocks then success",
			fail:         map[string][]error{body: {errDeadlock, errConflict, errDeadlock}},
			whole:        cat(repeat(3, begin, body, rollback), []string{begin, body, commit}),
			savepoints:   []string{begin, savepoint, body, rollbackTo, body, rollbackTo, body, rollbackTo, body, release, commit},
			wholeRetries: 3, spRetries: 3,
			wholePauses: 2, savepointPau: 2, // from the second retry on
		},
		{
			name:       "non-retryable error",
			fail:       map[string][]error{body: {errUnique}},
			whole:      []string{begin, body, rollback},
			savepoints: []string{begin, savepoint, body, rollback},
			wantErr:    errUnique,
			errText:    "tx: ERROR: duplicate key value",
		},
		{
			name:       "rollback requested",
			fail:       map[string][]error{body: {errIntended}},
			whole:      []string{begin, body, rollback},
			savepoints: []string{begin, savepoint, body, rollback},
			wantErr:    errIntended,
			sameErr:    true,
		},
		{
			name:       "rollback requested after a conflict",
			fail:       map[string][]error{body: {errConflict, errIntended}},
			whole:      []string{begin, body, rollback, begin, body, rollback},
			savepoints: []string{begin, savepoint, body, rollbackTo, body, rollback},
			wantErr:    errIntended, sameErr: true,
			wholeRetries: 1, spRetries: 1,
		},
		{
			name:         "retries exhausted",
			always:       map[string]error{body: errConflict},
			whole:        repeat(maxRetries+1, begin, body, rollback),
			savepoints:   cat([]string{begin, savepoint}, repeat(maxRetries, body, rollbackTo), []string{body, rollback}),
			wholeRetries: maxRetries, spRetries: maxRetries,
			wholePauses: maxRetries, savepointPau: maxRetries,
			wantErr: errConflict,
			errText: fmt.Sprintf("tx retried %d times, giving up", maxRetries),
		},
		{
			name: "connection lost restarts the transaction",
			fail: map[string][]error{body: {errLost}},
			// In savepoint mode too: the transaction is gone.
			whole:        []string{begin, body, rollback, begin, body, commit},
			savepoints:   []string{begin, savepoint, body, rollback, begin, savepoint, body, release, commit},
			wholeRetries: 1, spRetries: 1,
		},
		{
			name:         "conflict then connection lost",
			fail:         map[string][]error{body: {errConflict, errLost}},
			whole:        []string{begin, body, rollback, begin, body, rollback, begin, body, commit},
			savepoints:   []string{begin, savepoint, body, rollbackTo, body, rollback, begin, savepoint, body, release, commit},
			wholeRetries: 2, spRetries: 2,
		},
		{
			name:         "connection lost at begin",
			fail:         map[string][]error{begin: {errLost}},
			whole:        []string{begin, begin, body, commit},
			savepoints:   []string{begin, begin, savepoint, body, release, commit},
			wholeRetries: 1, spRetries: 1,
		},
		{
			name:         "connection lost too often",
			always:       map[string]error{body: errLost},
			whole:        repeat(workload.MaxConnLosses+1, begin, body, rollback),
			savepoints:   repeat(workload.MaxConnLosses+1, begin, savepoint, body, rollback),
			wholeRetries: workload.MaxConnLosses, spRetries: workload.MaxConnLosses,
			wholePauses: workload.MaxConnLosses - 1, savepointPau: workload.MaxConnLosses - 1,
			wantErr: io.ErrUnexpectedEOF,
			errText: fmt.Sprintf("tx: connection lost %d times in a row", workload.MaxConnLosses+1),
		},
		{
			name:         "conflict at release",
			fail:         map[string][]error{release: {errConflict}},
			whole:        []string{begin, body, commit},
			savepoints:   []string{begin, savepoint, body, release, rollbackTo, body, release, commit},
			wholeRetries: 0, spRetries: 1,
		},
		{
			name:  "conflict at commit starts a new transaction",
			fail:  map[string][]error{commit: {errConflict}},
			whole: []string{begin, body, commit, begin, body, commit},
			savepoints: []string{begin, savepoint, body, release, commit,
				begin, savepoint, body, release, commit},
			wholeRetries: 1, spRetries: 1,
		},
		{
			name:          "savepoint refused",
			fail:          map[string][]error{savepoint: {errUnique}},
			savepointOnly: true,
			whole:         []string{begin, body, commit},
			savepoints:    []string{begin, savepoint, rollback},
			wantErr:       errUnique,
			errText:       "tx: savepoint: ERROR: duplicate key value",
		},
		{
			name:         "rollback to savepoint fails",
			fail:         map[string][]error{body: {errConflict}, rollbackTo: {errLost}},
			whole:        []string{begin, body, rollback, begin, body, commit},
			savepoints:   []string{begin, savepoint, body, rollbackTo, rollback, begin, savepoint, body, release, commit},
			wholeRetries: 1, spRetries: 2,
		},
		{
			name:       "context ends",
			always:     map[string]error{body: errConflict},
			cancel:     1,
			whole:      []string{begin, body, rollback},
			savepoints: []string{begin, savepoint, body, rollback},
			wantErr:    context.Canceled,
		},
	} {
		for _, proto := range []struct {
			d       dialect.Dialect
			want    []string
			retries int
			pauses  int
			wantErr error
		}{
			{dialect.Postgres{}, tc.whole, tc.wholeRetries, tc.wholePauses, tc.wantErr},
			{dialect.Cockroach{}, tc.savepoints, tc.spRetries, tc.savepointPau, tc.wantErr},
		} {
			if tc.savepointOnly && !proto.d.Capabilities().SavepointRetry {
				proto.wantErr = nil
			}
			t.Run(tc.name+"/"+proto.d.Name(), func(t *testing.T) {
				pauses := workload.RecordPauses(t)
				conn := &fakeConn{fail: map[string][]error{}, always: tc.always}
				for k, v := range tc.fail {
					conn.fail[k] = slices.Clone(v)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				rec := errorCounter{}
				opts := sqlx.TxOptions{Isolation: sqlx.Serializable, ReadOnly: true}
				calls := 0
				err := workload.RunTx(ctx, conn, proto.d, opts, rec, op, "tx", func(tx sqlx.Tx) error {
					calls++
					if calls == tc.cancel {
						cancel()
					}
					_, err := tx.Exec(ctx, body)
					return err
				})
				if !slices.Equal(conn.log, proto.want) {
					t.Errorf("statements:\n got %s\nwant %s", strings.Join(conn.log, "; "), strings.Join(proto.want, "; "))
				}
				switch {
				case proto.wantErr == nil && err != nil:
					t.Errorf("error %v, want success", err)
				case proto.wantErr == nil:
				case !errors.Is(err, proto.wantErr):
					t.Errorf("error %v, want %v", err, proto.wantErr)
				case tc.sameErr && err != proto.wantErr: // returned as is, not wrapped
					t.Errorf("error %#v, want %#v itself", err, proto.wantErr)
				case tc.errText != "" && !strings.Contains(fmt.Sprint(err), tc.errText):
					t.Errorf("error %q does not say %q", err, tc.errText)
				}
				if got := rec[op]; got != proto.retries || len(rec) > 1 {
					t.Errorf("counted retries %v, want %d of op %d", rec, proto.retries, op)
				}
				if len(*pauses) != proto.pauses {
					t.Errorf("%d pauses, want %d: %v", len(*pauses), proto.pauses, *pauses)
				}
				for i, o := range conn.opts {
					if o != opts {
						t.Errorf("transaction %d began with %+v, want %+v", i, o, opts)
					}
				}
			})
		}
	}
}

// TestRunTxBackoff checks that both protocols pause alike between
// conflicts: not before the first retry, then at random below a limit
// that doubles from 1ms up to 100ms.
func TestRunTxBackoff(t *testing.T) {
	const conflictsN = 12
	limits := []time.Duration{1, 2, 4, 8, 16, 32, 64, 100, 100, 100, 100}
	for _, d := range []dialect.Dialect{dialect.Postgres{}, dialect.Cockroach{}} {
		t.Run(d.Name(), func(t *testing.T) {
			pauses := workload.RecordPauses(t)
			conn := &fakeConn{fail: map[string][]error{body: conflicts(conflictsN)}}
			err := workload.RunTx(context.Background(), conn, d, sqlx.TxOptions{}, errorCounter{}, 0, "tx",
				func(tx sqlx.Tx) error { _, err := tx.Exec(context.Background(), body); return err })
			if err != nil {
				t.Fatal(err)
			}
			if len(*pauses) != len(limits) {
				t.Fatalf("pauses %v, want %d", *pauses, len(limits))
			}
			for i, p := range *pauses {
				if p < 0 || p >= limits[i]*time.Millisecond {
					t.Errorf("pause %d is %v, want below %v", i, p, limits[i]*time.Millisecond)
				}
			}
		})
	}
}
