package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// telemetryRow is one telemetry figure of both runs in a comparison.
type telemetryRow struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// A and B are nil when the run has no such figure (no telemetry, or
	// a device or process group it did not watch).
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// Ratio is B/A, nil where A is 0 or missing.
	Ratio *float64 `json:"ratio"`
}

// compareLimits are the resource limits of both runs of a comparison, as
// their run.json records them (null: none).
type compareLimits struct {
	A json.RawMessage `json:"a"`
	B json.RawMessage `json:"b"`
}

// compareTelemetry recomputes both runs' telemetry over their windows and
// pairs the figures by name, in A's order then B's extra ones. Figures that
// are zero in both runs are left out. Limits are the runs' resource limits
// as run.json records them.
func compareTelemetry(runs [2]*runlog.Run, views [2]results.View) (rows []telemetryRow, limits [2]json.RawMessage, warnings []string, err error) {
	var names []string
	byName := [2]map[string]float64{{}, {}}
	units := map[string]string{}
	for i, run := range runs {
		limits[i] = run.Info.Limits
		sum, err := results.TelemetrySummary(run, views[i].From, views[i].To)
		if err != nil {
			if sum == nil {
				return nil, limits, nil, err
			}
			warnings = append(warnings, err.Error())
		}
		if sum == nil {
			continue
		}
		for _, f := range sum.Flat() {
			if _, seen := units[f.Name]; !seen {
				names = append(names, f.Name)
				units[f.Name] = f.Unit
			}
			byName[i][f.Name] = f.Value
		}
	}
	for _, name := range names {
		row := telemetryRow{Name: name, Unit: units[name]}
		if v, ok := byName[0][name]; ok {
			row.A = &v
		}
		if v, ok := byName[1][name]; ok {
			row.B = &v
		}
		if (row.A == nil || *row.A == 0) && (row.B == nil || *row.B == 0) {
			continue
		}
		if row.A != nil && row.B != nil && *row.A != 0 {
			r := *row.B / *row.A
			row.Ratio = &r
		}
		rows = append(rows, row)
	}
	return rows, limits, warnings, nil
}

// writeTelemetryComparison prints the limits and telemetry of both runs.
func writeTelemetryComparison(w io.Writer, rows []telemetryRow, limits [2]json.RawMessage) error {
	if len(limits[0]) > 0 || len(limits[1]) > 0 {
		fmt.Fprintln(w)
		for i, label := range []string{"A", "B"} {
			desc := "none"
			if len(limits[i]) > 0 {
				desc = describeLimitsJSON(limits[i])
			}
			fmt.Fprintf(w, "limits %s: %s\n", label, desc)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	table := [][]string{{"telemetry", "unit", "A", "B", "B/A"}}
	num := func(v *float64, unit string) string {
		switch {
		case v == nil:
			return "-"
		case unit == "bytes" || unit == "bytes/s":
			return report.Bytes(*v)
		}
		return strconv.FormatFloat(*v, 'f', decimals(*v), 64)
	}
	for _, r := range rows {
		ratio := "-"
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *r.Ratio)
		}
		table = append(table, []string{r.Name, r.Unit, num(r.A, r.Unit), num(r.B, r.Unit), ratio})
	}
	return writeTable(w, table, map[int]bool{2: true, 3: true, 4: true})
}

// decimals picks how many decimals a telemetry figure shows.
func decimals(v float64) int {
	switch a := max(v, -v); {
	case a >= 1000:
		return 0
	case a >= 10:
		return 1
	default:
		return 2
	}
}

// describeLimitsJSON renders run.json's limits on one line.
func describeLimitsJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
