package output

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
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
	// FiguresNote says why several clients' runs have no merged workload
	// figures: no common measurement interval (see noCommonNote).
	FiguresNote string `json:"figures_note,omitempty"`
	// Tenants and Fleet are a fleet's tenant workloads and table, merged
	// over its clients (see FleetOf).
	Tenants []fleet.TenantResult `json:"tenants,omitempty"`
	Fleet   *run.FleetSummary    `json:"fleet,omitempty"`
	// Audits are the workload's run-time audits (TPC-C's): one run's as
	// it printed them (its summary.json), several clients' merged over
	// all their transactions (mergedAudits); for the whole runs after the
	// ramp only, never a window.
	Audits []report.Audit `json:"audits,omitempty"`
	// Checks are the consistency checks run after the run, as it printed
	// them; of several clients, once: those of the client that ran them
	// (the last to end, if several did), named by ChecksRun. ChecksError
	// says why they failed or stopped.
	Checks      []report.Audit `json:"checks,omitempty"`
	ChecksError string         `json:"checks_error,omitempty"`
	ChecksRun   string         `json:"checks_run,omitempty"`
	// ChecksNotRunOn names the databases of several clients' runs that
	// the checks did not cover ("database D on H:P"): those other clients
	// ran on, another database or server than ChecksRun's (see
	// ChecksScope).
	ChecksNotRunOn []string `json:"checks_not_run_on,omitempty"`
	// WorkloadSeries are the workload's series over each whole run,
	// whatever the window (churn's database size, tables alive, rows/s
	// and bytes/s every 5 s: see WorkloadSeriesOf).
	WorkloadSeries []WorkloadSeries `json:"workload_series,omitempty"`
}

// NewReportDoc returns the report document of the view v of runs.
func NewReportDoc(runs []*runlog.Run, v results.View) ReportDoc {
	tenants, f, _ := FleetOf(runs, v)
	doc := ReportDoc{View: v, Figures: WorkloadFigures(runs, v), Tenants: tenants, Fleet: f}
	if _, note := workloadFigures(runs, v); note != nil {
		doc.FiguresNote = note.Name + ": " + note.Text
	}
	doc.Audits, doc.Checks, doc.ChecksError, doc.ChecksRun = Audits(runs, v)
	if doc.ChecksRun != "" {
		_, doc.ChecksNotRunOn = ChecksScope(runs, doc.ChecksRun)
	}
	doc.WorkloadSeries = WorkloadSeriesOf(runs)
	return doc
}

// savedAudits is what a run's summary.json keeps of its audits and checks
// (run.Summary's fields).
type savedAudits struct {
	Audits      []report.Audit `json:"audits"`
	Checks      []report.Audit `json:"checks"`
	ChecksError string         `json:"checks_error"`
}

// readAudits returns the audits and checks r's summary.json keeps; none
// for a run without one (killed, or still running) or whose summary does
// not parse.
func readAudits(r *runlog.Run) savedAudits {
	var s savedAudits
	if len(r.Summary) > 0 {
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return savedAudits{}
		}
	}
	return s
}

// Audits returns the workload's audits and consistency checks of the view
// v of runs, for the whole runs after the ramp only (none for a window,
// which they do not cover): one run's as it printed them (summary.json);
// several clients' audits merged (mergedAudits) and their checks once,
// those of the client that ran them (the one that ended last, if several
// did: checksRun names it).
func Audits(runs []*runlog.Run, v results.View) (audits, checks []report.Audit, checksErr, checksRun string) {
	if len(runs) == 0 || v.Window != (results.Window{}).String() {
		return nil, nil, "", ""
	}
	if len(runs) == 1 {
		s := readAudits(runs[0])
		if len(s.Checks) > 0 || s.ChecksError != "" {
			checksRun = runs[0].Info.ID
		}
		return s.Audits, s.Checks, s.ChecksError, checksRun
	}
	if _, merged := rebuild(runs); !merged {
		return nil, nil, "", ""
	}
	var last time.Time
	for _, r := range runs {
		s := readAudits(r)
		if len(s.Checks) == 0 && s.ChecksError == "" {
			continue
		}
		if end := r.Info.End; checksRun == "" || (end != nil && end.After(last)) {
			checks, checksErr, checksRun = s.Checks, s.ChecksError, r.Info.ID
			if end != nil {
				last = *end
			}
		}
	}
	return mergedAudits(runs, v), checks, checksErr, checksRun
}

