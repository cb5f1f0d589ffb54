// Package sweep runs experiments made of runs: a workload stepped through
// rates or worker counts, each step a run of its own (a run directory,
// tagged with the sweep), judged against a service-level objective, and a
// search for the highest rate or worker count that meets it.
//
// It is built on package run: a step is a run.Spec that differs from the
// sweep's base only in the swept setting and its tags, so anything that
// starts runs (the command line, a dashboard, a partitioned client) can
// drive a sweep by giving a Spec, and can run its steps elsewhere by giving
// Spec.Exec.
package sweep

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// Param is the run setting a sweep varies.
type Param string

// The settings a sweep can vary.
const (
	// MaxRate is run.Spec.MaxRate: operations per second, open loop.
	MaxRate Param = "max-rate"
	// Concurrency is run.Spec.Concurrency: workers, closed or open loop.
	Concurrency Param = "concurrency"
)

// Flag is the command-line flag that sets p.
func (p Param) Flag() string {
	if k, ok := strings.CutPrefix(string(p), "p "); ok {
		return "-p " + k // a workload's property (YCSB's -p)
	}
	return "--" + string(p)
}

// heavier are the settings under which a higher value is a heavier load
// (more operations, workers, connections, tenants or warehouses at work),
// as a search assumes.
var heavier = []Param{MaxRate, Concurrency, "threads", "conns", "active", "active-warehouses", "active-workers"}

// Heavier reports whether a higher value of p is a heavier load, as a
// search assumes; Searchable names the settings that are.
func (p Param) Heavier() bool { return slices.Contains(heavier, p) }

// Searchable is the flags a search can vary, for messages.
func Searchable() string {
	names := make([]string, len(heavier))
	for i, p := range heavier {
		names[i] = p.Flag()
	}
	return strings.Join(names, ", ")
}

// integer reports whether p's values are whole numbers.
func (p Param) integer() bool { return p == Concurrency }

// DefaultPrecision is Spec.Precision's default: a search stops when the
// highest value that met the SLO and the lowest that missed it are within
// 5% of each other.
const DefaultPrecision = 0.05

// Spec says what a sweep runs.
type Spec struct {
	// Base is every step's run; a step sets Param to its value, adds its
	// tags and records the value in Flags.
	Base run.Spec
	// Param is the setting varied, Values its values.
	Param  Param
	Values Values
	// Param2, when set, is a second setting varied with Values2: the
	// steps are a grid, every value of Values2 at each value of Values
	// (Param the outer loop). A grid is not searched; its answer is
	// given per value of Param (Result.Rows).
	Param2  Param
	Values2 Values
	// Build, when set, makes each step's run at Param's value v (and
	// Param2's w; 0 without Param2): the settings are then any run flags
	// (--cpus, --conns, a workload's --range_size), and Base only names
	// the sweep's settings for Validate. Its error ends the sweep as a
	// failed step's does. The sweep sets --max-rate and --concurrency
	// itself, after Build.
	Build func(v, w float64) (run.Spec, error)
	// Between, when set, runs before each step (after Pause): a
	// server's CHECKPOINT (--checkpoint), so that no step pays for the
	// writes of the one before. Its error ends the sweep.
	Between func(ctx context.Context) error
	// Reload, when set, runs before each step's run, with the step's
	// run.Spec: it loads the step's data again (--reload, a sweep of a
	// flag that changes what init loads). Its time is not the step's
	// measurement; its error ends the sweep. kept, when not "", says
	// the database already held the step's data, which was not loaded
	// again ("data already at --tables=1, not reloaded").
	Reload func(ctx context.Context, s run.Spec) (kept string, err error)
	// Whole says Build's values are whole numbers (bisected as workers).
	Whole bool
	// Whole2 says Param2's values are whole numbers.
	Whole2 bool
	// Search looks for the highest value from Values.Lo to Values.Hi
	// whose step meets SLO, by bisection (geometric, as a sweep's range
	// often spans decades), instead of stepping through Values.List. It
	// assumes that a higher value is harder to meet.
	Search bool
	// Precision is the search's: it stops when the highest value met and
	// the lowest missed are within this fraction of each other (0 means
	// DefaultPrecision), or, for workers, one apart.
	Precision float64
	// SLO judges each step; without terms, steps are not judged.
	SLO SLO
	// KeepGoing runs every step of a list after one missed the SLO; by
	// default the sweep stops there when the later steps are heavier
	// (Values.Ascending: a limit's list going down).
	KeepGoing bool
	// Repeat runs each value this many times (0 or 1: once) and judges
	// it on the median of its runs. A list runs in rounds (every value
	// once, then again), so a burst of load on the machine falls on
	// several values rather than on one value's every run; a list with
	// Repeat above 1 runs every round, whatever its steps met. A search
	// bisects on single runs, then re-runs the values at its boundary
	// (the highest met and the lowest missed, and any met above a
	// missed one) in rounds until each has Repeat runs, bisecting again
	// where a median turns the verdict over.
	Repeat int
	// Pause waits this long between steps (a server's checkpoint, say).
	Pause time.Duration
	// ID names the sweep in its runs' tags; "" makes one from the time.
	ID string
	// Exec runs one step; nil means run.Start and Run.Wait.
	Exec func(ctx context.Context, s run.Spec) (*run.Result, error)
	// Observer, when set, sees each step begin and end.
	Observer Observer
	// Top, when set, says why no range above Values.Hi can be searched
	// (Hi is the most the load has: TPC-C's --warehouses): a search
	// whose every probe met says it instead of "search a higher range".
	Top string
}

// Observer sees a sweep's steps. Begin may add observers to the step's
// run (s.Observers is the step's own copy).
type Observer interface {
	Begin(st Step, s *run.Spec)
	End(st Step)
}

