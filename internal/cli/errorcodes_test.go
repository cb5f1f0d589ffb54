package cli_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsByCode runs bank on 10 rows with 8 workers, where
// serialization failures are certain, and checks that every retried
// failure is accounted for by its SQLSTATE: in the final lines, in
// summary.json, in the run log's last interval and in events.ndjson, and
// that the counts by code add up to the errors column, which the
// histograms count on their own.
func TestErrorsByCode(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_errcodes")
	if r := stampede(t, "init", "bank", "--rows", "10", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	results := t.TempDir()
	r := stampede(t, "run", "bank", "--rows", "10", "--duration", "2s", "--concurrency", "8", "--telemetry=false",
		"--db", db, "--results-dir", results, srv)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(results, "*bank*"))
	if len(dirs) != 1 {
		t.Fatalf("run directories %v", dirs)
	}
	dir := dirs[0]
	var sum struct {
		Total struct {
			Errors int64 `json:"errors"`
		} `json:"total"`
		Errors  map[string]int64 `json:"errors_by_code"`
		Retries map[string]int64 `json:"retries_by_code"`
	}
	readJSON(t, filepath.Join(dir, "summary.json"), &sum)
	retried := sum.Retries["40001"] + sum.Retries["40P01"]
	if retried == 0 {
		t.Fatalf("no serialization failure or deadlock counted on 10 rows with 8 workers: %+v\n%s", sum, r.stdout)
	}
	var byCode int64
	for _, n := range sum.Errors {
		byCode += n
	}
	for _, n := range sum.Retries {
		byCode += n
	}
	if byCode != sum.Total.Errors {
		t.Errorf("counts by code add up to %d, the errors column says %d (%+v)", byCode, sum.Total.Errors, sum)
	}
	for code := range sum.Retries {
		line := "retries_" + code + ": "
		if !strings.Contains(r.stdout, line) {
			t.Errorf("final lines lack %q:\n%s", line, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "SQLSTATE 40001, serialization_failure") && sum.Retries["40001"] > 0 {
		t.Errorf("final lines do not name 40001:\n%s", r.stdout)
	}

	// The run log: the last interval's extras hold the cumulative counts.
	lines := readLines(t, filepath.Join(dir, "intervals.ndjson"))
	var last struct {
		Extra map[string]float64 `json:"extra"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	for code, n := range sum.Retries {
		if got := last.Extra["retries_"+code]; int64(got) != n {
			t.Errorf("intervals.ndjson's last retries_%s = %v, summary says %d", code, got, n)
		}
	}

	// events.ndjson: one event per retried failure, up to 1,000 per code,
	// each with its time, operation, code and message.
	events := map[string]int64{}
	for _, l := range readLines(t, filepath.Join(dir, "events.ndjson")) {
		var e struct {
			Time, Kind, Op, Code, Message string
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("events.ndjson: %q: %v", l, err)
		}
		if e.Kind != "retry" {
			continue
		}
		if e.Time == "" || e.Op != "transfer" || e.Code == "" || !strings.Contains(e.Message, "SQLSTATE "+e.Code) {
			t.Errorf("incomplete retry event %q", l)
		}
		events[e.Code]++
	}
	for code, n := range sum.Retries {
		if want := min(n, 1000); events[code] != want {
			t.Errorf("events.ndjson holds %d retry events of %s, want %d", events[code], code, want)
		}
	}
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestHintsAreCompleteCommands checks that a command suggested in an
// error carries what the failing command line said about the data and the
// server: its database, data flags and URL (redacted), and nothing that
// means another thing for the suggested verb.
func TestHintsAreCompleteCommands(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_hint")
	adminExec(t, "CREATE DATABASE "+db)
	r := stampede(t, "check", "tpcc", "--warehouses", "3", "--db", db, srv)
	want := "`stampede init tpcc --warehouses 3 --db " + db + " " + shellWord(srv) + "`"
	checkOneLineError(t, r, 1, want)
	r = stampede(t, "run", "tpcc", "--warehouses=2", "--concurrency", "7", "--duration", "1s", "--seed", "5", "--db", db, srv)
	want = "`stampede init tpcc --warehouses=2 --db " + db + " " + shellWord(srv) + "`"
	checkFinalError(t, r, 1, want)
}

// shellWord quotes s as the hints do: in single quotes when it holds a
// character a shell would interpret.
func shellWord(s string) string {
	if strings.ContainsAny(s, "?&*;' ") {
		return "'" + s + "'"
	}
	return s
}
