package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
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
	// With a ramp, whose failures count in no final figure.
	r := stampede(t, "run", "bank", "--rows", "10", "--ramp", "1s", "--duration", "2s", "--concurrency", "8", "--telemetry=false",
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

	// The run log: each interval's extras hold its counts by code, and
	// its errors column: they add up, interval by interval.
	var logged int64
	for _, l := range readLines(t, filepath.Join(dir, "intervals.ndjson")) {
		var iv struct {
			Series map[string]struct {
				Errors int64 `json:"errors"`
			} `json:"series"`
			Extra map[string]float64 `json:"extra"`
		}
		if err := json.Unmarshal([]byte(l), &iv); err != nil {
			t.Fatal(err)
		}
		var byCode, column int64
		for k, v := range iv.Extra {
			if strings.HasPrefix(k, "retries_") || strings.HasPrefix(k, "errors_") {
				byCode += int64(v)
			}
		}
		for _, s := range iv.Series {
			column += s.Errors
		}
		if byCode != column {
			t.Errorf("interval %s: counts by code add up to %d, its errors to %d", l, byCode, column)
		}
		logged += byCode
	}
	if logged < sum.Total.Errors {
		t.Errorf("intervals.ndjson counts %d failures (ramp included), the summary %d after the ramp", logged, sum.Total.Errors)
	}

	// report recomputes the same counts from the run log.
	rep := stampede(t, "report", dir)
	for code, n := range sum.Retries {
		if want := fmt.Sprintf("retries_%s: %d retried or ignored", code, n); !strings.Contains(rep.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.stdout)
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
	// The events cover the ramp too: at least the run's own, up to 1,000
	// per code.
	for code, n := range sum.Retries {
		if events[code] < min(n, 1000) || events[code] > 1000 {
			t.Errorf("events.ndjson holds %d retry events of %s, want from %d to 1000", events[code], code, min(n, 1000))
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

// TestLoadRecord checks that run and check read back what init loaded: a
// data flag not given takes the loaded value (with a note), one given
// with another value is refused naming both values, a subset of sysbench's
// tables is allowed, and cleanup forgets the load.
func TestLoadRecord(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_loadrec")
	base := []string{"--db", db, srv}
	mustRun(t, append([]string{"init", "bank", "--rows", "10", "--initial-balance", "7"}, base...)...)
	r := stampede(t, append([]string{"check", "bank"}, base...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "note: using --initial-balance 7, --rows 10, as init (of bank) loaded database") ||
		!strings.Contains(r.stdout, "10 rows, total balance 70 (expected 70) PASS") {
		t.Errorf("check without the data flags: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, append([]string{"check", "bank", "--rows", "1000"}, base...)...)
	checkOneLineError(t, r, 2, "--rows 1000 differs from what init (of bank) loaded into database \""+db+"\", --rows 10: give --rows 10, or reload with `stampede init bank --drop --rows 1000")
	r = stampede(t, append([]string{"run", "bank", "--rows", "1000", "--duration", "1s", "--results-dir", t.TempDir()}, base...)...)
	checkOneLineError(t, r, 2, "--rows 1000 differs from what init (of bank) loaded")

	mustRun(t, append([]string{"init", "oltp_read_write", "--tables", "2", "--table_size", "300"}, base...)...)
	r = stampede(t, append([]string{"run", "oltp_point_select", "--tables", "1", "--duration", "1s", "--telemetry=false", "--results-dir", t.TempDir()}, base...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "note: using --table_size 300, as init (of oltp_read_write) loaded") {
		t.Errorf("a subset of the prepared tables: %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, append([]string{"run", "oltp_point_select", "--table_size", "301", "--duration", "1s", "--results-dir", t.TempDir()}, base...)...)
	checkOneLineError(t, r, 2, "--table_size 301 differs from what init (of oltp_read_write) loaded into database \""+db+"\", --table_size 300")

	// Tables prepared by sysbench itself have no record (and no mark of
	// stampede's init): the run checks the ids it would look up.
	execIn(t, db, "UPDATE stampede_load SET data = 'elsewhere' WHERE data = 'sysbench-oltp'",
		"COMMENT ON TABLE sbtest1 IS NULL", "COMMENT ON TABLE sbtest2 IS NULL", "COMMENT ON TYPE sbtest1 IS NULL", "COMMENT ON TYPE sbtest2 IS NULL")
	r = stampede(t, append([]string{"run", "oltp_point_select", "--table_size", "301", "--duration", "1s", "--results-dir", t.TempDir()}, base...)...)
	checkOneLineError(t, r, 1, "sbtest1 holds ids up to 300, fewer than --table_size=301: give --table_size=300 (what was prepared)")
	execIn(t, db, "UPDATE stampede_load SET data = 'sysbench-oltp' WHERE data = 'elsewhere'")
	// A marked table without the record is an unfinished load.
	execIn(t, db, dialect.CommentOnTable(dialect.Postgres{}, "sbtest1", "made by stampede init of oltp_read_write (data sysbench-oltp)"),
		"UPDATE stampede_load SET data = 'elsewhere' WHERE data = 'sysbench-oltp'")
	r = stampede(t, append([]string{"check", "oltp_read_write", "--tables", "2"}, base...)...)
	checkOneLineError(t, r, 2, "holds an unfinished load of oltp_read_write: init created table sbtest1 but never finished loading it")
	execIn(t, db, "UPDATE stampede_load SET data = 'sysbench-oltp' WHERE data = 'elsewhere'",
		dialect.CommentOnTable(dialect.Postgres{}, "sbtest2", "made by stampede init of oltp_read_write (data sysbench-oltp)"))

	mustRun(t, append([]string{"cleanup", "bank"}, base...)...)
	if n := queryInt(t, db, "SELECT count(*) FROM stampede_load"); n != 1 {
		t.Errorf("after cleanup bank, stampede_load holds %d records, want sysbench's only", n)
	}
	mustRun(t, append([]string{"cleanup", "oltp_read_write", "--tables", "2"}, base...)...)
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'stampede_load'"); n != 0 {
		t.Errorf("stampede_load left after the last cleanup")
	}
}
