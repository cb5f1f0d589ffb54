package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/cacheline"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Operation indexes in QueryLoad.Ops, which are also indexes of txs.
const (
	opNewOrder = iota
	opPayment
	opOrderStatus
	opDelivery
	opStockLevel
)

// txInfo describes a transaction type.
type txInfo struct {
	// name is the operation's name in reports and --mix.
	name string
	// keying and think are the keying time and the mean think time of
	// clause 5.2.5.7.
	keying, think time.Duration
	// readOnly transactions start READ ONLY.
	readOnly bool
	// new returns the transaction's state for a worker.
	new func(w *worker) tpccTx
}

// tpccTx is one worker's instance of a transaction type.
type tpccTx interface {
	// draw chooses the inputs of the next transaction (clauses 2.x.1);
	// retries reuse them.
	draw()
	// run executes the transaction once inside tx.
	run(ctx context.Context, tx sqlx.Tx) error
	// count adds the transaction just completed (its last run succeeded)
	// to the worker's audit counters.
	count(a *auditCounts)
}

// numTxs is the number of transaction types.
const numTxs = opStockLevel + 1

// txs are the transaction types, indexed by op.
var txs = []txInfo{
	opNewOrder:    {name: "newOrder", keying: 18 * time.Second, think: 12 * time.Second, new: newNewOrder},
	opPayment:     {name: "payment", keying: 3 * time.Second, think: 12 * time.Second, new: newPayment},
	opOrderStatus: {name: "orderStatus", keying: 2 * time.Second, think: 10 * time.Second, readOnly: true, new: newOrderStatus},
	opDelivery:    {name: "delivery", keying: 2 * time.Second, think: 5 * time.Second, new: newDelivery},
	opStockLevel:  {name: "stockLevel", keying: 2 * time.Second, think: 5 * time.Second, readOnly: true, new: newStockLevel},
}

// txIndex returns the index in txs of the transaction named name, or -1.
func txIndex(name string) int {
	for i, t := range txs {
		if t.name == name {
			return i
		}
	}
	return -1
}

// workerStream is the random stream of worker w: bit 63 set, so that it
// never coincides with a data batch's stream.
func workerStream(w int) uint64 { return 1<<63 | uint64(w) }

// errRollback is returned by a transaction's run to roll back on purpose
// (New-Order's unused item, clause 2.4.2.3); the worker counts it a
// success. It wraps workload.ErrRollback, which tells workload.RunTx.
var errRollback = fmt.Errorf("tpcc: intended rollback: %w", workload.ErrRollback)

// meta is what tpcc_meta records of the load.
type meta struct {
	version    string
	warehouses int64
	cLastLoad  int64
	// fresh is true until the first run (consistency condition 3.3.2.11).
	fresh bool
}

// readMeta reads tpcc_meta (in column mode, the tenant's row). A missing
// table means no load; an empty one, an unfinished load (postLoad writes
// the row last). The columns after c_last_load_c are read only when the
// version is this one's: the error about another version must not be a
// missing column.
func (g *tpcc) readMeta(ctx context.Context, db *sqlx.DB) (meta, error) {
	var m meta
	if err := g.refuseCopy(ctx, db); err != nil {
		return m, err
	}
	exists, err := tableExists(ctx, db, metaTable)
	if err != nil {
		return m, err
	}
	if !exists {
		if built, ok, err := g.hammerBuilt(ctx, db); err != nil || ok {
			return built, err
		}
		return m, fmt.Errorf("table %s does not exist in database %s: run `stampede init tpcc` first", metaTable, db.Database())
	}
	where, args := g.metaWhere(1)
	rows, err := db.Query(ctx, "SELECT version, warehouses, c_last_load_c FROM "+metaTable+where, args...)
	if err != nil {
		if g.tenant > 0 && sqlx.SQLState(err) == "42703" { // undefined_column: tenant_id
			return m, g.noTenantColumnError(db)
		}
		return m, fmt.Errorf("reading %s: %w", metaTable, err)
	}
	found := rows.Next()
	more := false
	if found {
		err = rows.Scan(&m.version, &m.warehouses, &m.cLastLoad)
		more = err == nil && rows.Next()
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return m, fmt.Errorf("reading %s: %w", metaTable, err)
	}
	switch {
	case !found && g.tenant > 0:
		return m, g.tenantNotLoadedError(db)
	case !found:
		return m, g.unfinishedLoad(ctx, db)
	case more:
		return m, tenantsInMetaError(db)
	}
	if m.version == schemaVersion {
		if err := db.QueryRow(ctx, "SELECT fresh FROM "+metaTable+where, args...).Scan(&m.fresh); err != nil {
			return m, fmt.Errorf("reading %s: %w", metaTable, err)
		}
	}
	return m, nil
}

