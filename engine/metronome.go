package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// The metronome's spin window (see metronome).
const (
	// metronomeSpin is the spin window a run starts with.
	metronomeSpin = 100 * time.Microsecond
	// metronomeMaxSpin bounds the spin window: at most coarseAbove, the
	// longest precise sleep, so that the metronome spins rather than
	// sleeps whenever the kernel's wake-ups are that late.
	metronomeMaxSpin = coarseAbove
	// metronomeSpinUp and metronomeSpinDown move the window after each
	// precise sleep: up when the sleep overshot it, down when not. At
	// 999:1 the window settles where 99.9% of the overshoots fit in it.
	metronomeSpinUp   = 9990 * time.Nanosecond
	metronomeSpinDown = 10 * time.Nanosecond
)

// metronome keeps time for all the workers of a run under a rate schedule
// with the precise pacer. A worker waiting for the intended start of its
// next operation parks; the metronome, one goroutine, sleeps until a spin
// window before the earliest start any worker waits for, spins the rest
// of the way, makes that worker runnable at its instant and yields its
// processor to it, so that the worker starts on the thread that is
// already running.
//
// Why one goroutine: a thread's wake-up from a sleep is late on a virtual
// machine, because the host must schedule the virtual CPU again: measured
// on this project's 2-vCPU machines with clock_nanosleep and 1 ns of timer
// slack, p50 30-45 µs, p99 110-150 µs, and a tail of milliseconds at
// p99.9. On time therefore means a thread that is running at the instant.
// When each worker spun before its own starts, as package engine did
// before, four workers at 20,000 ops/s kept four threads spinning on two
// CPUs, and any other thread that became runnable took one of them for a
// time slice: a p99 lateness of 0.4-6 ms. Under the metronome only its
// thread spins, and a worker runs 10-20 µs after its instant (readying a
// goroutine wakes an idle processor's thread, which the metronome pays
// for before it yields).
//
// The spin window adapts to the kernel's wake-ups: it follows the 99.9th
// percentile of the precise sleeps' overshoot, up to metronomeMaxSpin.
// Where wake-ups are late by milliseconds (a busy host) the metronome
// spins through, at the cost of its thread's CPU: the pacer lag series
// and the run's CPU say what it cost. --pacer coarse spends no CPU on it.
//
// A worker that asks for an instant earlier than the end of a precise
// sleep the metronome is in (it cannot be woken from it; this needs a
// think time shorter than the spin window) waits on its own, with the
// per-goroutine pacer.
type metronome struct {
	r *runner

	mu    sync.Mutex
	waits []waiter // the parked workers, in no order
	// asleep is the end of the metronome's current precise sleep, as an
	// offset from the run's base: no instant before it can be served.
	// 0 when the metronome can be kicked (waiting on kick or a Go timer)
	// or is spinning.
	asleep time.Duration
	// earliest is the earliest instant of waits (never: none), which
	// the spinning metronome reads without the lock.
	earliest atomic.Int64
	kick     chan struct{}
	done     chan struct{} // closed when run returns

	spin  time.Duration // the spin window before an instant
	slack bool          // the thread's timer slack is set, as far as is known
}

// waiter is a parked worker: ch gets a value at its instant, at.
type waiter struct {
	at time.Duration
	ch chan struct{}
}

// never is metronome.earliest when no worker waits.
const never = int64(1<<63 - 1)

func newMetronome(r *runner) *metronome {
	m := &metronome{r: r, kick: make(chan struct{}, 1), done: make(chan struct{}), spin: metronomeSpin}
	m.earliest.Store(never)
	return m
}

// tick is one worker's handle on the metronome.
type tick struct {
	m  *metronome
	ch chan struct{}
	// own waits on the worker's own thread when the metronome cannot
	// serve an instant.
	own pacer
}

// tick returns a handle for a worker whose operations are interval apart.
func (m *metronome) tick(interval time.Duration) *tick {
	return &tick{m: m, ch: make(chan struct{}, 1), own: newPacer(m.r, interval)}
}

// wait waits until offset t after the run's base time, or until the run
// stops; it reports whether the run is still going. The worker parks, and
// the metronome makes it runnable at t.
func (k *tick) wait(t time.Duration) bool {
	m, r := k.m, k.m.r
	if t <= time.Since(r.base) {
		return !r.stopped.Load()
	}
	m.mu.Lock()
	if m.asleep != 0 && t < m.asleep {
		m.mu.Unlock()
		return k.own.wait(t)
	}
	m.waits = append(m.waits, waiter{at: t, ch: k.ch})
	if int64(t) < m.earliest.Load() {
		m.earliest.Store(int64(t))
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
	m.mu.Unlock()
	select {
	case <-k.ch:
		return !r.stopped.Load()
	case <-r.stop:
		return false
	}
}

// run keeps time until the run stops.
func (m *metronome) run() {
	r := m.r
	var timer *time.Timer
	defer close(m.done)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		m.mu.Lock()
		e := time.Duration(m.earliest.Load())
		now := time.Since(r.base)
		switch {
		case e == time.Duration(never) || e-now > coarseAbove:
			// Far or nothing to do: a Go timer, which a worker with
			// an earlier instant interrupts through kick.
			m.mu.Unlock()
			var fire <-chan time.Time
			if e != time.Duration(never) {
				if timer == nil {
					timer = time.NewTimer(e - coarseAbove - now)
				} else {
					timer.Reset(e - coarseAbove - now)
				}
				fire = timer.C
			}
			select {
			case <-m.kick:
				if timer != nil {
					timer.Stop()
				}
			case <-fire:
			case <-r.stop:
				return
			}
			continue
		case e-m.spin > now:
			// Near: a precise sleep, during which workers with an
			// earlier instant wait on their own.
			wake := e - m.spin
			m.asleep = wake
			m.mu.Unlock()
			r.preciseSleep(wake, !m.slack)
			over := time.Since(r.base) - wake
			m.slack = over < slackSuspect
			m.adapt(over)
			m.mu.Lock()
			m.asleep = 0
			m.mu.Unlock()
			continue
		}
		m.mu.Unlock()
		// Due within the spin window: spin, yielding to the workers
		// readied on this processor, until the earliest wake-up (which
		// a worker may move earlier meanwhile).
		for {
			if r.stopped.Load() {
				return
			}
			if time.Since(r.base) >= time.Duration(m.earliest.Load()) {
				break
			}
			yield()
		}
		if m.release() {
			// Run the workers just readied, on this processor's
			// thread, which is running: another would have to be
			// woken, tens of microseconds late.
			yield()
		}
	}
}

// release wakes the parked workers whose wake-up has come, and reports
// whether there were any.
func (m *metronome) release() bool {
	now := time.Since(m.r.base)
	m.mu.Lock()
	kept, earliest := m.waits[:0], never
	woke := false
	for _, w := range m.waits {
		if w.at <= now {
			woke = true
			select {
			case w.ch <- struct{}{}:
			default: // cannot happen: a worker parks once per value
			}
			continue
		}
		kept = append(kept, w)
		earliest = min(earliest, int64(w.at))
	}
	clear(m.waits[len(kept):])
	m.waits = kept
	m.earliest.Store(earliest)
	m.mu.Unlock()
	return woke
}

// adapt moves the spin window after a precise sleep that overshot its
// deadline by over.
func (m *metronome) adapt(over time.Duration) {
	if over > m.spin {
		m.spin = min(m.spin+metronomeSpinUp, metronomeMaxSpin)
	} else {
		m.spin = max(m.spin-metronomeSpinDown, 0)
	}
}
