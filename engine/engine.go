package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// Config controls a run.
type Config struct {
	// Duration limits the measured run (after the ramp); 0 means no limit.
	Duration time.Duration
	// MaxOps stops the run after this many operations in total (ramp
	// included); 0 means no limit. It is split evenly among workers,
	// unless SharedOps.
	MaxOps int64
	// SharedOps makes MaxOps one budget that every worker draws from, an
	// operation at a time, as sysbench's --events does: each worker takes
	// one before each call and stops when none is left, so fast workers do
	// more of them than slow ones.
	SharedOps bool
	// Ramp spreads worker starts over this time; the cumulative statistics
	// restart when it ends.
	Ramp time.Duration
	// MaxRate is the total scheduled rate in operations per second; 0
	// means each worker runs as fast as it can (closed loop).
	MaxRate float64
	// QueueRate, when positive, is sysbench's --rate instead of MaxRate's
	// per-worker schedules: one generator puts events, at this mean rate
	// per second with exponentially distributed gaps (Poisson arrivals),
	// into a queue of QueueCapacity that every worker takes its next
	// event from. An operation's latency counts from when its event
	// entered the queue, the wait in the queue included, as sysbench
	// 1.0.20's does; Series describes the other series. The workers do
	// not pace themselves; the generator waits with Pacer. MaxRate must
	// be 0.
	QueueRate float64
	// QueueSeed seeds the generator's gaps, and under Poisson the
	// workers' schedules.
	QueueSeed uint64
	// Poisson spaces each worker's intended starts under MaxRate by
	// exponentially distributed gaps of the same mean (Poisson arrivals,
	// as pgbench's -R schedules each client's transactions) instead of
	// evenly.
	Poisson bool
	// ScheduleGroups, when positive, makes MaxRate's schedule one per
	// group of workers instead of one per worker, as pgbench's -R
	// schedules per thread (-j): the workers are dealt to this many
	// groups in contiguous blocks, the first groups getting one more when
	// they do not divide evenly (pgbench's dealing of clients to
	// threads), and each group has one schedule at MaxRate/ScheduleGroups
	// (Poisson or even gaps). A worker ready for its next operation takes
	// its group's next intended start, whichever worker took the one
	// before, and waits for it. SkipLate applies to the start it took,
	// decided when it takes it, as pgbench decides: a start still ahead
	// then is run however late the pacer wakes the worker for it (that
	// lateness is pacer lag, which the schedule lag includes). So
	// a slow operation delays no start of its own: the group's free
	// workers take the starts that follow. 0 gives each worker its own
	// schedule at MaxRate/workers. It must not exceed the workers.
	ScheduleGroups int
	// SkipLate, under MaxRate, skips an operation whose turn comes more
	// than this after its intended start: it is not run, and counted
	// (Hooks.Skip, Result.Skipped), as pgbench's --latency-limit skips
	// transactions under -R (under ScheduleGroups, decided when the
	// worker takes the start, as pgbench does). 0 runs every operation.
	SkipLate time.Duration
	// Pacer is how workers wait for the intended starts under MaxRate, or
	// the generator for its events' under QueueRate (PacerPrecise, the
	// zero value, or PacerCoarse); see RunPacer.
	Pacer Pacer
	// ThreadIO says each worker's operations block its thread while they
	// wait for the server (sqlx's thread I/O). Under MaxRate the precise
	// pacer then wakes each worker on its own thread (see pacer) rather
	// than through the metronome, whose hand-over moves the worker to the
	// metronome's thread and off the CPU the kernel had paired it on with
	// its server backend: measured with YCSB C at 2,000 ops/s, 4 workers
	// and PostgreSQL on the same 2 CPUs, the service time's p50 went from
	// 50 to 94 µs.
	ThreadIO bool
	// NetPoller says each worker's operations wait for the server in Go's
	// network poller: the worker's goroutine parks at every wait, and so
	// passes through the scheduler, which the engine's yield at each
	// flush of its latencies is for (see worker); its workers are not
	// yielded (a pgbench select-only run at 8 workers on one CPU spent
	// 0.5% of its client CPU in those yields).
	NetPoller bool
	// DisplayEvery is the interval between ticks.
	DisplayEvery time.Duration
	// TolerateErrors keeps the run going after an operation fails;
	// otherwise the first error ends it.
	TolerateErrors bool
	// AbortWorker makes an operation's failure (not tolerated) end its
	// worker only, as an error aborts one of pgbench's clients: the
	// others run on, and the run ends when they are done, with
	// Result.Aborted saying which stopped and why.
	AbortWorker bool
	// OpTimeout bounds each operation: its context's deadline (0 means
	// none). A deadline costs every call a timer and the driver a context
	// watcher, so it is only set when asked for.
	OpTimeout time.Duration
	// Grace is how long in-flight operations may take to finish after the
	// run ends; workers still busy then are abandoned (the run returns
	// without them). 0 means 5s; a negative Grace waits for them without
	// limit when the run ends by its duration or operation budget (sysbench's
	// --forced-shutdown=off), and 5s after a cancelled context.
	Grace time.Duration
}

// MaxRateLimit bounds MaxRate and QueueRate: a billion operations a
// second, a hundred times what the null driver reaches, where a worker's
// interval between operations is a few nanoseconds (and at 1e20 would
// round to none).
const MaxRateLimit = 1e9

