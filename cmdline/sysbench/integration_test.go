package sysbench_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/clitest"

	"github.com/jackc/pgx/v5"
)

// The sysbench command lines below run through stampede's binary, built
// once by TestMain, against the test server that scripts/test starts:
// whole command lines, their exit codes and what they print, as a user
// runs them (this package's tests, not internal/cli's, so that the two
// test binaries run side by side).

// bin is stampede's binary ("" without a test server).
var bin string

func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("STAMPEDE_TEST_DATABASE") == "" {
			return m.Run() // the tests that need the binary skip
		}
		dir, err := os.MkdirTemp("", "stampede-sysbench-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "stampede")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/stampede-bench/stampede/cmd/stampede").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building stampede: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// result is what a command line printed and its exit code.
type result struct {
	code           int
	stdout, stderr string
}

// stampede runs stampede's binary with args.
func stampede(t *testing.T, args ...string) result {
	t.Helper()
	if bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("stampede %s: %v", strings.Join(args, " "), err)
	}
	return result{code, out.String(), errb.String()}
}

// testServer returns the test server's URL, or skips the test.
func testServer(t *testing.T) string {
	t.Helper()
	u := os.Getenv("STAMPEDE_TEST_DATABASE")
	if u == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	return u
}

// dbURL returns the test server's URL with database db ("" for the
// server's own).
func dbURL(t *testing.T, db string) string {
	t.Helper()
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if db != "" {
		u.Path = "/" + db
	}
	return u.String()
}

// connect connects to database db of the test server ("" for its own);
// the caller closes the connection.
func connect(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// execIn runs statements in database db of the test server.
func execIn(t *testing.T, db string, sqls ...string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, db)
	defer conn.Close(ctx)
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// adminExec runs statements in the test server's own database.
func adminExec(t *testing.T, sqls ...string) { execIn(t, "", sqls...) }

// queryInt returns the integer a query in database db returns.
func queryInt(t *testing.T, db, sql string) int64 {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, db)
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// freshDB returns the name of a database that does not exist yet and is
// dropped when the test ends.
func freshDB(t *testing.T, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	t.Cleanup(func() { adminExec(t, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)) })
	return name
}

// writeFile writes content to a file of the test's and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sb.cfg")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOneLineError fails unless r exited with code and its stderr is one
// error line containing want (warnings aside), with no stack trace.
func checkOneLineError(t *testing.T, r result, code int, want string) {
	t.Helper()
	clitest.OneLineError(t, r.code, r.stderr, code, want)
}

// checkFinalError checks that a command that failed after it started its
// work (and may have printed progress) ends with one error line containing
// want, with the exit code; it returns stderr's lines.
func checkFinalError(t *testing.T, r result, code int, want string) []string {
	t.Helper()
	return clitest.FinalError(t, r.code, r.stderr, code, want)
}

// sbConn returns sysbench's connection options for database db of the
// test server.
func sbConn(t *testing.T, db string) []string {
	t.Helper()
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(), "--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db}
}

// sbCounts are the figures of sysbench's final report.
type sbCounts struct {
	read, write, other, transactions, events int64
	totalTime                                float64
}

var sbFigure = regexp.MustCompile(`(?m)^\s+(read|write|other|transactions|total number of events|total time):\s+([0-9.]+)`)

