package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// RunItem is one run in the runs list: the row `stampede runs` lists,
// with its group and whether it is live.
type RunItem struct {
	store.RunRow
	// Group is the run's job or sweep ("job=NAME", "sweep=ID"): the runs
	// of one benchmark of several clients, or the steps of a sweep.
	Group string `json:"group,omitempty"`
}

// RunsPage is the answer of /api/runs.
type RunsPage struct {
	// Total is the number of runs the filters select; Runs holds those of
	// the page asked for.
	Total   int       `json:"total"`
	Page    int       `json:"page"`
	PerPage int       `json:"per_page"`
	Sort    string    `json:"sort"`
	Runs    []RunItem `json:"runs"`
	// Workloads, Statuses and Groups are the values the filters can take
	// over every run, for a page's choices.
	Workloads []string `json:"workloads"`
	Statuses  []string `json:"statuses"`
	Groups    []string `json:"groups"`
	// Warnings say what could not be read (the store, a run directory).
	Warnings []string `json:"warnings,omitempty"`
}

// groupOf returns the run's group (see RunItem.Group).
func groupOf(tags map[string]string) string {
	for _, k := range []string{"job", "sweep"} {
		if v, ok := tags[k]; ok && v != "" {
			return k + "=" + v
		}
	}
	return ""
}

// finalStatus reports whether a run with this status has ended for good
// (killed too: no process writes it any more).
func finalStatus(s string) bool {
	switch s {
	case runlog.StatusCompleted, runlog.StatusInterrupted, runlog.StatusFailed, runlog.StatusKilled:
		return true
	}
	return false
}

// listRuns returns every run: the results store's rows, and the run
// directories it does not hold, or holds as running (a run in progress
// appears at once, a run that ended since it was indexed with its end),
// loaded as the store would index them. The store's rows of run
// directories under the results directory that are gone are left out.
func (s *Server) listRuns(ctx context.Context) ([]RunItem, []string) {
	var warnings []string
	entries, err := os.ReadDir(s.root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		warnings = append(warnings, fmt.Sprintf("cannot list %s: %v", s.root, err))
	}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && e.IsDir() {
			present[e.Name()] = true
		}
	}
	rows, err := s.storeRows(ctx)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("cannot read the results store %s (%v): listing the run directories of %s", s.cfg.StoreName, oneLine(err), s.root))
	}
	out := make([]RunItem, 0, len(rows)+8)
	held := make(map[string]bool, len(rows))
	for _, row := range rows {
		inRoot := filepath.Dir(row.Dir) == s.root && filepath.Base(row.Dir) == row.ID
		if inRoot {
			if !present[row.ID] {
				continue // deleted since it was indexed
			}
			if !finalStatus(row.Status) {
				continue // loaded from its directory below
			}
		}
		held[row.ID] = true
		out = append(out, RunItem{RunRow: row, Group: groupOf(row.Tags)})
	}
	for name := range present {
		if held[name] {
			continue
		}
		row, err := s.loadRow(filepath.Join(s.root, name))
		if errors.Is(err, runlog.ErrNotRunDir) {
			continue
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("cannot read %s: %v", filepath.Join(s.root, name), oneLine(err)))
			continue
		}
		out = append(out, RunItem{RunRow: row, Group: groupOf(row.Tags)})
	}
	return out, warnings
}

// storeTTL is how long the store's rows are served before they are read
// again: a listing is served from the last read, and one older than
// storeTTL is read again in the background for the next listings (reading
// 10,000 rows takes longer than a page should). Runs in the results
// directory appear at once whatever it is; a run another machine indexed
// in a shared store, within a listing or two.
const storeTTL = 2 * time.Second

// storeRows returns every row of the store (none without one): the last
// read, or a new one when there is none yet.
func (s *Server) storeRows(ctx context.Context) ([]store.RunRow, error) {
	if s.cfg.Store == nil {
		return nil, nil
	}
	s.storeMu.Lock()
	defer s.storeMu.Unlock()
	if s.storeRead.IsZero() {
		rows, err := s.cfg.Store.List(ctx, store.Filter{})
		if err != nil {
			return nil, err
		}
		s.storeCache, s.storeRead = rows, time.Now()
		return rows, nil
	}
	if time.Since(s.storeRead) > storeTTL && !s.storeRefreshing {
		s.storeRefreshing = true
		go func() {
			rows, err := s.cfg.Store.List(context.Background(), store.Filter{})
			s.storeMu.Lock()
			defer s.storeMu.Unlock()
			s.storeRefreshing = false
			if err == nil {
				s.storeCache, s.storeRead = rows, time.Now()
			}
		}()
	}
	return s.storeCache, nil
}

// Warm reads the results store's rows, so that the first listing does not
// wait for them; `stampede serve` calls it before it listens.
func (s *Server) Warm(ctx context.Context) error {
	_, err := s.storeRows(ctx)
	return err
}

// loadRow returns the row of the run directory dir (store.Load), loaded
// again only when its run.json or its intervals changed since.
func (s *Server) loadRow(dir string) (store.RunRow, error) {
	id := filepath.Base(dir)
	stamp := ""
	for _, f := range []string{runlog.RunFile, runlog.IntervalsFile, runlog.SummaryFile} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err == nil {
			stamp += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
		} else if f == runlog.RunFile {
			return store.RunRow{}, fmt.Errorf("%w: %s", runlog.ErrNotRunDir, dir)
		}
	}
	s.mu.Lock()
	c, ok := s.rows[id]
	s.mu.Unlock()
	// A live run's status depends on its lock as well as its files: it
	// is read again until it has ended.
	if ok && c.stamp == stamp && finalStatus(c.row.Status) {
		return c.row, nil
	}
	row, err := store.Load(dir)
	if err != nil {
		return store.RunRow{}, err
	}
	row.Ops = nil
	s.mu.Lock()
	s.rows[id] = cachedRow{stamp, row}
	s.mu.Unlock()
	return row, nil
}