// Validate reports a configuration error in one line.
func (c Config) Validate(workers int) error {
	switch {
	case workers < 1:
		return errors.New("concurrency must be at least 1")
	case c.Duration < 0:
		return fmt.Errorf("duration %s is negative: use 0 for no limit or a positive duration like 60s", c.Duration)
	case c.MaxOps < 0:
		return fmt.Errorf("max-ops %d is negative: use 0 for no limit", c.MaxOps)
	case c.Ramp < 0:
		return fmt.Errorf("ramp %s is negative", c.Ramp)
	case math.IsNaN(c.MaxRate) || math.IsNaN(c.QueueRate):
		return errors.New("the rate is NaN: use a number of operations per second, or 0 for no limit")
	case c.MaxRate < 0:
		return fmt.Errorf("max-rate %g is negative: use 0 for no limit", c.MaxRate)
	case c.MaxRate > MaxRateLimit:
		return fmt.Errorf("max-rate %g is more than any client reaches (%g operations a second): use a lower rate, or 0 for no limit", c.MaxRate, MaxRateLimit)
	case c.QueueRate > MaxRateLimit:
		return fmt.Errorf("rate %g is more than any client reaches (%g events a second): use a lower rate, or 0 for no limit", c.QueueRate, MaxRateLimit)
	case c.QueueRate < 0:
		return fmt.Errorf("rate %g is negative: use 0 for no limit", c.QueueRate)
	case c.QueueRate > 0 && c.MaxRate > 0:
		return errors.New("give one rate: a per-worker schedule (max-rate) or sysbench's event queue (rate), not both")
	case c.Pacer != PacerPrecise && c.Pacer != PacerCoarse:
		return fmt.Errorf("unknown pacer %d", int(c.Pacer))
	case c.OpTimeout < 0:
		return fmt.Errorf("op-timeout %s is negative: use 0 for none", c.OpTimeout)
	case c.SkipLate < 0:
		return fmt.Errorf("latency limit %s is negative: use 0 for none", c.SkipLate)
	case (c.SkipLate > 0 || c.Poisson) && c.MaxRate <= 0:
		return errors.New("skipping late operations and Poisson arrivals are for a per-worker schedule: give a rate (max-rate)")
	case c.ScheduleGroups < 0:
		return fmt.Errorf("schedule-groups %d is negative: use 0 for one schedule per worker, or 1 or more groups of workers that share one", c.ScheduleGroups)
	case c.ScheduleGroups > 0 && c.MaxRate <= 0:
		return errors.New("schedule-groups share a rate schedule: give a rate (max-rate)")
	case c.ScheduleGroups > workers:
		return fmt.Errorf("schedule-groups %d is more than the %d workers: give at most %d (a group needs a worker)", c.ScheduleGroups, workers, workers)
	case c.DisplayEvery < MinDisplayEvery:
		return fmt.Errorf("display-every %s is shorter than %s: use %s or more", c.DisplayEvery, MinDisplayEvery, MinDisplayEvery)
	}
	return nil
}

// ValidateLoad reports, in one line, a configuration that load's rate
// shares (QueryLoad.RateShares) cannot run under: they divide MaxRate's
// per-worker schedules, so they need MaxRate, and neither shared group
// schedules nor sysbench's queue. It checks the shares too (one positive
// share per worker).
func (c Config) ValidateLoad(load workload.QueryLoad) error {
	if load.RateShares == nil {
		return nil
	}
	switch {
	case len(load.RateShares) != len(load.Workers):
		return fmt.Errorf("%d rate shares for %d workers", len(load.RateShares), len(load.Workers))
	case c.QueueRate > 0:
		return errors.New("the workload keeps a rate per worker (its paths' own rates): sysbench's event queue (--rate) cannot run it; leave --rate out")
	case c.MaxRate <= 0:
		return errors.New("the workload keeps a rate per worker (its paths' own rates) and needs a rate schedule: give its rates")
	case c.ScheduleGroups > 0:
		return errors.New("the workload keeps a rate per worker (its paths' own rates): --schedule-groups would share them; leave --schedule-groups out")
	}
	for w, s := range load.RateShares {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("worker %d's rate share is %g: each must be a positive number", w, s)
		}
	}
	return nil
}

// RunPacer returns the pacer a run with this configuration and number of
// workers uses: the configured one, except that the precise pacer needs
// processors, and the coarse one stands in for it when GOMAXPROCS is too
// small. Under MaxRate it needs two: the metronome (see metronome) holds
// one while it sleeps, the workers share the others; with ThreadIO, one
// per worker, each of which holds its own while it sleeps. Under
// QueueRate only the generator paces, but it holds its processor while it
// sleeps, so it needs one more than the workers. It is meaningful only
// under a rate.
func (c Config) RunPacer(workers int) Pacer {
	need := 2 // the metronome's and the workers'
	switch {
	case c.QueueRate > 0:
		need = workers + 1
	case c.ThreadIO:
		need = workers
	}
	if c.Pacer == PacerPrecise && runtime.GOMAXPROCS(0) < need {
		return PacerCoarse
	}
	return c.Pacer
}

// Rated reports whether a rate is in force, MaxRate's schedules or
// QueueRate's queue: then the registry's series are laid out as Series
// with Rated says.
func (c Config) Rated() bool { return c.MaxRate > 0 || c.QueueRate > 0 }

