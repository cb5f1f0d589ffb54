package sweep

import (
	"slices"

	"github.com/stampede-bench/stampede/limit"
)

// NoneValue is the value of a step without a limit (none): a limit
// flag's values are otherwise positive.
const NoneValue = 0

// limitParams are the cgroup limit flags: a step of theirs may be none
// (NoneValue), a run without the limit.
var limitParams = []Param{"cpus", "memory", "io-read-bps", "io-write-bps", "io-read-iops", "io-write-iops"}

// sizeParams are the limit flags whose values are sizes in bytes.
var sizeParams = []Param{"memory", "io-read-bps", "io-write-bps"}

// TakesNone reports whether p is a limit flag, whose steps may be none:
// a run without the limit.
func (p Param) TakesNone() bool { return slices.Contains(limitParams, p) }

// Size reports whether p's values are sizes in bytes (512M).
func (p Param) Size() bool { return slices.Contains(sizeParams, p) }

// Text prints a value of p as a user writes it: none for a limit flag's
// step without the limit, a size with its unit (5M, 1.5G), else the
// number (Format).
func (p Param) Text(v float64) string {
	switch {
	case v == NoneValue && p.TakesNone():
		return "none"
	case p.Size() && v == float64(int64(v)):
		return limit.ShortSize(int64(v))
	}
	return Format(v)
}
