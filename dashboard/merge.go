package dashboard

import (
	"errors"
	"net/http"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// MergeDoc is the answer of /api/merge: the runs of one benchmark (a
// job's clients, run on several machines at once) merged as `stampede
// report --tag key=value` merges them, with each client's own figures and
// its share of the merged operations.
type MergeDoc struct {
	// Report is `stampede report --tag ... --format json`'s document.
	Report output.ReportDoc `json:"report"`
	// Clients are the runs merged, in the report's order.
	Clients []Client `json:"clients"`
}

// Client is one run of a merged benchmark.
type Client struct {
	ID string `json:"id"`
	// Total is the run's own total over the same window (`stampede
	// report ID`'s), and Share its operations over the merged
	// operations (0 when the merge has none).
	Total stats.Summary `json:"total"`
	Share float64       `json:"share"`
	// Error says why the run has no figures of its own (no interval
	// after its ramp-up).
	Error string `json:"error,omitempty"`
}

// handleMerge serves /api/merge?tag=key=value[&tag=...][&run=ID...].
func (s *Server) handleMerge(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var runs []*runlog.Run
	for _, id := range q["run"] {
		run, err := s.openRun(r.Context(), id)
		if err != nil {
			fail(w, err)
			return
		}
		runs = append(runs, run)
	}
	if tags := q["tag"]; len(tags) > 0 {
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
			dup := false
			for _, have := range runs {
				dup = dup || have.Info.ID == t.Info.ID
			}
			if !dup {
				runs = append(runs, s.memoized(t))
			}
		}
	}
	if len(runs) == 0 {
		fail(w, badRequest("name the runs to merge: /api/merge?tag=job=NAME (a job's clients) or run=ID&run=ID"))
		return
	}
	if err := results.SameLatency(runs); err != nil {
		fail(w, badRequest("%v", err))
		return
	}
	view, _, err := results.Recompute(runs, results.Window{})
	var we *results.WindowError
	if errors.As(err, &we) {
		fail(w, badRequest("%v", err))
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	doc := MergeDoc{Report: output.NewReportDoc(runs, view), Clients: []Client{}}
	for _, run := range runs {
		c := Client{ID: run.Info.ID}
		if v, _, err := results.Recompute([]*runlog.Run{run}, results.Window{}); err == nil {
			c.Total = v.Total
		} else {
			c.Error = err.Error()
		}
		if view.Total.Count > 0 {
			c.Share = float64(c.Total.Count) / float64(view.Total.Count)
		}
		doc.Clients = append(doc.Clients, c)
	}
	writeJSON(w, doc)
}
