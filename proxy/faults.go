package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Faults are what a listener does to the traffic through it. The zero
// value passes traffic unchanged.
type Faults struct {
	// Latency is added to every round trip: the server's replies are held
	// back this long. Whole milliseconds (toxiproxy's unit).
	Latency Duration `json:"latency"`
	// Jitter varies each reply's delay uniformly within ±Jitter; at most
	// Latency.
	Jitter Duration `json:"jitter"`
	// Bandwidth limits each direction of each connection, in bytes per
	// second (whole KB/s, 1 KB = 1000 bytes); 0 means no limit.
	Bandwidth Rate `json:"bandwidth"`
	// Reset closes connections abruptly (TCP RST). With ResetAfter 0, a
	// connection is reset when the server's first reply reaches the
	// fault, and the client never gets that reply; with ResetAfter, the
	// replies pass and the connection is reset that long after the first
	// one. Only the fraction ResetFraction of connections (0 means all).
	// New connections are reset too, as long as the fault stays.
	Reset         bool     `json:"reset"`
	ResetAfter    Duration `json:"reset_after"`
	ResetFraction float64  `json:"reset_fraction"`
	// Stall stops all data in both directions, as a network partition
	// does: clients see a server that does not answer. With StallTimeout,
	// stalled connections are closed after it; without, they stay hung
	// until the stall is lifted, and are closed then.
	Stall        bool     `json:"stall"`
	StallTimeout Duration `json:"stall_timeout"`
	// Down stops the listener: new connections are refused and open ones
	// are closed, as when a node goes away.
	Down bool `json:"down"`
}

// Validate reports the first fault that toxiproxy cannot apply.
func (f Faults) Validate() error {
	if err := f.checkValues(); err != nil {
		return err
	}
	if f.Jitter > f.Latency {
		return fmt.Errorf("jitter %v is more than latency %v: a delay cannot be negative", time.Duration(f.Jitter), time.Duration(f.Latency))
	}
	return nil
}

// checkValues reports the first fault whose value toxiproxy cannot apply
// whatever the other faults are (Validate less the checks between
// faults): what a fault flag's value is checked against as it is parsed,
// before `proxy set` asks the proxy for the listener's other faults.
func (f Faults) checkValues() error {
	for _, d := range []struct {
		name string
		v    Duration
	}{{"latency", f.Latency}, {"jitter", f.Jitter}, {"reset-after", f.ResetAfter}, {"stall-timeout", f.StallTimeout}} {
		if d.v < 0 {
			return fmt.Errorf("%s %v: must not be negative", d.name, time.Duration(d.v))
		}
		if time.Duration(d.v)%time.Millisecond != 0 {
			return fmt.Errorf("%s %v: whole milliseconds only (toxiproxy's unit)", d.name, time.Duration(d.v))
		}
	}
	if f.Bandwidth < 0 {
		return fmt.Errorf("bandwidth %d: must not be negative", f.Bandwidth)
	}
	if f.Bandwidth > 0 && f.Bandwidth < 1000 {
		return fmt.Errorf("bandwidth %v: at least 1KB/s (toxiproxy's unit)", f.Bandwidth)
	}
	if f.ResetFraction < 0 || f.ResetFraction > 1 || math.IsNaN(f.ResetFraction) {
		return fmt.Errorf("reset-fraction %v: must be between 0 and 1", f.ResetFraction)
	}
	return nil
}