// parseSysbench reads sysbench's final report out of out.
func parseSysbench(t *testing.T, out string) sbCounts {
	t.Helper()
	var c sbCounts
	seen := 0
	for _, m := range sbFigure.FindAllStringSubmatch(out, -1) {
		seen++
		if m[1] == "total time" {
			c.totalTime, _ = strconv.ParseFloat(m[2], 64)
			continue
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		switch m[1] {
		case "read":
			c.read = n
		case "write":
			c.write = n
		case "other":
			c.other = n
		case "transactions":
			c.transactions = n
		case "total number of events":
			c.events = n
		}
	}
	if seen != 6 {
		t.Fatalf("no sysbench report in:\n%s", out)
	}
	return c
}

// TestSysbenchLines runs pasted sysbench command lines, in sysbench's own
// form (a script's path or name, its options, the command last), against
// the test server: each does what sysbench's would to the database and
// prints what sysbench's would.
func TestSysbenchLines(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "stampede_sblines")
	adminExec(t, "CREATE DATABASE "+db)
	conn := sbConn(t, db)
	rows := func(table string) int64 { return queryInt(t, db, "SELECT count(*) FROM "+table) }
	tables := func() int64 {
		return queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'sbtest%'")
	}
	cfg := writeFile(t, fmt.Sprintf("# sysbench options: NAME=VALUE\n%s\ntables=2\ntable_size = 500 # rows\n",
		strings.ReplaceAll(strings.Join(conn, "\n"), "--", "")))
	type check func(t *testing.T, r result)
	sysbenchReport := func(events int64) check {
		return func(t *testing.T, r result) {
			t.Helper()
			if !strings.HasPrefix(r.stdout, "sysbench 1.0.20 (using stampede ") {
				t.Errorf("report does not open with sysbench's version line: %q", firstLine(r.stdout))
			}
			for _, want := range []string{"Number of threads: ", "SQL statistics:", "    transactions:", "95th percentile:", "Threads fairness:"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("no %q in the report:\n%s", want, r.stdout)
				}
			}
			if c := parseSysbench(t, r.stdout); events > 0 && (c.transactions != events || c.events != events) {
				t.Errorf("%d transactions, %d events; want %d", c.transactions, c.events, events)
			}
		}
	}
	for _, tc := range []struct {
		name string
		line []string
		code int
		want []string // in stdout
		then check
	}{
		{
			name: "the issue's prepare, a script path",
			line: append(append([]string{"/usr/share/sysbench/oltp_write_only.lua"}, conn...),
				"--pgsql-password=", "--table_size=1000", "--tables=3", "--threads=1", "--db-driver=pgsql", "prepare"),
			then: func(t *testing.T, r result) {
				if n := tables(); n != 3 {
					t.Errorf("%d tables, want 3", n)
				}
				for i := 1; i <= 3; i++ {
					if n := rows(fmt.Sprintf("sbtest%d", i)); n != 1000 {
						t.Errorf("sbtest%d: %d rows, want 1000", i, n)
					}
				}
			},
		},
		{name: "help of a script name", line: []string{"oltp_read_write", "help"},
			want: []string{"sysbench 1.0.20 (using stampede ", "oltp_read_write options:", "  --table_size=N", "[10000]", "  --skip_trx[=on|off]", "[off]"}},
		{name: "help of a script path", line: []string{"/usr/share/sysbench/oltp_insert.lua", "help"},
			want: []string{"oltp_insert.lua options:", "  --auto_inc[=on|off]"}},
		{
			name: "--events: one count shared by the threads",
			line: append(append([]string{"oltp_write_only"}, conn...), "--tables=3", "--table_size=1000", "--threads=4", "--events=103", "--time=0", "run"),
			then: func(t *testing.T, r result) {
				sysbenchReport(103)(t, r)
				if !strings.Contains(r.stdout, "Number of threads: 4") {
					t.Errorf("threads: %s", r.stdout)
				}
				for i := 1; i <= 3; i++ { // delete and re-insert: the rows stay
					if n := rows(fmt.Sprintf("sbtest%d", i)); n != 1000 {
						t.Errorf("sbtest%d: %d rows after the run, want 1000", i, n)
					}
				}
			},
		},
		{
			// (--time=10 by default: cmdline's TestSysbenchRunFlags.)
			name: "sysbench's defaults: 1 thread",
			line: append(append([]string{"oltp_point_select"}, conn...), "--tables=3", "--table_size=1000", "--events=40", "run"),
			want: []string{"Number of threads: 1\n"},
			then: func(t *testing.T, r result) {
				sysbenchReport(40)(t, r)
				if c := parseSysbench(t, r.stdout); c.read != 40 {
					t.Errorf("%d reads for 40 point selects", c.read)
				}
			},
		},
		{
			name: "--rate: the target rate and the queue's lines",
			line: append(append([]string{"oltp_read_only"}, conn...), "--tables=3", "--table_size=1000", "--threads=2", "--rate=40", "--time=2", "--report-interval=1", "run"),
			want: []string{"Target transaction rate: 40/sec\n", "Report intermediate results every 1 second(s)\n", "] queue length: ", ", concurrency: ", "] thds: 2 tps: "},
			then: func(t *testing.T, r result) { sysbenchReport(0)(t, r) },
		},
		{
			name: "--db-ps-mode=disable, --percentile=99, --histogram",
			line: append(append([]string{"oltp_read_write"}, conn...), "--tables=3", "--table_size=1000", "--events=20", "--time=0",
				"--db-ps-mode=disable", "--percentile=99", "--histogram=on", "run"),
			want: []string{"Latency histogram (values are in milliseconds)\n", "99th percentile:"},
			then: func(t *testing.T, r result) {
				c := parseSysbench(t, r.stdout)
				if c.transactions != 20 || c.read != 14*20 || c.write != 4*20 || c.other != 2*20 {
					t.Errorf("%+v: want 20 transactions of 14 reads, 4 writes and 2 others", c)
				}
			},
		},
		{
			name: "sysbench's deprecated --test=SCRIPT",
			line: append(append([]string{"--test=/usr/share/sysbench/oltp_point_select.lua"}, conn...), "--tables=3", "--table_size=1000", "--events=10", "--time=0", "run"),
			then: func(t *testing.T, r result) {
				sysbenchReport(10)(t, r)
				if !strings.HasPrefix(r.stderr, "warning: the --test option is deprecated.") {
					t.Errorf("stderr %q: want sysbench's warning first", r.stderr)
				}
			},
		},
		{
			name: "--version: sysbench's version line alone",
			line: []string{"oltp_read_write", "--version"},
			then: func(t *testing.T, r result) {
				if f := strings.Fields(r.stdout); strings.Count(r.stdout, "\n") != 1 || len(f) < 2 || f[0] != "sysbench" || f[1] != "1.0.20" {
					t.Errorf("stdout %q: want one line, sysbench 1.0.20 first", r.stdout)
				}
			},
		},
		{
			name: "--percentile=0 disables it",
			line: append(append([]string{"oltp_point_select"}, conn...), "--tables=3", "--table_size=1000", "--events=10", "--time=0", "--percentile=0", "run"),
			want: []string{"         percentile stats:               disabled\n"},
		},
		{
			name: "--verbosity=0 prints nothing",
			line: append(append([]string{"oltp_point_select"}, conn...), "--tables=3", "--table_size=1000", "--events=10", "--time=0", "--verbosity=0", "run"),
			then: func(t *testing.T, r result) {
				if r.stdout != "" || r.stderr != "" {
					t.Errorf("printed %q and %q", r.stdout, r.stderr)
				}
			},
		},
		{
			name: "--verbosity=2 prints warnings only",
			line: append(append([]string{"oltp_point_select"}, conn...), "--tables=3", "--table_size=1000", "--events=10", "--time=0", "--verbosity=2", "run"),
			then: func(t *testing.T, r result) {
				if r.stdout != "" || r.stderr != "" {
					t.Errorf("printed %q and %q", r.stdout, r.stderr)
				}
			},
		},
		{
			name: "--output-style stampede",
			line: append(append([]string{"oltp_point_select"}, conn...), "--tables=3", "--table_size=1000", "--events=10", "--time=0", "--output-style", "stampede", "run"),
			want: []string{"_elapsed___errors", "__result"},
		},
		{
			name: "options from --config-file",
			line: []string{"oltp_update_index", "--config-file=" + cfg, "--events=30", "--time=0", "run"},
			then: func(t *testing.T, r result) {
				c := parseSysbench(t, r.stdout)
				if c.write != 30 || c.other != 0 {
					t.Errorf("%+v: want 30 writes (every id exists)", c)
				}
			},
		},
		{
			name: "oltp_delete: deletes that find no row are other queries",
			line: append(append([]string{"oltp_delete"}, conn...), "--tables=3", "--table_size=1000", "--events=300", "--time=0", "run"),
			then: func(t *testing.T, r result) {
				c := parseSysbench(t, r.stdout)
				deleted := 3000 - rows("sbtest1") - rows("sbtest2") - rows("sbtest3")
				if c.write != deleted || c.write+c.other != 300 || c.read != 0 {
					t.Errorf("%+v: want %d writes (the rows the server deleted) and %d others", c, deleted, 300-deleted)
				}
			},
		},
		{
			name: "select_random_points takes --tables, as sysbench 1.0.20's, and reads sbtest1",
			line: append(append([]string{"select_random_points"}, conn...), "--tables=3", "--table_size=1000", "--events=20", "--time=0", "run"),
			then: func(t *testing.T, r result) {
				if c := parseSysbench(t, r.stdout); c.read != 20 || c.transactions != 20 {
					t.Errorf("%+v: want 20 events of one SELECT", c)
				}
			},
		},
		{
			name: "cleanup",
			line: append(append([]string{"/usr/share/sysbench/oltp_write_only.lua"}, conn...), "--tables=3", "--db-driver=pgsql", "cleanup"),
			then: func(t *testing.T, r result) {
				if n := tables(); n != 0 {
					t.Errorf("%d tables left", n)
				}
			},
		},
		{
			name: "bulk_insert counts its final flush",
			line: append(append([]string{"bulk_insert"}, conn...), "--threads=2", "--events=3000", "--time=0", "run"),
			then: func(t *testing.T, r result) {
				c := parseSysbench(t, r.stdout)
				// Each thread's rows fit one INSERT, sent when it stops
				// (none by a thread that got no event).
				r1, r2 := rows("sbtest1"), rows("sbtest2")
				inserts := min(r1, 1) + min(r2, 1)
				if c.events != 3000 || c.write != inserts || c.other != 0 {
					t.Errorf("%+v: want 3000 events and %d writes", c, inserts)
				}
				if r1+r2 != 3000 {
					t.Errorf("%d rows inserted, want 3000", r1+r2)
				}
			},
		},
		{name: "bulk_insert cleanup", line: append(append([]string{"bulk_insert"}, conn...), "--threads=2", "cleanup"),
			then: func(t *testing.T, r result) {
				if n := tables(); n != 0 {
					t.Errorf("%d tables left", n)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.line...)
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("no %q in stdout:\n%s", w, r.stdout)
				}
			}
			if tc.then != nil {
				tc.then(t, r)
			}
		})
	}
}