// refuseCopy returns the error about a copy of a database stampede loaded
// (CREATE DATABASE ... TEMPLATE) whose record of the load the user
// dropped (workload.UnfinishedLoadError with its Copy): the tables' marks
// name the database they were made in. Without it, the copy's tpcc_meta,
// or its absence, spoke for the load: run and check went on over a copy
// with no word, or advised an init that refuses the copy's tables. A
// fleet's tenant (which records no load) is left to its own checks.
func (g *tpcc) refuseCopy(ctx context.Context, db *sqlx.DB) error {
	if g.tenant > 0 || db.Null() || db.Dialect().Name() != "postgres" {
		return nil
	}
	err := workload.UnfinishedTable(ctx, db, g.Meta().Name, workload.DataKeyOf(g), warehouseTable)
	var u *workload.UnfinishedLoadError
	if errors.As(err, &u) && u.Copy == nil {
		return nil // an interrupted init's: tpcc_meta says it in its own words
	}
	return err
}

// unfinishedLoad returns the error about a database whose tpcc_meta is
// empty: `stampede init` stopped before the end. It says which tables
// hold rows and which are empty (a cheap look, not a count), and the
// command that starts over with the interrupted init's --warehouses: the
// one given, or, when none was, as many as table warehouse holds (the
// first table a load fills; more if the init was cut short in it). It
// matches workload.ErrUnfinishedLoad.
func (g *tpcc) unfinishedLoad(ctx context.Context, db *sqlx.DB) error {
	var some, empty []string
	for _, t := range dataTables {
		ok, err := tableExists(ctx, db, t)
		if err != nil {
			return err
		}
		q := dialect.Postgres{}.QuoteIdent(t)
		if ok {
			if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+q+")").Scan(&ok); err != nil {
				return fmt.Errorf("looking into table %s: %w", t, err)
			}
		}
		if ok {
			some = append(some, t)
		} else {
			empty = append(empty, t)
		}
	}
	what := "every table holds rows but the load did not finish (indexes, foreign keys or tpcc_meta)"
	switch {
	case len(some) == 0:
		what = "every table is empty"
	case len(empty) > 0:
		what = fmt.Sprintf("tables with rows (maybe not all): %s; empty: %s", strings.Join(some, ", "), strings.Join(empty, ", "))
	}
	start := "run `stampede init tpcc --drop` to start over"
	if !g.flags.Changed("warehouses") && slices.Contains(some, warehouseTable) {
		var n int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM "+warehouseTable).Scan(&n); err != nil {
			return fmt.Errorf("counting table %s: %w", warehouseTable, err)
		}
		start = fmt.Sprintf("run `stampede init tpcc --drop --warehouses %d` to start over (table %s holds %s: give the interrupted init's --warehouses if it was more)",
			n, warehouseTable, nWarehouses(n))
	}
	return unfinished(fmt.Sprintf("database %s holds an unfinished tpcc load (an init was interrupted or failed; %s): %s",
		db.Database(), what, start))
}

// unfinished is the error of an unfinished load: it matches
// workload.ErrUnfinishedLoad (bad input: the database must be reloaded).
type unfinished string

func (e unfinished) Error() string { return string(e) }
func (e unfinished) Unwrap() error { return workload.ErrUnfinishedLoad }

