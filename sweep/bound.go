package sweep

import (
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/limit"
)

// LimitNote says when the step's CPU limit did not bind over its
// measured period (limit.CPUBound.DidNotBind: the server under 90% of
// the limit, at most 5% of periods throttled): "limit never bound:
// server used 0.24 of 1 CPU, not throttled", or with a few periods
// throttled "limit did not bind: server used 0.57 of 1 CPU, throttled
// in 3 of 101 periods; the host's CPU or the load capped it", so that a
// step labelled --cpus 1 is not read as one CPU's worth of server. ""
// when it bound, or without a CPU limit. A step whose limits held no
// process says that instead (NotLimited).
func (st Step) LimitNote() string {
	switch b := st.CPULimit; {
	case st.NotLimited != "":
		return st.NotLimited
	case b == nil || !b.DidNotBind():
		return ""
	case b.Throttled == 0:
		return "limit never bound: server " + b.Used()
	}
	return "limit did not bind: server " + st.CPULimit.Used() + "; the host's CPU or the load capped it"
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
// did not bind (Step.LimitNote), that it is limited by the machine, not
// the limit, with Miss's figures when its limit did not bind either; and
// when the answer's steps limited no process at all (Step.NotLimited, a
// limit of any kind), that the answer is not the limit's; with no answer,
// that the misses are not the limit's when a step limited nothing. ""
// otherwise.
func (res *Result) machineBound() string {
	if res.Best == nil { // no answer: a miss where nothing was limited is not the limit's either
		for i := range res.Steps {
			if st := &res.Steps[i]; st.NotLimited != "" {
				return fmt.Sprintf("nothing was limited: at %s %s (%s) %s; the misses are not the limit's: name the server's processes so that they match (`ps -eo pid,comm,args` lists them)",
					res.Param.Flag(), res.Param.Text(st.Value), res.cite(st), st.NotLimited)
			}
		}
		return ""
	}
	if res.Best.LimitNote() == "" {
		return ""
	}
	if res.Best.NotLimited != "" {
		return fmt.Sprintf("nothing was limited where the answer lies: at %s %s (%s) %s; the answer is not the limit's: name the server's processes so that they match (`ps -eo pid,comm,args` lists them)",
			res.Param.Flag(), res.Param.Text(res.Best.Value), res.cite(res.Best), res.Best.NotLimited)
	}
	var at []string
	for _, st := range []*Step{res.Best, res.Miss} {
		if st != nil && st.CPULimit != nil && st.NotLimited == "" && st.LimitNote() != "" {
			at = append(at, fmt.Sprintf("at %s %s (%s) the server %s", res.Param.Flag(), res.Param.Text(st.Value), res.cite(st), st.CPULimit.Used()))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("the CPU limit did not bind where the answer lies: %s; the answer is limited by the machine, not the limit", strings.Join(at, "; "))
}
