// Package gcpace paces Go's garbage collector for the length of a run.
//
// A collection disturbs a benchmark that shares its CPUs with the server:
// it stops every worker thread for a moment, with a signal that wakes the
// threads waiting in the kernel for replies, and for its mark phase it
// runs its own workers on a quarter of the processors, so the Go
// scheduler hands some benchmark goroutines to other threads. Each
// disturbance can separate a client thread from the server backend it
// talks to, which the kernel had placed on the same CPU; the pair then
// wakes each other across CPUs, sometimes for the rest of the run.
//
// stampede allocates little per operation (2-3 MB/s at 75,000 point
// selects a second: the interval log's compressor and the driver's
// command tags), so with Go's default pacing (GOGC=100) and its small
// heap it still collected every 2-3 s. Apply lets the heap grow by a
// fixed headroom above the live heap instead: a collection every 20-30 s
// at that rate with the default 64 MiB, and no change
// at all when the live heap is already larger than the headroom (a run
// with thousands of connections), so memory stays bounded.
//
// Measured on 2 CPUs with PostgreSQL on the same machine,
// oltp_point_select at 8 threads on 4 x 1M rows, four alternating 20 s
// rounds: 82,678-84,269 tps with the default headroom, 73,990-82,240
// without (GOGC=100), 81,481-84,470 with 256 MiB; sysbench beside them
// 79,770-82,485.
package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultHeadroom is the heap growth allowed between collections during a
// run unless the user picks another: 64 MiB.
const DefaultHeadroom int64 = 64 << 20

// The runtime metrics Apply reads: the heap marked live by the last
// collection, and the GOGC value in effect.
const (
	liveHeapMetric = "/gc/heap/live:bytes"
	gogcMetric     = "/gc/gogc:percent"
)

// Applied says what Apply did.
type Applied struct {
	// Percent is the GOGC value in effect during the run.
	Percent int
	// LiveHeap is the live heap in bytes when the run started, 0 when it
	// was not measured.
	LiveHeap int64
	// Changed says whether Apply changed the pacing.
	Changed bool
	// Why says why the pacing was left alone, when it was.
	Why string
}

// Apply collects garbage once (so the run starts with the setup's garbage
// gone and a measured live heap), then sets GOGC so that the heap may grow
// by headroom bytes before the next collection, unless Go's own pacing
// already allows more. It leaves the pacing alone when headroom is not
// positive or when the environment sets GOGC (the user's choice wins).
// The previous setting is the one before Hold, when Hold holds the pacing.
// The function it returns restores the previous setting; it may be called
// more than once.
func Apply(headroom int64) (Applied, func()) {
	noop := func() {}
	if headroom <= 0 {
		return Applied{Percent: release(), Why: "no headroom asked"}, noop
	}
	if v, ok := os.LookupEnv("GOGC"); ok && v != "" {
		return Applied{Percent: release(), Why: "GOGC is set in the environment"}, noop
	}
	runtime.GC()
	live := liveHeap()
	prev := release()
	if live <= 0 || prev < 0 {
		return Applied{Percent: prev, LiveHeap: live, Why: "the live heap is unknown"}, noop
	}
	pct := percentFor(headroom, live)
	if pct <= prev {
		return Applied{Percent: prev, LiveHeap: live, Why: "Go's own pacing allows more"}, noop
	}
	debug.SetGCPercent(pct)
	restored := false
	return Applied{Percent: pct, LiveHeap: live, Changed: true}, func() {
		if !restored {
			restored = true
			debug.SetGCPercent(prev)
		}
	}
}

// held is the pacing Hold replaced, until Apply or Hold's release puts it
// back.
var held struct {
	sync.Mutex
	on   bool
	prev int
	gen  uint64 // counts Holds, so that a cleanup releases only its own
}

// sentinel is the object whose cleanup ends a Hold at the first
// collection (a pointer and some room keep it off the tiny allocator,
// whose blocks are freed together).
type sentinel struct {
	_ *int
	_ [3]uintptr
}

// minHeap is the heap Go lets grow to before its first collection at
// GOGC=100 (its heap minimum): Hold's base before any collection.
const minHeap = 4 << 20

// Hold postpones garbage collection while a run sets up: it lets the heap
// grow by headroom bytes above the live heap of the last collection (or
// above Go's 4 MiB heap minimum, before the first) without collecting,
// the growth the run's own pacing allows (Apply). A run's set-up
// allocates its histograms and connections in a few milliseconds; under
// Go's default pacing of a small heap that was four to six collections,
// which had to stop goroutines sleeping in blocking reads on the
// connections being opened (thread I/O: see sqlx) and spun meanwhile.
//
// The hold ends at the first collection (the heap grew by headroom), at
// Apply, which collects the set-up's garbage and paces the run from the
// pacing Hold replaced, or when the function Hold returns is called (it
// may be called more than once, and does nothing once the hold ended),
// whichever comes first. A Hold while one holds does nothing. Like Apply,
// Hold does nothing when headroom is not positive or GOGC is set in the
// environment. A process may Hold from its start (its command line's
// set-up) as a run does: at most one collection is postponed, by at most
// headroom bytes.
func Hold(headroom int64) func() {
	noop := func() {}
	if headroom <= 0 {
		return noop
	}
	if v, ok := os.LookupEnv("GOGC"); ok && v != "" {
		return noop
	}
	held.Lock()
	defer held.Unlock()
	if held.on {
		return noop
	}
	prev := currentPercent()
	live := liveHeap()
	if live <= 0 {
		live = minHeap // no collection yet: Go's first is at its heap minimum
	}
	pct := percentFor(headroom, live)
	if prev < 0 || pct <= prev {
		return noop
	}
	debug.SetGCPercent(pct)
	held.gen++
	held.on, held.prev = true, prev
	// The first collection ends the hold: past it, the raised GOGC would
	// let a live heap grown meanwhile grow by pct percent of itself.
	runtime.AddCleanup(new(sentinel), releaseGen, held.gen)
	return func() { release() }
}

// releaseGen releases the Hold numbered gen, if it still holds.
func releaseGen(gen uint64) {
	held.Lock()
	defer held.Unlock()
	if held.on && held.gen == gen {
		held.on = false
		debug.SetGCPercent(held.prev)
	}
}

// release puts back the pacing Hold replaced, if it is still held, and
// returns the GOGC value in effect then.
func release() int {
	held.Lock()
	defer held.Unlock()
	if !held.on {
		return currentPercent()
	}
	held.on = false
	debug.SetGCPercent(held.prev)
	return held.prev
}

// percentFor is the GOGC value that lets a heap of live bytes grow by
// headroom bytes: headroom as a percentage of live, rounded up.
func percentFor(headroom, live int64) int {
	if live <= 0 {
		return 100
	}
	const most = 1 << 30 // beyond this the collector never runs in practice
	p := math.Ceil(float64(headroom) * 100 / float64(live))
	if p > most {
		return most
	}
	return int(p)
}

// currentPercent reads the GOGC value in effect (-1 when collection is
// off).
func currentPercent() int {
	if v, ok := readMetric(gogcMetric); ok {
		return int(int64(v))
	}
	// Not reported: read it by setting it, which leaves it as it was.
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// liveHeap reads the live heap marked by the last collection, 0 when the
// runtime does not report it.
func liveHeap() int64 {
	v, _ := readMetric(liveHeapMetric)
	return int64(v)
}

// readMetric reads one unsigned runtime metric.
func readMetric(name string) (uint64, bool) {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return s[0].Value.Uint64(), true
}
