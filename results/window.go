package results

import (
	"fmt"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// Bound is one end of a Window: an offset from each run's start, or an
// absolute instant. The zero Bound is unset. A Bound is a plain value and
// safe for concurrent reads.
type Bound struct {
	at     time.Time
	offset time.Duration
	set    bool
}

// Offset returns the Bound d after each run's start.
func Offset(d time.Duration) Bound { return Bound{offset: d, set: true} }

// At returns the Bound at the absolute instant t, the same for every run.
func At(t time.Time) Bound { return Bound{at: t.UTC(), set: true} }

// ParseBound parses a window bound: a non-negative Go duration taken as an
// offset from the run's start ("30s", "2m", "1h30m"), or an RFC 3339 time
// ("2026-11-22T10:36:00Z"). An empty string yields the unset Bound.
func ParseBound(s string) (Bound, error) {
	if s == "" {
		return Bound{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return Bound{}, fmt.Errorf("offset %q is negative: give a time after the run's start", s)
		}
		return Offset(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return At(t), nil
	}
	return Bound{}, fmt.Errorf("malformed time %q: want an offset from the run's start such as 30s or 2m, or an RFC 3339 time such as 2026-11-22T10:36:00Z", s)
}

// IsSet reports whether b was set.
func (b Bound) IsSet() bool { return b.set }

// String returns "+30s", an RFC 3339 time, or "" for the unset Bound.
func (b Bound) String() string {
	switch {
	case !b.set:
		return ""
	case !b.at.IsZero():
		return b.at.Format(time.RFC3339Nano)
	}
	return "+" + b.offset.String()
}

// resolve returns the instant b designates for a run that started at start.
func (b Bound) resolve(start time.Time) time.Time {
	if !b.at.IsZero() {
		return b.at
	}
	return start.Add(b.offset)
}

// Window selects the intervals of each run a view covers. The zero Window
// covers each run after its ramp-up (or from its start, if it had none) to
// its end. A Window is a plain value and safe for concurrent reads.
//
// Intervals are indivisible, and the window is half-open: it holds the
// intervals that start in [From, To). So adjacent windows [a, b) and
// [b, c) share no interval and together hold those of [a, c). The engine
// starts intervals every --display-every after the run's start, late by
// the run's setup and the scheduler (a few hundred microseconds or
// milliseconds, never early), so "--from 1m --to 2m" holds the intervals
// of that minute. A window shorter than an interval may hold none;
// Recompute then names the nearest window that holds one. Every rate of a
// view is per second of the time the intervals taken cover, never of the
// window's length.
//
// The engine ends an interval at the ramp-up's end (or, if one ended less
// than 10 ms before, takes the ramp-up to end there), and its live final
// figures count the intervals after it, so the zero Window of a completed
// run equals them exactly.
type Window struct {
	// From is where the window starts; unset means the ramp-up's end, or
	// the run's start if IncludeRamp is set or the run had no ramp-up.
	From Bound
	// To is where the window ends; unset means the run's end.
	To Bound
	// IncludeRamp, when From is unset, starts the window at the run's start
	// instead of the ramp-up's end.
	IncludeRamp bool
}

// String describes w as on the command line: "--from 30s --to 2m",
// "after the ramp-up" or "--include-ramp".
func (w Window) String() string {
	var parts []string
	switch {
	case w.From.IsSet():
		parts = append(parts, "--from "+w.From.flag())
	case w.IncludeRamp:
		parts = append(parts, "--include-ramp")
	}
	if w.To.IsSet() {
		parts = append(parts, "--to "+w.To.flag())
	}
	if !w.From.IsSet() && !w.IncludeRamp {
		parts = append(parts, "after the ramp-up")
	}
	return strings.Join(parts, " ")
}

// flag renders b as a command-line value: "30s" or an RFC 3339 time.
func (b Bound) flag() string {
	if !b.at.IsZero() {
		return b.at.Format(time.RFC3339Nano)
	}
	return b.offset.String()
}

// absolute reports whether b is an absolute instant.
func (b Bound) absolute() bool { return !b.at.IsZero() }

// takes reports whether the window [from, to) holds an interval that
// starts at start, that is whether it starts in it; a zero to is no upper
// bound.
func takes(start, from, to time.Time) bool {
	return !start.Before(from) && (to.IsZero() || start.Before(to))
}

// WindowError is a window that holds no interval of the runs because of
// how it was given: one that is empty (--from not before --to), lies
// outside the runs, or is too short to hold an interval's start. Its
// message says why in one line and, where it can, names the nearest window
// that holds an interval. The CLI reports it as a command-line error.
type WindowError struct {
	msg string
}

func (e *WindowError) Error() string { return e.msg }

func windowErrorf(format string, args ...any) *WindowError {
	return &WindowError{fmt.Sprintf(format, args...)}
}

// roundUnits are the steps, coarsest first, to which nearestWindow rounds
// the bounds it suggests.
var roundUnits = []time.Duration{
	time.Hour, time.Minute, 10 * time.Second, time.Second, 100 * time.Millisecond, 10 * time.Millisecond,
	time.Millisecond, 100 * time.Microsecond, 10 * time.Microsecond, time.Microsecond, 1,
}

// exactBound returns the roundest instant in (lo, hi] near target, which
// must lie in it, rendered as a --from/--to value: an RFC 3339 time if abs,
// otherwise an offset from start (never negative).
func exactBound(start, lo, hi, target time.Time, abs bool) string {
	in := func(t time.Time) bool {
		return t.After(lo) && !t.After(hi) && (abs || !t.Before(start))
	}
	for _, u := range roundUnits {
		var t time.Time
		if abs {
			t = target.Round(u)
		} else {
			t = start.Add(target.Sub(start).Round(u))
		}
		if in(t) {
			if abs {
				return t.UTC().Format(time.RFC3339Nano)
			}
			return t.Sub(start).String()
		}
	}
	if abs {
		return target.UTC().Format(time.RFC3339Nano)
	}
	return target.Sub(start).String()
}

// nearestWindow returns the exact window, as "--from X --to Y", that holds
// interval k of ivs alone, with rounded bounds: any From after the start of
// the interval before k and up to k's start, and any To after k's start
// and up to the next one's, hold k alone.
func nearestWindow(start time.Time, ivs []runlog.Interval, k int, w Window) string {
	// Before the first interval and after the last, stay within half an
	// interval of it.
	half := ivs[k].End.Sub(ivs[k].Start) / 2
	lo, hi := ivs[k].Start.Add(-half), ivs[k].End.Add(half)
	if k > 0 {
		lo = ivs[k-1].Start
	}
	if k+1 < len(ivs) {
		hi = ivs[k+1].Start
	}
	from := exactBound(start, lo, ivs[k].Start, ivs[k].Start, w.From.absolute())
	to := exactBound(start, ivs[k].Start, hi, ivs[k].End, w.To.absolute())
	return "--from " + from + " --to " + to
}

// shortDuration rounds d for a message: to the millisecond from 10 ms up,
// otherwise to the microsecond.
func shortDuration(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}