// sortKeys are the columns /api/runs sorts by.
var sortKeys = map[string]func(a, b *RunItem) int{
	"start":       func(a, b *RunItem) int { return a.Start.Compare(b.Start) },
	"id":          func(a, b *RunItem) int { return cmp.Compare(a.ID, b.ID) },
	"workload":    func(a, b *RunItem) int { return cmp.Compare(a.Workload, b.Workload) },
	"status":      func(a, b *RunItem) int { return cmp.Compare(a.Status, b.Status) },
	"group":       func(a, b *RunItem) int { return cmp.Compare(a.Group, b.Group) },
	"seconds":     func(a, b *RunItem) int { return cmp.Compare(a.Seconds, b.Seconds) },
	"concurrency": func(a, b *RunItem) int { return cmp.Compare(a.Concurrency, b.Concurrency) },
	"count":       func(a, b *RunItem) int { return cmp.Compare(a.Count, b.Count) },
	"errors":      func(a, b *RunItem) int { return cmp.Compare(a.Errors, b.Errors) },
	"ops_per_sec": func(a, b *RunItem) int { return cmp.Compare(a.OpsPerSec, b.OpsPerSec) },
	"p50_ms":      func(a, b *RunItem) int { return cmp.Compare(a.P50, b.P50) },
	"p95_ms":      func(a, b *RunItem) int { return cmp.Compare(a.P95, b.P95) },
	"p99_ms":      func(a, b *RunItem) int { return cmp.Compare(a.P99, b.P99) },
	"max_ms":      func(a, b *RunItem) int { return cmp.Compare(a.Max, b.Max) },
}

func sortNames() string {
	names := make([]string, 0, len(sortKeys))
	for k := range sortKeys {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// maxPerPage bounds per_page.
const maxPerPage = 1000

func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k := range q {
		switch k {
		case "workload", "tag", "since", "until", "status", "group", "sort", "page", "per_page":
		default:
			fail(w, badRequest("unknown parameter %q: the runs list takes workload, tag, since, until, status, group, sort, page and per_page", k))
			return
		}
	}
	tags, err := runlog.ParseTags(q["tag"])
	if err != nil {
		fail(w, badRequest("tag: %v", err))
		return
	}
	now := s.cfg.Now()
	since, err := store.ParseTime(q.Get("since"), now)
	if err != nil {
		fail(w, badRequest("since: %v", err))
		return
	}
	until, err := store.ParseTime(q.Get("until"), now)
	if err != nil {
		fail(w, badRequest("until: %v", err))
		return
	}
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		fail(w, badRequest("since %s is not before until %s: no run can start in that window; swap them", q.Get("since"), q.Get("until")))
		return
	}
	sortBy := cmp.Or(q.Get("sort"), "-start")
	key, desc := strings.CutPrefix(sortBy, "-")
	less, ok := sortKeys[key]
	if !ok {
		fail(w, badRequest("sort=%q: sort by one of %s (a leading - for descending)", sortBy, sortNames()))
		return
	}
	page, err := positive(q, "page", 1)
	if err != nil {
		fail(w, err)
		return
	}
	perPage, err := positive(q, "per_page", 50)
	if err != nil {
		fail(w, err)
		return
	}
	if perPage > maxPerPage {
		fail(w, badRequest("per_page=%d is more than %d: ask for pages of at most %d runs", perPage, maxPerPage, maxPerPage))
		return
	}
	all, warnings := s.listRuns(r.Context())
	out := RunsPage{Page: page, PerPage: perPage, Sort: sortBy, Warnings: warnings, Runs: []RunItem{}}
	workloads, statuses, groups := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var sel []*RunItem
	for i := range all {
		it := &all[i]
		workloads[it.Workload], statuses[it.Status] = true, true
		if it.Group != "" {
			groups[it.Group] = true
		}
		switch {
		case q.Has("workload") && it.Workload != q.Get("workload"),
			q.Has("status") && it.Status != q.Get("status"),
			q.Has("group") && it.Group != q.Get("group"),
			!since.IsZero() && it.Start.Before(since),
			!until.IsZero() && !it.Start.Before(until),
			!runlog.MatchTags(it.Tags, tags):
			continue
		}
		sel = append(sel, it)
	}
	slices.SortFunc(sel, func(a, b *RunItem) int {
		c := less(a, b)
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		if desc {
			c = -c
		}
		return c
	})
	out.Total = len(sel)
	if lo := (page - 1) * perPage; lo < len(sel) {
		for _, it := range sel[lo:min(lo+perPage, len(sel))] {
			r := *it
			r.Tags = redact.Tags(r.Tags, nil)
			out.Runs = append(out.Runs, r)
		}
	}
	out.Workloads, out.Statuses, out.Groups = keys(workloads), keys(statuses), keys(groups)
	writeJSON(w, out)
}

// positive parses the positive integer parameter name of q (def when
// absent).
func positive(q map[string][]string, name string, def int) (int, error) {
	v, ok := q[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 1 {
		return 0, badRequest("%s=%q: give a whole number of 1 or more", name, v[0])
	}
	return n, nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// oneLine joins err's lines.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
