package randgen

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultAckWindow is the acknowledgement window of NewAcknowledgedCounter:
// how far past Last() a value may be acknowledged without waiting. YCSB uses
// 2^20; at millions of inserts per second that is a fraction of a second of
// work behind one slow insert, so the default here is 2^22 (a 512 KiB
// bitmap). Being a constant, it is safe for concurrent use.
const DefaultAckWindow = 1 << 22

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator: the shared
// source of insert key numbers. Next hands out start, start+1, ...; a worker
// calls Acknowledge(v) once the insert of v has completed, in any order; Last
// reports the highest value v such that every value from start to v has been
// acknowledged, so readers (SkewedLatest, the "latest" request distribution)
// only pick keys that exist.
//
// It is safe for concurrent use and designed to be shared by all workers:
// Next is one atomic add, Last one atomic load, and Acknowledge sets a bit in
// a window bitmap and then advances Last under a mutex that it only ever
// tries to take (TryLock), never waits for. Unlike YCSB's version, which may
// leave Last behind until the next acknowledgement when two acknowledgements
// race, Last always reaches the contiguous acknowledged prefix once the
// Acknowledge calls have returned.
//
// Acknowledge(v) for a v more than the window size past Last() waits until
// Last() catches up (YCSB throws instead). So every value returned by Next
// must eventually be acknowledged, even when its insert fails, or Last stops
// advancing and Acknowledge calls far ahead of it block; and a goroutine must
// not hold back a value of its own while acknowledging values a window
// beyond it.
type AcknowledgedCounter struct {
	next atomic.Int64
	_    [56]byte // keep Next's cache line apart from Last's
	// limit is Last(): every value in [start, limit] is acknowledged, and
	// their window bits are clear.
	limit  atomic.Int64
	_      [56]byte
	start  int64
	window int64  // window size in values, a power of two >= 64
	mask   uint64 // window - 1
	mu     sync.Mutex
	// bits holds one bit per value in (limit, limit+window], value v at bit
	// v&mask: set when v is acknowledged, cleared when limit passes v.
	bits []atomic.Uint64
}

// NewAcknowledgedCounter returns a counter whose first Next value is start
// and whose Last is start-1, with a window of DefaultAckWindow values. It is
// safe for concurrent use, and so is the result.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	return NewAcknowledgedCounterWindow(start, DefaultAckWindow)
}

