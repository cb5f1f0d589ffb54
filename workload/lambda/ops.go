package lambda

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Operations, indexed as in QueryLoad.Ops.
const (
	opIngest = iota
	opHot
	opServe
	opBatch
	opHotStaleness
	opServeStaleness
)

// opNames are the operations' names.
var opNames = []string{"ingest", "hot", "serve", "batch", "hot/staleness", "serve/staleness"}

// workerStream is worker w's random stream: (run seed, 1<<32|w).
func workerStream(w int) uint64 { return 1<<32 | uint64(w) }

// run is the shared state of one run's workers.
type run struct {
	g       *lambda
	db      *sqlx.DB
	d       dialect.Dialect
	ingest  int // ingest workers
	recs    []workload.Recorder
	planned []time.Time // each worker's intended start of its current call
	// committed[i] is the timestamp (Unix microseconds) up to which
	// ingest worker i has committed all its events: its events are
	// stamped in increasing order and sent in that order.
	committed []atomic.Int64

	ingesters []*ingester
	hot       *hotWorker
	serve     *serveWorker
	batch     *batchWorker
	conns     []sqlx.Conn
}

// horizon returns the newest instant up to which every event of the run
// has been committed: the earliest of the ingest workers' committed
// timestamps. A recompute that covers ts <= horizon then misses no event
// a late commit could still add (whichever worker it came from).
func (r *run) horizon() time.Time {
	h := r.committed[0].Load()
	for i := 1; i < len(r.committed); i++ {
		h = min(h, r.committed[i].Load())
	}
	return time.UnixMicro(h)
}

// Ops implements the Opser interface. Workers 0..n-4 ingest, each at an
// equal share of the batches; worker n-3 runs the hot path, n-2 the
// serving queries and n-1 the batch recomputes, each at its own rate
// (QueryLoad.RateShares).
func (g *lambda) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	r, err := g.newRun(db, oc)
	if err != nil {
		return workload.QueryLoad{}, err
	}
	ingestRate, hot, serve, batch := g.rates()
	n := oc.Concurrency
	ql := workload.QueryLoad{
		Ops:        opNames,
		Workers:    make([]workload.Worker, n),
		RateShares: make([]float64, n),
		Attach:     func(w int, rec workload.Recorder) { r.recs[w] = rec },
		Scheduled: func(w int, intended time.Time, _ bool) {
			r.planned[w] = intended
		},
		Header: []string{r.header()},
		Close:  func(context.Context) error { r.close(); return nil },
	}
	for w, in := range r.ingesters {
		ql.Workers[w], ql.RateShares[w] = in.run, ingestRate/float64(r.ingest)
	}
	if r.hot != nil {
		ql.Workers[r.hot.w], ql.RateShares[r.hot.w] = r.hot.run, hot
	}
	if r.serve != nil {
		ql.Workers[r.serve.w], ql.RateShares[r.serve.w] = r.serve.run, serve
	}
	if r.batch != nil {
		ql.Workers[r.batch.w], ql.RateShares[r.batch.w] = r.batch.run, batch
	}
	return ql, nil
}

// newRun prepares a run's workers (see Ops).
func (g *lambda) newRun(db *sqlx.DB, oc workload.OpsConfig) (*run, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	n := oc.Concurrency
	paths := g.pathWorkers()
	if n < 1+paths {
		return nil, usageError{fmt.Errorf("lambda needs --concurrency %d or more (one or more ingest workers, and one for each path that runs: the hot path, the serving queries, the batch recompute), not %d", 1+paths, n)}
	}
	r := &run{g: g, db: db, d: db.Dialect(), ingest: n - paths,
		recs: make([]workload.Recorder, n), planned: make([]time.Time, n), committed: make([]atomic.Int64, n-paths)}
	// Before any event of this run: the first is stamped one ingest
	// interval before its worker's first intended start, at the earliest.
	start := time.Now().Add(-r.ingestInterval() - time.Millisecond).UnixMicro()
	for i := range r.committed {
		r.committed[i].Store(start)
	}
	g.mu.Lock()
	g.last = recomputes{ran: true, ingestRate: g.ingestRate}
	g.mu.Unlock()
	conn := func(w int) sqlx.Conn {
		c := db.Conn(w, true)
		r.conns = append(r.conns, c)
		return c
	}
	for w := range r.ingest {
		in := newIngester(r, w, randgen.New(oc.Seed, workerStream(w)))
		if g.ingest == ingestInsert {
			in.conn = conn(w)
		}
		r.ingesters = append(r.ingesters, in)
	}
	w := r.ingest
	if g.hotRate > 0 {
		r.hot = &hotWorker{r: r, w: w, conn: conn(w)}
		w++
	}
	if g.serveRate > 0 {
		r.serve = &serveWorker{r: r, w: w, conn: conn(w), rand: randgen.New(oc.Seed, workerStream(w))}
		w++
	}
	if g.batchEvery > 0 {
		r.batch = &batchWorker{r: r, w: w, conn: conn(w)}
	}
	return r, nil
}

