package stats

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/internal/cacheline"
)

// Histogram geometry shared by every histogram stampede records, so that
// any two can be merged exactly.
const (
	// Lowest is the lowest discernible value: 1 microsecond, in ns.
	Lowest = int64(time.Microsecond)
	// Highest is the highest trackable value: 100 seconds, in ns. Larger
	// values are recorded as Highest.
	Highest = int64(100 * time.Second)
	// SigFigs is the number of significant decimal digits kept.
	SigFigs = 3
)

// NewHistogram returns an empty histogram with stampede's geometry.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(Lowest, Highest, SigFigs)
}

// Clamp returns d in nanoseconds limited to [0, Highest].
func Clamp(d time.Duration) int64 {
	v := int64(d)
	if v < 0 {
		return 0
	}
	if v > Highest {
		return Highest
	}
	return v
}

// shard is the recording state of a group of workers.
type shard struct {
	mu     sync.Mutex
	hists  []*Hist          // current interval, one per series (nil: not yet recorded into)
	errors []int64          // current interval, one per series
	labels map[string]int64 // current interval, by error label
	_      [64]byte         // keep shards on separate cache lines
}

// Registry holds the histograms of a run. Record through handles; call Tick
// from one goroutine. Registry is safe for concurrent use.
//
// The times of its Ticks are read on the run's clock: the start given to
// NewRegistry plus the monotonic time elapsed since (see Clock). Their
// wall-clock readings, which the run log records, then differ by exactly
// the monotonic durations the live figures divide by, so figures
// recomputed from the run log equal the live ones to the nanosecond, and a
// wall-clock step during a run neither reorders intervals nor stretches
// one.
type Registry struct {
	names  []string
	shards []*shard
	start  time.Time
	// parent[i] is the series that series i's values also count in (see
	// AddSeries), or -1. Guarded by tickMu.
	parent []int

	tickMu   sync.Mutex
	spare    [][]*Hist // per shard, swapped in at Tick
	interval []*Hist   // per series, last interval (nil: never recorded into)
	cum      []*Hist   // per series, since cumStart (nil likewise)
	empty    *Hist     // stands for series not recorded into yet
	ierrs    []int64
	cerrs    []int64
	clabels  map[string]int64 // error labels since cumStart
	last     time.Time
	cumStart time.Time
}

// NewRegistry returns a registry for the named series with the given number
// of shards (at least 1, and fewer when the series are many: see
// maxShardSeries). Use one shard per worker for small worker counts and a
// few per CPU for large ones; see ShardsFor.
func NewRegistry(names []string, shards int, start time.Time) *Registry {
	shards = max(1, min(shards, maxShardSeries/max(len(names), 1)))
	r := &Registry{
		names:    append([]string(nil), names...),
		shards:   make([]*shard, shards),
		spare:    make([][]*Hist, shards),
		interval: make([]*Hist, len(names)),
		cum:      make([]*Hist, len(names)),
		ierrs:    make([]int64, len(names)),
		cerrs:    make([]int64, len(names)),
		clabels:  map[string]int64{},
		start:    start,
		last:     start,
		cumStart: start,
		parent:   make([]int, len(names)),
	}
	for i := range r.parent {
		r.parent[i] = -1
	}
	for i := range r.shards {
		r.shards[i] = &shard{hists: make([]*Hist, len(names)), errors: make([]int64, len(names))}
		r.spare[i] = make([]*Hist, len(names))
	}
	return r
}

// maxShardSeries bounds shards × series: each series takes two
// histograms per shard, so a script of hundreds of statements (a series
// each) records into fewer shards than its workers would take. 1,024
// leaves the built-in workloads' shards as they were up to 32 (tens of
// series).
const maxShardSeries = 1024

// HistogramBytes is the size of one dense histogram of stampede's
// geometry (its counts, 155 kB).
var HistogramBytes = int64(geometry.ByteSize())

