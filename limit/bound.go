package limit

import (
	"fmt"
	"strconv"
	"time"
)

// BoundShare is the share of a CPU limit under which processes that were
// never throttled count as never held back by it: below 90% of the quota
// with no throttled period, what they used was the machine's to give
// (other processes' competition, cpu.shares) or all they asked for.
const BoundShare = 0.9

// CPUBound is how a CPU limit bore on its group over an interval (a run's
// measured period): the growth of the group's cpu.stat counters and the
// CPU its processes used. It says whether a step labelled "--cpus 1"
// measured one CPU's worth of server, or something else.
type CPUBound struct {
	// CPUs is the limit, in CPUs.
	CPUs float64 `json:"cpus"`
	// UsedCores is the CPU the limited processes used on average over
	// the interval, in cores: the watched processes' (telemetry), or
	// without any watched the group's own CPU time.
	UsedCores float64 `json:"used_cores"`
	// Periods, Throttled and ThrottledSec are the growth over the
	// interval of cpu.stat's nr_periods, nr_throttled and throttled_time
	// (in seconds).
	Periods      uint64  `json:"nr_periods"`
	Throttled    uint64  `json:"nr_throttled"`
	ThrottledSec float64 `json:"throttled_s"`
}

// Bound returns how the CPU limit cpus bore on a group whose counters
// were from at the interval's start and to at its end, elapsed apart.
// used is the processes' CPU in cores; a negative one takes the group's
// own CPU time over the interval instead. A counter that went down (a
// group made again) counts as grown by 0.
func Bound(cpus float64, from, to Stats, elapsed time.Duration, used float64) CPUBound {
	grew := func(a, b uint64) uint64 {
		if b < a {
			return 0
		}
		return b - a
	}
	b := CPUBound{CPUs: cpus, UsedCores: used, Periods: grew(from.Periods, to.Periods), Throttled: grew(from.ThrottledPeriods, to.ThrottledPeriods),
		ThrottledSec: max(0, (to.ThrottledTime - from.ThrottledTime).Seconds())}
	if used < 0 {
		b.UsedCores = 0
		if elapsed > 0 {
			b.UsedCores = max(0, (to.CPUUsage-from.CPUUsage).Seconds()/elapsed.Seconds())
		}
	}
	return b
}

// NegligibleThrottle is the share of an interval's periods that may be
// throttled while processes under BoundShare of their limit still count
// as not held back by it: a burst's few periods (3 of 101) do not make
// the limit the cap of a server that used 0.6 of 1 CPU.
const NegligibleThrottle = 0.05

// DidNotBind reports whether the limit did not hold the processes back:
// they used less than BoundShare of it, and at most NegligibleThrottle of
// the interval's periods were throttled (none, or a burst's few). What
// capped them was the host's CPU or the load, not the limit.
func (b CPUBound) DidNotBind() bool {
	return b.CPUs > 0 && b.UsedCores < BoundShare*b.CPUs && float64(b.Throttled) <= NegligibleThrottle*float64(b.Periods)
}

// Used says what the processes used of the limit and whether they were
// throttled: "used 0.24 of 1 CPU, not throttled", "used 0.5 of 0.5 CPU,
// throttled in 38 of 40 periods".
func (b CPUBound) Used() string {
	unit := "CPU"
	if b.CPUs > 1 {
		unit = "CPUs"
	}
	s := fmt.Sprintf("used %s of %s %s", strconv.FormatFloat(b.UsedCores, 'f', 2, 64), strconv.FormatFloat(b.CPUs, 'f', -1, 64), unit)
	if b.Throttled == 0 {
		return s + ", not throttled"
	}
	return fmt.Sprintf("%s, throttled in %d of %d periods", s, b.Throttled, b.Periods)
}