// TestSysbenchForcedShutdown checks --forced-shutdown against the test
// server, its rows locked by another transaction so that the first
// UPDATE never ends: the run is given up 1 s after --time, the report
// opens with sysbench's FATAL line and counts the unfinished event, and
// the exit code is not 0, as sysbench's.
func TestSysbenchForcedShutdown(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "stampede_sbforced")
	adminExec(t, "CREATE DATABASE "+db)
	line := append(append([]string{"oltp_update_non_index"}, sbConn(t, db)...), "--tables=1", "--table_size=100")
	if r := stampede(t, append(line, "prepare")...); r.code != 0 {
		t.Fatalf("prepare: %s", r.stderr)
	}
	ctx := context.Background()
	lock := connect(t, db)
	defer lock.Close(ctx)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT id FROM sbtest1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	r := stampede(t, append(line, "--time=1", "--forced-shutdown=1", "run")...)
	if took := time.Since(begin); took > 10*time.Second {
		t.Errorf("the run took %s: the forced shutdown is 2 s after its start", took)
	}
	if r.code != 1 || !strings.Contains(r.stderr, "--forced-shutdown: 1 events were still running") {
		t.Errorf("exit code %d, stderr %q: want 1 and the unfinished event named", r.code, r.stderr)
	}
	for _, want := range []string{"Forcing shutdown in 2 seconds\n", "\nFATAL: The --max-time limit has expired, forcing shutdown...\nSQL statistics:\n",
		"\nNumber of unfinished transactions on forced shutdown: 1\n\nGeneral statistics:\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in the report:\n%s", want, r.stdout)
		}
	}
}

