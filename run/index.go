package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"

	"github.com/stampede-bench/stampede/results/store"
)

// OpenIndex opens the results store url over the run directories under
// root for `stampede runs`, brought up to date with them (or, with
// rebuild, made anew: a damaged SQLite index of stampede's is first moved
// aside). Listing only reads: where the store's file cannot be written
// (its disk full or read-only) the runs are indexed from their
// directories into a store in memory, with a warning; --rebuild, which
// asked for the store to be written, fails instead. Runs that cannot be
// indexed are warned about on log, one a line.
func OpenIndex(ctx context.Context, root, url string, rebuild bool, log io.Writer) (*store.Store, error) {
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return nil, inputf("results directory %s is not a directory: name the directory runs were saved in (run --results-dir)", root)
	}
	st, err := store.Open(ctx, url)
	if rebuild && errors.Is(err, store.ErrDamaged) {
		// The store is only an index of the run directories: start anew,
		// keeping the damaged file for whoever wants to look at it.
		aside, merr := store.MoveAside(url, time.Now())
		if merr != nil {
			return nil, merr
		}
		fmt.Fprintf(log, "the results store could not be read: moved it aside to %s\n", aside)
		st, err = store.Open(ctx, url)
	}
	if err != nil && !(strings.HasPrefix(url, "sqlite:") && store.Unwritable(err)) {
		return nil, err
	}
	if err == nil {
		if rebuild {
			n, ierr := st.Rebuild(ctx, root)
			if ierr != nil && !store.Unwritable(ierr) {
				warnIndex(log, ierr)
			}
			err = ierr
			if !store.Unwritable(ierr) {
				fmt.Fprintf(log, "indexed %d runs from %s into %s\n", n, root, st)
			}
		} else if _, err = st.Sync(ctx, root); err != nil && !store.Unwritable(err) {
			warnIndex(log, err)
		}
	}
	if err == nil || !store.Unwritable(err) {
		return st, nil
	}
	if st != nil {
		st.Close()
	}
	if rebuild {
		// --rebuild asked for the store to be written: not done is a
		// failure, not a listing from the directories.
		return nil, fmt.Errorf("cannot rebuild the results store %s (%s): nothing was rebuilt; free space on its disk (or make it writable) first; meanwhile `stampede runs` without --rebuild lists the runs from their directories",
			strings.TrimPrefix(url, "sqlite:"), storeCause(err))
	}
	fmt.Fprintf(log, "warning: cannot write the results store %s (%s): listing the runs from their directories in %s; free space on its disk (or make it writable), then `stampede runs --rebuild` updates it\n",
		strings.TrimPrefix(url, "sqlite:"), storeCause(err), root)
	if st, err = store.OpenMemory(ctx); err != nil {
		return nil, err
	}
	if _, err := st.Rebuild(ctx, root); err != nil && !store.Unwritable(err) {
		warnIndex(log, err)
	}
	return st, nil
}

// storeCause says in a few words why a store could not be written.
func storeCause(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), strings.Contains(err.Error(), "disk is full"), strings.Contains(err.Error(), "disk I/O error"):
		return "its disk is full, or failing"
	case errors.Is(err, syscall.EROFS), strings.Contains(err.Error(), "readonly"), strings.Contains(err.Error(), "read-only"):
		return "it is read-only"
	}
	if se := (*sqlite.Error)(nil); errors.As(err, &se) {
		return se.Error()
	}
	return oneLine(err.Error())
}

// warnIndex writes the runs that could not be indexed, one a line.
func warnIndex(log io.Writer, err error) {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(log, "warning: cannot index %s\n", oneLine(line))
	}
}
