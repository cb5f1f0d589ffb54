package cmdline

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"
	"strings"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sweep"
)

// noneFlags are the swept limit flags whose "no limit" a step may take as
// the value none: `sweep churn --io-write-bps none,5M` runs a step without
// the limit, then one with it.
var noneFlags = map[string]bool{"io-read-bps": true, "io-write-bps": true, "memory": true}

// noneValue is the step value that stands for none: no limit.
const noneValue = 0

// noneList parses a list of sizes holding none (a step without the limit,
// noneValue) for flag name; ok is false when text holds no none. A range
// with none is refused: none is no size to step from.
func noneList(name, text string) (vals sweep.Values, ok bool, err error) {
	parts := strings.Split(text, ",")
	all := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ':' })
	if !noneFlags[name] || !slices.ContainsFunc(all, func(p string) bool { return strings.TrimSpace(p) == "none" }) {
		return vals, false, nil
	}
	if strings.Contains(text, ":") {
		return vals, true, usagef("--%s %s: none (no limit) goes in a list of sizes, as none,5M, not in a range", name, text)
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "none" {
			vals.List = append(vals.List, noneValue)
			continue
		}
		n, err := limit.ParseSize(p)
		if err != nil {
			return vals, true, usagef("--%s %s: %v", name, text, err)
		}
		vals.List = append(vals.List, float64(n))
	}
	for i, v := range vals.List {
		if slices.Contains(vals.List[:i], v) {
			return vals, true, usagef("--%s %s: a value twice; give each once", name, text)
		}
	}
	vals.Hi = slices.Max(vals.List)
	return vals, true, nil
}

// stepValue is the flag's text for a step's value v: "" (no limit) for
// none.
func stepValue(vf *valuesFlag, name string, v float64) string {
	if v == noneValue && vf.size && noneFlags[name] {
		return ""
	}
	return sweep.Format(v)
}

// noneText names a step's value in messages.
func noneText(v float64) string {
	if v == noneValue {
		return "none"
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
