package results

import (
	"fmt"
	"time"
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

// Window selects the part of each run a view covers. The zero Window covers
// each run from the end of its ramp-up (or its start, if it had none) to its
// end. A Window is a plain value and safe for concurrent reads.
//
// Intervals are indivisible: an interval is in the window when it ends after
// From and starts before To, and then all its operations count, while the
// view's period is clipped to the window. The engine ends an interval at
// the ramp-up's end (unless the ticker ended one less than 10 ms before),
// and its live final figures count the intervals after it, so the default
// view of a completed run equals them and holds no more than 10 ms of
// ramp-up.
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