// close releases the run's connections.
func (r *run) close() {
	for _, c := range r.conns {
		c.Release()
	}
	r.conns = nil
}

// header says how the run's paths run.
func (r *run) header() string {
	g := r.g
	hot, serve, batch := "no hot path", "no serving queries", "no batch recompute"
	if r.hot != nil {
		hot = fmt.Sprintf("hot path every %s over %s", rateEvery(g.hotRate), g.window)
	}
	if r.serve != nil {
		serve = fmt.Sprintf("serving %g/s", g.serveRate)
	}
	if r.batch != nil {
		batch = fmt.Sprintf("batch recompute every %s", g.batchEvery)
	}
	return fmt.Sprintf("lambda: %d ingest workers at %g events/s in batches of %d (%s), %s, %s, %s",
		r.ingest, g.ingestRate, g.batch, g.ingest, hot, serve, batch)
}

// rateEvery says how often a path at rate runs: "500ms".
func rateEvery(rate float64) time.Duration {
	return time.Duration(float64(time.Second) / rate).Round(time.Microsecond)
}

// ingestInterval is the time between one ingest worker's batches.
func (r *run) ingestInterval() time.Duration {
	return time.Duration(float64(time.Second) * float64(r.ingest) / r.g.batchRate())
}

// intended returns worker w's intended start of its current call (now
// without a schedule).
func (r *run) intended(w int) time.Time {
	if t := r.planned[w]; !t.IsZero() {
		return t
	}
	return time.Now()
}

// record records d in series op of worker w's Recorder, if attached.
func (r *run) record(w, op int, d time.Duration) {
	if rec := r.recs[w]; rec != nil {
		rec.Record(op, d)
	}
}

// ingester is an ingest worker: its batch's rows and its stream. It is
// not safe for concurrent use.
type ingester struct {
	r        *run
	w        int
	rand     *rand.Rand
	conn     sqlx.Conn // --ingest insert
	interval time.Duration
	seq      int64 // events this worker has made
	rows     [][]any
	vals     []any // --ingest insert: the rows' values, boxed once per run
	args     []any // --ingest insert: the INSERT's arguments
	insert   string
	// --ingest copy: the batch written straight into COPY's binary
	// stream (write, once per COPY: sent says it was), not boxed
	// through pgx's type map, which took 62% of the client's CPU at
	// 120,000 events/s (pprof).
	write func(*sqlx.RowWriter) bool
	sent  bool
	// the typed values of the batch, bound by pointer
	devices                    []int32
	ts                         []time.Time
	temps, humidity, pressures []int32
}

func newIngester(r *run, w int, rnd *rand.Rand) *ingester {
	b := r.g.batch
	in := &ingester{r: r, w: w, rand: rnd, interval: r.ingestInterval(),
		devices: make([]int32, b), ts: make([]time.Time, b), temps: make([]int32, b), humidity: make([]int32, b), pressures: make([]int32, b)}
	in.rows = make([][]any, b)
	in.vals = make([]any, 5*b)
	for i := range b {
		in.vals[5*i], in.vals[5*i+1], in.vals[5*i+2], in.vals[5*i+3], in.vals[5*i+4] =
			&in.devices[i], &in.ts[i], &in.temps[i], &in.humidity[i], &in.pressures[i]
		in.rows[i] = in.vals[5*i : 5*i+5]
	}
	in.write = in.writeBatch
	if r.g.ingest == ingestInsert {
		in.insert = "INSERT INTO " + eventsTable + " (device, ts, temp, humidity, pressure) VALUES " + valuesList(r.d, b, 5)
		in.args = in.vals
	}
	return in
}