// String describes the faults in a few words ("none" for none).
func (f Faults) String() string {
	var parts []string
	if f.Down {
		parts = append(parts, "down")
	}
	if f.Latency > 0 {
		s := "latency " + f.Latency.String()
		if f.Jitter > 0 {
			s += " ±" + f.Jitter.String()
		}
		parts = append(parts, s)
	}
	if f.Bandwidth > 0 {
		parts = append(parts, "bandwidth "+f.Bandwidth.String())
	}
	if f.Reset {
		s := "reset"
		if f.ResetAfter > 0 {
			s += " after " + f.ResetAfter.String()
		}
		if f.ResetFraction > 0 && f.ResetFraction < 1 {
			s += fmt.Sprintf(" (%g of connections)", f.ResetFraction)
		}
		parts = append(parts, s)
	}
	if f.Stall {
		s := "stall"
		if f.StallTimeout > 0 {
			s += ", closing after " + f.StallTimeout.String()
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Set applies one fault given as key=value (the keys are the command
// line's flag names: latency, jitter, bandwidth, reset, reset-after,
// reset-fraction, stall, stall-timeout, down). A bare key is key=true.
func (f *Faults) Set(key, value string) error {
	var err error
	switch key {
	case "latency":
		err = f.Latency.Set(value)
	case "jitter":
		err = f.Jitter.Set(value)
	case "bandwidth":
		err = f.Bandwidth.Set(value)
	case "reset":
		f.Reset, err = parseBool(value)
	case "reset-after":
		if err = f.ResetAfter.Set(value); err == nil {
			f.Reset = true
		}
	case "reset-fraction":
		// A fraction of 0 given is refused: it would reset no
		// connection, which --reset contradicts, while the field's 0
		// (unset) means every connection.
		if f.ResetFraction, err = strconv.ParseFloat(value, 64); err != nil {
			err = errors.New("not a number (use e.g. 0.1 for 10% of connections)")
		} else if f.ResetFraction == 0 {
			err = errors.New("a fraction of 0 would reset no connection: give one above 0 and up to 1 (e.g. 0.1 for 10% of connections), or leave --reset out (--reset=false) to reset none")
		} else {
			f.Reset = true
		}
	case "stall":
		f.Stall, err = parseBool(value)
	case "stall-timeout":
		if err = f.StallTimeout.Set(value); err == nil {
			f.Stall = true
		}
	case "down":
		f.Down, err = parseBool(value)
	default:
		return fmt.Errorf("unknown fault %q: use latency, jitter, bandwidth, reset, reset-after, reset-fraction, stall, stall-timeout or down", key)
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %v", key, value, unquoteErr(err))
	}
	return nil
}

func parseBool(s string) (bool, error) {
	if s == "" {
		return true, nil
	}
	return strconv.ParseBool(s)
}

// unquoteErr drops strconv's "strconv.ParseFloat: parsing "x": " prefix.
func unquoteErr(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

// Duration is a time.Duration written in JSON as a string ("30ms").
type Duration time.Duration

// String implements fmt.Stringer.
func (d Duration) String() string { return time.Duration(d).String() }

// Set parses a Go duration ("30ms", "1.5s"); "0" is zero.
func (d *Duration) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not a duration (use e.g. 30ms or 2s)")
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON implements json.Unmarshaler: a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: give a duration as a string such as \"30ms\"", b)
	}
	if err := d.Set(s); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

// Rate is a bandwidth in bytes per second, written as "10MB/s".
type Rate int64

var rateUnits = []struct {
	suffix string
	mult   int64
}{
	{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3},
	{"g", 1e9}, {"m", 1e6}, {"k", 1e3}, {"b", 1},
}

// Set parses a rate: a number of bytes per second with an optional unit
// (B, KB, MB, GB in powers of 1000, KiB, MiB, GiB in powers of 1024) and
// an optional "/s": "500KB/s", "10MB", "1.5MiB/s". "0" is no limit.
func (r *Rate) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "/s")
	mult := int64(1)
	for _, u := range rateUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*float64(mult) > math.MaxInt64/2 {
		return fmt.Errorf("not a rate (use e.g. 500KB/s or 10MB/s)")
	}
	*r = Rate(math.Round(v * float64(mult)))
	return nil
}

// String writes the rate with the largest decimal unit that divides it.
func (r Rate) String() string {
	switch {
	case r == 0:
		return "0"
	case r%1e9 == 0:
		return fmt.Sprintf("%dGB/s", r/1e9)
	case r%1e6 == 0:
		return fmt.Sprintf("%dMB/s", r/1e6)
	case r%1e3 == 0:
		return fmt.Sprintf("%dKB/s", r/1e3)
	}
	return fmt.Sprintf("%dB/s", int64(r))
}

// MarshalJSON implements json.Marshaler.
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// UnmarshalJSON implements json.Unmarshaler: a rate string, or a number
// of bytes per second.
func (r *Rate) UnmarshalJSON(b []byte) error {
	var n int64
	if json.Unmarshal(b, &n) == nil {
		*r = Rate(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: give a rate such as \"10MB/s\"", b)
	}
	if err := r.Set(s); err != nil {
		return fmt.Errorf("%q: %v", s, err)
	}
	return nil
}

// DefaultAPI is the address of the proxy's API when --api is not given.
const DefaultAPI = "127.0.0.1:8474"

// DownWarning returns the warning for listener name whose faults f put it
// down with other faults besides ("" otherwise): a listener that is down
// passes no traffic to delay, throttle or reset, so the other faults do
// nothing until it is up again, which it can only be through the API at
// api ("off": the proxy runs without one, so it stays down). The command
// it suggests names api unless it is DefaultAPI.
func DownWarning(name string, f Faults, api string) string {
	rest := f
	if rest.Down = false; !f.Down || rest == (Faults{}) {
		return ""
	}
	if api == "off" {
		return fmt.Sprintf("listener %s is down, and with --api off stays so: its other faults (%s) do nothing", name, rest)
	}
	return fmt.Sprintf("listener %s is down, so its other faults (%s) do nothing until it is up again (`%s`)", name, rest, SetCommand(api, name, "--down=false"))
}

// SetCommand is the `stampede proxy set` command that changes listener
// name of the proxy whose API is at api with the given flags, naming
// --api unless it is DefaultAPI.
func SetCommand(api, name string, flags ...string) string {
	cmd := "stampede proxy set"
	if api != "" && api != DefaultAPI {
		cmd += " --api " + api
	}
	return strings.Join(append([]string{cmd, name}, flags...), " ")
}
