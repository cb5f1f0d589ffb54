package cmdline

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/workload"
)

// checkLimits refuses negative limits, and rates above
// engine.MaxRateLimit, in the name of the flag the user typed (sysbench's --events and --rate, or stampede's --max-ops and
// --max-rate), before the engine's own check, which knows none of them.
func (r *RunFlags) checkLimits(fs *pflag.FlagSet) error {
	typed := func(alias, name string) string {
		if fs.Changed(alias) {
			return "--" + alias
		}
		return "--" + name
	}
	switch {
	case r.duration < 0:
		return usagef("--duration %s is negative: use 0 for no limit or a positive duration like 60s", r.duration)
	case r.maxOps < 0:
		return usagef("%s %d is negative: use 0 for no limit", typed("events", "max-ops"), r.maxOps)
	case r.ramp < 0:
		return usagef("--ramp %s is negative: use 0 for no ramp or a positive duration like 30s", r.ramp)
	case math.IsNaN(r.maxRate) || math.IsNaN(r.queueRate):
		return usagef("%s NaN is not a rate: use a number of operations per second, or 0 for no limit", typed("rate", "max-rate"))
	case r.maxRate < 0:
		return usagef("%s %g is negative: use 0 for no limit", typed("rate", "max-rate"), r.maxRate)
	case r.queueRate < 0:
		return usagef("--rate %g is negative: use 0 for no limit", r.queueRate)
	case r.maxRate > engine.MaxRateLimit:
		return usagef("%s %g is more than any client reaches (%g operations a second): use a lower rate, or 0 for no limit", typed("rate", "max-rate"), r.maxRate, engine.MaxRateLimit)
	case r.queueRate > engine.MaxRateLimit:
		return usagef("--rate %g is more than any client reaches (%g events a second): use a lower rate, or 0 for no limit", r.queueRate, engine.MaxRateLimit)
	case r.opTimeout < 0:
		return usagef("--op-timeout %s is negative: use 0 for none", r.opTimeout)
	}
	return nil
}

// rangeAnnotation is the pflag annotation that holds a number flag's
// range, its lowest and highest values ("" for no bound), which
// FlagValueError says of a value that does not parse.
const rangeAnnotation = workload.RangeAnnotation

// SetRange records the range of fs's number flag name, lo to hi ("" hi
// for no upper bound, beyond the type's), for FlagValueError.
func SetRange(fs *pflag.FlagSet, name string, lo, hi int64) {
	h := ""
	if hi != math.MaxInt64 {
		h = strconv.FormatInt(hi, 10)
	}
	workload.SetFlagRange(fs, name, strconv.FormatInt(lo, 10), h)
}

// FlagValueError rewrites pflag's error for a value that does not parse
// as its flag's number (`invalid argument "1e15" for "--table_size" flag:
// strconv.ParseInt: parsing "1e15": invalid syntax`) in the flag's terms:
// what the value must be and, for a number written with an exponent, the
// same number in digits; a boolean's value that is neither true nor false
// is named with the two it takes. Other errors are returned as they are.
func FlagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	f, v := ive.GetFlag(), ive.GetValue()
	name := "--" + f.Name
	if f.Value.Type() == "duration" && strings.HasPrefix(errors.Unwrap(ive).Error(), "time: ") {
		// time.ParseDuration's error; a value of its own (the proxy's
		// --latency) says what it takes itself.
		return fmt.Errorf("%s=%s: give a duration with its unit, such as 500ms, 60s or 10m", name, v)
	}
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return err
	}
	if ne.Func == "ParseBool" { // pflag's booleans take what strconv.ParseBool takes
		return fmt.Errorf("invalid value %q for %s: give true or false", v, name)
	}
	var what string
	var lo, hi string
	switch f.Value.Type() {
	case "int", "int64":
		what, lo, hi = "a whole number", strconv.FormatInt(math.MinInt64, 10), strconv.FormatInt(math.MaxInt64, 10)
	case "int32":
		what, lo, hi = "a whole number", strconv.FormatInt(math.MinInt32, 10), strconv.FormatInt(math.MaxInt32, 10)
	case "uint", "uint64":
		what, lo, hi = "a whole number", "0", strconv.FormatUint(math.MaxUint64, 10)
	case "uint32":
		what, lo, hi = "a whole number", "0", strconv.FormatUint(math.MaxUint32, 10)
	case "float64", "float32":
		what = "a number"
	default:
		return err
	}
	if r := f.Annotations[rangeAnnotation]; len(r) == 2 && errors.Is(ne.Err, strconv.ErrRange) {
		// The flag's own range, not its type's.
		if r[0] == "" {
			return fmt.Errorf("%s=%s is out of range: give %s of at most %s", name, v, what, r[1])
		}
		if r[1] == "" {
			return fmt.Errorf("%s=%s is too large for any number: give %s of at least %s", name, v, what, r[0])
		}
		return fmt.Errorf("%s=%s is out of range: give %s from %s to %s", name, v, what, r[0], r[1])
	}
	if lo == "0" && strings.HasPrefix(v, "-") {
		return fmt.Errorf("%s=%s is negative: give a whole number from 0 to %s", name, v, hi)
	}
	if errors.Is(ne.Err, strconv.ErrRange) {
		switch {
		case hi == "":
			return fmt.Errorf("%s=%s is out of range for a number", name, v)
		case !strings.HasPrefix(v, "-"):
			// Too large: the type's negative end would suggest a
			// negative count (--tables) the flag then refuses.
			return fmt.Errorf("%s=%s is too large: give %s of at most %s", name, v, what, hi)
		}
		return fmt.Errorf("%s=%s is out of range: give %s from %s to %s", name, v, what, lo, hi)
	}
	if fv, ferr := strconv.ParseFloat(v, 64); ferr == nil && fv == math.Trunc(fv) && math.Abs(fv) < 1<<63 && hi != "" {
		return fmt.Errorf("%s=%s: give %s in digits, such as %s=%d", name, v, what, name, int64(fv))
	}
	return fmt.Errorf("%s=%s: give %s", name, v, what)
}
