package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/report"
	stampederun "github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// savedAudits is what TestTPCCAuditsSaved reads of a summary.json or a
// report document: the audits and the consistency checks.
type savedAudits struct {
	Audits      []report.Audit `json:"audits"`
	Checks      []report.Audit `json:"checks"`
	ChecksError string         `json:"checks_error"`
	ChecksRun   string         `json:"checks_run"`
}

// block returns the lines of out from the line title to the first empty
// line after it.
func block(out, title string) string {
	i := strings.Index(out, "\n"+title+"\n")
	if i < 0 {
		return ""
	}
	rest := out[i+1:]
	if j := strings.Index(rest, "\n\n"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}

// TestTPCCAuditsSaved runs TPC-C and checks that the audits and the
// consistency checks the run printed are in its summary.json, field by
// field (the printed lines made again from the saved ones are the lines
// printed), and that `report` shows them: its JSON holds summary.json's
// (from the run directory, and from the results store's copy alone), its
// text the run's audits block. Then two clients of one benchmark
// (--clients 2): `report --tag` merges their audits over every client's
// transactions, equal to a recomputation from the clients' own counts
// (their run logs' audit records) and their histograms merged here, and
// shows client 0's checks once.
func TestTPCCAuditsSaved(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 2 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_tpccaudits")
	if r := stampede(t, "init", "tpcc", "--warehouses", "2", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	dir := t.TempDir()
	st := storeDB(t)
	r := stampede(t, "run", "tpcc", "--warehouses", "2", "--wait=false", "--concurrency", "4", "--duration", "4s",
		"--telemetry=false", "--results-dir", dir, "--results-url", st, "--db", db, srv)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	run, err := runlog.Open(filepath.Join(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	var saved savedAudits
	if err := json.Unmarshal(run.Summary, &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved.Audits) < 15 || len(saved.Checks) != 12 || saved.ChecksError != "" {
		t.Fatalf("summary.json holds %d audits and %d checks (error %q), want the 19 audits and 12 checks printed", len(saved.Audits), len(saved.Checks), saved.ChecksError)
	}
	// The audits block printed is the saved audits', line for line.
	printed := block(r.stdout, "audits:")
	var again bytes.Buffer
	if err := report.Audits(&again, saved.Audits); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimPrefix(again.String(), "\n"); printed != want || printed == "" {
		t.Errorf("the run printed the audits\n%s\nsummary.json holds\n%s", printed, want)
	}
	for _, a := range saved.Audits {
		if a.Name == "" || a.Required == "" || a.Clause == "" || a.Detail == "" || !strings.Contains(printed, "  "+a.Result+"  "+a.Label()) {
			t.Errorf("saved audit %+v: a field is missing, or it was not printed", a)
		}
	}
	// Each check line printed is a saved check's.
	var lines []string
	for _, l := range strings.Split(block(r.stdout, "consistency checks (--skip-checks skips them):"), "\n") {
		if strings.HasPrefix(l, "tpcc: 3.3.2.") {
			lines = append(lines, l)
		}
	}
	var want []string
	for _, c := range saved.Checks {
		l := fmt.Sprintf("tpcc: %s %s: %s", c.Clause, c.Name, c.Result)
		if c.Result != "PASS" {
			l += " (" + c.Detail + ")"
		} else if c.Detail != "0 offending rows" || c.Required != "0 offending rows" {
			t.Errorf("a passing check saved as %+v", c)
		}
		want = append(want, l)
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("the run printed the checks\n%s\nsummary.json holds\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	// report: its JSON holds summary.json's audits and checks, its text
	// the run's audits block.
	rj := stampede(t, "report", id, "--results-dir", dir, "--results-url", "", "--format", "json")
	var doc savedAudits
	if err := json.Unmarshal([]byte(rj.stdout), &doc); rj.code != 0 || err != nil {
		t.Fatalf("report --format json: exit %d, %v\n%s", rj.code, err, rj.stderr)
	}
	if !reflect.DeepEqual(doc.Audits, saved.Audits) || !reflect.DeepEqual(doc.Checks, saved.Checks) || doc.ChecksRun != id {
		t.Errorf("report --format json's audits and checks differ from summary.json's:\n%+v\n%+v", doc, saved)
	}
	// The store's copy holds them too: report from the store alone.
	rs := stampede(t, "report", id, "--results-dir", "none", "--results-url", st, "--format", "json")
	var fromStore savedAudits
	if err := json.Unmarshal([]byte(rs.stdout), &fromStore); rs.code != 0 || err != nil || !reflect.DeepEqual(fromStore, doc) {
		t.Errorf("report from the store: exit %d, %v, %+v, want %+v\n%s", rs.code, err, fromStore, doc, rs.stderr)
	}
	rt := stampede(t, "report", id, "--results-dir", dir, "--results-url", "")
	if got := block(rt.stdout, "audits:"); got != printed {
		t.Errorf("report prints the audits\n%s\nthe run printed\n%s", got, printed)
	}
	if got := block(rt.stdout, "consistency checks:"); strings.Count(got, "\n  ") != 12 || !strings.Contains(got, "  PASS  3.3.2.1 W_YTD = sum(D_YTD)  ") {
		t.Errorf("report prints the checks\n%s", got)
	}
	// A window: no audits (they cover the whole run).
	rw := stampede(t, "report", id, "--results-dir", dir, "--from", "1s", "--to", "3s", "--format", "json")
	if strings.Contains(rw.stdout, `"audits"`) || strings.Contains(rw.stdout, `"checks"`) {
		t.Errorf("a window's report holds the whole run's audits:\n%s", rw.stdout)
	}

	// Two clients of one benchmark.
	cdir := t.TempDir()
	startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	done := make(chan result, 2)
	for i := range 2 {
		go func() {
			done <- stampede(t, "run", "tpcc", "--warehouses", "2", "--wait=false", "--concurrency", "3", "--duration", "4s",
				"--clients", "2", "--client-index", strconv.Itoa(i), "--start-at", startAt, "--tag", "job=audits",
				"--telemetry=false", "--results-dir", cdir, "--db", db, srv)
		}()
	}
	for range 2 {
		if r := <-done; r.code != 0 {
			t.Fatalf("client: exit %d\n%s", r.code, r.stderr)
		}
	}
	infos, err := runlog.List(cdir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("clients' runs: %v %v", infos, err)
	}
	counts := map[string]int64{}
	hists := map[string]*hdrhistogram.Histogram{}
	var client0 savedAudits
	var client0ID string
	for _, info := range infos {
		cr, err := runlog.Open(filepath.Join(cdir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		var s savedAudits
		if err := json.Unmarshal(cr.Summary, &s); err != nil {
			t.Fatal(err)
		}
		if info.Flags["client-index"] == "0" {
			client0, client0ID = s, info.ID
		} else if len(s.Checks) != 0 {
			t.Errorf("client 1 saved %d checks: only client 0 runs them", len(s.Checks))
		}
		events, err := cr.Events()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if name, ok := strings.CutPrefix(e.Op, "tpcc.audit."); ok && e.Kind == stampederun.RecordEvent {
				counts[name] += int64(e.Value)
			}
		}
		ivs, err := cr.Intervals()
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range ivs {
			if cr.Info.RampEnd != nil && iv.Start.Before(*cr.Info.RampEnd) {
				continue
			}
			for name, s := range iv.Series {
				if hists[name] == nil {
					hists[name] = s.Histogram()
				} else {
					hists[name].Merge(s.Histogram())
				}
			}
		}
	}
	if len(client0.Checks) != 12 {
		t.Fatalf("client 0 saved %d checks, want 12", len(client0.Checks))
	}
	rm := stampede(t, "report", "--tag", "job=audits", "--results-dir", cdir, "--format", "json")
	var merged savedAudits
	if err := json.Unmarshal([]byte(rm.stdout), &merged); rm.code != 0 || err != nil {
		t.Fatalf("report --tag: exit %d, %v\n%s", rm.code, err, rm.stderr)
	}
	if !reflect.DeepEqual(merged.Checks, client0.Checks) || merged.ChecksRun != client0ID {
		t.Errorf("report --tag's checks are not client 0's once: %+v (run %s)", merged.Checks, merged.ChecksRun)
	}
	pct := func(hits, n int64) string { return fmt.Sprintf("%.2f%%", 100*float64(hits)/float64(n)) }
	num := func(n int64) string {
		s := strconv.FormatInt(n, 10)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	var all int64
	for _, tx := range []string{"newOrder", "payment", "orderStatus", "delivery", "stockLevel"} {
		all += counts["done."+tx]
	}
	if all == 0 || counts["done.newOrder"] < 100 {
		t.Fatalf("the clients recorded %d transactions, %d New-Orders (want 100 or more to judge its p90)", all, counts["done.newOrder"])
	}
	p90 := time.Duration(hists["newOrder"].ValueAtQuantile(90))
	wantDetail := map[string]string{
		"newOrder p90":              fmt.Sprintf("p90 %.1fms over %s transactions", float64(p90)/float64(time.Millisecond), num(counts["done.newOrder"])),
		"New-Order rollbacks":       pct(counts["rollbacks"], counts["done.newOrder"]) + " of " + num(counts["done.newOrder"]) + " New-Orders",
		"remote payments":           pct(counts["remote_payments"], counts["done.payment"]) + " of " + num(counts["done.payment"]) + " Payments",
		"payments by last name":     pct(counts["payments_by_name"], counts["done.payment"]) + " of " + num(counts["done.payment"]) + " Payments",
		"order-status by last name": pct(counts["order_status_by_name"], counts["done.orderStatus"]) + " of " + num(counts["done.orderStatus"]) + " Order-Statuses",
		"payment share":             pct(counts["done.payment"], all) + " of " + num(all) + " transactions",
		"stockLevel share":          pct(counts["done.stockLevel"], all) + " of " + num(all) + " transactions",
	}
	found := 0
	for _, a := range merged.Audits {
		w, ok := wantDetail[a.Name]
		if !ok {
			continue
		}
		found++
		if !strings.HasPrefix(a.Detail, w) {
			t.Errorf("merged audit %s: %q, recomputed from the clients' counts and histograms %q", a.Label(), a.Detail, w)
		}
	}
	if found != len(wantDetail) {
		t.Errorf("merged audits: %d of the %d recomputed found in %+v", found, len(wantDetail), merged.Audits)
	}
	mt := stampede(t, "report", "--tag", "job=audits", "--results-dir", cdir)
	if strings.Count(mt.stdout, "3.3.2.1 W_YTD") != 1 || !strings.Contains(mt.stdout, "(run by "+client0ID+" after its run, once for the benchmark)") {
		t.Errorf("report --tag's text shows the checks %d times, or not whose:\n%s", strings.Count(mt.stdout, "3.3.2.1 W_YTD"), mt.stdout)
	}
	var again2 bytes.Buffer
	_ = report.Audits(&again2, merged.Audits)
	if got := block(mt.stdout, "audits:"); got != strings.TrimPrefix(again2.String(), "\n") {
		t.Errorf("report --tag's text audits\n%s\ndiffer from its JSON's\n%s", got, again2.String())
	}
}

// runID returns the ID of the run whose stderr says where it was saved.
func runID(t *testing.T, stderr string) string {
	t.Helper()
	_, rest, ok := strings.Cut(stderr, "results saved in ")
	if !ok {
		t.Fatalf("no 'results saved in' line:\n%s", stderr)
	}
	dir, _, _ := strings.Cut(rest, "\n")
	return filepath.Base(strings.TrimSpace(dir))
}
