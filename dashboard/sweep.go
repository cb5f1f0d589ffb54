package dashboard

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// SweepDoc is the answer of /api/sweeps/{id}: a sweep's steps, read from
// their runs (tagged sweep=ID), judged again under the sweep's SLO as
// `stampede sweep` judged them (sweep.Result.Judge), with its answer.
type SweepDoc struct {
	ID string `json:"id"`
	// Param is the setting swept: max-rate, concurrency or another run
	// flag. Param2 is a grid's second ("" for one): the steps are then
	// every value of Param2 at each value of Param.
	Param  string `json:"param"`
	Param2 string `json:"param2,omitempty"`
	// SLO is the SLO as judged (with the rate floor a rate adds);
	// Latencies its ceilings on the whole run's latency in milliseconds,
	// by metric, for the charts (sweep.SLO.Latencies: not an operation's
	// terms, nor efficiency's, which only SLO's text shows).
	SLO       string             `json:"slo,omitempty"`
	Latencies map[string]float64 `json:"slo_latency_ms,omitempty"`
	Search    bool               `json:"search"`
	Steps     []SweepStep        `json:"steps"`
	// Best, Miss and Peak are step numbers (0: none): the highest value
	// that met the SLO, the lowest above it that missed, the step of
	// highest throughput. With --repeat they are judged on a value's
	// medians (Points), and each is the first step of that value's runs.
	Best       int    `json:"best"`
	Miss       int    `json:"miss"`
	Peak       int    `json:"peak"`
	Conclusion string `json:"conclusion"`
	// Cells are a grid's values, one per pair of values (Param's, then
	// Param2's, lowest first, none last: sweep.Param.Compare), each
	// judged on the medians of its runs as `stampede sweep` judges them;
	// nil for a sweep of one setting.
	Cells []SweepCell `json:"cells,omitempty"`
	// Points are a sweep of one setting's values when a value ran more
	// than once (--repeat): each value's medians over its runs and their
	// spread, lowest value first (none last), as `stampede sweep` prints
	// them under "medians over each value's runs"; nil otherwise.
	Points []SweepPoint `json:"points,omitempty"`
	// Figures are the workload's figures its sweep shows per step
	// (workload.SweepFigurer's headers: tpmC, efficiency(%)); Telemetry
	// says a step has telemetry (the cpu%, disk and watched columns).
	Figures   []string `json:"figures,omitempty"`
	Telemetry bool     `json:"telemetry"`
	// Notes says a step ran under a CPU limit (--cpus): the steps' table
	// has a note column, where a limit that never bound says so.
	Notes bool `json:"notes,omitempty"`
	// NoneAt is where the charts draw none (a limit's step without the
	// limit) on Param's axis: its right end, past the highest number
	// (sweep.Param.NoneAt), labelled none; 0 when no step is none.
	// NoneAt2 is a grid's Param2's.
	NoneAt  float64 `json:"none_at,omitempty"`
	NoneAt2 float64 `json:"none_at2,omitempty"`
}

// SweepPoint is one value of a sweep of one setting run several times:
// the medians of its completed runs and their spread.
type SweepPoint struct {
	Value     float64 `json:"value"`
	ValueText string  `json:"value_text"`
	// X is where the charts draw Value (SweepStep.X).
	X float64 `json:"x"`
	// Spread is the value's runs (their step numbers, in the order they
	// ran), how many completed and met the SLO on their own, and the
	// spread of their throughput and p99, as `stampede sweep --format
	// json` gives them (package sweep computes them once for both).
	sweep.Spread
	// Total is each figure's median over the completed runs, Figures the
	// workload's figures' medians.
	Total   stats.Summary      `json:"total"`
	Figures map[string]float64 `json:"figures,omitempty"`
	Judged  bool               `json:"judged"`
	Met     bool               `json:"met"`
	Why     string             `json:"why,omitempty"`
}

// SweepTelemetry is a step's telemetry as a sweep's table shows it, each
// an average over the run: the host's CPU busy, its disks' reads and
// writes, and each watched group's cores.
type SweepTelemetry struct {
	CPUPct       float64        `json:"cpu_pct"`
	DiskMBPerSec float64        `json:"disk_mb_s"`
	Watched      []WatchedCores `json:"watched,omitempty"`
}

