package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/report"
)

// ycsbCoreWorkloads are YCSB 0.17.0's workloads/workloada .. workloadf,
// their properties as the release distributes them.
var ycsbCoreWorkloads = map[string]string{
	"workloada": "readproportion=0.5\nupdateproportion=0.5\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n",
	"workloadb": "readproportion=0.95\nupdateproportion=0.05\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n",
	"workloadc": "readproportion=1\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian\n",
	"workloadd": "readproportion=0.95\nupdateproportion=0\nscanproportion=0\ninsertproportion=0.05\nrequestdistribution=latest\n",
	"workloade": "readproportion=0\nupdateproportion=0\nscanproportion=0.95\ninsertproportion=0.05\nrequestdistribution=zipfian\n" +
		"maxscanlength=100\nscanlengthdistribution=uniform\n",
	"workloadf": "readproportion=0.5\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nreadmodifywriteproportion=0.5\n" +
		"requestdistribution=zipfian\n",
}

// ycsbLine is one line of YCSB's text report: `[METRIC], MEASUREMENT, VALUE`.
type ycsbLine struct{ metric, measurement, value string }

func (l ycsbLine) key() string { return "[" + l.metric + "], " + l.measurement }

// parseYCSBReport reads YCSB's text report, leaving out the blocks of the
// JVM's collectors (`[TOTAL_GCS_G1_Young_Generation], Count, 0` and its
// two TOTAL_GC_TIME lines), which name the JVM's garbage collectors (G1's
// here, others under another JVM or -XX flag): a client without a JVM has
// none of them. The totals after them ([TOTAL_GCs] ...) stay.
func parseYCSBReport(t *testing.T, who, out string) []ycsbLine {
	t.Helper()
	var lines []ycsbLine
	for _, s := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		parts := strings.SplitN(s, ", ", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "[") || !strings.HasSuffix(parts[0], "]") {
			t.Fatalf("%s: not a line of YCSB's report: %q\n%s", who, s, out)
		}
		l := ycsbLine{strings.Trim(parts[0], "[]"), parts[1], parts[2]}
		if strings.HasPrefix(l.metric, "TOTAL_GCS_") || strings.HasPrefix(l.metric, "TOTAL_GC_TIME_") && l.metric != "TOTAL_GC_TIME_%" {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

var (
	javaLong   = regexp.MustCompile(`^-?[0-9]+$`)
	javaDouble = regexp.MustCompile(`^(-?[0-9]+\.[0-9]+(E-?[0-9]+)?|NaN|-?Infinity)$`)
)

// valueForm is the form of a report's value: a Java long or double.
func valueForm(v string) string {
	switch {
	case javaLong.MatchString(v):
		return "long"
	case javaDouble.MatchString(v):
		return "double"
	}
	return "neither a long nor a double"
}

// ycsbOperations is the operations a run's report counts: those of READ,
// UPDATE, INSERT, SCAN and DELETE, less READ-MODIFY-WRITE's, whose read
// and update are counted in READ and UPDATE (YCSB's DBWrapper measures
// them there, and the read-modify-write as a whole).
func ycsbOperations(counts map[string]int64) int64 {
	n := -counts["[READ-MODIFY-WRITE], Operations"]
	for _, m := range []string{"READ", "UPDATE", "INSERT", "SCAN", "DELETE"} {
		n += counts["["+m+"], Operations"]
	}
	return n
}

// TestYCSBAsReleased runs YCSB 0.17.0's own Client (its published core
// from Maven Central, which scripts/test fetches and names in
// STAMPEDE_YCSB_CLASSPATH) with its BasicDB, which prints the release's
// report without a database, and stampede's YCSB form with the null
// driver, on YCSB's workload files A to F, load and run, and compares the
// reports line by line: the same lines in the same order, each value of
// the same form (a long or a double), and the counts equal where the
// workload determines them: a load's [INSERT] operations and Return=OK
// (recordcount), [CLEANUP]'s operations (the threads), each measurement's
// Return= lines summing to its operations, and a run's operations, read-
// modify-writes counted once, (operationcount). Which of a run's
// operations are reads and which updates is drawn at random by each
// client, so those counts are not compared, nor any latency.
func TestYCSBAsReleased(t *testing.T) {
	cp := os.Getenv("STAMPEDE_YCSB_CLASSPATH")
	for _, jar := range filepath.SplitList(cp) {
		if _, err := os.Stat(jar); err != nil {
			cp = ""
		}
	}
	if cp == "" {
		t.Skip("STAMPEDE_YCSB_CLASSPATH does not name YCSB 0.17.0's jars: run through scripts/test, which fetches them")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("YCSB's jars are there but no java: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "workloads")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const recordCount, operationCount = 1000, 2000
	for name, mix := range ycsbCoreWorkloads {
		text := "recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\nreadallfields=true\n" + mix
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	props := []string{"-p", "recordcount=" + strconv.Itoa(recordCount), "-p", "operationcount=" + strconv.Itoa(operationCount)}
	for _, name := range []string{"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf"} {
		for _, tc := range []struct {
			verb, phase string
			threads     int
			// interval is measurement.interval ("" for YCSB's op).
			interval string
		}{{"load", "-load", 1, ""}, {"run", "-t", 1, ""}, {"run", "-t", 2, ""}, {"run", "-t", 1, "both"}, {"run", "-t", 1, "intended"}} {
			if (tc.threads == 2 || tc.interval != "") && name != "workloada" {
				continue
			}
			t.Run(name+"/"+tc.verb+"/threads="+strconv.Itoa(tc.threads)+"/"+tc.interval, func(t *testing.T) {
				file := filepath.Join(dir, name)
				args := append([]string{"-P", file}, props...)
				if tc.interval != "" {
					args = append(args, "-p", "measurement.interval="+tc.interval)
				}
				if tc.threads != 1 {
					args = append(args, "-threads", strconv.Itoa(tc.threads))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, java, append([]string{"-cp", cp, "site.ycsb.Client", tc.phase, "-db", "site.ycsb.BasicDB",
					"-p", "basicdb.verbose=false"}, args...)...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("YCSB 0.17.0's Client: %v\n%s", err, stderr.String())
				}
				ours := append(append([]string{tc.verb, "jdbc"}, args...), "--driver", "null")
				if tc.verb == "run" {
					ours = append(ours, "--results-dir", t.TempDir())
				}
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				r := stampede(t, ours...)
				runtime.ReadMemStats(&after)
				if r.code != 0 {
					t.Fatalf("stampede %s jdbc exited %d: %s", tc.verb, r.code, r.stderr)
				}
				release := parseYCSBReport(t, "YCSB 0.17.0", stdout.String())
				got := parseYCSBReport(t, "stampede", r.stdout)
				if len(release) != len(got) {
					t.Errorf("%d lines, the release's %d", len(got), len(release))
				}
				counts := []map[string]int64{{}, {}}
				for i := 0; i < max(len(release), len(got)); i++ {
					var a, b ycsbLine
					if i < len(release) {
						a = release[i]
					}
					if i < len(got) {
						b = got[i]
					}
					if a.key() != b.key() {
						t.Fatalf("line %d is %q, the release's %q\nstampede's report:\n%s\nthe release's:\n%s", i+1, b.key(), a.key(), r.stdout, stdout.String())
					}
					if fa, fb := valueForm(a.value), valueForm(b.value); fa != fb || fb == "neither a long nor a double" {
						t.Errorf("%s: %q is a %s, the release's %q a %s", a.key(), b.value, fb, a.value, fa)
					}
					for j, l := range []ycsbLine{a, b} {
						if n, err := strconv.ParseInt(l.value, 10, 64); err == nil {
							counts[j][l.key()] = n
						}
					}
				}
				// The client's collections during the run, in process: at
				// most those of the whole call; their share of the run
				// as YCSB's Client computes it.
				if gcs := counts[1]["[TOTAL_GCs], Count"]; gcs < 0 || gcs > int64(after.NumGC-before.NumGC) {
					t.Errorf("[TOTAL_GCs], Count %d: the call collected %d times", gcs, after.NumGC-before.NumGC)
				}
				if ms := counts[1]["[TOTAL_GC_TIME], Time(ms)"]; ms < 0 || ms > time.Duration(after.PauseTotalNs-before.PauseTotalNs).Milliseconds() {
					t.Errorf("[TOTAL_GC_TIME], Time(ms) %d: the call paused for %v", ms, time.Duration(after.PauseTotalNs-before.PauseTotalNs))
				}
				for j, lines := range [][]ycsbLine{release, got} {
					share := ""
					for _, l := range lines {
						if l.key() == "[TOTAL_GC_TIME_%], Time(%)" {
							share = l.value
						}
					}
					runMs, gcMs := counts[j]["[OVERALL], RunTime(ms)"], counts[j]["[TOTAL_GC_TIME], Time(ms)"]
					if want := report.JavaDouble(float64(gcMs) / float64(runMs) * 100); share != want {
						t.Errorf("report %d: [TOTAL_GC_TIME_%%] %s, want %d ms of %d: %s", j, share, gcMs, runMs, want)
					}
				}
				for j, who := range []string{"the release", "stampede"} {
					c := counts[j]
					cleanup := "[CLEANUP], Operations"
					if tc.interval == "both" {
						cleanup = "[Intended-CLEANUP], Operations"
					}
					if got := c[cleanup]; got != int64(tc.threads) {
						t.Errorf("%s: %s %d, want %d (one per thread)", who, cleanup, got, tc.threads)
					}
					returns := map[string]int64{}
					for k, n := range c {
						if m, _, ok := strings.Cut(k, ", Return="); ok {
							returns[m] += n
						}
					}
					for m, n := range returns {
						if ops := c[m+", Operations"]; ops != n {
							t.Errorf("%s: %s's Return= lines sum to %d, its Operations are %d", who, m, n, ops)
						}
					}
					if tc.verb == "load" {
						if c["[INSERT], Operations"] != recordCount || c["[INSERT], Return=OK"] != recordCount {
							t.Errorf("%s: [INSERT] Operations %d, Return=OK %d: want recordcount %d", who,
								c["[INSERT], Operations"], c["[INSERT], Return=OK"], recordCount)
						}
						continue
					}
					if got := ycsbOperations(c); got != operationCount {
						t.Errorf("%s: %d operations, want operationcount %d", who, got, operationCount)
					}
					if c["[UPDATE], Operations"] != c["[READ-MODIFY-WRITE], Operations"] && name == "workloadf" {
						t.Errorf("%s: %d updates in workload F, want one per read-modify-write (%d)", who,
							c["[UPDATE], Operations"], c["[READ-MODIFY-WRITE], Operations"])
					}
				}
			})
		}
	}
}

// TestYCSBLoadIntoUserTable: YCSB's JDBC binding has its users create
// usertable first (its README's CREATE TABLE), and `stampede load jdbc`
// then loads into it when it is empty and of YCSB's shape; a table that
// holds rows, or has other columns, is refused in one line, and keeps
// its rows.
func TestYCSBLoadIntoUserTable(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	fields := func(typ string) string {
		var cols []string
		for i := range 10 {
			cols = append(cols, fmt.Sprintf("FIELD%d %s", i, typ))
		}
		return strings.Join(cols, ", ")
	}
	readme := "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, " + fields("TEXT") + ")"
	for _, tc := range []struct {
		name  string
		setup []string
		// want is the one-line error ("" for a load), kept the rows
		// that must survive it.
		want string
		kept int64
	}{
		{"the JDBC binding's README", []string{readme}, "", 0},
		{"VARCHAR fields", []string{"CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, " + fields("VARCHAR(100)") + ")"}, "", 0},
		{"holds a row", []string{readme, "INSERT INTO usertable (ycsb_key, field0) VALUES ('mine', 'keep me')"},
			"table usertable already exists in database", 1},
		{"other columns", []string{"CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, mine TEXT)"},
			"table usertable already exists in database", 0},
		{"a field of another type", []string{"CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, " + fields("TEXT") + ", FIELD10 INT)"},
			"field10 integer", 0},
		{"nine fields", []string{"CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, " +
			strings.TrimSuffix(fields("TEXT"), ", FIELD9 TEXT") + ")"}, "not ycsb's (ycsb_key, field0, field1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "stampede_ycsbadopt")
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, tc.setup...)
			jdbc := fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable", u.Host, db)
			r := stampede(t, "load", "jdbc", "-P", "workloads/workloada", "-p", jdbc, "-p", "db.user="+u.User.Username(), "-p", "recordcount=300")
			if tc.want != "" {
				checkOneLineError(t, r, 2, tc.want)
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("the refusal does not say how to start over: %s", r.stderr)
				}
				if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != tc.kept {
					t.Errorf("%d rows left, want the user's %d", n, tc.kept)
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stderr, "loading into the existing empty usertable") {
				t.Fatalf("load into the user's empty usertable: %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 300 {
				t.Errorf("%d rows loaded, want recordcount 300", n)
			}
			rep := ycsbReport(t, r.stdout)
			if rep["[INSERT], Operations"] != 300 || rep["[INSERT], Return=OK"] != 300 || rep["[CLEANUP], Operations"] != 1 {
				t.Errorf("YCSB's load report:\n%s", r.stdout)
			}
			// One stream, whose inserts one after the other take no more
			// than the load.
			if sum := rep["[INSERT], AverageLatency(us)"] * 300; sum <= 0 || sum > (rep["[OVERALL], RunTime(ms)"]+1)*1000 {
				t.Errorf("the inserts took %.0fus in all, the load %vms:\n%s", sum, rep["[OVERALL], RunTime(ms)"], r.stdout)
			}
			// A run reads what was loaded: every read finds its row.
			r = stampede(t, "run", "jdbc", "-P", "workloads/workloadc", "-p", jdbc, "-p", "db.user="+u.User.Username(),
				"-p", "recordcount=300", "-p", "operationcount=200", "--results-dir", t.TempDir())
			if rep := ycsbReport(t, r.stdout); r.code != 0 || rep["[READ], Return=OK"] != 200 {
				t.Errorf("run on the loaded table: %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestYCSBLoadBatches: a load in YCSB's form with the JDBC binding's
// batch API shares the rows among its threads as YCSB's Client does (2000
// rows for 3 threads: 667, 667 and 666), and each thread's every 7th
// insert sends a batch (Return=OK: 95 a thread), the others only join one
// (BATCHED_OK), the rest of each batch sent at the thread's cleanup: 285
// INSERTs and 3 more, which the server counts as its transactions.
func TestYCSBLoadBatches(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "stampede_ycsbbatch")
	adminExec(t, "CREATE DATABASE "+db)
	commits := func() int64 {
		return queryInt(t, db, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
	}
	before := commits()
	jdbc := fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable", u.Host, db)
	r := stampede(t, "load", "jdbc", "-P", "workloads/workloada", "-p", jdbc, "-p", "db.user="+u.User.Username(),
		"-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=7", "-p", "recordcount=2000", "-threads", "3")
	if r.code != 0 {
		t.Fatalf("load: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := ycsbReport(t, r.stdout)
	want := map[string]float64{"[INSERT], Operations": 2000, "[INSERT], Return=OK": 3 * 95, "[INSERT], Return=BATCHED_OK": 2000 - 3*95,
		"[CLEANUP], Operations": 3}
	for k, v := range want {
		if rep[k] != v {
			t.Errorf("%s %v, want %v", k, rep[k], v)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 2000 {
		t.Errorf("%d rows, want 2000", n)
	}
	// A backend's counts reach pg_stat_database when it flushes them.
	n := commits() - before
	for deadline := time.Now().Add(10 * time.Second); n < 288 && time.Now().Before(deadline); n = commits() - before {
		time.Sleep(100 * time.Millisecond)
	}
	// init's own statements (and these queries) commit some more: a load
	// of a row a statement would have taken 2000.
	if n < 288 || n >= 2000 {
		t.Errorf("%d transactions, want the 288 INSERTs and a few of init's own", n)
	}
}