// TestSysbenchLinesRefused checks that what stampede cannot honour of a
// sysbench command line is refused in one line naming it, exit code 2,
// before anything runs.
func TestSysbenchLinesRefused(t *testing.T) {
	for _, tc := range []struct {
		line []string
		want string
	}{
		{[]string{"/usr/share/sysbench/oltp_write_only.lua", "--pgsql-host=127.0.0.1:1", "--debug", "run"}, "--debug is not supported"},
		{[]string{"oltp_read_write", "--thread-stack-size=32K", "run"}, "--thread-stack-size"},
		{[]string{"oltp_read_write", "--report-checkpoints=10", "run"}, "stampede report RUN --from"},
		{[]string{"oltp_read_write", "--db-driver=mysql", "--mysql-host=db", "prepare"}, "--mysql-host"},
		{[]string{"oltp_read_write", "--db-driver=mysql", "prepare"}, `unsupported --db-driver "mysql"`},
		{[]string{"oltp_read_write", "--percentile=101", "run"}, "--percentile"},
		{[]string{"oltp_read_write", "--verbosity=5", "run"}, "--verbosity=5"},
		{[]string{"oltp_read_write", "--warmup-time=10", "run"}, "--warmup-time"},
		{[]string{"oltp_read_write", "--histogram", "--percentile=0", "run"}, "--histogram cannot be used with --percentile=0"},
		{[]string{"oltp_read_write", "--db-ps-mode=never", "run"}, "--db-ps-mode"},
		{[]string{"oltp_read_write", "--pgsql-sslmode=sometimes", "run"}, "--pgsql-sslmode"},
		{[]string{"oltp_read_write", "--config-file=/nonexistent.cfg", "run"}, "--config-file"},
		{[]string{"/usr/share/sysbench/tpcc.lua", "run"}, "unknown sysbench script"},
		{[]string{"fileio", "--file-test-mode=rndrw", "run"}, "fileio"},
		{[]string{"oltp_read_write", "prewarm"}, "prewarm"},
		{[]string{"oltp_read_write", "--tables=2"}, "say what to do"},
	} {
		r := stampede(t, tc.line...)
		checkOneLineError(t, r, 2, tc.want)
	}
}

