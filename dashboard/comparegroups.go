package dashboard

import (
	"errors"
	"net/http"
	"slices"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// handleCompareGroups is /api/compare?a=ID&a=ID&b=ID&b=ID (or
// a_tag=key=value, b_tag=key=value, as compare --a-tag and --b-tag):
// `stampede compare A1,A2,... B1,B2,... --format json`, each figure
// judged over runs (results.CompareGroups).
func (s *Server) handleCompareGroups(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var groups [2][]*runlog.Run
	for i, side := range []string{"a", "b"} {
		for _, id := range q[side] {
			run, err := s.openRun(r.Context(), id)
			if err != nil {
				fail(w, err)
				return
			}
			groups[i] = append(groups[i], run)
		}
		tags := q[side+"_tag"]
		if len(tags) == 0 {
			continue
		}
		// The runs `report --tag` selects, by the same function; run
		// IDs only, never paths, come from the query.
		tagged, err := cmdline.OpenRuns(s.root, nil, tags)
		if errors.Is(err, run.ErrInput) {
			fail(w, badRequest("%v", err))
			return
		}
		if err != nil {
			fail(w, err)
			return
		}
		for _, t := range tagged {
			if !slices.ContainsFunc(groups[i], func(have *runlog.Run) bool { return have.Info.ID == t.Info.ID }) {
				groups[i] = append(groups[i], s.memoized(t))
			}
		}
	}
	if len(groups[0]) == 1 && len(groups[1]) == 1 {
		// One run a side: compare them as two runs, as the verb does.
		c, views, err := results.Compare(groups[0][0], groups[1][0])
		if err != nil {
			fail(w, err)
			return
		}
		output.CompareFigures(&c, [2]*runlog.Run{groups[0][0], groups[1][0]}, views)
		writeJSON(w, c)
		return
	}
	c, err := results.CompareGroups(groups[0], groups[1])
	var ge *results.GroupError
	if errors.As(err, &ge) {
		fail(w, badRequest("%v", err))
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, c)
}
