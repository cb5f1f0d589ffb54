// Package chart draws a run's time series (from results.TimeSeries) as a
// chart: panels stacked vertically on a shared time axis, for throughput,
// latency percentiles and, when the run recorded it, telemetry. Several runs
// are overlaid on the same axes, each timed from its own start. A run with
// nothing to draw gets the throughput panel's empty axes, "no data" in the
// plot and a note that says why.
//
// chart computes no statistics: it draws the figures package results
// computed. The layout is built once as a small drawing model (rectangles,
// polylines and text) that two backends render: SVG written by hand, and
// PNG rasterised with the standard image packages. The HTML output is the
// SVG inline, with tooltips, and a table of each run's figures.
//
// Dependencies: no chart library. The drawing model needs three primitives,
// which hand-written SVG and a small anti-aliased rasteriser cover in a few
// hundred lines, while chart libraries bring their own layout, fonts and
// dependency trees. The only dependency beyond the standard library is
// golang.org/x/image (basicfont, a 7x13 bitmap font embedded in Go code, and
// the font drawing interface) to put text in PNGs, since the standard
// library has no font. Text is therefore ASCII; other characters are drawn
// as a replacement glyph in PNGs.
package chart
