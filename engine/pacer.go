package engine

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Pacer says how a worker under a rate schedule waits for the intended
// start of its next operation.
type Pacer int

const (
	// PacerPrecise sleeps on the kernel's high-resolution clock until
	// shortly before the intended start, then spins (yielding to the
	// worker's processor) for the rest; see pacer.
	PacerPrecise Pacer = iota
	// PacerCoarse sleeps on Go's timers alone, which spends no CPU while
	// waiting but wakes late: the runtime waits for timers in whole
	// milliseconds, so a worker starts up to about a millisecond after
	// its intended start (0.5 ms on average).
	PacerCoarse
)

// Pacers are the pacers' names, in the order of their values.
var Pacers = []string{"precise", "coarse"}

// String returns the pacer's name.
func (p Pacer) String() string {
	if p >= 0 && int(p) < len(Pacers) {
		return Pacers[p]
	}
	return fmt.Sprintf("Pacer(%d)", int(p))
}

// ParsePacer returns the pacer of a name in Pacers.
func ParsePacer(s string) (Pacer, error) {
	for i, name := range Pacers {
		if s == name {
			return Pacer(i), nil
		}
	}
	return 0, fmt.Errorf("unknown pacer %q: use precise or coarse", s)
}

// The precise pacer's bounds (see pacer).
const (
	// coarseAbove is how far ahead of a wake-up the pacer still uses a Go
	// timer: it leaves the precise sleep at most this long, so that a
	// stopping run never waits long for a worker in one.
	coarseAbove = 2 * time.Millisecond
	// maxSpin bounds the spin window; a quarter of the worker's interval
	// bounds it further, so that the pacer spins for at most a quarter of
	// a worker's time.
	maxSpin = 100 * time.Microsecond
	// spinUp and spinDown move the spin window after each precise sleep:
	// up when the sleep overshot it, down when not. At 19:1 the window
	// settles where 95% of overshoots fit in it (a stochastic estimate
	// of the 95th percentile).
	spinUp   = 1900 * time.Nanosecond
	spinDown = 100 * time.Nanosecond
	// slackSuspect is the overshoot after which the pacer sets its
	// thread's timer slack again before the next sleep: the goroutine may
	// be on another thread, whose slack is the kernel's default 50 us.
	slackSuspect = 40 * time.Microsecond
)

// pacer waits, on its goroutine's own thread, for instants of one
// schedule: sysbench's event generator under QueueRate, a worker under
// MaxRate with Config.ThreadIO, and one whose instant the metronome cannot
// serve (see metronome, which keeps the workers' time otherwise).
//
// Go's own timers cannot do it: on Linux the runtime waits for the next
// timer in epoll_wait, whose timeout is in whole milliseconds, so a timer
// due in 100 µs fires after a millisecond, and a worker paced by them
// starts its operations 0.5 ms late on average, which an open-loop run
// reports as the database's latency. The precise pacer instead sleeps with
// clock_nanosleep on CLOCK_MONOTONIC (an absolute deadline, the thread's
// timer slack set to 1 ns, where the kernel's default adds 50 µs), until
// a spin window before the intended start, and spins the rest, yielding
// to other goroutines of its processor between clock reads. Setting the
// slack is a system call of its own (0.5-4 µs on these VMs), so the pacer
// sets it before its first sleep and again only after a sleep that
// overshot by slackSuspect: a goroutine returns from its sleep on the
// thread that slept, and changes threads only when it parks (a wait longer
// than coarseAbove, a contended lock).
//
// The spin window adapts: it follows the 95th percentile of the sleeps'
// overshoot (how late the kernel woke the thread), within maxSpin and a
// quarter of the interval. The spin is the pacer's CPU cost, so at most a
// quarter of the goroutine's time.
//
// The sleep blocks the goroutine's thread, holding its processor (P)
// until the runtime's monitor hands the P to another thread, which may
// take up to 10 ms; so each goroutine that sleeps so needs a P of its own
// (see Config.RunPacer).
type pacer struct {
	r       *runner
	precise bool
	spin    time.Duration // the spin window
	maxSpin time.Duration
	slack   bool // the thread's timer slack is set, as far as is known
}

func newPacer(r *runner, interval time.Duration) pacer {
	return pacer{r: r, precise: r.pacer == PacerPrecise, maxSpin: min(maxSpin, interval/4)}
}

// wait waits until offset t after the run's base time, or until the run
// stops; it reports whether the run is still going.
func (p *pacer) wait(t time.Duration) bool {
	if !p.precise {
		return p.r.sleepUntil(t)
	}
	if t-time.Since(p.r.base) > coarseAbove {
		if !p.r.sleepUntil(t - coarseAbove) {
			return false
		}
	}
	if wake := t - p.spin; wake > time.Since(p.r.base) {
		p.r.preciseSleep(wake, !p.slack)
		over := time.Since(p.r.base) - wake
		p.slack = over < slackSuspect
		p.adapt(over)
	}
	for time.Since(p.r.base) < t {
		yield()
	}
	return !p.r.stopped.Load()
}

// adapt moves the spin window after a sleep that overshot its deadline
// by over.
func (p *pacer) adapt(over time.Duration) {
	if over > p.spin {
		p.spin = min(p.spin+spinUp, p.maxSpin)
	} else {
		p.spin = max(p.spin-spinDown, 0)
	}
}

// schedule is one worker's share of the rate schedule, and the accounting
// that splits how late each operation started (its schedule lag) into
// queueing and the pacer's lateness.
//
// Queueing is the lag a perfectly punctual client would have had: behind
// its own previous operations, when they took longer than the schedule
// allowed. The pacer's lateness is the rest: how much later than that the
// worker actually started, because it woke late, or because its own
// bookkeeping or a descheduled thread delayed it. The punctual client is
// simulated alongside: it starts each operation at the later of the
// intended start and the end of its previous operation (the same service
// times, plus any think time the workload asked for).
type schedule struct {
	interval time.Duration // between the worker's intended starts (their mean, with rng)
	next     time.Duration // the next intended start
	ready    time.Duration // when the punctual client is free for the next operation
	// rng, when set, draws exponential gaps of mean interval (Poisson
	// arrivals, Config.Poisson).
	rng *rand.Rand
	// group, when set, is the shared schedule whose starts the worker
	// takes (Config.ScheduleGroups) instead of next's.
	group *groupSchedule
}

// intend returns the next intended start and moves the schedule on.
func (s *schedule) intend() time.Duration {
	if s.group != nil {
		return s.group.take()
	}
	t := s.next
	if s.rng != nil {
		s.next += expGap(s.rng, float64(s.interval))
	} else {
		s.next += s.interval
	}
	return t
}

// account records an operation intended to start at intended, started at
// start and ended at end, after which the worker waits wait (think time);
// it returns the operation's queueing and pacer lag, which add up to its
// schedule lag (start - intended).
func (s *schedule) account(intended, start, end, wait time.Duration) (queue, pacerLag time.Duration) {
	punctual := max(intended, s.ready)
	s.ready = punctual + (end - start) + wait
	return punctual - intended, start - punctual
}
