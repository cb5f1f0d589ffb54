package sysbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// Header writes sysbench's first line and the blank line after it, with
// stampede's version where sysbench names its Lua engine.
func Header(w io.Writer, version string) {
	fmt.Fprintf(w, "sysbench %s (using stampede %s)\n\n", report.SysbenchVersion, version)
}

// Prepare makes spec, a load of threads loaders, sysbench's prepare:
// sysbench's version line on out now, its lines on out as the load goes
// (see PrepareLines), and of stampede's lines only the warnings, on
// errw.
func Prepare(spec *run.LoadSpec, threads int, out, errw io.Writer) {
	Header(out, run.VersionString())
	spec.Log, spec.Progress = &PrepareLog{W: errw}, nil
	spec.Steps = PrepareLines(out, spec.Workload.Meta().Name, threads)
}

// PrepareLines returns the load options by which a prepare of script in
// sysbench's form prints sysbench 1.0.20's lines on w as it goes
// (oltp_common.lua's create_table): each table created just before its
// load, "Creating table 'sbtestN'...", "Inserting N records into
// 'sbtestN'" and, before the index on k, "Creating a secondary index on
// 'sbtestN'...". With more than one thread, sysbench says "Initializing
// worker threads..." first, which PrepareLines writes, except for
// bulk_insert, whose prepare is not parallel: it creates the tables
// sbtest1..threads, one per thread of its run (LoadOptions.PrepareRun),
// saying "Creating table 'sbtestN'..." for each.
func PrepareLines(w io.Writer, script string, threads int) *workload.LoadOptions {
	if threads > 1 && script != "bulk_insert" {
		fmt.Fprint(w, "Initializing worker threads...\n\n")
	}
	var mu sync.Mutex
	return &workload.LoadOptions{CreateEach: true, PrepareRun: true, Step: func(st workload.LoadStep) {
		mu.Lock()
		defer mu.Unlock()
		switch st.Kind {
		case workload.StepCreate:
			fmt.Fprintf(w, "Creating table '%s'...\n", st.Table)
		case workload.StepLoad:
			fmt.Fprintf(w, "Inserting %d records into '%s'\n", st.Rows, st.Table)
		case workload.StepIndex:
			// The primary key, which sysbench declares inline, is added
			// after the load (see package workload/sysbench): silent,
			// as it is in sysbench.
			if strings.HasPrefix(st.Stmt, "CREATE INDEX k_") {
				fmt.Fprintf(w, "Creating a secondary index on '%s'...\n", st.Table)
			}
		}
	}}
}

// Cleanup is sysbench's cleanup of spec's workload: sysbench's version
// line and "Dropping table 'sbtestN'..." on out for every table sysbench's
// cleanup names, whether it exists or not, as sysbench's DROP TABLE IF
// EXISTS does: sbtest1..--tables, or for bulk_insert sbtest1..threads
// (its prepare's, at least 1; the tables of runs with more threads stay,
// as they do in sysbench). What stampede did not make is still refused before
// anything is dropped (and then no table is named); stampede's other
// lines go to spec.Log.
func Cleanup(ctx context.Context, spec run.CleanupSpec, threads int, out io.Writer) error {
	Header(out, run.VersionString())
	log := &CleanupLog{Out: out, Err: spec.Log}
	if spec.Workload != nil {
		log.Tables = cleanupTables(spec.Workload, threads)
		spec.Only = log.Tables
	}
	spec.Log = log
	err := run.Cleanup(ctx, spec)
	if err != nil {
		log.Tables = nil // say only what was dropped
	} else if spec.Workload != nil && spec.Workload.Meta().Name != "bulk_insert" {
		// The tables of the load, once cleanup took init's --tables.
		log.Tables = cleanupTables(spec.Workload, threads)
	}
	return errors.Join(err, log.Close())
}

// cleanupTables lists the tables sysbench's cleanup of gen names.
func cleanupTables(gen workload.Generator, threads int) []string {
	if gen.Meta().Name != "bulk_insert" {
		var names []string
		for _, t := range gen.Tables() {
			names = append(names, t.Name)
		}
		return names
	}
	names := make([]string, max(threads, 1))
	for i := range names {
		names[i] = "sbtest" + strconv.Itoa(i+1)
	}
	return names
}

// CleanupLog is the log of a cleanup in sysbench's form: the tables
// dropped ("dropped table sbtestN", run.Cleanup's lines) and Tables
// become sysbench's "Dropping table 'sbtestN'..." on Out, in the tables'
// order, as sysbench drops them (on Close). run.Cleanup's "nothing to
// drop", which sysbench does not say, is left out; every other line goes
// to Err as it is.
type CleanupLog struct {
	// Out receives sysbench's lines, Err the others.
	Out, Err io.Writer
	// Tables are the tables named whether they were dropped or not.
	Tables []string

	buf     []byte
	dropped []string
}

// Write implements io.Writer.
func (c *CleanupLog) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(c.buf[:i])
		c.buf = c.buf[i+1:]
		if t, ok := strings.CutPrefix(line, "dropped table "); ok {
			c.dropped = append(c.dropped, t)
			continue
		}
		if strings.HasPrefix(line, "no table of ") && strings.HasSuffix(line, ": nothing to drop") {
			continue
		}
		if _, err := fmt.Fprintln(c.Err, line); err != nil {
			return 0, err
		}
	}
}

// Close writes the lines of the tables dropped, sbtest1 first, and what
// is left of an unfinished line.
func (c *CleanupLog) Close() error {
	for _, t := range c.Tables {
		if !slices.Contains(c.dropped, t) {
			c.dropped = append(c.dropped, t)
		}
	}
	slices.SortStableFunc(c.dropped, func(a, b string) int { return tableNumber(a) - tableNumber(b) })
	for _, t := range c.dropped {
		if _, err := fmt.Fprintf(c.Out, "Dropping table '%s'...\n", t); err != nil {
			return err
		}
	}
	c.dropped = nil
	if len(c.buf) > 0 {
		_, err := fmt.Fprintln(c.Err, string(c.buf))
		c.buf = nil
		return err
	}
	return nil
}

// tableNumber is N of sbtestN (0 for another name).
func tableNumber(t string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(t, "sbtest"))
	return n
}

// PrepareLog is the log of a prepare in sysbench's form: stampede's own
// lines of the load ("loading ... streams, seed N", "loaded N rows in
// ..."), which sysbench's lines replace, are left out; every other line
// (a warning) goes to w.
type PrepareLog struct {
	// W receives the lines kept.
	W   io.Writer
	buf []byte
}

// Write implements io.Writer.
func (p *PrepareLog) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(p.buf[:i])
		p.buf = p.buf[i+1:]
		if strings.HasPrefix(line, "loading ") || strings.HasPrefix(line, "loaded ") {
			continue
		}
		if _, err := fmt.Fprintln(p.W, line); err != nil {
			return 0, err
		}
	}
}
