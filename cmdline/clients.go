package cmdline

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/run"
)

// ClientFlags are run's flags for one client of several (run.Part).
type ClientFlags struct {
	clients int
	index   int
	startAt string
	// part is what Resolve made of them.
	part run.Part
}

// Register defines --clients, --client-index and --start-at on fs.
func (c *ClientFlags) Register(fs *pflag.FlagSet) {
	defer SetRange(fs, "clients", 1, 100000)
	fs.IntVar(&c.clients, "clients", 0, "this run is one of N clients of one benchmark (machines or pods started together): --max-rate and --max-ops are the benchmark's totals, of which it runs its share, with its own operation sequence and, for YCSB, its own keys to insert; of a fleet (--tenants), its share of the tenants and of --active")
	fs.IntVar(&c.index, "client-index", 0, "with --clients, this client's index from 0 (a Kubernetes indexed Job's $(JOB_COMPLETION_INDEX))")
	fs.StringVar(&c.startAt, "start-at", "", "start the workers at this time, once connected, so that several clients' intervals line up: RFC 3339 (2026-11-26T07:00:00Z), Unix seconds, or next:DURATION (the next multiple of it on the clock, such as next:1m)")
}

// Resolve checks the flags and computes the run's part; now is the
// present, for next:DURATION.
func (c *ClientFlags) Resolve(fs *pflag.FlagSet, now time.Time) error {
	switch {
	case fs.Changed("client-index") && !fs.Changed("clients"):
		return usagef("--client-index %d needs --clients: give the number of clients too", c.index)
	case fs.Changed("clients") && (c.clients < 1 || c.clients > 100000):
		return usagef("--clients %d: give the number of clients of the benchmark, from 1 to 100000", c.clients)
	case c.clients > 1 && !fs.Changed("client-index"):
		// Index 0 by default would have every client run client 0's
		// share: the same operations and keys.
		return usagef("--clients %d needs --client-index: give this client's index, from 0 to %d, a different one on each client", c.clients, c.clients-1)
	case c.clients > 0 && (c.index < 0 || c.index >= c.clients):
		return usagef("--client-index %d: give this client's index, from 0 to %d (--clients %d)", c.index, c.clients-1, c.clients)
	}
	c.part = run.Part{Index: c.index, Count: c.clients}
	if c.startAt == "" && fs.Changed("start-at") {
		return usagef("--start-at '' is empty: give an RFC 3339 time (2026-11-26T07:00:00Z), Unix seconds or next:DURATION (next:1m), or leave --start-at out to start at once")
	}
	if c.startAt == "" {
		return nil
	}
	at, err := ParseStartAt(c.startAt, now)
	if err != nil {
		return usagef("%v", err)
	}
	c.part.StartAt = at
	return nil
}

// maxStartWait bounds how far ahead --start-at may be: a start a day away
// is a mistake (a date, a time zone).
const maxStartWait = 24 * time.Hour

// ParseStartAt parses --start-at: an RFC 3339 time, Unix seconds, or
// next:DURATION (the next multiple of DURATION on the clock, as
// time.Truncate counts them, at least a second after now, so that clients
// launched within the same period start together without agreeing on a
// time).
func ParseStartAt(s string, now time.Time) (time.Time, error) {
	const help = "give an RFC 3339 time (2026-11-26T07:00:00Z), Unix seconds, or next:DURATION (next:1m)"
	var at time.Time
	switch {
	case strings.HasPrefix(s, "next:"):
		d, err := time.ParseDuration(strings.TrimPrefix(s, "next:"))
		if err != nil || d < time.Second || d > maxStartWait {
			return time.Time{}, fmt.Errorf("--start-at %s: the period is not a duration from 1s to 24h; %s", s, help)
		}
		// From 1s to d+1s ahead: every client that reads its clock in the
		// same period picks the same instant.
		at = now.Add(time.Second).Truncate(d).Add(d)
	default:
		if secs, err := strconv.ParseFloat(s, 64); err == nil {
			if math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 || secs > 1e11 {
				return time.Time{}, fmt.Errorf("--start-at %s is not a time; %s", s, help)
			}
			whole, frac := math.Modf(secs)
			at = time.Unix(int64(whole), int64(frac*1e9))
			break
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("--start-at %s is not a time; %s", s, help)
		}
		at = t
	}
	// Times compared, not their difference: a time.Duration stops at
	// 292 years, which it would print as the distance.
	switch d := at.Sub(now); {
	case at.After(now.Add(30 * maxStartWait)):
		return time.Time{}, fmt.Errorf("--start-at %s is %s, more than a month away (a start is at most a day away): check its date and time zone", s, at.UTC().Format(time.RFC3339))
	case d > maxStartWait:
		return time.Time{}, fmt.Errorf("--start-at %s is %s away, more than a day: check its date and time zone", s, d.Round(time.Second))
	case at.Before(now.Add(-30 * maxStartWait)):
		return time.Time{}, fmt.Errorf("--start-at %s is %s, more than a month in the past: check its date and time zone", s, at.UTC().Format(time.RFC3339))
	case d < -maxStartWait:
		return time.Time{}, fmt.Errorf("--start-at %s is %s in the past, more than a day: check its date and time zone", s, (-d).Round(time.Second))
	}
	return at, nil
}
