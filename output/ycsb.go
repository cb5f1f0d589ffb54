package output

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// YCSB prints a run as YCSB does (--output-style ycsb): its status lines
// every interval, as YCSB's StatusThread writes them, and its final report.
// Latencies are YCSB's measurement.interval: op (the service time, YCSB's
// default), intended (from the scheduled start) or both ([READ] and
// [Intended-READ]); without a rate the two are the same. It is a
// run.Observer.
type YCSB struct {
	// W receives the final report (stdout), Status the status lines
	// (stderr; nil for none, as YCSB prints them only with -s).
	W, Status io.Writer
	// Workload is the run's generator (a workload.YCSBMeasurer names
	// YCSB's measurements).
	Workload workload.Generator
	// Latency is the run's --latency (see ycsbMode).
	Latency string

	out, status *report.YCSB
	load        workload.QueryLoad
	rated       bool
	measures    []workload.YCSBMeasure
	// measured says whether each series has YCSB measures of its own
	// (YCSBMeasurer); otherwise its errors are Return=ERROR.
	measured bool
	primary  []bool
	mode     string // op, intended or both
	// percentiles are those of the final report.
	percentiles []float64
	start       time.Time
	// gc is the garbage collector's count at the start.
	gc gcCount
	// ops is the number of operations at the previous status line;
	// maxOps the run's count (0: none), which the status lines count down.
	ops, maxOps int64
}

// ycsbStatusPercentiles are the percentiles of YCSB's status lines.
var ycsbStatusPercentiles = []float64{90, 99, 99.9, 99.99}

// ycsbPercentiles are the percentiles of YCSB's final report by default
// (hdrhistogram.percentiles: 0.17.0's are 95 and 99).
var ycsbPercentiles = []float64{95, 99}

// ycsbMode maps --latency onto YCSB's measurement.interval.
func ycsbMode(latency string) string {
	switch latency {
	case "intended":
		return "intended"
	case "both":
		return "both"
	}
	return "op"
}

var _ run.Observer = (*YCSB)(nil)

// Start implements run.Observer.
func (o *YCSB) Start(info run.Info) {
	o.out, o.status = &report.YCSB{W: o.W}, &report.YCSB{W: o.Status}
	if l, ok := o.Workload.(interface{ YCSBLabel() string }); ok {
		o.status.Label = l.YCSBLabel() // YCSB's -l
	}
	o.load = workload.QueryLoad{Ops: info.Ops, Classes: info.Classes}
	o.mode, o.start, o.gc = ycsbMode(o.Latency), info.Start, readGC()
	o.rated = info.MaxRate > 0 // series n..2n-1 are service times (not parts by endpoint)
	load := o.load
	m, ok := o.Workload.(workload.YCSBMeasurer)
	o.measured = ok
	o.percentiles = ycsbPercentiles
	if ok {
		if p := m.YCSBPercentiles(); len(p) > 0 {
			o.percentiles = p
		}
	}
	classified := len(load.Classes) == len(load.Ops)
	for i, name := range load.Ops {
		if ok {
			o.measures = append(o.measures, m.YCSBMeasure(name))
		} else {
			up := strings.ToUpper(name)
			o.measures = append(o.measures, workload.YCSBMeasure{Latency: up, Counted: up, Status: "OK"})
		}
		o.primary = append(o.primary, (!classified || load.Classes[i] == workload.ClassTransaction) && !results.IsPart(name))
	}
	o.maxOps = info.MaxOps
	if o.Status != nil { // YCSB's StatusThread writes a line as it starts
		_ = o.status.Status(info.Start, 0, 0, o.todo(0), 0, nil)
	}
}

// todo returns the operations left to do after done, as YCSB's status
// lines count them (0 for a run without a count).
func (o *YCSB) todo(done int64) int64 {
	return max(o.maxOps-done, 0)
}

// ycsbAcc gathers a YCSB measurement's histogram and counts.
type ycsbAcc struct {
	name    string
	hist    *hdrhistogram.Histogram // nanoseconds, or microseconds when micros
	micros  bool
	returns map[string]int64
	order   []string
}

