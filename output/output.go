// Package output holds the printers of a run: run.Observers that turn a
// run's intervals and final figures into what a user sees, in stampede's
// own style (as `cockroach workload` prints), as newline-delimited JSON,
// or as sysbench prints. They compute nothing the run did not: figures
// come from package run and stats, layouts from package report.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// Stampede prints a run as `cockroach workload` does: one line per
// operation per interval, then the final block with its total and extra
// figures, the audits, the telemetry summary and a fleet's table. With
// JSON set it writes the same figures as newline-delimited JSON (and no
// audits or telemetry table). It is a run.Observer.
type Stampede struct {
	// W is where it prints (stdout).
	W io.Writer
	// JSON selects newline-delimited JSON.
	JSON bool
	// Quiet prints no interval lines.
	Quiet bool
	// Histogram adds sysbench's latency histogram after the final block.
	Histogram bool
	// Telemetry prints a compact telemetry line after each interval.
	Telemetry bool

	f    report.Formatter
	info run.Info
	// lastSkipped is the run's skipped operations (--skip-late) at the
	// last interval line.
	lastSkipped int64
	// dirtiedSaid: the note of telemetry.DirtiedNote was printed (once a run).
	dirtiedSaid bool
}

var _ run.Observer = (*Stampede)(nil)

// Start implements run.Observer.
func (o *Stampede) Start(info run.Info) {
	o.info = info
	if o.JSON {
		o.f = &report.JSON{W: o.W}
	} else {
		o.f = &report.Text{W: o.W}
	}
}

// Interval implements run.Observer.
func (o *Stampede) Interval(iv run.Interval) {
	if iv.Final {
		return
	}
	if !o.Quiet {
		d := o.info.Display
		_ = o.f.Interval(iv.End.Sub(o.info.Start), append(d.IntervalOps(iv.Tick), d.SplitOps(iv.Tick, false)...))
	}
	if n := iv.Skipped - o.lastSkipped; n > 0 && !o.Quiet && !o.JSON {
		// Under --skip-late, after the interval's lines as telemetry's.
		fmt.Fprintf(o.W, "  skipped: %d late operations in this interval, %d in all\n", n, iv.Skipped)
	}
	o.lastSkipped = iv.Skipped
	if o.Telemetry && !o.JSON && iv.Telemetry != nil {
		fmt.Fprintln(o.W, report.TelemetryLine(*iv.Telemetry))
	}
}

// Final implements run.Observer.
func (o *Stampede) Final(r *run.Result) {
	t := r.Final
	ops, total := o.info.Display.FinalOps(t)
	ops = append(ops, o.info.Display.SplitOps(t, true)...) // parts: not in the total
	_ = o.f.Final(t.End.Sub(t.CumStart), ops, total, r.Extra)
	if o.Histogram && !o.JSON {
		h := stats.NewHistogram()
		d := o.info.Display
		for k, i := range d.Series {
			if d.Counted[k] {
				stats.Merge(h, t.Series[i].Cumulative)
			}
		}
		_ = report.Histogram(o.W, stats.LogBuckets(h, 1024, 0.001, 100000))
	}
	if !o.JSON {
		if len(r.Audits) > 0 {
			fmt.Fprintln(o.W)
			_ = report.Audits(o.W, r.Audits)
		}
		TelemetrySummary(o.W, r.Summary.Telemetry)
		if b := r.Summary.Bottleneck; b != "" {
			fmt.Fprintf(o.W, "bottleneck: %s\n", b)
		}
	}
	FleetSummary(o.W, r.Summary.Fleet, o.JSON)
}

// TelemetrySummary writes the telemetry table under a final summary
// (text only); nothing without samples.
func TelemetrySummary(w io.Writer, sum *telemetry.Summary) {
	if sum == nil || sum.Intervals == 0 {
		return
	}
	fmt.Fprintln(w)
	_ = report.TelemetrySummary(w, *sum)
}

// FleetSummary writes a fleet run's line of the field report's table (or
// its JSON object); nothing for a run that is not a fleet's.
func FleetSummary(w io.Writer, f *run.FleetSummary, asJSON bool) {
	if f == nil {
		return
	}
	if asJSON {
		_ = json.NewEncoder(w).Encode(struct {
			Type  string            `json:"type"`
			Fleet *run.FleetSummary `json:"fleet"`
		}{"fleet", f})
		return
	}
	_ = writeFleetTable(w, f)
}

