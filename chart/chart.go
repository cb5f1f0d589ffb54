package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/stampede-bench/stampede/results"
)

// Format is an output format of a chart.
type Format int

// The output formats.
const (
	// SVG is a standalone SVG image.
	SVG Format = iota + 1
	// PNG is a PNG image of the same drawing.
	PNG
)

// String returns "svg" or "png".
func (f Format) String() string {
	switch f {
	case SVG:
		return "svg"
	case PNG:
		return "png"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ErrFormat is FormatOf's error for an extension that names no format.
// (The interactive .html chart is the dashboard's page, written by package
// dashboard: see dashboard.WriteStatic.)
var ErrFormat = errors.New("use .svg or .png")

// FormatOf returns the format a file name's extension asks for: .svg or
// .png (in any case). Any other extension is an error matching ErrFormat.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	}
	return 0, fmt.Errorf("%s: %w", path, ErrFormat)
}

// IsHTML reports whether a chart file is a page (.html or .htm, in any
// case): the dashboard's page saved with its data (dashboard.WriteStatic),
// not a format of this package.
func IsHTML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".html" || ext == ".htm"
}

// Run is one run to chart.
type Run struct {
	// Series is the run's time series.
	Series results.Series
	// View is the run's figures over its report window (normally after
	// the ramp-up), shown in the title.
	View results.View
	// Label names the run in the legend before its ID, such as "A"; it
	// may be empty.
	Label string
	// Workload is the workload's own series over the run, read from its
	// run log's records (churn's database size, tables alive, rows/s and
	// bytes/s: output.WorkloadSeriesOf), a panel each, first among the
	// telemetry's panels as the dashboard's page draws them.
	Workload []WorkloadSeries
}

// WorkloadSeries is one of a workload's own series over a run: a value
// at each of At, in seconds since the run's start, in Unit ("bytes" and
// "bytes/s" are drawn as MB and MB/s, 10^6, as the run's figures print
// them).
type WorkloadSeries struct {
	Name   string
	Unit   string
	At     []float64
	Values []float64
}

// Input is what a chart shows. Runs share the time axis, each timed from
// its own start; with one run, colours tell operations (and other series)
// apart, with several, they tell runs apart.
type Input struct {
	// Title heads the chart; empty means the workload's name (and, with
	// several runs, "A vs B").
	Title string
	// Runs are the runs to draw, at least one.
	Runs []Run
}

// Write renders in in format f to w. The output depends only on in and f.
func Write(w io.Writer, f Format, in Input) error {
	if len(in.Runs) == 0 {
		return fmt.Errorf("chart: no run to draw")
	}
	fig := build(in)
	var buf bytes.Buffer
	var err error
	switch f {
	case SVG:
		err = writeSVG(&buf, fig)
	case PNG:
		err = writePNG(&buf, fig)
	default:
		return fmt.Errorf("chart: unknown format %v", f)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
