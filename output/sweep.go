package output

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// Sweep prints a sweep (sweep.Observer): a header, a row as each step
// ends, and what the sweep found; as text columns or as newline-delimited
// JSON (a "sweep" object, a "step" object per step, a "sweep_result"
// object). Status, when set, gets a line as each step begins.
type Sweep struct {
	W      io.Writer
	Status io.Writer
	JSON   bool
	// CSV prints the table as comma-separated values for spreadsheets: a
	// header line, then a row per step (each repetition its own, with a
	// rep column), its figures at full precision; the header's first line
	// and what the sweep found go to Status.
	CSV bool
	// Plan says what the sweep will do ("5 steps", "a search from 1000
	// to 64000"), for the header.
	Plan string
	// Duration is each step's, for the status lines (0: unknown).
	Duration string
	// Hint completes the commands Done suggests (the results directory
	// given, say); nil leaves them as they are.
	Hint func(string) string
	// Param is the flag swept: a flag besides --max-rate and
	// --concurrency gets a column of its own; so does Param2, a grid's
	// second flag.
	Param  sweep.Param
	Param2 sweep.Param
	// Telemetry adds each step's telemetry averages: the host's CPU busy,
	// its disks' reads and writes, and the watched processes' cores.
	Telemetry bool
	// Figures are the workload's figures shown per step, a column each
	// (workload.SweepFigurer's headers: tpmC, efficiency(%)); a step
	// without the figure shows "-".
	Figures []string
	// Notes adds a last column, note, for the sweeps whose steps run
	// under a limit (--cpus, --memory, --io-*): a step's CPU limit that
	// never bound, or limits that held no process, say so there
	// (sweep.Step.LimitNote), "-" otherwise.
	Notes bool

	cols []column
	// csvHead says the CSV header is written: with the first row, whose
	// telemetry names the watched processes' columns.
	csvHead bool
	// watched are the CSV's watched groups, a column each.
	watched []string
}

// column is a column of the text table and its width; a cell wider than
// its column pushes the rest of its row right.
type column struct {
	name  string
	width int
}

// columns are the text table's columns: a swept flag's own and the
// telemetry's besides those of every sweep.
func (o *Sweep) columns() []column {
	if o.cols != nil {
		return o.cols
	}
	o.cols = []column{{"step", 4}}
	if o.CSV {
		o.cols = append(o.cols, column{"rep", 0})
	}
	for _, p := range o.ownParams() {
		o.cols = append(o.cols, column{string(p), max(6, len(p))})
		if o.CSV && p.TakesNone() {
			// The bytes (0 for none) for arithmetic, then the
			// value as the user writes it (5M, none).
			o.cols = append(o.cols, column{string(p) + "_text", 0})
		}
	}
	o.cols = append(o.cols, []column{{"max-rate", 9}, {"workers", 7}, {"ops/s", 10}, {"p50(ms)", 8}, {"p95(ms)", 8}, {"p99(ms)", 8}, {"p99.9(ms)", 9}, {"pMax(ms)", 8}, {"errors", 7}}...)
	for _, h := range o.Figures {
		o.cols = append(o.cols, column{h, max(6, len(h))})
	}
	if o.Telemetry {
		o.cols = append(o.cols, []column{{"cpu%", 5}, {"disk(MB/s)", 10}, {"watched(cores)", 0}}...)
	}
	o.cols = append(o.cols, []column{{"run", 0}, {"SLO", 0}}...)
	if o.Notes {
		o.cols = append(o.cols, column{"note", 0})
	}
	return o.cols
}

// own reports whether the swept flag has a column of its own.
func (o *Sweep) own() bool { return ownColumn(o.Param) }

// ownColumn reports whether p has a column of its own (not --max-rate
// or --concurrency, which every sweep's table has).
func ownColumn(p sweep.Param) bool {
	return p != "" && p != sweep.MaxRate && p != sweep.Concurrency
}

