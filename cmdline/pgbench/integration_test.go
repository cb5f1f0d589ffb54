package pgbench_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The command lines below run through stampede's binary, built once by
// TestMain, and through Debian's real pgbench, against the test server
// that scripts/test starts, on the same pgbench tables: their reports
// must match line for line once the numbers are blanked.

var bin string

func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("STAMPEDE_TEST_DATABASE") == "" {
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "stampede-pgbench-test")
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

// server is the test server's host, port and user, for pgbench's -h -p -U.
func server(t *testing.T) []string {
	t.Helper()
	u, err := url.Parse(os.Getenv("STAMPEDE_TEST_DATABASE"))
	if err != nil || bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	return []string{"-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username()}
}

// tool runs pgbench (real) or `stampede pgbench` with args and returns
// stdout, stderr.
func tool(t *testing.T, real bool, dir string, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, code := run(t, real, dir, args...)
	if code != 0 {
		t.Fatalf("%v pgbench %s: exit %d\n%s%s", real, strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

// adminConn connects to the test server's own database (to create
// databases and read the server's statistics); the connection is closed
// when the test ends.
func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	admin, err := pgx.Connect(context.Background(), os.Getenv("STAMPEDE_TEST_DATABASE"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return admin
}

// dbURL is the test server's URL for its database db.
func dbURL(db string) string {
	u, _ := url.Parse(os.Getenv("STAMPEDE_TEST_DATABASE"))
	u.Path = "/" + db
	return u.String()
}

// connect connects to the test server's database db; the caller closes
// the connection.
func connect(t *testing.T, db string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), dbURL(db))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// emptyDB creates an empty database named prefix_N, dropped when the test
// ends, and returns its name.
func emptyDB(t *testing.T, prefix string) string {
	t.Helper()
	admin := adminConn(t)
	name := fmt.Sprintf("%s_%d", prefix, rand.Uint32())
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)") })
	return name
}

// freshDB creates a database loaded by pgbench -i -s 1 and returns its name.
func freshDB(t *testing.T) string {
	t.Helper()
	srv := server(t)
	name := emptyDB(t, "pgbform")
	if out, err := exec.Command("pgbench", append(append(srv, "-i", "-q", "-s", "1"), name)...).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	return name
}

var numbers = regexp.MustCompile(`-?\d+(\.\d+)?|NaN`)

// blanks are the spaces that pad a number to its column (-r's table):
// numbers of other widths pad with fewer.
var blanks = regexp.MustCompile(`  +`)

// blank replaces every number of a report with N, its padding with one
// space, and drops the version line (the tools' names differ there).
func blank(report string) []string {
	var out []string
	for i, l := range strings.Split(strings.TrimRight(report, "\n"), "\n") {
		if i == 0 && strings.HasPrefix(l, "pgbench (") {
			continue
		}
		out = append(out, blanks.ReplaceAllString(numbers.ReplaceAllString(l, "N"), " "))
	}
	return out
}

// TestReportAsPgbench compares the reports line by line.
func TestReportAsPgbench(t *testing.T) {
	dir := t.TempDir()
	db := freshDB(t)
	srv := server(t)
	if err := os.WriteFile(filepath.Join(dir, "one.sql"), []byte("\\set aid random(1, 100000 * :scale)\n-- a comment\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Every run of fail.sql fails with a serialization failure: pgbench
	// counts it failed, after --max-tries, and goes on.
	if err := os.WriteFile(filepath.Join(dir, "fail.sql"), []byte("DO $$BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END$$;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// -r's first lines keep their trailing blanks, as pgbench's: before a
	// \gset on the same line, and at the end of a statement's first line.
	if err := os.WriteFile(filepath.Join(dir, "wr.sql"), []byte("\\set aid random(1, :maxid)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid \\gset\nSELECT 1 AS one,  \n  2 AS two\n\\aset\nSELECT 3;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"-n", "-t", "3", "-f", "wr.sql", "-D", "maxid=100", "-r"},
		{"-n", "-t", "20", "-c", "2", "-S"},
		{"-n", "-t", "20", "-c", "2", "-S", "-r"},
		{"-n", "-T", "2", "-c", "2", "-j", "2", "-M", "prepared", "-b", "tpcb-like@2", "-b", "select-only@1", "-r"},
		{"-n", "-T", "2", "-c", "2", "-P", "1", "-N"},
		{"-n", "-T", "2", "-c", "2", "-R", "50", "-S"},
		{"-n", "-t", "100", "-c", "2", "-M", "extended", "-f", "one.sql@3", "-b", "select-only", "-r"},
		{"-n", "-t", "10", "-f", "one.sql", "-D", "x=5", "-s", "3"},
		{"-n", "-T", "2", "-c", "2", "--max-tries=3", "-S", "-P", "1"},
		{"-n", "-t", "40", "-c", "2", "--max-tries=2", "-f", "fail.sql@1", "-f", "one.sql@3"},
		// -r under --max-tries: pgbench's failures and retries columns, by script.
		{"-n", "-t", "40", "-c", "2", "--max-tries=2", "-r", "-f", "fail.sql@1", "-f", "one.sql@3"},
		{"-n", "-t", "3", "-f", "fail.sql"},
		{"-n", "-T", "2", "-c", "2", "-R", "100", "-L", "5", "-S"},
		{"-n", "-T", "3", "-c", "2", "-P", "1", "-R", "2000", "-L", "2", "-S"},
		{"-n", "-t", "20", "-c", "2", "-L", "1", "-S"},
		{"-n", "-T", "2", "-c", "2", "-S", "--failures-detailed", "--max-tries=2", "-P", "1", "--progress-timestamp"},
		{"-t", "10", "-c", "2", "-S", "-v"},
		{"-n", "-t", "20", "-c", "2", "-S", "-C"},
		// The lines pasted most, without -n: one client, vacuum first
		// (they hung: the vacuum waited for a second connection).
		{},
		{"-T", "2"},
		{"-t", "10"},
		{"-T", "2", "-S"},
		{"-T", "2", "-M", "prepared"},
		{"-c", "1", "-j", "1", "-T", "2", "-r"},
		{"-C", "-t", "3"},
		{"-f", "one.sql", "-t", "3"},
		{"-T", "3", "-P", "1"},
		{"-c", "4", "-j", "2", "-T", "2"},
		// -R -L with several scripts: skipped transactions by script too.
		{"-n", "-T", "2", "-c", "2", "-R", "300", "-L", "1", "-b", "select-only@2", "-b", "simple-update", "-r"},
		// --max-tries 0: unlimited tries, with -T or -L.
		{"-n", "-T", "2", "-c", "2", "--max-tries=0", "-S"},
		{"-n", "-t", "20", "-c", "2", "--max-tries=0", "-L", "50", "-S"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append(append([]string{}, srv...), args...), db)
			pgOut, pgErr := tool(t, true, dir, full...)
			stOut, stErr := tool(t, false, dir, full...)
			want, got := blank(pgOut), blank(stOut)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("report differs\npgbench:\n%s\nstampede:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			// Progress lines: every one of the same shape as pgbench's,
			// about as many (one each -P seconds).
			progress := func(s string) []string {
				var p []string
				for _, l := range strings.Split(s, "\n") {
					if strings.HasPrefix(l, "progress: ") {
						p = append(p, numbers.ReplaceAllString(l, "N"))
					}
				}
				return p
			}
			pp, sp := progress(pgErr), progress(stErr)
			if len(pp) > 0 && (len(sp) < len(pp)-1 || len(sp) > len(pp)+1) {
				t.Errorf("%d progress lines, pgbench printed %d: pgbench %q, stampede %q", len(sp), len(pp), pp, sp)
			}
			for i, l := range sp {
				if len(pp) == 0 {
					t.Errorf("stampede printed progress lines pgbench did not: %q", sp)
					break
				}
				if l != pp[min(i, len(pp)-1)] {
					t.Errorf("progress line %d differs: pgbench %q, stampede %q", i+1, pp[min(i, len(pp)-1)], l)
				}
			}
		})
	}
}

// TestInitAsPgbench: `stampede pgbench -i` prints pgbench -i's lines
// (numbers blanked), the server's NOTICEs of its DROP TABLE IF EXISTS
// among them, as libpq prints them, and a second -i replaces what the
// first made. workload/pgbench compares the tables themselves.
func TestInitAsPgbench(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			out = append(out, numbers.ReplaceAllString(l, "N"))
		}
		return out
	}
	for _, args := range [][]string{{"-i", "-s", "2"}, {"-i", "-s", "2", "-F", "90", "--foreign-keys", "-I", "dtGvp"}, {"-i", "-q", "-s", "1"}} {
		var got [2][]string
		for k, real := range []bool{true, false} {
			name := emptyDB(t, "pgbinit")
			_, errOut := tool(t, real, dir, append(append(append([]string{}, srv...), args...), name)...)
			got[k] = lines(errOut)
			if !real {
				// Again: the tables are stampede's now, and -i replaces them.
				if _, errOut := tool(t, real, dir, append(append(append([]string{}, srv...), args...), name)...); !strings.Contains(errOut, "done in") {
					t.Errorf("a second -i: %s", errOut)
				}
			}
		}
		if strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
			t.Errorf("%v: pgbench printed\n%s\nstampede printed\n%s", args, strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
		}
	}
}

// TestSameStatementsAsPgbench runs -b tpcb-like, simple-update and
// select-only for a fixed number of transactions with pgbench and with
// stampede, each in its own database, and compares what the server
// counted: the statements themselves, their text and calls per
// transaction (pg_stat_statements, which scripts/lib.sh's test server
// preloads), and the rows each table's statements updated, inserted and
// fetched by index (pg_stat_user_tables).
func TestSameStatementsAsPgbench(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	ctx := context.Background()
	type counts map[string]int64
	stats := func(db string) counts {
		c := connect(t, db)
		defer c.Close(ctx)
		// The statistics collector reports a backend's counts when it
		// ends, within a second or so (PostgreSQL 15: shared memory).
		out := counts{}
		for try := 0; try < 50; try++ {
			_, _ = c.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
			rows, err := c.Query(ctx, `SELECT relname, n_tup_upd, n_tup_ins, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname LIKE 'pgbench_%'`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var name string
				var upd, ins, idx int64
				if err := rows.Scan(&name, &upd, &ins, &idx); err != nil {
					t.Fatal(err)
				}
				out[name+" updated"], out[name+" inserted"], out[name+" index scans"] = upd, ins, idx
			}
			if out["pgbench_accounts updated"] > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		return out
	}
	// The statements themselves, as pg_stat_statements counts them in
	// each database: their text (constants made $N) and calls.
	statements := func(db string) counts {
		c := connect(t, db)
		defer c.Close(ctx)
		rows, err := c.Query(ctx, `SELECT query, calls FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND (query ~* '^(BEGIN|END)' OR query ~* '^(UPDATE|INSERT INTO|SELECT abalance FROM) pgbench_')`)
		if err != nil {
			t.Fatal(err)
		}
		out := counts{}
		for rows.Next() {
			var q string
			var n int64
			if err := rows.Scan(&q, &n); err != nil {
				t.Fatal(err)
			}
			out[q] += n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	watch := func(db string) {
		c := connect(t, db)
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
			t.Fatalf("pg_stat_statements: %v (scripts/lib.sh's test server preloads it)", err)
		}
		if _, err := c.Exec(ctx, "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)"); err != nil {
			t.Fatal(err)
		}
	}
	for _, script := range []string{"tpcb-like", "simple-update", "select-only"} {
		var got, sent [2]counts
		for k, real := range []bool{true, false} {
			db := freshDB(t)
			watch(db)
			before := stats(db)
			tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "50", "-c", "2", "-b", script, "-M", "prepared", db)...)
			after := stats(db)
			got[k] = counts{}
			for key, v := range after {
				got[k][key] = v - before[key]
			}
			sent[k] = statements(db)
		}
		for key, v := range got[0] {
			if got[1][key] != v {
				t.Errorf("%s: %s: pgbench %d, stampede %d", script, key, v, got[1][key])
			}
		}
		// 100 transactions: each statement of the script 100 calls
		// (BEGIN and END, utility statements, as the server counts
		// them), the same for both.
		if len(sent[0]) == 0 {
			t.Errorf("%s: pg_stat_statements counted none of pgbench's statements", script)
		}
		for q, n := range sent[0] {
			utility := q == "BEGIN" || q == "END"
			if !utility && n != 100 || sent[1][q] != n {
				t.Errorf("%s: %q: pgbench called it %d times in 100 transactions, stampede %d", script, q, n, sent[1][q])
			}
		}
		for q, n := range sent[1] {
			if _, ok := sent[0][q]; !ok {
				t.Errorf("%s: stampede sent %q %d times, pgbench never", script, q, n)
			}
		}
		if script == "select-only" {
			continue
		}
		if got[0]["pgbench_accounts updated"] != 100 {
			t.Errorf("%s: pgbench updated %d accounts in 100 transactions", script, got[0]["pgbench_accounts updated"])
		}
	}
}

// TestTransactionLogAsPgbench runs -l with both tools and reads the files
// with pgbench's description of the format (client_id transaction_no time
// script_no time_epoch time_us [retries]): the same files (one per
// thread, the clients dealt the same way), the same transactions, and
// with --sampling-rate and one --random-seed the same transactions
// logged.
func TestTransactionLogAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	type txn struct {
		file             string
		client, no, sno  int
		failed, skipped  bool
		retries          int
		fields           int
		epoch, us, micro int64
		lag              int64 // -1: no schedule_lag column
	}
	// read reads the logs in dir; rated says they have pgbench's
	// schedule_lag column (-R).
	read := func(dir string, rated bool) []txn {
		files, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
		var out []txn
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// The file's name without the process id: "" or ".1".
			parts := strings.SplitN(filepath.Base(f), ".", 3)
			suffix := ""
			if len(parts) == 3 {
				suffix = parts[2]
			}
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l == "" {
					continue
				}
				var x txn
				x.file = suffix
				fs := strings.Fields(l)
				x.fields = len(fs)
				if len(fs) < 6 {
					t.Fatalf("%s: line %q has %d fields, pgbench's has 6 or more", f, l, len(fs))
				}
				x.failed, x.skipped = fs[2] == "failed", fs[2] == "skipped"
				if _, err := fmt.Sscan(fs[0]+" "+fs[1]+" "+fs[3]+" "+fs[4]+" "+fs[5], &x.client, &x.no, &x.sno, &x.epoch, &x.us); err != nil {
					t.Fatalf("%s: line %q: %v", f, l, err)
				}
				if !x.failed && !x.skipped {
					if _, err := fmt.Sscan(fs[2], &x.micro); err != nil || x.micro < 0 {
						t.Fatalf("%s: line %q: time %q", f, l, fs[2])
					}
				}
				rest := fs[6:]
				x.lag = -1
				if rated {
					if len(rest) == 0 {
						t.Fatalf("%s: line %q: no schedule_lag", f, l)
					}
					if _, err := fmt.Sscan(rest[0], &x.lag); err != nil || x.lag < 0 || x.lag > x.micro || x.skipped && x.lag != 0 {
						t.Errorf("%s: line %q: schedule_lag %q is not between 0 and the latency (0 when skipped)", f, l, rest[0])
					}
					rest = rest[1:]
				}
				if len(rest) == 1 {
					fmt.Sscan(rest[0], &x.retries)
				}
				if x.us < 0 || x.us > 999999 || x.epoch < time.Now().Add(-time.Hour).Unix() || x.epoch > time.Now().Unix()+1 {
					t.Errorf("%s: line %q: time_epoch %d time_us %d out of range", f, l, x.epoch, x.us)
				}
				out = append(out, x)
			}
		}
		return out
	}
	key := func(xs []txn) string {
		var k []string
		for _, x := range xs {
			k = append(k, fmt.Sprintf("file%s client %d no %d script %d fields %d", x.file, x.client, x.no, x.sno, x.fields))
		}
		sort.Strings(k)
		return strings.Join(k, "\n")
	}
	for _, args := range [][]string{
		{"-n", "-t", "20", "-c", "4", "-j", "2", "-S", "-l"},
		{"-n", "-t", "20", "-c", "2", "-j", "2", "-S", "-l", "--max-tries=3"},
		{"-n", "-t", "200", "-c", "2", "-j", "2", "-S", "-l", "--sampling-rate=0.1", "--random-seed=7", "--log-prefix=pgbench_log"},
		{"-n", "-t", "20", "-c", "4", "-j", "2", "-S", "-l", "-R", "400"},
		{"-n", "-t", "20", "-c", "2", "-S", "-l", "-R", "400", "--max-tries=2"},
	} {
		var got [2][]txn
		rated := slices.Contains(args, "-R")
		for k, real := range []bool{true, false} {
			dir := t.TempDir()
			out, _ := tool(t, real, dir, append(append(append([]string{}, srv...), args...), db)...)
			got[k] = read(dir, rated)
			if rated {
				// The log's mean latency and lag are the report's
				// (which stampede computes from its histograms).
				var lat, lag, maxLag float64
				for _, l := range strings.Split(out, "\n") {
					fmt.Sscanf(l, "latency average = %f ms", &lat)
					fmt.Sscanf(l, "rate limit schedule lag: avg %f (max %f) ms", &lag, &maxLag)
				}
				var sumLat, sumLag float64
				for _, x := range got[k] {
					sumLat += float64(x.micro) / 1000
					sumLag += float64(x.lag) / 1000
				}
				n := float64(len(got[k]))
				near := func(a, b float64) bool { return math.Abs(a-b) <= 0.02+0.02*b }
				if !near(sumLat/n, lat) || !near(sumLag/n, lag) {
					t.Errorf("real=%v %v: the log's mean latency %.3f ms and lag %.3f ms; the report's %.3f and %.3f", real, args, sumLat/n, sumLag/n, lat, lag)
				}
			}
		}
		if len(got[0]) == 0 {
			t.Fatalf("%v: pgbench logged nothing", args)
		}
		if a, b := key(got[0]), key(got[1]); a != b {
			t.Errorf("%v: the logs differ\npgbench:\n%s\nstampede:\n%s", args, a, b)
		}
	}
	// -R the server cannot sustain with -L: both tools skip transactions
	// and log each as "skipped" with a schedule_lag of 0, numbered in
	// turn with the transactions run (pgbench counts a skipped one in -t),
	// and under -t every client's numbers run 1..50.
	for _, args := range [][]string{
		{"-n", "-t", "50", "-c", "2", "-S", "-l", "-R", "50000", "-L", "0.05"},
	} {
		for _, real := range []bool{true, false} {
			dir := t.TempDir()
			tool(t, real, dir, append(append(append([]string{}, srv...), args...), db)...)
			txns := read(dir, true)
			skipped := 0
			next := map[int]int{}
			for _, x := range txns {
				if x.skipped {
					skipped++
				}
				if x.no != next[x.client]+1 {
					t.Errorf("real=%v: client %d's transaction %d follows %d", real, x.client, x.no, next[x.client])
				}
				next[x.client] = x.no
			}
			if skipped == 0 || len(txns) != 100 || next[0] != 50 || next[1] != 50 {
				t.Errorf("real=%v %v: %d lines, %d skipped, clients' last %v: want 100 lines, some skipped, 50 each", real, args, len(txns), skipped, next)
			}
		}
	}
}

// TestAggregateLogAsPgbench runs -l --aggregate-interval 1 with both
// tools: every line has pgbench 15's 15 fields, the intervals follow each
// other a second apart, and their transactions add up to the report's
// but for the last interval, which the end of the run cut short and which
// pgbench does not write.
func TestAggregateLogAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, c := range []struct {
		real  bool
		rated []string
	}{{true, nil}, {false, nil}, {true, []string{"-R", "3000", "-L", "1"}}, {false, []string{"-R", "3000", "-L", "1"}}} {
		real := c.real
		dir := t.TempDir()
		out, _ := tool(t, real, dir, append(append(append([]string{}, srv...), "-n", "-T", "3", "-c", "2", "-S", "-l", "--aggregate-interval", "1", db), c.rated...)...)
		var processed, reportSkipped, logSkipped int64
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "number of transactions actually processed: "); ok {
				fmt.Sscan(v, &processed)
			}
			if v, ok := strings.CutPrefix(l, "number of transactions skipped: "); ok {
				fmt.Sscan(v, &reportSkipped)
			}
		}
		files, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
		if len(files) != 1 {
			t.Fatalf("real=%v: %d log files, want 1", real, len(files))
		}
		b, _ := os.ReadFile(files[0])
		var sum, prev int64
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, l := range lines {
			fs := strings.Fields(l)
			if len(fs) != 15 {
				t.Fatalf("real=%v: line %q has %d fields, want 15", real, l, len(fs))
			}
			var start, n, s, s2, mn, mx int64
			fmt.Sscan(strings.Join(fs[:6], " "), &start, &n, &s, &s2, &mn, &mx)
			if i > 0 && start != prev+1 {
				t.Errorf("real=%v: interval %d starts at %d after %d", real, i, start, prev)
			}
			if n > 0 && (mn > mx || s < n*mn || s > n*mx) {
				t.Errorf("real=%v: line %q: the sum is not between n*min and n*max", real, l)
			}
			// The schedule lag's columns (0 without -R), and the
			// transactions skipped.
			var ls, ls2, lmn, lmx, skipped int64
			fmt.Sscan(strings.Join(fs[6:11], " "), &ls, &ls2, &lmn, &lmx, &skipped)
			switch {
			case c.rated == nil && ls+ls2+lmn+lmx+skipped != 0:
				t.Errorf("real=%v: line %q: lag or skipped columns without -R", real, l)
			case c.rated != nil && n > 0 && (lmn > lmx || ls < n*lmn || ls > n*lmx || lmx > mx):
				t.Errorf("real=%v: line %q: the lag's sum is not between n*min and n*max, or its max above the latency's", real, l)
			}
			logSkipped += skipped
			prev = start
			sum += n
		}
		// The last interval, cut short by the end, is not written: the
		// lines add up to less than the report, by that interval's
		// transactions, which on a loaded machine may be most of the
		// run's (the real pgbench wrote 845 of 1,793 at load 37).
		if sum > processed || sum == 0 || len(lines) < 2 || len(lines) > 4 {
			t.Errorf("real=%v: %d lines adding up to %d transactions; the report says %d", real, len(lines), sum, processed)
		}
		if logSkipped > reportSkipped {
			t.Errorf("real=%v %v: the log's intervals skipped %d, the report says %d in all", real, c.rated, logSkipped, reportSkipped)
		}
	}
}

