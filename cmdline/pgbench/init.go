package pgbench

import (
	"bytes"
	"fmt"
	"io"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
	pgbenchwl "github.com/stampede-bench/stampede/workload/pgbench"
)

// Init makes spec, a load of the pgbench workload, pgbench -i's: its
// lines on w as the steps go ("creating tables...", the progress of the
// accounts, "done in ..."), and of stampede's own lines only the
// warnings and notes (the note of a drop and reload in the load's schema
// where the search path finds a user's table first; errors the command
// line prints).
func Init(spec *run.LoadSpec, quiet bool, w io.Writer) error {
	gen, ok := spec.Workload.(pgbenchwl.InitLogger)
	if !ok {
		return inputf("--output-style pgbench prints pgbench -i's lines: it is for `stampede init pgbench` only, not %s", spec.Workload.Meta().Name)
	}
	l := pgbenchwl.NewInitLog(w)
	l.Quiet = quiet
	gen.SetInitLog(l)
	l.Start(gen.Steps())
	spec.Steps = l.LoadOptions()
	spec.Log, spec.Progress = warningsAndNotes{w}, nil
	spec.Conn.Notices = w // pgbench -i shows the server's NOTICEs (its drops' "does not exist, skipping")
	return nil
}

// InitsItself reports whether gen's init is pgbench -i's own
// (`stampede init pgbench --as-pgbench`, which `stampede pgbench -i`
// gives): it prints pgbench -i's lines whatever the output style.
func InitsItself(gen workload.Generator) bool {
	sl, ok := gen.(workload.SelfLoader)
	_, logs := gen.(pgbenchwl.InitLogger)
	return ok && logs && sl.LoadsItself()
}

// warningsAndNotes passes on the warnings and notes written to it, whole
// lines, as pgbench's.
type warningsAndNotes struct{ w io.Writer }

// Write implements io.Writer.
func (f warningsAndNotes) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("warning: ")) || bytes.HasPrefix(line, []byte("note: ")) {
			if _, err := fmt.Fprintf(f.w, "pgbench: %s", line); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}