// WorkloadFigures returns the workload's own figures of a view, by name,
// as summary.json's "figures" holds a run's (TPC-C's tpmC, YCSB's
// read_return_ok): those the final block of Report prints.
func WorkloadFigures(runs []*runlog.Run, v results.View) map[string]float64 {
	figs, _ := workloadFigures(runs, v)
	if len(figs) == 0 {
		return nil
	}
	out := make(map[string]float64, len(figs))
	for _, f := range figs {
		out[f.Name] = f.Value
	}
	return out
}

// CompareFigures fills c.Figures with the workload's own figures of the
// two runs compared, each over its view (views, from results.CompareBy),
// as `stampede report` of each prints them.
func CompareFigures(c *results.Comparison, runs [2]*runlog.Run, views [2]results.View) {
	var names [2][]string
	var vals [2]map[string]float64
	for i := range runs {
		vals[i] = map[string]float64{}
		figs, _ := workloadFigures([]*runlog.Run{runs[i]}, views[i])
		for _, f := range figs {
			names[i] = append(names[i], f.Name)
			vals[i][f.Name] = f.Value
		}
	}
	c.Figures = results.PairFigures(names[0], names[1], vals[0], vals[1])
}

// workloadFigures returns the workload's figures the run printed under its
// final block: recomputed (see countedFigures), then those the run read
// from the server (see observedFigures). Of several clients' runs with no
// common measurement interval there are none, and note is the line that
// says why.
func workloadFigures(runs []*runlog.Run, v results.View) (figs []report.Extra, note *report.Extra) {
	figs, note = countedFigures(runs, v)
	return append(figs, observedFigures(runs, v)...), note
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

// endLines is the end line the run printed under its final block (how
// long its end waited for operations in flight, how many it abandoned:
// run.EndEvent), for one run over the whole run only.
func endLines(runs []*runlog.Run, v results.View) []report.Extra {
	if len(runs) != 1 || v.Window != (results.Window{}).String() {
		return nil
	}
	events, _ := runs[0].Events() // a truncated log's complete lines still count
	var out []report.Extra
	for _, e := range events {
		if e.Kind == run.EndEvent {
			out = append(out, report.Extra{Name: e.Op, Value: e.Value, Text: e.Message})
		}
	}
	return out
}

// countedFigures recomputes, from the counts of v, the figures the
// workload printed under the run's final block (YCSB's statuses,
// read_return_ok: 9950 ([READ], Return=OK); TPC-C's tpmC), as the run
// computed them from its own counts: the workload is rebuilt from the
// run's name and flags (run.json; see rebuild). None when the runs are of
// different workloads or differ in the workload's flags (but those that
// differ between clients by design, workload.FlagMeta.PerClient), are a
// fleet's (a fleet prints no workload figures), when the workload has no
// figures or is not one of this stampede's, or when a flag the run
// recorded no longer parses. Figures the run read from the server (TPC-C's
// NOPM) are left out for one run (the rebuilt workload has not read them:
// see observedFigures); for several clients' runs of a
// workload.ClientMerger they are the merge's, over the whole runs after
// the ramp only, and the counted figures are over the clients' common
// measurement interval (results.CommonInterval): when they have none
// (their measured periods do not overlap), none, and note says why.
func countedFigures(runs []*runlog.Run, v results.View) (out []report.Extra, note *report.Extra) {
	gen, merged := rebuild(runs)
	fig, ok := gen.(workload.Figurer)
	if !ok {
		return nil, nil
	}
	counts, errs := map[string]int64{}, map[string]int64{}
	for _, op := range v.Ops {
		counts[op.Name], errs[op.Name] = op.Count, op.Errors
	}
	elapsed := time.Duration(v.Seconds * float64(time.Second))
	if merged {
		// Several clients' figures are over their common measurement
		// interval, which every one of them measured: near the ends of
		// the time their intervals cover together, fewer clients ran.
		// Without one, a figure over the union would be per minute of a
		// time the clients never measured together: none.
		c, ok, err := results.CommonInterval(runs, v)
		if err != nil || !ok {
			return nil, noCommonNote(runs, v, err)
		}
		for name := range counts {
			counts[name] = c.Counts[name]
		}
		elapsed = c.To.Sub(c.From)
		if im, ok := gen.(workload.IntervalMerger); ok {
			im.SetMergeInterval(c.From, c.To)
		}
	}
	if ew, ok := gen.(workload.EndWaitFigurer); ok && len(runs) == 1 && v.Window == (results.Window{}).String() {
		// The whole run: its elapsed time ends with the wait the run
		// left out of these figures (summary.json's end_wait_s).
		var sum struct {
			EndWaitSec float64 `json:"end_wait_s"`
		}
		if json.Unmarshal(runs[0].Summary, &sum) == nil {
			ew.SetFigureEndWait(time.Duration(sum.EndWaitSec * float64(time.Second)))
		}
	}
	for _, f := range workload.AllFigures(fig, counts, errs, elapsed) {
		if !f.Observed || (merged && v.Window == (results.Window{}).String()) {
			out = append(out, report.Extra{Name: f.Name, Value: f.Value, Text: f.Text})
		}
	}
	return out, nil
}

// noCommonNote is the line that says why several clients' runs, merged,
// have no workload figures: their measured periods (v.Taken) do not
// overlap, or only one of them measured intervals in the window taken, or
// err, reading their intervals, stopped the count.
//
//	tpcc figures: none merged: the clients' measured periods do not overlap (...): ...
func noCommonNote(runs []*runlog.Run, v results.View, err error) *report.Extra {
	name := runs[0].Info.Workload + " figures"
	const start = "a benchmark's clients must start together: give every client the same --start-at, one absolute time (such as 2026-11-26T07:00:00Z)"
	var why string
	switch {
	case err != nil:
		why = fmt.Sprintf("reading the clients' intervals for their common measurement interval: %v", err)
	case len(v.Taken) == 1:
		why = fmt.Sprintf("only run %s measured intervals in the window taken (%s), so the clients have no common measurement interval; %s",
			v.Taken[0].Run, takenPeriod(v.Taken[0]), start)
	case len(v.Taken) == 0:
		why = "no run measured intervals in the window taken"
	default:
		periods := make([]string, len(v.Taken))
		for i, t := range v.Taken {
			periods[i] = fmt.Sprintf("run %s %s", t.Run, takenPeriod(t))
		}
		why = fmt.Sprintf("the clients' measured periods do not overlap (%s), so they have no common measurement interval to count them over; %s",
			strings.Join(periods, ", "), start)
	}
	return &report.Extra{Name: name, Text: "none merged: " + why}
}

// takenPeriod is the time a run's taken intervals cover, "from
// 2026-11-30T07:48:52.078Z to 2026-11-30T07:49:17.101Z".
func takenPeriod(t results.Taken) string {
	const layout = "2006-01-02T15:04:05.000Z07:00"
	return fmt.Sprintf("from %s to %s", t.From.UTC().Format(layout), t.To.UTC().Format(layout))
}

// rebuild returns the workload of runs, rebuilt from their name and
// flags with the run's workers, and, for several runs of a
// workload.ClientMerger, merged (MergeClients: merged is true); nil when
// the runs' workload figures cannot be recomputed (see countedFigures).
func rebuild(runs []*runlog.Run) (gen workload.Generator, merged bool) {
	if len(runs) == 0 {
		return nil, false
	}
	info := runs[0].Info
	for _, r := range runs {
		if r.Info.Workload != info.Workload || (r.Info.Flags["tenants"] != "" && r.Info.Flags["tenants"] != "0") {
			return nil, false
		}
	}
	meta, ok := workload.Get(info.Workload)
	if !ok {
		return nil, false
	}
	gen = meta.New()
	if _, ok := gen.(workload.Figurer); !ok {
		return nil, false
	}
	if f, ok := gen.(workload.Flagser); ok {
		flags := f.Flags()
		same := true
		var setErr error
		flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
			if flags.Meta[fl.Name].PerClient {
				return
			}
			val, ok := info.Flags[fl.Name]
			for _, r := range runs[1:] {
				// A flag one run recorded at its default and another
				// left out is the same value.
				if flagOr(r, fl) != flagOr(runs[0], fl) && !flags.Meta[fl.Name].NotData {
					same = false
				}
			}
			if !ok || val == fl.DefValue || setErr != nil {
				return
			}
			setErr = setFlag(fl, val)
		})
		if !same || setErr != nil {
			return nil, false
		}
		if flags.Meta != nil && len(runs) == 1 {
			// One run: its own per-client flags (TPC-C's
			// --warehouse-range) make its figures.
			flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
				if val, ok := info.Flags[fl.Name]; ok && flags.Meta[fl.Name].PerClient && val != fl.DefValue && setErr == nil {
					setErr = setFlag(fl, val)
				}
			})
			if setErr != nil {
				return nil, false
			}
		}
	}
	if wf, ok := gen.(workload.WorkerFigurer); ok {
		if n, err := strconv.Atoi(info.Flags["concurrency"]); err == nil && n > 0 {
			wf.SetFigureWorkers(n)
		}
	}
	cm, ok := gen.(workload.ClientMerger)
	if f, isFlagser := gen.(workload.Flagser); ok && isFlagser && !areClients(runs, f.Flags()) {
		ok = false // several whole runs, merged as before: no client's share
	}
	if len(runs) == 1 || !ok {
		if cp, ok := gen.(workload.ClientPartitioner); ok && len(runs) == 1 {
			n, _ := strconv.Atoi(info.Flags["clients"])
			i, _ := strconv.Atoi(info.Flags["client-index"])
			if n > 0 && i >= 0 && i < n {
				_ = cp.PartitionClients(i, n) // one client's run: its share's figures
			}
		}
		return gen, false
	}
	if err := cm.MergeClients(clientRuns(runs)); err != nil {
		return nil, false // CheckClients says why
	}
	return gen, true
}