// ownParams are the swept flags with columns of their own, in order.
func (o *Sweep) ownParams() []sweep.Param {
	var ps []sweep.Param
	for _, p := range []sweep.Param{o.Param, o.Param2} {
		if ownColumn(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// telemetryCells are a step's telemetry columns: the host's CPU busy (100
// less idle and iowait), its disks' reads and writes summed, and each
// watched group's cores ("-" for none), all averages over the run; f
// formats a figure with the decimals it takes (text) or all (CSV).
func telemetryCells(t *telemetry.Summary, f func(v float64, decimals int) string) []string {
	if t == nil {
		return []string{"-", "-", "-"}
	}
	procs := make([]string, 0, len(t.Procs))
	for _, p := range t.Procs {
		procs = append(procs, p.Name+" "+f(p.CPUCores.Avg, 2))
	}
	watched := "-"
	if len(procs) > 0 {
		watched = strings.Join(procs, ",")
	}
	return []string{f(t.BusyPct(), 1), f(t.DiskMBPerSec(), 1), watched}
}

// textNum prints v with the given decimals (the text table's).
func textNum(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }

// fullNum prints v with the digits it takes to read back exactly (CSV's).
func fullNum(v float64, _ int) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Header prints the sweep's first line; call it once before the steps.
func (o *Sweep) Header(id, workload, flag, values string, slo sweep.SLO) {
	if o.JSON {
		o.encode(struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Workload string `json:"workload"`
			Param    string `json:"param"`
			Values   string `json:"values"`
			Plan     string `json:"plan"`
			SLO      string `json:"slo,omitempty"`
			Param2   string `json:"param2,omitempty"`
		}{"sweep", id, workload, strings.TrimPrefix(flag, "--"), values, o.Plan, slo.String(), string(o.Param2)})
		return
	}
	head := o.W
	if o.CSV {
		head = o.status()
	}
	fmt.Fprintf(head, "sweep %s: %s, %s %s (%s)", id, workload, flag, values, o.Plan)
	if len(slo.Terms) > 0 {
		fmt.Fprintf(head, ", SLO %s", slo)
	}
	fmt.Fprintln(head)
	if o.CSV {
		return // the header goes with the first row (csvHeader)
	}
	var b strings.Builder
	for i, c := range o.columns() {
		o.cell(&b, i, c.name)
	}
	fmt.Fprintln(o.W, strings.TrimRight(b.String(), " "))
}

// cell writes column i's value, padded to the column (right-aligned but
// for the last two).
func (o *Sweep) cell(b *strings.Builder, i int, v string) {
	c := o.columns()[i]
	if i > 0 {
		b.WriteString("  ")
	}
	pad := strings.Repeat(" ", max(0, c.width-len(v)))
	if c.width > 0 {
		b.WriteString(pad)
	}
	b.WriteString(v)
}

// Begin implements sweep.Observer.
func (o *Sweep) Begin(st sweep.Step, s *run.Spec) {
	if o.Status == nil {
		return
	}
	what := fmt.Sprintf("--max-rate %s", sweep.Format(s.MaxRate))
	if s.MaxRate == 0 {
		what = "closed loop"
	}
	if ownColumn(o.Param2) {
		what = fmt.Sprintf("%s %s, %s", o.Param2.Flag(), o.Param2.Text(st.Value2), what)
	}
	if o.own() {
		what = fmt.Sprintf("%s %s, %s", o.Param.Flag(), o.Param.Text(st.Value), what)
	}
	workers := s.Concurrency
	if d, ok := s.Workload.(workload.RunDefaulter); ok && workers == 0 {
		workers = d.RunDefaults().Concurrency // TPC-C's terminals, lambda's workers
	}
	switch {
	case s.Fleet != nil && s.Fleet.Active > 0: // a fleet's workers are its active tenants'
		fmt.Fprintf(o.Status, "step %d: %s, %d active tenants' workers", st.N, what, s.Fleet.Active)
	case workers > 0:
		fmt.Fprintf(o.Status, "step %d: %s, --concurrency %d", st.N, what, workers)
	default:
		fmt.Fprintf(o.Status, "step %d: %s, the workload's workers", st.N, what)
	}
	if o.Duration != "" {
		fmt.Fprintf(o.Status, ", %s", o.Duration)
	}
	if st.Reloaded {
		fmt.Fprint(o.Status, "; its data reloaded first (not measured)")
	}
	if st.Kept != "" {
		fmt.Fprint(o.Status, "; "+st.Kept)
	}
	fmt.Fprintln(o.Status)
}

// End implements sweep.Observer.
func (o *Sweep) End(st sweep.Step) {
	if o.JSON {
		o.encode(o.stepJSON(st))
		return
	}
	num, sig := textNum, sweep.Sig3
	if o.CSV {
		num, sig = fullNum, func(v float64) string { return fullNum(v, 0) }
	}
	t := st.Total
	rate := "-"
	if st.Target > 0 {
		rate = sweep.Format(st.Target)
	}
	verdict := "-"
	switch {
	case st.Judged && st.Met && st.Why != "":
		verdict = "met: " + st.Why
	case st.Judged && st.Met:
		verdict = "met"
	case st.Judged:
		verdict = "missed: " + st.Why
	case st.Status == "completed" && st.Why != "":
		verdict = st.Why // not judged: the terms that could not be
	case st.Status != "completed":
		verdict = st.Status
	}
	cells := []string{fmt.Sprint(st.N)}
	if o.CSV {
		cells = append(cells, fmt.Sprint(st.Rep))
	}
	for i, p := range o.ownParams() {
		v := st.Value
		if i == 1 || !o.own() {
			v = st.Value2
		}
		switch {
		case o.CSV && p.TakesNone():
			cells = append(cells, sweep.Format(v), p.Text(v))
		case o.CSV:
			cells = append(cells, sweep.Format(v))
		default:
			cells = append(cells, p.Text(v))
		}
	}
	cells = append(cells, rate, fmt.Sprint(st.Workers), num(t.Rate, 1), sig(t.P50), sig(t.P95),
		sig(t.P99), sig(t.P999), sig(t.Max), fmt.Sprint(t.Errors))
	for _, h := range o.Figures {
		name, _, _ := strings.Cut(h, "(")
		if v, ok := st.Figure(name); ok {
			cells = append(cells, num(v, 1))
		} else {
			cells = append(cells, "-")
		}
	}
	if o.Telemetry {
		cells = append(cells, telemetryCells(st.Telemetry, num)...)
	}
	cells = append(cells, st.RunID, verdict)
	tail := 3 // watched(cores), run, SLO: the last cells
	if o.Notes {
		note := st.LimitNote()
		if note == "" {
			note = "-"
		}
		cells, tail = append(cells, note), 4
	}
	if o.CSV {
		o.csvHeader(st)
		if o.Telemetry {
			// watched(cores): a number per watched group, named in the
			// header, not "postgres (pid 7) 0.19".
			at := len(cells) - tail
			cells = append(cells[:at:at], append(o.watchedCells(st), cells[at+1:]...)...)
		}
		o.csvRow(cells)
		return
	}
	var b strings.Builder
	for i, v := range cells {
		o.cell(&b, i, v)
	}
	fmt.Fprintln(o.W, strings.TrimRight(b.String(), " "))
}

// csvHeader writes the CSV's header before its first row: the columns,
// the watched(cores) one a column per group the first step's telemetry
// watched ("watched postgres (pid 7) (cores)").
func (o *Sweep) csvHeader(st sweep.Step) {
	if o.csvHead {
		return
	}
	o.csvHead = true
	if st.Telemetry != nil {
		for _, p := range st.Telemetry.Procs {
			o.watched = append(o.watched, p.Name)
		}
	}
	var names []string
	for _, c := range o.columns() {
		if c.name != "watched(cores)" {
			names = append(names, c.name)
			continue
		}
		if len(o.watched) == 0 {
			names = append(names, "watched(cores)")
		}
		for _, w := range o.watched {
			names = append(names, "watched "+w+" (cores)")
		}
	}
	o.csvRow(names)
}

// watchedCells are a CSV row's watched cores, one per group in the
// header ("" for a group this step did not watch; "-" without any).
func (o *Sweep) watchedCells(st sweep.Step) []string {
	if len(o.watched) == 0 {
		return []string{"-"}
	}
	cells := make([]string, len(o.watched))
	if st.Telemetry == nil {
		return cells
	}
	for _, p := range st.Telemetry.Procs {
		if i := slices.Index(o.watched, p.Name); i >= 0 {
			cells[i] = fullNum(p.CPUCores.Avg, 0)
		} else {
			fmt.Fprintf(o.status(), "step %d: watched %s %s cores, a group the first step did not watch (no column of its own)\n", st.N, p.Name, fullNum(p.CPUCores.Avg, 0))
		}
	}
	return cells
}

// csvRow writes one CSV line.
func (o *Sweep) csvRow(cells []string) {
	w := csv.NewWriter(o.W)
	_ = w.Write(cells)
	w.Flush()
}

// status is where the lines beside the table go (io.Discard for none).
func (o *Sweep) status() io.Writer {
	if o.Status == nil {
		return io.Discard
	}
	return o.Status
}

// stepObject is a step's NDJSON object; as sweep_result's best, miss or
// peak over several runs (--repeat), a "median" object of their medians,
// naming its steps and runs and no one run's.
type stepObject struct {
	Type string `json:"type"`
	N    int    `json:"step,omitempty"`
	// Steps and Runs are a median's: the steps and runs it is over.
	Steps  []int    `json:"steps,omitempty"`
	Runs   []string `json:"runs,omitempty"`
	Value  float64  `json:"value"`
	Value2 float64  `json:"value2,omitempty"`
	// ValueText and Value2Text are a limit flag's values as the user
	// writes them (5M, none for a step without the limit).
	ValueText  string `json:"value_text,omitempty"`
	Value2Text string `json:"value2_text,omitempty"`
	Rep        int    `json:"rep,omitempty"`
	// Reloaded says the step's data was loaded again first (--reload).
	Reloaded bool `json:"reloaded,omitempty"`
	// Kept says the database already held the step's data, not
	// reloaded ("data already at --tables=1, not reloaded").
	Kept    string             `json:"kept,omitempty"`
	MaxRate float64            `json:"max_rate"`
	Workers int                `json:"workers"`
	Run     string             `json:"run,omitempty"`
	Dir     string             `json:"dir,omitempty"`
	Status  string             `json:"status"`
	Total   stats.Summary      `json:"total"`
	Figures map[string]float64 `json:"figures,omitempty"`
	// Telemetry is the run's telemetry averages and peaks.
	Telemetry *telemetry.Summary `json:"telemetry,omitempty"`
	// CPULimit is how the step's CPU limit bore on the server (its
	// cgroup's throttling, the server's CPU); LimitNote says when it
	// never bound (sweep.Step.LimitNote).
	CPULimit  *limit.CPUBound `json:"cpu_limit,omitempty"`
	LimitNote string          `json:"limit_note,omitempty"`
	Met       *bool           `json:"slo_met,omitempty"`
	Why       string          `json:"slo_missed,omitempty"`
	// Note is why a met SLO's term short of its bound counts as met
	// (an efficiency within chance of it).
	Note string `json:"slo_note,omitempty"`
	// NotJudged says why a completed step's SLO could not be judged
	// (no operations a term bounds): neither met nor missed.
	NotJudged string `json:"slo_not_judged,omitempty"`
}

// setWhy files an SLO's verdict text: why it missed, or a met one's note.
func (o *stepObject) setWhy(why string) {
	if o.Met != nil && *o.Met {
		o.Note = why
	} else {
		o.Why = why
	}
}

// stepJSON is st's NDJSON object.
func (o *Sweep) stepJSON(st sweep.Step) stepObject {
	obj := stepObject{Type: "step", N: st.N, Value: st.Value, Value2: st.Value2, Rep: st.Rep, Reloaded: st.Reloaded, Kept: st.Kept, MaxRate: st.Target, Workers: st.Workers, Run: st.RunID, Dir: st.Dir, Status: st.Status, Total: st.Total, Figures: st.Figures, Telemetry: st.Telemetry,
		CPULimit: st.CPULimit, LimitNote: st.LimitNote()}
	if len(st.Of) > 0 {
		obj.Type, obj.Steps, obj.Runs = "median", st.Of, st.RunIDs
	}
	obj.ValueText, obj.Value2Text = valueTexts(o.Param, o.Param2, st.Value, st.Value2)
	if st.Judged {
		met := st.Met
		obj.Met = &met
		obj.setWhy(st.Why)
	} else if st.Status == "completed" {
		obj.NotJudged = st.Why
	}
	return obj
}

// valueTexts are the texts of a step's values v and w, of the limit
// flags p and p2 ("" for a flag whose numbers say it all).
func valueTexts(p, p2 sweep.Param, v, w float64) (string, string) {
	var a, b string
	if p.TakesNone() {
		a = p.Text(v)
	}
	if p2 != "" && p2.TakesNone() {
		b = p2.Text(w)
	}
	return a, b
}

// Done prints what the sweep found and where its runs are.
func (o *Sweep) Done(res *sweep.Result) {
	if o.JSON {
		out := struct {
			Type        string        `json:"type"`
			ID          string        `json:"id"`
			Steps       int           `json:"steps"`
			Best        *stepObject   `json:"best,omitempty"`
			Miss        *stepObject   `json:"miss,omitempty"`
			Peak        *stepObject   `json:"peak,omitempty"`
			Points      []pointObject `json:"points,omitempty"`
			NotMonotone string        `json:"not_monotone,omitempty"`
			Stopped     string        `json:"stopped,omitempty"`
			Conclusion  string        `json:"conclusion,omitempty"`
			// Data and Restore: what the database holds after a
			// --reload sweep, and the command that loads init's data.
			Data    string `json:"data,omitempty"`
			Restore string `json:"restore,omitempty"`
		}{Type: "sweep_result", ID: res.ID, Steps: len(res.Steps), NotMonotone: res.NotMonotone, Stopped: res.Stopped, Conclusion: res.Conclusion(),
			Data: res.Data, Restore: res.Restore}
		if repeated(res) {
			for _, p := range res.Points {
				out.Points = append(out.Points, o.pointJSON(p))
			}
		}
		if res.Best != nil {
			b := o.stepJSON(*res.Best)
			out.Best = &b
		}
		if res.Miss != nil {
			m := o.stepJSON(*res.Miss)
			out.Miss = &m
		}
		if res.Peak != nil {
			p := o.stepJSON(*res.Peak)
			out.Peak = &p
		}
		o.encode(out)
		return
	}
	w := o.W
	if o.CSV {
		w = o.status() // stdout holds the CSV alone
	}
	if repeated(res) {
		o.points(w, res) // what the sweep judged (CSV: on stderr, with the conclusion)
	}
	if c := res.Conclusion(); c != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, c)
	}
	if res.Data != "" {
		fmt.Fprintf(w, "\n%s\n", res.Data)
		if res.Restore != "" {
			fmt.Fprintf(w, "to load what it held before the sweep again: %s\n", res.Restore)
		}
	}
	if len(res.Steps) > 0 {
		hint := func(s string) string { return s }
		if o.Hint != nil {
			hint = o.Hint
		}
		fmt.Fprintf(w, "\nthe steps' runs: %s; one step in full: %s\n", hint("stampede runs --tag sweep="+res.ID), hint("stampede report "+res.Steps[len(res.Steps)-1].RunID))
	}
}

