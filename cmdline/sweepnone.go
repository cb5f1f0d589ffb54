package cmdline

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sweep"
)

// noneFlag reports whether name is a limit flag whose sweep takes none,
// a step without the limit: `sweep churn --io-write-bps none,5M` runs a
// step without the limit, then one with it; `--cpus 0.5,1,none`.
func noneFlag(name string) bool { return sweep.Param(name).TakesNone() }

// noneValue is the step value that stands for none: no limit.
const noneValue = sweep.NoneValue

// noneList parses a list of values holding none (a step without the
// limit, noneValue) for limit flag name: sizes (5M) for the byte limits,
// cores (0.5) for --cpus, operations per second for the IOPS limits; ok
// is false when text holds no none. A range with none is refused: none
// is no value to step from.
func noneList(name, text string) (vals sweep.Values, ok bool, err error) {
	parts := strings.Split(text, ",")
	all := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ':' })
	if !noneFlag(name) || !slices.ContainsFunc(all, func(p string) bool { return strings.TrimSpace(p) == "none" }) {
		return vals, false, nil
	}
	if strings.Contains(text, ":") {
		return vals, true, usagef("--%s %s: none (no limit) goes in a list of values, as none,%s, not in a range", name, text, noneExample(name))
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "none" {
			vals.List = append(vals.List, noneValue)
			continue
		}
		v, err := limitValue(name, p)
		if err != nil {
			return vals, true, usagef("--%s %s: %v", name, text, err)
		}
		vals.List = append(vals.List, v)
	}
	for i, v := range vals.List {
		if slices.Contains(vals.List[:i], v) {
			return vals, true, usagef("--%s %s: %s twice; give each value once", name, text, sweep.Param(name).Text(v))
		}
	}
	vals.Lo, vals.Hi = slices.Min(vals.List), slices.Max(vals.List)
	return vals, true, nil
}

// limitValue parses one value of limit flag name besides none.
func limitValue(name, p string) (float64, error) {
	if sweep.Param(name).Size() {
		n, err := limit.ParseSize(p)
		return float64(n), err
	}
	v, err := strconv.ParseFloat(p, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not a number or none", p)
	case v <= 0:
		return 0, fmt.Errorf("%s is not positive: give none for a step without the limit", p)
	case name != "cpus" && v != math.Trunc(v):
		return 0, fmt.Errorf("%s is not a whole number of operations per second", p)
	}
	return v, nil
}

// noneExample is a value of limit flag name, for messages.
func noneExample(name string) string {
	switch {
	case sweep.Param(name).Size():
		return "5M"
	case name == "cpus":
		return "1"
	}
	return "500"
}

// stepValue is the flag's text for a step's value v: the flag's default
// (no limit) for none.
func stepValue(vf *valuesFlag, v float64) string {
	if v == noneValue && vf.none {
		return vf.def
	}
	return sweep.Format(v)
}

// diskFlags returns the disk flags (--io-path, --io-device) given with IO
// limit flag name, by name: a step without the limit (none) leaves them
// unset, since a disk without a limit is refused.
func diskFlags(fs *pflag.FlagSet, name string) map[string]string {
	if !strings.HasPrefix(name, "io-") {
		return nil
	}
	out := map[string]string{}
	for _, d := range []string{"io-path", "io-device"} {
		if fl := fs.Lookup(d); fl != nil && fl.Changed {
			out[d] = fl.Value.String()
		}
	}
	return out
}

// compareNone prints, after a sweep of a limit flag with none (a step
// without the limit) and one other value, the two steps side by side as
// `stampede compare` prints two runs: each operation's throughput and
// latency, the workload's figures (churn's rows/s), the limits and the
// telemetry (the watched backends' dirtied MB/s). The sweep's table has
// a row per step; this is the experiment's comparison.
func compareNone(w io.Writer, res *sweep.Result) error {
	if res == nil || len(res.Steps) != 2 || res.Steps[0].Dir == "" || res.Steps[1].Dir == "" {
		return nil
	}
	var runs [2]*runlog.Run
	for i, st := range res.Steps {
		r, err := runlog.Open(st.Dir)
		if err != nil {
			return fmt.Errorf("reading step %d's run to compare the steps: %w", i+1, err)
		}
		runs[i] = r
	}
	c, views, err := results.CompareBy(runs[0], runs[1], "")
	if err != nil {
		return fmt.Errorf("comparing the steps: %w", err)
	}
	output.CompareFigures(&c, runs, views)
	fmt.Fprintf(w, "\nstep 1 (A) against step 2 (B), as `stampede compare %s %s` prints them:\n", res.Steps[0].RunID, res.Steps[1].RunID)
	return output.Comparison(w, c)
}