// TestConnectEachAsPgbench: with -C every transaction opens its own
// session, as the server counts them (pg_stat_database.sessions).
func TestConnectEachAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	ctx := context.Background()
	admin := adminConn(t)
	sessions := func() int64 {
		var n int64
		_, _ = admin.Exec(ctx, "SELECT pg_stat_clear_snapshot()")
		if err := admin.QueryRow(ctx, "SELECT sessions FROM pg_stat_database WHERE datname = $1", db).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, real := range []bool{true, false} {
		before := sessions()
		tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "20", "-c", "2", "-S", "-C", db)...)
		var got int64
		for try := 0; try < 50; try++ {
			if got = sessions() - before; got >= 40 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got < 40 || got > 46 {
			t.Errorf("real=%v: %d sessions for 40 transactions with -C, want 40 (and a few for the tool's own checks)", real, got)
		}
	}
}

// run runs pgbench (real) or `stampede pgbench` with args in dir and
// returns stdout, stderr and the exit code.
func run(t *testing.T, real bool, dir string, args ...string) (string, string, int) {
	t.Helper()
	// A line that hangs fails its test, not the whole package.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if real {
		cmd = exec.CommandContext(ctx, "pgbench", args...)
	} else {
		cmd = exec.CommandContext(ctx, bin, append([]string{"pgbench"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
	}
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("real=%v pgbench %s: did not end in 2 minutes\n%s%s", real, strings.Join(args, " "), out.String(), errb.String())
	case errors.As(err, &exit):
		return out.String(), errb.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// TestBadOptionsAsPgbench: what pgbench refuses while it reads its
// options, stampede refuses too, in one line with pgbench's words, before
// connecting (pgbench exits 1; stampede's forms exit 2 on bad input).
func TestBadOptionsAsPgbench(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	dir := t.TempDir()
	cases := []struct {
		args   []string
		phrase string // in both tools' error
	}{
		{[]string{"--show-script="}, "ambiguous"},
		{[]string{"--show-script=s"}, "ambiguous"},
		{[]string{"-D", "-t", "2"}, `invalid variable definition: "-t"`},
		{[]string{"-D", "x=", "-t", "2"}, `invalid variable definition: "x="`},
		{[]string{"-P", "0", "-t", "2"}, "-P/--progress must be in range 1..2147483647"},
		{[]string{"-c", "0"}, "-c/--clients must be in range 1..2147483647"},
		{[]string{"-c", "2147483648"}, "-c/--clients must be in range 1..2147483647"},
		{[]string{"-j", "0"}, "-j/--jobs must be in range 1..2147483647"},
		{[]string{"-t", "0"}, "-t/--transactions must be in range 1..2147483647"},
		{[]string{"-T", "0"}, "-T/--time must be in range 1..2147483647"},
		{[]string{"--random-seed=", "-t", "2"}, `unrecognized random seed option ""`},
		{[]string{"-b", "select-only@2147483648", "-t", "2"}, "2147483647"},
		{[]string{"-b", "select-only@-1", "-t", "2"}, "2147483647"},
		{[]string{"-n", "--max-tries=0", "-t", "2"}, "an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)"},
		{[]string{"-n", "--max-tries=-1", "-T", "2"}, `invalid number of maximum tries: "-1"`},
		{[]string{"-n", "--log-prefix", "x", "-t", "2"}, "log file prefix (--log-prefix) is allowed only when logging transactions (-l)"},
		{[]string{"-n", "--log-prefix", "x", "--sampling-rate", "0.5", "-t", "2"}, "log sampling (--sampling-rate) is allowed only when logging transactions (-l)"},
		{append(slices.Repeat([]string{"-b", "select-only"}, 129), "-t", "2"), "at most 128 SQL scripts are allowed"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			full := append(append(append([]string{}, srv...), c.args...), db)
			_, pgErr, pgCode := run(t, true, dir, full...)
			stOut, stErr, stCode := run(t, false, dir, full...)
			if pgCode != 1 || !strings.Contains(pgErr, c.phrase) {
				t.Fatalf("pgbench: exit %d, %q: the case no longer holds", pgCode, pgErr)
			}
			if stCode != 2 || stOut != "" || strings.Count(stErr, "\n") != 1 || !strings.HasPrefix(stErr, "pgbench: error: ") || !strings.Contains(stErr, c.phrase) {
				t.Errorf("stampede: exit %d, stdout %q, stderr %q: want exit 2 and one line with %q", stCode, stOut, stErr, c.phrase)
			}
		})
	}
}

// TestVersionAsPgbench: -V prints one line in pgbench's shape, so that a
// script taking its first word, or its third for the version, reads the
// same as from the real pgbench.
func TestVersionAsPgbench(t *testing.T) {
	server(t)
	dir := t.TempDir()
	pgOut, _, pgCode := run(t, true, dir, "-V")
	stOut, _, stCode := run(t, false, dir, "-V")
	pg, st := strings.Fields(pgOut), strings.Fields(stOut)
	if pgCode != 0 || stCode != 0 || len(pg) < 3 || len(st) < 4 || strings.Count(stOut, "\n") != 1 {
		t.Fatalf("pgbench -V %q (exit %d), stampede %q (exit %d)", pgOut, pgCode, stOut, stCode)
	}
	if strings.Join(st[:3], " ") != strings.Join(pg[:3], " ") || st[3] != "(stampede" {
		t.Errorf("stampede -V %q, pgbench -V %q: want the same first three words, then stampede's name", stOut, pgOut)
	}
}

// TestInitRefusesBeforeAnyStep: stampede's own `init pgbench` over
// tables pgbench made (not stampede) refuses in one line, naming
// --force-drop, before any of pgbench's step lines ("dropping old
// tables..." would say it began); so does pgbench's form, -i (unlike
// pgbench, it drops only what stampede made), and with --force-drop it
// drops them and goes on as pgbench does.
func TestInitRefusesBeforeAnyStep(t *testing.T) {
	db := freshDB(t) // made by the real pgbench -i
	srv := server(t)
	dir := t.TempDir()
	own := exec.Command(bin, "init", "pgbench", "--output-style", "pgbench", dbURL(db))
	own.Dir, own.Env = dir, append(os.Environ(), "HOME="+dir)
	var stdout, stderr bytes.Buffer
	own.Stdout, own.Stderr = &stdout, &stderr
	err := own.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "--force-drop") || strings.Contains(stderr.String(), "dropping") {
		t.Errorf("init pgbench over pgbench's tables: %v, stdout %q, stderr %q: want exit 2 and the one line naming --force-drop", err, stdout.String(), stderr.String())
	}
	// pgbench's form refuses them too (the real pgbench's, not
	// stampede's), in one line naming --force-drop, which drops them.
	stOut, stErr, code := run(t, false, dir, append(append([]string{}, srv...), "-i", db)...)
	if code != 2 || stOut != "" || strings.Count(stErr, "\n") != 1 || !strings.HasSuffix(stErr, "to drop them anyway, add --force-drop\n") || strings.Contains(stErr, "dropping old") {
		t.Errorf("-i: exit %d, stdout %q, stderr %q: want exit 2 and the one line naming --force-drop", code, stOut, stErr)
	}
	stOut, stErr, code = run(t, false, dir, append(append([]string{}, srv...), "-i", "--force-drop", db)...)
	if code != 0 || !strings.Contains(stErr, "which stampede did not make\ndropping old tables...\n") {
		t.Errorf("-i --force-drop: exit %d, stdout %q, stderr %q: want pgbench's lines from dropping old tables...", code, stOut, stErr)
	}
}

// TestAbortAsPgbench: an error that is not a serialization failure or a
// deadlock aborts its client, as in pgbench: the other clients run on,
// the report says what ran (the aborted transaction neither processed
// nor failed), then "Run was aborted", exit 2; the run directory is
// saved, its run.json saying the run failed and why.
func TestAbortAsPgbench(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	dir := t.TempDir()
	// Client 1 divides by zero in SQL, or in \set; client 0 never does.
	scripts := map[string]string{
		"sql.sql": "SELECT 1/(:client_id - 1);\n",
		"set.sql": "\\set x 1/(:client_id - 1)\nSELECT :x;\n",
	}
	for name, src := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-n", "-t", "5", "-c", "2", "-f", "sql.sql"},
		{"-n", "-t", "5", "-c", "2", "-f", "set.sql"},
		{"-n", "-T", "2", "-c", "3", "-j", "2", "-f", "sql.sql", "-P", "1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append(append([]string{}, srv...), args...), db)
			pgOut, pgErr, pgCode := run(t, true, dir, full...)
			stOut, stErr, stCode := run(t, false, dir, full...)
			if want, got := blank(pgOut), blank(stOut); strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("report differs\npgbench:\n%s\nstampede:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			// Progress lines: an aborted client's transaction is not a
			// failed one, in either tool.
			for _, l := range strings.Split(pgErr+stErr, "\n") {
				if strings.HasPrefix(l, "progress: ") && !strings.HasSuffix(l, ", 0 failed") {
					t.Errorf("progress line %q: want 0 failed", l)
				}
			}
			const abortLine = "pgbench: error: Run was aborted; the above results are incomplete.\n"
			if pgCode != 2 || !strings.HasSuffix(pgErr, abortLine) || !strings.Contains(pgErr, "pgbench: error: client 1 ") {
				t.Fatalf("pgbench: exit %d, stderr %q: the case no longer holds", pgCode, pgErr)
			}
			// A server's error: pgbench's own line.
			if slices.Contains(args, "sql.sql") {
				want := "pgbench: error: client 1 script 0 aborted in command 0 query 0: ERROR:  division by zero\n"
				if !strings.Contains(pgErr, want) || !strings.Contains(stErr, want) {
					t.Errorf("want %q from both: pgbench %q, stampede %q", want, pgErr, stErr)
				}
			}
			// A meta-command's: pgbench's two lines.
			if slices.Contains(args, "set.sql") {
				want := "pgbench: error: division by zero\npgbench: error: client 1 aborted in command 0 (set) of script 0; evaluation of meta-command failed\n"
				if !strings.Contains(pgErr, want) || !strings.Contains(stErr, want) {
					t.Errorf("want %q from both: pgbench %q, stampede %q", want, pgErr, stErr)
				}
			}
			if stCode != 2 || !strings.Contains(stErr, "pgbench: error: client 1 ") || !strings.Contains(stErr, abortLine) ||
				strings.Contains(stErr, "tolerate-errors") || strings.Contains(stErr, "stampede: error") {
				t.Errorf("stampede: exit %d, stderr %q: want exit 2, client 1's abort and pgbench's abort line", stCode, stErr)
			}
			_, saved, ok := strings.Cut(stErr, "results saved in ")
			if !ok {
				t.Fatalf("no run directory said in %q", stErr)
			}
			raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(saved), "run.json"))
			if err != nil || !strings.Contains(string(raw), `"status": "failed"`) || !strings.Contains(string(raw), "division by zero") {
				t.Errorf("run.json: %v %s", err, raw)
			}
		})
	}
}

