package cli_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// ycsbWorkloadA is YCSB's workloads/workloada as it is distributed: a
// license header whose lines end in spaces, CRLF line endings.
const ycsbWorkloadA = "# Copyright (c) 2010 Yahoo! Inc. All rights reserved.                   \r\n" +
	"#                                                                       \r\n" +
	"# Licensed under the Apache License, Version 2.0 (the \"License\"); you   \r\n" +
	"\r\n# Yahoo! Cloud System Benchmark\r\n# Workload A: Update heavy workload\r\n#                        \r\n\r\n" +
	"recordcount=1000\r\noperationcount=1000\r\nworkload=site.ycsb.workloads.CoreWorkload\r\n\r\n" +
	"readallfields=true\r\n\r\nreadproportion=0.5\r\nupdateproportion=0.5\r\nscanproportion=0\r\ninsertproportion=0\r\n\r\n" +
	"requestdistribution=zipfian\r\n\r\n"

// TestYCSBCommandLines runs YCSB's command lines, as YCSB's users type
// them with stampede in place of bin/ycsb, against the test server, in
// order (a load, then runs of what it loaded), and checks each one's
// effect in the database and its output: YCSB's report, status lines
// only with -s, the endpoints of db.url's hosts, batched inserts (by the
// server's count of transactions), the JSON array exporter.
func TestYCSBCommandLines(t *testing.T) {
	srv := testServer(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "stampede_ycsbline")
	adminExec(t, "CREATE DATABASE "+db) // to count its transactions from the start
	dir := t.TempDir()
	workloada := filepath.Join(dir, "workloada")
	if err := os.WriteFile(workloada, []byte(ycsbWorkloadA), 0o644); err != nil {
		t.Fatal(err)
	}
	exportFile := filepath.Join(dir, "export.json")
	_, port, _ := strings.Cut(u.Host, ":")
	jdbc := fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable&loadBalanceHosts=true", u.Host, db)
	twoHosts := fmt.Sprintf("db.url=jdbc:postgresql://127.0.0.1:%s,localhost:%s/%s?sslmode=disable&loadBalanceHosts=true", port, port, db)
	user := "db.user=" + u.User.Username()
	results := []string{"--results-dir", t.TempDir()}
	commits := func() int64 {
		return queryInt(t, db, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
	}
	// committedSince returns the transactions committed since before, once
	// there are at least min of them or 10s have passed: a backend's
	// counts reach pg_stat_database when it flushes them (at most once a
	// second, and as it exits, after stampede has).
	committedSince := func(before, min int64) int64 {
		n := commits() - before
		for deadline := time.Now().Add(10 * time.Second); n < min && time.Now().Before(deadline); n = commits() - before {
			time.Sleep(100 * time.Millisecond)
		}
		return n
	}

	for _, tc := range []struct {
		name string
		line []string
		// check looks at the outcome; before is the server's count of
		// commits before the line ran.
		check func(t *testing.T, r result, before int64)
	}{
		{"load jdbc", []string{"load", "jdbc", "-P", workloada, "-cp", "lib/postgresql-42.2.4.jar", "-p", "db.driver=org.postgresql.Driver",
			"-p", jdbc, "-p", user, "-threads", "3"}, func(t *testing.T, r result, before int64) {
			if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 1000 {
				t.Errorf("%d rows loaded, want workloada's recordcount 1000", n)
			}
			if got := strings.Count(r.stderr, "warning: ignoring -cp lib/postgresql-42.2.4.jar, -p db.driver=org.postgresql.Driver: settings of JDBC"); got != 1 {
				t.Errorf("want one warning line for -cp and db.driver:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, "3 streams") {
				t.Errorf("-threads 3 is not the load's streams:\n%s", r.stderr)
			}
			// YCSB's load report: each row inserted and timed as YCSB's
			// load does, a [CLEANUP] per stream.
			rep := ycsbReport(t, r.stdout)
			if rep["[INSERT], Operations"] != 1000 || rep["[INSERT], Return=OK"] != 1000 || rep["[INSERT], MinLatency(us)"] <= 0 ||
				rep["[INSERT], 99thPercentileLatency(us)"] < rep["[INSERT], 95thPercentileLatency(us)"] ||
				rep["[CLEANUP], Operations"] != 3 || rep["[OVERALL], RunTime(ms)"] <= 0 || rep["[OVERALL], Throughput(ops/sec)"] <= 0 {
				t.Errorf("YCSB's load report:\n%s", r.stdout)
			}
			// One INSERT a row, as [INSERT] counts them.
			if n := committedSince(before, 1000); n < 1000 {
				t.Errorf("%d transactions for 1000 rows inserted one by one", n)
			}
		}},
		{"run jdbc: YCSB's report, no status lines without -s", []string{"run", "jdbc", "-P", workloada, "-cp", "lib/postgresql-42.2.4.jar",
			"-p", jdbc, "-p", user, "-threads", "2"}, func(t *testing.T, r result, _ int64) {
			rep := ycsbReport(t, r.stdout)
			if ops := rep["[READ], Operations"] + rep["[UPDATE], Operations"]; ops != 1000 {
				t.Errorf("%v reads and updates, want workloada's operationcount 1000:\n%s", ops, r.stdout)
			}
			if rep["[OVERALL], RunTime(ms)"] <= 0 || rep["[READ], 99thPercentileLatency(us)"] <= 0 {
				t.Errorf("report:\n%s", r.stdout)
			}
			if strings.Contains(r.stderr, " sec: ") {
				t.Errorf("status lines without -s:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, "2 workers") {
				t.Errorf("-threads 2 is not the run's workers:\n%s", r.stderr)
			}
		}},
		{"run ycsb -threads -target -s -l", []string{"run", "ycsb", "-P", workloada, "-threads", "2", "-target", "400", "-s", "-l", "lbl",
			"-p", "status.interval=1", "-p", "operationcount=1000", "-p", jdbc, "-p", user}, func(t *testing.T, r result, _ int64) {
			if !strings.Contains(r.stderr, "open loop at 400 ops/s") {
				t.Errorf("-target 400 is not the rate:\n%s", r.stderr)
			}
			// YCSB's StatusThread: a line as it starts, one every
			// status.interval counting down the operations left, and one
			// when the clients are done.
			lines := regexp.MustCompile(`(?m)^lbl\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} (\d+) sec: (\d+) operations; (.*)$`).FindAllStringSubmatch(r.stderr, -1)
			if len(lines) < 3 || lines[0][1] != "0" || lines[0][2] != "0" || lines[0][3] != "est completion in 0 second " {
				t.Fatalf("status lines, led by -l's label, every status.interval=1 with -s: %q\n%s", lines, r.stderr)
			}
			for _, l := range lines[1 : len(lines)-1] {
				if !regexp.MustCompile(`^[\d.]+ current ops/sec; est completion in \d+ seconds? \[READ: Count=\d+, Max=`).MatchString(l[3]) {
					t.Errorf("status line %q", l[0])
				}
			}
			if last := lines[len(lines)-1]; last[2] != "1000" || !regexp.MustCompile(`^[\d.]+ current ops/sec; \[READ: Count=`).MatchString(last[3]) {
				t.Errorf("the last status line is not the clients' end: %q", last[0])
			}
			if rep := ycsbReport(t, r.stdout); rep["[OVERALL], Throughput(ops/sec)"] > 440 {
				t.Errorf("throughput %v above -target 400", rep["[OVERALL], Throughput(ops/sec)"])
			}
		}},
		{"db.url with two hosts", []string{"run", "jdbc", "-P", workloada, "-p", twoHosts, "-p", user, "-p", "operationcount=200",
			"-p", "hdrhistogram.percentiles=50,99,99.9", "-threads", "2"}, func(t *testing.T, r result, _ int64) {
			if !strings.Contains(r.stderr, fmt.Sprintf("on 127.0.0.1:%s,localhost:%s (database %q)", port, port, db)) {
				t.Errorf("not two endpoints:\n%s", r.stderr)
			}
			rep := ycsbReport(t, r.stdout)
			if _, ok := rep["[READ], 99.9PercentileLatency(us)"]; !ok || rep["[READ], 95thPercentileLatency(us)"] != 0 {
				t.Errorf("hdrhistogram.percentiles=50,99,99.9 not the report's:\n%s", r.stdout)
			}
		}},
		{"batched inserts and the JSON array exporter", []string{"run", "jdbc", "-P", workloada, "-p", jdbc, "-p", user,
			"-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=10", "-p", "insertproportion=1", "-p", "readproportion=0", "-p", "updateproportion=0",
			"-p", "operationcount=400", "-threads", "2",
			"-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "-p", "exportfile=" + exportFile},
			func(t *testing.T, r result, before int64) {
				if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 1400 {
					t.Errorf("%d rows after 400 inserts, want 1400", n)
				}
				// 400 inserts in INSERTs of 10 rows: 40 statements, each
				// its own transaction, and the run's few queries.
				if n := committedSince(before, 40); n < 40 || n > 100 {
					t.Errorf("%d transactions for 400 inserts in batches of 10", n)
				}
				if r.stdout != "" {
					t.Errorf("the report went to stdout, not exportfile:\n%s", r.stdout)
				}
				data, err := os.ReadFile(exportFile)
				if err != nil {
					t.Fatal(err)
				}
				var entries []struct {
					Metric, Measurement string
					Value               float64
				}
				if err := json.Unmarshal(data, &entries); err != nil {
					t.Fatalf("exportfile is not a JSON array: %v\n%s", err, data)
				}
				got := map[string]float64{}
				for _, e := range entries {
					got[e.Metric+" "+e.Measurement] = e.Value
				}
				if got["INSERT Operations"] != 400 || got["INSERT Return=BATCHED_OK"] != 360 || got["INSERT Return=OK"] != 40 {
					t.Errorf("export: %v", got)
				}
			}},
		{"a published report's load", []string{"load", "jdbc", "-P", workloada, "-p", jdbc, "-p", user, "-p", "db.passwd=",
			"-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=10", "-p", "insertorder=ordered", "-p", "recordcount=2000",
			"-threads", "4", "--drop"}, func(t *testing.T, r result, before int64) {
			if n := queryInt(t, db, "SELECT count(*) FROM usertable WHERE ycsb_key IN ('user0', 'user1999')"); n != 2 {
				t.Errorf("ordered keys user0 and user1999: %d of them", n)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 2000 {
				t.Errorf("%d rows, want 2000", n)
			}
			// Each INSERT of 10 rows is one Return=OK, its other 9 rows
			// BATCHED_OK, as the binding's executeBatch on every 10th.
			if rep := ycsbReport(t, r.stdout); rep["[INSERT], Operations"] != 2000 || rep["[INSERT], Return=OK"] != 200 ||
				rep["[INSERT], Return=BATCHED_OK"] != 1800 || rep["[CLEANUP], Operations"] != 4 {
				t.Errorf("YCSB's load report:\n%s", r.stdout)
			}
			// 2000 rows in INSERTs of 10, not COPY.
			if n := committedSince(before, 200); n < 200 {
				t.Errorf("%d transactions for 2000 rows in INSERTs of 10 rows", n)
			}
		}},
		{"a published report's run", []string{"run", "jdbc", "-P", workloada, "-p", jdbc, "-p", user,
			"-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=10", "-p", "insertorder=ordered", "-p", "requestdistribution=uniform",
			"-p", "operationcount=2500", "-threads", "4", "-s"}, func(t *testing.T, r result, _ int64) {
			// workloada's recordcount=1000, a subset of the 2000 loaded.
			rep := ycsbReport(t, r.stdout)
			if rep["[READ], Return=OK"]+rep["[UPDATE], Return=OK"] != 2500 || rep["[READ], Return=NOT_FOUND"] != 0 {
				t.Errorf("report:\n%s", r.stdout)
			}
		}},
		{"YCSB's Client: -t and -db", []string{"ycsb", "-t", "-db", "site.ycsb.db.JdbcDBClient", "-P", workloada, "-p", jdbc, "-p", user,
			"-p", "recordcount=2000", "-p", "insertorder=ordered", "-p", "operationcount=100"}, func(t *testing.T, r result, _ int64) {
			if rep := ycsbReport(t, r.stdout); rep["[READ], Operations"]+rep["[UPDATE], Operations"] != 100 {
				t.Errorf("report:\n%s", r.stdout)
			}
		}},
		{"-P workloads/workloadc without YCSB's files: YCSB's own, one worker", []string{"run", "jdbc", "-P", "workloads/workloadc", "-p", jdbc, "-p", user,
			"-p", "operationcount=100"}, func(t *testing.T, r result, _ int64) {
			if rep := ycsbReport(t, r.stdout); rep["[READ], Return=OK"] != 100 || rep["[UPDATE], Operations"] != 0 {
				t.Errorf("workloadc's reads only:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, "warning: -P workloads/workloadc: no such file: using YCSB's workloadc as YCSB distributes it (recordcount=1000 ") ||
				!regexp.MustCompile(`, 1 workers?, `).MatchString(r.stderr) {
				t.Errorf("stderr:\n%s", r.stderr)
			}
		}},
		{"run postgrenosql", []string{"run", "postgrenosql", "-P", workloada, "-p", "postgrenosql." + strings.TrimPrefix(jdbc, "db."),
			"-p", "postgrenosql." + strings.TrimPrefix(user, "db."), "-p", "operationcount=50"}, func(t *testing.T, r result, _ int64) {
			if rep := ycsbReport(t, r.stdout); rep["[READ], Return=OK"]+rep["[UPDATE], Return=OK"] != 50 {
				t.Errorf("report:\n%s", r.stdout)
			}
			if !strings.Contains(r.stderr, "warning: postgrenosql runs on the JDBC binding's usertable") {
				t.Errorf("no warning of the table's layout:\n%s", r.stderr)
			}
		}},
		{"check jdbc", []string{"check", "jdbc", "-p", jdbc, "-p", user}, func(t *testing.T, r result, _ int64) {
			if !strings.Contains(r.stdout, "2000 of 2000 loaded keys present PASS") {
				t.Errorf("check:\n%s", r.stdout)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := commits()
			args := tc.line
			if tc.line[0] == "run" || tc.line[0] == "ycsb" {
				args = append(append([]string(nil), tc.line...), results...)
			}
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stderr, "ignoring property db.") {
				t.Errorf("the workload warns of the connection's properties:\n%s", r.stderr)
			}
			tc.check(t, r, before)
		})
	}

	// Refused in one line each, before connecting.
	for _, tc := range []struct {
		line []string
		want string
	}{
		{[]string{"run", "mongodb", "-P", workloada}, "YCSB binding mongodb is not supported: stampede runs YCSB over PostgreSQL's wire protocol: use jdbc or postgrenosql"},
		{[]string{"run", "jdbc", "-p", "db.url=jdbc:mysql://db/ycsb"}, `db.url "jdbc:mysql://db/ycsb" is for JDBC's mysql driver`},
		{[]string{"run", "jdbc", "-p", jdbc, "-p", "jdbc.batchupdateapi=true"}, "jdbc.batchupdateapi=true needs db.batchsize of at least 1 (from default): YCSB's JDBC binding would never send the inserts"},
		{[]string{"run", "jdbc", "-p", jdbc, "-p", "jdbc.batchupdateapi=true", "-p", "db.batchsize=10000"}, "db.batchsize 10000 (from -p) makes INSERTs of 110000 parameters, more than PostgreSQL's 65535: use at most 5957"},
		{[]string{"run", "jdbc", "-p", jdbc, "-p", "exporter=site.ycsb.measurements.exporter.XMLExporter"}, `unknown exporter "site.ycsb.measurements.exporter.XMLExporter" (from -p)`},
		{[]string{"run", "jdbc", "-p", jdbc, "-threads", "6", "--concurrency", "8"}, "-threads 6 and --concurrency 8 disagree: give one of them"},
		{[]string{"run", "jdbc", "-load", "-p", jdbc}, "-load contradicts the verb run"},
		{[]string{"run", "jdbc", "-p", jdbc, "-p", user, "-p", "recordcount=5000"}, "-p recordcount=5000 differs from what init (of ycsb) loaded"},
	} {
		r := stampede(t, append(tc.line, results...)...)
		checkOneLineError(t, r, 2, tc.want)
	}
	// A load's report through YCSB's JSON array exporter, to exportfile.
	loadExport := filepath.Join(dir, "load.json")
	r := stampede(t, "load", "jdbc", "-P", workloada, "-p", jdbc, "-p", user, "--drop",
		"-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "-p", "exportfile="+loadExport)
	if r.code != 0 || r.stdout != "" || strings.Contains(r.stderr, "ignoring exporter") {
		t.Fatalf("load with an exporter: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(loadExport)
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		Metric, Measurement string
		Value               float64
	}
	if err := json.Unmarshal(data, &entries); err != nil || !slices.ContainsFunc(entries, func(e struct {
		Metric, Measurement string
		Value               float64
	}) bool {
		return e.Metric == "INSERT" && e.Measurement == "Operations" && e.Value == 1000
	}) {
		t.Errorf("the load's exportfile (%v):\n%s", err, data)
	}
	// db.passwd is scrubbed from what the run saves.
	r = stampede(t, append([]string{"run", "jdbc", "-p", jdbc, "-p", user, "-p", "db.passwd=hunter2", "-p", "operationcount=10"}, results...)...)
	if r.code != 0 || strings.Contains(r.stderr, "hunter2") {
		t.Fatalf("run with db.passwd: %d\n%s", r.code, r.stderr)
	}
	runDir := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(r.stderr)
	if runDir == nil {
		t.Fatalf("no results directory in %q", r.stderr)
	}
	data, err = os.ReadFile(filepath.Join(runDir[1], "run.json"))
	if err != nil || strings.Contains(string(data), "hunter2") || !strings.Contains(string(data), "db.passwd=") {
		t.Errorf("run.json (%v) holds the password or not the command line:\n%s", err, data)
	}
}

// TestYCSBIssueLines runs the two lines of issue 22 exactly as given,
// with no URL (libpq's variables name the test server, as they would a
// user's): `stampede load ycsb -P workloads/workloada`, whose file is
// YCSB's own (no YCSB checkout here), and `stampede run ycsb -P
// workloads/workloada -threads 6 -target 500 -s -p recordcount=1000`.
func TestYCSBIssueLines(t *testing.T) {
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "stampede_ycsbissue")
	host, port, _ := strings.Cut(u.Host, ":")
	for k, v := range map[string]string{"PGHOST": host, "PGPORT": port, "PGUSER": u.User.Username(), "PGDATABASE": db, "PGSSLMODE": "disable"} {
		t.Setenv(k, v)
	}
	r := stampede(t, "load", "ycsb", "-P", "workloads/workloada")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: -P workloads/workloada: no such file: using YCSB's workloada") {
		t.Fatalf("load: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 1000 {
		t.Errorf("%d rows loaded, want workloada's recordcount 1000", n)
	}
	if rep := ycsbReport(t, r.stdout); rep["[INSERT], Operations"] != 1000 {
		t.Errorf("load report:\n%s", r.stdout)
	}

	r = stampede(t, "run", "ycsb", "-P", "workloads/workloada", "-threads", "6", "-target", "500", "-s", "-p", "recordcount=1000",
		"--results-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := ycsbReport(t, r.stdout)
	if rep["[READ], Return=OK"]+rep["[UPDATE], Return=OK"] != 1000 || rep["[OVERALL], Throughput(ops/sec)"] > 550 {
		t.Errorf("report: workloada's 1000 operations at -target 500:\n%s", r.stdout)
	}
	for _, want := range []string{", 6 workers, ", "open loop at 500 ops/s", " 0 sec: 0 operations; est completion in 0 second \n", " sec: 1000 operations; "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
