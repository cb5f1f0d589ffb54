package dashboard_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

var t0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// spec describes a synthetic run.
type spec struct {
	id       string
	workload string
	start    time.Time
	tags     map[string]string
	n        int  // intervals
	rate     int  // read operations per interval
	ramp     int  // intervals of ramp-up
	running  bool // not finished: the writer is returned open
	info     func(*runlog.RunInfo)
}

// writeRun writes a run directory under root. A running run's writer is
// returned open (it holds the run's lock until the test ends).
func writeRun(t testing.TB, root string, s spec) *runlog.Writer {
	t.Helper()
	info := runlog.RunInfo{ID: s.id, Workload: s.workload, Series: []string{"read", "update"}, Start: s.start,
		Tags: s.tags, Seed: 42, Flags: map[string]string{"concurrency": "16"}, StampedeVersion: "test",
		Command: []string{"stampede", "run", s.workload}}
	if s.info != nil {
		s.info(&info)
	}
	w, err := runlog.Create(root, info)
	if err != nil {
		t.Fatal(err)
	}
	if s.ramp > 0 {
		if err := w.SetRampEnd(s.start.Add(time.Duration(s.ramp) * time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range s.n {
		writeInterval(t, w, s, i)
	}
	if s.running {
		t.Cleanup(func() { _ = w.Close() })
		return w
	}
	if err := w.Finish(s.start.Add(time.Duration(s.n)*time.Second), runlog.StatusCompleted, "", map[string]any{"note": "synthetic"}); err != nil {
		t.Fatal(err)
	}
	return w
}

// writeInterval writes interval i of the synthetic run s.
func writeInterval(t testing.TB, w *runlog.Writer, s spec, i int) {
	t.Helper()
	var ss []runlog.IntervalSeries
	for k, name := range []string{"read", "update"} {
		h := stats.NewHistogram()
		for j := range s.rate / (1 + 9*k) {
			_ = h.RecordValue(int64(100_000*(k+1) + j*1_000 + i*10_000))
		}
		ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: int64(k * (i % 2))})
	}
	st := s.start.Add(time.Duration(i) * time.Second)
	if err := w.WriteInterval(st, st.Add(time.Second), ss, map[string]float64{"reconnects": 0}); err != nil {
		t.Fatal(err)
	}
}

// serve starts the dashboard over root (and the store at url, if any).
func serve(t testing.TB, root, url string) *httptest.Server {
	t.Helper()
	cfg := dashboard.Config{Root: root, Poll: 20 * time.Millisecond}
	if url != "" {
		st, err := store.OpenReadOnly(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		cfg.Store, cfg.StoreName = st, url
	}
	srv := httptest.NewServer(dashboard.New(cfg))
	t.Cleanup(srv.Close)
	return srv
}

// get fetches url and returns the status and body.
func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// getJSON fetches url, which must answer 200, into v.
func getJSON(t testing.TB, url string, v any) {
	t.Helper()
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
}

// wantError checks that url answers code with a one-line JSON error
// containing want.
func wantError(t *testing.T, url string, code int, want string) {
	t.Helper()
	got, body := get(t, url)
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || got != code || !strings.Contains(e.Error, want) || strings.Contains(e.Error, "\n") {
		t.Errorf("GET %s: %d %s; want %d and an error with %q", url, got, body, code, want)
	}
}

// event is one server-sent event.
type event struct {
	id, name, data string
}

// events reads server-sent events from r into a channel, closed at the
// end of the stream.
func events(r io.Reader) <-chan event {
	ch := make(chan event, 100)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ch <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

// nextEvent returns the next event, failing after timeout.
func nextEvent(t *testing.T, ch <-chan event, timeout time.Duration) event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(timeout):
		t.Fatalf("no event within %v", timeout)
	}
	return event{}
}

// hashDir returns a digest of every file under root.
func hashDir(t testing.TB, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sums[p] = fmt.Sprintf("%x %v", sha256.Sum256(b), fi.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// coversEndpoints fails unless paths request every endpoint of the JSON
// API (dashboard.Endpoints): a test that must fetch them all names the one
// it leaves out, an endpoint added since included.
func coversEndpoints(t *testing.T, paths []string) {
	t.Helper()
	mux := http.NewServeMux()
	for _, p := range dashboard.Endpoints() {
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	seen := map[string]bool{}
	for _, p := range paths {
		_, pattern := mux.Handler(httptest.NewRequest(http.MethodGet, p, nil))
		seen[pattern] = true
	}
	for _, p := range dashboard.Endpoints() {
		if !seen[p] {
			t.Errorf("no request to the endpoint %s among %d", p, len(paths))
		}
	}
}
