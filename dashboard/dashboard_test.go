package dashboard_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

var specs = []spec{
	{id: "20261122-103512-ycsb-aaaa", workload: "ycsb", start: t0, tags: map[string]string{"db": "pg16", "job": "j1"}, n: 6, rate: 1000, ramp: 1},
	{id: "20261122-113512-ycsb-bbbb", workload: "ycsb", start: t0.Add(time.Hour), tags: map[string]string{"db": "pg17", "job": "j1"}, n: 4, rate: 2000},
	{id: "20261122-123512-tpcc-cccc", workload: "tpcc", start: t0.Add(2 * time.Hour), tags: map[string]string{"sweep": "s1"}, n: 3, rate: 500},
	{id: "20261123-103512-ycsb-dddd", workload: "ycsb", start: t0.Add(24 * time.Hour), n: 2, rate: 100, running: true},
}

// writeSpecs writes the synthetic runs into a new results directory.
func writeSpecs(t *testing.T) string {
	root := t.TempDir()
	for _, s := range specs {
		writeRun(t, root, s)
	}
	return root
}

// runsIDs returns the last four characters of the runs' IDs.
func runsIDs(p dashboard.RunsPage) string {
	var out []string
	for _, r := range p.Runs {
		out = append(out, r.ID[len(r.ID)-4:])
	}
	return strings.Join(out, ",")
}

// TestRunsList checks /api/runs: every run, the running one included,
// with the figures the store holds (store.Load's), filtered, sorted and
// paged, with the store and without it, and its bad parameters.
func TestRunsList(t *testing.T) {
	root := writeSpecs(t)
	dbDir := t.TempDir()
	rw, err := store.Open(context.Background(), store.DefaultURL(dbDir))
	if err != nil {
		t.Fatal(err)
	}
	// The store holds the first two runs only: the others are read from
	// their directories.
	for _, s := range specs[:2] {
		if err := rw.Index(context.Background(), filepath.Join(root, s.id)); err != nil {
			t.Fatal(err)
		}
	}
	rw.Close()
	for _, url := range []string{"", store.DefaultURL(dbDir)} {
		srv := serve(t, root, url)
		for _, c := range []struct {
			query, want string
			total       int
		}{
			{"", "dddd,cccc,bbbb,aaaa", 4},
			{"?sort=start", "aaaa,bbbb,cccc,dddd", 4},
			{"?workload=ycsb", "dddd,bbbb,aaaa", 3},
			{"?tag=db=pg17", "bbbb", 1},
			{"?tag=job=j1&tag=db=pg16", "aaaa", 1},
			{"?group=job=j1&sort=id", "aaaa,bbbb", 2},
			{"?group=sweep=s1", "cccc", 1},
			{"?status=running", "dddd", 1},
			{"?status=completed&sort=-ops_per_sec", "bbbb,aaaa,cccc", 3},
			{"?since=2026-11-22T11:00:00Z&until=2026-11-23", "cccc,bbbb", 2},
			{"?sort=start&per_page=3", "aaaa,bbbb,cccc", 4},
			{"?sort=start&per_page=3&page=2", "dddd", 4},
			{"?sort=start&per_page=3&page=3", "", 4},
			{"?workload=bank", "", 0},
		} {
			var p dashboard.RunsPage
			getJSON(t, srv.URL+"/api/runs"+c.query, &p)
			if got := runsIDs(p); got != c.want || p.Total != c.total {
				t.Errorf("store %q, %s: %s (total %d), want %s (total %d)", url, c.query, got, p.Total, c.want, c.total)
			}
		}
		var p dashboard.RunsPage
		getJSON(t, srv.URL+"/api/runs?sort=start", &p)
		if !slices.Equal(p.Workloads, []string{"tpcc", "ycsb"}) || !slices.Equal(p.Groups, []string{"job=j1", "sweep=s1"}) ||
			!slices.Equal(p.Statuses, []string{"completed", "running"}) {
			t.Errorf("choices: %v %v %v", p.Workloads, p.Groups, p.Statuses)
		}
		for i, r := range p.Runs {
			want, err := store.Load(filepath.Join(root, specs[i].id))
			if err != nil {
				t.Fatal(err)
			}
			want.Ops = nil
			if want.Status == runlog.StatusRunning && r.Status != runlog.StatusRunning {
				t.Errorf("%s: status %s, want running", r.ID, r.Status)
			}
			r.Dir, want.Dir = filepath.Clean(r.Dir), filepath.Clean(want.Dir)
			if !reflect.DeepEqual(r.RunRow, want) {
				t.Errorf("store %q: row %+v,\nwant (store.Load) %+v", url, r.RunRow, want)
			}
		}
		for _, c := range []struct{ query, want string }{
			{"?sort=fast", `sort="fast": sort by one of`},
			{"?page=0", `page="0": give a whole number`},
			{"?per_page=5000", "per_page=5000 is more than 1000"},
			{"?tag=novalue", "tag:"},
			{"?since=yesterday", "since:"},
			{"?since=2026-11-23&until=2026-11-22", "is not before until"},
			{"?colour=red", `unknown parameter "colour"`},
		} {
			wantError(t, srv.URL+"/api/runs"+c.query, http.StatusBadRequest, c.want)
		}
	}
}