// WatchedCores is a watched process group's CPU, in cores on average.
type WatchedCores struct {
	Name  string  `json:"name"`
	Cores float64 `json:"cores"`
}

// SweepCell is one pair of values of a grid: its runs' medians.
type SweepCell struct {
	Value  float64 `json:"value"`
	Value2 float64 `json:"value2"`
	// ValueText and Value2Text are the values as the user writes them;
	// X and X2 where the charts draw them (SweepStep.X).
	ValueText  string  `json:"value_text"`
	Value2Text string  `json:"value2_text"`
	X          float64 `json:"x"`
	X2         float64 `json:"x2"`
	// Runs are the cell's steps (their numbers), in the order they ran.
	Runs []int `json:"runs"`
	// Total is each figure's median over the cell's completed runs.
	Total  stats.Summary `json:"total"`
	Judged bool          `json:"judged"`
	Met    bool          `json:"met"`
	Why    string        `json:"why,omitempty"`
}

// SweepStep is one step of a sweep: its run's final figures, as its
// summary.json holds them (what the sweep judged).
type SweepStep struct {
	N     int     `json:"step"`
	Value float64 `json:"value"`
	// ValueText and Value2Text are the values as the user writes them
	// (a limit's 5M or none; the number otherwise).
	ValueText  string `json:"value_text"`
	Value2Text string `json:"value2_text,omitempty"`
	// X is where the charts draw Value on the swept value's axis: the
	// value, or for none (no limit) the axis's right end
	// (SweepDoc.NoneAt); X2 is Value2's.
	X  float64 `json:"x"`
	X2 float64 `json:"x2,omitempty"`
	// Value2 is a grid's second setting's value, Rep the step's
	// repetition of its values (1 for the first run).
	Value2  float64       `json:"value2,omitempty"`
	Rep     int           `json:"rep"`
	Run     string        `json:"run"`
	Status  string        `json:"status"`
	Target  float64       `json:"max_rate"`
	Workers int           `json:"workers"`
	Total   stats.Summary `json:"total"`
	Judged  bool          `json:"judged"`
	Met     bool          `json:"met"`
	Why     string        `json:"why,omitempty"`
	// Figures are the workload's own (tpmC, efficiency); Telemetry the
	// run's telemetry columns (nil without telemetry).
	Figures   map[string]float64 `json:"figures,omitempty"`
	Telemetry *SweepTelemetry    `json:"telemetry,omitempty"`
	// CPULimit is how the step's CPU limit bore on the server, from its
	// run's summary.json; LimitNote says when it never bound, as
	// `stampede sweep` prints it (sweep.Step.LimitNote) and names it in
	// its NDJSON.
	CPULimit  *limit.CPUBound `json:"cpu_limit,omitempty"`
	LimitNote string          `json:"limit_note,omitempty"`
}

// sweepTelemetry is t's columns of a sweep's table (nil for nil).
func sweepTelemetry(t *telemetry.Summary) *SweepTelemetry {
	if t == nil {
		return nil
	}
	out := &SweepTelemetry{CPUPct: t.BusyPct(), DiskMBPerSec: t.DiskMBPerSec()}
	for _, p := range t.Procs {
		out.Watched = append(out.Watched, WatchedCores{Name: p.Name, Cores: p.CPUCores.Avg})
	}
	return out
}

// sweepFigures are the figures workload's sweep shows per step (none for
// a workload without, or one this binary does not know).
func sweepFigures(name string) []string {
	m, ok := workload.Get(name)
	if !ok {
		return nil
	}
	if f, ok := m.New().(workload.SweepFigurer); ok {
		return f.SweepFigures()
	}
	return nil
}