// Step is one run of a sweep.
type Step struct {
	// N counts the steps from 1; Value is the swept setting's value;
	// Rep counts the runs at Value from 1 (Spec.Repeat).
	N     int
	Value float64
	Rep   int
	// Value2 is the second setting's value in a grid (Spec.Param2).
	Value2 float64
	// RunID and Dir are the step's run (known at its end).
	RunID, Dir string
	// Of, on a value's medians over several runs (Point.Median, and
	// Result's Best, Miss and Peak then), are the steps whose medians
	// its figures are, and RunIDs their runs: N, RunID, Dir and
	// Telemetry are then unset, as no one run has these figures.
	Of     []int
	RunIDs []string
	// Status is the run's status (completed, interrupted, failed).
	Status string
	// Total is the run's total over its measured period; Target the rate
	// it scheduled (0: closed loop); Workers how many ran.
	Total   stats.Summary
	Target  float64
	Workers int
	// Figures are the workload's own (TPC-C's tpmC and efficiency).
	Figures map[string]float64
	// Telemetry is the run's telemetry averages and peaks (nil: none).
	Telemetry *telemetry.Summary
	// CPULimit is how the run's CPU limit (--cpus) bore on the server
	// over its measured period (nil: none); LimitNote reads it.
	CPULimit *limit.CPUBound
	// NotLimited, when not "", says no process matched the step's
	// limits (run.Summary.NotLimited); LimitNote says it first.
	NotLimited string
	// Ops are the operations' own figures over the measured period.
	Ops map[string]stats.Summary
	// Reloaded says the step's data was loaded again before its run
	// (Spec.Reload); Kept, that the database already held it and it
	// was not (the reload's kept).
	Reloaded bool
	Kept     string
	// Judged says an SLO judged the step: Met, or Why not.
	Judged bool
	Met    bool
	Why    string
}

// Result is a sweep's steps and what they found.
type Result struct {
	// ID names the sweep: its runs are tagged sweep=ID.
	ID    string
	Param Param
	// Param2 is a grid's second setting ("": one setting).
	Param2 Param
	SLO    SLO
	// Search says the steps were a search's probes.
	Search bool
	// Steps are in the order they ran.
	Steps []Step
	// Best is the highest value whose step met the SLO, Miss the lowest
	// above it whose step missed it; nil when there is none (or no SLO).
	// Under a limit flag (Param.Lighter: a higher value is a lighter
	// load) it is the reverse: Best the lowest value met, Miss the
	// highest below it that missed.
	Best, Miss *Step
	// Peak is the step with the highest throughput (nil: no step).
	// With several runs at a value, Best, Miss and Peak are that value's
	// medians (Point.Median), naming its runs in Of and RunIDs.
	Peak *Step
	// Points are the values run, lowest first (Param.Compare: none, no
	// limit, last), each with its runs'
	// medians and spread: the figures a value is judged on.
	Points []Point
	// NotMonotone says a value met the SLO under a heavier load than
	// one that missed (each judged on its median): the answer is then
	// not to be trusted; "" otherwise.
	NotMonotone string
	// Stopped says why the sweep ended before its planned steps, or why
	// a search could not bound the answer; "" otherwise.
	Stopped string
	// Data says, after a sweep that loaded its steps' data again
	// (--reload), what the database holds at its end; Restore is the
	// command that loads what the database held before the sweep again ("" when it holds that).
	// The sweep's caller sets them.
	Data, Restore string
	// Top is Spec.Top: why no value above the highest can be run (every
	// tenant or warehouse loaded); a list whose every value met says it.
	Top string
	// Rows are a grid's answers (Param2 set), one per value of Param,
	// lowest first: each the sweep of Param2 at that value, its steps'
	// Value Param2's. Best, Miss and NotMonotone are then unset (Peak is
	// the grid's).
	Rows []Row
}

// Row is a grid's sweep of its second setting at one value of its first.
type Row struct {
	// Value is the first setting's value.
	Value float64
	// Sweep is the row's steps as a sweep of the second setting (each
	// step's Value the second setting's), with its Best, Miss, Peak and
	// NotMonotone.
	Sweep *Result
}

// ErrNoSteps is returned when a Spec plans no step.
var ErrNoSteps = errors.New("sweep: no steps")

