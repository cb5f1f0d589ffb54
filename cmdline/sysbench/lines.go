package sysbench

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/workload"
)

// Header writes sysbench's first line and the blank line after it, with
// stampede's version where sysbench names its Lua engine.
func Header(w io.Writer, version string) {
	fmt.Fprintf(w, "sysbench %s (using stampede %s)\n\n", report.SysbenchVersion, version)
}

// PrepareLines returns the load options by which a prepare in sysbench's
// form prints sysbench 1.0.20's lines on w as it goes (oltp_common.lua's
// create_table): each table created just before its load, "Creating
// table 'sbtestN'...", "Inserting N records into 'sbtestN'" and, before
// the index on k, "Creating a secondary index on 'sbtestN'...". With
// more than one thread, sysbench says "Initializing worker threads..."
// first, which PrepareLines writes.
func PrepareLines(w io.Writer, threads int) *workload.LoadOptions {
	if threads > 1 {
		fmt.Fprint(w, "Initializing worker threads...\n\n")
	}
	var mu sync.Mutex
	return &workload.LoadOptions{CreateEach: true, Step: func(st workload.LoadStep) {
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

// CleanupLog is the log of a cleanup in sysbench's form: the tables
// dropped ("dropped table sbtestN", run.Cleanup's lines) become
// sysbench's "Dropping table 'sbtestN'..." on Out, in the tables'
// order, as sysbench drops them (on Close); every other line goes to Err
// as it is.
type CleanupLog struct {
	// Out receives sysbench's lines, Err the others.
	Out, Err io.Writer

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
		if _, err := fmt.Fprintln(c.Err, line); err != nil {
			return 0, err
		}
	}
}

// Close writes the lines of the tables dropped, sbtest1 first, and what
// is left of an unfinished line.
func (c *CleanupLog) Close() error {
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