// Ops implements the Opser interface. Worker i's home warehouse is the
// (i mod n)th of the n home warehouses (round robin over the active ones,
// the client's share of them with --clients, --warehouse-range's; in
// column mode, of the tenant's) and its Stock-Level district (i / n) mod 10 + 1
// (clause 2.8.1.2 fixes one per terminal). With --wait, Attach waits the
// terminal's first keying time (see firstWait). It warns about a run that
// is not TPC-C's (runWarnings) and says in the QueryLoad's Header how the
// run goes.
func (g *tpcc) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if err := g.validate(); err != nil {
		return workload.QueryLoad{}, err
	}
	iso, _ := g.txIsolation()
	var cLoad int64
	if !db.Null() {
		if err := g.checkProfile(ctx, db); err != nil {
			return workload.QueryLoad{}, err
		}
		m, err := g.readMeta(ctx, db)
		if err != nil {
			return workload.QueryLoad{}, err
		}
		if err := g.checkMeta(m, db); err != nil {
			return workload.QueryLoad{}, err
		}
		cLoad = m.cLastLoad
		// The run changes the data: 3.3.2.11 no longer has to hold. A
		// server that refuses the write (a read-only standby) runs no
		// transaction that could break it either.
		if m.fresh {
			q, args := "UPDATE "+metaTable+" SET fresh = false WHERE fresh", []any(nil)
			if g.tenant > 0 {
				q, args = q+" AND "+workload.TenantColumn+" = $1", []any{int64(g.tenant)}
			}
			if _, err := db.Exec(ctx, q, args...); err != nil && oc.Warn != nil {
				oc.Warn("cannot mark %s as run: %v", metaTable, err)
			}
		}
	}
	if g.hammerdb() {
		return g.hammerOps(ctx, db, oc)
	}
	if g.hdb.serverSide && !db.Null() {
		if err := g.checkRoutines(ctx, db); err != nil {
			return workload.QueryLoad{}, err
		}
	}
	if oc.Warn != nil {
		for _, w := range g.runWarnings(oc) {
			oc.Warn("%s", w)
		}
	}
	c := runConstants(randgen.New(oc.Seed, 1<<62), cLoad)
	workers := make([]*worker, oc.Concurrency)
	g.run = runState{db: db, duration: oc.Duration, stop: make(chan struct{}), stopOnce: &sync.Once{}}
	stop, cycle := g.run.stop, scaleWait(meanCycle(g.weights), g.waitFactor)
	turns := newTurns(g.activeWorkers, oc.Concurrency)
	ql := workload.QueryLoad{
		Ops:     make([]string, len(txs)),
		Classes: make([]workload.OpClass, len(txs)),
		Workers: make([]workload.Worker, oc.Concurrency),
		Attach: func(i int, rec workload.Recorder) {
			workers[i].rec = rec
			if g.wait {
				workers[i].keyFirst(ctx, stop, cycle)
			}
		},
		Header: g.header(iso, oc.Concurrency),
	}
	if g.split() {
		ql.Header = append(ql.Header, g.clientHeader(oc.Concurrency))
	}
	if g.hdb.serverSide {
		ql.Header = append(ql.Header, g.label()+": --server-side: each transaction is one call of a server-side function init installed (stampede_neword, stampede_payment, stampede_ostat, stampede_delivery, stampede_slev), inputs drawn by the client")
	}
	for i, t := range txs {
		ql.Ops[i] = t.name
		ql.Classes[i] = workload.ClassTransaction
	}
	homeFirst, _ := g.home()
	homeN := g.homeCount()
	for i := range workers {
		w := &worker{
			conn: db.Conn(i, true), d: db.Dialect(), rec: nopRecorder{}, r: randgen.New(oc.Seed, workerStream(i)),
			null: db.Null(), c: c, iso: iso, serverSide: g.hdb.serverSide, wait: g.wait, waitFactor: g.waitFactor, turns: turns, noRetry: !g.txnRetries,
			warehouses: int64(g.warehouses),
			firstWID:   g.whOffset() + 1,
			wID:        homeFirst + int64(i%homeN),
			dID:        int64(i/homeN%districtsPerWH + 1),
		}
		for _, t := range txs {
			w.txs = append(w.txs, t.new(w))
		}
		w.deck = newDeck(g.weights)
		w.r.Shuffle(len(w.deck), func(a, b int) { w.deck[a], w.deck[b] = w.deck[b], w.deck[a] })
		workers[i] = w
		ql.Workers[i] = w.run
	}
	g.workers = workers
	ql.Close = func(context.Context) error {
		g.stopWaits()
		for _, w := range workers {
			w.conn.Release()
		}
		return nil
	}
	return ql, nil
}

// newDeck returns the cards of the mix: weights[i] cards of transaction i
// (clause 5.2.4.2's card deck), unshuffled.
func newDeck(weights []int) []int {
	var deck []int
	for i, n := range weights {
		for range n {
			deck = append(deck, i)
		}
	}
	return deck
}

// worker is one terminal (clause 5.2): its home warehouse, stream,
// connection and deck. It is not safe for concurrent use.
type worker struct {
	_          cacheline.Pad // written on every transaction: off other workers' lines
	conn       sqlx.Conn
	d          dialect.Dialect // chooses the retry protocol
	rec        workload.Recorder
	r          *rand.Rand
	null       bool // the null driver: reads find no rows
	c          cConstants
	iso        sqlx.Isolation
	wait       bool
	waitFactor float64 // --wait's factor of the keying and think times
	turns      turns   // --active-workers' turns, nil for none
	noRetry    bool    // --txn-retries=false
	serverSide bool    // --server-side: calls the transactions' functions
	warehouses int64   // how many: the tenant's in column mode
	firstWID   int64   // the first warehouse (the tenant's in column mode)
	wID        int64   // home warehouse
	dID        int64   // Stock-Level's district
	txs        []tpccTx
	deck       []int
	card       int  // next card of deck
	started    bool // whether next holds the drawn next transaction
	next       int
	audit      auditCounts
	_          cacheline.Pad
}