// TestRunEndpoints checks the JSON of one run: its header, its report
// (results.Recompute's view with output's figures, the document `report
// --format json` prints), its series (results.TimeSeries in columns), a
// window, the telemetry, the downloads and compare; and the errors: 404
// for unknown runs and downloads, 400 for bad windows, 405 for writes.
func TestRunEndpoints(t *testing.T) {
	root := writeSpecs(t)
	srv := serve(t, root, "")
	a, b := specs[0].id, specs[1].id
	runA, err := runlog.Open(filepath.Join(root, a))
	if err != nil {
		t.Fatal(err)
	}
	runB, err := runlog.Open(filepath.Join(root, b))
	if err != nil {
		t.Fatal(err)
	}
	recompute := func(run *runlog.Run, w results.Window) output.ReportDoc {
		v, _, err := results.Recompute([]*runlog.Run{run}, w)
		if err != nil {
			t.Fatal(err)
		}
		return output.NewReportDoc([]*runlog.Run{run}, v)
	}
	// sameJSON compares got, a response, with want encoded.
	sameJSON := func(what string, got json.RawMessage, want any) {
		t.Helper()
		data, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", what, got, data)
		}
	}

	var doc struct {
		Run     dashboard.Header `json:"run"`
		Report  json.RawMessage  `json:"report"`
		Summary json.RawMessage  `json:"summary"`
	}
	getJSON(t, srv.URL+"/api/runs/"+a, &doc)
	if doc.Run.ID != a || doc.Run.Workload != "ycsb" || doc.Run.Status != "completed" || doc.Run.Tags["db"] != "pg16" ||
		doc.Run.RampEnd == nil || !doc.Run.RampEnd.Equal(t0.Add(time.Second)) || doc.Run.Flags["concurrency"] != "16" {
		t.Errorf("header: %+v", doc.Run)
	}
	sameJSON("report", doc.Report, recompute(runA, results.Window{}))
	sameJSON("summary", doc.Summary, map[string]any{"note": "synthetic"})

	code, body := get(t, srv.URL+"/api/runs/"+a+"/series")
	if code != http.StatusOK {
		t.Fatalf("series: %d %s", code, body)
	}
	ts, err := results.TimeSeries(runA)
	if err != nil {
		t.Fatal(err)
	}
	var series dashboard.SeriesDoc
	if err := json.Unmarshal(body, &series); err != nil {
		t.Fatal(err)
	}
	if len(series.Ops) != 2 || len(series.From) != 6 || series.RampEnd != 1 {
		t.Fatalf("series: %d ops, %d points, ramp %v", len(series.Ops), len(series.From), series.RampEnd)
	}
	for i, op := range ts.Ops {
		c := series.Ops[i]
		for k, p := range op.Points {
			got := results.OpPoint{Span: results.Span{From: series.From[k], To: series.To[k]}, Count: c.Count[k], Errors: c.Errors[k],
				Rate: c.Rate[k], P50: c.P50[k], P95: c.P95[k], P99: c.P99[k], Max: c.Max[k]}
			if c.Name != op.Name || got != p {
				t.Errorf("series %s point %d: %+v, TimeSeries %+v", c.Name, k, got, p)
			}
		}
	}

	for _, c := range []struct {
		query  string
		window results.Window
	}{
		{"?from=2s&to=4s", results.Window{From: results.Offset(2 * time.Second), To: results.Offset(4 * time.Second)}},
		{"?include_ramp=1", results.Window{IncludeRamp: true}},
		{"?to=3s", results.Window{To: results.Offset(3 * time.Second)}},
		{"?from=2026-11-22T10:35:15Z", results.Window{From: results.At(t0.Add(3 * time.Second))}},
	} {
		code, body := get(t, srv.URL+"/api/runs/"+a+"/window"+c.query)
		if code != http.StatusOK {
			t.Fatalf("window %s: %d %s", c.query, code, body)
		}
		sameJSON("window "+c.query, body, recompute(runA, c.window))
	}

	code, body = get(t, srv.URL+"/api/compare?run="+a+"&run="+b)
	if code != http.StatusOK {
		t.Fatalf("compare: %d %s", code, body)
	}
	cmpAB, views, err := results.Compare(runA, runB)
	if err != nil {
		t.Fatal(err)
	}
	output.CompareFigures(&cmpAB, [2]*runlog.Run{runA, runB}, views) // as stampede compare does
	sameJSON("compare", body, map[string]any{"base": a, "comparisons": []results.Comparison{cmpAB}})
	var three struct {
		Comparisons []results.Comparison `json:"comparisons"`
	}
	getJSON(t, srv.URL+"/api/compare?run="+a+"&run="+b+"&run="+specs[2].id, &three)
	if len(three.Comparisons) != 2 || three.Comparisons[1].B.ID != specs[2].id || three.Comparisons[1].A.ID != a {
		t.Errorf("compare of three: %+v", three)
	}

	var tel dashboard.TelemetryDoc
	getJSON(t, srv.URL+"/api/runs/"+a+"/telemetry", &tel)
	if tel.CPU != nil || len(tel.Disks) != 0 {
		t.Errorf("telemetry of a run without: %+v", tel)
	}

	code, body = get(t, srv.URL+"/api/runs/"+a+"/files/intervals.hlog")
	hlog, _ := os.ReadFile(filepath.Join(root, a, runlog.HlogFile))
	if code != http.StatusOK || string(body) != string(hlog) {
		t.Errorf("intervals.hlog: %d, %d bytes, want the file's %d", code, len(body), len(hlog))
	}
	code, body = get(t, srv.URL+"/api/runs/"+a+"/files/summary.json")
	if code != http.StatusOK {
		t.Errorf("summary.json: %d %s", code, body)
	}
	sameJSON("summary.json", body, map[string]any{"note": "synthetic"})
	code, body = get(t, srv.URL+"/api/runs/"+a+"/files/series.csv")
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if code != http.StatusOK || len(lines) != 1+2*6 || lines[0] != "op,from_s,to_s,count,errors,ops_per_sec,p50_ms,p95_ms,p99_ms,max_ms" {
		t.Errorf("series.csv: %d, %d lines: %s", code, len(lines), body)
	}
	p := ts.Ops[1].Points[3]
	if want := fmt.Sprintf("update,%v,%v,%d,%d,%v,%v,%v,%v,%v", p.From, p.To, p.Count, p.Errors, p.Rate, p.P50, p.P95, p.P99, p.Max); lines[1+6+3] != want {
		t.Errorf("series.csv line %d: %s, want %s", 1+6+3, lines[1+6+3], want)
	}

	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/api/runs/20261122-000000-ycsb-none", 404, "no run 20261122-000000-ycsb-none in"},
		{"/api/runs/20261122-000000-ycsb-none/series", 404, "no run"},
		{"/api/runs/..%2F..%2Fetc/series", 404, "a run ID is made of"},
		{"/api/runs/" + a + "/files/run.json", 404, `no download "run.json"`},
		{"/api/runs/" + specs[3].id + "/files/summary.json", 404, "still running"},
		{"/api/runs/" + a + "/window?from=1500ms&to=1600ms", 400, "the nearest exact window is --from 1s --to 2s"},
		{"/api/runs/" + a + "/window?from=soon", 400, "from: malformed time"},
		{"/api/runs/" + a + "/window?from=1s&include_ramp=1", 400, "not both"},
		{"/api/compare?run=" + a, 400, "two runs or more"},
		{"/api/compare?run=" + a + "&run=nope", 404, "no run nope"},
		{"/api/nothing", 404, "no such endpoint"},
	} {
		wantError(t, srv.URL+c.path, c.code, c.want)
	}
	resp, err := http.Post(srv.URL+"/api/runs", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
}

