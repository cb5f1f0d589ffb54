package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// Config says what a Server serves.
type Config struct {
	// Root is the results directory: the run directories are under it.
	Root string
	// Store is the results store, opened read-only (store.OpenReadOnly);
	// nil lists the runs from their directories alone.
	Store *store.Store
	// StoreName names the store in messages (no password).
	StoreName string
	// Poll is how often a live view looks for new intervals; 0 is 250 ms.
	Poll time.Duration
	// Now is the clock of "since" and "until" given as durations ago; nil
	// is time.Now.
	Now func() time.Time
	// FetchDir, when set, is a directory of the caller's (removed by it)
	// where the runs a PostgreSQL store holds whole, but whose directory
	// is not on this machine, are fetched to be read (store.Store.Fetch);
	// "" reads run directories only.
	FetchDir string
}

// Server is the dashboard's http.Handler. It is safe for concurrent use.
type Server struct {
	cfg  Config
	mux  *http.ServeMux
	root string // Root, absolute

	mu   sync.Mutex
	rows map[string]cachedRow // rows loaded from run directories

	storeMu    sync.Mutex
	storeCache []store.RunRow // the store's rows, read at storeRead
	storeRead  time.Time
	// storeRefreshing is set while a new read is under way.
	storeRefreshing bool

	memoMu sync.Mutex
	memo   map[string]*memoEntry // finished runs, by directory

	fetchMu sync.Mutex
	fetched map[string]string // finished runs fetched from the store, by ID
	fetches int               // fetches so far, for the directories' names
}

// cachedRow is a run's row loaded from its directory, with what it was
// loaded from: loaded again when one of them changes.
type cachedRow struct {
	stamp string
	row   store.RunRow
}

// New returns a Server over cfg.
func New(cfg Config) *Server {
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	root := cfg.Root
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), root: root, rows: map[string]cachedRow{}, memo: map[string]*memoEntry{}}
	for _, rt := range s.routes() {
		s.mux.HandleFunc(rt.pattern, rt.handler)
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s (see the endpoints in `stampede serve --help`)", r.Method, r.URL.Path))
	})
	s.mux.Handle("/", staticHandler())
	return s
}

// route is an endpoint of the JSON API: its net/http.ServeMux pattern and
// its handler.
type route struct {
	pattern string
	handler http.HandlerFunc
}

// routes lists the JSON API's endpoints.
func (s *Server) routes() []route {
	return []route{
		{"GET /api/runs", s.handleRuns},
		{"GET /api/runs/{id}", s.withRun(s.handleRun)},
		{"GET /api/runs/{id}/series", s.withRun(s.handleSeries)},
		{"GET /api/runs/{id}/window", s.withRun(s.handleWindow)},
		{"GET /api/runs/{id}/telemetry", s.withRun(s.handleTelemetry)},
		{"GET /api/runs/{id}/live", s.withRun(s.handleLive)},
		{"GET /api/runs/{id}/files/{name}", s.withRun(s.handleFile)},
		{"GET /api/compare", s.handleCompare},
		{"GET /api/merge", s.handleMerge},
		{"GET /api/sweeps/{id}", s.handleSweep},
	}
}

// Endpoints returns the patterns of the JSON API's endpoints, as
// net/http.ServeMux reads them ("GET /api/runs/{id}/series"): the tests
// that must fetch every endpoint (no secret in any answer, nothing
// written) check that they do.
func Endpoints() []string {
	var out []string
	for _, rt := range (&Server{}).routes() {
		out = append(out, rt.pattern)
	}
	return out
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Read-only: nothing is ever written, so only GET (and HEAD) mean
	// anything.
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is not allowed: the dashboard only reads", r.Method))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// httpError is an error with the HTTP status it is answered with.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// writeError answers with {"error": msg}, msg on one line and redacted.
func writeError(w http.ResponseWriter, code int, msg string) {
	msg = strings.Join(strings.Fields(msg), " ")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": redact.Text(msg)})
}

// fail answers err: an *httpError with its status, anything else 500.
func fail(w http.ResponseWriter, err error) {
	var he *httpError
	if errors.As(err, &he) {
		writeError(w, he.code, he.msg)
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}

// writeJSON answers v as JSON, with every string in it redacted (see
// redactJSON).
func writeJSON(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err == nil {
		data, err = redactJSON(data)
	}
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(data)
}

// redactJSON returns data with the passwords in every string of it masked
// (redact.Text), numbers kept as written. It is the last safeguard:
// what the server serves was redacted when the run saved it, and again
// when it was read.
func redactJSON(data []byte) ([]byte, error) {
	if !mayHoldSecret(data) {
		return data, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(redactValue(v))
}

// mayHoldSecret reports whether data holds text redact.Text could mask: a
// URL or a password=... pair. Most responses (series of numbers) hold
// neither and are served without decoding them again.
func mayHoldSecret(data []byte) bool {
	return bytes.Contains(data, []byte("://")) || bytes.Contains(bytes.ToLower(data), []byte("password"))
}

func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.Text(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redact.Text(k)] = redactValue(e)
		}
		return out
	}
	return v
}