// TestSysbenchPassword checks the --pgsql-password of a sysbench line,
// each --pgsql-* option working on its own: the right password connects,
// a wrong one is refused, an empty one means none, and it is printed
// nowhere.
func TestSysbenchPassword(t *testing.T) {
	testServer(t)
	if queryInt(t, "postgres", "SELECT count(*) FROM pg_hba_file_rules WHERE 'stampede_pw_user' = ANY(user_name)") == 0 {
		t.Skip("the server trusts stampede_pw_user: no password to check")
	}
	const password = "sb-Zq8-secret"
	adminExec(t, "DROP ROLE IF EXISTS stampede_pw_user",
		fmt.Sprintf("CREATE ROLE stampede_pw_user LOGIN SUPERUSER PASSWORD '%s'", password))
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	t.Setenv("PGPASSWORD", "")
	db := freshDB(t, "stampede_sbpw")
	adminExec(t, "CREATE DATABASE "+db)
	u, _ := url.Parse(testServer(t))
	conn := []string{"--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(), "--pgsql-user=stampede_pw_user", "--pgsql-db=" + db}
	line := func(extra ...string) []string {
		return append(append([]string{"oltp_point_select", "--tables=1", "--table_size=100"}, conn...), extra...)
	}
	var outputs []string
	r := stampede(t, line("--pgsql-password="+password, "prepare")...)
	if r.code != 0 {
		t.Fatalf("prepare with the password: %d %s", r.code, r.stderr)
	}
	outputs = append(outputs, r.stdout, r.stderr)
	r = stampede(t, line("--pgsql-password="+password, "--events=5", "--time=0", "run")...)
	if r.code != 0 || parseSysbench(t, r.stdout).transactions != 5 {
		t.Fatalf("run with the password: %d %s", r.code, r.stderr)
	}
	outputs = append(outputs, r.stdout, r.stderr)
	r = stampede(t, line("--pgsql-password=wrong-"+password, "run")...)
	checkFinalError(t, r, 1, "password")
	outputs = append(outputs, r.stdout, r.stderr)
	r = stampede(t, line("--pgsql-password=", "run")...) // none: the server asks for one
	checkFinalError(t, r, 1, "password")
	for _, o := range outputs {
		if strings.Contains(o, password) {
			t.Errorf("password printed: %s", o)
		}
	}
}

// TestSysbenchCountsMatch runs sysbench 1.0.20 itself and stampede with
// the same command lines on the same server and compares the counts of
// their reports where they are determined by the workload (one thread, a
// fixed number of events): transactions, reads, writes and others, the
// pgsql driver's classification included (a DELETE that finds no row is
// "other"). It is skipped without a sysbench binary.
func TestSysbenchCountsMatch(t *testing.T) {
	testServer(t)
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench binary in PATH")
	}
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "stampede_sbcmp")
	adminExec(t, "CREATE DATABASE "+db)
	conn := append(sbConn(t, db), "--db-driver=pgsql")
	runSysbench := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(sysbench, args...)
		cmd.Env = append(os.Environ(), "PGSSLMODE=disable")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	both := func(script string, opts ...string) (sb, st sbCounts) {
		t.Helper()
		line := append(append([]string{script}, conn...), opts...)
		line = append(line, "--time=0", "run")
		sb = parseSysbench(t, runSysbench(line...))
		r := stampede(t, line...)
		if r.code != 0 {
			t.Fatalf("stampede %s: %d %s", strings.Join(line, " "), r.code, r.stderr)
		}
		return sb, parseSysbench(t, r.stdout)
	}
	prepare := func(script string, opts ...string) {
		t.Helper()
		if r := stampede(t, append(append([]string{script}, conn...), append(opts, "cleanup")...)...); r.code != 0 {
			t.Fatalf("cleanup: %s", r.stderr)
		}
		if r := stampede(t, append(append([]string{script}, conn...), append(opts, "prepare")...)...); r.code != 0 {
			t.Fatalf("prepare: %s", r.stderr)
		}
	}
	same := func(what string, sb, st sbCounts) {
		t.Helper()
		sb.totalTime, st.totalTime = 0, 0
		if sb != st {
			t.Errorf("%s: sysbench %+v, stampede %+v", what, sb, st)
		}
	}
	table := []string{"--tables=2", "--table_size=1000"}
	prepare("oltp_read_write", table...)
	for _, script := range []string{"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index", "oltp_update_non_index", "oltp_insert"} {
		sb, st := both(script, append(table, "--events=100")...)
		same(script, sb, st)
	}
	sb, st := both("oltp_read_write", append(table, "--events=50", "--skip_trx=on", "--range_selects=off")...)
	same("oltp_read_write --skip_trx --range_selects=off", sb, st)
	sb, st = both("oltp_read_write", append(table, "--events=50", "--db-ps-mode=disable")...)
	same("oltp_read_write --db-ps-mode=disable", sb, st)

	// oltp_delete on full tables: each tool's writes are the rows it
	// deleted, its others the deletes that found none.
	for _, tool := range []string{"sysbench", "stampede"} {
		prepare("oltp_delete", table...)
		line := append(append(append([]string{"oltp_delete"}, conn...), table...), "--events=300", "--time=0", "run")
		var out string
		if tool == "sysbench" {
			out = runSysbench(line...)
		} else {
			r := stampede(t, line...)
			out = r.stdout
		}
		c := parseSysbench(t, out)
		deleted := 2000 - queryInt(t, db, "SELECT count(*) FROM sbtest1") - queryInt(t, db, "SELECT count(*) FROM sbtest2")
		if c.write != deleted || c.write+c.other != 300 || c.transactions != 300 {
			t.Errorf("%s oltp_delete: %+v, deleted %d rows", tool, c, deleted)
		}
	}
	// On empty tables every delete finds no row: 300 others for both.
	execIn(t, db, "DELETE FROM sbtest1", "DELETE FROM sbtest2")
	sb, st = both("oltp_delete", append(table, "--events=300")...)
	same("oltp_delete on empty tables", sb, st)
	if st.write != 0 || st.other != 300 {
		t.Errorf("oltp_delete on empty tables: %+v, want 300 others", st)
	}

	// bulk_insert: the last rows' INSERT, sent when the thread stops, is
	// a write.
	bulk := append([]string{"bulk_insert"}, conn...)
	// The OLTP scripts' tables (stampede's load of oltp_delete) are
	// theirs: bulk_insert's cleanup leaves them, the family's drops them.
	if r := stampede(t, append(append(append([]string{"oltp_delete"}, conn...), table...), "cleanup")...); r.code != 0 {
		t.Fatalf("cleanup of the OLTP tables: exit %d, %s", r.code, r.stderr)
	}
	runSysbench(append(bulk, "--threads=1", "prepare")...)
	sb = parseSysbench(t, runSysbench(append(bulk, "--threads=1", "--events=5000", "--time=0", "run")...))
	// sysbench made sbtest1, not stampede: only --force-drop drops it.
	if r := stampede(t, append(bulk, "--threads=1", "cleanup")...); r.code != 2 || !strings.Contains(r.stderr, "not made by stampede") {
		t.Errorf("cleanup of the table sysbench made: exit %d, %s", r.code, r.stderr)
	}
	if r := stampede(t, append(bulk, "--threads=1", "--force-drop", "cleanup")...); r.code != 0 {
		t.Fatalf("cleanup --force-drop: exit %d, %s", r.code, r.stderr)
	}
	r := stampede(t, append(bulk, "--threads=1", "--events=5000", "--time=0", "run")...)
	same("bulk_insert", sb, parseSysbench(t, r.stdout))
	_ = stampede(t, append(bulk, "--threads=1", "cleanup")...)
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// readmeSysbenchLines returns the command lines of the README's section
// on sysbench's workloads, continuation lines joined, comments cut.
func readmeSysbenchLines(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "### sysbench's OLTP workloads")
	if start < 0 {
		t.Fatal("no section on sysbench's workloads in README.md")
	}
	end := strings.Index(text[start+1:], "\n### ")
	if end < 0 {
		t.Fatal("the README's section on sysbench's workloads has no end")
	}
	var lines [][]string
	for _, l := range strings.Split(strings.ReplaceAll(text[start:start+1+end], "\\\n", " "), "\n") {
		if !strings.HasPrefix(l, "stampede ") {
			continue
		}
		l, _, _ = strings.Cut(l, " #")
		lines = append(lines, strings.Fields(l)[1:])
	}
	return lines
}