// NewAcknowledgedCounterWindow is NewAcknowledgedCounter with an
// acknowledgement window of window values (rounded up to a power of two, at
// least 64 and at most 2^32): the bitmap takes window/8 bytes, and Acknowledge(v) waits while
// v > Last()+window. It is safe for concurrent use, and so is the result.
func NewAcknowledgedCounterWindow(start int64, window int) *AcknowledgedCounter {
	w := uint64(64)
	for w < uint64(window) && w < 1<<32 {
		w <<= 1
	}
	c := &AcknowledgedCounter{
		start:  start,
		window: int64(w),
		mask:   w - 1,
		bits:   make([]atomic.Uint64, w/64),
	}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next returns the next value to insert: start on the first call, then
// start+1, and so on. It is safe for concurrent use.
func (c *AcknowledgedCounter) Next() int64 {
	return c.next.Add(1) - 1
}

// Last returns the highest value v such that every value from start to v has
// been acknowledged, or start-1 if start has not been. It never decreases.
// It is safe for concurrent use.
func (c *AcknowledgedCounter) Last() int64 {
	return c.limit.Load()
}

// Acknowledge marks v, a value returned by Next, as inserted, and advances
// Last over the acknowledged values that now follow it contiguously. Values
// may be acknowledged in any order. If v is more than the window past Last,
// it waits until Last catches up (see AcknowledgedCounter).
//
// It panics if v was not returned by Next or was already acknowledged (the
// latter is detected only while v is inside the window). It is safe for
// concurrent use.
func (c *AcknowledgedCounter) Acknowledge(v int64) {
	if v < c.start || v >= c.next.Load() {
		panic(fmt.Sprintf("randgen: AcknowledgedCounter.Acknowledge(%d): value not returned by Next", v))
	}
	lim := c.limit.Load()
	if v <= lim {
		panic(fmt.Sprintf("randgen: AcknowledgedCounter.Acknowledge(%d): already acknowledged", v))
	}
	if v-lim > c.window {
		c.waitRoom(v)
	}
	// v's bit cannot be taken by another value: every acknowledged value
	// above limit is at most limit+window, and so is v.
	slot := uint64(v) & c.mask
	m := uint64(1) << (slot & 63)
	if c.bits[slot>>6].Or(m)&m != 0 {
		panic(fmt.Sprintf("randgen: AcknowledgedCounter.Acknowledge(%d): already acknowledged", v))
	}
	// Advance while the value after Last is acknowledged. If TryLock fails,
	// the holder re-checks after unlocking, and our bit was set before our
	// TryLock, so it sees the bit: no acknowledgement is left behind.
	for c.acked(c.limit.Load() + 1) {
		if !c.mu.TryLock() {
			return
		}
		c.advance()
		c.mu.Unlock()
	}
}

// acked reports whether v's bit is set.
func (c *AcknowledgedCounter) acked(v int64) bool {
	slot := uint64(v) & c.mask
	return c.bits[slot>>6].Load()&(1<<(slot&63)) != 0
}

// advance moves limit over the run of set bits after it, clearing them a
// word at a time. c.mu must be held.
func (c *AcknowledgedCounter) advance() {
	lim := c.limit.Load()
	for {
		slot := uint64(lim+1) & c.mask
		off := slot & 63
		w := &c.bits[slot>>6]
		// The number of set bits from off up; the zeros the shift brings in
		// cap it at 64-off.
		run := bits.TrailingZeros64(^(w.Load() >> off))
		if run == 0 {
			break
		}
		m := ^uint64(0)
		if run < 64 {
			m = (1<<uint(run) - 1) << off
		}
		w.And(^m)
		lim += int64(run)
		if int(off)+run < 64 { // stopped at a clear bit inside the word
			break
		}
	}
	c.limit.Store(lim)
}

// waitRoom waits until v is within the window past limit.
func (c *AcknowledgedCounter) waitRoom(v int64) {
	sleep := time.Microsecond
	for i := 0; v-c.limit.Load() > c.window; i++ {
		if i < 100 {
			runtime.Gosched()
			continue
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, time.Millisecond)
	}
}

// SkewedLatest is YCSB's SkewedLatestGenerator, the "latest" request
// distribution: it favours the most recently inserted keys. Each Next reads
// max = basis.Last() and returns max - z, where z is Zipfian (θ =
// ZipfianConstant) over [0, max-1] (Zipfian.NextN with item count max), so
// max itself is the most likely value, max-1 the next, and so on down to 1.
// As in YCSB, the value 0 is never returned.
//
// A SkewedLatest is a per-worker value, not safe for concurrent use; its
// basis is shared by all workers.
type SkewedLatest struct {
	basis *AcknowledgedCounter
	zipf  Zipfian
}

var _ IntGenerator = (*SkewedLatest)(nil)

// NewSkewedLatest returns a SkewedLatest over the values acknowledged in
// basis (YCSB builds its Zipfian for basis.Last() items at this point; as the
// basis grows, zeta is extended incrementally). It is safe for concurrent
// use; the result is not.
func NewSkewedLatest(basis *AcknowledgedCounter) *SkewedLatest {
	return NewSkewedLatestConstant(basis, ZipfianConstant)
}

// NewSkewedLatestConstant is NewSkewedLatest with the zipfian constant
// constant in [0, 1) instead of ZipfianConstant (YCSB's is fixed). It
// panics if constant is out of range. It is safe for concurrent use; the
// result is not.
func NewSkewedLatestConstant(basis *AcknowledgedCounter, constant float64) *SkewedLatest {
	n := max(basis.Last(), 1)
	s := &SkewedLatest{basis: basis}
	s.zipf.init("NewSkewedLatest", 0, n-1, constant, Zeta(n, constant))
	return s
}

// Next returns a value in [1, basis.Last()], skewed towards basis.Last().
// If basis.Last() < 1 there is nothing to choose from and it returns
// basis.Last(). It does not allocate. Not safe for concurrent use.
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	last := s.basis.Last()
	if last < 1 {
		return last
	}
	return last - s.zipf.NextN(r, last)
}