func (o *Sweep) encode(v any) {
	enc := json.NewEncoder(o.W)
	enc.SetEscapeHTML(false) // the SLO's <= as typed
	_ = enc.Encode(v)
}

// repeated reports whether a value of res ran more than once.
func repeated(res *sweep.Result) bool {
	for _, p := range res.Points {
		if len(p.Runs) > 1 {
			return true
		}
	}
	return false
}

// pointObject is a value's medians in sweep_result's points.
type pointObject struct {
	Value  float64 `json:"value"`
	Value2 float64 `json:"value2,omitempty"`
	// ValueText and Value2Text: as stepObject's.
	ValueText  string `json:"value_text,omitempty"`
	Value2Text string `json:"value2_text,omitempty"`
	// Spread is the runs and their spread (runs, completed, met_runs,
	// ops_per_sec_min ... p99_ms_max), as the dashboard's sweep page
	// gives them.
	sweep.Spread
	Median stats.Summary `json:"median"`
	// LimitNote says the value's CPU limit never bound, on the medians
	// of its runs' throttling and CPU (sweep.Step.LimitNote).
	LimitNote string `json:"limit_note,omitempty"`
	Met       *bool  `json:"slo_met,omitempty"`
	Why       string `json:"slo_missed,omitempty"`
	Note      string `json:"slo_note,omitempty"`
	NotJudged string `json:"slo_not_judged,omitempty"`
}

