package ycsb

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

// The statuses of an operation, as YCSB's JDBC binding reports them.
const (
	statusOK = iota
	// statusNotFound is a read that found no row.
	statusNotFound
	// statusUnexpected is an update that changed no row (the binding's
	// UNEXPECTED_STATE).
	statusUnexpected
	// statusError is a statement that failed.
	statusError
	numStatuses
)

// statusNames are YCSB's names of the statuses, indexed by status.
var statusNames = [numStatuses]string{"OK", "NOT_FOUND", "UNEXPECTED_STATE", "ERROR"}

// opStatuses are the failure statuses each operation can have (a
// read-modify-write fails only in its parts).
var opStatuses = [numOps][]int{
	opRead:   {statusNotFound, statusError},
	opUpdate: {statusUnexpected, statusError},
	opInsert: {statusError},
	opScan:   {statusError},
	opDelete: {statusUnexpected, statusError},
}

// statusOf is the status of op's error err.
func statusOf(op int, err error) int {
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, ErrNotFound) && op == opRead:
		return statusNotFound
	case errors.Is(err, ErrNotFound) && (op == opUpdate || op == opDelete):
		return statusUnexpected
	}
	return statusError
}

// PartSep separates an operation from what its series holds of it: a
// failure status ("read/not_found"), a part of a larger operation
// ("read-modify-write/read") or another measure of it
// ("scan/per-record"). Such series never count towards a run's total (see
// package results).
const PartSep = "/"

// seriesLayout is the workload's series (QueryLoad.Ops) beyond the
// operations themselves, which come first, indexed by op:
//
//	read update insert scan read-modify-write     the operations that succeeded
//	read/not_found read/error update/unexpected_state update/error
//	insert/error scan/error                        failed operations, by status
//	read-modify-write/read read-modify-write/update
//	read-modify-write/read/not_found ...           a read-modify-write's parts
//	scan/per-record                                a scan's latency per row
//
// A failed operation's latency is recorded in its status's series, as
// YCSB records it under READ-FAILED, and it counts as an error of the
// operation's series. A read-modify-write is recorded whole under its own
// series, and its read and update under its parts (YCSB counts them in
// READ and UPDATE too; --output-style ycsb merges them there), whatever
// their status: YCSB's read-modify-write never fails as a whole.
type seriesLayout struct {
	names   []string
	classes []workload.OpClass
	// fail[op][status] is the series of op's failures with status (0
	// where op cannot fail so).
	fail [numOps][numStatuses]int
	// part[p] and partFail[p][status] are the series of a
	// read-modify-write's part p (opRead or opUpdate).
	part     [2]int
	partFail [2][numStatuses]int
	// perRecord is the series of a scan's latency per row returned.
	perRecord int
}

// layout is the series layout, the same for every run.
var layout = newSeriesLayout()

func newSeriesLayout() *seriesLayout {
	l := &seriesLayout{}
	add := func(name string, class workload.OpClass) int {
		l.names = append(l.names, name)
		l.classes = append(l.classes, class)
		return len(l.names) - 1
	}
	for _, name := range opNames {
		add(name, workload.ClassTransaction)
	}
	for op, statuses := range opStatuses {
		for _, st := range statuses {
			l.fail[op][st] = add(opNames[op]+PartSep+strings.ToLower(statusNames[st]), workload.ClassTransaction)
		}
	}
	for p, op := range []int{opRead, opUpdate} {
		class := workload.ClassRead
		if op == opUpdate {
			class = workload.ClassWrite
		}
		prefix := opNames[opReadModifyWrite] + PartSep + opNames[op]
		l.part[p] = add(prefix, class)
		for _, st := range opStatuses[op] {
			l.partFail[p][st] = add(prefix+PartSep+strings.ToLower(statusNames[st]), class)
		}
	}
	l.perRecord = add(opNames[opScan]+PartSep+"per-record", workload.ClassOther)
	if len(l.names) > numSeries {
		panic("ycsb: more series than numSeries")
	}
	return l
}

// Figures implements the Figurer interface: the operations' statuses as
// YCSB counts them ([READ], Return=OK, 9950), a read-modify-write's read
// and update counting among the reads and updates. counts are the run's
// operations by series.
func (g *ycsb) Figures(counts map[string]int64, _ time.Duration) []workload.Figure {
	var figs []workload.Figure
	for _, op := range []int{opRead, opUpdate, opInsert, opScan, opDelete} {
		byStatus := [numStatuses]int64{statusOK: counts[opNames[op]]}
		for _, st := range opStatuses[op] {
			byStatus[st] = counts[layout.names[layout.fail[op][st]]]
		}
		for p, partOp := range []int{opRead, opUpdate} {
			if partOp != op {
				continue
			}
			byStatus[statusOK] += counts[layout.names[layout.part[p]]]
			for _, st := range opStatuses[op] {
				byStatus[st] += counts[layout.names[layout.partFail[p][st]]]
			}
		}
		for st, n := range byStatus {
			if n > 0 {
				figs = append(figs, workload.Figure{
					Name:  strings.ReplaceAll(opNames[op], "-", "_") + "_return_" + strings.ToLower(statusNames[st]),
					Value: float64(n),
					Text:  fmt.Sprintf("%d ([%s], Return=%s)", n, strings.ToUpper(opNames[op]), statusNames[st]),
				})
			}
		}
	}
	return append(figs, batchedFigure(counts)...)
}