// TestSysbenchReadmeLines runs the command lines of the README's section
// on sysbench's workloads against the test server, in their order, each
// pointed at the test server (its --pgsql-* options and URLs replaced)
// and made small and short (--table_size=1000, --time=1, --duration 1s,
// --concurrency 4; a line that names its host but leaves the port, user
// or database to sysbench's defaults gets the test server's): prepare
// makes the tables, run prints its report in
// the line's style, help the script's options, cleanup drops the tables.
// A run whose tables a cleanup before it dropped gets them back first.
func TestSysbenchReadmeLines(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "stampede_sbreadme")
	adminExec(t, "CREATE DATABASE "+db)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	tables := func() int64 {
		return queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'sbtest%'")
	}
	cfg := filepath.Join(t.TempDir(), "bench.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("pgsql-host=%s\npgsql-port=%s\npgsql-user=%s\npgsql-db=%s\ntables=24\ntable_size=1000\nthreads=2\ntime=1\n",
		u.Hostname(), u.Port(), u.User.Username(), db)), 0o644); err != nil {
		t.Fatal(err)
	}
	rewrite := func(arg string) string {
		name, _, _ := strings.Cut(arg, "=")
		switch {
		case name == "--pgsql-host":
			return name + "=" + u.Hostname()
		case name == "--pgsql-port":
			return name + "=" + u.Port()
		case name == "--pgsql-user":
			return name + "=" + u.User.Username()
		case name == "--pgsql-db":
			return name + "=" + db
		case name == "--table_size":
			return name + "=1000"
		case name == "--time":
			return name + "=1"
		case name == "--config-file":
			return name + "=" + cfg
		case strings.Contains(arg, "://"):
			return dbURL(t, db)
		}
		return arg
	}
	lines := readmeSysbenchLines(t)
	if len(lines) < 5 {
		t.Fatalf("only %d command lines in the README's section on sysbench", len(lines))
	}
	for _, readme := range lines {
		var line []string
		for i := 0; i < len(readme); i++ {
			a := strings.Trim(readme[i], "'")
			switch {
			case (a == "--duration" || a == "--concurrency") && i+1 < len(readme):
				line = append(line, a, map[string]string{"--duration": "1s", "--concurrency": "4"}[a])
				i++
			default:
				line = append(line, rewrite(a))
			}
		}
		// A line that names its host and leaves the rest to sysbench's
		// defaults gets the test server's.
		if given := strings.Join(line, " "); strings.Contains(given, "--pgsql-host=") {
			for _, o := range []string{"--pgsql-port=" + u.Port(), "--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db} {
				if name, _, _ := strings.Cut(o, "="); !strings.Contains(given, name+"=") {
					line = append([]string{line[0], o}, line[1:]...)
				}
			}
		}
		t.Run(strings.Join(readme, " "), func(t *testing.T) {
			command, workload := line[len(line)-1], line[0]
			if strings.Contains(command, "://") { // stampede's own word order
				command, workload = line[0], line[1]
			}
			if command == "run" && tables() == 0 {
				if r := stampede(t, "init", workload, "--tables=24", "--table_size=1000", dbURL(t, db)); r.code != 0 {
					t.Fatalf("init before the line: %s", r.stderr)
				}
			}
			r := stampede(t, line...)
			if r.code != 0 {
				t.Fatalf("stampede %s: exit code %d\n%s", strings.Join(line, " "), r.code, r.stderr)
			}
			var want []string
			switch {
			case command == "prepare":
				if n := tables(); n != 24 {
					t.Errorf("%d tables after prepare, want 24", n)
				}
			case command == "cleanup":
				if n := tables(); n != 0 {
					t.Errorf("%d tables after cleanup", n)
				}
			case command == "help":
				want = []string{"sysbench 1.0.20 (using stampede ", workload + " options:\n", "  --table_size=N"}
			case line[0] == "run": // stampede's word order and output
				want = []string{"__result"}
			default: // sysbench's
				want = []string{"sysbench 1.0.20 (using stampede ", "SQL statistics:\n", "    transactions:", "95th percentile:"}
				if strings.Contains(strings.Join(line, " "), "--report-interval=10") {
					want = append(want, "Report intermediate results every 10 second(s)\n")
				}
			}
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("no %q in stdout:\n%s", w, r.stdout)
				}
			}
		})
	}
}

