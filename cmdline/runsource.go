package cmdline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// RunSource is where the runs a command reads are found: the run
// directories under Root and, when StoreURL names a store that keeps the
// runs' files (a PostgreSQL store, see store.Store.Ship), the runs of
// that store. A run of the store is fetched into a temporary directory
// (store.Store.Fetch) and read from there like any other, so report,
// compare and charts read both the same way; Close removes those
// directories. A RunSource is not safe for concurrent use.
type RunSource struct {
	// Root is the results directory; "" for none (--results-dir none:
	// the store's runs alone).
	Root string
	// StoreURL is the results store; "" or a store that keeps no files
	// (SQLite) reads the results directory only.
	StoreURL string

	st      *store.Store
	stErr   error
	tmp     string
	fetched map[string]string
}

// store opens the store once; nil when there is none to read.
func (s *RunSource) store() (*store.Store, error) {
	if !store.KeepsFiles(s.StoreURL) {
		return nil, nil
	}
	if s.st == nil && s.stErr == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		s.st, s.stErr = store.OpenReadOnly(ctx, s.StoreURL)
		if s.Root == "" {
			s.stErr = store.NoDirAdvice(s.stErr)
		}
	}
	return s.st, s.stErr
}

// Find returns the directory of the run ref names (a run ID, a unique
// prefix of one, or a run directory): under Root, else in the store.
func (s *RunSource) Find(ref string) (string, error) {
	var dir string
	err := fmt.Errorf("%w: %s (no results directory: --results-dir none)", runlog.ErrRunNotFound, ref)
	if s.Root != "" {
		dir, err = runlog.Find(s.Root, ref)
	}
	if err == nil || !errors.Is(err, runlog.ErrRunNotFound) {
		return dir, err
	}
	st, serr := s.store()
	if st == nil {
		if serr != nil {
			return "", fmt.Errorf("%w; nor in the results store: %v", err, serr)
		}
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, ferr := st.FindFiles(ctx, ref)
	if ferr != nil {
		if errors.Is(ferr, runlog.ErrRunNotFound) {
			return "", fmt.Errorf("%w; nor in the results store %s", err, st)
		}
		return "", ferr
	}
	return s.fetch(ctx, st, id)
}

// fetch writes run id of the store into the temporary directory.
func (s *RunSource) fetch(ctx context.Context, st *store.Store, id string) (string, error) {
	if dir, ok := s.fetched[id]; ok {
		return dir, nil
	}
	if s.tmp == "" {
		tmp, err := os.MkdirTemp("", "stampede-store-")
		if err != nil {
			return "", fmt.Errorf("cannot read run %s of the results store: %w", id, err)
		}
		s.tmp, s.fetched = tmp, map[string]string{}
	}
	dir, err := st.Fetch(ctx, id, s.tmp)
	if err != nil {
		return "", err
	}
	s.fetched[id] = dir
	return dir, nil
}

// prefetchers is how many runs Prefetch fetches at once: a fetch waits on
// the server, then on writing its files, so one alone leaves the CPUs
// (the server's and ours) idle half the time.
const prefetchers = 4

// Prefetch fetches the runs among ids (whole run IDs) that the store holds
// and Root does not, several at once, into the temporary directory where
// Find then finds them: report --tag of a hundred clients read from the
// store waited on one fetch at a time. What cannot be fetched is left for
// Find to fetch and report.
func (s *RunSource) Prefetch(ids []string) {
	st, _ := s.store()
	if st == nil {
		return
	}
	var todo []string
	for _, id := range ids {
		if s.Root != "" {
			if _, err := runlog.Find(s.Root, id); !errors.Is(err, runlog.ErrRunNotFound) {
				continue
			}
		}
		if _, ok := s.fetched[id]; !ok {
			todo = append(todo, id)
		}
	}
	if len(todo) < 2 {
		return
	}
	if s.tmp == "" {
		tmp, err := os.MkdirTemp("", "stampede-store-")
		if err != nil {
			return
		}
		s.tmp, s.fetched = tmp, map[string]string{}
	}
	dirs := make([]string, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(prefetchers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				if dir, err := st.Fetch(ctx, todo[i], s.tmp); err == nil {
					dirs[i] = dir
				}
				cancel()
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, dir := range dirs {
		if dir != "" {
			s.fetched[todo[i]] = dir
		}
	}
}

// Open finds and opens the run ref names (a run ID, a unique prefix of
// one, or a run directory); what names no run is a usage error.
func (s *RunSource) Open(ref string) (*runlog.Run, error) {
	dir, err := s.Find(ref)
	if err != nil {
		if errors.Is(err, runlog.ErrRunNotFound) || errors.Is(err, runlog.ErrAmbiguousRun) || errors.Is(err, runlog.ErrNotRunDir) {
			return nil, asUsage(err)
		}
		return nil, err
	}
	run, err := runlog.Open(dir)
	if errors.Is(err, runlog.ErrNotRunDir) {
		return nil, asUsage(err)
	}
	return run, err
}

// Where says where the run read from dir is kept: dir itself, or, for a
// run fetched from the store (whose temporary directory is gone once the
// command ends), "results store NAME".
func (s *RunSource) Where(dir string) string {
	for _, d := range s.fetched {
		if d == dir && s.st != nil {
			return "results store " + s.st.String()
		}
	}
	return dir
}

// Tagged returns the IDs of the runs whose tags match want
// (runlog.MatchTags), under Root and in the store, oldest first.
func (s *RunSource) Tagged(want map[string]string) ([]string, error) {
	var infos []runlog.RunInfo
	var err error
	if s.Root != "" {
		infos, err = runlog.List(s.Root)
	}
	if err != nil && len(infos) == 0 && !store.KeepsFiles(s.StoreURL) {
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	starts := map[string]time.Time{}
	for _, info := range infos {
		if runlog.MatchTags(info.Tags, want) {
			ids = append(ids, info.ID)
			seen[info.ID] = true
			starts[info.ID] = info.Start
		}
	}
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return ids, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := st.List(ctx, store.Filter{Tags: want})
	if err != nil {
		return nil, err
	}
	have, err := st.FileRuns(ctx)
	if err != nil {
		return nil, err
	}
	added := false
	for _, r := range rows {
		if !seen[r.ID] && slices.Contains(have, r.ID) {
			ids = append(ids, r.ID)
			seen[r.ID] = true
			starts[r.ID] = r.Start
			added = true
		}
	}
	if added {
		// As runlog.List orders run directories: by start, then ID (the
		// clients of one benchmark start in the same second, and their
		// IDs' random ends would order them otherwise).
		slices.SortStableFunc(ids, func(a, b string) int {
			if c := starts[a].Compare(starts[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	return ids, nil
}

// Close removes the runs fetched from the store and closes it.
func (s *RunSource) Close() error {
	var err error
	if s.st != nil {
		err = s.st.Close()
		s.st = nil
	}
	if s.tmp != "" {
		err = errors.Join(err, os.RemoveAll(s.tmp))
		s.tmp = ""
	}
	return err
}