// Series describes how the engine lays out the registry's series for a
// workload's operations.
//
// With n operations, series 0 to n-1 are the operations themselves. Under
// a rate schedule (Rated), 3n+1 series exist, in this order:
//
//	0 .. n-1    OP          latency from the intended start
//	n .. 2n-1   OP.service  service time (the call alone)
//	2n .. 3n-1  OP.lag      schedule lag: actual minus intended start
//	3n          pacer.lag   the pacer's lateness, over all operations
//
// For every operation, OP = OP.lag + OP.service exactly, and OP.lag is
// the operation's queueing (behind the worker's own slow operations, or
// its group's under Config.ScheduleGroups) plus
// its pacer lag (see schedule). Without a schedule the n series are the
// service times and nothing else is recorded. A Split adds, after these,
// parts of the operations' series by group (see Split and RunSplit).
//
// Under Config.QueueRate the same series hold sysbench's measurement: OP
// counts from the event's entry into the queue, OP.lag is its wait in the
// queue (OP = OP.lag + OP.service), and pacer.lag is how late the
// generator put each event into the queue after its instant in the
// schedule (which no latency includes, as in sysbench).
type Series struct {
	// Ops are the workload's operation names.
	Ops []string
	// Rated is true when a rate schedule is in force.
	Rated bool
}

// Suffixes of derived series under a rate schedule.
const (
	// ServiceSuffix marks the raw service-time series of an operation.
	ServiceSuffix = ".service"
	// LagSuffix marks the schedule-lag series of an operation.
	LagSuffix = ".lag"
)

// PacerSeries is the name of the pacer-lag series under a rate schedule:
// for each operation, how much later the worker started it than a
// perfectly punctual client would have (see schedule). It ends in
// LagSuffix, so that readers of run logs that set apart the series of
// operations from their derived series need no change; no operation may
// be called "pacer".
const PacerSeries = "pacer" + LagSuffix

// Names returns the registry series names, laid out as Series describes.
func (s Series) Names() []string {
	names := append([]string(nil), s.Ops...)
	if s.Rated {
		for _, op := range s.Ops {
			names = append(names, op+ServiceSuffix)
		}
		for _, op := range s.Ops {
			names = append(names, op+LagSuffix)
		}
		names = append(names, PacerSeries)
	}
	return names
}

// Hooks receive the engine's events. Any may be nil.
type Hooks struct {
	// Tick is called every DisplayEvery with the interval just ended, and
	// once more at the end for the final partial interval (final is true).
	// Calls come from one goroutine.
	Tick func(t stats.Tick, final bool)
	// RampDone is called once when the ramp ends (at the start if there is
	// no ramp), with the start of the measured period: the ramp's end, or
	// the end of the last interval if it ended less than 10 ms (or half
	// DisplayEvery) before.
	RampDone func(at time.Time)
	// Error is called for every failed operation, from the worker's
	// goroutine; it must be quick and safe for concurrent use.
	Error func(worker int, op string, err error)
	// Handled is called for every failure a worker handled itself and
	// recorded through its Recorder (a retried conflict, an ignored
	// error), from the worker's goroutine; it must be quick and safe
	// for concurrent use.
	Handled func(worker int, op string, err error)
	// Classify, when set, names the class of a failure (an SQLSTATE,
	// "conn", "timeout"): every failure is then also counted under the
	// label FailedPrefix+class, or RetriedPrefix+class for those a worker
	// handled, in the Tick's Labels, in the same interval as the errors
	// column counts it. It must be safe for concurrent use.
	Classify func(err error) string
	// Queue, when set, is called under Config.QueueRate right before each
	// Tick, from the same goroutine, with the event queue's state at that
	// instant (sysbench's "queue length" and "concurrency").
	Queue func(QueueState)
	// Skip, when set, is called for each operation skipped under
	// Config.SkipLate, from the worker's goroutine: it must be safe for
	// concurrent use.
	Skip func()
	// Abort, when set, is called under Config.AbortWorker when an error
	// ends a worker, from its goroutine, right after the failed
	// operation was counted: it must be safe for concurrent use.
	Abort func()
}

// Prefixes of the failure labels of Hooks.Classify: failed operations
// ("errors_40001") and failures a worker retried or ignored
// ("retries_40001").
const (
	FailedPrefix  = "errors_"
	RetriedPrefix = "retries_"
)

// countError counts a failure of operation op in h: under its class's
// label when Hooks.Classify is set.
func (r *runner) countError(h *stats.Handle, op int, prefix string, err error) {
	if r.hooks.Classify == nil {
		h.RecordError(op)
		return
	}
	h.RecordErrorLabel(op, prefix+r.hooks.Classify(err))
}

