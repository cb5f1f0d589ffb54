package tpcc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// The statements that call the routines, as HammerDB's driver calls them:
// functions through prepared SELECTs (each prepared once per connection,
// see hammerWorker.exec), procedures with CALL and placeholder values for
// their INOUT arguments.
const (
	callNewOrderFunc = "SELECT neword($1, $2, $3, $4, $5, 0)"
	callPaymentFunc  = "SELECT payment($1, $2, $3, $4, $5, $6, $7, $8, '0', 0)"
	callOStatFunc    = "SELECT * FROM ostat($1, $2, $3, $4, $5) AS (ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_quantity SMALLINT, " +
		"ol_amount NUMERIC, ol_delivery_d TIMESTAMP WITH TIME ZONE, out_os_c_id INTEGER, out_os_c_last CHARACTER VARYING, " +
		"os_c_first CHARACTER VARYING, os_c_middle CHARACTER VARYING, os_c_balance NUMERIC, os_o_id INTEGER, " +
		"os_entdate TIMESTAMP, os_o_carrier_id INTEGER)"
	callDeliveryFunc = "SELECT delivery($1, $2)"
	callSlevFunc     = "SELECT slev($1, $2, $3)"

	callNewOrderProc = "CALL neword($1, $2, $3, $4, $5, 0.0, '', '', 0.0, 0.0, 0, localtimestamp)"
	callPaymentProc  = "CALL payment($1, $2, $3, $4, $5, $6, '0', $7, $8, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', " +
		"localtimestamp, 0.0, 0.0, 0.0, '', localtimestamp)"
	callOStatProc    = "CALL ostat($1, $2, $3, $4, $5, '', '', 0.0, 0, localtimestamp, 0, '')"
	callDeliveryProc = "CALL delivery($1, $2, localtimestamp)"
	callSlevProc     = "CALL slev($1, $2, $3, 0)"
)

// hammerNURandC is the C of NURand(255, 0, 999) for last names in
// HammerDB's driver: fixed at 123.
const hammerNURandC = 123

// hammerWorker is one of HammerDB's virtual users: one connection, a
// random home warehouse (or, with --all-warehouses, a list of them to
// draw from), a Stock-Level district drawn once, and a transaction drawn
// at random before each call (1-10 of 23 New-Order, 11-20 Payment, 21
// Delivery, 22 Stock-Level, 23 Order-Status). It is not safe for
// concurrent use.
type hammerWorker struct {
	conn      sqlx.Conn
	r         *rand.Rand
	procs     bool
	raise     bool
	keyThink  bool
	maxW      int64   // max(w_id), HammerDB's w_id_input
	wID       int64   // the warehouse of the next transaction
	mine      []int64 // --all-warehouses: this user's warehouses
	slevD     int64
	next      int // the next transaction, drawn
	nextDrawn bool
	// raw is conn's fast path (nil without one): each call one prepared
	// statement's Bind, Execute and Sync, its parameters written as text
	// into buffers reused from call to call.
	raw    sqlx.RawQuerier
	args   []hammerArg
	params [][]byte
	bufs   [][]byte
}

// hammerArg is one argument of a routine's call: an integer, or with str
// set, s.
type hammerArg struct {
	i   int64
	s   string
	str bool
}

// num and text are the arguments of a call.
func num(v int64) hammerArg   { return hammerArg{i: v} }
func text(s string) hammerArg { return hammerArg{s: s, str: true} }

// hammerTx maps HammerDB's draw of 1-23 to stampede's op index.
func hammerTx(choice int) int {
	switch {
	case choice <= 10:
		return opNewOrder
	case choice <= 20:
		return opPayment
	case choice == 21:
		return opDelivery
	case choice == 22:
		return opStockLevel
	}
	return opOrderStatus
}

// hammerKeying and hammerThink are HammerDB's keytime and mean thinktime
// per transaction, in seconds (pg_keyandthink).
var (
	hammerKeying = [numTxs]int{opNewOrder: 18, opPayment: 3, opDelivery: 2, opStockLevel: 2, opOrderStatus: 2}
	hammerThink  = [numTxs]int{opNewOrder: 12, opPayment: 12, opDelivery: 10, opStockLevel: 5, opOrderStatus: 5}
)