// pointJSON is p's object in sweep_result's points.
func (o *Sweep) pointJSON(p sweep.Point) pointObject {
	obj := pointObject{Value: p.Value, Value2: p.Value2, Spread: p.Spread, Median: p.Median.Total, LimitNote: p.Median.LimitNote()}
	obj.ValueText, obj.Value2Text = valueTexts(o.Param, o.Param2, p.Value, p.Value2)
	if p.Judged {
		met := p.Met
		obj.Met = &met
		if met {
			obj.Note = p.Median.Why
		} else {
			obj.Why = p.Median.Why
		}
	} else if p.Median.Status == "completed" {
		obj.NotJudged = p.Median.Why
	}
	return obj
}

// points prints a table of the values' medians over their completed
// runs, with the spread of throughput and p99 (lowest-highest) and the
// verdict; a value with an interrupted run says so beside its count.
func (o *Sweep) points(w io.Writer, res *sweep.Result) {
	fmt.Fprintf(w, "\nmedians over each value's runs (spread: lowest-highest):\n")
	head := []string{res.Param.Flag()}
	if res.Param2 != "" {
		head = append(head, res.Param2.Flag())
	}
	rows := [][]string{append(head, "runs", "ops/s", "ops/s spread", "p50(ms)", "p99(ms)", "p99 spread", "met in", "SLO")}
	for _, p := range res.Points {
		verdict, metIn := "-", "-"
		switch {
		case p.Judged && p.Met:
			verdict = "met"
		case p.Judged:
			verdict = "missed"
		case p.Median.Status == "completed" && len(res.SLO.Terms) > 0:
			verdict = "not judged"
		}
		if len(res.SLO.Terms) > 0 {
			metIn = fmt.Sprintf("%d/%d", p.MetRuns, p.Completed)
		}
		row := []string{res.Param.Text(p.Value)}
		if res.Param2 != "" {
			row = append(row, res.Param2.Text(p.Value2))
		}
		runs := fmt.Sprint(p.Completed) // an interrupted run is not counted, but marked
		if n := len(p.Interrupted); n > 0 {
			runs += fmt.Sprintf(" (+%d interrupted)", n)
		}
		rows = append(rows, append(row, runs, fmt.Sprintf("%.1f", p.Median.Total.Rate),
			fmt.Sprintf("%.1f-%.1f", p.RateMin, p.RateMax), sweep.Sig3(p.Median.Total.P50), sweep.Sig3(p.Median.Total.P99),
			sweep.Sig3(p.P99Min)+"-"+sweep.Sig3(p.P99Max), metIn, verdict))
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len(c)))
			}
			b.WriteString(c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