// SeriesBytes bounds the memory of the histograms of a registry of series
// series and the given shards (as NewRegistry is given them), as long as
// they stay sparse: four Hists per series at one shard (an interval and
// a cumulative view, and each shard's current and spare), two more per
// further shard, each at most SparseBytes while sparse and nothing until
// the series is first recorded into. A series' histogram turns dense
// (HistogramBytes) only when the series is recorded more than 128 times
// an interval in a shard, or its values fill more than 1,024 buckets (as
// the few operations of a built-in workload do, each a few hundred kB);
// the statements of a long script, each recorded once per transaction,
// stay sparse.
func SeriesBytes(series, shards int) int64 {
	shards = max(1, min(shards, maxShardSeries/max(series, 1)))
	return int64(series) * int64(2*shards+2) * SparseBytes
}

// ShardsFor returns a shard count for the given number of workers and CPUs
// (the Go processors that run them, GOMAXPROCS): one per worker up to 4 per
// CPU, and one for a single CPU.
//
// Shards keep workers that run at the same time on different CPUs off each
// other's lock; on one CPU no two workers run at once, and each shard only
// adds to every Tick (a pass over each series' histogram per shard, some
// 0.04 ms each: BenchmarkTick) and to the run's set-up (2 histograms of
// ~230 KB per series and shard). stampede pinned to one CPU
// (`taskset -c 1 stampede pgbench -c 8`) had 4 shards.
func ShardsFor(workers, cpus int) int {
	if cpus <= 1 {
		return 1
	}
	limit := 4 * cpus
	if limit < 1 {
		limit = 1
	}
	if workers < limit {
		if workers < 1 {
			return 1
		}
		return workers
	}
	return limit
}

// Clock returns t on the run's clock: the registry's start plus the time
// from it to t, measured on the monotonic clock when both have a monotonic
// reading (as times from time.Now do).
func (r *Registry) Clock(t time.Time) time.Time {
	return r.start.Add(t.Sub(r.start))
}

// Names returns the series names, indexed by series number.
func (r *Registry) Names() []string {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	return append([]string(nil), r.names...)
}

// AddSeries adds a series named name and returns its number. When parent
// is a series number (not -1), the new series is a part of it: at every
// Tick, its interval values and errors are also counted in parent's, so
// that parent holds its own values and those of all its parts, merged
// exactly, and recording into a part counts once in each. The engine
// splits an operation's series this way by endpoint (read@host:port).
//
// AddSeries is safe for concurrent use with recording and Tick; handles
// may record into the new series as soon as it returns. A part must not
// have parts of its own.
func (r *Registry) AddSeries(name string, parent int) int {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	if parent >= len(r.names) || (parent >= 0 && r.parent[parent] >= 0) {
		panic("stats: AddSeries with an unknown parent or a part as parent")
	}
	i := len(r.names)
	r.names = append(r.names, name)
	r.parent = append(r.parent, parent)
	// A part's histograms are made when it is first recorded into: an
	// operation split by endpoint has a part per endpoint, of which a
	// workload that never runs the operation uses none.
	r.interval = append(r.interval, nil)
	r.cum = append(r.cum, nil)
	r.ierrs = append(r.ierrs, 0)
	r.cerrs = append(r.cerrs, 0)
	for si, s := range r.shards {
		r.spare[si] = append(r.spare[si], nil)
		s.mu.Lock()
		s.hists = append(s.hists, nil)
		s.errors = append(s.errors, 0)
		s.mu.Unlock()
	}
	return i
}

// Handle returns a new recording handle for worker number worker.
// Handles of different workers may share a shard.
func (r *Registry) Handle(worker int) *Handle {
	return &Handle{s: r.shards[worker%len(r.shards)]}
}

// handleBuffer is how many values a Handle keeps before it takes its
// shard's lock to record them.
const handleBuffer = 128

