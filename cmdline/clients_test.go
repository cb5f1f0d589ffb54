package cmdline

import (
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestParseStartAt(t *testing.T) {
	now := time.Date(2026, 11, 26, 6, 30, 40, 500e6, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		err  string
	}{
		{in: "2026-11-26T07:00:00Z", want: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)},
		{in: "2026-11-26T08:00:00+01:00", want: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)},
		{in: "1795674600", want: time.Unix(1795674600, 0)},
		{in: "next:1m", want: time.Date(2026, 11, 26, 6, 31, 0, 0, time.UTC)},
		{in: "next:10s", want: time.Date(2026, 11, 26, 6, 30, 50, 0, time.UTC)},
		{in: "next:1h", want: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)},
		{in: "tomorrow", err: "--start-at tomorrow is not a time; give an RFC 3339 time"},
		{in: "next:1ms", err: "the period is not a duration from 1s to 24h"},
		{in: "next:x", err: "the period is not a duration"},
		{in: "2026-11-28T07:00:00Z", err: "more than a day: check its date and time zone"},
		{in: "-5", err: "is not a time"},
		{in: "NaN", err: "is not a time"},
		// Far away: the date in plain words, not a capped duration.
		{in: "99999999999", err: "--start-at 99999999999 is 5138-11-16T09:46:39Z, more than a month away"},
		{in: "1000", err: "--start-at 1000 is 1970-01-01T00:16:40Z, more than a month in the past"},
		{in: "2026-12-06T07:00:00Z", err: "is 240h29m20s away, more than a day"},
	} {
		got, err := ParseStartAt(tc.in, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
	// Two clients reading their clocks a few seconds apart in one period
	// pick the same instant; one more than a second before it, the next.
	a, _ := ParseStartAt("next:30s", time.Date(2026, 11, 26, 6, 30, 31, 0, time.UTC))
	b, _ := ParseStartAt("next:30s", time.Date(2026, 11, 26, 6, 30, 58, 0, time.UTC))
	if !a.Equal(b) || !a.Equal(time.Date(2026, 11, 26, 6, 31, 0, 0, time.UTC)) {
		t.Errorf("next:30s from :31 and :58: %v and %v", a, b)
	}
	if c, _ := ParseStartAt("next:30s", time.Date(2026, 11, 26, 6, 30, 59, 500e6, time.UTC)); !c.Equal(time.Date(2026, 11, 26, 6, 31, 30, 0, time.UTC)) {
		t.Errorf("next:30s half a second before a period: %v, want the one after", c)
	}
}

func TestClientFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{args: []string{"--clients", "4", "--client-index", "3"}},
		{args: []string{"--clients", "1"}},
		{args: []string{"--clients", "4"}, err: "--clients 4 needs --client-index: give this client's index, from 0 to 3, a different one on each client"},
		{args: nil},
		{args: []string{"--client-index", "1"}, err: "--client-index 1 needs --clients"},
		{args: []string{"--clients", "0"}, err: "--clients 0: give the number of clients"},
		{args: []string{"--clients", "4", "--client-index", "4"}, err: "--client-index 4: give this client's index, from 0 to 3 (--clients 4)"},
		{args: []string{"--clients", "4", "--client-index", "-1"}, err: "--client-index -1"},
		{args: []string{"--start-at", "soon"}, err: "--start-at soon is not a time"},
		{args: []string{"--start-at", ""}, err: "--start-at '' is empty"},
		{args: []string{"--start-at="}, err: "--start-at '' is empty"},
	} {
		var c ClientFlags
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		c.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := c.Resolve(fs, time.Now())
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.err)
		}
	}
}

// TestClientsRangeSaid: a --clients too large for any number says the
// flag's own range (1 to 100000), not the int type's.
func TestClientsRangeSaid(t *testing.T) {
	for _, tc := range []struct {
		register func(fs *pflag.FlagSet)
		want     string
	}{
		{func(fs *pflag.FlagSet) { new(ClientFlags).Register(fs) }, "--clients=99999999999999999999 is out of range: give a whole number from 1 to 100000"},
		{func(fs *pflag.FlagSet) { fs.Int("rows", 0, ""); SetRange(fs, "rows", 1, math.MaxInt64) }, "--rows=99999999999999999999 is too large for any number: give a whole number of at least 1"},
	} {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		tc.register(fs)
		name := "--clients"
		if fs.Lookup("rows") != nil {
			name = "--rows"
		}
		err := FlagValueError(fs.Parse([]string{name, "99999999999999999999"}))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

// TestBoolFlagValueError: a boolean flag's value that strconv.ParseBool
// refuses is named, with the two values it takes, not strconv's text.
func TestBoolFlagValueError(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--force-drop=maybe", `invalid value "maybe" for --force-drop: give true or false`},
		{"--force-drop=yes", `invalid value "yes" for --force-drop: give true or false`},
		{"--force-drop=2", `invalid value "2" for --force-drop: give true or false`},
		{"--force-drop=", `invalid value "" for --force-drop: give true or false`},
	} {
		fs := pflag.NewFlagSet("cleanup", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Bool("force-drop", false, "")
		err := FlagValueError(fs.Parse([]string{tc.arg}))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.arg, err, tc.want)
		}
	}
}
