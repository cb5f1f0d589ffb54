package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// Upload sends each run directory of dirs to the PostgreSQL results store
// of url and indexes it there (`stampede runs upload`), saying on out
// what it sent. A run the store already holds whole is said and left
// alone; another copy under the same run ID, a directory that is no run's
// or a store that keeps no files is refused (ErrInput).
func Upload(ctx context.Context, dirs []string, url string, out io.Writer) error {
	if !store.KeepsFiles(url) {
		if url == "" {
			return inputf("runs upload: name the PostgreSQL results store to send the runs to: --results-url postgresql://... (or $STAMPEDE_RESULTS_URL)")
		}
		return inputf("runs upload: the results store %s keeps no runs' files (only a PostgreSQL store does): give --results-url postgresql://...", url)
	}
	var runs []*runlog.Run
	for _, dir := range dirs {
		r, err := runlog.Open(dir)
		if err != nil {
			if errors.Is(err, runlog.ErrNotRunDir) || errors.Is(err, fs.ErrNotExist) {
				return inputf("runs upload: %s is not a run directory (it has no run.json): name a run's directory, such as ~/.stampede/runs/RUN-ID", dir)
			}
			return err
		}
		runs = append(runs, r)
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		if errors.Is(err, store.ErrBadURL) {
			return inputf("--results-url: %v", err)
		}
		return err
	}
	defer st.Close()
	for _, r := range runs {
		res, err := st.Ship(ctx, r.Dir)
		if errors.Is(err, store.ErrDifferentCopy) {
			return inputf("runs upload %s: %v: check the directory, or delete the store's copy of run %s", r.Dir, oneLine(err.Error()), r.Info.ID)
		}
		if err != nil {
			return fmt.Errorf("runs upload %s: %w; upload it again to send the rest", r.Dir, err)
		}
		if err := st.Index(ctx, r.Dir); err != nil {
			return fmt.Errorf("runs upload %s: sent, but not indexed: %w; upload it again", r.Dir, err)
		}
		if res.Bytes == 0 {
			fmt.Fprintf(out, "run %s is already in the results store %s: nothing sent\n", r.Info.ID, st)
			continue
		}
		fmt.Fprintf(out, "run %s sent to the results store %s (%d bytes)\n", r.Info.ID, st, res.Bytes)
	}
	return nil
}