// thinkTime is HammerDB's thinktime: -ln(U) x mean, rounded to whole
// seconds.
func (w *hammerWorker) thinkTime(op int) time.Duration {
	s := math.Abs(math.Round(math.Log(1-w.r.Float64()) * float64(hammerThink[op])))
	return time.Duration(s) * time.Second
}

// draw draws the next transaction (and, with --all-warehouses, its
// warehouse).
func (w *hammerWorker) draw() {
	w.next = hammerTx(randInt(w.r, 1, 23))
	if len(w.mine) > 0 {
		w.wID = w.mine[w.r.IntN(len(w.mine))]
	}
	w.nextDrawn = true
}

// run is the workload.Worker: one routine call, in autocommit (each call
// one transaction, as HammerDB's).
func (w *hammerWorker) run(ctx context.Context) workload.Result {
	if !w.nextDrawn {
		w.draw()
	}
	op := w.next
	err := w.call(ctx, op)
	w.nextDrawn = false
	res := workload.Result{Op: op, Err: err}
	switch {
	case err != nil && !w.raise:
		res.Tolerated = true
	case err != nil:
		res.Err = &workload.HintedError{Err: err, Hint: "leave --raise-error out to count the errors and keep going, as HammerDB does with pg_raiseerror false"}
	}
	if w.keyThink {
		w.draw()
		res.Wait = w.thinkTime(op) + time.Duration(hammerKeying[w.next])*time.Second
	}
	return res
}

// call runs transaction op's routine with HammerDB's inputs.
func (w *hammerWorker) call(ctx context.Context, op int) error {
	r := w.r
	switch op {
	case opNewOrder:
		d, c, n := randInt(r, 1, 10), randInt(r, 1, customersPerDistrict), randInt(r, 5, 15)
		q := callNewOrderFunc
		if w.procs {
			q = callNewOrderProc
		}
		return w.exec(ctx, "neword", q, num(w.wID), num(w.maxW), num(int64(d)), num(int64(c)), num(int64(n)))
	case opPayment:
		d := int64(randInt(r, 1, 10))
		cw, cd := w.wID, d
		if randInt(r, 1, 100) > 85 {
			cd = int64(randInt(r, 1, 10))
			cw = int64(randInt(r, 1, int(w.maxW)))
			for cw == w.wID && w.maxW != 1 {
				cw = int64(randInt(r, 1, int(w.maxW)))
			}
		}
		name := lastName(randgen.NURand(r, 255, hammerNURandC, 0, 999))
		c := randInt(r, 1, customersPerDistrict)
		byName := int64(0)
		if randInt(r, 1, 100) <= 60 {
			byName = 1
		} else {
			name = ""
		}
		amount := int64(randInt(r, 1, 5000))
		if w.procs {
			return w.exec(ctx, "payment", callPaymentProc, num(w.wID), num(d), num(cw), num(cd), num(byName), num(amount), text(name), num(int64(c)))
		}
		return w.exec(ctx, "payment", callPaymentFunc, num(w.wID), num(d), num(cw), num(cd), num(int64(c)), num(byName), num(amount), text(name))
	case opOrderStatus:
		d := randInt(r, 1, 10)
		name := lastName(randgen.NURand(r, 255, hammerNURandC, 0, 999))
		c := randInt(r, 1, customersPerDistrict)
		byName := int64(0)
		if randInt(r, 1, 100) <= 60 {
			byName = 1
		} else {
			name = ""
		}
		q := callOStatFunc
		if w.procs {
			q = callOStatProc
		}
		return w.exec(ctx, "ostat", q, num(w.wID), num(int64(d)), num(int64(c)), num(byName), text(name))
	case opDelivery:
		q := callDeliveryFunc
		if w.procs {
			q = callDeliveryProc
		}
		return w.exec(ctx, "delivery", q, num(w.wID), num(int64(randInt(r, 1, 10))))
	default:
		q := callSlevFunc
		if w.procs {
			q = callSlevProc
		}
		return w.exec(ctx, "slev", q, num(w.wID), num(w.slevD), num(int64(randInt(r, 10, 20))))
	}
}