// Result summarises a finished run.
type Result struct {
	// Start is when the first worker started, RampEnd when the ramp ended
	// (equal to Start without a ramp; see Hooks.RampDone), End when the
	// last worker stopped.
	Start, RampEnd, End time.Time
	// Interrupted is true when the run was stopped by its context (Ctrl-C).
	Interrupted bool
	// Err is the error that ended the run, when errors are not tolerated
	// (under AbortWorker, the first worker's that aborted).
	Err *OpError
	// Aborted are the workers ended by an error under AbortWorker, in
	// the order they stopped.
	Aborted []OpError
	// Workers has each worker's operation count and busy time (the time
	// spent inside its operations), for fairness figures.
	Workers []WorkerStats
	// Stop is when the run's end began: its duration over (at the
	// deadline the workers keep, however late the engine's timer was
	// served on a busy host), Stop called,
	// or its context cancelled (zero when the workers ran out of
	// operations themselves). From there to End the run waited for the
	// operations in flight, up to the grace (Config.Grace); that time is
	// part of the run's elapsed time.
	Stop time.Time
	// Unfinished is the number of workers still in an operation when
	// the grace after the run's end ran out, which were abandoned
	// (sysbench's "unfinished transactions on forced shutdown").
	Unfinished int
	// Abandoned are those workers' numbers, in order (len(Abandoned) is
	// Unfinished). Each still holds what its operation uses, a
	// connection say, which no one else may use before it returns:
	// whoever owns the connections closes theirs from under them (a
	// socket's Close may come from another goroutine), which makes them
	// return, and waits for WorkersDone before releasing the rest.
	Abandoned []int
	// WorkersDone is closed once every worker has returned: before Run
	// returns, unless workers were abandoned.
	WorkersDone <-chan struct{}
	// Skipped is the number of operations skipped under Config.SkipLate.
	Skipped int64
}

// WorkerStats is one worker's share of a run.
type WorkerStats struct {
	// Ops is the number of calls that completed (successfully or not).
	Ops int64
	// Busy is the time spent in those calls; under QueueRate, from each
	// event's entry into the queue, as sysbench's execution time counts.
	Busy time.Duration
}

// OpError is an operation failure that ended a run.
type OpError struct {
	// Worker is the worker number and Op the operation's name.
	Worker int
	Op     string
	// Err is the operation's error.
	Err error
}

// Error implements error.
func (e *OpError) Error() string {
	if e.Worker < 0 { // the engine's own failure (ErrQueueFull)
		return e.Err.Error()
	}
	return fmt.Sprintf("%s failed (worker %d): %v", e.Op, e.Worker, e.Err)
}

// Unwrap returns the operation's error.
func (e *OpError) Unwrap() error { return e.Err }

// Run runs load with the given configuration, recording into reg (whose
// series must be laid out as Series{Ops: load.Ops, Rated: cfg.Rated()}
// describes). It returns when the run ends: duration or operation budget
// reached, ctx cancelled, or an operation failed without TolerateErrors.
func Run(ctx context.Context, cfg Config, load workload.QueryLoad, reg *stats.Registry, hooks Hooks) Result {
	return RunSplit(ctx, cfg, load, reg, hooks, nil)
}

