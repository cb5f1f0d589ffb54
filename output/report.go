package output

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// Report prints a view of runs as `stampede report` does: a header line
// per run, which intervals the window took, then the final block the run
// printed (with the workload's figures, recomputed: see workloadFigures)
// and the telemetry summaries.
func Report(w io.Writer, runs []*runlog.Run, v results.View) error {
	return ReportSplit(w, runs, v, "")
}

// ReportSplit is Report with the operations broken down, under their own
// lines, by endpoint (by run.ByEndpoint: v.Endpoints) or locality
// (run.ByLocality: v.Localities); "" is Report. It says so in one line
// when the runs did not record their figures by endpoint.
func ReportSplit(w io.Writer, runs []*runlog.Run, v results.View, by string) error {
	for _, r := range runs {
		status := r.Info.Status
		switch status {
		case runlog.StatusRunning:
			status = runningStatus(r.Dir)
		case runlog.StatusKilled:
			status = "killed (its process died: the figures go to its last complete interval)"
		}
		if strings.Contains(r.Info.Error, runlog.IncompletePrefix) {
			status += " (" + r.Info.Error + ")"
		}
		fmt.Fprintf(w, "run %s: %s, started %s, %s\n", r.Info.ID, r.Info.Workload, r.Info.Start.Format(time.RFC3339), status)
	}
	writeTaken(w, runs, v)
	ops := make([]report.Op, len(v.Ops))
	for i, op := range v.Ops {
		ops[i] = report.Op{Name: op.Name, Cumulative: op.Summary}
	}
	split := map[string][]results.OpView{run.ByEndpoint: v.Endpoints, run.ByLocality: v.Localities}[by]
	for _, op := range split {
		ops = append(ops, report.Op{Name: op.Name, Cumulative: op.Summary})
	}
	if by != "" && len(split) == 0 {
		fmt.Fprintf(w, "no figures by %s: the run did not record them (run with --by-endpoint or --by-locality%s)\n", by,
			map[bool]string{true: ", and --locality after each URL", false: ""}[by == run.ByLocality && len(v.Endpoints) > 0])
	}
	var extra []report.Extra
	if v.Reconnects != nil {
		extra = append(extra, report.Extra{Name: "reconnects", Value: float64(*v.Reconnects), Text: fmt.Sprint(*v.Reconnects)})
	}
	errs, retries := map[string]int64{}, map[string]int64{}
	for key, n := range v.ErrorCodes {
		if code, ok := strings.CutPrefix(key, results.ErrorsExtraPrefix); ok {
			errs[code] = n
		} else if code, ok := strings.CutPrefix(key, results.RetriesExtraPrefix); ok {
			retries[code] = n
		}
	}
	if by != "" {
		for _, ep := range sortedNames(v.EndpointReconnects) {
			n := v.EndpointReconnects[ep]
			extra = append(extra, report.Extra{Name: results.ReconnectsExtra + results.SplitSep + ep, Value: float64(n), Text: fmt.Sprint(n)})
		}
	}
	extra = append(extra, run.CodeExtras(errs, retries)...)
	if v.Skipped != nil {
		late := "the --skip-late limit"
		if len(runs) > 0 {
			// As the live line says it (5000us is 5ms).
			if d, err := time.ParseDuration(runs[0].Info.Flags["skip-late"]); err == nil && d > 0 {
				late = d.String()
			}
		}
		extra = append(extra, run.SkippedLine(*v.Skipped, v.Total.Count+v.Total.Errors, late))
	}
	extra = append(extra, endLines(runs, v)...)
	figs, note := workloadFigures(runs, v)
	extra = append(extra, figs...)
	if note != nil {
		extra = append(extra, *note)
	}
	for _, s := range v.Series {
		extra = append(extra, run.SeriesExtra(run.NamedSummary{Name: s.Name, Summary: s.Summary}))
	}
	elapsed := time.Duration(v.Seconds * float64(time.Second))
	if err := (&report.Text{W: w}).Final(elapsed, ops, report.Op{Cumulative: v.Total}, extra); err != nil {
		return err
	}
	audits, checks, checksErr, checksRun := Audits(runs, v)
	if len(audits) > 0 {
		fmt.Fprintln(w)
		if err := report.Audits(w, audits); err != nil {
			return err
		}
	}
	if len(checks) > 0 || checksErr != "" {
		if err := report.Checks(w, checks); err != nil {
			return err
		}
		if checksErr != "" {
			if len(checks) == 0 {
				fmt.Fprint(w, "\nconsistency checks:\n")
			}
			fmt.Fprintf(w, "  the checks failed: %s\n", checksErr)
		}
		if len(runs) > 1 {
			if checked, others := ChecksScope(runs, checksRun); len(others) == 0 {
				fmt.Fprintf(w, "  (run by %s after its run, once for the benchmark)\n", checksRun)
			} else {
				fmt.Fprintf(w, "  (run by %s after its run, on its %s only: %s, where other clients ran, not checked; stampede check of its URL checks it)\n",
					checksRun, checked, strings.Join(others, " and "))
			}
		}
	}
	if _, f, why := FleetOf(runs, v); f != nil {
		if err := writeFleetTable(w, f); err != nil {
			return err
		}
	} else if why != "" {
		fmt.Fprintf(w, "\nfleet: %s\n", why)
	}
	writeLimits(w, runs)
	for _, r := range runs {
		if sum := v.Telemetry[r.Info.ID]; sum != nil {
			if len(runs) > 1 {
				fmt.Fprintf(w, "\nrun %s:", r.Info.ID)
			}
			TelemetrySummary(w, sum)
			if b := telemetry.Bottleneck(*sum, clientCPU(r)); b != "" {
				fmt.Fprintf(w, "bottleneck: %s\n", b)
			}
		}
	}
	return nil
}