// TestInterruptedDuration: a -T 30 run interrupted 2 s after its first
// progress line (-P 1: about 3 s into the run, however long it took to
// start: a fixed 3 s after the command's start left it 0.5 s of running
// on a loaded machine). The real pgbench 15 has no SIGINT handler for it
// and dies without a report; stampede reports what ran, and its duration
// line says the seconds it ran (its tps line's transactions over them),
// not the 30 asked for.
func TestInterruptedDuration(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	dir := t.TempDir()
	args := append(append([]string{}, srv...), "-n", "-T", "30", "-P", "1", "-S", "-c", "2", db)
	interrupt := func(real bool) (string, *os.ProcessState) {
		cmd := exec.Command(bin, append([]string{"pgbench"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		if real {
			cmd = exec.Command("pgbench", args...)
		}
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout = &out
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		progress := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(stderr)
			first := true
			for sc.Scan() {
				if first && strings.HasPrefix(sc.Text(), "progress: ") {
					close(progress)
					first = false
				}
			}
		}()
		select {
		case <-progress:
		case <-time.After(30 * time.Second):
			t.Fatalf("no progress line in 30 s")
		}
		time.Sleep(2 * time.Second)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		return out.String(), cmd.ProcessState
	}
	if out, st := interrupt(true); strings.Contains(out, "duration:") || st.ExitCode() != -1 {
		t.Fatalf("pgbench interrupted: exit %d, %q: it reported; compare with its report instead", st.ExitCode(), out)
	}
	out, st := interrupt(false)
	var secs, done int
	var tps float64
	for _, l := range strings.Split(out, "\n") {
		fmt.Sscanf(l, "duration: %d s", &secs)
		fmt.Sscanf(l, "number of transactions actually processed: %d", &done)
		fmt.Sscanf(l, "tps = %f", &tps)
	}
	// Interrupted 2 s after its first progress line, it ran about 3 s:
	// at least 2, and far fewer than the 30 asked for.
	if st.ExitCode() != 130 || secs < 2 || secs > 6 || done == 0 || tps == 0 {
		t.Fatalf("stampede interrupted after 3 s: exit %d, duration %d s, %d transactions, tps %f:\n%s", st.ExitCode(), secs, done, tps, out)
	}
	if ran := float64(done) / tps; ran < float64(secs)-0.5 || ran > float64(secs)+0.5 {
		t.Errorf("duration %d s, but the tps line's transactions took %.2f s", secs, ran)
	}
}

// TestVerboseErrorsAsPgbench: --verbose-errors says each serialization
// failure or deadlock, its command, the server's error and whether the
// transaction is tried again, in pgbench's lines, the same as pgbench's.
func TestVerboseErrorsAsPgbench(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	dir := t.TempDir()
	scripts := map[string]string{
		"serial.sql": "DO $$BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END$$;\n",
		"dead.sql":   "BEGIN;\nSELECT 1;\nDO $$BEGIN RAISE EXCEPTION 'dead' USING ERRCODE = '40P01', DETAIL = 'a detail', HINT = 'a hint'; END$$;\nEND;\n",
	}
	for name, src := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	said := func(stderr string) []string {
		var out []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "pgbench: client ") || strings.HasPrefix(l, "CONTEXT:") || strings.HasPrefix(l, "DETAIL:") || strings.HasPrefix(l, "HINT:") {
				out = append(out, l)
			}
		}
		return out
	}
	for _, args := range [][]string{
		{"-n", "-t", "2", "--max-tries=2", "--verbose-errors", "-f", "serial.sql"},
		{"-n", "-t", "1", "--max-tries=1", "--verbose-errors", "-f", "dead.sql"},
		{"-n", "-t", "1", "--max-tries=3", "--verbose-errors", "-f", "dead.sql"},
		// Unlimited tries: "(try N)" without a maximum, until -T ends.
		{"-n", "-T", "1", "--max-tries=0", "--verbose-errors", "-f", "dead.sql"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append(append([]string{}, srv...), args...), db)
			_, pgErr := tool(t, true, dir, full...)
			_, stErr := tool(t, false, dir, full...)
			want, got := said(pgErr), said(stErr)
			if slices.Contains(args, "--max-tries=0") {
				// As many tries as the time allows: the same lines, the
				// tries' numbers blanked, each said at least once.
				distinct := func(ls []string) []string {
					for i := range ls {
						ls[i] = numbers.ReplaceAllString(ls[i], "N")
					}
					slices.Sort(ls)
					return slices.Compact(ls)
				}
				want, got = distinct(want), distinct(got)
			}
			if len(want) == 0 || strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("pgbench said:\n%s\nstampede said:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
		})
	}
}