// newMicros returns an empty histogram of microseconds as YCSB 0.17.0's
// hdrhistogram measurement keeps it (HdrHistogram's Recorder with 3
// significant digits, from 1 µs: exact below 2,048 µs), up to
// stampede's highest latency.
func newMicros() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, stats.Highest/1e3, stats.SigFigs)
}

// micros returns h, a histogram of nanoseconds, as YCSB's measurement
// would hold the same latencies: each truncated to whole microseconds
// (YCSB records (end-start)/1000), in a histogram of microseconds. Each
// of h's buckets stands for its median value, as its mean counts it.
// YCSB computes every figure of its report from that histogram, which
// keeps the average within the minimum and the maximum; taken from h
// in nanoseconds and divided, the extremes were truncated and the mean
// was not, and a single latency of 1.5 µs printed Avg=1.28 beside
// Max=1.
func micros(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	us := newMicros()
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			median := b.From + (b.To-b.From+1)/2
			_ = us.RecordValues(min(median, stats.Highest)/1e3, b.Count)
		}
	}
	return us
}

// collect builds the measurements of a tick, cumulative or of the
// interval, and the number of operations (successful or not).
func (o *YCSB) collect(t stats.Tick, cumulative bool) ([]*ycsbAcc, int64) {
	n := len(o.load.Ops)
	rated := o.rated
	byName := map[string]*ycsbAcc{}
	var op, intended []*ycsbAcc
	get := func(list *[]*ycsbAcc, name string) *ycsbAcc {
		a, ok := byName[name]
		if !ok {
			a = &ycsbAcc{name: name, hist: stats.NewHistogram(), returns: map[string]int64{}}
			byName[name] = a
			*list = append(*list, a)
		}
		return a
	}
	pick := func(s stats.Series) (*stats.Hist, int64) {
		if cumulative {
			return s.Cumulative, s.CumErrors
		}
		return s.Interval, s.Errors
	}
	var ops int64
	for i := 0; i < n; i++ {
		m := o.measures[i]
		own, errs := pick(t.Series[i])
		// A statement (recorded through the Recorder) has only its own
		// series, of service times.
		service := own
		if rated && (len(o.load.Classes) != n || o.load.Classes[i] == workload.ClassTransaction) {
			service, _ = pick(t.Series[n+i])
		}
		if o.primary[i] {
			ops += own.TotalCount() + errs
		}
		if m.Latency != "" {
			switch o.mode {
			case "op":
				stats.Merge(get(&op, m.Latency).hist, service)
			case "intended":
				if !m.OpOnly {
					stats.Merge(get(&op, m.Latency).hist, own)
				}
			default:
				stats.Merge(get(&op, m.Latency).hist, service)
				if !m.OpOnly {
					stats.Merge(get(&intended, "Intended-"+m.Latency).hist, own)
				}
			}
		}
		count := func(name, status string, c int64) {
			if c == 0 {
				return
			}
			a := get(&op, name)
			if _, ok := a.returns[status]; !ok {
				a.order = append(a.order, status)
			}
			a.returns[status] += c
		}
		if m.Counted != "" && m.Status != "" {
			count(m.Counted, m.Status, own.TotalCount())
		}
		switch {
		case !o.measured:
			count(m.Counted, "ERROR", errs)
		case m.Errors != "":
			count(m.Counted, m.Errors, errs)
		}
	}
	return append(op, intended...), ops
}

// seen returns the names of the measurements that hold a latency or a
// count: YCSB makes a measurement when it first records into it.
func seen(accs []*ycsbAcc) map[string]bool {
	names := map[string]bool{}
	for _, a := range accs {
		if a.hist.TotalCount() > 0 || len(a.order) > 0 {
			names[a.name] = true
		}
	}
	return names
}

