package output

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// The lines of `cockroach workload run`, as its pkg/workload/cli/format.go
// and tpcc's PostRun hook print them.
const (
	crdbTickHeader  = "_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
	crdbTotalHeader = "_elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
	crdbTPCCHeader  = "_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)"
	// crdbHeaderEvery is how many rows (not intervals) the tick header
	// covers before it is printed again.
	crdbHeaderEvery = 20
	// crdbSpecWarehouseFactor is the most tpmC a warehouse can produce
	// with the specification's waits (cockroach's SpecWarehouseFactor).
	crdbSpecWarehouseFactor = 12.86
)

// CockroachAuditor is a workload that judges its run as `cockroach
// workload` does (TPC-C's "Audit check 9.2.x" lines). The printer calls
// it once, after the run.
type CockroachAuditor interface {
	CockroachAudits() []workload.Audit
}

// Cockroach prints a run as `cockroach workload run` does, byte for byte
// where scripts parse it: a row per operation per interval, sorted by
// name, under a header repeated every 20 rows (--display-format simple),
// or one JSON object per operation per interval (incremental-json); then
// a __total block per operation and the __result block; for TPC-C its
// audit lines and the tpmC block. What stampede adds (failures by code,
// the workload's figures, its own audits, telemetry) goes to Log, so that
// W holds only what cockroach prints, but for the line with efc's 95%
// interval under TPC-C's tpmC block (see TPCC). With Histograms set it also writes
// cockroach's per-tick histogram export. It is a run.Observer.
type Cockroach struct {
	// W is where cockroach's lines go (stdout); Log gets stampede's
	// extra blocks (stderr).
	W, Log io.Writer
	// JSON selects --display-format incremental-json.
	JSON bool
	// Result names the series of the __result block ("" merges every
	// counted operation, and the row's name is empty, as cockroach's).
	Result string
	// TPCC prints TPC-C's audit lines and tpmC block after the result,
	// efficiency over ActiveWarehouses when the run has an efficiency
	// figure (the workload gives one only where it means something: with
	// the specification's waits and 10 terminals per warehouse); without
	// it the efc column reads n/a. With it, a line under the block that
	// cockroach does not print gives efc's 95% interval, as the workload's
	// figure words it ("efc: 97.1% (95% interval ...)"): scripts read the
	// row under the header, which stays cockroach's.
	TPCC             bool
	ActiveWarehouses int
	// Auditor, when set, gives the audit lines.
	Auditor CockroachAuditor
	// Ramp is the run's ramp: histograms are exported after it.
	Ramp time.Duration
	// Histograms, when set, receives the per-tick histograms (see
	// HistogramExporter).
	Histograms *HistogramExporter
	// Telemetry prints stampede's telemetry summary on Log.
	Telemetry bool
	// AllOps shows every operation from the first interval, as cockroach
	// does for the workloads that register their histograms up front
	// (tpcc); otherwise an operation shows from its first completion on.
	AllOps bool
	// Names renames operations to cockroach's names (ycsb's
	// read-modify-write is readModifyWrite).
	Names map[string]string
	// Merge are the parts of an operation counted as the operation, as
	// cockroach counts them: ycsb's read/not_found is a read that found
	// no row, which cockroach's ycsb records as a read.
	Merge []string

	info     run.Info
	rows     int
	cumStart time.Time
	errs     int64
	order    []int // indexes into info.Display, sorted by name
	names    []string
	seen     []bool
	parts    map[int][]int // display index -> its merged parts' indexes
	err      error
}

var _ run.Observer = (*Cockroach)(nil)

// Err returns the first error writing the histogram export.
func (o *Cockroach) Err() error { return o.err }

