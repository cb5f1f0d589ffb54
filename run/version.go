package run

import "runtime/debug"

// Version is stampede's version, set at build time with
// -ldflags "-X github.com/stampede-bench/stampede/run.Version=v1.2.3".
var Version = "0.1.0-dev"

// VersionString returns Version with the VCS revision when the build
// recorded one, as run.json and the run's first line show it.
func VersionString() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}