// TestConnectionDefaultsAsPgbench: where the connection's parameters come
// from when the command line does not give them, as pgbench and libpq
// take them: a service's section (PGSERVICEFILE, PGSERVICE) for the host,
// port and user, and for the database pgbench's own default (PGDATABASE,
// else PGUSER, else the OS user; not -U's user, nor the service's).
func TestConnectionDefaultsAsPgbench(t *testing.T) {
	db := freshDB(t)
	srv := server(t) // -h HOST -p PORT -U USER
	dir := t.TempDir()
	services := filepath.Join(dir, "pg_service.conf")
	if err := os.WriteFile(services, []byte(fmt.Sprintf("[bench]\nhost=%s\nport=%s\nuser=%s\ndbname=nosuch_db\n", srv[1], srv[3], srv[5])), 0o600); err != nil {
		t.Fatal(err)
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	runEnv := func(real bool, env []string, args ...string) (string, string) {
		var cmd *exec.Cmd
		if real {
			cmd = exec.Command("pgbench", args...)
		} else {
			cmd = exec.Command(bin, append([]string{"pgbench"}, args...)...)
		}
		cmd.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "PG") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(append(cmd.Env, "HOME="+dir), env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		return out.String(), errb.String()
	}
	svc := []string{"PGSERVICEFILE=" + services, "PGSERVICE=bench"}
	for _, c := range []struct {
		env  []string
		args []string
		want string // in both tools' output
	}{
		// The service gives the host, port and user; PGDATABASE the
		// database (the service's dbname never counts: pgbench names one).
		{append(svc, "PGDATABASE="+db), []string{"-n", "-S", "-t", "2"}, "number of transactions actually processed: 2/2"},
		{svc, []string{"-n", "-S", "-t", "2", db}, "number of transactions actually processed: 2/2"},
		{svc, []string{"-n", "-S", "-t", "2"}, fmt.Sprintf(`database "%s" does not exist`, me.Username)},
		// -U's user is not the database's name: the OS user's is.
		{nil, append(append([]string{}, srv...), "-n", "-S", "-t", "1"), fmt.Sprintf(`database "%s" does not exist`, me.Username)},
		{[]string{"PGUSER=" + srv[5]}, append(append([]string{}, srv[:4]...), "-n", "-S", "-t", "1"), fmt.Sprintf(`database "%s"`, srv[5])}, // which has no pgbench tables
	} {
		for _, real := range []bool{true, false} {
			out, errs := runEnv(real, c.env, c.args...)
			if !strings.Contains(out+errs, c.want) {
				t.Errorf("real=%v %v %v: want %q in\n%s%s", real, c.env, c.args, c.want, out, errs)
			}
		}
	}
}

// TestMissingDatabaseAsPgbench: a database that does not exist is one line
// on stderr, exit 1 as pgbench's, with advice in pgbench's terms (the
// pgbench form takes no --db, and stampede init is not what its users run).
func TestMissingDatabaseAsPgbench(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	name := fmt.Sprintf("pgbform_missing_%d", rand.Uint32())
	for _, real := range []bool{true, false} {
		stdout, stderr, code := run(t, real, dir, append(append([]string{}, srv...), "-S", "-t", "1", name)...)
		if code != 1 {
			t.Fatalf("real=%v: exit %d, want 1\n%s%s", real, code, stdout, stderr)
		}
		if !strings.Contains(stderr, `database "`+name+`" does not exist`) {
			t.Errorf("real=%v: stderr %q does not name the missing database", real, stderr)
		}
		if real {
			continue
		}
		msg := strings.TrimSpace(stderr)
		if strings.Contains(msg, "\n") || strings.Contains(msg, "--db") || strings.Contains(msg, "stampede init") ||
			!strings.Contains(msg, "stampede pgbench -i") {
			t.Errorf("stampede's message %q: want one line advising pgbench -i, without --db or stampede init", msg)
		}
	}
}