// ycsbMeasurements renders the accumulated measurements named in show
// with the given percentiles.
func ycsbMeasurements(accs []*ycsbAcc, show map[string]bool, percentiles []float64, returns bool) []report.YCSBMeasurement {
	var ms []report.YCSBMeasurement
	for _, a := range accs {
		if !show[a.name] {
			continue
		}
		h := a.hist
		if !a.micros {
			h = micros(h)
		}
		m := report.YCSBMeasurement{Name: a.name, Count: h.TotalCount()}
		if m.Count > 0 {
			m.Mean, m.Min, m.Max = h.Mean(), h.Min(), h.Max()
		}
		for _, p := range percentiles {
			v := int64(0)
			if m.Count > 0 {
				v = h.ValueAtPercentile(p)
			}
			m.Percentiles = append(m.Percentiles, report.YCSBPercentile{Percentile: p, Value: v})
		}
		if returns {
			for _, st := range a.order {
				m.Returns = append(m.Returns, report.YCSBReturn{Status: st, Count: a.returns[st]})
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// Interval implements run.Observer. The run's last interval, cut short by
// its end, gets its status line too, as YCSB's StatusThread writes one
// when its clients are done.
func (o *YCSB) Interval(iv run.Interval) {
	if o.Status == nil {
		return
	}
	t := iv.Tick
	accs, _ := o.collect(t, false)
	cum, total := o.collect(t, true)
	secs := t.End.Sub(t.Start).Seconds()
	current := 0.0
	if secs > 0 {
		current = float64(total-o.ops) / secs
	}
	if total < o.ops { // the cumulative figures restarted at the ramp's end
		current = 0
	}
	o.ops = total
	_ = o.status.Status(t.End, t.End.Sub(o.start), total, o.todo(total), current, ycsbMeasurements(accs, seen(cum), ycsbStatusPercentiles, false))
}

// ycsbExporter is a generator that says where YCSB's report goes and in
// which exporter's layout (YCSB's exporter and exportfile properties):
// one of the classes ycsbLayouts names, and a file ("" for W).
type ycsbExporter interface {
	YCSBExport() (exporter, file string)
}

// ycsbLayouts are the layouts of YCSB's exporters, by class name.
var ycsbLayouts = map[string]report.YCSBLayout{
	"site.ycsb.measurements.exporter.TextMeasurementsExporter":      report.YCSBText,
	"site.ycsb.measurements.exporter.JSONMeasurementsExporter":      report.YCSBJSON,
	"site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter": report.YCSBJSONArray,
}

// Final implements run.Observer. The report goes to W, or to the
// workload's export file (see ycsbExporter), which it replaces; a file
// that cannot be written is said on Status (or W), the run's results
// being saved all the same.
func (o *YCSB) Final(r *run.Result) {
	t := r.Final
	accs, ops := o.collect(t, true)
	gc := readGC().since(o.gc)
	err := ycsbExport(o.Workload, o.W, func(out *report.YCSB) error {
		out.GC = &gc
		return out.Final(t.End.Sub(t.CumStart), ops, report.YCSBOrder(ycsbMeasurements(accs, seen(accs), o.percentiles, true)))
	})
	if err != nil {
		o.exportFailed(err)
	}
}

// ycsbExport writes YCSB's report with write: to w, or, when gen names an
// exporter and a file (ycsbExporter), in that exporter's layout to the
// file, which it replaces. Its error is the file's only.
func ycsbExport(gen workload.Generator, w io.Writer, write func(*report.YCSB) error) (err error) {
	out := &report.YCSB{W: w}
	if e, ok := gen.(ycsbExporter); ok {
		exporter, file := e.YCSBExport()
		out.Layout = ycsbLayouts[exporter]
		if file != "" {
			f, err := os.Create(file)
			if err != nil {
				return err
			}
			defer func() {
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}()
			out.W = f
			return write(out)
		}
	}
	_ = write(out)
	return nil
}

// YCSBLoad writes YCSB's report of a load (`stampede load jdbc ...`, init
// with --output-style ycsb) of rows in elapsed, timed by timer: [OVERALL]'s
// run time and throughput, the client's garbage collections since the
// timer was made, and YCSB's [INSERT] and [CLEANUP] measurements, in the
// order YCSB lists them (report.YCSBOrder). A nil timer (a load that
// was not timed) gives [INSERT]'s counts only, Return=OK. It goes to w,
// or where the workload's exporter and exportfile say.
func YCSBLoad(w io.Writer, gen workload.Generator, timer *YCSBLoadTimer, rows int64, elapsed time.Duration) error {
	ms := []report.YCSBMeasurement{{Name: "INSERT", Count: rows, Unmeasured: true,
		Returns: []report.YCSBReturn{{Status: "OK", Count: rows}}}}
	var gc *report.YCSBGC
	if timer != nil {
		percentiles := ycsbPercentiles
		if m, ok := gen.(workload.YCSBMeasurer); ok && len(m.YCSBPercentiles()) > 0 {
			percentiles = m.YCSBPercentiles()
		}
		ms = timer.measurements(percentiles)
		g := readGC().since(timer.gc)
		gc = &g
	}
	return ycsbExport(gen, w, func(out *report.YCSB) error {
		out.GC = gc
		return out.Final(elapsed, rows, report.YCSBOrder(ms))
	})
}

// YCSBLoadTimer gathers the timings of a load that inserts as YCSB's load
// does (workload.LoadOptions.Timer), for YCSBLoad: each row's insert,
// Return=OK when it sent its statement, BATCHED_OK when it only joined
// it, and each stream's cleanup. It is a workload.InsertTimer, safe for
// concurrent use.
type YCSBLoadTimer struct {
	mu              sync.Mutex
	insert, cleanup *hdrhistogram.Histogram // latencies in microseconds, as YCSB records them
	sent, batched   int64
	gc              gcCount
}

var _ workload.InsertTimer = (*YCSBLoadTimer)(nil)

// NewYCSBLoadTimer returns a timer for a load about to start.
func NewYCSBLoadTimer() *YCSBLoadTimer {
	return &YCSBLoadTimer{insert: newMicros(), cleanup: newMicros(), gc: readGC()}
}

// Insert implements workload.InsertTimer.
func (t *YCSBLoadTimer) Insert(d time.Duration, batched bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.insert.RecordValue(stats.Clamp(d) / 1e3)
	if batched {
		t.batched++
	} else {
		t.sent++
	}
}

// Cleanup implements workload.InsertTimer.
func (t *YCSBLoadTimer) Cleanup(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_ = t.cleanup.RecordValue(stats.Clamp(d) / 1e3)
}

// measurements returns [INSERT] and [CLEANUP] (when a stream ended), in
// the order YCSB creates them.
func (t *YCSBLoadTimer) measurements(percentiles []float64) []report.YCSBMeasurement {
	t.mu.Lock()
	defer t.mu.Unlock()
	insert := &ycsbAcc{name: "INSERT", hist: t.insert, micros: true, returns: map[string]int64{}}
	for _, r := range []struct {
		status string
		n      int64
	}{{"OK", t.sent}, {"BATCHED_OK", t.batched}} {
		if r.n > 0 {
			insert.order = append(insert.order, r.status)
			insert.returns[r.status] = r.n
		}
	}
	cleanup := &ycsbAcc{name: "CLEANUP", hist: t.cleanup, micros: true}
	accs := []*ycsbAcc{insert, cleanup}
	return ycsbMeasurements(accs, seen(accs), percentiles, true)
}

// gcCount is what Go's garbage collector has done since the program
// started: its cycles and the time it stopped the program.
type gcCount struct {
	cycles int64
	pause  time.Duration
}

// readGC reads the garbage collector's counts.
func readGC() gcCount {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return gcCount{cycles: int64(m.NumGC), pause: time.Duration(m.PauseTotalNs)}
}

// since returns what the collector did after before, as YCSB's totals.
func (g gcCount) since(before gcCount) report.YCSBGC {
	return report.YCSBGC{Count: g.cycles - before.cycles, Time: g.pause - before.pause}
}

// exportFailed says that YCSB's report could not be exported.
func (o *YCSB) exportFailed(err error) {
	w := o.Status
	if w == nil {
		w = o.W
	}
	fmt.Fprintf(w, "cannot export YCSB's report: %v (the run's results are saved; `stampede report` shows them)\n", err)
}
