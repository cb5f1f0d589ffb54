package sqlx

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConnectAttempts is how many times Connect tries a connection whose
// attempts time out or are lost (reset, refused) before it stops.
const ConnectAttempts = 3

// Connect opens the connections the workers will use, before they start,
// and leaves them idle in the pools, where each worker's first call takes
// one: a run's clock then starts with its connections made, as sysbench
// (whose threads connect before "Threads started!") and pgbench (which
// reports its "initial connection time" apart) do, instead of timing the
// server's backend starts as the first operations' latency. It opens, on
// every live endpoint not marked down, one connection for each worker
// whose home the endpoint is (Options.Workers; see Conn), or its share
// of Options.MaxConns when workers share connections, and returns how
// many the workers have open: those it opened, and those the workload
// had already taken from the pools while it set up (worker 0's, say),
// as the server counts them.
//
// At most parallel connections are opened at once (1,000 at once queue
// behind a server that starts its backends one after the other, and
// the last ones time out): an attempt that times out
// (Options.ConnectTimeout, a URL's connect_timeout) or whose connection
// is lost (reset, refused) is made again later, and each timeout leaves
// one opener fewer (down to one), so that the openers match what the
// server can start within the timeout. When one connection's
// ConnectAttempts attempts have all failed so, Connect stops and says so
// (Options.Warn): the workers without a connection make their own at
// their first call, as they would have without Connect, and a failure
// there is theirs. A server that refuses a connection (no slot left,
// authentication: an error with an SQLSTATE) ends Connect with an error
// that says how many were open. The connections opened stay in the
// pools either way. With the null driver it opens nothing.
func (db *DB) Connect(ctx context.Context, parallel int) (int, error) {
	if db.null {
		return 0, nil
	}
	var jobs []connectJob
	taken := 0 // the workers' connections taken already
	for _, need := range db.connectNeeds() {
		taken += need.taken
		for range need.n {
			jobs = append(jobs, connectJob{e: need.e})
		}
	}
	if len(jobs) == 0 {
		return taken, nil
	}
	total := len(jobs) + taken
	o := &openers{queue: jobs, running: min(max(parallel, 1), total)}
	var wg sync.WaitGroup
	for range o.running {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.run(ctx)
		}()
	}
	wg.Wait()
	for _, c := range o.held {
		c.Release() // idle in its pool until a worker takes it
	}
	n := len(o.held) + taken
	switch {
	case o.err != nil:
		return n, fmt.Errorf("opening the workers' connections (%d of %d open): %w", n, total, o.err)
	case ctx.Err() != nil:
		return n, ctx.Err()
	case o.lost != nil:
		db.warnf("%d of the workers' %d connections opened before the run; the others connect at their first operation: %d attempts at one failed (%s)",
			n, total, ConnectAttempts, DescribeConnectFailure(endpointName(o.lostAt.pool.Config()), o.lost))
	}
	return n, nil
}

// connectNeed is how many connections Connect opens on an endpoint (n),
// and how many of its workers' connections are taken already (taken).
type connectNeed struct {
	e        *endpoint
	n, taken int
}

// connectNeeds returns, for every live endpoint not marked down, the
// connections its workers use: a dedicated one for
// each worker whose home it is (worker % live endpoints, as
// endpointOrder), or the endpoint's pool size when workers share
// connections.
func (db *DB) connectNeeds() []connectNeed {
	live := db.endpointSet().live
	opts := db.dyn.opts
	workers := opts.Workers
	if workers <= 0 {
		workers = max(opts.MaxConns, 1)
	}
	now := time.Now().UnixNano()
	var out []connectNeed
	for i, e := range live {
		if e.pool == nil || e.health.isDown(now) {
			continue
		}
		n := workers / len(live)
		if i < workers%len(live) {
			n++
		}
		// The pool holds no more than its size (its share of MaxConns
		// when workers share connections), some of it perhaps taken
		// already (while the workload set up): acquiring past it would
		// wait for ever.
		st := e.pool.Stat()
		room := int(st.MaxConns() - st.AcquiredConns())
		need := connectNeed{e: e, n: min(n, room), taken: min(n, int(st.AcquiredConns()))}
		if need.n > 0 || need.taken > 0 {
			out = append(out, need)
		}
	}
	return out
}

// connectJob is one connection to open, and its attempts so far.
type connectJob struct {
	e     *endpoint
	tries int
}

// openers is Connect's shared state: the connections left to open, those
// held open until all are, the openers still running, the first refusal,
// and the failure that stopped it.
type openers struct {
	mu      sync.Mutex
	queue   []connectJob
	held    []*pgxpool.Conn
	running int
	err     error     // a refusal: Connect fails
	lost    error     // a connection's last failed attempt: Connect stops
	lostAt  *endpoint // where
}

// run opens connections from the queue until it is empty, Connect
// stops, or this opener retires after a timeout.
func (o *openers) run(ctx context.Context) {
	for {
		o.mu.Lock()
		if o.err != nil || o.lost != nil || len(o.queue) == 0 || ctx.Err() != nil {
			o.running--
			o.mu.Unlock()
			return
		}
		j := o.queue[0]
		o.queue = o.queue[1:]
		o.mu.Unlock()
		c, err := j.e.pool.Acquire(ctx)
		o.mu.Lock()
		timedOut := err != nil && connectTimedOut(err)
		switch {
		case err == nil:
			o.held = append(o.held, c)
		case ctx.Err() != nil:
			// Interrupted: Connect returns ctx's error.
		case !timedOut && !IsConnectionError(err):
			if o.err == nil {
				o.err = describeConnectError(j.e.pool.Config(), err)
			}
		case j.tries+1 < ConnectAttempts:
			j.tries++
			o.queue = append(o.queue, j) // after the others
			if timedOut && o.running > 1 {
				// The server starts fewer connections within the
				// timeout than there are openers: one fewer.
				o.running--
				o.mu.Unlock()
				return
			}
		case o.lost == nil:
			o.lost, o.lostAt = err, j.e
		}
		o.mu.Unlock()
	}
}

// connectTimedOut reports whether a connection attempt failed because it
// took longer than its connect timeout.
func connectTimedOut(err error) bool {
	return pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded)
}