// Handle records values for one worker. It buffers up to 128 values and
// records them under its shard's lock when the buffer fills or Flush is
// called, so recording costs a lock per 128 values instead of one per
// value. A Handle is not safe for concurrent use: each worker has its own,
// and must Flush before it stops (and periodically, so that values reach
// the interval they belong to; the engine flushes every few milliseconds).
type Handle struct {
	_      cacheline.Pad // written on every operation: off other workers' lines
	s      *shard
	n      int
	series [handleBuffer]int32
	vals   [handleBuffer]int64
	_      cacheline.Pad
}

// Record adds one latency to series number series.
func (h *Handle) Record(series int, d time.Duration) {
	h.series[h.n] = int32(series)
	h.vals[h.n] = Clamp(d)
	h.n++
	if h.n == handleBuffer {
		h.Flush()
	}
}

// Flush records the buffered values.
func (h *Handle) Flush() {
	if h.n == 0 {
		return
	}
	h.s.mu.Lock()
	for i := 0; i < h.n; i++ {
		hh := h.s.hists[h.series[i]]
		if hh == nil { // the series' first value in this shard (see Hist)
			hh = NewHist()
			h.s.hists[h.series[i]] = hh
		}
		if d := hh.dense; d != nil {
			_ = d.RecordValue(h.vals[i])
		} else {
			hh.RecordValue(h.vals[i])
		}
	}
	h.s.mu.Unlock()
	h.n = 0
}

// RecordError counts one failed operation of series number series; it is
// not buffered.
func (h *Handle) RecordError(series int) {
	h.s.mu.Lock()
	h.s.errors[series]++
	h.s.mu.Unlock()
}

// RecordErrorLabel counts one failed operation of series number series,
// as RecordError does, and under label (a class of failure, such as the
// caller's "errors_40001"), in the same interval; it is not buffered.
func (h *Handle) RecordErrorLabel(series int, label string) {
	h.s.mu.Lock()
	h.s.errors[series]++
	if h.s.labels == nil {
		h.s.labels = map[string]int64{}
	}
	h.s.labels[label]++
	h.s.mu.Unlock()
}

// RecordLabel counts one event under label (a failure the workload
// retried itself, "retries_40001") in the current interval's labels, as
// RecordErrorLabel does, without counting a failed operation; it is not
// buffered.
func (h *Handle) RecordLabel(label string) {
	h.s.mu.Lock()
	if h.s.labels == nil {
		h.s.labels = map[string]int64{}
	}
	h.s.labels[label]++
	h.s.mu.Unlock()
}

// Series is one series' view at a tick. The histograms belong to the
// registry and stay valid only until the next call of Tick or
// ResetCumulative; Clone them to keep them.
type Series struct {
	// Name is the series name.
	Name string
	// Interval holds the values recorded during the interval.
	Interval *Hist
	// Cumulative holds the values recorded since the start (or the last
	// ResetCumulative).
	Cumulative *Hist
	// Errors and CumErrors count failed operations likewise.
	Errors, CumErrors int64
}

// Tick is the registry's view at the end of an interval.
type Tick struct {
	// Start and End delimit the interval, on the run's clock (see
	// Registry).
	Start, End time.Time
	// CumStart is when the cumulative view started: the run's start, or
	// the start of the interval in progress at the last ResetCumulative.
	CumStart time.Time
	// Series has one entry per series, in registry order.
	Series []Series
	// Labels counts the interval's failures by the label given to
	// RecordErrorLabel, over every series; CumLabels since CumStart. Nil
	// when there are none.
	Labels, CumLabels map[string]int64
}