// secret is a password planted in a run directory, as an older or a
// careless writer would have left it.
const secret = "Pl4nted-S3cret"

// TestNoSecretInAnyResponse plants a password everywhere a run directory
// can hold text (command line, flags, tags, endpoints, error, events,
// summary) and fetches every endpoint and download: none may hold it.
func TestNoSecretInAnyResponse(t *testing.T) {
	root := writeSpecs(t)
	url := "postgres://bob:" + secret + "@db.example:5432/bench?sslmode=disable"
	s := spec{id: "20261122-133512-ycsb-eeee", workload: "ycsb", start: t0.Add(3 * time.Hour), n: 3, rate: 100, running: true,
		tags: map[string]string{"dsn": url, "note": "password=" + secret, "job": "secretjob", "sweep": "secretsweep", "sweep_step": "1"},
		info: func(info *runlog.RunInfo) {
			info.Command = []string{"stampede", "run", "ycsb", url, "--password", secret, "password=" + secret, "--max-rate", "100,200"}
			info.Flags = map[string]string{"concurrency": "4", "password": secret, "dsn": url, "pgsql-password": secret, "max-rate": "100", "slo": "p99<50ms"}
			info.Endpoints = []string{url}
		}}
	w := writeRun(t, root, s)
	w.Event(runlog.Event{Time: t0.Add(3*time.Hour + time.Second), Kind: "error", Op: "read", Code: "08006", Message: "connect " + url + " failed"})
	summary := map[string]any{"dsn": url, "text": "password=" + secret, "total": map[string]any{"count": 300},
		"audits": []map[string]string{{"name": "connect " + url, "result": "PASS", "value": "password=" + secret}},
		"checks": []map[string]string{{"name": "W_YTD = sum(D_YTD)", "clause": "3.3.2.1", "result": "FAIL", "value": url}}, "checks_error": "lost " + url}
	if err := w.Finish(t0.Add(3*time.Hour+3*time.Second), runlog.StatusFailed, "lost "+url, summary); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, root, "")
	paths := []string{"/api/runs", "/api/runs?tag=note=password=" + secret}
	for _, sub := range []string{"", "/series", "/window", "/window?include_ramp=1", "/telemetry", "/live", "/files/intervals.hlog", "/files/summary.json", "/files/series.csv"} {
		paths = append(paths, "/api/runs/"+s.id+sub)
	}
	paths = append(paths, "/api/compare?run="+s.id+"&run="+specs[0].id, "/api/merge?tag=job=secretjob", "/api/merge?tag=dsn="+url,
		"/api/sweeps/secretsweep", "/", "/app.js")
	coversEndpoints(t, paths)
	for _, p := range paths {
		code, body := get(t, srv.URL+p)
		if strings.Contains(string(body), secret) {
			t.Errorf("GET %s (%d) holds the password: %s", p, code, body)
		}
		if code >= 500 {
			t.Errorf("GET %s: %d %s", p, code, body)
		}
	}
	var doc struct {
		Run dashboard.Header `json:"run"`
	}
	getJSON(t, srv.URL+"/api/runs/"+s.id, &doc)
	if doc.Run.Flags["dsn"] != "postgres://bob:xxxxx@db.example:5432/bench?sslmode=disable" || doc.Run.Flags["password"] != "xxxxx" {
		t.Errorf("flags not masked as run masks them: %v", doc.Run.Flags)
	}
}