// writeFleetTable prints the fleet's line of the field report's table,
// the efficiency figures with their intervals when the workload has them
// (pooled over the tenant workloads, and the lowest tenant's), and a
// warning line when a tenant workload completed no operation.
func writeFleetTable(w io.Writer, f *run.FleetSummary) error {
	type col struct{ head, val string }
	cols := []col{{"active", strconv.Itoa(f.Active)}}
	if f.Rotate {
		cols = append(cols, col{"workloads", strconv.Itoa(f.Ran)})
	}
	server := "-"
	if f.ServerCPU != nil {
		server = fmt.Sprintf("%.2f", *f.ServerCPU)
	}
	cols = append(cols,
		col{"client-cpu", fmt.Sprintf("%.2f", f.ClientCPU)},
		col{"server-cpu", server},
		col{"qps", fmt.Sprintf("%.1f", f.QPS)},
		col{"p99(ms)", report.FormatMs(f.P99)},
		col{"ops/tenant-min", strconv.FormatInt(f.OpsMin, 10)},
		col{"median", strconv.FormatInt(f.OpsMedian, 10)},
		col{"max", strconv.FormatInt(f.OpsMax, 10)},
	)
	if f.Efficiency != nil {
		cols = append(cols,
			col{"efficiency-avg", fmt.Sprintf("%.1f%%", f.Efficiency.Avg)},
			col{"min", fmt.Sprintf("%.1f%%", f.Efficiency.Min)})
	}
	var head, vals strings.Builder
	for _, c := range cols {
		n := max(len(c.head), len(c.val)) + 2
		head.WriteString(strings.Repeat("_", n-len(c.head)) + c.head)
		vals.WriteString(strings.Repeat(" ", n-len(c.val)) + c.val)
	}
	title := fmt.Sprintf("%d tenants (%s mode", f.Tenants, f.Mode)
	if f.Mode != string(fleet.ModeColumn) {
		title += ", " + f.Pattern
	}
	title += fmt.Sprintf("), %d active, %s and %s each", f.Active, plural(f.WorkersPerTenant, "worker"), plural(f.ConnsPerTenant, "connection"))
	if line := fleetTenantsLine(f); line != "" {
		title += " (" + line + ")"
	}
	if _, err := fmt.Fprintf(w, "\nfleet: %s\n%s\n%s\n", title, head.String(), vals.String()); err != nil {
		return err
	}
	if e := f.Efficiency; e != nil && e.Pooled != "" {
		// The figures with their intervals, as the workload words them.
		if _, err := fmt.Fprintf(w, "efficiency pooled over the %d tenant workloads (their operations over their summed time): %s\nefficiency of the lowest, tenant %d: %s\n",
			f.Ran, e.Pooled, e.MinTenant, e.MinText); err != nil {
			return err
		}
	}
	if n := len(f.Starved); n > 0 {
		ids := make([]string, 0, min(n, 10))
		for _, id := range f.Starved[:min(n, 10)] {
			ids = append(ids, strconv.Itoa(id))
		}
		more := ""
		if n > 10 {
			more = fmt.Sprintf(" and %d more", n-10)
		}
		who := "tenant"
		if n > 1 {
			who = "tenants"
		}
		if _, err := fmt.Fprintf(w, "warning: %d of %d tenant workloads completed no operation (starved): %s %s%s\n",
			n, f.Ran, who, strings.Join(ids, ", "), more); err != nil {
			return err
		}
	}
	return nil
}

// plural is "1 worker" or "10 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Sysbench prints a run as sysbench 1.0.20 does: its version line and
// header, interval lines every ReportEvery seconds (with the event queue's
// line under a rate) and its final report. Events are the operations of
// class ClassTransaction (every operation when the workload does not
// classify them); queries are counted by class. It is a run.Observer.
type Sysbench struct {
	// W is where it prints (stdout).
	W io.Writer
	// Version is stampede's version, which the version line names.
	Version string
	// ReportEvery is sysbench's --report-interval in seconds (0: no
	// interval lines).
	ReportEvery int
	// Percentile is sysbench's --percentile; 0 disables it.
	Percentile float64
	// Histogram adds the latency histogram (sysbench's --histogram).
	Histogram bool
	// ForcedShutdown is when sysbench's --forced-shutdown ends the run, in
	// seconds from its start, for the header (0: off).
	ForcedShutdown int
	// Quiet prints nothing, as sysbench with --verbosity below 3.
	Quiet bool

	s              *report.Sysbench
	info           run.Info
	classes        []workload.OpClass
	lastReconnects int64
}

var _ run.Observer = (*Sysbench)(nil)

