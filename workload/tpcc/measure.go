package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

var _ workload.Measurer = (*tpcc)(nil)

// measurement is what the measurement interval of a run recorded.
type measurement struct {
	// started says StartMeasurement was called; base holds the workers'
	// audit counters then, which Audits subtracts (the ramp's share).
	started bool
	base    auditTotals
	// nextStart and nextEnd are sum(D_NEXT_O_ID) over the generator's
	// districts at the interval's start and end, read at startAt and
	// endAt; ok says both reads succeeded.
	nextStart, nextEnd int64
	startAt, endAt     time.Time
	ok                 bool
	// allStart and allEnd are the same sums over every warehouse, which
	// a client of several records for the merge (RunRecords); without
	// --clients or --warehouse-range they are nextStart and nextEnd.
	allStart, allEnd int64
	// xactStart and xactEnd are sum(xact_commit + xact_rollback) over
	// pg_stat_database at the two ends, over the databases present at
	// both (--profile hammerdb only, HammerDB's TPM); xactOK says both
	// were read. xactBy and xactEndBy hold the two ends' counts by
	// database.
	xactStart, xactEnd int64
	xactOK             bool
	xactBy, xactEndBy  map[uint32]int64
}

// newOrders returns the New-Orders the server committed in the interval
// and the interval's length between the two reads (HammerDB's NOPM is
// their ratio); ok is false when they were not both read.
func (m measurement) newOrders() (n int64, d time.Duration, ok bool) {
	d = m.endAt.Sub(m.startAt)
	return m.nextEnd - m.nextStart, d, m.ok && d > 0
}

// keyingStopSlack is how long after the planned end of the measurement
// interval a terminal still in its first keying time gives up waiting
// (see worker.keyFirst): the engine, whose own timer for the end starts
// a moment after the measurement's, stops the run first, so the terminal
// returns without starting a transaction.
const keyingStopSlack = 50 * time.Millisecond

// StartMeasurement implements workload.Measurer. It notes the audit
// counters (the audits leave out what came before) and reads
// sum(D_NEXT_O_ID) over the generator's districts, which the end function
// reads again: the committed New-Orders of the interval, HammerDB's
// NOPM. The end function also stops the terminals still in their first
// keying time, as does a timer at the interval's planned end.
func (g *tpcc) StartMeasurement(ctx context.Context, at time.Time) (func(context.Context) error, error) {
	r := &g.run
	if (g.workers == nil && !g.hammerdb()) || r.db == nil {
		return nil, nil
	}
	r.meas = measurement{started: true, base: sumAudits(g.workers)}
	var startErr error
	if !r.db.Null() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		r.meas.startAt = time.Now()
		r.meas.nextStart, r.meas.allStart, startErr = g.sumNextOID(rctx)
		if startErr == nil && g.hammerdb() {
			r.meas.xactBy, startErr = xactByDatabase(rctx, r.db)
			r.meas.xactStart, _ = commonXact(r.meas.xactBy, r.meas.xactBy)
		}
		cancel()
	}
	var timer *time.Timer
	if r.duration > 0 {
		timer = time.AfterFunc(r.duration+keyingStopSlack, g.stopWaits)
	}
	end := func(ctx context.Context) error {
		if timer != nil {
			timer.Stop()
		}
		g.stopWaits()
		if r.db.Null() || startErr != nil {
			return nil
		}
		r.meas.endAt = time.Now()
		n, all, err := g.sumNextOID(ctx)
		if err != nil {
			return fmt.Errorf("%s: reading sum(d_next_o_id) at the end of the measurement interval: %w (no NOPM)", g.label(), err)
		}
		r.meas.nextEnd, r.meas.allEnd, r.meas.ok = n, all, true
		if g.hammerdb() {
			x, err := xactByDatabase(ctx, r.db)
			if err != nil {
				return fmt.Errorf("%s: reading pg_stat_database at the end of the measurement interval: %w (no HammerDB TPM)", g.label(), err)
			}
			r.meas.xactStart, r.meas.xactEnd = commonXact(r.meas.xactBy, x)
			r.meas.xactEndBy, r.meas.xactOK = x, true
		}
		return nil
	}
	if startErr != nil {
		return end, fmt.Errorf("%s: reading sum(d_next_o_id) at the start of the measurement interval: %w (no NOPM)", g.label(), startErr)
	}
	return end, nil
}

// sumNextOID returns sum(D_NEXT_O_ID) over the generator's home
// warehouses (with --clients or --warehouse-range the client's, otherwise
// all) and over all its warehouses, in one statement.
func (g *tpcc) sumNextOID(ctx context.Context) (home, all int64, err error) {
	first, last := g.whRange()
	hFirst, hLast := first, last
	if g.split() {
		hFirst, hLast = g.home()
	}
	err = g.run.db.QueryRow(ctx, "SELECT coalesce(sum(d_next_o_id) FILTER (WHERE d_w_id BETWEEN $3 AND $4), 0), coalesce(sum(d_next_o_id), 0) FROM "+
		districtTable+" WHERE "+wRange("d_w_id"), first, last, hFirst, hLast).Scan(&home, &all)
	return home, all, err
}

// stopWaits ends the first keying time of every terminal still in it.
func (g *tpcc) stopWaits() {
	if r := &g.run; r.stop != nil {
		r.stopOnce.Do(func() { close(r.stop) })
	}
}

// firstWait draws the worker's first transaction and returns how long
// the terminal waits before it: a random delay, uniform over the mean
// cycle (keying and think time) of the mix, then the transaction's
// keying time (clause 5.2.5.2: a terminal keys in every transaction, the
// first included). The delay staggers the terminals that start together
// over a cycle, as if each had been in its think time. Without it, ten
// terminals bring half their New-Orders in at once, 18 seconds after
// they start: after a 1-minute ramp that starts the last of them just
// before its end (as the engine's does), a simulation of 3,000 runs of
// one warehouse measured 113% efficiency over the 20 seconds after the
// ramp, where the steady state gives 98%; with the delay 99%, and 99.7%
// over a minute (TestFirstWaitSteady). (Drawing the delay as the rest of
// a length-biased cycle, as renewal theory would, starts the terminals
// too late under the full keying time: 90% and 95.5%.)
func (w *worker) firstWait(cycle time.Duration) time.Duration {
	w.next = w.draw()
	w.started = true
	return time.Duration(w.r.Float64()*float64(cycle)) + scaleWait(txs[w.next].keying, w.waitFactor)
}

// meanCycle returns the mean keying plus think time of a transaction of
// the mix.
func meanCycle(weights []int) time.Duration {
	var sum time.Duration
	n := 0
	for op, k := range weights {
		sum += time.Duration(k) * (txs[op].keying + txs[op].think)
		n += k
	}
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// keyFirst waits the worker's firstWait, or until ctx ends or stop is
// closed. It is the QueryLoad's Attach with --wait, so the engine counts
// the wait in no latency.
func (w *worker) keyFirst(ctx context.Context, stop <-chan struct{}, cycle time.Duration) {
	t := time.NewTimer(w.firstWait(cycle))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-stop:
	}
}
