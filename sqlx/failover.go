package sqlx

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Failover timing. Variables so that tests can change them.
var (
	// homeRetryInterval is how often, at most, a worker away from its home
	// endpoint tries to go back.
	homeRetryInterval = 2 * time.Second
	// homeProbeTimeout bounds each attempt to go back home. A connection
	// that takes longer to establish is still made in the background and
	// kept in the pool for the next attempt.
	homeProbeTimeout = 200 * time.Millisecond
	// downPeriod is how long an endpoint that refused a connection is tried
	// after the others by workers looking for a connection.
	downPeriod = 2 * time.Second
)

// EndpointStat describes one endpoint's use by workers' dedicated
// connections.
type EndpointStat struct {
	// Endpoint is host:port, as in DB.Endpoints.
	Endpoint string
	// Acquires is how many dedicated connections workers have taken from
	// the endpoint: once per worker at start, then once per reconnection,
	// failover to the endpoint or return to it.
	Acquires int64
	// Down reports that a connection to the endpoint failed in the last
	// couple of seconds, so workers prefer the other endpoints.
	Down bool
}

// EndpointStats returns, for each endpoint in the order of Endpoints, how
// workers have used it. It is safe to call concurrently with the workers.
func (db *DB) EndpointStats() []EndpointStat {
	out := make([]EndpointStat, len(db.health))
	now := time.Now().UnixNano()
	for i := range db.health {
		h := &db.health[i]
		out[i] = EndpointStat{Endpoint: db.endpoints[i], Acquires: h.acquires.Load(), Down: h.isDown(now)}
	}
	return out
}

// endpointHealth is what the workers share about an endpoint.
type endpointHealth struct {
	acquires atomic.Int64
	// downUntil is the time (UnixNano) until which the endpoint is tried
	// last, after a failed connection; 0 when it is up.
	downUntil atomic.Int64
}

func (h *endpointHealth) isDown(now int64) bool {
	d := h.downUntil.Load()
	return d != 0 && now < d
}

func (h *endpointHealth) markDown() {
	h.downUntil.Store(time.Now().Add(downPeriod).UnixNano())
}

func (h *endpointHealth) markUp() {
	if h.downUntil.Load() != 0 {
		h.downUntil.Store(0)
	}
}

// workerConn holds one pooled connection for a worker. The worker's home
// is one endpoint; when a connection to it cannot be made (a connection
// error: refused, reset, timed out, shutting down), the worker takes one
// from the other endpoints in turn, preferring those not recently down.
// While away, at the start of a call and at most every homeRetryInterval,
// it tries to take a connection from home (waiting at most
// homeProbeTimeout) and moves back when it gets one.
//
// At home with a live connection, a call costs a comparison and a check
// that the connection is open: the clock is read only after a failure or
// while away.
type workerConn struct {
	db   *DB
	home int // index of the home endpoint
	cur  int // index of the endpoint c belongs to
	// order is the order in which endpoints are tried: home first, then
	// the others, rotated by worker so that the workers of a dead endpoint
	// spread over the live ones.
	order     []int
	c         *pgxpool.Conn
	everHad   bool
	lastProbe time.Time // last attempt to go home, or when we left it
	raw       rawStmts  // statements prepared on c for QueryRaw
}

func newWorkerConn(db *DB, worker int) *workerConn {
	if worker < 0 {
		worker = -worker
	}
	n := len(db.pools)
	home := worker % n
	order := make([]int, 0, n)
	order = append(order, home)
	for k := 0; k < n-1; k++ {
		order = append(order, (home+1+(k+worker/n)%(n-1))%n)
	}
	return &workerConn{db: db, home: home, cur: home, order: order, raw: rawStmts{text: db.text}}
}

// conn returns the worker's live connection, (re)acquiring one if needed.
func (w *workerConn) conn(ctx context.Context) (*pgx.Conn, error) {
	if w.c != nil {
		if w.cur != w.home {
			w.maybeGoHome(ctx)
		}
		if c := w.c.Conn(); !c.IsClosed() {
			return c, nil
		}
		w.c.Release()
		w.c = nil
		w.raw.reset()
	}
	return w.acquire(ctx)
}