// Validate checks that spec can run, naming the flags of the command line.
func (spec Spec) Validate() error {
	switch {
	case spec.Param != MaxRate && spec.Param != Concurrency && spec.Build == nil:
		return fmt.Errorf("sweep: unknown setting %q to vary: use %s or %s", spec.Param, MaxRate, Concurrency)
	case spec.Param2 != "" && spec.Param2 != MaxRate && spec.Param2 != Concurrency && spec.Build == nil:
		return fmt.Errorf("sweep: unknown setting %q to vary: use %s or %s", spec.Param2, MaxRate, Concurrency)
	case spec.Param2 != "" && spec.Param2 == spec.Param:
		return fmt.Errorf("%s given twice: a grid varies two different flags", spec.Param.Flag())
	case spec.Param2 != "" && spec.Search:
		return fmt.Errorf("--search varies one flag, and %s and %s both hold several values: give one of them a single value, or drop --search to run the grid", spec.Param.Flag(), spec.Param2.Flag())
	case spec.Param2 != "" && (spec.Values2.Bounds || len(spec.Values2.List) == 0):
		return fmt.Errorf("%s %s:%s has no step: give a list (4,8) or a step (4:16:x2)", spec.Param2.Flag(), Format(spec.Values2.Lo), Format(spec.Values2.Hi))
	case spec.Param2 != "" && len(spec.Values.List)*len(spec.Values2.List) > MaxSteps:
		return fmt.Errorf("%s and %s make a grid of %d steps: a sweep takes at most %d", spec.Param.Flag(), spec.Param2.Flag(), len(spec.Values.List)*len(spec.Values2.List), MaxSteps)
	case spec.Search && !spec.Param.Heavier():
		list := spec.Param.Flag() + " " + listExample(spec.Param)
		if strings.HasPrefix(string(spec.Param), "p ") {
			list = spec.Param.Flag() + "=" + listExample(spec.Param) // -p name=0.5,0.9
		}
		return fmt.Errorf("--search over %s: the search assumes a higher value is a heavier load (it looks for the most that meets the SLO), which stampede cannot say of %s: sweep a list (%s) and read the table, or search %s",
			spec.Param.Flag(), spec.Param.Flag(), list, Searchable())
	case spec.Search && spec.Param == Concurrency && spec.Base.MaxRate > 0:
		return fmt.Errorf("--search over %s with --max-rate %s: the search assumes a higher value is a heavier load, and at a fixed rate more workers are not: drop --max-rate (a closed loop), or search --max-rate", spec.Param.Flag(), Format(spec.Base.MaxRate))
	case spec.connsAboveWorkers() != "":
		return errors.New(spec.connsAboveWorkers())
	case spec.Search && len(spec.SLO.Terms) == 0:
		return fmt.Errorf("--search looks for the highest %s meeting an SLO: give one, as --slo 'p99<=5ms'", spec.Param.Flag())
	case spec.Search && !spec.Values.Bounds:
		example := "1000:64000"
		if spec.integer() {
			example = "1:256"
		}
		return fmt.Errorf("--search takes a range, as %s %s: the search picks the values", spec.Param.Flag(), example)
	case !spec.Search && spec.Values.Bounds:
		return fmt.Errorf("%s %s:%s has no step: add one (%s:%s:x2) or search it with --search --slo 'p99<=5ms'",
			spec.Param.Flag(), Format(spec.Values.Lo), Format(spec.Values.Hi), Format(spec.Values.Lo), Format(spec.Values.Hi))
	case !spec.Search && len(spec.Values.List) == 0:
		return ErrNoSteps
	case spec.SLO.NeedsRate() && spec.Param != MaxRate && spec.Base.MaxRate == 0:
		return fmt.Errorf("--slo rate>=N%% is a share of --max-rate, and these steps run closed loop: give --max-rate, or a throughput in ops/s (rate>=5000)")
	case !(spec.Precision >= 0 && spec.Precision < 1): // NaN too
		return fmt.Errorf("--precision %g: use a fraction above 0 and below 1 (0.05 for 5%%)", spec.Precision)
	case spec.Repeat < 0:
		return fmt.Errorf("--repeat %d: give the runs per value, 1 or more", spec.Repeat)
	case spec.Repeat > MaxSteps || spec.plannedSteps()*max(spec.Repeat, 1) > MaxSteps:
		return fmt.Errorf("--repeat %d makes %d runs: a sweep takes at most %d; give fewer repeats or values", spec.Repeat, spec.plannedSteps()*spec.Repeat, MaxSteps)
	case spec.Pause < 0:
		return fmt.Errorf("--pause %s is negative: give the time to wait between steps, or 0", spec.Pause)
	}
	return nil
}

// Conns is the setting of a run's connections (--conns), which a run
// opens no more of than it has workers (--concurrency).
const Conns Param = "conns"

// connsAboveWorkers says, when not "", why spec is refused: its --conns
// values go above the workers (Base.Concurrency, the most of a swept
// --concurrency), where a run opens one connection per worker, so a
// higher --conns is not a heavier load, and a search would answer a
// value that never ran (as --concurrency at a fixed --max-rate is
// refused).
func (spec Spec) connsAboveWorkers() string {
	workers := spec.Base.Concurrency
	if workers < 1 || spec.Base.Fleet != nil {
		return ""
	}
	// A grid of --conns by --concurrency pairs the most --conns with the
	// fewest workers too.
	switch {
	case spec.Param == Conns && spec.Param2 == Concurrency && spec.Values.Hi > spec.Values2.Lo:
		return gridConnsAboveWorkers(spec.Values.Hi, spec.Values2.Lo)
	case spec.Param2 == Conns && spec.Param == Concurrency && spec.Values2.Hi > spec.Values.Lo:
		return gridConnsAboveWorkers(spec.Values2.Hi, spec.Values.Lo)
	}
	for _, p := range []struct {
		param  Param
		values Values
	}{{spec.Param, spec.Values}, {spec.Param2, spec.Values2}} {
		if p.param != Conns || p.values.Hi <= float64(workers) {
			continue
		}
		end := fmt.Sprintf("end the --conns range at %d", workers)
		if !p.values.Bounds {
			end = fmt.Sprintf("give --conns values up to %d", workers) // a list
		}
		return fmt.Sprintf("--conns up to %s with --concurrency %d: a run opens at most one connection per worker, so above %d more --conns is not a heavier load (and never runs): raise --concurrency to at least %s, or %s",
			Format(p.values.Hi), workers, workers, Format(p.values.Hi), end)
	}
	return ""
}

// gridConnsAboveWorkers is the refusal of a grid that pairs --conns conns
// with --concurrency workers, fewer.
func gridConnsAboveWorkers(conns, workers float64) string {
	return fmt.Sprintf("--conns %s with --concurrency %s is a step of the grid: a run opens at most one connection per worker, so it would run %s connections labelled %s: give --conns values up to the fewest --concurrency (%s), or --concurrency values from the most --conns (%s)",
		Format(conns), Format(workers), Format(workers), Format(conns), Format(workers), Format(conns))
}

// plannedSteps is the steps of one round of spec: a list's values (a
// grid's pairs), or 1 for a search, whose probes the search picks.
func (spec Spec) plannedSteps() int {
	switch {
	case spec.Search:
		return 1
	case spec.Param2 != "":
		return len(spec.Values.List) * len(spec.Values2.List)
	}
	return len(spec.Values.List)
}

