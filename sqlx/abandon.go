package sqlx

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrAbandoned is the error of a worker's call after Abandon gave the
// worker up: its connections were closed, and it gets no other.
var ErrAbandoned = errors.New("the run ended without this worker (abandoned after the grace): its connection was closed")

// cancelWait bounds how long Abandon waits for the servers to take its
// cancel requests.
const cancelWait = 2 * time.Second

// cancelAgain is when Abandon sends its second cancel request: the
// server ignores one that reaches the backend before the statement it was
// meant for starts (sent just before the socket closed, still on its way).
const cancelAgain = 200 * time.Millisecond

// Abandon closes the connections that workers (numbered as for Conn) are
// using, from another goroutine than theirs: the run's end gave up
// waiting for them (engine.Result.Abandoned). The socket of each is
// closed, which makes the worker's blocked read or write return an
// error without anything else touching the connection (pgx's
// connections are not safe for concurrent use), and its server is sent
// a cancel request, and another cancelAgain later (waiting at most
// cancelWait in all), so that the statement the worker was waiting for
// does not run on. Those connections go back to no pool: released, they
// are destroyed. The workers' calls that follow fail with ErrAbandoned.
// It is safe for concurrent use.
func (db *DB) Abandon(workers []int) {
	var conns []*pgconn.PgConn
	for _, w := range workers {
		conns = append(conns, db.holdOf(w).abandon()...)
	}
	if len(conns) == 0 {
		return
	}
	for _, c := range conns {
		_ = c.Conn().Close() // net.Conn's Close may come from any goroutine
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.CancelRequest(ctx) // reads only what the connection was opened with
			select {
			case <-time.After(cancelAgain):
				_ = c.CancelRequest(ctx)
			case <-ctx.Done():
			}
		}()
	}
	wg.Wait()
}

// holdOf returns worker's hold, the same one for every call.
func (db *DB) holdOf(worker int) *hold {
	db.holds.mu.Lock()
	defer db.holds.mu.Unlock()
	if db.holds.of == nil {
		db.holds.of = map[int]*hold{}
	}
	h := db.holds.of[worker]
	if h == nil {
		h = &hold{}
		db.holds.of[worker] = h
	}
	return h
}

// holdSet is every worker's hold.
type holdSet struct {
	mu sync.Mutex
	of map[int]*hold
}

// hold is what Abandon needs of one worker: the connections it is using
// (acquired from a pool, not given back yet), and whether it was
// abandoned. Its methods are safe for concurrent use.
type hold struct {
	mu        sync.Mutex
	conns     []*pgconn.PgConn
	abandoned bool
}

// add records that the worker uses c; false when the worker was
// abandoned, when it must not.
func (h *hold) add(c *pgconn.PgConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.abandoned {
		return false
	}
	h.conns = append(h.conns, c)
	return true
}

// remove records that the worker is done with c. It reports whether the
// worker was abandoned: c's socket is then closed, or about to be, and c
// must be closed rather than go back to its pool.
func (h *hold) remove(c *pgconn.PgConn) (abandoned bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := slices.Index(h.conns, c); i >= 0 {
		h.conns = slices.Delete(h.conns, i, i+1)
	}
	return h.abandoned
}

// isAbandoned reports whether the worker was abandoned.
func (h *hold) isAbandoned() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.abandoned
}

// abandon marks the worker abandoned and returns the connections it is
// using.
func (h *hold) abandon() []*pgconn.PgConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.abandoned = true
	return slices.Clone(h.conns)
}

// acquire takes a connection from p for one call of the worker, recorded
// in h until release.
func (h *hold) acquire(ctx context.Context, p *pgxpool.Pool) (*pgxpool.Conn, error) {
	if h.isAbandoned() {
		return nil, ErrAbandoned
	}
	c, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if !h.add(c.Conn().PgConn()) {
		c.Release()
		return nil, ErrAbandoned
	}
	return c, nil
}

// release gives c back to its pool: closed first when the worker was
// abandoned meanwhile, so that the pool destroys it.
func (h *hold) release(c *pgxpool.Conn) {
	if h.remove(c.Conn().PgConn()) {
		closeAbandoned(c.Conn().PgConn())
	}
	c.Release()
}

// closeAbandoned closes c, whose socket Abandon closed (or is closing),
// on the goroutine of the worker that used it: the Terminate it sends
// fails at once.
func closeAbandoned(c *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// exec is pgxpool.Pool's Exec on a connection held in h.
func (h *hold) exec(ctx context.Context, p *pgxpool.Pool, sql string, args ...any) (pgconn.CommandTag, error) {
	c, err := h.acquire(ctx, p)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer h.release(c)
	return c.Exec(ctx, sql, args...)
}

// query is pgxpool.Pool's Query on a connection held in h until the
// rows are closed (or read to their end).
func (h *hold) query(ctx context.Context, p *pgxpool.Pool, sql string, args ...any) (Rows, error) {
	c, err := h.acquire(ctx, p)
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		h.release(c)
		return rows, err // closed already, as pgx returns it
	}
	return &heldRows{Rows: rows, h: h, c: c}, nil
}

// queryRow is pgxpool.Pool's QueryRow on a connection held in h until
// the row is scanned.
func (h *hold) queryRow(ctx context.Context, p *pgxpool.Pool, sql string, args ...any) Row {
	c, err := h.acquire(ctx, p)
	if err != nil {
		return errRow{err}
	}
	return &heldRow{row: c.QueryRow(ctx, sql, args...), h: h, c: c}
}

// begin is pgxpool.Pool's BeginTx on a connection held in h until the
// transaction ends.
func (h *hold) begin(ctx context.Context, p *pgxpool.Pool, opts TxOptions) (Tx, error) {
	c, err := h.acquire(ctx, p)
	if err != nil {
		return nil, err
	}
	tx, err := c.BeginTx(ctx, pgxTxOptions(opts))
	if err != nil {
		h.release(c)
		return nil, err
	}
	return &heldTx{txAdapter: txAdapter{tx}, h: h, c: c}, nil
}

// heldRows are rows whose connection goes back (hold.release) when they
// are closed or read to their end, as pgxpool's do.
type heldRows struct {
	pgx.Rows
	h *hold
	c *pgxpool.Conn
}

// Next implements Rows.
func (r *heldRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

// Close implements Rows.
func (r *heldRows) Close() {
	r.Rows.Close()
	if r.c != nil {
		r.h.release(r.c)
		r.c = nil
	}
}

// heldRow is a row whose connection goes back once it is scanned.
type heldRow struct {
	row pgx.Row
	h   *hold
	c   *pgxpool.Conn
}

// Scan implements Row.
func (r *heldRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if r.c != nil {
		r.h.release(r.c)
		r.c = nil
	}
	return err
}

// heldTx is a transaction whose connection goes back when it ends.
type heldTx struct {
	txAdapter
	h *hold
	c *pgxpool.Conn
}

// Commit implements Tx.
func (t *heldTx) Commit(ctx context.Context) error {
	err := t.tx.Commit(ctx)
	t.done()
	return err
}

// Rollback implements Tx.
func (t *heldTx) Rollback(ctx context.Context) error {
	err := t.tx.Rollback(ctx)
	t.done()
	return err
}

func (t *heldTx) done() {
	if t.c != nil {
		t.h.release(t.c)
		t.c = nil
	}
}
