package cmdline

import (
	"fmt"
	"os"
	"strings"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/runlog"
)

// OpenRuns opens the runs a report names: each ref (a run id, a unique
// prefix of one, or a run directory) under root, then every run under
// root that tags select (key=value: a job's clients, a sweep's steps),
// oldest first, as `runs --tag` selects them (runlog.ParseTags and
// runlog.MatchTags). A run named twice is refused; one that both a ref
// and the tags select counts once. Errors in refs or tags, and
// tags that select nothing, are usage errors.
func OpenRuns(root string, refs, tags []string) ([]*runlog.Run, error) {
	return OpenRunsFrom(&RunSource{Root: root}, refs, tags)
}

// OpenRunsFrom is OpenRuns over the runs of src: those under its results
// directory and, with a store that keeps runs' files, those of the store.
func OpenRunsFrom(src *RunSource, refs, tags []string) ([]*runlog.Run, error) {
	root := src.Root
	var runs []*runlog.Run
	seen := map[string]string{}
	open := func(ref string, byTag bool) error {
		run, err := src.Open(ref)
		if err != nil {
			return err
		}
		if prev, dup := seen[run.Info.ID]; dup {
			if byTag {
				return nil
			}
			return usagef("run %s is given twice (%s and %s): each run counts once", run.Info.ID, prev, ref)
		}
		seen[run.Info.ID] = ref
		runs = append(runs, run)
		return nil
	}
	for _, ref := range refs {
		if err := open(ref, false); err != nil {
			return nil, err
		}
	}
	if len(tags) == 0 {
		return runs, nil
	}
	want, err := runlog.ParseTags(tags)
	if err != nil {
		return nil, usagef("%v", err)
	}
	ids, err := src.Tagged(want)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		note := ""
		for _, t := range tags {
			if k, v, _ := strings.Cut(t, "="); v == "" {
				note = fmt.Sprintf(" (%s= selects the runs tagged %s with an empty value, not the runs without %s)", k, k, k)
				break
			}
		}
		if root == "" {
			where := "--results-dir none"
			if src.StoreURL != os.Getenv("STAMPEDE_RESULTS_URL") {
				where += " --results-url " + shellQuote(redact.Conn(src.StoreURL))
			}
			return nil, usagef("no run of the results store %s has the tags %s%s: see `stampede runs %s`", redact.Conn(src.StoreURL), strings.Join(tags, ", "), note, where)
		}
		return nil, usagef("no run under %s has the tags %s%s: see `stampede runs --results-dir %s`", root, strings.Join(tags, ", "), note, root)
	}
	src.Prefetch(ids)
	for _, id := range ids {
		if err := open(id, true); err != nil {
			return nil, err
		}
	}
	return runs, nil
}
