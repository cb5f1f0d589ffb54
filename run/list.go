package run

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/stampede-bench/stampede/results/store"
)

// ListRuns returns the saved runs that f selects, for `stampede runs`:
// those of the results store url over the run directories under root
// (OpenIndex; rebuild as there), or, when root does not exist and url is
// a PostgreSQL store that keeps runs' files, the store's alone (runs
// written there by clients without a results directory or on other
// machines). named says root was given on purpose (--results-dir or
// $STAMPEDE_RESULTS_DIR): then a root that does not exist is refused as
// the typo it most likely is; otherwise no runs are listed, and no
// results directory is made just to say it is empty.
func ListRuns(ctx context.Context, root, url string, named, rebuild bool, f store.Filter, log io.Writer) ([]store.RunRow, error) {
	var st *store.Store
	_, err := os.Stat(root)
	switch {
	case root == "" && rebuild:
		return nil, inputf("--rebuild rebuilds the index of a results directory's runs, and --results-dir none names none: give the results directory")
	case errors.Is(err, fs.ErrNotExist) && store.KeepsFiles(url) && !rebuild:
		if st, err = store.OpenReadOnly(ctx, url); err != nil {
			return nil, noDirAdvice(err, root)
		}
	case errors.Is(err, fs.ErrNotExist) && named:
		return nil, inputf("results directory %s does not exist: name the directory runs were saved in (run --results-dir), or leave --results-dir out for ~/.stampede/runs", root)
	case errors.Is(err, fs.ErrNotExist) && url == store.DefaultURL(root):
		return nil, nil
	default:
		if st, err = OpenIndex(ctx, root, url, rebuild, log); err != nil {
			return nil, noDirAdvice(err, root)
		}
	}
	defer st.Close()
	if err := ctx.Err(); err != nil {
		return nil, ErrInterrupted
	}
	return st.List(ctx, f)
}

// noDirAdvice is store.NoDirAdvice when there is no results directory
// (root "": --results-dir none).
func noDirAdvice(err error, root string) error {
	if root == "" {
		return store.NoDirAdvice(err)
	}
	return err
}
