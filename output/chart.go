package output

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// Chart draws runs, with views[i] the figures of runs[i] and labels[i]
// (if labels is not nil) its name in the legend, into path, whose
// extension says the format (an error matching chart.ErrFormat
// otherwise). With by (run.ByEndpoint or run.ByLocality) the operations
// are drawn by endpoint or locality too, beside their own lines. Warnings
// of the runs' time series go to log, but for those already printed.
func Chart(path string, runs []*runlog.Run, views []results.View, labels []string, printed []error, log io.Writer, by string) error {
	format, err := chart.FormatOf(path)
	if err != nil {
		return fmt.Errorf("--chart %w", err)
	}
	seen := map[string]bool{}
	for _, w := range printed {
		seen[w.Error()] = true
	}
	in := chart.Input{}
	for i, r := range runs {
		s, err := results.TimeSeriesBy(r, by)
		if err != nil {
			return err
		}
		if by != "" {
			s.Ops = append(s.Ops, s.Endpoints...)
		}
		for _, w := range s.Warnings {
			if !seen[w] {
				seen[w] = true
				fmt.Fprintf(log, "warning: %s\n", strings.Join(strings.Fields(w), " "))
			}
		}
		r := chart.Run{Series: s, View: views[i]}
		for _, ws := range WorkloadSeriesOf([]*runlog.Run{runs[i]}) {
			r.Workload = append(r.Workload, chart.WorkloadSeries{Name: ws.Name, Unit: ws.Unit, At: ws.At, Values: ws.Values})
		}
		if labels != nil {
			r.Label = labels[i]
		}
		in.Runs = append(in.Runs, r)
	}
	var buf bytes.Buffer
	if err := chart.Write(&buf, format, in); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	return nil
}
