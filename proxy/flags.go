package proxy

import (
	"fmt"

	"github.com/spf13/pflag"
)

// faultFlags are the command-line flags for Faults, named as the keys
// Faults.Set takes.
var faultFlags = []struct {
	name, usage string
	bool        bool
}{
	{name: "latency", usage: "added to every round trip (the server's replies are held back), whole ms: 30ms"},
	{name: "jitter", usage: "each reply's delay varies within ±jitter (at most --latency): 5ms"},
	{name: "bandwidth", usage: "limit on each direction of each connection, bytes per second: 500KB/s, 10MB/s"},
	{name: "reset", usage: "reset connections (TCP RST) once the server replies", bool: true},
	{name: "reset-after", usage: "reset each connection this long after the server's first reply (implies --reset)"},
	{name: "reset-fraction", usage: "reset only this fraction of connections, 0-1 (implies --reset)"},
	{name: "stall", usage: "let no data through either way, as a network partition does", bool: true},
	{name: "stall-timeout", usage: "close stalled connections after this long (implies --stall)"},
	{name: "down", usage: "refuse connections and close open ones, as a node that went away", bool: true},
}

// AddFlags registers the fault flags (--latency, --jitter, --bandwidth,
// --reset, --reset-after, --reset-fraction, --stall, --stall-timeout,
// --down) on fs.
func AddFlags(fs *pflag.FlagSet) {
	for _, f := range faultFlags {
		if f.bool {
			fs.Bool(f.name, false, f.usage)
		} else {
			fs.String(f.name, "", f.usage)
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
