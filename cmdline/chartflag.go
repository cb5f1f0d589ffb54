package cmdline

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/chart"
)

// ChartFlag is --chart of report and compare: the file of the one chart
// they draw. It keeps every value given, so that a second --chart is
// refused rather than silently replacing the first.
type ChartFlag struct {
	paths []string
	// sweep says the chart is a sweep's: .svg or .png (its interactive
	// page is the dashboard's), which the messages name.
	sweep bool
}

var _ pflag.Value = (*ChartFlag)(nil)

// String implements pflag.Value.
func (c *ChartFlag) String() string {
	if len(c.paths) == 0 {
		return ""
	}
	return c.paths[len(c.paths)-1]
}

// Set implements pflag.Value.
func (c *ChartFlag) Set(v string) error {
	c.paths = append(c.paths, v)
	return nil
}

// Type implements pflag.Value.
func (c *ChartFlag) Type() string { return "string" }

// Path returns the chart's file ("" for none), refusing several --chart
// and a name that is not of a format (usage errors).
func (c *ChartFlag) Path() (string, error) {
	if len(c.paths) > 1 {
		return "", usagef("--chart given %d times (%s): one chart is drawn, into one file: give --chart once", len(c.paths), strings.Join(c.paths, ", "))
	}
	path := c.String()
	formats := ".svg, .png or .html"
	if c.sweep {
		formats = ".svg or .png"
	}
	if len(c.paths) == 1 && path == "" {
		return "", usagef("--chart '' names no file: give the chart's file (%s), or leave --chart out", formats)
	}
	if _, err := chart.FormatOf(path); path != "" && !chart.IsHTML(path) && err != nil {
		return "", usagef("--chart %s: use %s", path, formats)
	}
	return path, nil
}