// sweepParams returns the settings a sweep's command line varied: the
// one of --max-rate and --concurrency (or --threads) given several values,
// or the one given; or any other flag given several values whose runs
// record a number (--cpus 0.5,1), or none (a limit's step without it). A
// grid has two, in the order given (the first the outer loop, as
// `stampede sweep` runs them); the second is "" otherwise.
func sweepParams(command []string, flags map[string]string) (sweep.Param, sweep.Param) {
	var given, swept []sweep.Param
	for i, a := range command {
		name, val, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if !ok && i+1 < len(command) {
			val = command[i+1]
		}
		var p sweep.Param
		switch name {
		case "max-rate":
			p = sweep.MaxRate
		case "concurrency", "threads":
			p = sweep.Concurrency
		default:
			_, err := strconv.ParseFloat(flags[name], 64)
			if (err == nil || flags[name] == "none") && strings.ContainsAny(val, ",:") && !slices.Contains(swept, sweep.Param(name)) {
				swept = append(swept, sweep.Param(name))
			}
			continue
		}
		if strings.ContainsAny(val, ",:") {
			if !slices.Contains(swept, p) {
				swept = append(swept, p)
			}
			continue
		}
		given = append(given, p)
	}
	switch {
	case len(swept) >= 2:
		return swept[0], swept[1]
	case len(swept) == 1:
		return swept[0], ""
	case slices.Contains(given, sweep.MaxRate):
		return sweep.MaxRate, ""
	}
	return sweep.Concurrency, ""
}

func (s *Server) handleSweep(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID().MatchString(id) {
		fail(w, notFound("no sweep %q: a sweep ID is made of letters, digits, '.', '_' and '-'", id))
		return
	}
	runs, err := cmdline.OpenRuns(s.root, nil, []string{"sweep=" + id})
	if errors.Is(err, run.ErrInput) || (err == nil && len(runs) == 0) {
		fail(w, notFound("no sweep %s in %s: no run is tagged sweep=%s (see /api/runs?group=sweep=%s)", id, s.root, id, id))
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	doc, err := sweepDoc(id, runs)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, doc)
}