// writeTaken prints which intervals v took: their number, the start of the
// first and the end of the last, and the time they cover, per run if there
// are several.
//
//	window --from 1m --to 2m: 60 intervals from +1m0.000312s to +2m0.000274s (2026-11-22T10:36:12.000312Z to ...), 59.999962s
func writeTaken(w io.Writer, runs []*runlog.Run, v results.View) {
	starts := map[string]time.Time{}
	for _, r := range runs {
		starts[r.Info.ID] = r.Info.Start
	}
	offsets := func(tk results.Taken) string {
		s := starts[tk.Run]
		return fmt.Sprintf("%s to %s", reportOffset(tk.From.Sub(s)), reportOffset(tk.To.Sub(s)))
	}
	if len(v.Taken) == 1 && len(runs) == 1 {
		tk := v.Taken[0]
		fmt.Fprintf(w, "window %s: %s from %s (%s to %s), %s\n", v.Window, plural(v.Intervals, "interval"), offsets(tk),
			tk.From.Format(time.RFC3339Nano), tk.To.Format(time.RFC3339Nano), reportSeconds(v.Seconds))
		return
	}
	fmt.Fprintf(w, "window %s: %s from %s to %s, %s\n", v.Window, plural(v.Intervals, "interval"),
		v.From.Format(time.RFC3339Nano), v.To.Format(time.RFC3339Nano), reportSeconds(v.Seconds))
	for _, tk := range v.Taken {
		fmt.Fprintf(w, "  run %s: %s from %s, %s\n", tk.Run, plural(tk.Intervals, "interval"), offsets(tk), reportSeconds(tk.Seconds))
	}
}

// reportOffset renders an offset from a run's start: "+1m0.000312s".
func reportOffset(d time.Duration) string {
	if d < 0 {
		return "-" + (-d).String()
	}
	return "+" + d.String()
}

// reportSeconds renders a length in seconds to the nanosecond: "59.999962s".
func reportSeconds(s float64) string {
	// The covered time is whole nanoseconds: print them, not the float's
	// shortest form (3.6674900089999998s).
	return time.Duration(math.Round(s * 1e9)).String()
}

// sortedNames returns the keys of m, sorted.
func sortedNames(m map[string]int64) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// clientCPU returns the CPU, in cores, that run's client used over the
// run (its run.ClientCPUEvent), or -1 when its log does not say.
func clientCPU(r *runlog.Run) float64 {
	events, _ := r.Events()
	for _, e := range events {
		if e.Kind == run.ClientCPUEvent {
			return e.Value
		}
	}
	return -1
}

// runningStatus says the status of a run read as running from dir: one
// fetched from a results store that knew its writer alive (it wrote the
// run into the store within a few beats) is running; of a directory, the
// writer's lock held says so only on this machine, and one on a shared
// volume may have been killed on another.
func runningStatus(dir string) string {
	if runlog.IsLiveCopy(dir) {
		return "running (its writer alive when the results store was read)"
	}
	return "running (or killed on another machine)"
}
