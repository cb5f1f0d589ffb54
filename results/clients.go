package results

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// clientTag is the tag run.Part gives a client's run: "I/N".
const clientTag = "client"

// maxClientSkew is how far apart the clients' measured periods may start
// before a merge warns: their intervals then do not line up, and the
// merged rates are per second of a union longer than each client ran.
const maxClientSkew = time.Second

// clientWarnings says when runs merged as one benchmark's clients are not:
// clients of different counts or jobs, a client twice or missing, or
// measured periods that do not start together.
func clientWarnings(runs []*runlog.Run, taken []Taken) []error {
	var errs []error
	counts := map[int]bool{}
	seen := map[int]string{}
	jobs := map[string]bool{}
	tagged := 0
	for _, run := range runs {
		i, n, ok := parseClient(run.Info.Tags[clientTag])
		if !ok {
			continue
		}
		tagged++
		counts[n] = true
		jobs[run.Info.Tags["job"]] = true
		if prev, dup := seen[i]; dup {
			errs = append(errs, fmt.Errorf("runs %s and %s are both client %d: a benchmark's clients are merged once each", prev, run.Info.ID, i))
		}
		seen[i] = run.Info.ID
	}
	if tagged > 0 && len(jobs) > 1 {
		errs = append(errs, fmt.Errorf("the runs are clients of different jobs (tag job): merged as one all the same"))
	}
	switch {
	case tagged > 0 && len(counts) > 1:
		errs = append(errs, fmt.Errorf("the runs are clients of benchmarks of different sizes (--clients): merged as one all the same"))
	case tagged > 0:
		for n := range counts {
			if len(seen) < n {
				var missing []string
				for i := 0; i < n && len(missing) < 5; i++ {
					if _, ok := seen[i]; !ok {
						missing = append(missing, strconv.Itoa(i))
					}
				}
				errs = append(errs, fmt.Errorf("the runs are %d of the benchmark's %d clients (missing: %s): the figures are theirs only (report --tag job=NAME merges a job's clients)", len(seen), n, strings.Join(missing, ", ")))
			}
		}
	}
	if len(taken) > 1 {
		starts := make([]time.Time, len(taken))
		for i, t := range taken {
			starts[i] = t.From
		}
		sort.Slice(starts, func(a, b int) bool { return starts[a].Before(starts[b]) })
		if skew := starts[len(starts)-1].Sub(starts[0]); skew > maxClientSkew {
			errs = append(errs, fmt.Errorf("the runs' measured periods start up to %s apart: as one benchmark's clients they should start together (run --start-at); rates are per second of the time their intervals cover together", skew.Round(time.Millisecond)))
		}
	}
	return errs
}

// parseClient parses a client tag, "I/N".
func parseClient(tag string) (i, n int, ok bool) {
	a, b, found := strings.Cut(tag, "/")
	if !found {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	return i, n, err1 == nil && err2 == nil && i >= 0 && i < n
}

// Common is what several clients of one benchmark did in their common
// measurement interval, the time every one of them measured: from the
// latest of their first taken intervals' starts to the earliest of their
// last taken intervals' ends.
type Common struct {
	From, To time.Time
	// Counts are the operations of each operation series in [From, To),
	// over every client: an interval within it counts whole, one that
	// straddles From or To for the share of its length within (its
	// operations taken as spread evenly over it), and the sum over the
	// clients' intervals is rounded to the nearest operation.
	Counts map[string]int64
}

// CommonInterval returns the operations that runs, the clients of one
// benchmark whose intervals v took (Recompute), counted over strictly
// their common measurement interval; ok is false for fewer than two runs
// with intervals taken, or runs whose measured periods do not overlap.
// A rate over the time the clients' intervals cover together (v.Seconds)
// counts, near its ends, the operations of fewer clients than measured;
// one over the common interval counts every client's. It reads the runs'
// intervals again, one at a time and without their histograms (the taken
// ones, those of v.Taken), and never modifies a run directory.
func CommonInterval(runs []*runlog.Run, v View) (c Common, ok bool, err error) {
	if len(v.Taken) < 2 {
		return Common{}, false, nil
	}
	for i, t := range v.Taken {
		if i == 0 || t.From.After(c.From) {
			c.From = t.From
		}
		if i == 0 || t.To.Before(c.To) {
			c.To = t.To
		}
	}
	if !c.To.After(c.From) {
		return Common{}, false, nil
	}
	taken := make(map[string]Taken, len(v.Taken))
	for _, t := range v.Taken {
		taken[t.Run] = t
	}
	sums := map[string]float64{}
	for _, run := range runs {
		t, ok := taken[run.Info.ID]
		if !ok {
			continue
		}
		// Counts only: the histograms are not decoded. The intervals
		// taken were read whole by Recompute, which stopped at any damage.
		skip := runlog.ScanOptions{Decode: func(int) bool { return false }}
		err := run.ScanWith(skip, func(iv *runlog.ScanInterval) error {
			if !iv.Start.Before(t.To) {
				return runlog.ErrStopScan
			}
			if iv.Start.Before(t.From) || iv.End.After(t.To) {
				return nil // not taken
			}
			length := iv.End.Sub(iv.Start)
			in := minTime(iv.End, c.To).Sub(maxTime(iv.Start, c.From))
			if in <= 0 || length <= 0 {
				return nil
			}
			share := float64(in) / float64(length)
			for _, d := range iv.Series {
				if IsOp(d.Name) && !IsSplit(d.Name) {
					sums[d.Name] += share * float64(d.Count)
				}
			}
			return nil
		})
		var trunc *runlog.TruncatedError
		if err != nil && !errors.As(err, &trunc) {
			return Common{}, false, err
		}
	}
	c.Counts = make(map[string]int64, len(sums))
	for name, n := range sums {
		c.Counts[name] = int64(math.Round(n))
	}
	return c, true, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
