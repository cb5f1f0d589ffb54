package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/limit"
)

// MaxSteps bounds the steps a list or range of values may make: a sweep
// of more is a typo (a step of 1 over a range of a million), not a plan.
const MaxSteps = 1000

// Values are the values a sweep steps through: a list, a range with a
// step (both become List), or a range without one, which only a search
// (Spec.Search) can take: it probes values between Lo and Hi.
type Values struct {
	// List is the values in the order they were given (a range's, from
	// its start).
	List []float64
	// Lo and Hi bound the values: List's smallest and largest, or the
	// range's bounds.
	Lo, Hi float64
	// Bounds says the values are a range without a step: List is empty.
	Bounds bool
}

// Bound is what a swept flag's values may be: ParseValues refuses any
// other, naming the flag and the most it takes.
type Bound struct {
	// Whole requires whole numbers (workers, operations).
	Whole bool
	// Size says the values are sizes in bytes, written 512M or 1G (whole).
	Size bool
	// Max is the most a whole or size value may be (0: any number).
	Max int64
	// Unit, when set, is what the values count (workers, connections):
	// a value above Max is more of them than a client runs.
	Unit string
}

// Workers is the bound of a flag whose values are workers: more than an
// int32 holds no client runs.
var Workers = Bound{Whole: true, Max: maxWorkers - 1, Unit: "workers"}

// ParseValues parses the values of a swept flag: a list (1,2,4,8), a
// range with an arithmetic step (1000:8000:1000) or a factor
// (1000:64000:x2), or a range alone (1000:64000) for a search, each
// value within b (sizes as 512M, under b.Size). Errors name flag and
// say what to write.
func ParseValues(flag, s string, b Bound) (Values, error) {
	s = strings.TrimSpace(s)
	given := flag + " " + quote(s)
	if strings.HasSuffix(flag, "=") { // a property, as given: -p readproportion=0.5,x
		given = flag + strings.Trim(quote(s), `"`)
	}
	integer := b.Whole || b.Size
	num := func(part string) (float64, error) {
		part = strings.TrimSpace(part)
		var v float64
		var err error
		if b.Size {
			n, serr := limit.ParseSize(part)
			if serr != nil {
				return 0, fmt.Errorf("%s: %v", given, serr)
			}
			v = float64(n)
		} else {
			v, err = strconv.ParseFloat(part, 64)
		}
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return 0, fmt.Errorf("%s: %q is not a number; give values as 1,2,4 or a range as 1000:8000:1000, 1000:64000:x2 or 1000:64000", given, part)
		case v <= 0:
			return 0, fmt.Errorf("%s: %s is not positive; every step needs a value above 0", given, part)
		case integer && v != math.Trunc(v):
			return 0, fmt.Errorf("%s: %s is not a whole number", given, part)
		case b.Max > 0 && v >= float64(b.Max)+1:
			return 0, b.above(flag, given, part)
		}
		return v, nil
	}
	if s == "" {
		return Values{}, fmt.Errorf("%s is empty: give values as 1,2,4 or a range as 1000:8000:1000, 1000:64000:x2 or 1000:64000", flag)
	}
	if !strings.Contains(s, ":") {
		var v Values
		for _, part := range strings.Split(s, ",") {
			x, err := num(part)
			if err != nil {
				return Values{}, err
			}
			v.List = append(v.List, x)
		}
		if len(v.List) > MaxSteps {
			return Values{}, fmt.Errorf("%s has %d values: a sweep takes at most %d steps", given, len(v.List), MaxSteps)
		}
		v.Lo, v.Hi = v.List[0], v.List[0]
		for _, x := range v.List {
			v.Lo, v.Hi = min(v.Lo, x), max(v.Hi, x)
		}
		return v, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return Values{}, fmt.Errorf("%s: a range is START:END or START:END:STEP (1000:8000:1000, 1000:64000:x2)", given)
	}
	lo, err := num(parts[0])
	if err != nil {
		return Values{}, err
	}
	hi, err := num(parts[1])
	if err != nil {
		return Values{}, err
	}
	if hi <= lo {
		return Values{}, fmt.Errorf("%s: the range's end %s is not above its start %s", given, strings.TrimSpace(parts[1]), strings.TrimSpace(parts[0]))
	}
	v := Values{Lo: lo, Hi: hi}
	if len(parts) == 2 {
		v.Bounds = true
		return v, nil
	}
	step := strings.TrimSpace(parts[2])
	var at func(k int, prev float64) float64 // the k-th value, from the start
	if f, ok := strings.CutPrefix(step, "x"); ok {
		factor, err := strconv.ParseFloat(f, 64)
		if err != nil || !(factor > 1) || math.IsInf(factor, 0) {
			return Values{}, fmt.Errorf("%s: the factor %q is not a number above 1 (x2 doubles each step)", given, step)
		}
		at = func(k int, prev float64) float64 { return roundSig(lo * math.Pow(factor, float64(k))) }
		if integer {
			// Whole workers: each step at least one more.
			at = func(k int, prev float64) float64 { return max(math.Round(prev*factor), prev+1) }
		}
	} else {
		d, err := num(step)
		if err != nil {
			return Values{}, err
		}
		at = func(k int, prev float64) float64 { return roundSig(lo + float64(k)*d) }
	}
	// The end is included when a step lands on it, within rounding.
	for x, k := lo, 0; x <= hi*(1+1e-9); {
		if k == MaxSteps {
			return Values{}, fmt.Errorf("%s makes more than %d steps: use a larger step", given, MaxSteps)
		}
		v.List = append(v.List, x)
		k++
		x = at(k, x)
	}
	return v, nil
}

// roundSig rounds x to 9 significant digits, so that a range's steps
// print as typed (1000:2000:100 gives 1300, not 1300.0000000000002).
func roundSig(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	return r
}

// Ascending reports whether List makes a heavier load step by step
// (Param.LoadCompare: up for --max-rate, down for a limit such as --cpus,
// none first), as a sweep that stops at its first miss assumes: the
// steps after a miss are heavier.
func (v Values) Ascending(p Param) bool {
	for i := 1; i < len(v.List); i++ {
		if p.LoadCompare(v.List[i-1], v.List[i]) >= 0 {
			return false
		}
	}
	return true
}

// above is the error of a value part of flag's values s above b.Max.
func (b Bound) above(flag, s, part string) error {
	most := strconv.FormatInt(b.Max, 10)
	if b.Size {
		most = limit.ShortSize(b.Max)
	}
	if b.Unit != "" {
		return fmt.Errorf("%s: %s is more %s than a client runs; give at most %s", s, part, b.Unit, most)
	}
	return fmt.Errorf("%s: %s is more than %s takes; give at most %s", s, part, strings.TrimSuffix(flag, "="), most)
}

// maxWorkers bounds a value of workers: more does not fit an int32, and
// no client runs them.
const maxWorkers = 1 << 31

// quote returns s quoted, cut to 40 characters for an error message.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return strconv.Quote(s)
}

// Format prints a swept value: a whole number without decimals, else
// with as few as it takes.
func Format(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
