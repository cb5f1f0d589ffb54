package sqlx

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// lazyTx is a transaction on a worker's dedicated connection whose BEGIN
// travels with its first statement, in one pipeline and one round trip,
// instead of on its own, and whose COMMIT may travel with its last one
// (QueryCommit): TxOptions.Pipeline. A benchmark transaction of a few
// statements spends much of its client CPU and latency on round trips,
// and holds its locks for as many: a one-statement transaction takes one
// round trip instead of three.
//
// The server sees the same statements in the same order. The pipeline
// stops at the first error: if BEGIN fails, the statement after it does
// not run; if a statement fails, the COMMIT after it does not run either,
// the transaction is aborted as usual and the caller rolls it back.
type lazyTx struct {
	c   *pgx.Conn
	raw *rawStmts
	// begin is the BEGIN statement until it has been sent, then "".
	begin string
	// finished is set by Commit and Rollback.
	finished bool
	// committing is set when QueryCommit has sent COMMIT; commitErr is
	// its outcome once read (errCommitUnread until then).
	committing bool
	commitErr  error
}

var (
	_ Tx              = (*lazyTx)(nil)
	_ RawQuerier      = (*lazyTx)(nil)
	_ CommitPipeliner = (*lazyTx)(nil)
)

// CommitPipeliner is a Tx that can send its COMMIT in the same round trip
// as its last statement (TxOptions.Pipeline). Use it through QueryCommit.
type CommitPipeliner interface {
	// QueryCommit runs sql, the transaction's last statement, and COMMIT.
	// The rows' Err reports a failed COMMIT too. Commit, called after it
	// as usual, returns COMMIT's outcome.
	QueryCommit(ctx context.Context, sql string, args ...any) (Rows, error)
}

// QueryCommit runs sql as the last statement of tx: with tx's COMMIT in
// the same round trip when tx is a CommitPipeliner, else alone. Either
// way the caller then calls tx.Commit as usual.
func QueryCommit(ctx context.Context, tx Tx, sql string, args ...any) (Rows, error) {
	if p, ok := tx.(CommitPipeliner); ok {
		return p.QueryCommit(ctx, sql, args...)
	}
	return tx.Query(ctx, sql, args...)
}

// QueryRowCommit is QueryCommit for a statement expected to return at
// most one row; Scan returns ErrNoRows when there is none.
func QueryRowCommit(ctx context.Context, tx Tx, sql string, args ...any) Row {
	if p, ok := tx.(CommitPipeliner); ok {
		rows, err := p.QueryCommit(ctx, sql, args...)
		if err != nil {
			return errRow{err}
		}
		return firstRow{rows}
	}
	return tx.QueryRow(ctx, sql, args...)
}

// errCommitUnread is the outcome of a pipelined COMMIT whose rows were
// not closed before Commit.
var errCommitUnread = errors.New("sqlx: the rows of QueryCommit were not closed before Commit")

// QueryCommit implements CommitPipeliner.
func (t *lazyTx) QueryCommit(ctx context.Context, sql string, args ...any) (Rows, error) {
	if t.finished || t.committing {
		return nil, pgx.ErrTxClosed
	}
	b := &pgx.Batch{}
	begin := t.begin != ""
	if begin {
		b.Queue(t.begin)
		t.begin = ""
	}
	b.Queue(sql, args...)
	b.Queue("COMMIT")
	t.committing = true
	t.commitErr = errCommitUnread
	br := t.c.SendBatch(ctx, b)
	if begin {
		if _, err := br.Exec(); err != nil {
			br.Close()
			t.commitErr = err
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		t.commitErr = err
		return nil, err
	}
	return &batchRows{Rows: rows, br: br, commit: t}, nil
}

// beginStmt is the BEGIN statement that starts a transaction with opts.
func beginStmt(opts TxOptions) string {
	var b strings.Builder
	b.WriteString("BEGIN")
	if opts.Isolation != DefaultIsolation {
		b.WriteString(" ISOLATION LEVEL ")
		b.WriteString(strings.ToUpper(string(opts.Isolation)))
	}
	if opts.ReadOnly {
		b.WriteString(" READ ONLY")
	}
	return b.String()
}

// send runs sql with BEGIN in front of it when BEGIN has not been sent
// yet. It returns the results of sql and the batch to close after them,
// or nil when sql ran alone (then the caller runs it itself).
func (t *lazyTx) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	if t.begin == "" {
		return nil, nil
	}
	b := &pgx.Batch{}
	b.Queue(t.begin)
	b.Queue(sql, args...)
	t.begin = ""
	br := t.c.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
}