// validID matches the names a run directory can have (runlog.NewID).
var validID = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// openRun opens the run of ID id, or of a unique prefix of one, as
// report reads them: the directory id under the results directory, or the
// directory the results store records for it.
func (s *Server) openRun(ctx context.Context, id string) (*runlog.Run, error) {
	if !validID().MatchString(id) {
		return nil, notFound("no run %q: a run ID is made of letters, digits, '.', '_' and '-' (see /api/runs)", id)
	}
	full, err := s.fullID(ctx, id)
	if err != nil {
		return nil, err
	}
	id = full
	dir := filepath.Join(s.root, id)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) && s.cfg.Store != nil {
		if row, gerr := s.cfg.Store.Get(ctx, id); gerr == nil {
			dir = row.Dir
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				if fdir, ok := s.fetch(ctx, id); ok {
					dir = fdir
				}
			}
		}
	}
	run, err := runlog.Open(dir)
	switch {
	case err == nil:
		return s.memoized(run), nil
	case errors.Is(err, fs.ErrNotExist) && dir != filepath.Join(s.root, id):
		return nil, notFound("run %s is in the results store, but its directory %s is gone (deleted or moved): its figures can no longer be read", id, dir)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, runlog.ErrNotRunDir):
		if s.seen(id) {
			return nil, notFound("run %s is gone: its directory %s was deleted or moved", id, dir)
		}
		return nil, notFound("no run %s in %s (see /api/runs)", id, s.root)
	}
	return nil, err
}

// fullID returns the run ID that id names: itself when a run directory
// or the store's index has it, else the one run whose ID it begins (under
// the results directory, else among the runs the store holds the files
// of). A prefix of several runs is refused, naming them as report does.
func (s *Server) fullID(ctx context.Context, id string) (string, error) {
	if _, err := os.Stat(filepath.Join(s.root, id)); err == nil {
		return id, nil
	}
	if s.cfg.Store != nil {
		if _, err := s.cfg.Store.Get(ctx, id); err == nil {
			return id, nil
		}
	}
	dir, err := runlog.Find(s.root, id)
	switch {
	case err == nil && filepath.Dir(dir) == s.root:
		return filepath.Base(dir), nil
	case errors.Is(err, runlog.ErrAmbiguousRun):
		return "", notFound("%s", oneLine(err))
	}
	if s.cfg.Store != nil && s.cfg.FetchDir != "" {
		full, err := s.cfg.Store.FindFiles(ctx, id)
		switch {
		case err == nil:
			return full, nil
		case errors.Is(err, runlog.ErrAmbiguousRun):
			return "", notFound("%s", oneLine(err))
		}
	}
	return id, nil // not found: said by openRun
}

// fetch fetches run id from the store into FetchDir; ok is false when
// the store holds no files of it (or there is no FetchDir). A finished
// run is fetched once; a running one again at every request, into a new
// directory, so that no reader sees a file being rewritten.
func (s *Server) fetch(ctx context.Context, id string) (string, bool) {
	if s.cfg.FetchDir == "" {
		return "", false
	}
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	if dir, ok := s.fetched[id]; ok {
		return dir, true
	}
	s.fetches++
	root := filepath.Join(s.cfg.FetchDir, strconv.Itoa(s.fetches))
	dir, err := s.cfg.Store.Fetch(ctx, id, root)
	if err != nil {
		_ = os.RemoveAll(root)
		return "", false
	}
	if run, err := runlog.Open(dir); err == nil && run.Info.Status != runlog.StatusRunning {
		if s.fetched == nil {
			s.fetched = map[string]string{}
		}
		s.fetched[id] = dir
	}
	return dir, true
}

// memoCap is how many finished runs keep their intervals decoded in
// memory, the latest used.
const memoCap = 4

// memoEntry is a finished run whose intervals are kept decoded, with the
// answers already computed from them.
type memoEntry struct {
	stamp string
	run   *runlog.Run
	used  time.Time

	mu   sync.Mutex
	resp map[string][]byte // JSON answers by endpoint
}

// entry returns the memo entry of run, a run memoized returns, or nil.
func (s *Server) entry(run *runlog.Run) *memoEntry {
	s.memoMu.Lock()
	defer s.memoMu.Unlock()
	if e := s.memo[run.Dir]; e != nil && e.run == run {
		return e
	}
	return nil
}

