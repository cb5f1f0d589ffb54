package run

import (
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// FigureEvent is the kind of the run-log event that keeps a figure the
// workload read from the server during the run (workload.Figure.Observed,
// TPC-C's NOPM): Op is its name, Value its value, Message its text.
const FigureEvent = "figure"

// EndEvent is the kind of the run-log event that keeps the final block's
// end line (how long the run's end waited for operations in flight, how
// many it abandoned): Value is the operations abandoned, Message the
// line's text.
const EndEvent = "end"

// ClientCPUEvent is the kind of the run-log event that keeps the CPU the
// client used over the run, in cores (Summary.ClientCPU), from which
// `stampede report` says what limited the run (telemetry.Bottleneck).
const ClientCPUEvent = "client_cpu"

// RecordEvent is the kind of the run-log event that keeps one of the
// workload's records (workload.RunRecorder): Op is its name, Time when it
// was read, Value its value.
const RecordEvent = "record"

// Display says which of the registry's series the headline figures show:
// the interval lines, the final block and its total.
type Display struct {
	// Series are the series numbers shown, in order, and Names their
	// labels.
	Series []int
	Names  []string
	// Counted says, for each, whether it counts towards the total: when a
	// workload classifies its operations, only whole transactions do (the
	// statements inside them are shown but not counted twice).
	Counted []bool
	// Ops is the number of the workload's operations (the first series);
	// series Ops..2*Ops-1 are their service times under a rate.
	Ops int
	// Split, when set, breaks the operations down by endpoint or
	// locality (see SplitOps).
	Split *Split
}

// countedOps lists the operations the total counts when the workload
// classifies them (its whole transactions, as newDisplay counts them),
// for the run log, so that report and compare count the same; nil when
// it does not.
func countedOps(ops []string, classes []workload.OpClass) []string {
	if len(classes) != len(ops) {
		return nil
	}
	var out []string
	for i, op := range ops {
		if classes[i] == workload.ClassTransaction && !results.IsPart(op) {
			out = append(out, op)
		}
	}
	return out
}

// newDisplay lays out the headline series for the latency mode. When the
// workload classifies its operations, only whole transactions
// (ClassTransaction) count towards the total.
//
// Nor does a series named OP/PART (results.IsPart: a failure status, a
// part of a larger operation) count. The statements, recorded through the
// Recorder, hold service times: under a rate they have no service series
// of their own, and are shown from their own whatever the mode.
func newDisplay(ops []string, classes []workload.OpClass, rated bool, mode string) Display {
	d := Display{Ops: len(ops)}
	classified := len(classes) == len(ops)
	counts := func(i int) bool {
		return (!classified || classes[i] == workload.ClassTransaction) && !results.IsPart(ops[i])
	}
	statement := func(i int) bool { return classified && classes[i] != workload.ClassTransaction }
	add := func(i int, name string, counted bool) {
		d.Series = append(d.Series, i)
		d.Names = append(d.Names, name)
		d.Counted = append(d.Counted, counted)
	}
	for i, op := range ops {
		switch {
		case !rated || mode == "" || mode == LatencyIntended || statement(i):
			add(i, op, counts(i))
		case mode == LatencyService:
			add(len(ops)+i, op, counts(i))
		default: // both
			add(i, op, counts(i))
			add(len(ops)+i, op+engine.ServiceSuffix, false)
		}
	}
	return d
}

// IntervalOps returns the interval lines of a tick: the displayed series
// that have seen an operation or an error, with their figures over the
// interval and since the cumulative start.
func (d Display) IntervalOps(t stats.Tick) []report.Op {
	var ops []report.Op
	iv := t.End.Sub(t.Start)
	cum := t.End.Sub(t.CumStart)
	for k, i := range d.Series {
		s := t.Series[i]
		errSeries := t.Series[i%d.Ops]
		if s.Cumulative.TotalCount() == 0 && s.Interval.TotalCount() == 0 && errSeries.CumErrors == 0 && errSeries.Errors == 0 {
			continue
		}
		ops = append(ops, report.Op{
			Name:       d.Names[k],
			Interval:   stats.Summarize(s.Interval, errSeries.Errors, iv),
			Cumulative: stats.Summarize(s.Cumulative, errSeries.CumErrors, cum),
		})
	}
	return ops
}

// FinalOps returns the final per-operation figures of the last tick and
// their total, merged from the counted series' histograms.
func (d Display) FinalOps(t stats.Tick) ([]report.Op, report.Op) {
	var ops []report.Op
	cum := t.End.Sub(t.CumStart)
	total := stats.NewHistogram()
	var totalErrs int64
	for k, i := range d.Series {
		s := t.Series[i]
		errs := t.Series[i%d.Ops].CumErrors
		if s.Cumulative.TotalCount() == 0 && errs == 0 {
			continue
		}
		ops = append(ops, report.Op{Name: d.Names[k], Cumulative: stats.Summarize(s.Cumulative, errs, cum)})
		if d.Counted[k] {
			stats.Merge(total, s.Cumulative)
			totalErrs += errs
		}
	}
	return ops, report.Op{Name: "", Cumulative: stats.Summarize(total, totalErrs, cum)}
}

// Summary is a run's final figures, as summary.json holds them.
type Summary struct {
	Workload    string         `json:"workload"`
	Seed        uint64         `json:"seed"`
	Concurrency int            `json:"concurrency"`
	MaxRate     float64        `json:"max_rate,omitempty"`
	ElapsedSec  float64        `json:"elapsed_s"`
	Ops         []NamedSummary `json:"ops"`
	Total       stats.Summary  `json:"total"`
	Series      []NamedSummary `json:"series"`
	// Errors counts the failed operations by code (an SQLSTATE, or conn,
	// timeout, other).
	Errors map[string]int64 `json:"errors_by_code,omitempty"`
	// Retries counts, by code, the failures that workers retried or
	// ignored (serialization failures, deadlocks, lost connections).
	Retries    map[string]int64 `json:"retries_by_code,omitempty"`
	Reconnects int64            `json:"reconnects"`
	// Skipped counts the operations skipped under Spec.SkipLate: late
	// by more than the limit when their turn came, not run.
	Skipped int64 `json:"skipped,omitempty"`
	// EndWaitSec is how long, in seconds, the run waited after its end
	// (its duration over, or stopped) for the operations in flight, up to
	// the grace (5 s); it is part of ElapsedSec, and the operations that
	// finished meanwhile are counted. Unfinished is the number still
	// running when the grace ran out: abandoned with their connections,
	// not counted.
	EndWaitSec float64 `json:"end_wait_s"`
	Unfinished int     `json:"unfinished"`
	// Connections is the number of the workers' connections opened
	// before the run's clock started, and ConnectSec how long that took
	// in seconds (see Info.Connections).
	Connections int     `json:"connections,omitempty"`
	ConnectSec  float64 `json:"connect_s,omitempty"`
	// EndpointReconnects counts the reconnects by endpoint, when the
	// figures are split (--by-endpoint, --by-locality).
	EndpointReconnects map[string]int64  `json:"reconnects_by_endpoint,omitempty"`
	Status             string            `json:"status"`
	Error              string            `json:"error,omitempty"`
	Extra              map[string]string `json:"extra,omitempty"`
	// Figures are the workload's own results (tpmC, efficiency).
	Figures map[string]float64 `json:"figures,omitempty"`
	// Telemetry is the averages and peaks of the run's telemetry samples.
	Telemetry *telemetry.Summary `json:"telemetry,omitempty"`
	// CPULimit is how a CPU limit (--cpus) bore on the server over the
	// measured period: its cgroup's throttling and the server's CPU
	// (nil without one).
	CPULimit *limit.CPUBound `json:"cpu_limit,omitempty"`
	// NotLimited, when not "", says that no process matched the limits'
	// patterns during the run, so that nothing was limited ("no process
	// matched --limit-process postgrez: nothing was limited ...").
	NotLimited string `json:"not_limited,omitempty"`
	// ClientCPU is the CPU this process used over the run, in cores (its
	// user and system time over the engine's run), and Bottleneck what
	// limited the run, from the telemetry (telemetry.Bottleneck).
	ClientCPU  float64 `json:"client_cpu_cores,omitempty"`
	Bottleneck string  `json:"bottleneck,omitempty"`
	// Split breaks the operations down by endpoint or locality
	// (OP@ENDPOINT, OP@LOCALITY), with --by-endpoint or --by-locality.
	Split []NamedSummary `json:"split,omitempty"`
	// Tenants and Fleet are a fleet run's tenant workloads and figures.
	Tenants []fleet.TenantResult `json:"tenants,omitempty"`
	Fleet   *FleetSummary        `json:"fleet,omitempty"`
	// Audits are the workload's run-time audits as the run printed them
	// (TPC-C's), judged on the whole run after the ramp.
	Audits []report.Audit `json:"audits,omitempty"`
	// Checks are the workload's consistency checks run after the run
	// (TPC-C's clause 3.3.2), each as it printed it; ChecksError says why
	// they failed or stopped, when they did.
	Checks      []report.Audit `json:"checks,omitempty"`
	ChecksError string         `json:"checks_error,omitempty"`
}

// NamedSummary is one series' final figures.
type NamedSummary struct {
	Name string `json:"name"`
	stats.Summary
}

// FleetSummary is a fleet run's part of summary.json and of its final
// table: the field report's columns.
type FleetSummary struct {
	fleet.Summary
	// Tenants, Mode and Pattern name the fleet.
	Tenants int    `json:"tenants"`
	Mode    string `json:"mode"`
	Pattern string `json:"pattern,omitempty"`
	// First and Last are the tenants a client of several ran (its share,
	// Fleet.First and Last); 0 for a run of the whole fleet.
	First int `json:"first_tenant,omitempty"`
	Last  int `json:"last_tenant,omitempty"`
	// Clients is how many clients' fleet summaries a report merged into
	// this one (0: one run's).
	Clients int `json:"clients,omitempty"`
	// Rotate is the fleet's Rotate.
	Rotate bool `json:"rotate,omitempty"`
	// WorkersPerTenant and ConnsPerTenant are each tenant's.
	WorkersPerTenant int `json:"workers_per_tenant"`
	ConnsPerTenant   int `json:"conns_per_tenant"`
	// ClientCPU is the client's own CPU time (user+system) over the run,
	// in cores.
	ClientCPU float64 `json:"client_cpu_cores"`
	// ServerCPU is the server's CPU over the run in cores, when telemetry
	// watched the server's processes; nil when unknown.
	ServerCPU *float64 `json:"server_cpu_cores,omitempty"`
	// QPS is the fleet's operations per second and P99 its 99th
	// percentile latency in ms, from the engine's merged histograms.
	QPS float64 `json:"qps"`
	P99 float64 `json:"p99_ms"`
}

// summarize computes the final figures of the last tick.
func summarize(t stats.Tick, d Display, name string, seed uint64, concurrency int, maxRate float64, reconnects int64) Summary {
	ops, total := d.FinalOps(t)
	sum := Summary{
		Workload:    name,
		Seed:        seed,
		Concurrency: concurrency,
		MaxRate:     maxRate,
		ElapsedSec:  t.End.Sub(t.CumStart).Seconds(),
		Total:       total.Cumulative,
		Reconnects:  reconnects,
	}
	sum.Errors, sum.Retries = codeCounts(t.CumLabels)
	for _, op := range ops {
		sum.Ops = append(sum.Ops, NamedSummary{op.Name, op.Cumulative})
	}
	cum := t.End.Sub(t.CumStart)
	for _, op := range d.SplitOps(t, true) {
		sum.Split = append(sum.Split, NamedSummary{op.Name, op.Cumulative})
	}
	for i, s := range t.Series {
		if results.IsSplit(s.Name) {
			continue // in Split
		}
		errCount := int64(0)
		if i < d.Ops {
			errCount = s.CumErrors
		}
		sum.Series = append(sum.Series, NamedSummary{s.Name, stats.Summarize(s.Cumulative, errCount, cum)})
	}
	return sum
}

// audits judges the workload's run-time audits (TPC-C's clause 9.2 and
// response-time criteria) on the run's cumulative histograms.
func audits(gen workload.Generator, ops []string, last stats.Tick) []report.Audit {
	au, ok := gen.(workload.Auditor)
	if !ok {
		return nil
	}
	latency := func(op string, q float64) time.Duration {
		for i, name := range ops {
			if name == op && i < len(last.Series) {
				if h := last.Series[i].Cumulative; h.TotalCount() > 0 {
					return time.Duration(h.ValueAtQuantile(q * 100))
				}
			}
		}
		return 0
	}
	var ra []report.Audit
	for _, x := range au.Audits(last.End.Sub(last.CumStart), latency) {
		ra = append(ra, reportAudit(x))
	}
	return ra
}

// reportAudit is a workload's audit as report prints it.
func reportAudit(a workload.Audit) report.Audit {
	return report.Audit{Name: a.Name, Required: a.Required, Clause: a.Clause, Result: a.Result, Detail: a.Detail}
}
