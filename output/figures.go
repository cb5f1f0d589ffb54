package output

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
)

// ReportDoc is the document `stampede report --format json` prints: the
// view, with the workload's figures its text's final block prints. The
// dashboard serves the same document.
type ReportDoc struct {
	results.View
	Figures map[string]float64 `json:"figures,omitempty"`
}

// NewReportDoc returns the report document of the view v of runs.
func NewReportDoc(runs []*runlog.Run, v results.View) ReportDoc {
	return ReportDoc{v, WorkloadFigures(runs, v)}
}

// WorkloadFigures returns the workload's own figures of a view, by name,
// as summary.json's "figures" holds a run's (TPC-C's tpmC, YCSB's
// read_return_ok): those the final block of Report prints.
func WorkloadFigures(runs []*runlog.Run, v results.View) map[string]float64 {
	figs := workloadFigures(runs, v)
	if len(figs) == 0 {
		return nil
	}
	out := make(map[string]float64, len(figs))
	for _, f := range figs {
		out[f.Name] = f.Value
	}
	return out
}

// workloadFigures returns the workload's figures the run printed under its
// final block: recomputed (see countedFigures), then those the run read
// from the server (see observedFigures).
func workloadFigures(runs []*runlog.Run, v results.View) []report.Extra {
	return append(countedFigures(runs, v), observedFigures(runs, v)...)
}

// observedFigures are the figures a run read from the server during its
// measurement interval (TPC-C's NOPM: run.FigureEvent events): for one
// run over the whole run after the ramp only, since they cover nothing
// else.
func observedFigures(runs []*runlog.Run, v results.View) []report.Extra {
	if len(runs) != 1 || v.Window != (results.Window{}).String() {
		return nil
	}
	events, _ := runs[0].Events() // a truncated log's complete lines still count
	var out []report.Extra
	for _, e := range events {
		if e.Kind == run.FigureEvent {
			out = append(out, report.Extra{Name: e.Op, Value: e.Value, Text: e.Message})
		}
	}
	return out
}

// countedFigures recomputes, from the counts of v, the figures the
// workload printed under the run's final block (YCSB's statuses,
// read_return_ok: 9950 ([READ], Return=OK); TPC-C's tpmC), as the run
// computed them from its own counts: the workload is rebuilt from the
// run's name and flags (run.json). None when the runs are of different
// workloads or differ in the workload's flags, are a fleet's (a fleet
// prints no workload figures), when the workload has no figures or is
// not one of this stampede's, or when a flag the run recorded no longer
// parses. Figures the run read from the server (TPC-C's NOPM) are left
// out: the rebuilt workload has not read them.
func countedFigures(runs []*runlog.Run, v results.View) []report.Extra {
	if len(runs) == 0 {
		return nil
	}
	info := runs[0].Info
	for _, r := range runs {
		if r.Info.Workload != info.Workload || (r.Info.Flags["tenants"] != "" && r.Info.Flags["tenants"] != "0") {
			return nil
		}
	}
	meta, ok := workload.Get(info.Workload)
	if !ok {
		return nil
	}
	gen := meta.New()
	fig, ok := gen.(workload.Figurer)
	if !ok {
		return nil
	}
	if f, ok := gen.(workload.Flagser); ok {
		fs := f.Flags().FlagSet
		same := true
		var setErr error
		fs.VisitAll(func(fl *pflag.Flag) {
			val, ok := info.Flags[fl.Name]
			for _, r := range runs[1:] {
				if r.Info.Flags[fl.Name] != val {
					same = false
				}
			}
			if !ok || val == fl.DefValue || setErr != nil {
				return
			}
			setErr = setFlag(fl, val)
		})
		if !same || setErr != nil {
			return nil
		}
	}
	if wf, ok := gen.(workload.WorkerFigurer); ok {
		if n, err := strconv.Atoi(info.Flags["concurrency"]); err == nil && n > 0 {
			wf.SetFigureWorkers(n)
		}
	}
	counts, errs := map[string]int64{}, map[string]int64{}
	for _, op := range v.Ops {
		counts[op.Name], errs[op.Name] = op.Count, op.Errors
	}
	var out []report.Extra
	elapsed := time.Duration(v.Seconds * float64(time.Second))
	for _, f := range workload.AllFigures(fig, counts, errs, elapsed) {
		if !f.Observed {
			out = append(out, report.Extra{Name: f.Name, Value: f.Value, Text: f.Text})
		}
	}
	return out
}

// setFlag sets fl to val, the flag's value as run.json records it
// (Value.String(): a list reads "[a,b]").
func setFlag(fl *pflag.Flag, val string) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		inner := strings.TrimSuffix(strings.TrimPrefix(val, "["), "]")
		var items []string
		if inner != "" {
			items = strings.Split(inner, ",")
		}
		return sv.Replace(items)
	}
	return fl.Value.Set(val)
}