// clientRuns returns what a workload.ClientMerger knows of runs: their
// flags and records (run.RecordEvent events).
func clientRuns(runs []*runlog.Run) []workload.ClientRun {
	var out []workload.ClientRun
	for _, r := range runs {
		cr := workload.ClientRun{ID: r.Info.ID, Flags: r.Info.Flags, Server: strings.Join(r.Info.Endpoints, ","), Database: r.Info.Database, Status: r.Info.Status}
		events, _ := r.Events() // a truncated log's complete lines still count
		for _, e := range events {
			if e.Kind == run.RecordEvent {
				cr.Records = append(cr.Records, workload.Record{Name: e.Op, At: e.Time, Value: e.Value})
			}
		}
		out = append(out, cr)
	}
	return out
}

// mergedAudits returns the workload's audits of several clients' runs
// merged (TPC-C's, over every client's transactions), judged on v's
// latencies; none for one run (its own run printed them) or a workload
// that is not a workload.ClientMerger and workload.Auditor.
func mergedAudits(runs []*runlog.Run, v results.View) []report.Audit {
	if len(runs) < 2 || v.Window != (results.Window{}).String() {
		return nil
	}
	gen, merged := rebuild(runs)
	au, ok := gen.(workload.Auditor)
	if !merged || !ok {
		return nil
	}
	p90 := map[string]time.Duration{}
	for _, op := range v.Ops {
		p90[op.Name] = time.Duration(op.Summary.P90 * float64(time.Millisecond))
	}
	latency := func(op string, q float64) time.Duration {
		if q != 0.9 {
			return 0
		}
		return p90[op]
	}
	var out []report.Audit
	for _, a := range au.Audits(time.Duration(v.Seconds*float64(time.Second)), latency) {
		out = append(out, report.Audit{Name: a.Name, Required: a.Required, Clause: a.Clause, Result: a.Result, Detail: a.Detail})
	}
	return out
}