// RunSplit is Run with each operation's figures split by group as split
// says (see Split); a nil split is Run.
func RunSplit(ctx context.Context, cfg Config, load workload.QueryLoad, reg *stats.Registry, hooks Hooks, split *Split) Result {
	n := len(load.Workers)
	r := &runner{
		cfg:   cfg,
		load:  load,
		reg:   reg,
		hooks: hooks,
		nOps:  len(load.Ops),
		rated: cfg.Rated(),
		stop:  make(chan struct{}),
	}
	if split != nil && split.Cell != nil && split.Bases != nil {
		r.split = split
	}
	for _, s := range load.RateShares {
		r.shareSum += s
	}
	grace := cfg.Grace
	if grace == 0 {
		grace = defaultGrace
	}
	// Operations get a context that is never cancelled: a cancellable one
	// costs every query a context watcher in the driver (a quarter of the
	// client's own CPU in pgx), and the end of a run waits for operations
	// in flight instead of aborting them. Stuck operations are abandoned
	// after the grace period.
	opCtx := context.WithoutCancel(ctx)

	start := time.Now()
	r.base, r.baseAt = start, workload.Offset(start)
	reg.Restart(start) // the run's setup is in no interval
	// The ticks fall on multiples of DisplayEvery from the start (the
	// ticker loop below reads them), as pgbench's -P reports: not from
	// when the workers have been started, which takes a while for many.
	ticker := time.NewTicker(cfg.DisplayEvery)
	defer ticker.Stop()
	r.pacer = cfg.RunPacer(n)
	if cfg.QueueRate > 0 {
		r.genPacer, r.pacer = r.pacer, PacerCoarse // only the generator paces
		r.queue = newEventQueue(queueCapacity)
	}
	if r.rated && (r.pacer == PacerPrecise || r.genPacer == PacerPrecise) {
		r.mono = monoAt(start)
	}
	if r.rated && r.queue == nil && r.pacer == PacerPrecise && !cfg.ThreadIO {
		r.metronome = newMetronome(r)
		go r.metronome.run()
	}
	if r.rated && r.queue == nil && cfg.ScheduleGroups > 0 {
		r.groups = newGroupSchedules(cfg, n)
	}
	if cfg.SharedOps && cfg.MaxOps > 0 {
		r.shared = &atomic.Int64{}
		r.shared.Store(cfg.MaxOps)
	}
	r.workers = make([]WorkerStats, n)
	r.live = make([]atomic.Bool, n)
	r.result.Start = start
	r.result.RampEnd = start

	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		budget := int64(-1)
		if cfg.MaxOps > 0 && r.shared == nil {
			budget = cfg.MaxOps / int64(n)
			if int64(w) < cfg.MaxOps%int64(n) {
				budget++
			}
			if budget == 0 {
				continue
			}
		}
		delay := time.Duration(0)
		if cfg.Ramp > 0 {
			delay = time.Duration(int64(cfg.Ramp) * int64(w) / int64(n))
		}
		wg.Add(1)
		r.running.Add(1)
		r.live[w].Store(true)
		go func(w int, budget int64, delay time.Duration) {
			defer wg.Done()
			defer r.running.Add(-1)
			defer r.live[w].Store(false)
			r.worker(opCtx, w, budget, delay)
			r.markStopped(time.Since(r.base))
		}(w, budget, delay)
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	r.result.WorkersDone = allDone
	if r.queue != nil {
		go r.generate(r.queue, cfg.QueueRate, cfg.QueueSeed)
	}

	// The ticker loop runs here, on the caller's goroutine.
	var rampTimer, durTimer <-chan time.Time
	var rampAt time.Time
	if cfg.Ramp > 0 {
		rampAt = time.Now().Add(cfg.Ramp)
		rampTimer = time.After(cfg.Ramp)
	} else {
		r.rampDone(start)
		if cfg.Duration > 0 {
			r.deadline.Store(int64(time.Since(r.base) + cfg.Duration))
			durTimer = time.After(cfg.Duration)
		}
	}
	var graceTimer <-chan time.Time
	ctxDone, stopCh := ctx.Done(), (<-chan struct{})(r.stop)
	stopping := false
	beginStop := func(interrupted bool, at time.Time) {
		if !stopping {
			stopping = true
			r.result.Stop = at
			r.halt()
			switch {
			case grace > 0:
				graceTimer = time.After(grace)
			case interrupted:
				graceTimer = time.After(defaultGrace)
			}
		} else if interrupted && graceTimer == nil {
			graceTimer = time.After(defaultGrace) // Ctrl-C while waiting without limit
		}
	}
	// An interval ends when tick reads the clock, right before the
	// registry counts its operations: not at the time its timer was due,
	// which a slow Tick hook leaves behind (a ticker's value is the time
	// it was due; the operations counted are those of now). An interval
	// would otherwise be a few hundred nanoseconds long and hold the
	// operations of the hook's milliseconds. A tick less than minTick
	// after the last (queued behind the ramp's end, which ended an
	// interval) leaves its operations to the next interval.
	minTick := min(rampTickMin, cfg.DisplayEvery/2)
	lastTick := start
	var afterRamp time.Duration // set by endRamp, below
	tickAt := func(now time.Time) {
		if now.Sub(lastTick) < max(minTick, afterRamp) {
			return
		}
		afterRamp = 0
		if hooks.Queue != nil && r.queue != nil {
			hooks.Queue(r.queue.state())
		}
		t := reg.Tick(now)
		lastTick = now
		if hooks.Tick != nil {
			hooks.Tick(t, false)
		}
	}
	tick := func() { tickAt(time.Now()) }
	// endRamp ends an interval at the ramp's end, so that the cumulative
	// view that restarts there holds no ramp operations; the batch layer
	// counts whole intervals, and then leaves this one out as the live
	// view does. When the ticker has just ended one, the next interval's
	// few ramp operations count in both views rather than an interval
	// line of a few milliseconds, and the ramp is taken to end where that
	// interval started: the measured period is then always made of whole
	// intervals, and the run log's ramp end is one of their bounds.
	//
	// The measured Duration counts from that end, and the ramp's hook
	// (the server's statistics read at the measurement's start, run-log
	// writes: a busy server makes it take a while) runs after the
	// deadline is set. The ticker's tick that follows a ramp's end by less
	// than half an interval (the hook was slow, or the loop was late and
	// both were ready at once) leaves its operations to the next one: an
	// interval line of a few milliseconds shows its operations at rates
	// no worker ran (a CI run printed 83,890 reads/s at "0.0s" of a run
	// of 6,678/s).
	endRamp := func() {
		rampTimer = nil
		tick()
		at := reg.ResetCumulative()
		r.result.RampEnd = at
		if cfg.Duration > 0 {
			dl := at.Sub(r.base) + cfg.Duration
			r.deadline.Store(int64(dl))
			durTimer = time.After(time.Until(r.base.Add(dl)))
		}
		afterRamp = max(minTick, cfg.DisplayEvery/2)
		r.rampDone(at)
	}
	var end time.Time
loop:
	for {
		select {
		case <-ticker.C:
			if r.running.Load() == 0 {
				// Every worker stopped (during a slow Tick hook, say):
				// the interval ends where the last one did, not later.
				tickAt(r.base.Add(time.Duration(r.lastStop.Load())))
				break
			}
			// A slow Tick hook can leave the ticker and the ramp timer
			// ready at once: the ramp's end comes first.
			if rampTimer != nil && !time.Now().Before(rampAt) {
				endRamp() // which ticks
				break
			}
			tick()
		case <-rampTimer:
			endRamp()
		case <-durTimer:
			durTimer = nil
			// The duration was over at the deadline, which the workers
			// keep (pastDeadline), not when this goroutine got to run:
			// on a busy host the timer's wake-up is late.
			at := time.Now()
			if d := r.deadline.Load(); d > 0 && r.base.Add(time.Duration(d)).Before(at) {
				at = r.base.Add(time.Duration(d))
			}
			beginStop(false, at)
		case <-ctxDone:
			ctxDone = nil
			if !stopping {
				r.result.Interrupted = true
			}
			beginStop(true, time.Now())
		case <-stopCh:
			stopCh = nil
			beginStop(false, time.Now())
		case <-graceTimer:
			r.result.Abandoned = r.stillLive()
			r.result.Unfinished = len(r.result.Abandoned)
			break loop // abandon workers stuck in an operation
		case <-allDone:
			// The run ended when its last worker stopped, which may be
			// a scheduling delay before this goroutine runs again.
			// A tick after the last worker stopped ended there: the
			// final interval is then empty.
			end = r.base.Add(time.Duration(r.lastStop.Load()))
			if !end.After(lastTick) {
				end = lastTick.Add(time.Nanosecond)
			}
			break loop
		}
	}
	r.halt() // stops the event generator and the metronome, when the workers stopped first
	if r.metronome != nil {
		<-r.metronome.done
	}
	if end.IsZero() {
		end = time.Now()
	}
	r.result.End = end
	r.result.Skipped = r.skipped.Load()
	if hooks.Tick != nil {
		if hooks.Queue != nil && r.queue != nil {
			hooks.Queue(r.queue.state())
		}
		hooks.Tick(reg.Tick(end), true)
	}
	if p := r.fatal.Load(); p != nil {
		r.result.Err = p
	}
	r.workersMu.Lock()
	r.result.Workers = append([]WorkerStats(nil), r.workers...)
	r.result.Aborted = append([]OpError(nil), r.aborted...)
	r.workersMu.Unlock()
	r.ended.Store(true)
	return r.result
}

