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

// None reports whether v is p's none: a limit flag's step without the
// limit.
func (p Param) None(v float64) bool { return v == NoneValue && p.TakesNone() }

// Compare orders p's values as every table, list and chart of a sweep
// shows them: by value, lowest first, with none (no limit: the most
// resources a step can have) after every number. It returns -1, 0 or 1
// as a is before, the same as or after b.
func (p Param) Compare(a, b float64) int {
	switch an, bn := p.None(a), p.None(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Less reports whether a orders before b among p's values (Compare).
func (p Param) Less(a, b float64) bool { return p.Compare(a, b) < 0 }

// Lighter reports whether a higher value of p is a lighter load: a limit
// flag's (a higher --cpus gives the server more; none, no limit, is the
// lightest of all), the reverse of the settings a search takes
// (Heavier). A sweep of p answers with the lowest value that meets the
// SLO, the least the system needs, rather than the highest.
func (p Param) Lighter() bool { return p.TakesNone() }

// LoadCompare orders p's values by the load they make, lightest first:
// Compare's order, reversed when a higher value is a lighter load
// (Lighter). Every judgement of a sweep's direction (the answer, the
// step after a miss, not monotone) goes by it.
func (p Param) LoadCompare(a, b float64) int {
	if p.Lighter() {
		return p.Compare(b, a)
	}
	return p.Compare(a, b)
}

// Answer is the word for a sweep's answer over p: "highest" value meeting
// the SLO, or "lowest" when a higher value is a lighter load (Lighter).
func (p Param) Answer() string {
	if p.Lighter() {
		return "lowest"
	}
	return "highest"
}

// heavierWord and lighterWord say where a heavier or a lighter load's
// value lies from another's: "above" and "below", reversed for Lighter.
func (p Param) heavierWord() string {
	if p.Lighter() {
		return "below"
	}
	return "above"
}

func (p Param) lighterWord() string {
	if p.Lighter() {
		return "above"
	}
	return "below"
}

// NoneAt is where a chart whose axis holds p's values vals draws none: at
// the axis's right end, past the highest number by a quarter of it (at 1
// when none is the only value), since no limit is more than any; the
// chart labels it none. Numbers are drawn at themselves.
func (p Param) NoneAt(vals []float64) float64 {
	hi := 0.0
	for _, v := range vals {
		if !p.None(v) {
			hi = max(hi, v)
		}
	}
	if hi <= 0 {
		return 1
	}
	return hi * 1.25
}

// Axis returns where a chart whose axis holds p's values vals draws a
// value: a number at itself, none at NoneAt(vals) (the axis's right
// end); at says where none is, 0 when no value of vals is none.
func (p Param) Axis(vals []float64) (x func(v float64) float64, at float64) {
	if slices.ContainsFunc(vals, p.None) {
		at = p.NoneAt(vals)
	}
	return func(v float64) float64 {
		if p.None(v) {
			return p.NoneAt(vals)
		}
		return v
	}, at
}

// Text prints a value of p as a user writes it: none for a limit flag's
// step without the limit, a size with its unit (5M, 1.5G), else the
// number (Format).
func (p Param) Text(v float64) string {
	switch {
	case p.None(v):
		return "none"
	case p.Size() && v == float64(int64(v)):
		return limit.ShortSize(int64(v))
	}
	return Format(v)
}