// areClients says whether runs are clients of one benchmark: tagged
// client=I/N, or given one of the workload's per-client flags
// (workload.FlagMeta.PerClient, TPC-C's --warehouse-range).
func areClients(runs []*runlog.Run, flags workload.Flags) bool {
	for _, r := range runs {
		if r.Info.Tags[run.PartTag] != "" {
			return true
		}
		for name, m := range flags.Meta {
			if fl := flags.FlagSet.Lookup(name); m.PerClient && fl != nil && r.Info.Flags[name] != "" && r.Info.Flags[name] != fl.DefValue {
				return true
			}
		}
	}
	return false
}

// CheckClients refuses runs that cannot merge as one benchmark's clients:
// clients (tagged client=I/N, or a workload's per-client flags given)
// that ran on different data (a flag of the workload that changes the
// data differs), that were given --start-at but started apart
// (checkStarts), or that a
// workload.ClientMerger refuses (TPC-C's clients whose warehouses
// overlap). The error names the flag and the runs.
func CheckClients(runs []*runlog.Run) error {
	if len(runs) < 2 {
		return nil
	}
	meta, ok := workload.Get(runs[0].Info.Workload)
	if !ok {
		return nil
	}
	gen := meta.New()
	var flags workload.Flags
	if f, ok := gen.(workload.Flagser); ok {
		flags = f.Flags()
	}
	for _, r := range runs {
		if r.Info.Workload != runs[0].Info.Workload {
			return nil // warned about: different workloads
		}
	}
	if !areClients(runs, flags) {
		return nil
	}
	var names []string
	if flags.FlagSet != nil {
		flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
			if m := flags.Meta[fl.Name]; !m.RuntimeOnly && !m.NotData {
				names = append(names, fl.Name)
			}
		})
	}
	names = append(names, fleetFlags...)
	a := runs[0]
	for _, b := range runs[1:] {
		for _, name := range names {
			x, y := a.Info.Flags[name], b.Info.Flags[name]
			if x == y {
				continue
			}
			why := "they ran on different data"
			if slices.Contains(fleetFlags, name) {
				why = "they ran different fleets"
			}
			return fmt.Errorf("runs %s and %s are clients of one benchmark with different --%s (%q and %q): %s; report them apart",
				a.Info.ID, b.Info.ID, name, x, y, why)
		}
	}
	if err := checkStarts(runs); err != nil {
		return err
	}
	if cm, ok := gen.(workload.ClientMerger); ok && !isFleet(a) {
		// (A fleet's clients split its tenants, each tenant whole.)
		// The merged figures (TPC-C's tpmC, NOPM and audits) are those of
		// clients run alike: a run-time flag that differs (--wait) would
		// leave them out (rebuild), so the merge is refused, naming it.
		for _, b := range runs[1:] {
			var differ string
			flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
				m := flags.Meta[fl.Name]
				if differ == "" && !m.PerClient && !m.NotData && flagOr(a, fl) != flagOr(b, fl) {
					differ = fl.Name
				}
			})
			if differ != "" {
				fl := flags.FlagSet.Lookup(differ)
				return fmt.Errorf("runs %s and %s are clients of one benchmark with different --%s (%q and %q): the merged figures of %s are those of clients run alike; give every client the same --%s, or report them apart",
					a.Info.ID, b.Info.ID, differ, flagOr(a, fl), flagOr(b, fl), a.Info.Workload, differ)
			}
		}
		var setErr error
		flags.FlagSet.VisitAll(func(fl *pflag.Flag) {
			if val, ok := a.Info.Flags[fl.Name]; ok && !flags.Meta[fl.Name].PerClient && val != fl.DefValue && setErr == nil {
				setErr = setFlag(fl, val)
			}
		})
		if setErr != nil {
			return nil // figures are not recomputed either
		}
		if err := cm.MergeClients(clientRuns(runs)); err != nil {
			return err
		}
	}
	return nil
}