// TestLive appends intervals to a live run's log and reads them back as
// server-sent events, each as it is committed, with the figures
// results.IntervalPoints computes; then the run ends and an "end" event
// closes the stream. A browser that reconnects gets only the intervals
// after the last it saw.
func TestLive(t *testing.T) {
	root := t.TempDir()
	s := spec{id: "20261122-143512-ycsb-live", workload: "ycsb", start: t0, n: 1, rate: 300, running: true}
	w := writeRun(t, root, s)
	srv := serve(t, root, "")

	// The run appears in the list at once.
	var p dashboard.RunsPage
	getJSON(t, srv.URL+"/api/runs", &p)
	if len(p.Runs) != 1 || p.Runs[0].Status != runlog.StatusRunning {
		t.Fatalf("runs: %+v", p.Runs)
	}

	resp, err := http.Get(srv.URL + "/api/runs/" + s.id + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	ch := events(resp.Body)
	run, err := runlog.Open(filepath.Join(root, s.id))
	if err != nil {
		t.Fatal(err)
	}
	check := func(k int) {
		t.Helper()
		ev := nextEvent(t, ch, 5*time.Second)
		if ev.name != "interval" || ev.id != fmt.Sprint(k+1) {
			t.Fatalf("event %d: %+v", k+1, ev)
		}
		var got dashboard.LiveInterval
		if err := json.Unmarshal([]byte(ev.data), &got); err != nil {
			t.Fatal(err)
		}
		ivs, err := run.Intervals()
		if err != nil || len(ivs) <= k {
			t.Fatalf("intervals: %d %v", len(ivs), err)
		}
		want := results.IntervalPoints(run, &ivs[k])
		if got.N != k+1 || got.From != float64(k) || got.To != float64(k+1) || !reflect.DeepEqual(got.Ops, want) {
			t.Errorf("interval %d: %+v, want %+v", k+1, got, want)
		}
	}
	check(0)
	for k := 1; k <= 3; k++ {
		// Nothing comes before the interval is committed.
		select {
		case ev := <-ch:
			t.Fatalf("event before interval %d was written: %+v", k+1, ev)
		case <-time.After(60 * time.Millisecond):
		}
		writeInterval(t, w, s, k)
		check(k)
	}
	if err := w.Finish(t0.Add(4*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ch, 5*time.Second)
	var end dashboard.LiveEnd
	if err := json.Unmarshal([]byte(ev.data), &end); err != nil || ev.name != "end" || end.Status != "completed" || end.Intervals != 4 {
		t.Fatalf("end: %+v %+v %v", ev, end, err)
	}
	if _, ok := <-ch; ok {
		t.Errorf("the stream goes on after the end")
	}

	req, _ := http.NewRequest("GET", srv.URL+"/api/runs/"+s.id+"/live", nil)
	req.Header.Set("Last-Event-ID", "2")
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var ids []string
	for ev := range events(resp2.Body) {
		ids = append(ids, ev.name+ev.id)
	}
	if strings.Join(ids, ",") != "interval3,interval4,end" {
		t.Errorf("after reconnecting at 2: %v", ids)
	}
}

// TestDamagedAndGone checks a run whose log is damaged (its figures up
// to the damage, with report's warning saying where it stops; the live
// stream sends what is readable, then "damaged") and a run directory
// deleted while it is followed or after it was listed (404 with a clear
// error; the live stream sends "gone").
func TestDamagedAndGone(t *testing.T) {
	root := writeSpecs(t)
	srv := serve(t, root, "")
	a := specs[0].id
	// Served once whole, kept (a finished run's answers are), then
	// damaged: what is served follows the files.
	var whole struct {
		Report *output.ReportDoc `json:"report"`
	}
	getJSON(t, srv.URL+"/api/runs/"+a, &whole)
	getJSON(t, srv.URL+"/api/runs/"+a+"/series", &dashboard.SeriesDoc{})
	if whole.Report == nil || whole.Report.Intervals != 5 {
		t.Fatalf("before the damage: %+v", whole.Report)
	}
	hlog := filepath.Join(root, a, runlog.HlogFile)
	data, err := os.ReadFile(hlog)
	if err != nil {
		t.Fatal(err)
	}
	// Damage the histogram line of read in the fifth interval (lines:
	// 5 of header, then 2 a interval).
	lines := strings.SplitAfter(string(data), "\n")
	lines[5+2*4] = "Tag=read,garbage\n"
	if err := os.WriteFile(hlog, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Report *output.ReportDoc `json:"report"`
	}
	getJSON(t, srv.URL+"/api/runs/"+a, &doc)
	if doc.Report == nil || doc.Report.Intervals != 3 || len(doc.Report.Warnings) != 1 || !strings.Contains(doc.Report.Warnings[0], "intervals.hlog is truncated at line 14") {
		t.Errorf("damaged run: %+v", doc.Report)
	}
	var series dashboard.SeriesDoc
	getJSON(t, srv.URL+"/api/runs/"+a+"/series", &series)
	if len(series.From) != 4 || len(series.Warnings) != 1 || !strings.Contains(series.Warnings[0], "showing the 4 complete intervals") {
		t.Errorf("damaged series: %d points, %v", len(series.From), series.Warnings)
	}
	resp, err := http.Get(srv.URL + "/api/runs/" + a + "/live")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var last event
	for ev := range events(resp.Body) {
		names, last = append(names, ev.name), ev
	}
	resp.Body.Close()
	if strings.Join(names, ",") != "interval,interval,interval,interval,damaged" || !strings.Contains(last.data, "truncated at line 14") {
		t.Errorf("live over a damaged log: %v, last %+v", names, last)
	}

	// A log damaged in its first interval: the run's header and summary
	// are served, with report's error saying where the log stops instead
	// of figures; a window says so too (422), one line.
	c := specs[2].id
	chlog := filepath.Join(root, c, runlog.HlogFile)
	cdata, err := os.ReadFile(chlog)
	if err != nil {
		t.Fatal(err)
	}
	clines := strings.SplitAfter(string(cdata), "\n")
	clines[5] = "Tag=read,garbage\n"
	if err := os.WriteFile(chlog, []byte(strings.Join(clines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	var first struct {
		Run         dashboard.Header  `json:"run"`
		Report      *output.ReportDoc `json:"report"`
		ReportError string            `json:"report_error"`
		Summary     json.RawMessage   `json:"summary"`
	}
	if code, body := get(t, srv.URL+"/api/runs/"+c); code != http.StatusOK || json.Unmarshal(body, &first) != nil {
		t.Fatalf("a log damaged in its first interval: %d %s", code, body)
	}
	if first.Run.ID != c || first.Report != nil || len(first.Summary) == 0 ||
		!strings.Contains(first.ReportError, "intervals.hlog is truncated at line 6") || !strings.Contains(first.ReportError, "before its first complete interval") {
		t.Errorf("a log damaged in its first interval: run %q, report %v, summary %s, error %q", first.Run.ID, first.Report, first.Summary, first.ReportError)
	}
	wantError(t, srv.URL+"/api/runs/"+c+"/window?from=1s", http.StatusUnprocessableEntity, "intervals.hlog is truncated at line 6")

	// A live run deleted while followed.
	d := specs[3].id
	resp, err = http.Get(srv.URL + "/api/runs/" + d + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ch := events(resp.Body)
	for range 2 {
		if ev := nextEvent(t, ch, 5*time.Second); ev.name != "interval" {
			t.Fatalf("%+v", ev)
		}
	}
	if err := os.RemoveAll(filepath.Join(root, d)); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ch, 5*time.Second); ev.name != "gone" || !strings.Contains(ev.data, "deleted or moved") {
		t.Errorf("after deleting a followed run: %+v", ev)
	}
	b := specs[1].id
	var p dashboard.RunsPage
	getJSON(t, srv.URL+"/api/runs", &p)
	if err := os.RemoveAll(filepath.Join(root, b)); err != nil {
		t.Fatal(err)
	}
	wantError(t, srv.URL+"/api/runs/"+b, http.StatusNotFound, "run "+b+" is gone: its directory "+filepath.Join(root, b)+" was deleted or moved")
	wantError(t, srv.URL+"/api/runs/"+b+"/series", http.StatusNotFound, "is gone")
	getJSON(t, srv.URL+"/api/runs", &p)
	if runsIDs(p) != "cccc,aaaa" {
		t.Errorf("runs after deleting two: %s", runsIDs(p))
	}
}

// TestWritesNothing fetches every endpoint of every run and checks that
// no file under the results directory, the store's included, changed.
// SQLite's own -wal and -shm files, which any reader of a database in WAL
// mode opens beside it (and the last one to close removes), are not the
// store's content and are left out.
func TestWritesNothing(t *testing.T) {
	root := writeSpecs(t)
	rw, err := store.Open(context.Background(), store.DefaultURL(root))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.Sync(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	before := hashDir(t, root)
	srv := serve(t, root, store.DefaultURL(root))
	paths := []string{"/", "/app.js", "/api/runs", "/api/runs?sort=-start&page=2&per_page=1", "/api/compare?run=" + specs[0].id + "&run=" + specs[1].id,
		"/api/merge?tag=job=j1", "/api/sweeps/s1", "/api/sweeps/nosuch", "/api/runs/nosuch", "/api/nosuch"}
	for _, s := range specs {
		for _, sub := range []string{"", "/series", "/window?from=1s", "/window?include_ramp=1", "/telemetry", "/live", "/files/intervals.hlog", "/files/summary.json", "/files/series.csv", "/files/run.json"} {
			paths = append(paths, "/api/runs/"+s.id+sub)
		}
	}
	coversEndpoints(t, paths)
	client := &http.Client{Timeout: 2 * time.Second} // a live run's stream does not end
	for _, p := range paths {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			if strings.HasSuffix(p, "/live") {
				continue
			}
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after := hashDir(t, root)
	for p := range after {
		if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
			delete(after, p)
		}
	}
	if !reflect.DeepEqual(before, after) {
		for p, h := range after {
			if before[p] != h {
				t.Errorf("%s changed or appeared", p)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("%s was removed", p)
			}
		}
	}
}

// TestRuns10k lists a synthetic store of 10,000 runs a page at a time
// and sorted, and logs how long a page takes (the target, under 300 ms
// for the runs page, is measured in the browser test).
func TestRuns10k(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, store.DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, SynthRows(10_000), nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv := serve(t, t.TempDir(), store.DefaultURL(dir))
	start := time.Now()
	var p dashboard.RunsPage
	getJSON(t, srv.URL+"/api/runs?per_page=100&sort=-p99_ms", &p)
	took := time.Since(start)
	if p.Total != 10_000 || len(p.Runs) != 100 || p.Runs[0].P99 < p.Runs[99].P99 {
		t.Fatalf("total %d, %d runs", p.Total, len(p.Runs))
	}
	getJSON(t, srv.URL+"/api/runs?per_page=100&page=100&sort=start&tag=db=pg15", &p)
	if p.Total != 2_500 || len(p.Runs) != 0 {
		t.Errorf("db=pg15: total %d, %d runs on page 100", p.Total, len(p.Runs))
	}
	start = time.Now()
	getJSON(t, srv.URL+"/api/runs?per_page=100&sort=-p99_ms", &p)
	t.Logf("/api/runs over 10,000 runs: %v, then %v with the store's rows read", took, time.Since(start))
}

// SynthRows returns n synthetic rows of completed runs, one a minute, in
// a results directory elsewhere (a store shared by a team).
func SynthRows(n int) []store.RunRow {
	rows := make([]store.RunRow, n)
	for i := range rows {
		start := t0.Add(time.Duration(i) * time.Minute)
		end := start.Add(time.Minute)
		rows[i] = store.RunRow{
			ID: fmt.Sprintf("%s-ycsb-%04x", start.Format("20060102-150405"), i), Dir: "/elsewhere/runs/x", Workload: "ycsb",
			Start: start, End: &end, Status: "completed", Seed: uint64(i), Concurrency: 16,
			Tags: map[string]string{"db": fmt.Sprint("pg", 14+i%4), "job": fmt.Sprint("j", i/10)}, StampedeVersion: "v0.1.0",
			Seconds: 60, Intervals: 60, Count: int64(1000 * i), OpsPerSec: float64(i % 977), P50: 1, P95: 2, P99: float64(i % 101), P999: 4, Max: 5,
		}
	}
	return rows
}

// TestVendoredUplot checks the vendored uPlot files against the sha256
// sums assets/README.md records for them (those of uplot@1.6.32's npm
// tarball), and that the page loads them from the binary, not the network.
func TestVendoredUplot(t *testing.T) {
	readme, err := os.ReadFile("assets/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"uPlot.iife.min.js", "uPlot.min.css", "LICENSE"} {
		data, err := os.ReadFile(filepath.Join("assets/vendor/uplot", name))
		if err != nil {
			t.Fatal(err)
		}
		sum := fmt.Sprintf("%x", sha256.Sum256(data))
		if !strings.Contains(string(readme), "`"+name+"` sha256 | `"+sum+"`") {
			t.Errorf("%s: sha256 %s is not the one assets/README.md records", name, sum)
		}
	}
	srv := serve(t, t.TempDir(), "")
	code, body := get(t, srv.URL+"/")
	if code != 200 || strings.Contains(string(body), "http") {
		t.Errorf("index: %d %s", code, body)
	}
	if _, js := get(t, srv.URL+"/app.js"); !strings.Contains(string(js), `src: 'vendor/uplot/uPlot.iife.min.js'`) {
		t.Errorf("app.js does not load the vendored uPlot")
	}
	for _, p := range []string{"/vendor/uplot/uPlot.iife.min.js", "/app.js", "/app.css"} {
		if code, body := get(t, srv.URL+p); code != 200 || len(body) == 0 {
			t.Errorf("%s: %d", p, code)
		}
	}
}

// TestLiveKilled follows a run whose process dies (its writer closed
// without finishing, as kill -9 leaves it): the stream sends its
// intervals, then "end" with the status killed, which runs and report
// give such a run.
func TestLiveKilled(t *testing.T) {
	root := t.TempDir()
	s := spec{id: "20261122-143512-ycsb-kill", workload: "ycsb", start: t0, n: 2, rate: 100, running: true}
	w := writeRun(t, root, s)
	srv := serve(t, root, "")
	resp, err := http.Get(srv.URL + "/api/runs/" + s.id + "/live")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ch := events(resp.Body)
	for range 2 {
		if ev := nextEvent(t, ch, 5*time.Second); ev.name != "interval" {
			t.Fatalf("%+v", ev)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ch, 5*time.Second)
	var end dashboard.LiveEnd
	if err := json.Unmarshal([]byte(ev.data), &end); err != nil || ev.name != "end" || end.Status != runlog.StatusKilled || end.Intervals != 2 {
		t.Errorf("end of a killed run: %+v %+v %v", ev, end, err)
	}
}
