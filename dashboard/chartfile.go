package dashboard

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// WriteChart draws runs into the --chart file path of report (labels
// nil) or compare (labels A, B) and says where on log: a .html or .htm
// path gets the dashboard's page with the data in it (WriteStatic), .svg
// and .png package chart's drawing (output.Chart). An extension of no
// format is an error matching chart.ErrFormat.
func WriteChart(path string, runs []*runlog.Run, views []results.View, labels []string, printed []error, by string, log io.Writer) error {
	if !chart.IsHTML(path) {
		if err := output.Chart(path, runs, views, labels, printed, log, by); err != nil {
			return err
		}
		fmt.Fprintf(log, "chart saved in %s\n", path)
		return nil
	}
	verb := "report"
	if labels != nil {
		verb = "compare"
	}
	var buf bytes.Buffer
	if err := WriteStatic(&buf, runs, views, by, "stampede "+verb+" --chart"); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	fmt.Fprintf(log, "chart saved in %s (the dashboard's page, self-contained: open it in a browser)\n", path)
	return nil
}
