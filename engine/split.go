package engine

import (
	"sync/atomic"
	"time"
)

// Split divides each operation's figures by group: the endpoint (or the
// locality) of the connection a worker used for it. Each group has a
// part of every operation series (stats.Registry.AddSeries with the
// operation as parent), so the operation's own series still holds every
// operation exactly once, and the parts add up to it.
//
// A worker's cell says which group its connection is in at the moment
// (sqlx keeps it as the connection moves between endpoints); the engine
// reads it when an operation ends and records the operation, its failure
// or the latencies its Recorder gets into that group's part. Under a rate
// schedule only the operation's headline series (from the intended
// start) is split; its service time and lag are not.
//
// A Split costs an atomic load and a table lookup per operation; without
// one (nil Cell) the engine records as it always does.
type Split struct {
	// Cell returns worker w's cell; it is called once per worker, from
	// the worker's goroutine. A cell holds an index into Bases, or -1 when
	// the worker has no connection yet (its operations then count in the
	// operation's own series only). A nil Cell, or a nil cell, turns the
	// split off for that worker.
	Cell func(worker int) *atomic.Int32
	// Bases maps a cell's value to the registry series of the group's
	// first part: operation i of the group is series Bases[k]+Offsets[i],
	// and -1 means no group. The table may be replaced with a longer one
	// during the run, but before any cell holds one of its new indexes.
	Bases *atomic.Pointer[[]int32]
	// Offsets gives each operation's place among a group's parts, or -1
	// for an operation that is not split (it counts in its own series
	// only). Nil means every operation, in order.
	Offsets []int32
}

// grouped returns the series of operation op in the group of cell, or op
// when the cell names no group.
func (s *Split) grouped(cell *atomic.Int32, op int) int {
	k := cell.Load()
	if k < 0 {
		return op
	}
	off := int32(op)
	if s.Offsets != nil {
		if off = s.Offsets[op]; off < 0 {
			return op
		}
	}
	if t := s.Bases.Load(); t != nil && int(k) < len(*t) {
		if b := (*t)[k]; b >= 0 {
			return int(b + off)
		}
	}
	return op
}

// splitRecorder is the Recorder of a worker whose figures are split: its
// operations and handled failures go to the group of its connection.
type splitRecorder struct {
	recorder
	split *Split
	cell  *atomic.Int32
}

// Record implements workload.Recorder.
func (rc splitRecorder) Record(op int, d time.Duration) {
	rc.Handle.Record(rc.split.grouped(rc.cell, op), d)
}

// RecordPartError implements workload.PartErrorRecorder.
func (rc splitRecorder) RecordPartError(op int) {
	rc.Handle.RecordError(rc.split.grouped(rc.cell, op))
}

// RecordError implements workload.Recorder.
func (rc splitRecorder) RecordError(op int, err error) {
	rc.recordError(rc.split.grouped(rc.cell, op), op, err)
}