// writeComputed answers the JSON of compute's value; for a finished run
// (see memoized), the answer is kept under key and served again without
// computing it: a finished run's figures and series do not change.
func (s *Server) writeComputed(w http.ResponseWriter, run *runlog.Run, key string, compute func() (any, error)) {
	e := s.entry(run)
	if e != nil {
		e.mu.Lock()
		data, ok := e.resp[key]
		e.mu.Unlock()
		if ok {
			writeBytes(w, data)
			return
		}
	}
	v, err := compute()
	if err != nil {
		fail(w, err)
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		data, err = redactJSON(data)
	}
	if err != nil {
		fail(w, err)
		return
	}
	if e != nil {
		e.mu.Lock()
		if e.resp == nil {
			e.resp = map[string][]byte{}
		}
		e.resp[key] = data
		e.mu.Unlock()
	}
	writeBytes(w, data)
}

// writeBytes answers data, a JSON document already redacted.
func writeBytes(w http.ResponseWriter, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(data)
}

// memoized returns run memoized (runlog.Run.Memoize) when it has ended:
// its entry keeps the answers computed for it (its figures, its series),
// so that a page seen again is served from memory. Each answer is
// computed by streaming the run's files (results reads them one interval
// at a time): no histogram is held in memory. A live run is read afresh
// every time; a run whose files changed since is memoized again.
func (s *Server) memoized(run *runlog.Run) *runlog.Run {
	if !finalStatus(run.Info.Status) {
		return run
	}
	stamp := ""
	for _, f := range []string{runlog.RunFile, runlog.IntervalsFile, runlog.HlogFile} {
		fi, err := os.Stat(filepath.Join(run.Dir, f))
		if err != nil {
			return run
		}
		stamp += fmt.Sprintf("%d/%d;", fi.ModTime().UnixNano(), fi.Size())
	}
	key := run.Dir
	s.memoMu.Lock()
	defer s.memoMu.Unlock()
	if e, ok := s.memo[key]; ok && e.stamp == stamp {
		e.used = time.Now()
		return e.run
	}
	if len(s.memo) >= memoCap {
		oldest := ""
		for k, e := range s.memo {
			if oldest == "" || e.used.Before(s.memo[oldest].used) {
				oldest = k
			}
		}
		delete(s.memo, oldest)
	}
	m := run.Memoize()
	s.memo[key] = &memoEntry{stamp: stamp, run: m, used: time.Now()}
	return m
}

// seen reports whether the server has listed the run id before.
func (s *Server) seen(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rows[id]
	return ok
}

// withRun opens the run the path names for h, answering 404 when there
// is none.
func (s *Server) withRun(h func(http.ResponseWriter, *http.Request, *runlog.Run)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		run, err := s.openRun(r.Context(), r.PathValue("id"))
		if err != nil {
			fail(w, err)
			return
		}
		h(w, r, run)
	}
}

// Header is a run's description, from its run.json, with every secret
// masked.
type Header struct {
	ID              string            `json:"id"`
	Dir             string            `json:"dir"`
	Workload        string            `json:"workload"`
	WorkloadVersion string            `json:"workload_version,omitempty"`
	Status          string            `json:"status"`
	Error           string            `json:"error,omitempty"`
	Start           time.Time         `json:"start"`
	RampEnd         *time.Time        `json:"ramp_end,omitempty"`
	End             *time.Time        `json:"end,omitempty"`
	Command         []string          `json:"command"`
	Flags           map[string]string `json:"flags"`
	Tags            map[string]string `json:"tags,omitempty"`
	Series          []string          `json:"series"`
	StampedeVersion string            `json:"stampede_version"`
	ServerVersion   string            `json:"server_version,omitempty"`
	Endpoints       []string          `json:"endpoints,omitempty"`
	Database        string            `json:"database,omitempty"`
	Seed            uint64            `json:"seed"`
	Host            runlog.Host       `json:"host"`
	Limits          json.RawMessage   `json:"limits,omitempty"`
	Telemetry       json.RawMessage   `json:"telemetry,omitempty"`
}

