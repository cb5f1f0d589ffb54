package datadiff

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// side is one of the two nodes compared.
type side struct {
	name  string // "A" or "B"
	db    *sqlx.DB
	d     dialect.Differ
	where string // host:port/database, safe to print
	// identity names the server (or cluster) and database.
	identity string
	// native is whether the server has its dialect's native row hash.
	native bool
	// txs are the transactions of the current check, one per connection,
	// all reading the same snapshot (only one when the server cannot
	// share its snapshot).
	txs []sqlx.Tx
}

// errSnapshotGone marks a snapshot that could not be imported, which a
// check in new snapshots may not meet again.
var errSnapshotGone = errors.New("")

// SideError is an error on one side of a diff.
type SideError struct {
	// Side is "A" or "B".
	Side string
	// Where is the side's endpoint and database, safe to print.
	Where string
	// Err is the error.
	Err error
}

// Error implements error, naming the side, and saying that the server went
// away when the connection was lost.
func (e *SideError) Error() string {
	if e.Where == "" { // not connected yet
		return fmt.Sprintf("server %s: %v", e.Side, e.Err)
	}
	if sqlx.IsConnectionError(e.Err) {
		return fmt.Sprintf("server %s (%s) went away: %v", e.Side, e.Where, e.Err)
	}
	return fmt.Sprintf("server %s (%s): %v", e.Side, e.Where, e.Err)
}

// Unwrap returns the underlying error.
func (e *SideError) Unwrap() error { return e.Err }

// wrap attributes err to the side (once).
func (s *side) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *SideError
	if errors.As(err, &se) {
		return err
	}
	return &SideError{Side: s.name, Where: s.where, Err: err}
}

// open connects side name with opts and conns connections.
func openSide(ctx context.Context, name string, opts sqlx.Options, conns int) (*side, error) {
	opts.MaxConns = conns
	if opts.AppName == "" {
		opts.AppName = "stampede diff"
	}
	s := &side{name: name}
	db, err := sqlx.Open(ctx, opts)
	if ce := (*sqlx.ConnectError)(nil); errors.As(err, &ce) && sqlx.IsMissingDatabase(err) {
		// The connection's own hint speaks of init and --db, which
		// diff has not: it compares what exists.
		ce.Hint = "check the database the URL names (diff compares databases that exist)"
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	s.db = db
	s.where = strings.Join(db.Endpoints(), ",") + "/" + db.Database()
	d, ok := db.Dialect().(dialect.Differ)
	if !ok {
		db.Close()
		return nil, s.wrap(fmt.Errorf("stampede diff cannot compare %s servers", db.Dialect().Name()))
	}
	s.d = d
	if err := db.QueryRow(ctx, d.IdentityQuery()).Scan(&s.identity); err != nil {
		db.Close()
		return nil, s.wrap(fmt.Errorf("identifying the server: %w", err))
	}
	if probe := d.NativeHashProbe(); probe != "" {
		var ignored int64
		s.native = db.QueryRow(ctx, probe).Scan(&ignored) == nil
	}
	return s, nil
}

// close ends the side's transactions and connections.
func (s *side) close() {
	if s == nil || s.db == nil {
		return
	}
	s.end()
	s.db.Close()
}

// end rolls back the current check's transactions (they only read).
func (s *side) end() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, tx := range s.txs {
		_ = tx.Rollback(ctx)
	}
	s.txs = nil
}

// begin starts n transactions reading one snapshot, taken now, and returns
// when it was taken. A server that cannot share its snapshot gets one
// transaction, and note is called with why.
func (s *side) begin(ctx context.Context, n int, note func(string)) (time.Time, error) {
	s.end()
	snap := s.d.Snapshot()
	opts := sqlx.TxOptions{Isolation: sqlx.Isolation(snap.Isolation), ReadOnly: true}
	var token string
	var at time.Time
	if !snap.ExportInTx {
		at = time.Now()
		if err := s.db.QueryRow(ctx, snap.Export).Scan(&token); err != nil {
			return at, s.wrap(fmt.Errorf("taking a snapshot: %w", err))
		}
	}
	start := func(first bool) (sqlx.Tx, error) {
		tx, err := s.db.Begin(ctx, opts)
		if err != nil {
			return nil, err
		}
		if first && snap.ExportInTx {
			at = time.Now()
			if n > 1 {
				if err := tx.QueryRow(ctx, snap.Export).Scan(&token); err != nil {
					// The failed statement aborted the transaction: start
					// again, alone, unless the server merely canceled it.
					_ = tx.Rollback(ctx)
					if ctx.Err() != nil || sqlx.IsConnectionError(err) || sqlx.IsRetryable(err) {
						return nil, err
					}
					note(fmt.Sprintf("server %s cannot share its snapshot (%v): one connection reads it", s.name, firstLine(err)))
					n = 1
					if tx, err = s.db.Begin(ctx, opts); err != nil {
						return nil, err
					}
				}
			}
		} else {
			imp, err := s.d.ImportSnapshot(token)
			if err == nil {
				_, err = tx.Exec(ctx, imp)
			}
			if err != nil {
				_ = tx.Rollback(ctx)
				// The exporting transaction may have been canceled in the
				// meantime: worth a check in new snapshots.
				return nil, fmt.Errorf("reading the snapshot: %w%w", err, errSnapshotGone)
			}
		}
		for _, stmt := range s.d.TxSetup() {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				_ = tx.Rollback(ctx)
				return nil, err
			}
		}
		return tx, nil
	}
	for i := 0; i < n; i++ {
		tx, err := start(i == 0)
		if err != nil {
			return at, s.wrap(err)
		}
		s.txs = append(s.txs, tx)
	}
	return at, nil
}

// tx returns the transaction of connection i.
func (s *side) tx(i int) sqlx.Tx { return s.txs[i%len(s.txs)] }

// firstLine is err's message up to its first line break.
func firstLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}