type runner struct {
	// skipped counts the operations skipped under Config.SkipLate.
	skipped  atomic.Int64
	cfg      Config
	load     workload.QueryLoad
	reg      *stats.Registry
	hooks    Hooks
	nOps     int
	rated    bool
	shareSum float64 // of load.RateShares
	stopped  atomic.Bool
	ended    atomic.Bool   // Run returned: what an abandoned worker reports later counts nowhere
	running  atomic.Int64  // workers whose goroutine has not returned
	live     []atomic.Bool // by worker: its goroutine has not returned
	deadline atomic.Int64  // when Duration ends, as an offset from base (0: none yet)
	lastStop atomic.Int64  // when the last worker to stop stopped, as an offset from base
	stop     chan struct{}
	stopOnce sync.Once
	fatal    atomic.Pointer[OpError]
	aborted  []OpError // under Config.AbortWorker; guarded by workersMu
	result   Result
	base     time.Time     // the run's start; worker times are offsets from it
	baseAt   time.Duration // base as an offset from workload.Now's epoch (for Result.End)
	pacer    Pacer         // the workers' pacer under MaxRate (see Config.RunPacer)
	genPacer Pacer         // the generator's under QueueRate
	mono     int64         // CLOCK_MONOTONIC at base, for the precise pacer
	queue    *eventQueue   // under QueueRate
	// metronome keeps the workers' time under MaxRate with the precise
	// pacer.
	metronome *metronome
	shared    *atomic.Int64  // the operations left under SharedOps
	groups    groupSchedules // under Config.ScheduleGroups
	split     *Split         // nil: figures not split by group

	workersMu sync.Mutex
	workers   []WorkerStats
}

// stillLive returns the workers whose goroutine has not returned.
func (r *runner) stillLive() []int {
	var ws []int
	for w := range r.live {
		if r.live[w].Load() {
			ws = append(ws, w)
		}
	}
	return ws
}

// publish records worker w's counts so far in the run's result.
func (r *runner) publish(w int, ops int64, busy time.Duration) {
	r.workersMu.Lock()
	r.workers[w] = WorkerStats{Ops: ops, Busy: busy}
	r.workersMu.Unlock()
}

// recorder is the workload.Recorder a worker's Attach gets: its stats
// handle, with failures the worker handled passed on to Hooks.Handled.
type recorder struct {
	*stats.Handle
	r *runner
	w int
}

// RecordError implements workload.Recorder.
func (rc recorder) RecordError(op int, err error) { rc.recordError(op, op, err) }

// RecordPartError implements workload.PartErrorRecorder.
func (rc recorder) RecordPartError(op int) { rc.Handle.RecordError(op) }

// RecordRetry implements workload.RetryRecorder: the failure is counted
// under RetriedPrefix and its class only, not as an error.
func (rc recorder) RecordRetry(err error) {
	if rc.r.ended.Load() || rc.r.hooks.Classify == nil {
		return
	}
	rc.Handle.RecordLabel(RetriedPrefix + rc.r.hooks.Classify(err))
}

// recordError counts a handled failure of operation op in series.
func (rc recorder) recordError(series, op int, err error) {
	if rc.r.ended.Load() {
		return // an abandoned worker's, after the run (see worker)
	}
	rc.r.countError(rc.Handle, series, RetriedPrefix, err)
	if h := rc.r.hooks.Handled; h != nil {
		name := ""
		if op < len(rc.r.load.Ops) {
			name = rc.r.load.Ops[op]
		}
		h(rc.w, name, err)
	}
}

// defaultGrace is Config.Grace's default.
const defaultGrace = 5 * time.Second

// queueCapacity is the event queue's capacity: QueueCapacity, smaller in
// tests.
var queueCapacity = QueueCapacity

