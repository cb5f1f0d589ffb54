package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ycsbSummary is what the ycsb tests read of summary.json.
type ycsbSummary struct {
	Ops []struct {
		Name   string `json:"name"`
		Count  int64  `json:"count"`
		Errors int64  `json:"errors"`
	} `json:"ops"`
	Total struct {
		Count  int64 `json:"count"`
		Errors int64 `json:"errors"`
	} `json:"total"`
	Figures map[string]float64 `json:"figures"`
	Status  string             `json:"status"`
}

// savedSummary reads the summary.json of the run whose directory r's
// stderr names.
func savedSummary(t *testing.T, r result) (ycsbSummary, map[string]int64, map[string]int64) {
	t.Helper()
	m := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no results directory in %q", r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(m[1], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum ycsbSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	counts, errs := map[string]int64{}, map[string]int64{}
	for _, op := range sum.Ops {
		counts[op.Name], errs[op.Name] = op.Count, op.Errors
	}
	return sum, counts, errs
}

// TestYCSBSplitWorkloadD runs workload d as two YCSB clients that split
// the table (insertstart/insertcount), twice each: every read finds its
// row (no read/not_found), no insert collides, and the table ends with
// the loaded rows plus every insert.
func TestYCSBSplitWorkloadD(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_ycsb_split")
	const records = 4000
	if r := stampede(t, "init", "ycsb", "-p", fmt.Sprint("recordcount=", records), "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	inserts := int64(0)
	for round := 0; round < 2; round++ {
		for _, start := range []int{0, records / 2} {
			r := stampede(t, "run", "ycsb", "--workload", "d", "-p", fmt.Sprint("recordcount=", records),
				"-p", fmt.Sprint("insertstart=", start), "-p", fmt.Sprint("insertcount=", records/2),
				"--max-ops", "3000", "--concurrency", "3", "--db", db, "--results-dir", t.TempDir(), srv)
			if r.code != 0 {
				t.Fatalf("client at insertstart=%d, round %d: %d %s", start, round, r.code, r.stderr)
			}
			sum, counts, _ := savedSummary(t, r)
			for name, n := range counts {
				if strings.Contains(name, "/") {
					t.Errorf("client at insertstart=%d, round %d: %d operations in %s", start, round, n, name)
				}
			}
			if sum.Total.Errors != 0 || counts["insert"] == 0 || counts["read"] == 0 {
				t.Errorf("client at insertstart=%d, round %d: %+v", start, round, sum)
			}
			if sum.Figures["read_return_not_found"] != 0 || sum.Figures["read_return_ok"] != float64(counts["read"]) {
				t.Errorf("figures %v, reads %d", sum.Figures, counts["read"])
			}
			inserts += counts["insert"]
		}
	}
	if rows := queryInt(t, db, "SELECT count(*) FROM usertable"); rows != records+inserts {
		t.Errorf("%d rows after %d inserts, want %d", rows, inserts, records+inserts)
	}
}

// TestYCSBReadModifyWrite: workload f's read-modify-writes count among
// the reads and updates as YCSB counts them ([READ], Return=OK is the
// reads plus the read-modify-writes), and are recorded once in the total.
func TestYCSBReadModifyWrite(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_ycsb_rmw")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	r := stampede(t, "run", "ycsb", "--workload", "f", "-p", "recordcount=1000", "--max-ops", "2000",
		"--concurrency", "2", "--db", db, "--results-dir", t.TempDir(), srv)
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	sum, counts, _ := savedSummary(t, r)
	reads, rmws := counts["read"], counts["read-modify-write"]
	if reads == 0 || rmws == 0 || reads+rmws != 2000 || sum.Total.Count != 2000 {
		t.Fatalf("reads %d, read-modify-writes %d, total %d: want 2000 operations in all", reads, rmws, sum.Total.Count)
	}
	if counts["read-modify-write/read"] != rmws || counts["read-modify-write/update"] != rmws {
		t.Errorf("parts: %d reads, %d updates of %d read-modify-writes", counts["read-modify-write/read"], counts["read-modify-write/update"], rmws)
	}
	if got := sum.Figures["read_return_ok"]; got != float64(reads+rmws) {
		t.Errorf("[READ], Return=OK %v, want reads + read-modify-writes = %d", got, reads+rmws)
	}
	if got := sum.Figures["update_return_ok"]; got != float64(rmws) {
		t.Errorf("[UPDATE], Return=OK %v, want %d", got, rmws)
	}
	if !strings.Contains(r.stdout, "read_return_ok: ") {
		t.Errorf("statuses not printed:\n%s", r.stdout)
	}
	// The batch layer recomputes the same total: the parts are not in it.
	dir := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(r.stderr)[1]
	rr := stampede(t, "report", dir, "--format", "json")
	var view struct {
		Total struct {
			Count int64 `json:"count"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(rr.stdout), &view); err != nil || view.Total.Count != sum.Total.Count {
		t.Errorf("stampede report: total %d (%v), the run's %d", view.Total.Count, err, sum.Total.Count)
	}

	// YCSB's own report counts them the same way.
	r = stampede(t, "run", "ycsb", "--workload", "f", "-p", "recordcount=1000", "--max-ops", "2000",
		"--concurrency", "2", "--output-style", "ycsb", "--db", db, "--results-dir", t.TempDir(), srv)
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	_, counts, _ = savedSummary(t, r)
	rep := ycsbReport(t, r.stdout)
	reads, rmws = counts["read"], counts["read-modify-write"]
	for k, want := range map[string]int64{
		"[READ], Operations": reads + rmws, "[READ], Return=OK": reads + rmws,
		"[UPDATE], Operations": rmws, "[READ-MODIFY-WRITE], Operations": rmws,
	} {
		if rep[k] != float64(want) {
			t.Errorf("%s %v, want %d", k, rep[k], want)
		}
	}
	if got := rep["[OVERALL], Throughput(ops/sec)"] * rep["[OVERALL], RunTime(ms)"] / 1000; math.Abs(got-2000) > 0.01 {
		t.Errorf("[OVERALL] throughput x runtime = %v operations, want 2000", got)
	}
}

// TestYCSBFailedOperations runs with a recordcount twice the load's, on
// a table without stampede's record of the load (as YCSB's own load
// leaves it): reads and updates of the keys never loaded fail, and the
// run goes on as YCSB's does, their latencies under read/not_found and
// update/unexpected_state (YCSB's READ-FAILED and UPDATE-FAILED) and
// their statuses counted; the warning at the start says why. With
// --stop-on-error the first one ends the run, with the cause. (With
// the record, the run is refused before it starts: TestYCSBLoadRecord.)
func TestYCSBFailedOperations(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_ycsb_fail")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	execIn(t, db, "DROP TABLE stampede_load", "COMMENT ON TABLE usertable IS NULL", "COMMENT ON TYPE usertable IS NULL") // as YCSB's load leaves it
	common := []string{"run", "ycsb", "--workload", "a", "-p", "recordcount=1000", "-p", "requestdistribution=uniform",
		"--concurrency", "2", "--db", db, "--results-dir", t.TempDir()}
	r := stampede(t, append(common, "--max-ops", "3000", srv)...)
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	warning := "warning: usertable has 500 rows and no key "
	if n := strings.Count(r.stderr, warning); n != 1 || !strings.Contains(r.stderr, "the last of recordcount=1000: it was loaded with other properties") {
		t.Errorf("stderr has %d mismatch warnings, want 1:\n%s", n, r.stderr)
	}
	sum, counts, errs := savedSummary(t, r)
	nf, us := counts["read/not_found"], counts["update/unexpected_state"]
	// About half the keys are missing.
	if nf < 300 || us < 300 || errs["read"] != nf || errs["update"] != us {
		t.Errorf("read/not_found %d (read errors %d), update/unexpected_state %d (update errors %d)", nf, errs["read"], us, errs["update"])
	}
	if sum.Status != "completed" || sum.Total.Count+sum.Total.Errors != 3000 || sum.Total.Errors != nf+us {
		t.Errorf("status %s, total %d + %d errors, want 3000 operations", sum.Status, sum.Total.Count, sum.Total.Errors)
	}
	for name, want := range map[string]int64{
		"read_return_ok": counts["read"], "read_return_not_found": nf,
		"update_return_ok": counts["update"], "update_return_unexpected_state": us,
	} {
		if sum.Figures[name] != float64(want) {
			t.Errorf("%s = %v, want %d", name, sum.Figures[name], want)
		}
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("read_return_not_found: %d ([READ], Return=NOT_FOUND)", nf)) {
		t.Errorf("stdout lacks the NOT_FOUND count:\n%s", r.stdout)
	}

	r = stampede(t, append(common, "--max-ops", "3000", "--output-style", "ycsb", srv)...)
	rep := ycsbReport(t, r.stdout)
	_, counts, _ = savedSummary(t, r)
	for k, want := range map[string]int64{
		"[READ], Return=OK": counts["read"], "[READ], Operations": counts["read"],
		"[READ], Return=NOT_FOUND": counts["read/not_found"], "[READ-FAILED], Operations": counts["read/not_found"],
		"[UPDATE], Return=UNEXPECTED_STATE": counts["update/unexpected_state"], "[UPDATE-FAILED], Operations": counts["update/unexpected_state"],
	} {
		if rep[k] != float64(want) || want == 0 {
			t.Errorf("%s %v, want %d", k, rep[k], want)
		}
	}

	// --stop-on-error with --tolerate-errors: the engine counts the
	// failures, and YCSB's report has them as Return=ERROR, so that its
	// Return= lines still account for every operation.
	r = stampede(t, append(common, "--stop-on-error", "--tolerate-errors", "--max-ops", "3000", "--output-style", "ycsb", srv)...)
	rep = ycsbReport(t, r.stdout)
	if r.code != 0 || rep["[READ], Return=ERROR"]+rep["[UPDATE], Return=ERROR"] == 0 ||
		rep["[READ], Return=OK"]+rep["[READ], Return=ERROR"]+rep["[UPDATE], Return=OK"]+rep["[UPDATE], Return=ERROR"] != 3000 {
		t.Errorf("exit %d; READ OK %v ERROR %v, UPDATE OK %v ERROR %v: want 3000 operations in all\n%s", r.code,
			rep["[READ], Return=OK"], rep["[READ], Return=ERROR"], rep["[UPDATE], Return=OK"], rep["[UPDATE], Return=ERROR"], r.stderr)
	}
	// summary.json's figures say the same, and report recomputes them.
	sum, _, errs = savedSummary(t, r)
	if sum.Figures["read_return_error"] != rep["[READ], Return=ERROR"] || sum.Figures["update_return_error"] != rep["[UPDATE], Return=ERROR"] ||
		float64(errs["read"]) != sum.Figures["read_return_error"] {
		t.Errorf("summary.json figures %v, errors %v; ycsb report READ ERROR %v UPDATE ERROR %v", sum.Figures, errs,
			rep["[READ], Return=ERROR"], rep["[UPDATE], Return=ERROR"])
	}
	var js struct {
		Figures map[string]float64 `json:"figures"`
	}
	dir := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(r.stderr)[1]
	if jr := stampede(t, "report", "--format", "json", dir); json.Unmarshal([]byte(jr.stdout), &js) != nil ||
		js.Figures["read_return_error"] != sum.Figures["read_return_error"] {
		t.Errorf("report --format json figures %v, summary.json's %v", js.Figures, sum.Figures)
	}

	// Workload F likewise: a read-modify-write's read and update count
	// under READ and UPDATE, a failed one under its own name.
	f := append(slices.Clone(common), "--workload", "f", "--stop-on-error", "--tolerate-errors", "--max-ops", "3000", "--output-style", "ycsb", srv)
	r = stampede(t, f...)
	rep = ycsbReport(t, r.stdout)
	if r.code != 0 || rep["[READ-MODIFY-WRITE], Return=ERROR"] == 0 ||
		rep["[READ], Return=OK"]+rep["[READ], Return=ERROR"]+rep["[READ-MODIFY-WRITE], Return=ERROR"] != 3000 {
		t.Errorf("workload f: exit %d; READ OK %v ERROR %v, READ-MODIFY-WRITE ERROR %v: want 3000 operations in all\n%s", r.code,
			rep["[READ], Return=OK"], rep["[READ], Return=ERROR"], rep["[READ-MODIFY-WRITE], Return=ERROR"], r.stderr)
	}

	r = stampede(t, append(common, "--stop-on-error", "--max-ops", "3000", srv)...)
	last := checkFinalError(t, r, 1, "key not found")
	if l := last[len(last)-1]; !strings.Contains(l, "usertable has 500 rows and no key") || strings.Contains(l, "--tolerate-errors") {
		t.Errorf("error line %q: want the cause (the load's recordcount), not --tolerate-errors", l)
	}
}

// TestYCSBBadProperties: each bad property is one error line; a -p that
// a flag overrides is one warning line.
func TestYCSBBadProperties(t *testing.T) {
	null := []string{"--driver", "null", "--results-dir", t.TempDir(), "--max-ops", "10"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"measurement.interval", []string{"-p", "measurement.interval=sometimes"},
			`unknown measurement.interval "sometimes" (from -p): use op, intended or both`},
		{"missing histogram", []string{"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram=/nonexistent/hist.txt"},
			"fieldlengthhistogram (from -p): cannot read /nonexistent/hist.txt: no such file or directory"},
		{"histogram that does not parse", []string{"-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram=" + writeFile(t, "BlockSize 10\n0 x\n")},
			`expected BUCKET<TAB>COUNT, two non-negative integers, not "0 x"`},
		{"insertstart beyond recordcount", []string{"-p", "recordcount=1000", "-p", "insertstart=2000"},
			"insertstart (2000, from -p) is not below recordcount (1000), and no insertcount says how many keys this client loads"},
		{"bad -p overridden", []string{"-p", "recordcount=abc", "--record-count", "100"}, `invalid recordcount "abc" (from -p): not an integer`},
		{"YCSB's output is text", []string{"--output-style", "ycsb", "--format", "json"}, "--output-style ycsb is text: drop --format json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append([]string{"run", "ycsb"}, null...), tc.args...)...)
			checkOneLineError(t, r, 2, tc.want)
		})
	}
	r := stampede(t, append([]string{"run", "ycsb", "-p", "recordcount=5000", "--record-count", "100"}, null...)...)
	if r.code != 0 || strings.Count(r.stderr, "warning: --record-count overrides -p recordcount=5000: using recordcount=100\n") != 1 {
		t.Errorf("exit %d, stderr %q: want one override warning", r.code, r.stderr)
	}
}
