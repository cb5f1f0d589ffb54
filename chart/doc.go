// Package chart draws a run's time series (from results.TimeSeries) as a
// chart: panels stacked vertically on a shared time axis, for throughput,
// latency percentiles and, when the run recorded it, telemetry. Several runs
// are overlaid on the same axes, each timed from its own start. A run with
// nothing to draw gets the throughput panel's empty axes, "no data" in the
// plot and a note that says why.
//
// chart computes no statistics: it draws the figures package results
// computed. What a chart shows is chosen first, as a small model (model.go:
// panels, their lines, keys, error marks and notes); gonum.org/v1/plot then
// draws each panel as a plot, aligns their time axes (plot.Align) and
// renders them with its SVG (vg/vgsvg) and image (vg/vgimg) backends, at 96
// dots per inch: the PNG is 1000 pixels wide and the SVG 750 points, the
// same 1000 pixels in a browser. Text is in the Liberation Sans font that
// gonum/plot embeds; the SVG names metric-compatible fallbacks (Arimo,
// Arial) for viewers without it. The interactive chart (.html) is not
// drawn here: it is the dashboard's own page saved with its data (see
// dashboard.WriteStatic).
//
// Dependencies: gonum.org/v1/plot, a maintained plotting library of the
// Gonum project, for the axes, ticks, lines, keys and both backends
// (with its own dependencies: the Liberation fonts, svgo and an image
// rasteriser), in place of the layout code, SVG writer and rasteriser
// this package once held.
package chart