// Run runs spec's steps, one run each, and returns them with the
// highest value that met the SLO. A step whose run fails or is
// interrupted ends the sweep: Run returns the steps so far (each kept in
// its run directory) with the error.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.ID == "" {
		spec.ID = NewID(time.Now())
	}
	if spec.Precision == 0 {
		spec.Precision = DefaultPrecision
	}
	spec.Repeat = max(spec.Repeat, 1)
	res := &Result{ID: spec.ID, Param: spec.Param, Param2: spec.Param2, SLO: spec.SLO, Search: spec.Search, Top: spec.Top}
	var err error
	switch {
	case spec.Param2 != "":
		err = spec.grid(ctx, res)
	case spec.Search:
		err = spec.search(ctx, res)
	default:
		err = spec.steps(ctx, res)
	}
	res.bound()
	what := res.what()
	switch n := len(res.Steps); {
	case err == nil:
	case errors.Is(err, run.ErrInterrupted) && n > 0 && res.Steps[n-1].Status == "interrupted":
		res.Stopped = res.interruptedAt(n)
	case errors.Is(err, run.ErrInterrupted) && n == 0:
		res.Stopped = fmt.Sprintf("interrupted before its first step had run (in its reload or start): %s did not finish, and found nothing", what)
	case errors.Is(err, run.ErrInterrupted):
		res.Stopped = fmt.Sprintf("interrupted after step %d, before the next: %s did not finish; %s", n, what, res.partial())
	case errors.As(err, new(inputError)):
		res.Stopped = fmt.Sprintf("%s stopped after step %d, which ran: its SLO cannot be judged (below)", what, n)
	case errors.Is(err, workload.ErrForeign):
		// A refusal to drop what stampede did not make (a reload's):
		// its own line says what and why, once.
		res.Stopped = fmt.Sprintf("%s stopped before step %d: its reload was refused (below)", what, n+1)
	default:
		res.Stopped = fmt.Sprintf("%s ended at a failed step: %v", what, err)
	}
	return res, err
}