// valuesList returns rows tuples of cols placeholders each: "($1, $2), ($3, $4)".
func valuesList(d dialect.Dialect, rows, cols int) string {
	b := make([]byte, 0, rows*cols*6)
	for i := range rows {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		b = append(b, dialect.Placeholders(d, i*cols+1, cols)...)
		b = append(b, ')')
	}
	return string(b)
}

// fill makes the batch whose last event is due at end: the sensors'
// events of the worker's interval before end, evenly spaced, each from
// the next device of the worker's round robin, readings drawn from its
// stream: temperature in thousandths of a degree around 21 C (each
// device its own offset), humidity in tenths of a percent, pressure in
// pascals.
func (in *ingester) fill(end time.Time) {
	b := len(in.ts)
	g := in.r.g
	for i := range b {
		dev := (int64(in.w) + in.seq*int64(in.r.ingest)) % int64(g.sensors)
		in.seq++
		in.devices[i] = int32(dev)
		at := end.Add(-in.interval + in.interval*time.Duration(i+1)/time.Duration(b))
		in.ts[i] = at.Truncate(time.Microsecond) // the server's precision: stored exactly
		in.temps[i] = int32(16000 + dev%10*1000 + in.rand.Int64N(2000))
		in.humidity[i] = int32(300 + in.rand.Int64N(400))
		in.pressures[i] = int32(99000 + in.rand.Int64N(4000))
	}
}

// writeBatch writes the batch (fill's) into w the first time it is
// called for a COPY and returns false after: CopyEncoded's fill.
func (in *ingester) writeBatch(w *sqlx.RowWriter) bool {
	if in.sent {
		return false
	}
	in.sent = true
	for i := range in.ts {
		w.Row()
		w.Int(int64(in.devices[i]))
		w.Time(in.ts[i])
		w.Int(int64(in.temps[i]))
		w.Int(int64(in.humidity[i]))
		w.Int(int64(in.pressures[i]))
	}
	return true
}

// run sends one batch: COPY or one multi-row INSERT. It is the
// workload.Worker of an ingest worker.
func (in *ingester) run(ctx context.Context) workload.Result {
	in.fill(in.r.intended(in.w))
	var n int64
	var err error
	if in.conn != nil {
		n, err = in.conn.Exec(ctx, in.insert, in.args...)
	} else {
		in.sent = false
		n, err = in.r.db.CopyEncoded(ctx, in.w, eventsTable, eventColumns, in.write)
	}
	switch {
	case err != nil:
		return workload.Result{Op: opIngest, Err: fmt.Errorf("ingesting %d events: %w", len(in.rows), err)}
	case n != int64(len(in.rows)) && !in.r.db.Null():
		return workload.Result{Op: opIngest, Err: fmt.Errorf("ingesting %d events: the server stored %d", len(in.rows), n)}
	}
	in.r.committed[in.w].Store(in.ts[len(in.ts)-1].UnixMicro())
	return workload.Result{Op: opIngest}
}

// hotWorker runs the hot path's sliding-window aggregates.
type hotWorker struct {
	r    *run
	w    int
	conn sqlx.Conn
	last hotAnswer // the last answer
}

// hotAnswer is one answer of the hot path: the window's aggregates per
// device and over every device.
type hotAnswer struct {
	devices int
	global  aggregate
}

// aggregate is count, min, max and sum of the temperature, and the
// newest event's timestamp.
type aggregate struct {
	events   int64
	min, max int32
	sum      int64
	newest   time.Time
}

// add merges a into g.
func (g *aggregate) add(a aggregate) {
	if a.events == 0 {
		return
	}
	if g.events == 0 || a.min < g.min {
		g.min = a.min
	}
	if g.events == 0 || a.max > g.max {
		g.max = a.max
	}
	g.events += a.events
	g.sum += a.sum
	if a.newest.After(g.newest) {
		g.newest = a.newest
	}
}