// Start implements run.Observer.
func (o *Cockroach) Start(info run.Info) {
	o.info = info
	d := info.Display
	o.order = o.order[:0]
	o.names = make([]string, len(d.Series))
	o.seen = make([]bool, len(d.Series))
	for k, name := range d.Names {
		o.names[k] = name
		if n, ok := o.Names[name]; ok {
			o.names[k] = n
		}
		// An operation's parts (a failure status, a statement inside a
		// transaction) are not cockroach's operations.
		if d.Counted[k] || !strings.Contains(name, "/") {
			o.order = append(o.order, k)
			o.seen[k] = o.AllOps
		}
	}
	sort.SliceStable(o.order, func(a, b int) bool { return o.names[o.order[a]] < o.names[o.order[b]] })
	o.parts = map[int][]int{}
	for _, k := range o.order {
		for _, part := range o.Merge {
			for j, name := range d.Names {
				if name == d.Names[k]+"/"+part {
					o.parts[k] = append(o.parts[k], j)
				}
			}
		}
	}
}

// series returns operation k's series at tick t, its merged parts added.
func (o *Cockroach) series(t stats.Tick, k int) stats.Series {
	d := o.info.Display
	s := t.Series[d.Series[k]]
	parts := o.parts[k]
	if len(parts) == 0 {
		return s
	}
	iv, cum := stats.NewHistogram(), stats.NewHistogram()
	stats.Merge(iv, s.Interval)
	stats.Merge(cum, s.Cumulative)
	for _, j := range parts {
		p := t.Series[d.Series[j]]
		stats.Merge(iv, p.Interval)
		stats.Merge(cum, p.Cumulative)
	}
	s.Interval, s.Cumulative = stats.HistOf(iv), stats.HistOf(cum)
	return s
}