// header returns run's Header, its secrets masked as `run` masks them
// when it saves run.json.
func header(run *runlog.Run) Header {
	info := run.Info
	secrets := cmdline.Secrets(info.Command)
	flags := redact.Flags(info.Flags, secrets)
	eps := make([]string, len(info.Endpoints))
	for i, e := range info.Endpoints {
		eps[i] = redact.Conn(e)
	}
	h := Header{
		ID: info.ID, Dir: run.Dir, Workload: info.Workload, WorkloadVersion: info.WorkloadVersion,
		Status: info.Status, Error: redact.ScrubText(redact.Text(info.Error), secrets),
		Start: info.Start, RampEnd: info.RampEnd, End: info.End,
		Command: cmdline.RedactArgs(info.Command), Flags: flags, Tags: redact.Tags(info.Tags, secrets),
		Series: info.Series, StampedeVersion: info.StampedeVersion, ServerVersion: info.ServerVersion,
		Endpoints: eps, Database: info.Database, Seed: info.Seed, Host: info.Host,
		Limits: info.Limits, Telemetry: info.Telemetry,
	}
	if h.RampEnd == nil {
		if t, ok := results.RampEnd(run, func(error) {}); ok && t.After(info.Start) {
			h.RampEnd = &t
		}
	}
	return h
}

// RunDoc is the answer of /api/runs/{id}.
type RunDoc struct {
	Run Header `json:"run"`
	// Report is `stampede report RUN --format json`'s document; null
	// when the run has no interval after its ramp-up yet (ReportError
	// says why).
	Report      *output.ReportDoc `json:"report"`
	ReportError string            `json:"report_error,omitempty"`
	// Summary is the run's summary.json (what the run printed at its
	// end: TPC-C's audits and checks among them); null while it runs or
	// when it was killed.
	Summary json.RawMessage `json:"summary"`
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	s.writeComputed(w, run, "run", func() (any, error) {
		doc := RunDoc{Run: header(run), Summary: run.Summary}
		rep, err := report(run, results.Window{})
		var we *results.WindowError
		switch {
		case errors.As(err, &we), err != nil && unreadable(run):
			// The run's header and summary are still shown, with why
			// there are no figures (a log damaged before its first
			// complete interval: where it stops, as report says).
			doc.ReportError = err.Error()
		case err != nil:
			return nil, err
		default:
			doc.Report = &rep
		}
		return doc, nil
	})
}

// unreadable reports whether run's log is damaged before its first
// complete interval: no window of it can be computed (report's error says
// where the log stops).
func unreadable(run *runlog.Run) bool {
	some := false // a complete interval: the read stops at the first
	err := run.Scan(func(*runlog.ScanInterval) error { some = true; return runlog.ErrStopScan })
	var trunc *runlog.TruncatedError
	return !some && errors.As(err, &trunc)
}

// report recomputes run's figures over window as `stampede report` does.
func report(run *runlog.Run, window results.Window) (output.ReportDoc, error) {
	runs := []*runlog.Run{run}
	view, _, err := results.Recompute(runs, window)
	if err != nil {
		return output.ReportDoc{}, err
	}
	return output.NewReportDoc(runs, view), nil
}

func (s *Server) handleWindow(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	q := r.URL.Query()
	from, err := results.ParseBound(q.Get("from"))
	if err != nil {
		fail(w, badRequest("from: %v", err))
		return
	}
	to, err := results.ParseBound(q.Get("to"))
	if err != nil {
		fail(w, badRequest("to: %v", err))
		return
	}
	window := results.Window{From: from, To: to}
	switch q.Get("include_ramp") {
	case "", "0", "false":
	case "1", "true":
		if from.IsSet() {
			fail(w, badRequest("give from or include_ramp, not both"))
			return
		}
		window.IncludeRamp = true
	default:
		fail(w, badRequest("include_ramp=%q: give 1 or 0", q.Get("include_ramp")))
		return
	}
	rep, err := report(run, window)
	var we *results.WindowError
	if errors.As(err, &we) {
		fail(w, badRequest("%v", err))
		return
	}
	if err != nil && unreadable(run) {
		fail(w, &httpError{http.StatusUnprocessableEntity, err.Error()})
		return
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, rep)
}

func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if len(q["a"])+len(q["b"])+len(q["a_tag"])+len(q["b_tag"]) > 0 {
		s.handleCompareGroups(w, r)
		return
	}
	ids := q["run"]
	if len(ids) < 2 {
		fail(w, badRequest("compare needs two runs or more: /api/compare?run=A&run=B"))
		return
	}
	var runs []*runlog.Run
	for _, id := range ids {
		run, err := s.openRun(r.Context(), id)
		if err != nil {
			fail(w, err)
			return
		}
		runs = append(runs, run)
	}
	// Each run beside the first, as `stampede compare FIRST RUN` sets
	// them.
	out := compareDoc{Base: runs[0].Info.ID}
	for _, run := range runs[1:] {
		c, views, err := results.Compare(runs[0], run)
		if err != nil {
			fail(w, err)
			return
		}
		output.CompareFigures(&c, [2]*runlog.Run{runs[0], run}, views) // the workload's figures, as compare prints them
		out.Comparisons = append(out.Comparisons, c)
	}
	writeJSON(w, out)
}