// maxStartSkew is how far apart the workers of clients given --start-at
// may have started: they waited for one instant and start within
// milliseconds of it, unless they resolved different instants (next:1m
// read on either side of a minute's end) or one started late.
const maxStartSkew = time.Second

// checkStarts refuses clients given --start-at whose workers started
// more than maxStartSkew apart, naming the two furthest apart and their
// times: the start each run recorded (run.json's start, the --start-at it
// resolved), not the flag's text, which for next:1m is the same on
// clients a minute apart. Clients given no --start-at are not refused
// (the merge warns that their periods do not start together).
func checkStarts(runs []*runlog.Run) error {
	given := false
	first, last := runs[0], runs[0]
	for _, r := range runs {
		given = given || r.Info.Flags["start-at"] != ""
		if r.Info.Start.Before(first.Info.Start) {
			first = r
		}
		if r.Info.Start.After(last.Info.Start) {
			last = r
		}
	}
	skew := last.Info.Start.Sub(first.Info.Start)
	if !given || skew <= maxStartSkew {
		return nil
	}
	const layout = "2006-01-02T15:04:05.000Z07:00"
	at := func(r *runlog.Run) string {
		s := "--start-at " + r.Info.Flags["start-at"]
		if r.Info.Flags["start-at"] == "" {
			s = "no --start-at"
		}
		return fmt.Sprintf("%s (%s)", r.Info.Start.UTC().Format(layout), s)
	}
	return fmt.Errorf("runs %s and %s are clients of one benchmark whose workers started %s apart, at %s and %s: a benchmark's clients start together (within %s); give every client the same --start-at, one absolute time (such as 2026-11-26T07:00:00Z), or report them apart",
		first.Info.ID, last.Info.ID, skew.Round(100*time.Millisecond), at(first), at(last), maxStartSkew)
}

// flagOr returns the value of fl that r's run.json recorded, or its
// default where it recorded none.
func flagOr(r *runlog.Run, fl *pflag.Flag) string {
	if v, ok := r.Info.Flags[fl.Name]; ok {
		return v
	}
	return fl.DefValue
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

// runTarget names the database a run ran on: "database D on H:P".
func runTarget(r *runlog.Run) string {
	return fmt.Sprintf("database %s on %s", r.Info.Database, strings.Join(r.Info.Endpoints, ","))
}

// ChecksScope returns the database the consistency checks of runs (a
// workload's clients: client 0, checksRun, checks after its run) covered,
// and those the other clients ran on that they did not: another database
// or server (two HammerDB instances against two nodes), which only
// `stampede check` of its URL checks.
func ChecksScope(runs []*runlog.Run, checksRun string) (checked string, notChecked []string) {
	for _, r := range runs {
		if r.Info.ID == checksRun {
			checked = runTarget(r)
		}
	}
	for _, r := range runs {
		if t := runTarget(r); t != checked && !slices.Contains(notChecked, t) {
			notChecked = append(notChecked, t)
		}
	}
	return checked, notChecked
}