// Exec implements Querier.
func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return 0, err
	}
	if br == nil {
		tag, err := t.c.Exec(ctx, sql, args...)
		return tag.RowsAffected(), err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

// Query implements Querier.
func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	br, err := t.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	if br == nil {
		return t.c.Query(ctx, sql, args...)
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow implements Querier, with pgx's meaning: Scan returns
// pgx.ErrNoRows when there is no row.
func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) Row {
	rows, err := t.Query(ctx, sql, args...)
	if err != nil {
		return errRow{err}
	}
	return firstRow{rows}
}

// QueryRaw implements RawQuerier. The fast path has no pipeline: a
// pending BEGIN goes first, on its own.
func (t *lazyTx) QueryRaw(ctx context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	if t.begin != "" {
		if _, err := t.c.Exec(ctx, t.begin); err != nil {
			return 0, err
		}
		t.begin = ""
	}
	return t.raw.query(ctx, t.c.PgConn(), sql, params, row)
}

// Commit implements Tx. A transaction that sent nothing has nothing to
// commit; one whose COMMIT went with QueryCommit returns its outcome. A
// COMMIT the server answers with ROLLBACK (the transaction had failed)
// returns pgx.ErrTxCommitRollback, as pgx's own Tx does.
func (t *lazyTx) Commit(ctx context.Context) error {
	if t.finished {
		return pgx.ErrTxClosed
	}
	if t.committing {
		if t.commitErr == nil {
			t.finished = true
		}
		return t.commitErr // on failure the caller rolls back
	}
	t.finished = true
	if t.begin != "" {
		return nil
	}
	tag, err := t.c.Exec(ctx, "COMMIT")
	if err != nil {
		return err
	}
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback implements Tx; it is a no-op after Commit. After a failed
// QueryCommit the transaction may still be open (its statement failed
// and the server skipped COMMIT), or over (COMMIT failed): ROLLBACK is
// sent either way, and the server's warning about no transaction in
// progress is no error.
func (t *lazyTx) Rollback(ctx context.Context) error {
	if t.finished {
		return nil
	}
	t.finished = true
	if t.begin != "" {
		return nil
	}
	_, err := t.c.Exec(ctx, "ROLLBACK")
	return err
}

// batchRows are the rows of a statement sent in a batch: closing them
// closes the batch too, after reading the COMMIT that follows them when
// commit is not nil (QueryCommit).
type batchRows struct {
	pgx.Rows
	br     pgx.BatchResults
	commit *lazyTx
	closed bool
	err    error
}

// Close implements Rows.
func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	if r.commit != nil {
		err := r.Rows.Err()
		if err == nil {
			var tag pgconn.CommandTag
			if tag, err = r.br.Exec(); err == nil && tag.String() == "ROLLBACK" {
				err = pgx.ErrTxCommitRollback
			}
		}
		if cerr := r.br.Close(); err == nil {
			err = cerr
		}
		r.err = err
		r.commit.commitErr = err
		return
	}
	r.err = r.br.Close()
}

// Err implements Rows: the rows' error, else the batch's.
func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// firstRow scans the first of rows and closes them.
type firstRow struct{ rows Rows }

// Scan implements Row.
func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		r.rows.Close()
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