// exec runs a call and reads its whole result: one round trip (the
// statement is prepared once per connection). On the fast path the
// arguments are written as text into the worker's buffers, and nothing is
// allocated per call; otherwise through pgx's Query.
func (w *hammerWorker) exec(ctx context.Context, name, q string, args ...hammerArg) error {
	if w.raw != nil {
		for len(w.bufs) < len(args) {
			w.bufs = append(w.bufs, make([]byte, 0, 32))
		}
		w.params = w.params[:0]
		for i, a := range args {
			if a.str {
				w.bufs[i] = append(w.bufs[i][:0], a.s...)
			} else {
				w.bufs[i] = strconv.AppendInt(w.bufs[i][:0], a.i, 10)
			}
			w.params = append(w.params, w.bufs[i])
		}
		if _, err := w.raw.QueryRaw(ctx, q, w.params, nil); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	vals := make([]any, len(args))
	for i, a := range args {
		if a.str {
			vals[i] = a.s
		} else {
			vals[i] = a.i
		}
	}
	rows, err := w.conn.Query(ctx, q, vals...)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for rows.Next() {
		_ = rows.RawValues()
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// allWarehouses returns the warehouses of virtual user i of n over
// warehouses w, as HammerDB's pg_allwarehouse assigns them: i+1, i+1+n,
// ... (wrapping), ceil(w/n) of them.
func allWarehouses(i, n int, w int64) []int64 {
	need := int((w + int64(n) - 1) / int64(n))
	out := make([]int64, 0, need)
	for k := range need {
		out = append(out, (int64(i)+int64(k)*int64(n))%w+1)
	}
	return out
}

// hammerOps prepares a run of --profile hammerdb: it checks the routines,
// then gives each virtual user its connection, warehouse and stream.
func (g *tpcc) hammerOps(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if !db.Null() {
		detected, err := g.detectRoutineKind(ctx, db)
		if err != nil {
			return workload.QueryLoad{}, err
		}
		g.hdb.detected = detected
		if err := g.checkRoutines(ctx, db); err != nil {
			return workload.QueryLoad{}, err
		}
	}
	n := oc.Concurrency
	maxW := int64(g.warehouses)
	g.workers = nil
	g.run = runState{db: db, duration: oc.Duration, stop: make(chan struct{}), stopOnce: &sync.Once{}}
	ws := make([]*hammerWorker, n)
	ql := workload.QueryLoad{
		Ops:     make([]string, len(txs)),
		Classes: make([]workload.OpClass, len(txs)),
		Workers: make([]workload.Worker, n),
		Header:  g.hammerHeader(n),
	}
	for i, t := range txs {
		ql.Ops[i] = t.name
		ql.Classes[i] = workload.ClassTransaction
	}
	stop := g.run.stop
	// With --key-and-think, Attach waits the keying time of each user's
	// first transaction.
	ql.Attach = func(i int, _ workload.Recorder) {
		w := ws[i]
		if !w.keyThink {
			return
		}
		w.draw()
		t := time.NewTimer(time.Duration(hammerKeying[w.next]) * time.Second)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-stop:
		}
	}
	for i := range ws {
		r := randgen.New(oc.Seed, workerStream(i))
		w := &hammerWorker{conn: db.Conn(i, true), r: r, procs: g.hdb.storedProcs, raise: g.hdb.raiseError,
			keyThink: g.hdb.keyAndThink, maxW: maxW}
		w.raw, _ = w.conn.(sqlx.RawQuerier)
		w.wID = int64(randInt(r, 1, int(maxW)))
		w.slevD = int64(randInt(r, 1, districtsPerWH))
		if g.hdb.allWarehouses {
			w.mine = allWarehouses(i, n, maxW)
		}
		ws[i] = w
		ql.Workers[i] = w.run
	}
	ql.Close = func(context.Context) error {
		g.stopWaits()
		for _, w := range ws {
			w.conn.Release()
		}
		return nil
	}
	return ql, nil
}