// nopRecorder is the Recorder of a worker that was never attached.
type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}
func (nopRecorder) RecordError(int, error)    {}

// draw returns the next transaction of the deck, reshuffling it when it
// is used up.
func (w *worker) draw() int {
	if w.card == len(w.deck) {
		w.r.Shuffle(len(w.deck), func(a, b int) { w.deck[a], w.deck[b] = w.deck[b], w.deck[a] })
		w.card = 0
	}
	w.card++
	return w.deck[w.card-1]
}

// thinkTime returns a think time of mean mean: negative exponential,
// truncated at 10 times the mean (clause 5.2.5.4).
func (w *worker) thinkTime(mean time.Duration) time.Duration {
	t := -math.Log(1-w.r.Float64()) * float64(mean)
	return time.Duration(min(t, 10*float64(mean)))
}

// run performs one transaction; it is the workload.Worker. With --wait,
// Result.Wait is this transaction's think time plus the keying time of
// the next one, which is drawn now (the first one's keying time is
// waited in Attach: keyFirst).
func (w *worker) run(ctx context.Context) workload.Result {
	if !w.started {
		w.next = w.draw()
		w.started = true
	}
	op := w.next
	res := w.runTx(ctx, op)
	if w.wait {
		res.Wait = scaleWait(w.advance(op), w.waitFactor)
	} else {
		w.next = w.draw()
	}
	return res
}

// advance draws the transaction after op and returns the terminal's wait
// before it, unscaled: op's think time and the next one's keying time.
func (w *worker) advance(op int) time.Duration {
	w.next = w.draw()
	return w.thinkTime(txs[op].think) + txs[w.next].keying
}

// runTx draws the inputs of transaction op and runs it through
// workload.RunTx, with the retry protocol of the server's dialect:
// serialization failures, deadlocks and lost connections are retried
// (each retry counted through the Recorder), and errRollback rolls back
// and counts as success.
func (w *worker) runTx(ctx context.Context, op int) workload.Result {
	t := w.txs[op]
	t.draw()
	// BEGIN goes with the first statement and COMMIT with the last (see
	// sqlx.QueryCommit): Payment and Delivery, one statement each, take
	// one round trip instead of three.
	opts := sqlx.TxOptions{Isolation: w.iso, ReadOnly: txs[op].readOnly, Pipeline: true}
	if !w.turns.take(ctx) {
		return workload.Result{Op: op, Err: ctx.Err()}
	}
	body := func(tx sqlx.Tx) error { return t.run(ctx, tx) }
	if w.serverSide {
		body = func(tx sqlx.Tx) error { return t.(serverTx).runServer(ctx, tx) }
	}
	var err error
	if w.noRetry {
		err = workload.RunTxOnce(ctx, w.conn, opts, body)
	} else {
		err = workload.RunTx(ctx, w.conn, w.d, opts, w.rec, op, txs[op].name, body)
	}
	w.turns.give()
	if errors.Is(err, errRollback) {
		err = nil
	}
	if err == nil {
		w.audit.done[op].Add(1)
		t.count(&w.audit)
	}
	return workload.Result{Op: op, Err: err}
}

// otherWarehouse returns a warehouse other than the home one, uniform
// among the worker's warehouses (the tenant's in column mode; warehouses
// must be > 1).
func (w *worker) otherWarehouse() int64 {
	o := w.firstWID + w.r.Int64N(w.warehouses-1)
	if o >= w.wID {
		o++
	}
	return o
}

// customerByName returns the C_ID of the customer with last name last in
// district (cw, cd) at position ceil(n/2) of the n matches sorted by
// C_FIRST (clauses 2.5.2.2 and 2.6.2.2). With the null driver it returns
// customer 1.
func customerByName(ctx context.Context, tx sqlx.Tx, null bool, cw, cd int64, last string) (int64, error) {
	rows, err := tx.Query(ctx, "SELECT c_id FROM "+customerTable+
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first", cw, cd, last)
	if err != nil {
		return 0, fmt.Errorf("selecting customers by last name: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("selecting customers by last name: %w", err)
	}
	if len(ids) == 0 {
		if null {
			return 1, nil
		}
		return 0, fmt.Errorf("no customer named %s in warehouse %d district %d", last, cw, cd)
	}
	return ids[(len(ids)+1)/2-1], nil
}