// hotQuery is the hot path's statement: the window's aggregates per
// device (the global ones are their merge, made by the client).
func hotQuery(d dialect.Dialect) string {
	return "SELECT device, count(*), min(temp), max(temp), sum(temp), max(ts) FROM " + eventsTable +
		" WHERE ts > " + d.Placeholder(1) + " GROUP BY device"
}

// query runs the hot path's query for the window ending at now.
func (h *hotWorker) query(ctx context.Context, now time.Time) (hotAnswer, error) {
	rows, err := h.conn.Query(ctx, hotQuery(h.r.d), now.Add(-h.r.g.window))
	if err != nil {
		return hotAnswer{}, fmt.Errorf("hot path: %w", err)
	}
	defer rows.Close()
	var ans hotAnswer
	var dev int32
	var a aggregate
	var sum int64
	for rows.Next() {
		if err := rows.Scan(&dev, &a.events, &a.min, &a.max, &sum, &a.newest); err != nil {
			return hotAnswer{}, fmt.Errorf("hot path: %w", err)
		}
		a.sum = sum
		ans.devices++
		ans.global.add(a)
	}
	if err := rows.Err(); err != nil {
		return hotAnswer{}, fmt.Errorf("hot path: %w", err)
	}
	return ans, nil
}

// run is the hot path's workload.Worker: the window's aggregates, and the
// answer's staleness, now minus the newest event it included (none when
// the window held no event).
func (h *hotWorker) run(ctx context.Context) workload.Result {
	ans, err := h.query(ctx, time.Now())
	if err != nil {
		return workload.Result{Op: opHot, Err: err}
	}
	h.last = ans
	if ans.global.events > 0 {
		h.r.record(h.w, opHotStaleness, time.Since(ans.global.newest))
	}
	return workload.Result{Op: opHot}
}

// serveWorker runs the serving queries.
type serveWorker struct {
	r    *run
	w    int
	conn sqlx.Conn
	rand *rand.Rand
	last aggregate // the last answer
}

// serveQuery is the serving statement: device $1's events since $2 (an
// hour's start, UTC) from the batch view's hours, plus the raw events
// after the view's horizon (all of them before the first recompute):
// count, min, max and sum of the temperature and the newest event's
// timestamp.
func serveQuery(d dialect.Dialect) string {
	p := d.Placeholder
	return "WITH m AS (SELECT horizon FROM " + metaTable + " WHERE id = 1), " +
		"b AS (SELECT coalesce(sum(events), 0) AS n, min(min_temp) AS lo, max(max_temp) AS hi, coalesce(sum(sum_temp), 0) AS s, max(newest) AS newest FROM " + viewTable +
		" WHERE device = " + p(1) + " AND hour >= " + p(2) + "), " +
		"r AS (SELECT count(*) AS n, min(temp) AS lo, max(temp) AS hi, coalesce(sum(temp), 0) AS s, max(ts) AS newest FROM " + eventsTable +
		" WHERE device = " + p(1) + " AND ts >= " + p(3) + " AND ts > coalesce((SELECT horizon FROM m), " + p(3) + " - INTERVAL '1 microsecond')) " +
		"SELECT b.n + r.n, least(b.lo, r.lo), greatest(b.hi, r.hi), b.s + r.s, greatest(b.newest, r.newest) FROM b, r"
}

// since returns the start of the serving query's span at now: the start
// of the hour 23 hours before now's (24 hours of buckets, now's
// included), UTC.
func since(now time.Time) time.Time {
	return now.UTC().Add(-23 * time.Hour).Truncate(time.Hour)
}

// serve answers "the last 24 hours of device dev" at now.
func (s *serveWorker) serve(ctx context.Context, dev int32, now time.Time) (aggregate, error) {
	from := since(now)
	var a aggregate
	var lo, hi *int32
	var sum int64
	var newest *time.Time
	// The view's hours are UTC timestamps without a time zone: bound as
	// such (pgx sends a time.Time in UTC as timestamp).
	if err := s.conn.QueryRow(ctx, serveQuery(s.r.d), dev, from, from).Scan(&a.events, &lo, &hi, &sum, &newest); err != nil {
		return aggregate{}, fmt.Errorf("serving device %d: %w", dev, err)
	}
	a.sum = sum
	if lo != nil {
		a.min, a.max = *lo, *hi
	}
	if newest != nil {
		a.newest = *newest
	}
	return a, nil
}

