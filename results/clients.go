package results

import (
	"fmt"
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