// sweepDoc reads a sweep's steps from its runs and judges them.
func sweepDoc(id string, runs []*runlog.Run) (SweepDoc, error) {
	first := runs[0].Info
	param, param2 := sweepParams(first.Command, first.Flags)
	res := sweep.Result{ID: id, Param: param, Param2: param2, Search: first.Flags["search"] == "true"}
	text := first.Flags["slo"]
	tpcc := first.Workload == "tpcc" && res.Search
	if tpcc && (text == "" || text == sweep.TPCCSLO) {
		// A TPC-C search without --slo is judged by TPC-C's own: its
		// efficiency, to which the response times are added below (its
		// runs record the efficiency alone since fix34k, the whole SLO
		// since fix34c, nothing before).
		text = sweep.TPCCEfficiency
	}
	if text != "" {
		slo, err := sweep.ParseSLO(text)
		if err != nil {
			return SweepDoc{}, badRequest("sweep %s: its runs record the SLO %q: %v", id, text, err)
		}
		if tpcc {
			more, _ := sweep.ParseSLO(sweep.TPCCResponseTimes)
			slo = slo.With(more) // as `stampede sweep` keeps them
		}
		if rate, _ := strconv.ParseFloat(first.Flags["max-rate"], 64); res.Param == sweep.MaxRate || rate > 0 {
			slo = slo.WithRateFloor() // as `stampede sweep` does under a rate
		}
		res.SLO = slo
	}
	for _, run := range runs {
		n, err := strconv.Atoi(run.Info.Tags["sweep_step"])
		if err != nil {
			return SweepDoc{}, badRequest("sweep %s: run %s has no step number (tag sweep_step=%q)", id, run.Info.ID, run.Info.Tags["sweep_step"])
		}
		value, _ := strconv.ParseFloat(run.Info.Flags[string(res.Param)], 64)
		rep, _ := strconv.Atoi(run.Info.Tags["sweep_rep"])
		st := sweep.Step{N: n, Value: value, Rep: max(rep, 1), RunID: run.Info.ID, Dir: run.Dir, Status: run.Info.Status}
		if res.Param2 != "" {
			st.Value2, _ = strconv.ParseFloat(run.Info.Flags[string(res.Param2)], 64)
		}
		if run.Summary != nil {
			var sum struct {
				Total stats.Summary `json:"total"`
				Ops   []struct {
					Name string `json:"name"`
					stats.Summary
				} `json:"ops"`
				MaxRate     float64            `json:"max_rate"`
				Concurrency int                `json:"concurrency"`
				Figures     map[string]float64 `json:"figures"`
				Telemetry   *telemetry.Summary `json:"telemetry"`
				CPULimit    *limit.CPUBound    `json:"cpu_limit"`
			}
			if err := json.Unmarshal(run.Summary, &sum); err != nil {
				return SweepDoc{}, badRequest("sweep %s: run %s's %s: %v", id, run.Info.ID, runlog.SummaryFile, err)
			}
			st.Total, st.Target, st.Workers, st.Figures, st.Telemetry = sum.Total, sum.MaxRate, sum.Concurrency, sum.Figures, sum.Telemetry
			st.CPULimit = sum.CPULimit
			for _, op := range sum.Ops { // an operation's terms (newOrder.p90<=5s)
				if st.Ops == nil {
					st.Ops = map[string]stats.Summary{}
				}
				st.Ops[op.Name] = op.Summary
			}
		} else if st.Status == "completed" {
			st.Status = "no " + runlog.SummaryFile // not judged: its figures are not known
		} else {
			recomputeStep(run, &st) // killed: its figures up to its last interval, as report gives them
		}
		res.Steps = append(res.Steps, st)
	}
	slices.SortFunc(res.Steps, func(a, b sweep.Step) int { return a.N - b.N })
	res.Judge()
	doc := SweepDoc{ID: id, Param: string(res.Param), Param2: string(res.Param2), SLO: res.SLO.String(), Search: res.Search, Steps: []SweepStep{},
		Conclusion: res.Conclusion(), Figures: sweepFigures(first.Workload)}
	// The whole run's latency ceilings, drawn as lines; an operation's
	// (newOrder.p90<=5s) and efficiency>=85% are in the SLO's text.
	doc.Latencies = res.SLO.Latencies()
	var vals, vals2 []float64
	for _, st := range res.Steps {
		vals, vals2 = append(vals, st.Value), append(vals2, st.Value2)
	}
	x, at := res.Param.Axis(vals)
	x2, at2 := res.Param2.Axis(vals2)
	doc.NoneAt, doc.NoneAt2 = at, at2
	for _, st := range res.Steps {
		s := SweepStep{N: st.N, Value: st.Value, ValueText: res.Param.Text(st.Value), X: x(st.Value), Value2: st.Value2, Rep: st.Rep, Run: st.RunID, Status: st.Status, Target: st.Target,
			Workers: st.Workers, Total: st.Total, Judged: st.Judged, Met: st.Met, Why: st.Why, Figures: st.BasedFigures(), Telemetry: sweepTelemetry(st.Telemetry),
			CPULimit: st.CPULimit, LimitNote: st.LimitNote()}
		if res.Param2 != "" {
			s.Value2Text, s.X2 = res.Param2.Text(st.Value2), x2(st.Value2)
		}
		doc.Telemetry = doc.Telemetry || s.Telemetry != nil
		doc.Notes = doc.Notes || s.CPULimit != nil
		doc.Steps = append(doc.Steps, s)
	}
	if res.Param2 == "" && slices.ContainsFunc(res.Points, func(p sweep.Point) bool { return len(p.Runs) > 1 }) {
		for _, p := range res.Points {
			doc.Points = append(doc.Points, SweepPoint{Value: p.Value, ValueText: res.Param.Text(p.Value), X: x(p.Value), Spread: p.Spread,
				Total: p.Median.Total, Figures: p.Median.BasedFigures(), Judged: p.Judged, Met: p.Met, Why: p.Median.Why})
		}
	}
	if res.Param2 != "" {
		for _, p := range res.Points {
			doc.Cells = append(doc.Cells, SweepCell{Value: p.Value, Value2: p.Value2, ValueText: res.Param.Text(p.Value), Value2Text: res.Param2.Text(p.Value2),
				X: x(p.Value), X2: x2(p.Value2), Runs: p.Runs, Total: p.Median.Total,
				Judged: p.Judged, Met: p.Met, Why: p.Median.Why})
		}
	}
	doc.Best, doc.Miss, doc.Peak = stepOf(res.Best), stepOf(res.Miss), stepOf(res.Peak)
	return doc, nil
}

// stepOf is SweepDoc's step number for st: its own, or for a value's
// medians the first of the runs they are over (the page shows the
// value's point); 0 for none.
func stepOf(st *sweep.Step) int {
	switch {
	case st == nil:
		return 0
	case len(st.Of) > 0:
		return st.Of[0]
	}
	return st.N
}
