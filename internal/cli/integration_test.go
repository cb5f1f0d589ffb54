package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/runlog"
)

// testServer returns the URL of the test PostgreSQL server, or skips.
func testServer(t testing.TB) string {
	t.Helper()
	u := os.Getenv("STAMPEDE_TEST_DATABASE")
	if u == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	return u
}

// adminExec runs statements on the test server's own database.
func adminExec(t testing.TB, sqls ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// freshDB returns the name of a database that does not exist yet and is
// dropped when the test ends.
func freshDB(t testing.TB, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	t.Cleanup(func() { adminExec(t, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)) })
	return name
}

// dbURL returns the test server's URL with database db.
func dbURL(t testing.TB, db string) string {
	t.Helper()
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}

// connectTo connects to database db of the test server; the caller closes
// the connection.
func connectTo(t testing.TB, ctx context.Context, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// execIn runs statements in database db of the test server.
func execIn(t testing.TB, db string, sqls ...string) {
	t.Helper()
	ctx := context.Background()
	conn := connectTo(t, ctx, db)
	defer conn.Close(ctx)
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func queryInt(t testing.TB, db, sql string) int64 {
	t.Helper()
	ctx := context.Background()
	conn := connectTo(t, ctx, db)
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// ndjsonFinal parses `--format json` output into per-operation counts and
// the summary object.
func ndjsonFinal(t testing.TB, out string) (map[string]int64, map[string]any) {
	t.Helper()
	counts := map[string]int64{}
	var summary map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch obj["type"] {
		case "final":
			counts[obj["op"].(string)] = int64(obj["cumulative"].(map[string]any)["count"].(float64))
		case "summary":
			summary = obj
		}
	}
	if summary == nil {
		t.Fatalf("no summary in %q", out)
	}
	return counts, summary
}

// TestYCSBCoreWorkloads loads and runs each of YCSB's core workloads
// against the real server and checks the operation mix and, for the
// workloads that insert, the row count.
func TestYCSBCoreWorkloads(t *testing.T) {
	srv := testServer(t)
	const records = 2000
	mixes := map[string]map[string]float64{
		"a": {"read": 0.5, "update": 0.5},
		"b": {"read": 0.95, "update": 0.05},
		"c": {"read": 1},
		"d": {"read": 0.95, "insert": 0.05},
		"e": {"scan": 0.95, "insert": 0.05},
		"f": {"read": 0.5, "read-modify-write": 0.5},
	}
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run("workload="+letter, func(t *testing.T) {
			db := freshDB(t, "stampede_ycsb_"+letter)
			common := []string{"--workload", letter, "-p", fmt.Sprintf("recordcount=%d", records), "--db", db}
			if r := stampede(t, append(append([]string{"init", "ycsb"}, common...), srv)...); r.code != 0 {
				t.Fatalf("init: %d %s", r.code, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != records {
				t.Fatalf("loaded %d rows, want %d", n, records)
			}
			r := stampede(t, append(append([]string{"run", "ycsb", "--duration", "3s", "--concurrency", "4",
				"--format", "json", "--results-dir", t.TempDir()}, common...), srv)...)
			if r.code != 0 {
				t.Fatalf("run: %d %s", r.code, r.stderr)
			}
			counts, _ := ndjsonFinal(t, r.stdout)
			var total int64
			parts := map[string]int64{}
			for op, n := range counts {
				if strings.Contains(op, "/") { // a part: failed operations, a read-modify-write's read
					parts[op] = n
					delete(counts, op)
					continue
				}
				total += n
			}
			for op, n := range parts {
				if (op != "read-modify-write/read" && op != "read-modify-write/update" && op != "scan/per-record") || n == 0 {
					t.Errorf("unexpected series %s (%d)", op, n)
				}
			}
			if rmw := counts["read-modify-write"]; parts["read-modify-write/read"] != rmw || parts["read-modify-write/update"] != rmw {
				t.Errorf("%d read-modify-writes, %d reads and %d updates of them", rmw, parts["read-modify-write/read"], parts["read-modify-write/update"])
			}
			if letter == "e" && parts["scan/per-record"] == 0 {
				t.Errorf("workload e recorded no scan/per-record")
			}
			if total < 500 {
				t.Fatalf("only %d operations in 3s: %v", total, counts)
			}
			for op, n := range counts {
				if _, ok := mixes[letter][op]; !ok && n > 0 {
					t.Errorf("unexpected operation %s (%d)", op, n)
				}
			}
			for op, want := range mixes[letter] {
				// A proportion of n draws has a standard deviation of
				// sqrt(p(1-p)/n): at 1,000 operations and p = 0.5 that is
				// 0.016, so a fixed ± 0.03 failed 1 run in 20. Allow 4.5
				// standard deviations (1 in 150,000), at least 0.03.
				got := float64(counts[op]) / float64(total)
				tol := max(0.03, 4.5*math.Sqrt(want*(1-want)/float64(total)))
				if math.Abs(got-want) > tol {
					t.Errorf("%s: %.3f of %d operations, want %.2f ± %.3f (%v)", op, got, total, want, tol, counts)
				}
			}
			if rows := queryInt(t, db, "SELECT count(*) FROM usertable"); rows != records+counts["insert"] {
				t.Errorf("%d rows after %d inserts, want %d", rows, counts["insert"], records+counts["insert"])
			}
			if r := stampede(t, append([]string{"check", "ycsb", "-p", fmt.Sprintf("recordcount=%d", records), "--db", db}, srv)...); r.code != 0 {
				t.Errorf("check: %d %s %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestInitRunCleanup covers the init/run/check/cleanup cycle and their
// errors: run before init, init over existing tables, cleanup.
func TestInitRunCleanup(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_cycle")
	dbFlag := []string{"--db", db, "-p", "recordcount=500"}
	r := stampede(t, append(append([]string{"run", "ycsb", "--duration", "1s"}, dbFlag...), srv)...)
	if r.code != 1 || !strings.Contains(r.stderr, "does not exist") || !strings.Contains(r.stderr, "stampede init") {
		t.Errorf("run before init: %d %q", r.code, r.stderr)
	}
	if r := stampede(t, append(append([]string{"init", "ycsb"}, dbFlag...), srv)...); r.code != 0 || !strings.Contains(r.stderr, "created database") {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	r = stampede(t, append(append([]string{"init", "ycsb"}, dbFlag...), srv)...)
	if r.code != 2 || !strings.Contains(r.stderr, "already exists") || !strings.Contains(r.stderr, "--drop") {
		t.Errorf("init twice: %d %q", r.code, r.stderr)
	}
	if r := stampede(t, append(append([]string{"init", "ycsb", "--drop"}, dbFlag...), srv)...); r.code != 0 {
		t.Errorf("init --drop: %d %s", r.code, r.stderr)
	}
	// Fewer connections than workers: workers share the pool, and auto
	// picks the poller for them.
	shared := t.TempDir()
	r = stampede(t, append(append([]string{"run", "ycsb", "--duration", "1s", "--concurrency", "6", "--conns", "2",
		"--results-dir", shared}, dbFlag...), srv)...)
	if r.code != 0 || !strings.Contains(r.stdout, "__result") {
		t.Errorf("run with --conns 2: %d %s", r.code, r.stderr)
	} else if got := recordedFlag(t, shared, "io-mode"); got != "poller" {
		t.Errorf("run with --conns 2 recorded io-mode %q, want poller", got)
	}
	// Each I/O mode runs the workload, and run.json records the mode
	// used; likewise the client's scheduling policy (batch unless the
	// kernel refuses it, which a root test on Linux never sees) and the
	// garbage collector's pacing (a small heap with the default 64M of
	// headroom gets a GOGC above 100; --gc-headroom 0 keeps 100).
	for _, tc := range []struct{ mode, sched, gc, want, wantSched string }{
		{"thread", "", "", "thread", "batch"},
		{"poller", "", "0", "poller", "batch"},
		{"auto", "normal", "", "thread", "normal"},
	} {
		dir := t.TempDir()
		args := []string{"run", "ycsb", "--duration", "1s", "--concurrency", "2", "--io-mode", tc.mode, "--results-dir", dir}
		if tc.sched != "" {
			args = append(args, "--client-sched", tc.sched)
		}
		if tc.gc != "" {
			args = append(args, "--gc-headroom", tc.gc)
		}
		r = stampede(t, append(append(args, dbFlag...), srv)...)
		if r.code != 0 || !strings.Contains(r.stdout, "__result") {
			t.Errorf("run with --io-mode %s: %d %s", tc.mode, r.code, r.stderr)
			continue
		}
		if got := recordedFlag(t, dir, "io-mode"); got != tc.want {
			t.Errorf("run with --io-mode %s recorded io-mode %q, want %q", tc.mode, got, tc.want)
		}
		if got := recordedFlag(t, dir, "client-sched"); runtime.GOOS == "linux" && got != tc.wantSched {
			t.Errorf("run with --client-sched %q recorded client-sched %q, want %q", tc.sched, got, tc.wantSched)
		}
		if _, set := os.LookupEnv("GOGC"); !set {
			got, err := strconv.Atoi(recordedFlag(t, dir, "gc-percent"))
			switch {
			case err != nil:
				t.Errorf("run with --gc-headroom %q recorded no gc-percent: %v", tc.gc, err)
			case tc.gc == "0" && got != 100:
				t.Errorf("run with --gc-headroom 0 recorded gc-percent %d, want 100", got)
			case tc.gc == "" && got <= 100:
				t.Errorf("run with the default --gc-headroom recorded gc-percent %d, want more than 100", got)
			}
		}
	}
	// --op-timeout: a client deadline of 1µs fails every operation as a
	// timeout, counted by code: YCSB records each as its Return=ERROR
	// status and goes on, a failure it handled (retries_timeout).
	r = stampede(t, append(append([]string{"run", "ycsb", "--duration", "1s", "--op-timeout", "1us", "--tolerate-errors",
		"--results-dir", t.TempDir()}, dbFlag...), srv)...)
	if r.code != 0 || !strings.Contains(r.stdout, "retries_timeout: ") {
		t.Errorf("run with --op-timeout 1us: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := stampede(t, append(append([]string{"cleanup", "ycsb"}, dbFlag...), srv)...); r.code != 0 {
		t.Errorf("cleanup: %d %s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}

// recordedFlag returns the flag name in run.json of the one run in dir.
func recordedFlag(t *testing.T, dir, name string) string {
	t.Helper()
	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs in %s: %d, %v", dir, len(runs), err)
	}
	rl, err := runlog.Open(filepath.Join(dir, runs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	return rl.Info.Flags[name]
}

// TestSecretsNeverPrinted runs with a password in the URL and searches
// every output and every file of the run for it.
func TestSecretsNeverPrinted(t *testing.T) {
	srv := testServer(t)
	const password = "Zq8-not-for-your-eyes"
	adminExec(t, "DROP ROLE IF EXISTS stampede_pw_user",
		fmt.Sprintf("CREATE ROLE stampede_pw_user LOGIN SUPERUSER PASSWORD '%s'", password))
	u, _ := url.Parse(srv)
	u.User = url.UserPassword("stampede_pw_user", password)
	db := freshDB(t, "stampede_secret")
	dir := t.TempDir()
	var outputs []string
	for _, args := range [][]string{
		{"init", "ycsb", "-p", "recordcount=200", "--db", db, u.String()},
		{"run", "ycsb", "-p", "recordcount=200", "--db", db, "--duration", "1s", "--results-dir", dir, u.String()},
		{"run", "ycsb", "-p", "recordcount=200", "--db", db, "--duration", "1s", "--format", "json", "--results-dir", dir, u.String()},
		{"run", "ycsb", "--db", "nosuchdb_xyz", "--results-dir", dir, u.String()},
		{"run", "ycsb", "--results-dir", dir, strings.Replace(u.String(), "127.0.0.1", "127.0.0.1:1", 1)},
		// A tag that quotes the URL, or a DSN: stored and listed redacted.
		{"run", "ycsb", "-p", "recordcount=200", "--db", db, "--duration", "1s", "--results-dir", dir,
			"--tag", "target=" + u.String(), "--tag", "dsn=host=h password=" + password, u.String()},
		{"runs", "--results-dir", dir},
		{"runs", "--results-dir", dir, "--format", "json"},
	} {
		r := stampede(t, args...)
		outputs = append(outputs, r.stdout, r.stderr)
	}
	// A wrong password: a clear error naming the user, not the password.
	// scripts/test's server requires a password of this role only.
	if queryInt(t, "postgres", "SELECT count(*) FROM pg_hba_file_rules WHERE 'stampede_pw_user' = ANY(user_name)") > 0 {
		u.User = url.UserPassword("stampede_pw_user", "wrong-"+password)
		r := stampede(t, "run", "ycsb", "--db", db, "--results-dir", dir, u.String())
		if r.code != 1 || !strings.Contains(r.stderr, "check the user name and password") {
			t.Errorf("wrong password: %d %q", r.code, r.stderr)
		}
		outputs = append(outputs, r.stdout, r.stderr)
	} else {
		t.Log("the server trusts stampede_pw_user: wrong-password case skipped")
	}
	for _, o := range outputs {
		if strings.Contains(o, password) {
			t.Errorf("password printed: %s", o)
		}
	}
	files := 0
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files++
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), password) {
			t.Errorf("password in %s", p)
		}
		return nil
	})
	if files < 8 {
		t.Errorf("only %d files written by two runs", files)
	}
}

// TestInterruptKeepsResults cancels a run (as Ctrl-C does) and checks the
// summary is printed, the exit code is 130 and the run is saved.
func TestInterruptKeepsResults(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_intr")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)
	r := stampedeCtx(t, ctx, "run", "ycsb", "-p", "recordcount=500", "--db", db, "--results-dir", dir, srv)
	if r.code != 130 || !strings.Contains(r.stdout, "__result") {
		t.Fatalf("interrupted run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 || runs[0].Status != "interrupted" {
		t.Fatalf("saved runs %+v %v", runs, err)
	}
}

// TestSeveralURLs spreads workers over two endpoints of the same server.
func TestSeveralURLs(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_multi")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	other := strings.Replace(srv, "127.0.0.1", "localhost", 1)
	r := stampede(t, "run", "ycsb", "-p", "recordcount=500", "--db", db, "--duration", "1s", "--concurrency", "4",
		"--results-dir", t.TempDir(), srv, other)
	if r.code != 0 {
		t.Fatalf("run: %s", r.stderr)
	}
	u, _ := url.Parse(srv)
	if !strings.Contains(r.stderr, "127.0.0.1:"+u.Port()+",localhost:"+u.Port()) {
		t.Errorf("endpoints not both used: %s", r.stderr)
	}
}

// TestDemo runs the demo against the test server and, when the server
// binaries are installed, on its own throwaway server. Against a URL the
// demo works in a database of its own: a user's ycsb database and table
// stay as they were, a stampede_demo it did not make is refused, and its
// own is dropped at the end (kept with --keep, then reused).
func TestDemo(t *testing.T) {
	srv := testServer(t)
	exists := func(db string) bool {
		return queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname = '%s'", db)) == 1
	}
	if exists("ycsb") || exists("stampede_demo") {
		t.Fatal("the test server already has a ycsb or stampede_demo database")
	}
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS ycsb WITH (FORCE)", "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)")
	})
	// The user's own YCSB table, which the demo used to replace.
	adminExec(t, "CREATE DATABASE ycsb")
	execIn(t, "ycsb", "CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, mine TEXT)", "INSERT INTO usertable VALUES ('user1', 'keep me')")

	r := stampede(t, "demo", "--duration", "2s", "--records", "2000", "--results-dir", t.TempDir(), srv)
	if r.code != 0 || !strings.Contains(r.stdout, "__result") || !strings.Contains(r.stderr, "results saved in") {
		t.Fatalf("demo with URL: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{`own database "stampede_demo"`, "created", `dropping the demo's database "stampede_demo"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("demo's output lacks %q:\n%s", want, r.stderr)
		}
	}
	if exists("stampede_demo") {
		t.Error("the demo left its database behind")
	}
	if n := queryInt(t, "ycsb", "SELECT count(*) FROM usertable WHERE mine = 'keep me'"); n != 1 {
		t.Errorf("the user's ycsb.usertable was changed: %d rows of theirs left", n)
	}

	// --keep keeps the demo's database; the next demo reuses and drops it.
	r = stampede(t, "demo", "--keep", "--duration", "1s", "--records", "500", "--results-dir", t.TempDir(), srv)
	if r.code != 0 || !exists("stampede_demo") || !strings.Contains(r.stderr, "kept") {
		t.Fatalf("demo --keep with URL: %d, database kept: %v\n%s", r.code, exists("stampede_demo"), r.stderr)
	}
	r = stampede(t, "demo", "--duration", "1s", "--records", "500", "--results-dir", t.TempDir(), srv)
	if r.code != 0 || exists("stampede_demo") || !strings.Contains(r.stderr, "reusing the one an earlier demo left") {
		t.Fatalf("demo after --keep: %d, database left: %v\n%s", r.code, exists("stampede_demo"), r.stderr)
	}

	// A user's table added to the database a demo kept: the next demo
	// refuses to drop the database with it (it dropped it, exit 0), and
	// the flag it names, alone, forces it.
	if r = stampede(t, "demo", "--keep", "--duration", "1s", "--records", "500", "--results-dir", t.TempDir(), srv); r.code != 0 {
		t.Fatalf("demo --keep with URL: %d\n%s", r.code, r.stderr)
	}
	execIn(t, "stampede_demo", "CREATE TABLE mytable (mine INT PRIMARY KEY)", "INSERT INTO mytable VALUES (42)")
	r = stampede(t, "demo", "--duration", "1s", "--records", "500", "--results-dir", t.TempDir(), srv)
	checkOneLineError(t, r, 2, `holds 1 object that stampede did not make (table public.mytable): the demo leaves the database alone; to drop it anyway, add --force-drop`)
	if n := queryInt(t, "stampede_demo", "SELECT count(*) FROM mytable WHERE mine = 42"); n != 1 {
		t.Errorf("the refused demo changed the user's table in stampede_demo")
	}
	r = stampede(t, "demo", "--duration", "1s", "--records", "500", "--force-drop", "--results-dir", t.TempDir(), srv)
	if r.code != 0 || !strings.Contains(r.stderr, `--force-drop: dropping database "stampede_demo" on `) || exists("stampede_demo") {
		t.Fatalf("demo --force-drop over a user's table: exit %d, database left: %v\n%s", r.code, exists("stampede_demo"), r.stderr)
	}

	// A stampede_demo the demo did not make is refused, and left as it is.
	adminExec(t, "CREATE DATABASE stampede_demo")
	execIn(t, "stampede_demo", "CREATE TABLE usertable (k INT)", "INSERT INTO usertable VALUES (42)")
	r = stampede(t, "demo", "--duration", "1s", "--records", "500", "--results-dir", t.TempDir(), srv)
	checkOneLineError(t, r, 2, `database "stampede_demo" already exists on `)
	if !strings.HasSuffix(strings.TrimSpace(r.stderr), "to drop it anyway, add --force-drop") {
		t.Errorf("the refusal does not end with the flag that forces it: %s", r.stderr)
	}
	if n := queryInt(t, "stampede_demo", "SELECT count(*) FROM usertable WHERE k = 42"); n != 1 {
		t.Errorf("the refused demo changed the user's stampede_demo")
	}
	// The flag it names, alone, drops it and runs the demo.
	r = stampede(t, "demo", "--duration", "1s", "--records", "500", "--force-drop", "--results-dir", t.TempDir(), srv)
	if r.code != 0 || !strings.Contains(r.stderr, `--force-drop: dropping database "stampede_demo"`) || exists("stampede_demo") {
		t.Fatalf("demo --force-drop: exit %d, database left: %v\n%s", r.code, exists("stampede_demo"), r.stderr)
	}

	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("no local PostgreSQL binaries: %v", err)
	}
	r = stampede(t, "demo", "--duration", "2s", "--records", "2000", "--results-dir", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "__result") || !strings.Contains(r.stderr, "stopping the throwaway PostgreSQL") {
		t.Fatalf("demo: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestDropNamesTables checks that init --drop says which tables it drops
// before it drops them, and that cleanup says which tables did not exist.
func TestDropNamesTables(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_dropnames")
	r := stampede(t, "init", "bank", "--rows", "10", "--drop", "--db", db, srv)
	if r.code != 0 || !strings.Contains(r.stderr, "--drop: no table to drop in database \""+db+"\"") {
		t.Errorf("init --drop on an empty database: %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, "init", "bank", "--rows", "10", "--drop", "--db", db, srv)
	if r.code != 0 || !strings.Contains(r.stderr, "--drop: dropping 1 table (bank) in database \""+db+"\"") {
		t.Errorf("init --drop over a load: %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, "cleanup", "bank", "--db", db, srv)
	if r.code != 0 || !strings.Contains(r.stderr, "dropped table bank") {
		t.Errorf("cleanup: %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, "cleanup", "bank", "--db", db, srv)
	if r.code != 0 || strings.Contains(r.stderr, "dropped table") || !strings.Contains(r.stderr, "nothing to drop") {
		t.Errorf("cleanup of nothing: %d\n%s", r.code, r.stderr)
	}
}

// TestTPCCRunFiguresAndChecks runs TPC-C through the CLI: tpmC and NOPM
// (no efficiency without waits) under the summary, the consistency checks
// after the run, and --skip-checks.
func TestTPCCRunFiguresAndChecks(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_tpcc")
	if r := stampede(t, "init", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	r := stampede(t, "run", "tpcc", "--wait=false", "--concurrency", "4", "--duration", "2s", "--db", db,
		"--results-dir", t.TempDir(), srv)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"newOrder", "tpmC:", "NOPM:", "consistency checks", "3.3.2.1 W_YTD = sum(D_YTD): PASS"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "efficiency:") {
		t.Errorf("efficiency with --wait=false:\n%s", r.stdout)
	}
	r = stampede(t, "run", "tpcc", "--wait=false", "--concurrency", "2", "--duration", "1s", "--skip-checks", "--db", db,
		"--results-dir", t.TempDir(), srv)
	if r.code != 0 || strings.Contains(r.stdout, "consistency checks") {
		t.Errorf("--skip-checks: %d\n%s", r.code, r.stdout)
	}
}
