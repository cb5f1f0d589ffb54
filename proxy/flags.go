package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// faultFlags are the command-line flags for Faults, named as the keys
// Faults.Set takes.
var faultFlags = []struct {
	name, typ, usage string
}{
	{"latency", "duration", "added to every round trip (the server's replies are held back), whole ms: 30ms"},
	{"jitter", "duration", "each reply's delay varies within ±jitter (at most --latency): 5ms"},
	{"bandwidth", "rate", "limit on each direction of each connection, bytes per second: 500KB/s, 10MB/s"},
	{"reset", "", "reset connections (TCP RST) once the server replies"},
	{"reset-after", "duration", "reset each connection this long after the server's first reply (implies --reset)"},
	{"reset-fraction", "fraction", "reset only this fraction of connections, 0-1 (implies --reset)"},
	{"stall", "", "let no data through either way, as a network partition does"},
	{"stall-timeout", "duration", "close stalled connections after this long (implies --stall)"},
	{"down", "", "refuse connections and close open ones, as a node that went away"},
}

// faultValue is a fault flag's value: checked by Faults.Set and on its
// own (Faults.checkValues) when parsed, kept as given.
type faultValue struct {
	name, typ, v string
}

func (f *faultValue) String() string { return f.v }
func (f *faultValue) Type() string   { return f.typ }

func (f *faultValue) Set(v string) error {
	var scratch Faults
	if err := scratch.Set(f.name, v); err != nil {
		_, msg, _ := strings.Cut(err.Error(), ": ")
		return errors.New(msg)
	}
	if err := scratch.checkValues(); err != nil {
		return err
	}
	f.v = v
	return nil
}

// AddFlags registers the fault flags (--latency, --jitter, --bandwidth,
// --reset, --reset-after, --reset-fraction, --stall, --stall-timeout,
// --down) on fs.
func AddFlags(fs *pflag.FlagSet) {
	for _, f := range faultFlags {
		if f.typ == "" {
			fs.Bool(f.name, false, f.usage)
		} else {
			fs.Var(&faultValue{name: f.name, typ: f.typ}, f.name, f.usage)
		}
	}
}

// FromFlags applies the fault flags set on the command line to base, in
// the order of AddFlags, and validates the result.
func FromFlags(fs *pflag.FlagSet, base Faults) (Faults, bool, error) {
	changed := false
	for _, f := range faultFlags {
		fl := fs.Lookup(f.name)
		if fl == nil || !fl.Changed {
			continue
		}
		changed = true
		if err := base.Set(f.name, fl.Value.String()); err != nil {
			return base, changed, fmt.Errorf("--%v", err)
		}
	}
	return base, changed, base.Validate()
}