// Tick ends the current interval at now: it collects every shard's
// interval values, merges them exactly into the interval and cumulative
// views and returns them. Call it from one goroutine at a time.
func (r *Registry) Tick(now time.Time) Tick {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	now = r.Clock(now)
	for i := range r.interval {
		if r.interval[i] != nil && r.interval[i].TotalCount() > 0 {
			r.interval[i].Reset()
		}
		r.ierrs[i] = 0
	}
	var ilabels map[string]int64
	for si, s := range r.shards {
		fresh := r.spare[si]
		s.mu.Lock()
		old := s.hists
		for i, h := range old {
			fresh[i] = fresh[i].hot(h)
		}
		s.hists = fresh
		for i, e := range s.errors {
			r.ierrs[i] += e
			s.errors[i] = 0
		}
		labels := s.labels
		s.labels = nil
		s.mu.Unlock()
		for l, n := range labels {
			if ilabels == nil {
				ilabels = map[string]int64{}
			}
			ilabels[l] += n
		}
		// Each shard's values go to their series' interval and
		// cumulative views, and a part's also to its parent's: adding
		// counts is exact in any order. A sparse copy of the shard's
		// histogram (one plain pass over its counts) is added bucket by
		// bucket, populated ones only, instead of the dense Merge's walk
		// of every bucket with its value range (see packedOf).
		for i, h := range old {
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			p := h.sparse
			if h.dense != nil {
				p = packedOf(h.dense)
			}
			r.mergeInto(i, p)
			if par := r.parent[i]; par >= 0 {
				r.mergeInto(par, p)
			}
			if h.dense != nil {
				packedPool.Put(p)
			}
			h.Reset()
		}
		r.spare[si] = old
	}
	for i, p := range r.parent {
		if p >= 0 {
			r.ierrs[p] += r.ierrs[i]
		}
	}
	t := Tick{Start: r.last, End: now, CumStart: r.cumStart, Series: make([]Series, len(r.names)), Labels: ilabels}
	for l, n := range ilabels {
		r.clabels[l] += n
	}
	if len(r.clabels) > 0 {
		t.CumLabels = make(map[string]int64, len(r.clabels))
		for l, n := range r.clabels {
			t.CumLabels[l] = n
		}
	}
	for i, name := range r.names {
		r.cerrs[i] += r.ierrs[i]
		t.Series[i] = Series{
			Name:       name,
			Interval:   r.orEmpty(r.interval[i]),
			Cumulative: r.orEmpty(r.cum[i]),
			Errors:     r.ierrs[i],
			CumErrors:  r.cerrs[i],
		}
	}
	r.last = now
	return t
}

// mergeInto adds a shard's values h to series i's interval and cumulative
// views.
func (r *Registry) mergeInto(i int, h *hdrhistogram.PackedHistogram) {
	if r.interval[i] == nil {
		r.interval[i] = NewHist()
	}
	if r.cum[i] == nil {
		r.cum[i] = NewHist()
	}
	r.interval[i].add(h)
	r.cum[i].add(h)
}

// Restart moves the start of the first interval and of the cumulative
// view to t: the engine calls it as its workers start, so that neither
// holds the run's setup (telemetry, limits, the run directory) before the
// first operation could start. Call it before anything is recorded.
func (r *Registry) Restart(t time.Time) {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	t = r.Clock(t)
	r.last, r.cumStart = t, t
}

// ResetCumulative empties the cumulative view; the engine calls it when
// the ramp ends so the final figures exclude it. Values of the interval in
// progress are kept for the interval view and counted in the new
// cumulative view at the next Tick, so the cumulative view starts where
// that interval started (the last Tick's end, or the registry's start), and
// its figures are per second of whole intervals, as those recomputed from
// the run log are. It returns that start.
func (r *Registry) ResetCumulative() time.Time {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	for i := range r.cum {
		if r.cum[i] != nil {
			r.cum[i].Reset()
		}
		r.cerrs[i] = 0
	}
	clear(r.clabels)
	r.cumStart = r.last
	return r.cumStart
}

// orEmpty returns h, or an empty histogram for a part not recorded into
// yet (which Tick's callers must not modify, as any of its histograms).
func (r *Registry) orEmpty(h *Hist) *Hist {
	if h != nil {
		return h
	}
	if r.empty == nil {
		r.empty = NewHist()
	}
	return r.empty
}
