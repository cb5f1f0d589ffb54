// Package results is stampede's batch layer: it recomputes exact views of
// one or more runs from their run directories (the master dataset written by
// package runlog), such as the final figures of a run, of a time window of
// it, or of several client machines that ran parts of one benchmark at the
// same time.
//
// Views are recomputed, never taken from summary.json: the per-interval
// HDR histograms of intervals.hlog are merged exactly and the counts of
// intervals.ndjson summed, so a view of a completed run equals the run's
// live final figures, and a view of a killed run is what it measured up to
// its last complete interval.
//
// results knows nothing about SQL and formats nothing; it imports runlog and
// stats only. Reading never modifies a run directory.
package results
