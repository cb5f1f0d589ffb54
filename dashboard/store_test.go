package dashboard_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// TestRunFromStore (issue 31): a run a PostgreSQL store holds whole, whose
// directory is not on the dashboard's machine, is served from the store:
// every endpoint answers as it did from the directory.
func TestRunFromStore(t *testing.T) {
	ctx := context.Background()
	st, u := pgStore(t, "store31_dash")

	elsewhere := t.TempDir()
	s := spec{id: "20261122-103512-ycsb-dash", workload: "ycsb", start: t0, n: 6, rate: 500, ramp: 1}
	writeRun(t, elsewhere, s)
	dir := filepath.Join(elsewhere, s.id)
	if _, err := st.Ship(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if err := st.Index(ctx, dir); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/runs/" + s.id, "/api/runs/" + s.id + "/series", "/api/runs/" + s.id + "/window?from=1s&to=4s",
		"/api/runs/" + s.id + "/files/summary.json"}
	fromDir := serve(t, elsewhere, "")
	want := map[string]string{}
	for _, p := range paths {
		code, body := get(t, fromDir.URL+p)
		if code != http.StatusOK {
			t.Fatalf("%s from the directory: %d %s", p, code, body)
		}
		want[p] = string(body)
	}
	if err := os.RemoveAll(elsewhere); err != nil {
		t.Fatal(err)
	}

	ro, err := store.OpenReadOnly(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	fetch := t.TempDir()
	srv := httptest.NewServer(dashboard.New(dashboard.Config{Root: t.TempDir(), Store: ro, StoreName: "store", FetchDir: fetch}))
	defer srv.Close()
	for _, p := range paths {
		code, body := get(t, srv.URL+p)
		if code != http.StatusOK {
			t.Fatalf("%s from the store: %d %s", p, code, body)
		}
		// The run's header says where it was read: the fetched copy.
		if got := strings.ReplaceAll(string(body), filepath.Join(fetch, "1", s.id), dir); got != want[p] {
			t.Errorf("%s from the store differs:\n%s\nfrom the directory:\n%s", p, got, want[p])
		}
	}
	// Without a place to fetch to, the gone directory is said as before.
	plain := httptest.NewServer(dashboard.New(dashboard.Config{Root: t.TempDir(), Store: ro, StoreName: "store"}))
	defer plain.Close()
	wantError(t, plain.URL+"/api/runs/"+s.id, http.StatusNotFound, "its directory "+dir+" is gone")
}

// TestLiveRunFromStore (issue 31): a run in progress that its writer
// ships into a PostgreSQL store, and whose directory is not on the
// dashboard's machine, is listed and shown as running (not killed: no
// process holds a lock on the fetched copy), with the intervals shipped
// so far; once its writer has been silent for longer than
// store.StaleAfter its beat (the store's record of its last ship moved
// back, as a writer killed that long ago leaves it), as killed.
func TestLiveRunFromStore(t *testing.T) {
	ctx := context.Background()
	st, u := pgStore(t, "store31_dashlive")

	s := spec{id: "20261122-103512-ycsb-dlive", workload: "ycsb", start: t0, n: 3, rate: 500, running: true,
		tags: map[string]string{"job": "dlive"}}
	w := writeRun(t, t.TempDir(), s)
	const beat = time.Second
	if _, err := st.ShipLive(ctx, w.Dir(), beat); err != nil {
		t.Fatal(err)
	}
	adm, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	// The run's directory is on the client's machine, not the
	// dashboard's (where its writer's lock would say it runs).
	if _, err := adm.Exec(`UPDATE stampede_runs SET dir = $1`, filepath.Join(t.TempDir(), "client-machine", s.id)); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv := httptest.NewServer(dashboard.New(dashboard.Config{Root: t.TempDir(), Store: ro, StoreName: "store", FetchDir: t.TempDir()}))
	defer srv.Close()
	status := func(when, want string, intervals int) {
		t.Helper()
		// The list is read from the store again every couple of
		// seconds (storeTTL): wait for a listing that has it.
		deadline := time.Now().Add(10 * time.Second)
		var page dashboard.RunsPage
		for {
			getJSON(t, srv.URL+"/api/runs", &page)
			if len(page.Runs) == 1 && page.Runs[0].Status == want || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if len(page.Runs) != 1 || page.Runs[0].ID != s.id || page.Runs[0].Status != want {
			t.Errorf("%s: /api/runs lists %+v, want the run %s", when, page.Runs, want)
		}
		var doc dashboard.RunDoc
		getJSON(t, srv.URL+"/api/runs/"+s.id, &doc)
		if doc.Run.Status != want || doc.Report == nil || doc.Report.View.Intervals != intervals {
			t.Errorf("%s: /api/runs/%s: status %s, report %+v; want %s with %d intervals", when, s.id, doc.Run.Status, doc.Report, want, intervals)
		}
	}
	status("at its start", runlog.StatusRunning, 3)
	writeInterval(t, w, s, 3)
	if _, err := st.ShipLive(ctx, w.Dir(), beat); err != nil {
		t.Fatal(err)
	}
	status("an interval later", runlog.StatusRunning, 4)
	if _, err := adm.Exec(`UPDATE stampede_run_live SET shipped_at = now() - make_interval(secs => $1)`, (store.StaleAfter(beat) + time.Second).Seconds()); err != nil {
		t.Fatal(err)
	}
	status("its writer silent for longer than StaleAfter", runlog.StatusKilled, 4)
}

// TestLiveStreamFromStore (issue 31): the live view of a run in progress
// read from the results store grows as its writer ships intervals into
// the store (the copy the dashboard fetched is brought up to date), and
// ends with the run's status once the writer ships its end.
func TestLiveStreamFromStore(t *testing.T) {
	ctx := context.Background()
	st, u := pgStore(t, "store31_dashstream")
	s := spec{id: "20261122-103512-ycsb-dstream", workload: "ycsb", start: t0, n: 2, rate: 100, running: true}
	w := writeRun(t, t.TempDir(), s)
	if _, err := st.ShipLive(ctx, w.Dir(), time.Second); err != nil {
		t.Fatal(err)
	}
	adm, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	if _, err := adm.Exec(`UPDATE stampede_runs SET dir = $1`, filepath.Join(t.TempDir(), "client-machine", s.id)); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv := httptest.NewServer(dashboard.New(dashboard.Config{Root: t.TempDir(), Store: ro, StoreName: "store", FetchDir: t.TempDir(), Poll: 50 * time.Millisecond}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/runs/" + s.id + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ch := events(resp.Body)
	for n := 1; n <= 2; n++ {
		if ev := nextEvent(t, ch, 10*time.Second); ev.name != "interval" || ev.id != fmt.Sprint(n) {
			t.Fatalf("event %+v, want interval %d", ev, n)
		}
	}
	for i := 2; i < 4; i++ {
		writeInterval(t, w, s, i)
		if _, err := st.ShipLive(ctx, w.Dir(), time.Second); err != nil {
			t.Fatal(err)
		}
		if ev := nextEvent(t, ch, 10*time.Second); ev.name != "interval" || ev.id != fmt.Sprint(i+1) {
			t.Fatalf("event %+v, want interval %d, shipped into the store", ev, i+1)
		}
	}
	if err := w.Finish(t0.Add(4*time.Second), runlog.StatusCompleted, "", map[string]any{"note": "synthetic"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ShipLive(ctx, w.Dir(), time.Second); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ch, 10*time.Second)
	var end dashboard.LiveEnd
	if ev.name != "end" || json.Unmarshal([]byte(ev.data), &end) != nil || end.Status != runlog.StatusCompleted || end.Intervals != 4 {
		t.Errorf("event %+v, want the end: completed after 4 intervals", ev)
	}
}

// pgStore opens a results store in a new database of the test server
// (named prefix_N, dropped at the end), or skips without one; it returns
// the store and its URL.
func pgStore(t *testing.T, prefix string) (*store.Store, *url.URL) {
	t.Helper()
	admin := os.Getenv("STAMPEDE_TEST_DATABASE")
	if admin == "" {
		t.Skip("Skipping due to missing environment variable STAMPEDE_TEST_DATABASE")
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer db.Close()
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	st, err := store.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, u
}