// rampTickMin is the shortest interval the engine ends at the ramp's end;
// see Run.
const rampTickMin = 10 * time.Millisecond

// MinDisplayEvery is the shortest Config.DisplayEvery: a timer's interval
// shorter than that measures the scheduler more than the load, and an
// interval's operations would be counted a few microseconds after it ended
// (see Run).
const MinDisplayEvery = 10 * time.Millisecond

func (r *runner) rampDone(at time.Time) {
	if r.hooks.RampDone != nil {
		r.hooks.RampDone(at)
	}
}

// markStopped records that a worker stopped at offset t from base.
func (r *runner) markStopped(t time.Duration) {
	for {
		last := r.lastStop.Load()
		if int64(t) <= last || r.lastStop.CompareAndSwap(last, int64(t)) {
			return
		}
	}
}

// pastDeadline reports whether offset now from base is past the end of
// Duration: each worker checks it before an operation, as sysbench's
// threads check --time, so that the run ends on time however late the
// timer's goroutine is scheduled.
func (r *runner) pastDeadline(now time.Duration) bool {
	d := r.deadline.Load()
	return d > 0 && int64(now) >= d
}

// halt tells every worker to stop after its current operation.
func (r *runner) halt() {
	r.stopOnce.Do(func() {
		r.stopped.Store(true)
		close(r.stop)
	})
}

// sleepUntil waits until offset t after base or until the run stops; it
// reports whether the run is still going.
func (r *runner) sleepUntil(t time.Duration) bool {
	d := t - time.Since(r.base)
	if d <= 0 {
		return !r.stopped.Load()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return !r.stopped.Load()
	case <-r.stop:
		return false
	}
}

// opEnd returns when an operation that started at start ended, as an
// offset from base: the end the workload read (Result.End, from
// workload.Now), else the clock's reading now. An end before the start
// (a workload's mistake) is not taken.
func (r *runner) opEnd(end, start time.Duration) time.Duration {
	if end > 0 {
		if at := end - r.baseAt; at >= start {
			return at
		}
	}
	return time.Since(r.base)
}

// flushEvery bounds how long a worker keeps latencies in its handle's
// buffer, so they reach the interval they belong to.
const flushEvery = 5 * time.Millisecond

