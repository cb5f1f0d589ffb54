package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// QueueCapacity is how many events the queue of Config.QueueRate holds,
// as sysbench 1.0.20's (MAX_QUEUE_LEN): when the workers fall this far
// behind the generator, the run fails with ErrQueueFull.
const QueueCapacity = 131072

// ErrQueueFull ends a run under Config.QueueRate whose workers could not
// keep up with the generator, as sysbench's "The event queue is full".
var ErrQueueFull = errors.New("the event queue is full: the workers cannot keep up with the --rate; lower it or add threads")

// queueStream is the random stream of the generator's gaps (seeded by
// Config.QueueSeed), distinct from every workload stream, which seed with
// the run seed.
const queueStream = 0x5eed_9e7e

// event is one event of the queue: its instant in the generator's
// schedule and when it entered the queue, as offsets from the run's start.
type event struct {
	intended, enqueued time.Duration
}

// eventQueue is sysbench's --rate: one generator (see generate) puts
// events into a queue at exponentially distributed gaps, and every worker
// takes its next event from it. Its counters are what sysbench's
// "queue length" and "concurrency" lines report.
type eventQueue struct {
	ch chan event
	// running counts the events taken and not yet finished.
	running atomic.Int64
}

func newEventQueue(capacity int) *eventQueue {
	return &eventQueue{ch: make(chan event, capacity)}
}

// expGap returns an exponentially distributed gap of the given mean
// drawn from rng: the time between two arrivals of a Poisson process.
func expGap(rng *rand.Rand, mean float64) time.Duration {
	return time.Duration(-mean * math.Log(1-rng.Float64()))
}

// generate runs the generator until the run stops: it draws each event's
// instant as the previous one's plus an exponential gap of mean 1/rate
// (so lateness never shifts the schedule), waits for it with the run's
// pacer, stamps the event with the time it enters the queue and puts it
// there without blocking. A full queue fails the run.
func (r *runner) generate(q *eventQueue, rate float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, queueStream))
	mean := float64(time.Second) / rate
	pace := newPacer(r, time.Duration(mean))
	pace.precise = r.genPacer == PacerPrecise
	next := time.Duration(0)
	for {
		next += expGap(rng, mean)
		if !pace.wait(next) {
			return
		}
		select {
		case q.ch <- event{intended: next, enqueued: time.Since(r.base)}:
		default:
			r.fatal.CompareAndSwap(nil, &OpError{Worker: -1, Op: "event queue", Err: ErrQueueFull})
			r.halt()
			return
		}
	}
}

// take returns the next event of the queue, waiting for one, or false
// when the run stops first.
func (q *eventQueue) take(stop <-chan struct{}) (event, bool) {
	select {
	case ev := <-q.ch:
		return ev, true
	default:
	}
	select {
	case ev := <-q.ch:
		return ev, true
	case <-stop:
		return event{}, false
	}
}

// QueueState is the state of the event queue of Config.QueueRate at an
// instant: sysbench's "queue length" and "concurrency".
type QueueState struct {
	// Length is the number of events waiting in the queue.
	Length int
	// Concurrency is the number of events the workers are executing.
	Concurrency int
}

// state returns the queue's state now.
func (q *eventQueue) state() QueueState {
	return QueueState{Length: len(q.ch), Concurrency: int(q.running.Load())}
}