// visible returns the operations shown at tick t, in order: those seen
// so far.
func (o *Cockroach) visible(t stats.Tick) []int {
	var out []int
	for _, k := range o.order {
		s := o.series(t, k)
		if !o.seen[k] && (s.Interval.TotalCount() > 0 || s.Cumulative.TotalCount() > 0) {
			o.seen[k] = true
		}
		if o.seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// Interval implements run.Observer.
func (o *Cockroach) Interval(iv run.Interval) {
	t := iv.Tick
	d := o.info.Display
	o.errs += failed(t, d.Ops)
	if !t.CumStart.Equal(o.cumStart) {
		// The ramp ended (cockroach restarts its clock and its header).
		if !o.cumStart.IsZero() {
			o.rows = 0
		}
		o.cumStart = t.CumStart
	}
	exported := o.Histograms != nil && !t.End.Before(o.info.Start.Add(o.Ramp))
	if iv.Final {
		if exported {
			o.export(t)
		}
		return
	}
	elapsed := t.End.Sub(t.CumStart)
	inst := t.End.Sub(t.Start)
	for _, k := range o.visible(t) {
		s := o.series(t, k)
		row := crdbTick{Elapsed: elapsed, Errors: o.errs, Name: o.names[k], Now: t.End,
			Inst: rate(s.Interval.TotalCount(), inst), Cum: rate(s.Cumulative.TotalCount(), elapsed),
			P50: ms(s.Interval, 50), P95: ms(s.Interval, 95), P99: ms(s.Interval, 99), Max: ms(s.Interval, 100)}
		if o.JSON {
			writeCrdbJSON(o.W, row)
			continue
		}
		if o.rows%crdbHeaderEvery == 0 {
			fmt.Fprintln(o.W, crdbTickHeader)
		}
		o.rows++
		writeCrdbTick(o.W, row)
	}
	if exported {
		o.export(t)
	}
}

// export writes the tick's histograms.
func (o *Cockroach) export(t stats.Tick) {
	for _, k := range o.visible(t) {
		s := o.series(t, k)
		if err := o.Histograms.Write(o.names[k], s.Interval.Dense(), t.End.Sub(t.Start), t.End); err != nil && o.err == nil {
			o.err = err
		}
	}
}

// Final implements run.Observer.
func (o *Cockroach) Final(r *run.Result) {
	t := r.Final
	d := o.info.Display
	elapsed := t.End.Sub(t.CumStart)
	if !o.JSON {
		result := stats.NewHistogram()
		for _, k := range o.visible(t) {
			s := o.series(t, k)
			writeCrdbTotal(o.W, "__total", crdbFinalRow(o.names[k], s.Cumulative, elapsed, o.errs))
			if (o.Result == "" && d.Counted[k]) || (o.Result != "" && o.names[k] == o.Result) {
				stats.Merge(result, s.Cumulative)
			}
		}
		writeCrdbTotal(o.W, "__result", crdbFinalRow(o.Result, result, elapsed, o.errs))
	}
	if o.TPCC {
		var audits []workload.Audit
		if o.Auditor != nil {
			audits = o.Auditor.CockroachAudits()
		}
		writeCrdbAudits(o.W, audits)
		fmt.Fprintln(o.W)
		fmt.Fprintln(o.W, crdbTPCCHeader)
		wh := o.ActiveWarehouses
		if _, ok := r.Summary.Figures["efficiency"]; !ok {
			wh = 0
		}
		for _, k := range o.order {
			if o.names[k] == "newOrder" {
				h := o.series(t, k).Cumulative
				fmt.Fprint(o.W, crdbTPCCRow(elapsed, h.TotalCount(), wh, summarize(h)))
			}
		}
		if wh > 0 {
			// efc is a count's estimate: its 95% interval, and whether a
			// figure above the mix's maximum is sampling noise, as the
			// workload's efficiency figure words them (the same New-Orders
			// over the same time).
			for _, e := range r.Extra {
				if e.Name == "efficiency" {
					fmt.Fprintf(o.W, "efc: %s\n", e.Text)
				}
			}
		}
	}
	o.extras(r)
}

// extras writes stampede's blocks that cockroach does not print on Log.
func (o *Cockroach) extras(r *run.Result) {
	if o.Log == nil {
		return
	}
	for _, e := range r.Extra {
		if o.TPCC && e.Name == "efficiency" {
			continue // under the tpmC block, as efc
		}
		fmt.Fprintf(o.Log, "  %s: %s\n", e.Name, e.Text)
	}
	if len(r.Audits) > 0 {
		_ = report.Audits(o.Log, r.Audits)
	}
	if o.Telemetry {
		TelemetrySummary(o.Log, r.Summary.Telemetry)
	}
	FleetSummary(o.Log, r.Summary.Fleet, false)
}

// crdbTick is one row of an interval.
type crdbTick struct {
	Elapsed            time.Duration
	Errors             int64
	Inst, Cum          float64
	P50, P95, P99, Max float64
	Name               string
	Now                time.Time
}

// crdbFinal is one row of a __total or __result block; Count 0 prints
// the header alone.
type crdbFinal struct {
	Elapsed                 time.Duration
	Errors, Count           int64
	Rate                    float64
	Avg, P50, P95, P99, Max float64
	Name                    string
}

// latencies are a histogram's figures in milliseconds.
type latencies struct{ avg, p50, p90, p95, p99, max float64 }

// histogram is what the printers read of a histogram: a dense one or a
// stats.Hist.
type histogram interface {
	TotalCount() int64
	Mean() float64
	StdDev() float64
	ValueAtQuantile(q float64) int64
}

func summarize(h histogram) latencies {
	if h.TotalCount() == 0 {
		return latencies{}
	}
	return latencies{avg: h.Mean() / 1e6, p50: ms(h, 50), p90: ms(h, 90), p95: ms(h, 95), p99: ms(h, 99), max: ms(h, 100)}
}

func crdbFinalRow(name string, h histogram, elapsed time.Duration, errs int64) crdbFinal {
	l := summarize(h)
	return crdbFinal{Elapsed: elapsed, Errors: errs, Count: h.TotalCount(), Rate: rate(h.TotalCount(), elapsed),
		Avg: l.avg, P50: l.p50, P95: l.p95, P99: l.p99, Max: l.max, Name: name}
}

// ms is a quantile of h in milliseconds (0 for an empty histogram).
func ms(h histogram, q float64) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return stats.Ms(h.ValueAtQuantile(q))
}

// rate is n per second of d (0 for no time).
func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// writeCrdbTick writes a row of --display-format simple.
func writeCrdbTick(w io.Writer, r crdbTick) {
	fmt.Fprintf(w, "%7.1fs %8d %14.1f %14.1f %8.1f %8.1f %8.1f %8.1f %s\n",
		r.Elapsed.Seconds(), r.Errors, r.Inst, r.Cum, r.P50, r.P95, r.P99, r.Max, r.Name)
}

// writeCrdbJSON writes a row of --display-format incremental-json:
// avgt is the interval's rate and avgl the cumulative one, as cockroach
// names them.
func writeCrdbJSON(w io.Writer, r crdbTick) {
	fmt.Fprintf(w, `{"time":"%s","errs":%d,"avgt":%.1f,"avgl":%.1f,"p50l":%.1f,"p95l":%.1f,"p99l":%.1f,"maxl":%.1f,"type":"%s"}`+"\n",
		r.Now.UTC().Format(time.RFC3339Nano), r.Errors, r.Inst, r.Cum, r.P50, r.P95, r.P99, r.Max, r.Name)
}

// writeCrdbTotal writes a __total or __result block: a blank line, the
// header with its suffix, and the row when there were operations (the
// row ends with two spaces and the name, which may be empty).
func writeCrdbTotal(w io.Writer, suffix string, r crdbFinal) {
	fmt.Fprintf(w, "\n%s%s\n", crdbTotalHeader, suffix)
	if r.Count == 0 {
		return
	}
	fmt.Fprintf(w, "%7.1fs %8d %14d %14.1f %8.1f %8.1f %8.1f %8.1f %8.1f  %s\n",
		r.Elapsed.Seconds(), r.Errors, r.Count, r.Rate, r.Avg, r.P50, r.P95, r.P99, r.Max, r.Name)
}

// crdbTPCCRow is the row of the tpmC block: New-Orders per minute and
// the efficiency over the active warehouses. With no warehouses (a run
// whose efficiency means nothing) the efc column reads "n/a", as wide as
// a figure, so that the row keeps its columns where scripts find them
// (tpmC second, the latencies after) and a script reading efc as a number
// fails rather than take a meaningless one.
func crdbTPCCRow(elapsed time.Duration, newOrders int64, warehouses int, l latencies) string {
	tpmC := 0.0
	if elapsed > 0 {
		tpmC = float64(newOrders) / elapsed.Seconds() * 60
	}
	efc := fmt.Sprintf("%6s", "n/a")
	if warehouses > 0 {
		efc = fmt.Sprintf("%5.1f%%", 100*tpmC/(crdbSpecWarehouseFactor*float64(warehouses)))
	}
	return fmt.Sprintf("%7.1fs %10.1f %s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n",
		elapsed.Seconds(), tpmC, efc, l.avg, l.p50, l.p90, l.p95, l.p99, l.max)
}

// writeCrdbAudits writes TPC-C's audit lines: "Audit check 9.2.1.7: PASS"
// or with ": why" after FAIL and SKIP.
func writeCrdbAudits(w io.Writer, audits []workload.Audit) {
	for _, a := range audits {
		line := fmt.Sprintf("Audit check %s: %s", a.Name, a.Result)
		if a.Detail != "" {
			line += ": " + a.Detail
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// failed counts the operations of tick t that failed, as cockroach's
// errors column does: not the failures a worker retried or ignored
// (engine.RetriedPrefix labels), which stampede counts apart.
func failed(t stats.Tick, ops int) int64 {
	if t.Labels != nil {
		var n int64
		for label, c := range t.Labels {
			if strings.HasPrefix(label, engine.FailedPrefix) {
				n += c
			}
		}
		return n
	}
	var n int64
	for i := 0; i < ops && i < len(t.Series); i++ {
		n += t.Series[i].Errors
	}
	return n
}