// Start implements run.Observer.
func (o *Sysbench) Start(info run.Info) {
	o.info = info
	o.s = &report.Sysbench{W: o.W}
	o.classes = info.Classes
	if len(o.classes) != len(info.Ops) {
		// Unclassified operations: each is an event and a query.
		o.classes = make([]workload.OpClass, len(info.Ops))
	}
	if o.Quiet {
		o.s.W = io.Discard
	}
	_ = o.s.Header(report.SysbenchHeader{Engine: "stampede " + o.Version, Threads: info.Workers, Rate: info.QueueRate,
		ReportEvery: o.ReportEvery, Seed: info.Seed, ForcedShutdown: o.ForcedShutdown})
}

// pct returns the events' latency percentile of h in milliseconds, 0
// when the percentile is disabled.
func (o *Sysbench) pct(h interface{ ValueAtPercentile(float64) int64 }) float64 {
	if o.Percentile <= 0 {
		return 0
	}
	return stats.Ms(h.ValueAtPercentile(o.Percentile))
}

// counts sums interval or cumulative counts by class, and merges the
// events' histograms.
func (o *Sysbench) counts(t stats.Tick, cumulative bool) (byClass [4]int64, errs int64, events *stats.Series) {
	merged := stats.NewHistogram()
	unclassified := true
	for _, c := range o.classes {
		if c != workload.ClassTransaction {
			unclassified = false
		}
	}
	for i := range o.info.Ops {
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
	return byClass, errs, &stats.Series{Interval: stats.HistOf(merged), Cumulative: stats.HistOf(merged)}
}

// Interval implements run.Observer.
//
// The run's last interval, cut short by its end, is printed when it is a
// whole report interval but for the run's own stopping (90% of one): the
// interval that ends with --time, which sysbench's reporting thread
// prints too.
func (o *Sysbench) Interval(iv run.Interval) {
	t := iv.Tick
	secs := t.End.Sub(t.Start).Seconds()
	if iv.Final && secs < 0.9*float64(o.ReportEvery) {
		return
	}
	if secs <= 0 || o.ReportEvery <= 0 {
		o.lastReconnects = iv.Reconnects
		return
	}
	byClass, errs, events := o.counts(t, false)
	r, w, oth := float64(byClass[workload.ClassRead]), float64(byClass[workload.ClassWrite]), float64(byClass[workload.ClassOther])
	var queue *report.SysbenchQueue
	if o.info.QueueRate > 0 {
		queue = &report.SysbenchQueue{Length: iv.Queue.Length, Concurrency: iv.Queue.Concurrency}
	}
	_ = o.s.Interval(report.SysbenchInterval{
		Queue:      queue,
		Elapsed:    math.Round(t.End.Sub(o.info.Start).Seconds()),
		Threads:    o.info.Workers,
		TPS:        float64(byClass[workload.ClassTransaction]) / secs,
		QPS:        (r + w + oth) / secs,
		Read:       r / secs,
		Write:      w / secs,
		Other:      oth / secs,
		Percentile: o.Percentile,
		Latency:    o.pct(events.Interval),
		ErrPS:      float64(errs) / secs,
		ReconnPS:   float64(iv.Reconnects-o.lastReconnects) / secs,
	})
	o.lastReconnects = iv.Reconnects
}

// Final implements run.Observer.
func (o *Sysbench) Final(res *run.Result) {
	t := res.Final
	byClass, errs, events := o.counts(t, true)
	h := events.Cumulative
	f := report.SysbenchFinal{
		Read: byClass[workload.ClassRead], Write: byClass[workload.ClassWrite], Other: byClass[workload.ClassOther],
		Transactions: byClass[workload.ClassTransaction], IgnoredErrors: errs, Reconnects: res.Summary.Reconnects,
		Seconds: t.End.Sub(t.CumStart).Seconds(), Percentile: o.Percentile,
	}
	if h.TotalCount() > 0 {
		f.LatMin, f.LatAvg, f.LatMax = stats.Ms(h.Min()), h.Mean()/1e6, stats.Ms(h.Max())
		f.LatPct = o.pct(h)
		f.LatSum = h.Mean() / 1e6 * float64(h.TotalCount())
	}
	f.EventsAvg, f.EventsStddev, f.ExecAvg, f.ExecStddev = fairness(res.Engine.Workers)
	if o.Histogram {
		f.Histogram = stats.LogBuckets(h, 1024, 0.001, 100000)
	}
	if o.ForcedShutdown > 0 {
		f.Unfinished = res.Engine.Unfinished // abandoned by --forced-shutdown
	}
	_ = o.s.Final(f)
	if !o.Quiet {
		FleetSummary(o.W, res.Summary.Fleet, false)
	}
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
