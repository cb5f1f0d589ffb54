package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/internal/cli"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// stampede runs the command line in-process and returns its stdout,
// failing the test unless it exits 0.
func stampede(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.MainContext(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("stampede %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return out.Bytes()
}

// decode unmarshals JSON into a generic value, for comparing documents.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return v
}

// TestSameAsTheVerbs does two real runs (the null driver, a URL with a
// password) and checks that the dashboard serves the numbers of the
// verbs, the independent truth: /api/runs/{id}'s report is `stampede
// report ID --format json`, a window is `report --from --to`, /api/compare
// is `stampede compare A B --format json` (and of groups, `compare A1,A2
// --b-tag side=b`), and /api/runs lists the rows
// `stampede runs --format json` lists; and that no response holds the
// password.
func TestSameAsTheVerbs(t *testing.T) {
	root := t.TempDir()
	const pw = "Hunter2-Verbs"
	url := "postgres://bob:" + pw + "@127.0.0.1:1/nowhere"
	for _, seed := range []string{"1", "2"} {
		stampede(t, "run", "ycsb", "--driver", "null", "--duration", "2s", "--display-every", "250ms", "--ramp", "500ms",
			"--concurrency", "2", "--seed", seed, "--results-dir", root, "--tag", "job=verbs", "--tag", "dsn="+url, url)
	}
	// Two more runs, side B of a group compare (the job's two are A).
	for _, seed := range []string{"3", "4"} {
		stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--display-every", "250ms",
			"--concurrency", "2", "--seed", seed, "--results-dir", root, "--tag", "side=b", url)
	}
	rows := stampede(t, "runs", "--results-dir", root, "--format", "json", "--tag", "job=verbs")
	var listed []store.RunRow
	if err := json.Unmarshal(rows, &listed); err != nil || len(listed) != 2 {
		t.Fatalf("runs: %v %s", err, rows)
	}
	a, b := listed[0].ID, listed[1].ID
	srv := serve(t, root, store.DefaultURL(root))

	check := func(what, path string, want []byte) {
		t.Helper()
		code, body := get(t, srv.URL+path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", what, code, body)
		}
		if strings.Contains(string(body), pw) {
			t.Errorf("%s holds the password", what)
		}
		if got, w := decode(t, body), decode(t, want); !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %s\nwant %s", what, body, want)
		}
	}
	var doc struct {
		Report json.RawMessage `json:"report"`
	}
	for _, id := range []string{a, b} {
		getJSON(t, srv.URL+"/api/runs/"+id, &doc)
		if got, want := decode(t, doc.Report), decode(t, stampede(t, "report", id, "--results-dir", root, "--format", "json")); !reflect.DeepEqual(got, want) {
			t.Errorf("run %s: report\n got %s\nwant the verb's", id, doc.Report)
		}
		// A window of the run's second interval, from the run's own
		// bounds (a slow machine stretches its intervals): from just
		// before its start to just before the third's.
		var series dashboard.SeriesDoc
		getJSON(t, srv.URL+"/api/runs/"+id+"/series", &series)
		if len(series.From) < 3 {
			t.Fatalf("run %s has %d intervals", id, len(series.From))
		}
		from, to := fmt.Sprintf("%.6fs", series.From[1]-0.001), fmt.Sprintf("%.6fs", series.From[2]-0.001)
		check("window", "/api/runs/"+id+"/window?from="+from+"&to="+to,
			stampede(t, "report", id, "--results-dir", root, "--format", "json", "--from", from, "--to", to))
		check("window with the ramp", "/api/runs/"+id+"/window?include_ramp=1",
			stampede(t, "report", id, "--results-dir", root, "--format", "json", "--include-ramp"))
	}
	var cmp struct {
		Comparisons []json.RawMessage `json:"comparisons"`
	}
	getJSON(t, srv.URL+"/api/compare?run="+a+"&run="+b, &cmp)
	if got, want := decode(t, cmp.Comparisons[0]), decode(t, stampede(t, "compare", a, b, "--results-dir", root, "--format", "json")); !reflect.DeepEqual(got, want) {
		t.Errorf("compare:\n got %s", cmp.Comparisons[0])
	}
	// Two groups, A by IDs and B by tag: compare A1,A2 --b-tag side=b.
	check("compare of groups", "/api/compare?a="+a+"&a="+b+"&b_tag=side=b",
		stampede(t, "compare", a+","+b, "--b-tag", "side=b", "--results-dir", root, "--format", "json"))
	wantError(t, srv.URL+"/api/compare?a="+a+"&b_tag=side=b", http.StatusBadRequest, "side A has 1 run and side B 2 runs")
	// The job's clients merged: report --tag's document, each client's
	// own total (report ID's), and shares that add up to the whole.
	var merged struct {
		Report  json.RawMessage    `json:"report"`
		Clients []dashboard.Client `json:"clients"`
	}
	getJSON(t, srv.URL+"/api/merge?tag=job=verbs", &merged)
	if got, want := decode(t, merged.Report), decode(t, stampede(t, "report", "--tag", "job=verbs", "--results-dir", root, "--format", "json")); !reflect.DeepEqual(got, want) {
		t.Errorf("merge:\n got %s", merged.Report)
	}
	var mergedTotal struct {
		Total struct {
			Count int64 `json:"count"`
		} `json:"total"`
	}
	if err := json.Unmarshal(merged.Report, &mergedTotal); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for i, c := range merged.Clients {
		var own struct {
			Total json.RawMessage `json:"total"`
		}
		if err := json.Unmarshal(stampede(t, "report", c.ID, "--results-dir", root, "--format", "json"), &own); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(c.Total)
		if c.ID != []string{a, b}[i] || !reflect.DeepEqual(decode(t, got), decode(t, own.Total)) {
			t.Errorf("client %d: %s %s, report's %s", i, c.ID, got, own.Total)
		}
		if want := float64(c.Total.Count) / float64(mergedTotal.Total.Count); c.Share != want {
			t.Errorf("client %s: share %v, want %v", c.ID, c.Share, want)
		}
		sum += c.Total.Count
	}
	if sum != mergedTotal.Total.Count || len(merged.Clients) != 2 {
		t.Errorf("the clients' operations add up to %d, the merge has %d", sum, mergedTotal.Total.Count)
	}
	wantError(t, srv.URL+"/api/merge?tag=job=none", http.StatusBadRequest, "has the tags job=none")
	wantError(t, srv.URL+"/api/merge", http.StatusBadRequest, "name the runs to merge")

	var page dashboard.RunsPage
	getJSON(t, srv.URL+"/api/runs?sort=start&group=job=verbs", &page)
	if len(page.Runs) != 2 {
		t.Fatalf("runs page: %+v", page)
	}
	for i, r := range page.Runs {
		want := listed[i]
		want.Tags = map[string]string{"job": "verbs", "dsn": "postgres://bob:xxxxx@127.0.0.1:1/nowhere"}
		if !reflect.DeepEqual(r.RunRow, want) || r.Status != runlog.StatusCompleted {
			t.Errorf("runs page row %d:\n got %+v\nwant %+v", i, r.RunRow, want)
		}
	}
}
