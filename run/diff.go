package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/datadiff"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// DiffSpec says what Diff compares and where it saves the result.
type DiffSpec struct {
	datadiff.Options
	// URLs are the two nodes' connection strings; a URL that names no
	// database uses Database, else the workload's.
	URLs     [2]string
	Database string
	// Workload, when set, names the workload whose tables are compared,
	// with its flags ("oltp_read_write --tables 8"), instead of
	// Options.Tables.
	Workload string
	// ResultsDir, Command and Flags are as in Spec.
	ResultsDir string
	Command    []string
	Flags      map[string]string
	// Log receives notes (stderr on the command line).
	Log io.Writer
}

// DiffWorkload is the workload name diff runs are recorded under (`stampede
// runs --workload diff`).
const DiffWorkload = "diff"

// Diff compares the data of two nodes (see package datadiff) and saves the
// result as a run of workload "diff", so that `stampede runs` lists it and
// `stampede report` prints it again. It returns the result (nil when the
// comparison failed) and the run's id ("" when it could not be saved,
// which it says on spec.Log); an interrupted diff is saved as
// such and returns ErrInterrupted.
func Diff(ctx context.Context, spec DiffSpec) (*datadiff.Result, string, error) {
	if spec.URLs[0] == spec.URLs[1] {
		return nil, "", inputf("the same URL is given twice: give the two nodes to compare")
	}
	opts := spec.Options
	if spec.Workload != "" {
		tables, db, err := workloadTables(spec.Workload)
		if err != nil {
			return nil, "", err
		}
		opts.Tables = tables
		if spec.Database == "" {
			spec.Database = db
		}
	}
	for i, u := range spec.URLs {
		o := sqlx.Options{URLs: []string{u}, AppName: "stampede diff"}
		if !urlNamesDatabase(u) {
			o.Database = spec.Database
		}
		if i == 0 {
			opts.A = o
		} else {
			opts.B = o
		}
	}
	if spec.Log != nil && opts.Note == nil {
		opts.Note = func(s string) { fmt.Fprintf(spec.Log, "note: %s\n", s) }
	}
	root, err := ResultsRoot(spec.ResultsDir)
	if err != nil {
		return nil, "", err
	}
	start := time.Now()
	info := runlog.RunInfo{ID: runlog.NewID(DiffWorkload, start), Workload: DiffWorkload, Command: spec.Command, Flags: spec.Flags,
		Series: []string{}, StampedeVersion: VersionString(), Host: runlog.HostFacts(), Start: start}
	for _, u := range spec.URLs {
		info.Endpoints = append(info.Endpoints, redact.Conn(u))
	}
	rw, err := runlog.Create(root, info)
	if err != nil {
		return nil, "", saveRootError(root, err)
	}
	res, err := datadiff.Diff(ctx, opts)
	status, msg := runlog.StatusCompleted, ""
	if err != nil {
		status, msg = runlog.StatusFailed, oneLine(err.Error())
		if ctx.Err() != nil {
			status = runlog.StatusInterrupted
		}
		if errors.Is(err, datadiff.ErrNoPrimaryKey) {
			err = asInput(err)
		}
	}
	var summary any
	if res != nil {
		summary = res
	}
	id := rw.Info().ID
	if ferr := rw.Finish(time.Now(), status, msg, summary); ferr != nil {
		// The id returned is "" when the run is not saved whole.
		id = ""
		if spec.Log != nil {
			fmt.Fprintf(spec.Log, "results not saved in %s: %s\n", rw.Dir(), writeFailure(ferr))
		}
	}
	if err != nil && ctx.Err() != nil {
		if spec.Log != nil {
			if id != "" {
				fmt.Fprintf(spec.Log, "interrupted: nothing compared is printed; the run is saved as %s\n", id)
			} else {
				fmt.Fprintln(spec.Log, "interrupted: nothing compared is printed")
			}
		}
		return nil, id, ErrInterrupted
	}
	return res, id, err
}

// workloadTables returns the tables of a workload given as its name and
// flags ("tpcc --warehouses 2"), and its database.
func workloadTables(w string) ([]string, string, error) {
	words := strings.Fields(w)
	meta, ok := workload.Get(words[0])
	if !ok {
		return nil, "", inputf("unknown --workload %q: see `stampede workloads`", words[0])
	}
	gen, err := workload.FromFlags(meta, words[1:]...)
	if err != nil {
		return nil, "", inputf("--workload %s: %w", words[0], err)
	}
	var tables []string
	for _, t := range gen.Tables() {
		tables = append(tables, t.Name)
	}
	return tables, meta.DatabaseName(), nil
}