// run is the serving queries' workload.Worker: a device drawn uniformly,
// and the answer's staleness (none when the device has no event).
func (s *serveWorker) run(ctx context.Context) workload.Result {
	dev := int32(s.rand.IntN(s.r.g.sensors))
	a, err := s.serve(ctx, dev, time.Now())
	if err != nil {
		return workload.Result{Op: opServe, Err: err}
	}
	s.last = a
	if a.events > 0 {
		s.r.record(s.w, opServeStaleness, time.Since(a.newest))
	}
	return workload.Result{Op: opServe}
}

// batchWorker runs the batch recomputes.
type batchWorker struct {
	r    *run
	w    int
	conn sqlx.Conn
}

// recomputeSQL is the batch view's recompute from the raw events up to
// horizon $1: per device and hour (UTC), count, min, max, sum and avg of
// the temperature and the newest timestamp.
func recomputeSQL(d dialect.Dialect) string {
	return "INSERT INTO " + viewTable + " (device, hour, events, min_temp, max_temp, sum_temp, avg_temp, newest) " +
		viewSelect(d.Placeholder(1))
}

// viewSelect is the batch view's rows computed from the raw events with
// ts <= horizon (an expression).
func viewSelect(horizon string) string {
	return "SELECT device, date_trunc('hour', ts AT TIME ZONE 'UTC'), count(*), min(temp), max(temp), sum(temp), avg(temp), max(ts) FROM " +
		eventsTable + " WHERE ts <= " + horizon + " GROUP BY device, date_trunc('hour', ts AT TIME ZONE 'UTC')"
}

// recompute replaces the batch view with one recomputed from the raw
// events up to the run's horizon, in one transaction (the serving
// queries see the old view or the new one, with its horizon), and
// returns the view's rows and the events they count.
func (b *batchWorker) recompute(ctx context.Context) (rows, events int64, horizon time.Time, err error) {
	horizon = b.r.horizon()
	p := b.r.d.Placeholder
	var rec workload.Recorder = nopRecorder{}
	if r := b.r.recs[b.w]; r != nil {
		rec = r
	}
	err = workload.RunTx(ctx, b.conn, b.r.d, sqlx.TxOptions{}, rec, opBatch, "batch recompute", func(tx sqlx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM "+viewTable); err != nil {
			return err
		}
		n, err := tx.Exec(ctx, recomputeSQL(b.r.d), horizon)
		if err != nil {
			return err
		}
		rows = n
		if err := tx.QueryRow(ctx, "UPDATE "+metaTable+" SET horizon = "+p(1)+", computed_at = now(), view_rows = "+p(2)+
			", events = (SELECT coalesce(sum(events), 0) FROM "+viewTable+"), recomputes = recomputes + 1 WHERE id = 1 RETURNING events",
			horizon, rows).Scan(&events); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("table %s has no row: run `stampede init lambda --drop`", metaTable)
			}
			return err
		}
		return nil
	})
	return rows, events, horizon, err
}

// run is the batch recompute's workload.Worker; its latency is the
// recompute's duration.
func (b *batchWorker) run(ctx context.Context) workload.Result {
	rows, events, horizon, err := b.recompute(ctx)
	if err != nil {
		return workload.Result{Op: opBatch, Err: fmt.Errorf("batch recompute: %w", err)}
	}
	g := b.r.g
	g.mu.Lock()
	g.last.count++
	g.last.rows, g.last.events, g.last.horizon = rows, events, horizon
	g.last.totalRows += rows
	g.mu.Unlock()
	return workload.Result{Op: opBatch}
}

// nopRecorder is the Recorder of a worker that was never attached.
type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}
func (nopRecorder) RecordError(int, error)    {}

// usageError is an error of the run's settings (workload.ErrUsage), which
// reads as its own message alone.
type usageError struct{ error }

// Is makes a usageError match workload.ErrUsage.
func (usageError) Is(target error) bool { return target == workload.ErrUsage }
