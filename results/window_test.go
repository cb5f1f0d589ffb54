package results_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// timedRun is a run whose intervals have arbitrary bounds and known
// counts.
type timedRun struct {
	run    *runlog.Run
	start  time.Time
	bounds []time.Duration // interval i runs from bounds[i] to bounds[i+1] after start
	counts []int64         // operations of interval i
	errs   []int64         // errors of interval i
}

// writeTimedRun writes a run that started at start, with intervals between
// the offsets bounds, the given number of operations in each (a "read"
// series only) and a ramp-up ending at rampEnd after start (none if 0).
func writeTimedRun(t testing.TB, root, id string, start time.Time, bounds []time.Duration, counts []int64, rampEnd time.Duration) timedRun {
	t.Helper()
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "ycsb", Series: []string{"read"}, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	if rampEnd > 0 {
		if err := w.SetRampEnd(start.Add(rampEnd)); err != nil {
			t.Fatal(err)
		}
	}
	tr := timedRun{start: start, bounds: bounds, counts: counts}
	for i := range counts {
		h := stats.NewHistogram()
		for j := range counts[i] {
			if err := h.RecordValue(int64(200_000+1_000*i) + 37*j); err != nil {
				t.Fatal(err)
			}
		}
		e := int64(i % 3)
		tr.errs = append(tr.errs, e)
		s := []runlog.IntervalSeries{{Name: "read", Hist: h, Count: counts[i], Errors: e}}
		if err := w.WriteInterval(start.Add(bounds[i]), start.Add(bounds[i+1]), s, map[string]float64{"reconnects": float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(bounds[len(bounds)-1]), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	tr.run, err = runlog.Open(filepath.Join(root, id))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// want returns the intervals of r that start in [from, to) (in offsets
// from the start; to < 0 is no upper bound), computed apart from results.
func (r timedRun) want(from, to time.Duration) []int {
	var in []int
	for i := range r.counts {
		if r.bounds[i] >= from && (to < 0 || r.bounds[i] < to) {
			in = append(in, i)
		}
	}
	return in
}

// checkView checks that v holds exactly intervals in of r: counts, errors,
// which intervals, and that every rate is per second of their time.
func checkView(t *testing.T, what string, r timedRun, v results.View, in []int) {
	t.Helper()
	var count, errs int64
	var secs time.Duration
	for _, i := range in {
		count += r.counts[i]
		errs += r.errs[i]
		secs += r.bounds[i+1] - r.bounds[i]
	}
	if v.Intervals != len(in) || len(v.Taken) != 1 || v.Taken[0].Intervals != len(in) {
		t.Fatalf("%s: %d intervals (taken %+v), want %d: %v", what, v.Intervals, v.Taken, len(in), in)
	}
	first, last := r.start.Add(r.bounds[in[0]]), r.start.Add(r.bounds[in[len(in)-1]+1])
	if tk := v.Taken[0]; !tk.From.Equal(first) || !tk.To.Equal(last) || !v.From.Equal(first) || !v.To.Equal(last) ||
		tk.FromOffset != r.bounds[in[0]].Seconds() || tk.ToOffset != r.bounds[in[len(in)-1]+1].Seconds() {
		t.Errorf("%s: took %+v (view %s to %s), want intervals %v: %s to %s", what, tk, v.From, v.To, in, first, last)
	}
	if v.Total.Count != count || v.Total.Errors != errs {
		t.Errorf("%s: %d ops, %d errors; intervals %v hold %d, %d", what, v.Total.Count, v.Total.Errors, in, count, errs)
	}
	if v.Seconds != secs.Seconds() || v.Taken[0].Seconds != secs.Seconds() || v.Total.Seconds != secs.Seconds() {
		t.Errorf("%s: over %gs (taken %gs, total %gs), intervals %v cover %gs", what, v.Seconds, v.Taken[0].Seconds, v.Total.Seconds, in, secs.Seconds())
	}
	if got := v.Total.Rate * v.Seconds; math.Abs(got-float64(count)) > 1e-9*float64(count) {
		t.Errorf("%s: %g ops/s × %gs = %g, but %d ops", what, v.Total.Rate, v.Seconds, got, count)
	}
}

// randomBounds returns n interval bounds as a run's engine writes them:
// mostly whole seconds plus a few hundred microseconds, and now and then a
// short interval (the ramp-up's end), a long one (a slow tick), and a
// final partial one.
func randomBounds(rng *rand.Rand, n int) []time.Duration {
	b := []time.Duration{0}
	for i := 1; i < n; i++ {
		prev := b[len(b)-1]
		var next time.Duration
		switch rng.IntN(10) {
		case 0: // the ramp-up's end, somewhere in the second
			next = prev + time.Duration(1+rng.Int64N(int64(990*time.Millisecond)))
		case 1: // a late tick
			next = prev + time.Second + time.Duration(rng.Int64N(int64(1500*time.Millisecond)))
		default: // the next whole second, a little late
			next = (prev/time.Second+1)*time.Second + time.Duration(rng.Int64N(int64(900*time.Microsecond)))
		}
		b = append(b, next)
	}
	// The final partial interval.
	return append(b, b[len(b)-1]+time.Duration(1+rng.Int64N(int64(300*time.Millisecond))))
}

func bound(start time.Time, d time.Duration, abs bool) results.Bound {
	if abs {
		return results.At(start.Add(d))
	}
	return results.Offset(d)
}

// TestWindowProperty checks, for random windows over recorded runs with
// intervals of varied lengths, that a window takes exactly the intervals
// that start in [from, to), that ops/s × covered seconds is the
// ops count, that windows which split a run partition its intervals and
// operations, and that a window holding no interval is a one-line
// WindowError naming an exact window that holds one.
func TestWindowProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	root := t.TempDir()
	for r := range 6 {
		bounds := randomBounds(rng, 5+rng.IntN(40))
		counts := make([]int64, len(bounds)-1)
		var all int64
		for i := range counts {
			counts[i] = 1 + rng.Int64N(500)
			all += counts[i]
		}
		run := writeTimedRun(t, root, fmt.Sprintf("prop%d", r), t0, bounds, counts, 0)
		span := bounds[len(bounds)-1]
		runs := []*runlog.Run{run.run}
		whole, _ := recompute(t, runs, results.Window{})
		checkView(t, "whole run", run, whole, run.want(0, -1))

		for k := range 120 {
			abs := rng.IntN(4) == 0
			from := time.Duration(rng.Int64N(int64(span + 2*time.Second)))
			to := time.Duration(-1)
			w := results.Window{From: bound(t0, from, abs)}
			switch rng.IntN(5) {
			case 0: // no --to
			case 1: // a short window
				to = from + time.Duration(1+rng.Int64N(int64(time.Second)))
			default:
				to = from + time.Duration(1+rng.Int64N(int64(span)))
			}
			if to >= 0 {
				w.To = bound(t0, to, rng.IntN(4) == 0)
			}
			what := fmt.Sprintf("run %d, window %d (%s)", r, k, w)
			in := run.want(from, to)
			v, _, err := results.Recompute(runs, w)
			if len(in) > 0 {
				if err != nil {
					t.Fatalf("%s: %v; want intervals %v", what, err, in)
				}
				checkView(t, what, run, v, in)
				continue
			}
			var we *results.WindowError
			if err == nil || !errors.As(err, &we) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s: holds no interval, but Recompute returned %d intervals, error %v", what, v.Intervals, err)
			}
			if m := nearestRE.FindStringSubmatch(err.Error()); m != nil {
				f, _ := results.ParseBound(m[1])
				tt, _ := results.ParseBound(m[2])
				v, _, err := results.Recompute(runs, results.Window{From: f, To: tt})
				if err != nil || v.Intervals != 1 {
					t.Errorf("%s: the suggested window --from %s --to %s: %d intervals, %v", what, m[1], m[2], v.Intervals, err)
				}
			} else if !strings.Contains(err.Error(), "lies before the run") && !strings.Contains(err.Error(), "lies after the run") &&
				!strings.Contains(err.Error(), "the window is empty") {
				t.Errorf("%s: %v: names no window", what, err)
			}
		}

		// Windows that split the run partition its intervals and
		// operations, and their times add up to the run's.
		for range 30 {
			cuts := []time.Duration{0}
			for range 1 + rng.IntN(8) {
				cuts = append(cuts, time.Duration(1+rng.Int64N(int64(span))))
			}
			slices.Sort(cuts)
			cuts = slices.Compact(cuts)
			var n int
			var ops int64
			var secs time.Duration
			for i, c := range cuts {
				w := results.Window{From: results.Offset(c)}
				to := time.Duration(-1)
				if i+1 < len(cuts) {
					to = cuts[i+1]
					w.To = results.Offset(to)
				}
				v, _, err := results.Recompute(runs, w)
				if err != nil {
					if len(run.want(c, to)) > 0 {
						t.Fatalf("run %d, part %s: %v", r, w, err)
					}
					continue
				}
				checkView(t, fmt.Sprintf("run %d, part %s", r, w), run, v, run.want(c, to))
				n += v.Intervals
				ops += v.Total.Count
				secs += v.Taken[0].To.Sub(v.Taken[0].From)
			}
			if n != len(counts) || ops != all || secs != span {
				t.Errorf("run %d: windows split at %v hold %d intervals, %d ops over %s; the run %d, %d over %s", r, cuts, n, ops, secs, len(counts), all, span)
			}
		}
	}
}

var nearestRE = regexp.MustCompile(`the nearest exact window is --from (\S+) --to (\S+)$`)

// TestWindowBoundaries checks the membership rule at its edges, on a run
// whose intervals start a few hundred microseconds after each second, as
// the engine's do, with a ramp-up that ended at an interval bound.
func TestWindowBoundaries(t *testing.T) {
	ms, us := time.Millisecond, time.Microsecond
	// [0, 1.0003s) [1.0003s, 1.5s) [1.5s, 2.0002s) [2.0002s, 3.0004s) [3.0004s, 4.0001s) [4.0001s, 4.0004s)
	bounds := []time.Duration{0, time.Second + 300*us, 1500 * ms, 2*time.Second + 200*us, 3*time.Second + 400*us, 4*time.Second + 100*us, 4*time.Second + 400*us}
	counts := []int64{2000, 999, 1001, 2000, 1994, 1}
	run := writeTimedRun(t, t.TempDir(), "edges", t0, bounds, counts, 1500*ms)
	off := results.Offset
	for _, tc := range []struct {
		name          string
		w             results.Window
		lo, hi        int     // the intervals expected; none if equal
		rate, seconds float64 // expected ops/s and seconds
	}{
		{"after the ramp-up", results.Window{}, 2, 6, 4996 / 2.5004, 2.5004},
		{"include the ramp-up", results.Window{IncludeRamp: true}, 0, 6, 7995 / 4.0004, 4.0004},
		// The case: the intervals that start in the second
		// (here two, the ramp-up ending in it), per second of them.
		{"--from 1s --to 2s", results.Window{From: off(time.Second), To: off(2 * time.Second)}, 1, 3, 2000 / 0.9999, 0.9999},
		{"--from 2s --to 3s", results.Window{From: off(2 * time.Second), To: off(3 * time.Second)}, 3, 4, 2000 / 1.0002, 1.0002},
		// A bound exactly on an interval's start: the interval is in
		// [from, to) when from is its start, out when to is.
		{"from on a start", results.Window{From: off(3*time.Second + 400*us), To: off(4 * time.Second)}, 4, 5, 1994 / 0.9997, 0.9997},
		{"from just past a start", results.Window{From: off(3*time.Second + 400*us + 1), To: off(5 * time.Second)}, 5, 6, 1 / 0.0003, 0.0003},
		{"to on a start", results.Window{From: off(2 * time.Second), To: off(3*time.Second + 400*us)}, 3, 4, 2000 / 1.0002, 1.0002},
		{"to just past a start", results.Window{From: off(2 * time.Second), To: off(3*time.Second + 400*us + 1)}, 3, 5, 3994 / 1.9999, 1.9999},
		{"no start in the window", results.Window{From: off(2100 * ms), To: off(2900 * ms)}, 0, 0, 0, 0},
		{"absolute", results.Window{From: results.At(t0.Add(2 * time.Second)), To: results.At(t0.Add(4 * time.Second))}, 3, 5, 3994 / 1.9999, 1.9999},
		{"final partial interval", results.Window{From: off(4 * time.Second)}, 5, 6, 1 / 0.0003, 0.0003},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _, err := results.Recompute([]*runlog.Run{run.run}, tc.w)
			if tc.lo == tc.hi {
				var we *results.WindowError
				if !errors.As(err, &we) {
					t.Fatalf("took %d intervals, error %v; want a WindowError", v.Intervals, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var in []int
			for i := tc.lo; i < tc.hi; i++ {
				in = append(in, i)
			}
			checkView(t, tc.name, run, v, in)
			if math.Abs(v.Total.Rate-tc.rate) > 1e-9*tc.rate || math.Abs(v.Seconds-tc.seconds) > 1e-12 {
				t.Errorf("%g ops/s over %gs, want %g over %gs", v.Total.Rate, v.Seconds, tc.rate, tc.seconds)
			}
		})
	}
}

// TestWindowErrors checks the one-line errors of windows that hold no
// interval, and that they are WindowErrors.
func TestWindowErrors(t *testing.T) {
	us := time.Microsecond
	root := t.TempDir()
	bounds := []time.Duration{0, time.Second + 300*us, 2*time.Second + 200*us, 3*time.Second + 400*us, 4*time.Second + 100*us}
	run := writeTimedRun(t, root, "r", t0, bounds, []int64{2000, 2000, 2000, 2000}, 0)
	ramped := writeTimedRun(t, root, "ramped", t0, bounds, []int64{2000, 2000, 2000, 2000}, 2*time.Second+200*us)
	other := writeTimedRun(t, root, "other", t0.Add(time.Minute), bounds, []int64{1, 1, 1, 1}, 0)
	off := func(s string) results.Bound {
		b, err := results.ParseBound(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		runs []timedRun
		w    results.Window
		want string
	}{
		{"shorter than an interval", []timedRun{run}, results.Window{From: off("1500ms"), To: off("1600ms")},
			"run r: the window --from 1.5s --to 1.6s is shorter than the run's intervals there (1s) and holds none: an interval counts when it starts in the window; the nearest exact window is --from 1s --to 2s"},
		{"inside an interval", []timedRun{run}, results.Window{From: off("2100ms"), To: off("2900ms")},
			"the nearest exact window is --from 2s --to 3s"},
		{"at the end", []timedRun{run}, results.Window{From: off("3700ms")},
			"run r: the window --from 3.7s is shorter than the run's intervals there (1s) and holds none: an interval counts when it starts in the window; the nearest exact window is --from 3s --to 4s"},
		{"absolute", []timedRun{run}, results.Window{From: off("2026-11-22T10:35:13.5Z"), To: off("2026-11-22T10:35:13.6Z")},
			"run r: the window --from 2026-11-22T10:35:13.5Z (+1.5s) --to 2026-11-22T10:35:13.6Z (+1.6s) is shorter than the run's intervals there (1s) and holds none: an interval counts when it starts in the window; the nearest exact window is --from 2026-11-22T10:35:13Z --to 2026-11-22T10:35:14Z"},
		{"after the run", []timedRun{run}, results.Window{From: off("1m")},
			"run r: the window --from 1m0s lies after the run: its intervals span +0s to +4.0001s"},
		{"before the run", []timedRun{run}, results.Window{From: off("2026-11-22T10:00:00Z"), To: off("2026-11-22T10:35:00Z")},
			"run r: the window --from 2026-11-22T10:00:00Z (-35m12s) --to 2026-11-22T10:35:00Z (-12s) lies before the run: its intervals span +0s to +4.0001s"},
		{"--from after --to", []timedRun{run}, results.Window{From: off("3s"), To: off("2s")},
			"the window is empty: --from 3s is not before --to 2s; give a --to after --from"},
		{"--from equal to --to", []timedRun{run}, results.Window{From: off("2s"), To: off("2s")},
			"the window is empty: --from 2s is not before --to 2s"},
		{"--to before the ramp-up's end", []timedRun{ramped}, results.Window{To: off("1s")},
			"run ramped: the window --to 1s (starting at the ramp-up's end, +2.0002s) is empty: its intervals span +0s to +4.0001s, its ramp-up ended at +2.0002s; give --from, or --include-ramp, to start it earlier"},
		{"no run in it", []timedRun{run, other}, results.Window{From: off("2026-11-22T10:35:30Z"), To: off("2026-11-22T10:35:40Z")},
			"none of the 2 runs has an interval in the window: run r: the window --from 2026-11-22T10:35:30Z (+18s) --to 2026-11-22T10:35:40Z (+28s) lies after the run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*runlog.Run
			for _, r := range tc.runs {
				runs = append(runs, r.run)
			}
			_, _, err := results.Recompute(runs, tc.w)
			var we *results.WindowError
			if err == nil || !errors.As(err, &we) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v\nwant a WindowError containing %q", err, tc.want)
			}
		})
	}
	// A run that ended with its ramp-up has no interval in the default
	// window: that is no command-line error.
	short := writeTimedRun(t, root, "short", t0, bounds[:3], []int64{5, 5}, 2*time.Second+200*us)
	_, _, err := results.Recompute([]*runlog.Run{short.run}, results.Window{})
	var we *results.WindowError
	if err == nil || errors.As(err, &we) || !strings.Contains(err.Error(), "no interval after the ramp-up") || !strings.Contains(err.Error(), "--include-ramp") {
		t.Errorf("default window of a run that ended with its ramp-up: %v", err)
	}
}

// TestMergeCovered checks that merged runs' rates are per second of the
// union of the intervals they contributed.
func TestMergeCovered(t *testing.T) {
	root := t.TempDir()
	s := time.Second
	a := writeTimedRun(t, root, "a", t0, []time.Duration{0, s, 2 * s, 3 * s}, []int64{10, 10, 10}, 0)
	// b starts 2.5s later: its intervals overlap a's last one by half.
	b := writeTimedRun(t, root, "b", t0.Add(2500*time.Millisecond), []time.Duration{0, s, 2 * s}, []int64{20, 20}, 0)
	// c ran later, apart: the gap between is no time of the view.
	c := writeTimedRun(t, root, "c", t0.Add(time.Minute), []time.Duration{0, s}, []int64{5}, 0)
	v, _ := recompute(t, []*runlog.Run{a.run, b.run, c.run}, results.Window{})
	// Union: [0, 4.5s) and [60s, 61s).
	if v.Seconds != 5.5 || v.Total.Count != 75 || v.Intervals != 6 || v.Total.Rate != 75/5.5 {
		t.Errorf("%d ops in %d intervals over %gs at %g ops/s; want 75 in 6 over 5.5s", v.Total.Count, v.Intervals, v.Seconds, v.Total.Rate)
	}
	if !v.From.Equal(t0) || !v.To.Equal(t0.Add(61*s)) || len(v.Taken) != 3 {
		t.Fatalf("view %s to %s, taken %+v", v.From, v.To, v.Taken)
	}
	for i, want := range []struct {
		run      string
		from, to time.Time
		n        int
		secs     float64
	}{{"a", t0, t0.Add(3 * s), 3, 3}, {"b", t0.Add(2500 * time.Millisecond), t0.Add(4500 * time.Millisecond), 2, 2}, {"c", t0.Add(time.Minute), t0.Add(61 * s), 1, 1}} {
		tk := v.Taken[i]
		if tk.Run != want.run || !tk.From.Equal(want.from) || !tk.To.Equal(want.to) || tk.Intervals != want.n || tk.Seconds != want.secs {
			t.Errorf("taken from run %d: %+v, want %+v", i, tk, want)
		}
	}
}
