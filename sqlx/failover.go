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
	Endpoint
	// Acquires is how many dedicated connections workers have taken from
	// the endpoint: once per worker at start, then once per reconnection,
	// failover to the endpoint or return to it.
	Acquires int64
	// Reconnects is how many workers' connections to the endpoint were
	// lost and made again, on it or (while it is down) on another
	// endpoint (DB.Reconnects counts them over all endpoints).
	Reconnects int64
	// Down reports that a connection to the endpoint failed in the last
	// couple of seconds, so workers prefer the other endpoints.
	Down bool
	// Removed reports that the endpoints file no longer lists it.
	Removed bool
}

// EndpointStats returns, for every endpoint the DB has had, by slot
// (removed ones too), how workers have used it. It is safe to call
// concurrently with the workers.
func (db *DB) EndpointStats() []EndpointStat {
	s := db.endpointSet()
	out := make([]EndpointStat, len(s.all))
	now := time.Now().UnixNano()
	for i, e := range s.all {
		out[i] = EndpointStat{Endpoint: e.Endpoint, Acquires: e.health.acquires.Load(), Reconnects: e.reconnects.Load(),
			Down: e.health.isDown(now), Removed: e.removed.Load()}
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

// endpointOrder returns the order in which worker number worker tries n
// endpoints: home (worker % n) first, then the others, rotated by worker
// so that the workers of a dead endpoint spread over the live ones.
func endpointOrder(n, worker int) []int {
	if worker < 0 {
		worker = -worker
	}
	if n == 0 {
		return nil
	}
	home := worker % n
	order := make([]int, 0, n)
	order = append(order, home)
	for k := 0; k < n-1; k++ {
		order = append(order, (home+1+(k+worker/n)%(n-1))%n)
	}
	return order
}

// workerConn holds one pooled connection for a worker. The worker's home
// is one endpoint; when a connection to it cannot be made (a connection
// error: refused, reset, timed out, shutting down), the worker takes one
// from the other endpoints in turn, preferring those not recently down.
// While away, at the start of a call and at most every homeRetryInterval,
// it tries to take a connection from home (waiting at most
// homeProbeTimeout) and moves back when it gets one.
//
// When the DB's endpoints change (an endpoints file), the worker's home is
// worked out again at its next call, round-robin over the endpoints now
// live: it moves there, and leaves a removed endpoint.
//
// At home with a live connection, a call costs a pointer comparison (the
// endpoints unchanged), a comparison and a check that the connection is
// open: the clock is read only after a failure or while away.
type workerConn struct {
	db     *DB
	worker int
	set    *endpointSet // the endpoints home and order refer to
	home   int          // index in set.live of the home endpoint
	// order is the order in which set.live's endpoints are tried (see
	// endpointOrder).
	order     []int
	cur       *endpoint // the endpoint c belongs to
	c         *pgxpool.Conn
	everHad   bool
	moving    bool          // the next acquire follows a change of endpoints, not a loss
	cell      *atomic.Int32 // cur's slot, for the engine (see DB.WorkerCell)
	lastProbe time.Time     // last attempt to go home, or when we left it
	raw       rawStmts      // statements prepared on c for QueryRaw
	hold      *hold         // c, for DB.Abandon
	// conn1 is connOf.Conn(), for conn (each Acquire returns a new
	// *pgxpool.Conn, so a replaced c is seen).
	conn1  *pgx.Conn
	connOf *pgxpool.Conn
}

func newWorkerConn(db *DB, worker int) *workerConn {
	w := &workerConn{db: db, worker: worker, cell: db.WorkerCell(worker), raw: rawStmts{text: db.text}, hold: db.holdOf(worker)}
	w.raw.fast.notice = db.notice
	w.setEndpoints(db.endpointSet())
	return w
}

// setEndpoints makes s the worker's endpoints: its home and order are
// worked out over s.live. A connection to an endpoint that is no longer
// the worker's home is closed (the next call connects home), so that
// workers spread over endpoints added, and leave those removed, within a
// call.
func (w *workerConn) setEndpoints(s *endpointSet) {
	w.set = s
	w.order = endpointOrder(len(s.live), w.worker)
	w.home = 0
	if len(w.order) > 0 {
		w.home = w.order[0]
	}
	if w.c != nil && (len(s.live) == 0 || w.cur != s.live[w.home]) {
		w.dropAway()
		w.raw.reset()
		w.moving = true
	}
}

// conn returns the worker's live connection, (re)acquiring one if needed.
func (w *workerConn) conn(ctx context.Context) (*pgx.Conn, error) {
	w.raw.fast.valid = false // whatever runs next may be pgconn's
	if s := w.db.set.Load(); s != w.set {
		w.setEndpoints(s)
	}
	if w.c != nil {
		if w.cur != w.set.live[w.home] {
			w.maybeGoHome(ctx)
		}
		if w.connOf != w.c {
			// pgxpool's Conn reaches pgx's through its pool resource:
			// kept, so that a statement touches less memory.
			w.conn1, w.connOf = w.c.Conn(), w.c
		}
		if c := w.conn1; !c.IsClosed() {
			return c, nil
		}
		w.hold.release(w.c)
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
	home := w.set.live[w.home]
	pctx, cancel := context.WithTimeout(ctx, homeProbeTimeout)
	c, err := home.pool.Acquire(pctx)
	cancel()
	h := &home.health
	if err != nil {
		if IsConnectionError(err) {
			h.markDown()
		}
		return
	}
	if err := w.db.setupWorkerConn(ctx, c); err != nil || !w.hold.add(c.Conn().PgConn()) {
		c.Release()
		return
	}
	markWorker(c.Conn().PgConn(), w.worker)
	h.markUp()
	h.acquires.Add(1)
	w.dropAway()
	w.raw.reset()
	w.c, w.cur = c, home
	w.cell.Store(int32(home.Slot))
}

// dropAway closes the worker's connection to a foreign endpoint instead
// of returning it to that endpoint's pool, where it would sit idle.
func (w *workerConn) dropAway() {
	if w.c == nil {
		return
	}
	w.hold.remove(w.c.Conn().PgConn())
	old := w.c.Hijack()
	w.c = nil
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	old.Close(ctx)
}

// errNoEndpoint is the error of a call when every endpoint was removed.
var errNoEndpoint = errors.New("no endpoint left: the endpoints file lists none")

// acquire takes a connection for the worker: from its endpoints in order,
// first those not marked down, then those marked down. It moves on to the
// next endpoint only after a connection error.
func (w *workerConn) acquire(ctx context.Context) (*pgx.Conn, error) {
	if len(w.order) == 0 {
		return nil, errNoEndpoint
	}
	if w.hold.isAbandoned() {
		return nil, ErrAbandoned
	}
	var firstErr error
	now := time.Now().UnixNano()
	for pass := 0; pass < 2; pass++ {
		for _, i := range w.order {
			e := w.set.live[i]
			h := &e.health
			if h.isDown(now) != (pass == 1) {
				continue
			}
			c, err := e.pool.Acquire(ctx)
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
			if !w.hold.add(c.Conn().PgConn()) {
				c.Release()
				return nil, ErrAbandoned
			}
			markWorker(c.Conn().PgConn(), w.worker)
			h.markUp()
			h.acquires.Add(1)
			if w.everHad && !w.moving && w.cur != nil {
				// A reconnect counts on the endpoint whose
				// connection was lost, wherever the new one is.
				w.db.reconnects.Add(1)
				w.cur.reconnects.Add(1)
			}
			w.everHad, w.moving = true, false
			if i != w.home {
				w.lastProbe = time.Now() // next attempt to go home in homeRetryInterval
			}
			w.raw.reset()
			w.c, w.cur = c, e
			w.cell.Store(int32(e.Slot))
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
	db     *DB
	worker int
	set    *endpointSet
	order  []int // as workerConn's: home first, rotated by worker
	last   int   // the slot of the endpoint of the last call, for tests
	cell   *atomic.Int32
	hold   *hold // the connection of the call in progress (see DB.Abandon)
}

func newSharedConn(db *DB, worker int) *sharedConn {
	return &sharedConn{db: db, worker: worker, last: -1, cell: db.WorkerCell(worker), hold: db.holdOf(worker)}
}

// pick returns the endpoint to use now.
func (s *sharedConn) pick() *endpoint {
	if set := s.db.set.Load(); set != s.set {
		s.set, s.order = set, endpointOrder(len(set.live), s.worker)
	}
	if len(s.order) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	for _, i := range s.order {
		if e := s.set.live[i]; !e.health.isDown(now) {
			return e
		}
	}
	return s.set.live[s.order[0]] // all down: keep trying home
}

// note records the outcome of a call on endpoint e and returns err.
func (s *sharedConn) note(e *endpoint, err error) error {
	h := &e.health
	switch {
	case err == nil:
		h.acquires.Add(1)
		h.markUp()
		s.last = e.Slot
		s.cell.Store(int32(e.Slot))
	case IsConnectionError(err):
		h.markDown()
	}
	return err
}

func (s *sharedConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	e := s.pick()
	if e == nil {
		return 0, errNoEndpoint
	}
	tag, err := s.hold.exec(ctx, e.pool, sql, args...)
	return tag.RowsAffected(), s.note(e, err)
}

func (s *sharedConn) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	e := s.pick()
	if e == nil {
		return nil, errNoEndpoint
	}
	rows, err := s.hold.query(ctx, e.pool, sql, args...)
	return rows, s.note(e, err)
}

func (s *sharedConn) QueryRow(ctx context.Context, sql string, args ...any) Row {
	e := s.pick()
	if e == nil {
		return errRow{errNoEndpoint}
	}
	return sharedRow{s, e, s.hold.queryRow(ctx, e.pool, sql, args...)}
}

func (s *sharedConn) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	e := s.pick()
	if e == nil {
		return nil, errNoEndpoint
	}
	tx, err := s.hold.begin(ctx, e.pool, opts)
	if s.note(e, err) != nil {
		return nil, err
	}
	return tx, nil
}

// Release implements Conn; a shared worker holds no connection between
// calls.
func (s *sharedConn) Release() {}

// sharedRow notes the outcome of a QueryRow when it is scanned.
type sharedRow struct {
	s   *sharedConn
	e   *endpoint
	row Row
}

func (r sharedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		_ = r.s.note(r.e, nil) // the call reached the server
		return err
	}
	return r.s.note(r.e, err)
}