var _ workload.ErrorFigurer = (*ycsb)(nil)

// ErrorFigures implements workload.ErrorFigurer: with --stop-on-error, the
// failures the engine counted (with --tolerate-errors the run went on) as
// YCSB's Return=ERROR of their operation, as YCSBMeasure reports them.
func (g *ycsb) ErrorFigures(errors map[string]int64) []workload.Figure {
	if !g.stopOnError {
		return nil // failures are recorded by status (Figures)
	}
	var figs []workload.Figure
	for _, op := range []int{opRead, opUpdate, opInsert, opScan, opDelete, opReadModifyWrite} {
		if n := errors[opNames[op]]; n > 0 {
			figs = append(figs, workload.Figure{
				Name:  strings.ReplaceAll(opNames[op], "-", "_") + "_return_error",
				Value: float64(n),
				Text:  fmt.Sprintf("%d ([%s], Return=ERROR)", n, strings.ToUpper(opNames[op])),
			})
		}
	}
	return figs
}

// YCSBMeasure implements the YCSBMeasurer interface: YCSB's READ holds
// the reads and the reads of read-modify-writes; READ-FAILED (or
// READ-NOT_FOUND with reportlatencyforeacherror) the failed ones, counted
// under READ's Return=NOT_FOUND; SCAN-LATENCY-PER-RECORD a scan's latency
// per row.
func (g *ycsb) YCSBMeasure(series string) workload.YCSBMeasure {
	eachError := false
	if _, c := fromGenerator(g); c != nil {
		eachError = c.reportEachError
	}
	if m, ok := batchedMeasure(series); ok {
		return m
	}
	if series == cleanupSeries {
		return workload.YCSBMeasure{Latency: "CLEANUP"}
	}
	if series == layout.names[layout.perRecord] {
		return workload.YCSBMeasure{Latency: "SCAN-LATENCY-PER-RECORD", OpOnly: true}
	}
	if series == opNames[opReadModifyWrite] {
		m := workload.YCSBMeasure{Latency: "READ-MODIFY-WRITE"}
		if g.stopOnError {
			// Its read and update count under READ and UPDATE; a
			// failure the engine counted, under its own name.
			m.Counted, m.Errors = "READ-MODIFY-WRITE", "ERROR"
		}
		return m
	}
	name := strings.TrimPrefix(series, opNames[opReadModifyWrite]+PartSep)
	op, status, failed := strings.Cut(name, PartSep)
	m := workload.YCSBMeasure{Latency: strings.ToUpper(op), Counted: strings.ToUpper(op), Status: "OK"}
	if failed {
		m.Status = strings.ToUpper(status)
		if eachError {
			m.Latency += "-" + m.Status
		} else {
			m.Latency += "-FAILED"
		}
	} else if g.stopOnError {
		// A failure ends the run, or with --tolerate-errors is counted by
		// the engine: YCSB's Return=ERROR.
		m.Errors = "ERROR"
	}
	return m
}

// cleanupSeries is the series of the workers' cleanups, YCSB's
// [CLEANUP] (a part, not an operation: it counts in no total).
const cleanupSeries = "worker" + PartSep + "cleanup"

var (
	_ workload.YCSBCleanupMeasurer = (*ycsb)(nil)
	_ workload.TableAdopter        = (*ycsb)(nil)
)

// AdoptsTables implements the TableAdopter interface: YCSB's JDBC
// binding has its users create usertable, which init then loads into
// when it is empty and of the binding's shape.
func (g *ycsb) AdoptsTables() bool { return true }

// MeasureCleanup implements the YCSBCleanupMeasurer interface: the runs
// to come time each worker's cleanup under cleanupSeries.
func (g *ycsb) MeasureCleanup() { g.measureCleanup = true }

// YCSBPercentiles implements the YCSBMeasurer interface:
// hdrhistogram.percentiles.
func (g *ycsb) YCSBPercentiles() []float64 {
	if _, c := fromGenerator(g); c != nil {
		return append([]float64(nil), c.percentiles...)
	}
	return nil
}
