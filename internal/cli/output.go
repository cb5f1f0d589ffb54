package cli

import (
	"io"
	"math"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// output turns ticks into what the user sees on stdout. It computes the
// figures (with package stats) and hands them to a formatter.
type output interface {
	// header is written before the first interval.
	header()
	// interval shows one tick; reconnects is the run's count so far.
	interval(t stats.Tick, reconnects int64)
	// final shows the run's end.
	final(t stats.Tick, res engine.Result, extra []report.Extra)
}

// stampedeOutput is the `cockroach workload`-style text or the NDJSON.
type stampedeOutput struct {
	f         report.Formatter
	disp      display
	start     time.Time
	quiet     bool // no interval lines (--report-interval 0)
	w         io.Writer
	histogram bool
}

func (o *stampedeOutput) header() {}

func (o *stampedeOutput) interval(t stats.Tick, _ int64) {
	if !o.quiet {
		_ = o.f.Interval(t.End.Sub(o.start), intervalOps(t, o.disp))
	}
}

func (o *stampedeOutput) final(t stats.Tick, _ engine.Result, extra []report.Extra) {
	ops, total := finalOps(t, o.disp)
	_ = o.f.Final(t.End.Sub(t.CumStart), ops, total, extra)
	if o.histogram {
		h := stats.NewHistogram()
		for k, i := range o.disp.idx {
			if o.disp.primary[k] {
				stats.Merge(h, t.Series[i].Cumulative)
			}
		}
		_ = report.Histogram(o.w, stats.LogBuckets(h, 1024, 0.001, 100000))
	}
}

// sysbenchOutput is sysbench's interval lines and final report. Events are
// the operations of class ClassTransaction (every operation when the
// workload does not classify them); queries are counted by class.
type sysbenchOutput struct {
	s              *report.Sysbench
	version        string
	threads        int
	reportEvery    int
	seed           uint64
	percentile     float64
	histogram      bool
	classes        []workload.OpClass
	nOps           int
	start          time.Time
	lastReconnects int64
}

func newSysbenchOutput(w io.Writer, rf *runFlags, load workload.QueryLoad, seed uint64, start time.Time) *sysbenchOutput {
	classes := load.Classes
	if len(classes) != len(load.Ops) {
		// Unclassified operations: each is an event and a query.
		classes = make([]workload.OpClass, len(load.Ops))
	}
	return &sysbenchOutput{
		s: &report.Sysbench{W: w}, version: versionString(), threads: rf.concurrency,
		reportEvery: rf.reportInterval, seed: seed, percentile: rf.percentile, histogram: rf.histogram,
		classes: classes, nOps: len(load.Ops), start: start,
	}
}

func (o *sysbenchOutput) header() {
	_ = o.s.Header(o.version, o.threads, o.reportEvery, o.seed)
}

// counts sums interval or cumulative counts by class, and merges the
// events' histograms.
func (o *sysbenchOutput) counts(t stats.Tick, cumulative bool) (byClass [4]int64, errs int64, events *stats.Series) {
	merged := stats.NewHistogram()
	unclassified := true
	for _, c := range o.classes {
		if c != workload.ClassTransaction {
			unclassified = false
		}
	}
	for i := 0; i < o.nOps; i++ {
		s := t.Series[i]
		h, e := s.Interval, s.Errors
		if cumulative {
			h, e = s.Cumulative, s.CumErrors
		}
		c := o.classes[i]
		byClass[c] += h.TotalCount()
		if unclassified {
			byClass[workload.ClassOther] += h.TotalCount()
		}
		errs += e
		if c == workload.ClassTransaction {
			stats.Merge(merged, h)
		}
	}
	return byClass, errs, &stats.Series{Interval: merged, Cumulative: merged}
}

func (o *sysbenchOutput) interval(t stats.Tick, reconnects int64) {
	secs := t.End.Sub(t.Start).Seconds()
	if secs <= 0 || o.reportEvery <= 0 {
		o.lastReconnects = reconnects
		return
	}
	byClass, errs, events := o.counts(t, false)
	r, w, oth := float64(byClass[workload.ClassRead]), float64(byClass[workload.ClassWrite]), float64(byClass[workload.ClassOther])
	_ = o.s.Interval(report.SysbenchInterval{
		Elapsed:    math.Round(t.End.Sub(o.start).Seconds()),
		Threads:    o.threads,
		TPS:        float64(byClass[workload.ClassTransaction]) / secs,
		QPS:        (r + w + oth) / secs,
		Read:       r / secs,
		Write:      w / secs,
		Other:      oth / secs,
		Percentile: o.percentile,
		Latency:    stats.Ms(events.Interval.ValueAtPercentile(o.percentile)),
		ErrPS:      float64(errs) / secs,
		ReconnPS:   float64(reconnects-o.lastReconnects) / secs,
	})
	o.lastReconnects = reconnects
}

func (o *sysbenchOutput) final(t stats.Tick, res engine.Result, extra []report.Extra) {
	byClass, errs, events := o.counts(t, true)
	h := events.Cumulative
	var reconnects int64
	for _, e := range extra {
		if e.Name == "reconnects" {
			reconnects = int64(e.Value)
		}
	}
	f := report.SysbenchFinal{
		Read: byClass[workload.ClassRead], Write: byClass[workload.ClassWrite], Other: byClass[workload.ClassOther],
		Transactions: byClass[workload.ClassTransaction], IgnoredErrors: errs, Reconnects: reconnects,
		Seconds: t.End.Sub(t.CumStart).Seconds(), Percentile: o.percentile,
	}
	if h.TotalCount() > 0 {
		f.LatMin, f.LatAvg, f.LatMax = stats.Ms(h.Min()), h.Mean()/1e6, stats.Ms(h.Max())
		f.LatPct = stats.Ms(h.ValueAtPercentile(o.percentile))
		f.LatSum = h.Mean() / 1e6 * float64(h.TotalCount())
	}
	f.EventsAvg, f.EventsStddev, f.ExecAvg, f.ExecStddev = fairness(res.Workers)
	if o.histogram {
		f.Histogram = stats.LogBuckets(h, 1024, 0.001, 100000)
	}
	_ = o.s.Final(f)
}

// fairness returns the mean and population standard deviation of the
// workers' operation counts and busy seconds, as sysbench's "Threads
// fairness".
func fairness(ws []engine.WorkerStats) (evAvg, evSd, tAvg, tSd float64) {
	if len(ws) == 0 {
		return
	}
	n := float64(len(ws))
	for _, w := range ws {
		evAvg += float64(w.Ops)
		tAvg += w.Busy.Seconds()
	}
	evAvg /= n
	tAvg /= n
	for _, w := range ws {
		evSd += (float64(w.Ops) - evAvg) * (float64(w.Ops) - evAvg)
		tSd += (w.Busy.Seconds() - tAvg) * (w.Busy.Seconds() - tAvg)
	}
	return evAvg, math.Sqrt(evSd / n), tAvg, math.Sqrt(tSd / n)
}