// worker runs one worker until the run stops or its budget (if >= 0) is
// spent. first is its start, as an offset from the run's base time.
//
// Times are monotonic offsets from the run's start (time.Since reads only
// the monotonic clock: one clock read instead of two). In a closed loop an
// operation's clock starts when the previous one's stopped, so each
// operation costs one clock read; the engine's own bookkeeping between
// the two (tens of nanoseconds) is counted in the operation's latency.
func (r *runner) worker(ctx context.Context, w int, budget int64, first time.Duration) {
	if !r.sleepUntil(first) {
		return
	}
	fn := r.load.Workers[w]
	h := r.reg.Handle(w)
	defer h.Flush()
	var cell *atomic.Int32 // the group of the worker's connection; nil: not split
	if r.split != nil {
		cell = r.split.Cell(w)
	}
	if r.load.Attach != nil {
		rec := recorder{Handle: h, r: r, w: w}
		if cell != nil {
			r.load.Attach(w, splitRecorder{recorder: rec, split: r.split, cell: cell})
		} else {
			r.load.Attach(w, rec)
		}
	}
	if r.load.Detach != nil {
		// Before the last Flush, so that what the worker records there
		// counts in the final interval.
		defer r.load.Detach(w)
	}
	var ops int64
	var busy time.Duration
	defer func() { r.publish(w, ops, busy) }()
	n := len(r.load.Workers)
	var sched schedule
	var wait func(time.Duration) bool // until an instant of the schedule
	queued := r.queue != nil          // sysbench's event queue feeds this worker
	scheduled := r.rated && !queued
	switch {
	case scheduled && r.groups.of != nil:
		// The worker takes its group's starts (see groupSchedule); its
		// own share of them is one in the group's members, on average.
		g := r.groups.of[w]
		sched.group = g
		sched.interval = g.slots.interval * time.Duration(g.members)
	case scheduled && r.load.RateShares != nil:
		// The worker's own share of the total rate (its role's rate);
		// its first start one interval's fraction w/n in, staggered.
		rate := r.cfg.MaxRate * r.load.RateShares[w] / r.shareSum
		sched.interval = time.Duration(float64(time.Second) / rate)
		sched.next = first + sched.interval*time.Duration(w)/time.Duration(n)
		if r.cfg.Poisson {
			sched.rng = rand.New(rand.NewPCG(r.cfg.QueueSeed, uint64(w)+1))
			sched.next = first + expGap(sched.rng, float64(sched.interval))
		}
	case scheduled:
		// Each worker takes an equal share of the total rate; starts are
		// staggered so the aggregate schedule is even.
		sched.interval = time.Duration(float64(time.Second) * float64(n) / r.cfg.MaxRate)
		sched.next = first + time.Duration(float64(time.Second)*float64(w)/r.cfg.MaxRate)
		if r.cfg.Poisson {
			// Each worker its own Poisson process of the same mean: the
			// first arrival one gap after the start, as pgbench's clients.
			sched.rng = rand.New(rand.NewPCG(r.cfg.QueueSeed, uint64(w)+1))
			sched.next = first + expGap(sched.rng, float64(sched.interval))
		}
	}
	if scheduled {
		if r.metronome != nil {
			wait = r.metronome.tick(sched.interval).wait
		} else {
			pace := newPacer(r, sched.interval)
			wait = pace.wait
		}
	}
	pacerSeries := 3 * r.nOps
	now := time.Since(r.base)
	lastFlush := now
	for budget != 0 && !r.stopped.Load() {
		if r.pastDeadline(now) {
			return
		}
		if r.shared != nil && r.shared.Add(-1) < 0 {
			return // the shared budget is spent
		}
		var intended, late time.Duration
		switch {
		case queued:
			ev, ok := r.queue.take(r.stop)
			if !ok {
				return
			}
			r.queue.running.Add(1)
			intended, late = ev.enqueued, ev.enqueued-ev.intended
			now = time.Since(r.base)
			if r.pastDeadline(now) {
				r.queue.running.Add(-1)
				return
			}
		case scheduled:
			intended = sched.intend()
			// Under a group's schedule, whether a start is too late is
			// decided when the worker takes it, as pgbench's throttle
			// decides when its client takes the thread's next start: a
			// start still ahead then is run, however late the pacer
			// wakes the worker for it (pacer lag, not the schedule's).
			// Under a worker's own schedule, when it starts.
			late := sched.group != nil && r.cfg.SkipLate > 0 && time.Since(r.base)-intended > r.cfg.SkipLate
			if !late && !wait(intended) {
				return
			}
			now = time.Since(r.base)
			if r.pastDeadline(now) {
				return
			}
			skip := late || sched.group == nil && r.cfg.SkipLate > 0 && now-intended > r.cfg.SkipLate
			if r.load.Scheduled != nil {
				r.load.Scheduled(w, r.base.Add(intended), skip)
			}
			if skip {
				// Too late already: skipped, not run (pgbench's
				// --latency-limit under -R), and it uses its turn of
				// the budget as pgbench's -t counts it.
				r.skipped.Add(1)
				if r.hooks.Skip != nil {
					r.hooks.Skip()
				}
				if budget > 0 {
					budget--
				}
				continue
			}
		}
		start := now
		var res workload.Result
		if r.cfg.OpTimeout > 0 {
			octx, cancel := context.WithTimeout(ctx, r.cfg.OpTimeout)
			res = fn(octx)
			cancel()
		} else {
			res = fn(ctx)
		}
		now = r.opEnd(res.End, start)
		ops++
		if queued {
			r.queue.running.Add(-1)
			busy += now - intended // from the queue, as sysbench's timers
		} else {
			busy += now - start
		}
		if budget > 0 {
			budget--
		}
		series := res.Op // the operation's series, or its group's part
		if cell != nil {
			series = r.split.grouped(cell, res.Op)
		}
		switch {
		case res.Err != nil:
			if r.ended.Load() {
				// An abandoned worker's operation, failed when its
				// connection was closed from under it: the run's
				// figures and hooks are done with.
				return
			}
			if (r.stopped.Load() || r.pastDeadline(now)) && errors.Is(res.Err, context.Canceled) {
				// cancelled by the end of the run, not a failure (past
				// the deadline, the loop's timer may not have fired yet)
				return
			}
			r.countError(h, series, FailedPrefix, res.Err)
			name := r.load.Ops[res.Op]
			if r.hooks.Error != nil {
				r.hooks.Error(w, name, res.Err)
			}
			if !r.cfg.TolerateErrors && !res.Tolerated {
				r.fatal.CompareAndSwap(nil, &OpError{Worker: w, Op: name, Err: res.Err})
				if r.cfg.AbortWorker {
					r.workersMu.Lock()
					r.aborted = append(r.aborted, OpError{Worker: w, Op: name, Err: res.Err})
					r.workersMu.Unlock()
					if r.hooks.Abort != nil {
						r.hooks.Abort()
					}
				} else {
					r.halt()
				}
				return
			}
		case r.rated:
			h.Record(series, now-intended)
			h.Record(r.nOps+res.Op, now-start)
			h.Record(2*r.nOps+res.Op, start-intended)
		default:
			h.Record(series, now-start)
		}
		switch {
		case scheduled:
			// Failed operations count too: the pacer started them.
			_, late = sched.account(intended, start, now, res.Wait)
			h.Record(pacerSeries, late)
		case queued:
			h.Record(pacerSeries, late) // the generator's lateness
		}
		if now-lastFlush >= flushEvery {
			h.Flush()
			r.publish(w, ops, busy) // what a worker abandoned at the end keeps
			lastFlush = now
			// Yield, so that the runtime sees the goroutine pass
			// through the scheduler. A worker that waits for its
			// server in a blocking system call (thread I/O), or
			// never waits (the null driver), never does otherwise,
			// and every 10 ms the runtime's monitor would interrupt
			// it with a signal, cutting a wait short (2,284 signals
			// in a 5 s point-select run at 8 workers; 222 with
			// this). yield, not runtime.Gosched, keeps the goroutine
			// on its thread (see yield). One that waits in the
			// network poller parks at every wait already.
			if !r.cfg.NetPoller {
				yield()
			}
		}
		if res.Wait > 0 {
			h.Flush()
			until := r.sleepUntil
			if scheduled {
				until = wait
			}
			if !until(now + res.Wait) {
				return
			}
			now = time.Since(r.base)
			lastFlush = now
		}
	}
}