// maybeGoHome replaces the worker's connection, which is away from home,
// with one from home if the last attempt is old enough and home answers
// at once.
func (w *workerConn) maybeGoHome(ctx context.Context) {
	now := time.Now()
	if now.Sub(w.lastProbe) < homeRetryInterval {
		return
	}
	w.lastProbe = now
	pctx, cancel := context.WithTimeout(ctx, homeProbeTimeout)
	c, err := w.db.pools[w.home].Acquire(pctx)
	cancel()
	h := &w.db.health[w.home]
	if err != nil {
		if IsConnectionError(err) {
			h.markDown()
		}
		return
	}
	if err := w.db.setupWorkerConn(ctx, c); err != nil {
		c.Release()
		return
	}
	h.markUp()
	h.acquires.Add(1)
	w.dropAway()
	w.raw.reset()
	w.c, w.cur = c, w.home
}

// dropAway closes the worker's connection to a foreign endpoint instead
// of returning it to that endpoint's pool, where it would sit idle.
func (w *workerConn) dropAway() {
	if w.c == nil {
		return
	}
	old := w.c.Hijack()
	w.c = nil
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	old.Close(ctx)
}

// acquire takes a connection for the worker: from its endpoints in order,
// first those not marked down, then those marked down. It moves on to the
// next endpoint only after a connection error.
func (w *workerConn) acquire(ctx context.Context) (*pgx.Conn, error) {
	var firstErr error
	now := time.Now().UnixNano()
	for pass := 0; pass < 2; pass++ {
		for _, i := range w.order {
			h := &w.db.health[i]
			if h.isDown(now) != (pass == 1) {
				continue
			}
			c, err := w.db.pools[i].Acquire(ctx)
			if err != nil {
				if !IsConnectionError(err) || ctx.Err() != nil {
					return nil, err
				}
				h.markDown()
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if err := w.db.setupWorkerConn(ctx, c); err != nil {
				c.Release()
				return nil, err
			}
			h.markUp()
			h.acquires.Add(1)
			if w.everHad {
				w.db.reconnects.Add(1)
			}
			w.everHad = true
			if i != w.home {
				w.lastProbe = time.Now() // next attempt to go home in homeRetryInterval
			}
			w.raw.reset()
			w.c, w.cur = c, i
			return c.Conn(), nil
		}
	}
	return nil, firstErr
}

// sharedConn is the Conn of a worker that shares connections with others
// (fewer connections than workers, as TPC-C's terminals): each call
// borrows a connection from the first endpoint, in the worker's order, that
// is not marked down. A connection error marks that endpoint down for
// downPeriod, so the calls that follow go to the live endpoints, and the
// endpoint gets traffic again when the period is over (and stays marked
// down another period if it still fails).
type sharedConn struct {
	db    *DB
	order []int // as workerConn's: home first, rotated by worker
	last  int   // the endpoint of the last call, for tests
}

func newSharedConn(db *DB, worker int) *sharedConn {
	return &sharedConn{db: db, order: newWorkerConn(db, worker).order, last: -1}
}

// pick returns the endpoint to use now.
func (s *sharedConn) pick() int {
	now := time.Now().UnixNano()
	for _, i := range s.order {
		if !s.db.health[i].isDown(now) {
			return i
		}
	}
	return s.order[0] // all down: keep trying home
}

// note records the outcome of a call on endpoint i and returns err.
func (s *sharedConn) note(i int, err error) error {
	h := &s.db.health[i]
	switch {
	case err == nil:
		h.acquires.Add(1)
		h.markUp()
		s.last = i
	case IsConnectionError(err):
		h.markDown()
	}
	return err
}

func (s *sharedConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	i := s.pick()
	tag, err := s.db.pools[i].Exec(ctx, sql, args...)
	return tag.RowsAffected(), s.note(i, err)
}

func (s *sharedConn) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	i := s.pick()
	rows, err := s.db.pools[i].Query(ctx, sql, args...)
	return rows, s.note(i, err)
}

func (s *sharedConn) QueryRow(ctx context.Context, sql string, args ...any) Row {
	i := s.pick()
	return sharedRow{s, i, s.db.pools[i].QueryRow(ctx, sql, args...)}
}

func (s *sharedConn) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	i := s.pick()
	tx, err := s.db.pools[i].BeginTx(ctx, pgxTxOptions(opts))
	if s.note(i, err) != nil {
		return nil, err
	}
	return txAdapter{tx}, nil
}

// Release implements Conn; a shared worker holds no connection between
// calls.
func (s *sharedConn) Release() {}

// sharedRow notes the outcome of a QueryRow when it is scanned.
type sharedRow struct {
	s   *sharedConn
	i   int
	row pgx.Row
}

func (r sharedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		_ = r.s.note(r.i, nil) // the call reached the server
		return err
	}
	return r.s.note(r.i, err)
}