// steps runs Values.List in order.
func (spec Spec) steps(ctx context.Context, res *Result) error {
	if spec.Repeat > 1 {
		for range spec.Repeat {
			for _, v := range spec.Values.List {
				if _, err := spec.step(ctx, res, v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i, v := range spec.Values.List {
		st, err := spec.step(ctx, res, v)
		if err != nil {
			return err
		}
		if left := len(spec.Values.List) - 1 - i; st.Judged && !st.Met && !spec.KeepGoing && left > 0 && spec.Values.Ascending(spec.Param) {
			res.Stopped = fmt.Sprintf("stopped after %s %s missed the SLO (%s left; --keep-going runs them)",
				spec.Param.Flag(), spec.Param.Text(v), plural(left, "step"))
			return nil
		}
	}
	return nil
}

// grid runs every value of Values2 at each value of Values, in rounds
// under Repeat; without KeepGoing (and Repeat 1) a row stops after its
// first step that misses the SLO, as a list does, and the next row goes on.
func (spec Spec) grid(ctx context.Context, res *Result) error {
	for range spec.Repeat {
		for _, v := range spec.Values.List {
			for i, w := range spec.Values2.List {
				st, err := spec.step2(ctx, res, v, w)
				if err != nil {
					return err
				}
				left := len(spec.Values2.List) - 1 - i
				if spec.Repeat == 1 && st.Judged && !st.Met && !spec.KeepGoing && left > 0 && spec.Values2.Ascending(spec.Param2) {
					res.Stopped += fmt.Sprintf("at %s %s, stopped after %s %s missed the SLO (%s left; --keep-going runs them)\n",
						spec.Param.Flag(), spec.Param.Text(v), spec.Param2.Flag(), spec.Param2.Text(w), plural(left, "step"))
					break
				}
			}
		}
	}
	res.Stopped = strings.TrimSuffix(res.Stopped, "\n")
	return nil
}

// search bisects from Values.Lo to Values.Hi: the lowest first (if it
// misses there is nothing to find), then the geometric midpoint of the
// highest value met and the lowest missed (Hi until probed), and Hi last
// if every probe met. With Repeat above 1 it then confirms the boundary:
// the highest value met, the lowest missed and any value met above a
// missed one are re-run in rounds until each has Repeat runs, each value
// judged on its median; where a median turns a verdict over, the
// bisection goes on from the new boundary.
func (spec Spec) search(ctx context.Context, res *Result) error {
	lo, hi := spec.Values.Lo, spec.Values.Hi
	// A bound on the runs: a bisection within the precision, each value
	// of it confirmed, several times over.
	limit := 64 * spec.Repeat
	for len(res.Steps) < limit {
		res.bound()
		pts := map[float64]*Point{}
		for i := range res.Points {
			pts[res.Points[i].Value] = &res.Points[i]
		}
		if p := res.undecided(); len(p) > 0 {
			res.Stopped = fmt.Sprintf("the search stopped at %s %s, which could not be judged (above): it gives no answer from a step not judged", spec.Param.Flag(), spec.Param.Text(p[0].Value))
			return nil
		}
		lowest := pts[lo]
		if lowest == nil {
			if _, err := spec.step(ctx, res, lo); err != nil {
				return err
			}
			continue
		}
		if lowest.Judged && !lowest.Met && res.Best == nil {
			if len(lowest.Runs) < spec.Repeat {
				// lo again, back to back: if its median misses there is
				// nothing to find, and a probe above it would be spent.
				if _, err := spec.step(ctx, res, lo); err != nil {
					return err
				}
				continue
			}
			res.Stopped = fmt.Sprintf("the range's lowest value, %s %s, missed the SLO: search a lower range", spec.Param.Flag(), Format(lo))
			if spec.integer() && lo <= 1 {
				res.Stopped = fmt.Sprintf("the range's lowest value, %s %s, missed the SLO, and there is no lower one: the load cannot meet it at its lightest (see the step's verdict: a probe too short, or an SLO too tight)", spec.Param.Flag(), Format(lo))
			}
			return nil
		}
		if res.Best == nil { // not judged: the step did not complete
			return nil
		}
		best, miss := res.Best.Value, hi
		if res.Miss != nil {
			miss = res.Miss.Value
		}
		if !spec.close(best, miss) {
			next := spec.midpoint(best, miss)
			if pts[hi] == nil && next >= hi/2 {
				// Every probe met, and the midpoint is within a factor
				// of 2 of the top: the top itself, rather than creeping
				// up to it a halving at a time (26, 29, 30, 31, 32).
				next = hi
			}
			if _, err := spec.step(ctx, res, next); err != nil {
				return err
			}
			continue
		}
		if pts[miss] == nil { // every probe met: Hi itself is the last
			if _, err := spec.step(ctx, res, hi); err != nil {
				return err
			}
			continue
		}
		// Confirm: the boundary's values short of runs, a run at a time
		// and never the same value twice in a row, judged again after
		// each.
		round := []float64{best, miss}
		// A value needs Repeat runs, and an odd count of them when
		// Repeat is odd: a median of two halves would average a
		// burst's run with a quiet one's.
		need := func(v float64) bool {
			n := len(pts[v].Runs)
			return n < spec.Repeat || spec.Repeat%2 == 1 && n%2 == 0
		}
		ran := false
		for _, v := range round {
			if !need(v) {
				continue
			}
			if last := res.Steps[len(res.Steps)-1].Value; last == v {
				// Not back to back: the boundary's other value first
				// (then one run more, for an odd count).
				other := best
				if v == best {
					other = miss
				}
				if _, err := spec.step(ctx, res, other); err != nil {
					return err
				}
			}
			if _, err := spec.step(ctx, res, v); err != nil {
				return err
			}
			ran = true
			break // judge again: a verdict may have turned
		}
		if ran {
			continue
		}
		if res.Miss == nil && res.Best.Value == hi {
			res.Stopped = fmt.Sprintf("the range's highest value, %s %s, met the SLO: search a higher range", spec.Param.Flag(), Format(hi))
			top := spec.Top
			if top == "" && spec.Param == Conns && spec.Base.Concurrency > 0 && hi >= float64(spec.Base.Concurrency) {
				top = fmt.Sprintf("that is one connection per worker (--concurrency %d): raise --concurrency with the --conns range to search higher", spec.Base.Concurrency)
			}
			if top != "" {
				res.Stopped = fmt.Sprintf("the range's highest value, %s %s, met the SLO: %s", spec.Param.Flag(), Format(hi), top)
			}
		}
		return nil
	}
	res.bound()
	res.Stopped = fmt.Sprintf("the search stopped after %d runs without a confirmed boundary: the results are too noisy; run it on a quieter machine or with a larger --precision", len(res.Steps))
	return nil
}

// listExample is a list of p's values for messages: sizes with their
// units for the size limits (a bare 1,2,4 would be bytes), shares from
// 0 to 1 for a proportion.
func listExample(p Param) string {
	switch {
	case p == "memory":
		return "256M,512M,1G"
	case p == "io-read-bps" || p == "io-write-bps":
		return "1M,5M,20M"
	case strings.Contains(string(p), "proportion"):
		return "0.5,0.9,0.95"
	}
	return "1,2,4"
}

// integer reports whether the swept values are whole numbers.
func (spec Spec) integer() bool { return spec.Param.integer() || spec.Whole }

// close reports whether the search has bounded its answer closely enough.
func (spec Spec) close(met, missed float64) bool {
	if spec.integer() && missed-met <= 1 {
		return true
	}
	return missed <= met*(1+spec.Precision)
}

// midpoint is the value probed between met and missed: their geometric
// mean, rounded to three significant digits (workers: a whole number)
// while that stays strictly between them.
func (spec Spec) midpoint(met, missed float64) float64 {
	m := math.Sqrt(met * missed)
	if spec.integer() {
		return min(max(math.Round(m), met+1), missed-1)
	}
	if r, _ := strconv.ParseFloat(strconv.FormatFloat(m, 'g', 3, 64), 64); r > met && r < missed {
		return r
	}
	return m
}

// step runs the sweep's next step at value v.
func (spec Spec) step(ctx context.Context, res *Result, v float64) (Step, error) {
	return spec.step2(ctx, res, v, 0)
}

// step2 runs the sweep's next step at value v of Param and w of Param2
// (0 without Param2).
func (spec Spec) step2(ctx context.Context, res *Result, v, w float64) (Step, error) {
	if len(res.Steps) > 0 && spec.Pause > 0 {
		select {
		case <-ctx.Done():
			return Step{}, run.ErrInterrupted
		case <-time.After(spec.Pause):
		}
	}
	if ctx.Err() != nil {
		return Step{}, run.ErrInterrupted
	}
	st := Step{N: len(res.Steps) + 1, Value: v, Value2: w, Rep: 1}
	for _, prev := range res.Steps {
		if prev.Value == v && prev.Value2 == w {
			st.Rep++
		}
	}
	at := spec.Param.Flag() + " " + spec.Param.Text(v)
	if spec.Param2 != "" {
		at += ", " + spec.Param2.Flag() + " " + spec.Param2.Text(w)
	}
	if spec.Between != nil {
		if err := spec.Between(ctx); err != nil {
			if ctx.Err() != nil {
				return Step{}, run.ErrInterrupted
			}
			if errors.Is(err, run.ErrInput) {
				return Step{}, err
			}
			return Step{}, fmt.Errorf("before step %d (%s): %w", st.N, at, err)
		}
	}
	s := spec.Base
	if spec.Build != nil {
		b, err := spec.Build(v, w)
		if err != nil {
			if errors.Is(err, run.ErrInput) {
				return st, err
			}
			return st, fmt.Errorf("step %d (%s): %w", st.N, at, err)
		}
		s = b
	}
	s.Tags = maps.Clone(s.Tags)
	if s.Tags == nil {
		s.Tags = map[string]string{}
	}
	s.Tags["sweep"] = spec.ID
	s.Tags["sweep_step"] = strconv.Itoa(st.N)
	s.Tags["sweep_rep"] = strconv.Itoa(st.Rep)
	s.Flags = maps.Clone(s.Flags)
	if s.Flags == nil {
		s.Flags = map[string]string{}
	}
	set := func(p Param, v float64) {
		s.Flags[string(p)] = Format(v)
		if v == NoneValue && p.TakesNone() {
			s.Flags[string(p)] = "none" // the run's record says no limit, not 0
		}
		switch p {
		case MaxRate:
			s.MaxRate = v
		case Concurrency:
			s.Concurrency = int(v)
			delete(s.Flags, "threads")
		}
	}
	set(spec.Param, v)
	if spec.Param2 != "" {
		set(spec.Param2, w)
	}
	if len(spec.SLO.Terms) > 0 {
		// The SLO the step is judged under, as run.json's --slo: the
		// terms given (TPC-C's efficiency when none were), to which
		// reading its runs back adds what the sweep added (TPC-C's
		// response times, the rate floor), so that they are judged as
		// the sweep judged them.
		s.Flags["slo"] = spec.SLO.Given().String()
	}
	s.Observers = append([]run.Observer(nil), s.Observers...)
	if spec.Reload != nil {
		kept, err := spec.Reload(ctx, s)
		if err != nil {
			if ctx.Err() != nil {
				return Step{}, run.ErrInterrupted
			}
			if errors.Is(err, run.ErrInput) {
				return Step{}, err
			}
			return Step{}, fmt.Errorf("reloading before step %d (%s): %w", st.N, at, err)
		}
		st.Reloaded, st.Kept = kept == "", kept
	}
	if spec.Observer != nil {
		spec.Observer.Begin(st, &s)
	}
	exec := spec.Exec
	if exec == nil {
		exec = startAndWait
	}
	r, err := exec(ctx, s)
	if r != nil {
		st.RunID, st.Dir, st.Status = r.Info.ID, r.Info.Dir, r.Summary.Status
		st.Total, st.Target, st.Workers, st.Figures = r.Summary.Total, r.Info.MaxRate, r.Info.Workers, r.Summary.Figures
		st.Telemetry, st.CPULimit, st.NotLimited = r.Summary.Telemetry, r.Summary.CPULimit, r.Summary.NotLimited
		for _, op := range r.Summary.Ops {
			if st.Ops == nil {
				st.Ops = map[string]stats.Summary{}
			}
			st.Ops[op.Name] = op.Summary
		}
		if len(spec.SLO.Terms) > 0 && err == nil {
			st.Judged, st.Met, st.Why = spec.SLO.Verdict(Measure{Total: st.Total, Target: st.Target, Ops: st.Ops, Figures: st.Figures})
		}
		res.Steps = append(res.Steps, st)
		if spec.Observer != nil {
			spec.Observer.End(st)
		}
		if err == nil {
			if e := unknownOps(spec.SLO, r.Summary.Series); e != nil {
				// A typo in the SLO would otherwise never be judged:
				// a term on no operation reads as one without samples.
				return st, e
			}
		}
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, run.ErrInput) {
			err = run.ErrInterrupted // cancelled while it set up (connecting, say)
		}
		if errors.Is(err, run.ErrInterrupted) || errors.Is(err, run.ErrInput) {
			return st, err
		}
		return st, fmt.Errorf("step %d (%s): %w", st.N, at, err)
	}
	return st, nil
}

// inputError is an error in what was asked, matching run.ErrInput (the
// command line exits with 2).
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == run.ErrInput }

// unknownOps returns an error matching run.ErrInput when a term of slo
// bounds an operation that is none of the run's series (all of its
// workload's operations, with or without samples): a misspelt name,
// which Check would otherwise take for an operation a short probe drew
// no sample of, and never judge.
func unknownOps(slo SLO, series []run.NamedSummary) error {
	if len(series) == 0 {
		return nil
	}
	names := make([]string, 0, len(series))
	for _, s := range series {
		names = append(names, s.Name)
	}
	for _, t := range slo.Terms {
		if t.Op == "" || slices.Contains(names, t.Op) {
			continue
		}
		var ops []string
		for _, n := range names {
			if !strings.Contains(n, "/") && !strings.HasSuffix(n, ".service") && !strings.HasSuffix(n, ".lag") {
				ops = append(ops, n)
			}
		}
		return inputError{fmt.Sprintf("--slo %s: the workload has no operation %s; its operations are %s", t.Text, t.Op, strings.Join(ops, ", "))}
	}
	return nil
}

// startAndWait is Spec.Exec's default: the run, here.
func startAndWait(ctx context.Context, s run.Spec) (*run.Result, error) {
	r, err := run.Start(ctx, s)
	if err != nil {
		return nil, err
	}
	return r.Wait()
}

// Judge judges res's steps under res.SLO as Run judges them (each
// completed step, on its Total and Target) and sets Best, Miss and Peak
// as Run does: a sweep's answer read back from its steps' runs (the
// dashboard's sweep page). A sweep whose last step was interrupted is
// Stopped as Run says it, so that its Conclusion is the command line's
// (not "every step met it"); one whose last step was killed (kill -9, a
// crash: its run reads "killed") says so and what it holds.
func (res *Result) Judge() {
	res.Best, res.Miss, res.Peak = nil, nil, nil
	if n := len(res.Steps); res.Stopped == "" && n > 0 {
		switch last := res.Steps[n-1]; last.Status {
		case "interrupted":
			res.Stopped = res.interruptedAt(last.N) // as Run says it
		case "killed":
			res.Stopped = res.killedAt(last.N)
		}
	}
	for i := range res.Steps {
		st := &res.Steps[i]
		st.Judged, st.Met, st.Why = false, false, ""
		if len(res.SLO.Terms) > 0 && st.Status == "completed" {
			st.Judged, st.Met, st.Why = res.SLO.Verdict(Measure{Total: st.Total, Target: st.Target, Ops: st.Ops, Figures: st.Figures})
		}
	}
	res.bound()
}

// bound sets Points from the steps, and Best, Miss and Peak from them:
// Miss is the value of the lightest load that missed the SLO, Best that
// of the heaviest that met it, lighter than Miss (Param.LoadCompare: the
// lowest value missed and the highest met below it for --max-rate; the
// highest limit missed and the lowest met above it for --cpus, none the
// lightest), each judged on its median, and NotMonotone says when a
// heavier load than Miss met it.
func (res *Result) bound() {
	res.Best, res.Miss, res.Peak, res.NotMonotone, res.Rows = nil, nil, nil, "", nil
	res.Points = points(res.Steps, res.SLO, res.Param, res.Param2)
	if res.Param2 != "" {
		res.boundGrid()
		return
	}
	load := res.Param.LoadCompare // lightest load first
	for i := range res.Points {
		p := &res.Points[i]
		if p.Judged && !p.Met && (res.Miss == nil || load(p.Value, res.Miss.Value) < 0) {
			res.Miss = p.step()
		}
	}
	var above *Point // the first value met under a heavier load than Miss
	for i := range res.Points {
		p := &res.Points[i]
		if p.Median.Status == "completed" && p.Median.Total.Rate > 0 && (res.Peak == nil || p.Median.Total.Rate > res.Peak.Total.Rate) {
			res.Peak = p.step()
		}
		if p.Judged && p.Met && (res.Miss == nil || load(p.Value, res.Miss.Value) < 0) && (res.Best == nil || load(p.Value, res.Best.Value) > 0) {
			res.Best = p.step()
		}
		if res.Miss != nil && load(res.Miss.Value, p.Value) < 0 && p.Judged && p.Met && above == nil {
			above = p
		}
	}
	if above != nil {
		answer := fmt.Sprintf("the answer is the %s value met %s the %s missed", res.Param.Answer(), res.Param.lighterWord(), opposite(res.Param.Answer()))
		if res.Best == nil {
			answer = fmt.Sprintf("no value %s it met it, so there is no answer", res.Param.lighterWord())
		}
		res.NotMonotone = fmt.Sprintf("not monotone: %s %s met the SLO%s %s %s, which missed it%s; %s, %s",
			res.Param.Flag(), res.Param.Text(above.Value), above.metIn(), res.Param.heavierWord(), res.Param.Text(res.Miss.Value), res.missRuns(), answer, res.varied())
	}
}

// what names the experiment in messages: "the search" or "the sweep".
func (res *Result) what() string {
	if res.Search {
		return "the search"
	}
	return "the sweep"
}

// interruptedAt is Stopped for a sweep interrupted during step n.
func (res *Result) interruptedAt(n int) string {
	return fmt.Sprintf("interrupted at step %d: %s did not finish; %s", n, res.what(), res.partial())
}

// partial says that what an unfinished sweep found is partial, and on how
// many completed runs.
func (res *Result) partial() string {
	done := 0
	for _, st := range res.Steps {
		if st.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("what it found is partial, from %s", plural(done, "completed run"))
}

// killedAt is Stopped for a sweep killed during step n (its run reads
// "killed"): what it holds is its completed steps, and step n's figures
// up to its run's last complete interval, not counted.
func (res *Result) killedAt(n int) string {
	done := 0
	for _, st := range res.Steps {
		if st.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("killed at step %d (kill -9 or a crash): %s did not finish; what it found is partial: it holds %s, and step %d's figures up to its last complete interval, not counted",
		n, res.what(), plural(done, "completed step"), n)
}

// opposite is "lowest" for "highest" and the reverse.
func opposite(word string) string {
	if word == "highest" {
		return "lowest"
	}
	return "highest"
}

// varied says why a sweep's results may not be monotone, and what to do:
// re-run with --repeat, unless its values already ran several times; and
// under an SLO with a throughput in ops/s (rate>=5000), a light load
// misses by design, as it cannot reach that throughput.
func (res *Result) varied() string {
	for _, t := range res.SLO.Terms {
		if t.Metric == "rate" && !t.Percent {
			return fmt.Sprintf("as expected under %s: a throughput in ops/s that a light load cannot reach, so lighter steps miss it by design; bound the rate as a share of --max-rate (rate>=95%%) to find a limit", t.Text)
		}
	}
	for _, p := range res.Points {
		if p.Completed > 1 {
			return "though each value was judged on the median of its runs: the machine or the server varied more than --repeat evens out; run on a quieter machine, with a longer --duration and a --ramp"
		}
	}
	return "and the machine or the server varied: re-run with --repeat, or on a quieter machine"
}

// boundGrid sets a grid's Peak and Rows: each value of Param's steps as
// a sweep of Param2, bounded as a sweep of one setting is.
func (res *Result) boundGrid() {
	for i := range res.Points {
		p := &res.Points[i]
		if p.Median.Status == "completed" && p.Median.Total.Rate > 0 && (res.Peak == nil || p.Median.Total.Rate > res.Peak.Total.Rate) {
			res.Peak = p.step()
		}
	}
	var outer []float64
	for _, st := range res.Steps {
		if !slices.Contains(outer, st.Value) {
			outer = append(outer, st.Value)
		}
	}
	slices.SortFunc(outer, res.Param.Compare)
	for _, v := range outer {
		row := &Result{ID: res.ID, Param: res.Param2, SLO: res.SLO}
		for _, st := range res.Steps {
			if st.Value == v {
				st.Value, st.Value2 = st.Value2, 0
				row.Steps = append(row.Steps, st)
			}
		}
		row.bound()
		res.Rows = append(res.Rows, Row{Value: v, Sweep: row})
	}
}

// cite names the completed runs st's verdict stands on: "step 7" for
// one run; for several, their steps and how many met, as the verdict is
// their median's ("steps 20, 25, 27: met in 2 of 3, judged on their
// median"), so that a conclusion never cites one run that says
// otherwise; and the runs of the value that were interrupted, which it
// does not count ("; step 29 interrupted, not counted").
func (res *Result) cite(st *Step) string {
	for _, p := range res.Points {
		if p.Value != st.Value {
			continue
		}
		s := st.Which()
		switch n := len(p.done); {
		case n == 1:
			s = fmt.Sprintf("step %d", p.done[0])
		case n > 1:
			s = fmt.Sprintf("%s: met in %d of %d, judged on their median", stepList(p.done), p.MetRuns, n)
		}
		if len(p.Interrupted) > 0 {
			s += fmt.Sprintf("; %s interrupted, not counted", stepList(p.Interrupted))
		}
		return s
	}
	return st.Which()
}

// stepList names steps: "step 4", "steps 2, 4".
func stepList(ns []int) string {
	ss := make([]string, len(ns))
	for i, n := range ns {
		ss[i] = strconv.Itoa(n)
	}
	if len(ns) == 1 {
		return "step " + ss[0]
	}
	return "steps " + strings.Join(ss, ", ")
}

// metIn says in how many completed runs p met the SLO, "" for one.
func (p *Point) metIn() string {
	if p.Completed < 2 {
		return ""
	}
	return fmt.Sprintf(" in %d of %d runs", p.MetRuns, p.Completed)
}

// missRuns says how Miss was judged when on several runs.
func (res *Result) missRuns() string {
	for _, p := range res.Points {
		if p.Value == res.Miss.Value {
			return p.runs()
		}
	}
	return ""
}

// Conclusion is what the sweep found, in a line or two: the highest value
// that met the SLO and the lowest above it that missed (for a limit flag,
// the lowest met and the highest below it missed), or without an SLO
// the step of the highest throughput; and why it stopped early.
func (res *Result) Conclusion() string {
	flag := res.Param.Flag()
	if res.Param2 != "" {
		return res.gridConclusion()
	}
	if len(res.SLO.Terms) == 0 || len(res.Steps) == 0 {
		var lines []string
		if p := res.Peak; p != nil {
			lines = append(lines, fmt.Sprintf("peak throughput: %.1f ops/s at %s %s (%s), p99 %s ms", p.Total.Rate, flag, res.Param.Text(p.Value), p.Which(), Sig3(p.Total.P99)))
		}
		if res.Stopped != "" {
			lines = append(lines, res.Stopped)
		}
		return strings.Join(lines, "\n")
	}
	var s string
	undecided := res.undecided()
	var above *Point // the heaviest load met, heavier than the lightest missed
	for i := range res.Points {
		if p := &res.Points[i]; res.Miss != nil && res.Param.LoadCompare(res.Miss.Value, p.Value) < 0 && p.Judged && p.Met &&
			(above == nil || res.Param.LoadCompare(p.Value, above.Value) > 0) {
			above = p
		}
	}
	lower := "lower" // where the lighter load's value lies
	if res.Param.Lighter() {
		lower = "higher"
	}
	switch {
	case res.Best == nil && above != nil:
		s = fmt.Sprintf("no answer: %s %s (%s) met the SLO %s, but %s (%s), %s, missed it: the results are not monotone",
			flag, res.Param.Text(above.Value), res.cite(&above.Median), res.SLO, res.Param.Text(res.Miss.Value), res.cite(res.Miss), lower)
	case res.Best == nil && len(undecided) > 0:
		s = fmt.Sprintf("no answer: no step was judged to meet the SLO %s", res.SLO)
	case res.Best == nil:
		s = fmt.Sprintf("no step met the SLO %s", res.SLO)
	case res.Search && res.Miss != nil && res.Stopped == "":
		s = fmt.Sprintf("highest %s meeting the SLO %s: %s (%s), within %s of %s, which missed",
			flag, res.SLO, res.Param.Text(res.Best.Value), res.cite(res.Best), pct(res.Miss.Value/res.Best.Value-1), res.Param.Text(res.Miss.Value))
	default:
		s = fmt.Sprintf("%s %s meeting the SLO %s: %s (%s)", res.Param.Answer(), flag, res.SLO, res.Param.Text(res.Best.Value), res.cite(res.Best))
		switch {
		case res.Miss != nil || res.Search || res.Stopped != "" || len(undecided) > 0 || res.Param.None(res.Best.Value): // none, no limit, has none higher
		case res.Param.Lighter():
			s += "; " + res.everyMet() + ": a lower limit may meet it too"
		case res.Top != "":
			s += "; " + res.everyMet() + ": " + res.Top
		default:
			s += "; " + res.everyMet() + ": the limit is higher"
		}
	}
	if res.Best != nil && res.Best.Why != "" {
		s += fmt.Sprintf("\n%s %s (%s) met it: %s", flag, res.Param.Text(res.Best.Value), res.cite(res.Best), res.Best.Why)
	}
	if res.Miss != nil {
		s += fmt.Sprintf("\n%s %s (%s) missed: %s", flag, res.Param.Text(res.Miss.Value), res.cite(res.Miss), res.Miss.Why)
	}
	for _, p := range undecided {
		s += "\n" + res.notJudged(p)
	}
	if m := res.machineBound(); m != "" {
		s += "\n" + m
	}
	if res.NotMonotone != "" {
		s += "\n" + res.NotMonotone
	}
	if res.Stopped != "" {
		s += "\n" + res.Stopped
	}
	return s
}

// gridConclusion is a grid's Conclusion: each row's, after the value of
// its first setting, then the grid's peak and why it stopped early.
func (res *Result) gridConclusion() string {
	var lines []string
	for _, r := range res.Rows {
		for _, l := range strings.Split(r.Sweep.Conclusion(), "\n") {
			if l != "" {
				lines = append(lines, fmt.Sprintf("at %s %s: %s", res.Param.Flag(), res.Param.Text(r.Value), l))
			}
		}
	}
	if p := res.Peak; p != nil {
		lines = append(lines, fmt.Sprintf("peak throughput of the grid: %.1f ops/s at %s %s, %s %s (%s), p99 %s ms",
			p.Total.Rate, res.Param.Flag(), res.Param.Text(p.Value), res.Param2.Flag(), res.Param2.Text(p.Value2), p.Which(), Sig3(p.Total.P99)))
	}
	if res.Stopped != "" {
		lines = append(lines, res.Stopped)
	}
	return strings.Join(lines, "\n")
}

// plural returns n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// pct prints a fraction as a percentage with up to one decimal.
func pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// NewID returns a sweep id: the start time and 4 random hex digits
// (20261126-061500-a1b2), sortable as run ids are.
func NewID(t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