// TestSysbenchPrepareCleanupLines runs sysbench's prepare and cleanup and
// stampede's on the same command lines and compares what they print:
// the same lines after the version line, in the same order with one
// thread (several threads interleave them, in any order, in both tools),
// and nothing on stderr (sysbench takes --table_size on cleanup
// silently). After each command both tools leave the same tables. Each
// case is a sequence of commands on a database without sbtest tables:
// bulk_insert's prepare creates its tables (one per thread), and cleanup
// names every table 1..--tables (bulk_insert: 1..--threads) whether it
// exists or not. It is skipped without a sysbench binary.
func TestSysbenchPrepareCleanupLines(t *testing.T) {
	testServer(t)
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no sysbench binary in PATH")
	}
	db := freshDB(t, "stampede_sblines")
	adminExec(t, "CREATE DATABASE "+db)
	conn := append(sbConn(t, db), "--db-driver=pgsql")
	// body is what follows the version line and the blank line after it.
	body := func(t *testing.T, who, out string) string {
		t.Helper()
		first, rest, ok := strings.Cut(out, "\n\n")
		if !ok || !strings.HasPrefix(first, "sysbench 1.0.20 (using ") {
			t.Fatalf("%s printed no version line:\n%s", who, out)
		}
		return rest
	}
	// tables lists the sbtest tables of the database.
	tables := func(t *testing.T) string {
		t.Helper()
		ctx := context.Background()
		c := connect(t, db)
		defer c.Close(ctx)
		var names string
		if err := c.QueryRow(ctx, `SELECT coalesce(string_agg(tablename, ',' ORDER BY tablename), '') FROM pg_tables WHERE tablename LIKE 'sbtest%'`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	type step struct {
		command string
		opts    []string
	}
	prepare := func(opts ...string) step { return step{"prepare", opts} }
	cleanup := func(opts ...string) step { return step{"cleanup", opts} }
	for _, tc := range []struct {
		name    string
		script  string
		steps   []step
		ordered bool
	}{
		{"one thread", "oltp_read_write", []step{prepare("--tables=2", "--table_size=1000"), cleanup("--tables=2", "--table_size=1000")}, true},
		{"default table size", "oltp_read_write", []step{prepare("--tables=1"), cleanup("--tables=1")}, true},
		{"no secondary index", "oltp_read_write", []step{prepare("--tables=2", "--table_size=10", "--create_secondary=off"), cleanup("--tables=2", "--table_size=10", "--create_secondary=off")}, true},
		{"threads", "oltp_read_write", []step{prepare("--tables=3", "--table_size=500", "--threads=2"), cleanup("--tables=3", "--table_size=500", "--threads=2")}, false},
		{"more threads than tables", "oltp_read_write", []step{prepare("--tables=2", "--table_size=100", "--threads=4"), cleanup("--tables=2", "--table_size=100", "--threads=4")}, false},
		{"cleanup of tables that do not exist", "oltp_read_write", []step{cleanup("--tables=3"), prepare("--tables=1", "--table_size=10"), cleanup("--tables=4")}, true},
		{"cleanup of the default table", "oltp_point_select", []step{cleanup()}, true},
		{"bulk_insert", "bulk_insert", []step{prepare(), cleanup(), cleanup()}, true},
		{"bulk_insert threads", "bulk_insert", []step{prepare("--threads=3"), cleanup("--threads=2"), cleanup("--threads=4")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type seen struct{ out, tables string }
			got := map[string][]seen{}
			for _, tool := range []string{"sysbench", "stampede"} {
				for _, st := range tc.steps {
					line := append(append(append([]string{tc.script}, conn...), st.opts...), st.command)
					var stdout, stderr string
					if tool == "sysbench" {
						var o, e bytes.Buffer
						cmd := exec.Command(sysbench, line...)
						cmd.Env = append(os.Environ(), "PGSSLMODE=disable")
						cmd.Stdout, cmd.Stderr = &o, &e
						if err := cmd.Run(); err != nil {
							t.Fatalf("sysbench %s: %v\n%s%s", strings.Join(line, " "), err, o.String(), e.String())
						}
						stdout, stderr = o.String(), e.String()
					} else {
						r := stampede(t, line...)
						if r.code != 0 {
							t.Fatalf("stampede %s: exit %d\n%s%s", strings.Join(line, " "), r.code, r.stdout, r.stderr)
						}
						stdout, stderr = r.stdout, r.stderr
					}
					if stderr != "" {
						t.Errorf("%s %s printed on stderr: %q", tool, st.command, stderr)
					}
					got[tool] = append(got[tool], seen{body(t, tool, stdout), tables(t)})
				}
				// What a step left (bulk_insert's cleanup of fewer
				// threads) goes before the other tool's turn.
				for n := 1; n <= 5; n++ {
					execIn(t, db, fmt.Sprintf("DROP TABLE IF EXISTS sbtest%d", n))
				}
				execIn(t, db, "DROP TABLE IF EXISTS stampede_load")
			}
			for i, st := range tc.steps {
				sb, sp := got["sysbench"][i], got["stampede"][i]
				if !tc.ordered {
					sb.out, sp.out = sortedLines(sb.out), sortedLines(sp.out)
				}
				if sb.out != sp.out {
					t.Errorf("step %d, %s %s:\nsysbench:\n%s\nstampede:\n%s", i+1, strings.Join(st.opts, " "), st.command, sb.out, sp.out)
				}
				if sb.tables != sp.tables {
					t.Errorf("step %d, %s %s: sysbench left tables %q, stampede %q", i+1, strings.Join(st.opts, " "), st.command, sb.tables, sp.tables)
				}
			}
		})
	}
}

// TestSysbenchCleanupRefusesForeign shows that sysbench's cleanup, which
// names every table 1..N, still refuses a table stampede did not make
// before it drops anything, and then names no table as dropped.
func TestSysbenchCleanupRefusesForeign(t *testing.T) {
	testServer(t)
	for _, tc := range []struct {
		script string
		opts   []string
		want   string
	}{
		{"oltp_read_write", []string{"--tables=3", "--table-size=10"}, "table sbtest2 in database"},
		{"bulk_insert", []string{"--threads=3"}, "table sbtest2 in database"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			db := freshDB(t, "stampede_sbforeign")
			adminExec(t, "CREATE DATABASE "+db)
			conn := append(sbConn(t, db), "--db-driver=pgsql")
			execIn(t, db, "CREATE TABLE sbtest2 (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0)", "INSERT INTO sbtest2 VALUES (1, 42)")
			if tc.script == "bulk_insert" {
				execIn(t, db, "CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0)", dialect.CommentOnTable(dialect.Postgres{}, "sbtest1", "made by stampede run of bulk_insert"))
			}
			line := append(append(append([]string{tc.script}, conn...), tc.opts...), "cleanup")
			r := stampede(t, line...)
			checkOneLineError(t, r, 2, tc.want)
			if strings.Contains(r.stdout, "Dropping") {
				t.Errorf("a refused cleanup names tables as dropped:\n%s", r.stdout)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM sbtest2 WHERE k = 42"); n != 1 {
				t.Errorf("the user's sbtest2 lost its row")
			}
			if tc.script == "bulk_insert" {
				if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'sbtest1'"); n != 1 {
					t.Errorf("the refused cleanup dropped stampede's sbtest1 all the same")
				}
			}
		})
	}
}

// sortedLines is s's non-empty lines sorted, for output whose lines threads print in any order.
// threadLine finds a line of sysbench's threads that begins inside
// another line.
var threadLine = regexp.MustCompile(`([^\n])((?:Inserting|Creating|Dropping) )`)

func sortedLines(s string) string {
	// sysbench's threads print "Creating table 'sbtestN'..." and its
	// newline in two writes, so two threads' lines can interleave as
	// "...Creating table 'sbtest2'...", leaving an empty line elsewhere:
	// a line is cut after each "..." and empty lines are left out. The
	// same holds for "Inserting 500 records into 'sbtest1'", which ends
	// in no "...": a line is cut before each of the threads' lines that
	// begins inside another (CI: "...into 'sbtest2'Inserting 500 ...").
	var lines []string
	s = threadLine.ReplaceAllString(strings.ReplaceAll(s, "...", "...\n"), "$1\n$2")
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
