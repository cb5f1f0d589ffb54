package sweep

import (
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/limit"
)

// LimitNote says when the step's CPU limit never bound over its measured
// period (limit.CPUBound.NeverBound: no period throttled, the server
// under 90% of the limit): "limit never bound: server used 0.24 of 1
// CPU, not throttled", so that a step labelled --cpus 1 is not read as
// one CPU's worth of server. "" when it bound, or without a CPU limit.
func (st Step) LimitNote() string {
	if st.CPULimit == nil || !st.CPULimit.NeverBound() {
		return ""
	}
	return "limit never bound: server " + st.CPULimit.Used()
}

// medianBound is the CPU limit's figures of a value's completed runs
// (done): each the median of theirs; nil when one of them had none.
func medianBound(done []Step) *limit.CPUBound {
	if len(done) == 0 {
		return nil
	}
	med := func(f func(limit.CPUBound) float64) float64 {
		xs := make([]float64, len(done))
		for i, d := range done {
			xs[i] = f(*d.CPULimit)
		}
		return Median(xs)
	}
	for _, d := range done {
		if d.CPULimit == nil {
			return nil
		}
	}
	b := limit.CPUBound{CPUs: done[0].CPULimit.CPUs,
		UsedCores:    med(func(b limit.CPUBound) float64 { return b.UsedCores }),
		Periods:      uint64(med(func(b limit.CPUBound) float64 { return float64(b.Periods) })),
		Throttled:    uint64(med(func(b limit.CPUBound) float64 { return float64(b.Throttled) })),
		ThrottledSec: med(func(b limit.CPUBound) float64 { return b.ThrottledSec }),
	}
	return &b
}

// machineBound says, when the answer (Best) lies on steps whose CPU limit
// never bound, that it is limited by the machine, not the limit, with
// Miss's figures when its limit never bound either; "" otherwise.
func (res *Result) machineBound() string {
	if res.Best == nil || res.Best.LimitNote() == "" {
		return ""
	}
	var at []string
	for _, st := range []*Step{res.Best, res.Miss} {
		if st != nil && st.LimitNote() != "" {
			at = append(at, fmt.Sprintf("at %s %s (%s) the server %s", res.Param.Flag(), res.Param.Text(st.Value), res.cite(st), st.CPULimit.Used()))
		}
	}
	return fmt.Sprintf("the CPU limit never bound where the answer lies: %s; the answer is limited by the machine, not the limit", strings.Join(at, "; "))
}
