package churn_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/churn"
)

// mark is the comment on every table a run of churn makes.
var mark = workload.RunMark("churn")

// gen returns churn with args parsed.
func gen(t *testing.T, args ...string) workload.Generator {
	t.Helper()
	m, ok := workload.Get("churn")
	if !ok {
		t.Fatal("churn is not registered")
	}
	g, err := workload.FromFlags(m, args...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// conn is the run.Conn of db on the test server.
func conn(t *testing.T, db *sqlx.DB) run.Conn {
	return run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}
}

// churnRun inits churn in db and runs it with workers loops for d (or
// until maxOps operations), seeded seed; it returns the run's result.
func churnRun(t *testing.T, db *sqlx.DB, workers int, d time.Duration, seed uint64, args ...string) *run.Result {
	t.Helper()
	ctx := context.Background()
	if err := run.Load(ctx, run.LoadSpec{Workload: gen(t, args...), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(ctx, run.Spec{Workload: gen(t, args...), Conn: conn(t, db), Concurrency: workers, Duration: d, Seed: seed,
		Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// one returns the single int64 query q returns.
func one(t *testing.T, db *sqlx.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// markedTables counts the tables of db that carry churn's mark.
func markedTables(t *testing.T, db *sqlx.DB) int64 {
	return one(t, db, "SELECT count(*) FROM pg_class c WHERE c.relkind = 'r' AND "+dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class")+" = $1", mark)
}

// TestChurnCheckCleanup runs churn for 20 s beside a user's tables (one
// named like churn's): check confirms every live table's count and
// bytes, and fails on a row deleted behind churn's back; the run's
// figures equal the server's; cleanup drops every table churn made and
// leaves the user's, rows and all.
func TestChurnCheckCleanup(t *testing.T) {
	db := testdb.Fresh(t, "churn32_check", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE churn_users (id int PRIMARY KEY, name text)",
		"INSERT INTO churn_users SELECT g, 'user ' || g FROM generate_series(1, 100) g",
		"CREATE TABLE orders (id int PRIMARY KEY)",
		"INSERT INTO orders SELECT generate_series(1, 10)",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	res := churnRun(t, db, 4, 20*time.Second, 1, "--mix", "insert=70,create=15,alter=8,drop=7", "--max-tables", "40")
	sum := res.Summary
	if sum.Total.Errors != 0 {
		t.Fatalf("%d operations failed: %v", sum.Total.Errors, sum.Errors)
	}
	counts := map[string]int64{}
	for _, o := range sum.Ops {
		counts[o.Name] = o.Count
	}
	for _, op := range []string{"create", "insert", "alter", "drop"} {
		if counts[op] == 0 {
			t.Errorf("no %s in 20 s: %v", op, counts)
		}
	}
	// The bookkeeping against the catalog and the run's figures.
	made := one(t, db, "SELECT count(*) FROM churn_tables")
	alive := one(t, db, "SELECT count(*) FROM churn_tables WHERE dropped_at IS NULL")
	if made != counts["create"] || made-alive != counts["drop"] {
		t.Errorf("churn_tables: %d made, %d alive; the run: %d creates, %d drops", made, alive, counts["create"], counts["drop"])
	}
	if n := markedTables(t, db); n != alive || alive > 40 {
		t.Errorf("%d tables carry churn's mark, churn_tables says %d alive (--max-tables 40)", n, alive)
	}
	fig := sum.Figures
	if got := int64(fig["tables_alive"]); got != alive {
		t.Errorf("tables_alive figure %d, the server holds %d", got, alive)
	}
	if got, want := int64(fig["rows_inserted"]), one(t, db, "SELECT sum(rows) FROM churn_tables"); got != want || want == 0 {
		t.Errorf("rows_inserted figure %d, churn_tables sums %d", got, want)
	}
	if got, want := fig["bytes_per_s"]*sum.ElapsedSec, float64(one(t, db, "SELECT sum(bytes) FROM churn_tables")); got < want*0.98 || got > want*1.02 {
		t.Errorf("bytes_per_s x elapsed = %.0f, churn_tables sums %.0f bytes", got, want)
	}
	if size := float64(one(t, db, "SELECT pg_database_size(current_database())")); fig["database_size_bytes"] < size*0.8 || fig["database_size_bytes"] > size*1.2 {
		t.Errorf("database_size_bytes figure %.0f, the server says %.0f now", fig["database_size_bytes"], size)
	}

	// The size over time: a record every 5 s in the run log, the last
	// the figure's.
	rl, err := runlog.Open(res.Info.Dir)
	if err != nil {
		t.Fatal(err)
	}
	events, err := rl.Events()
	if err != nil {
		t.Fatal(err)
	}
	var sizes []float64
	for _, e := range events {
		if e.Kind == "record" && e.Op == "database_size_bytes" {
			sizes = append(sizes, e.Value)
		}
	}
	if len(sizes) < 4 || sizes[len(sizes)-1] != fig["database_size_bytes"] || sizes[0] >= sizes[len(sizes)-1] {
		t.Errorf("database_size_bytes records %v over 20 s: want one every 5 s, growing, the last the figure's %v", sizes, fig["database_size_bytes"])
	}

	var out bytes.Buffer
	if err := run.Check(ctx, gen(t), conn(t, db), &out, nil); err != nil {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), fmt.Sprintf("churn: %d live tables hold", alive)) {
		t.Errorf("check said %q", out.String())
	}
	// Every live table's count, read here, equals the bookkeeping's.
	rows, err := db.Query(ctx, "SELECT name, rows FROM churn_tables WHERE dropped_at IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	book := map[string]int64{}
	for rows.Next() {
		var n string
		var c int64
		if err := rows.Scan(&n, &c); err != nil {
			t.Fatal(err)
		}
		book[n] = c
	}
	rows.Close()
	var victim string
	for name, want := range book {
		if got := one(t, db, "SELECT count(*) FROM "+name); got != want {
			t.Errorf("%s holds %d rows, churn_tables says %d", name, got, want)
		}
		if want > 0 {
			victim = name
		}
	}
	// A row deleted behind churn's back: check fails and names the table.
	if victim == "" {
		t.Fatal("no live table holds rows")
	}
	if _, err := db.Exec(ctx, "DELETE FROM "+victim+" WHERE ctid = (SELECT min(ctid) FROM "+victim+")"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run.Check(ctx, gen(t), conn(t, db), &out, nil); err == nil || !strings.Contains(err.Error(), victim) {
		t.Errorf("check after a deleted row of %s: %v\n%s", victim, err, out.String())
	}

	var log bytes.Buffer
	if err := run.Cleanup(ctx, run.CleanupSpec{Workload: gen(t), Conn: conn(t, db), Log: &log}); err != nil {
		t.Fatalf("cleanup: %v\n%s", err, log.String())
	}
	if n := markedTables(t, db); n != 0 {
		t.Errorf("%d of churn's tables left after cleanup", n)
	}
	if n := one(t, db, "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^churn_[0-9]+_[0-9]+$' OR relname = 'churn_tables'"); n != 0 {
		t.Errorf("%d tables named as churn's left after cleanup", n)
	}
	if n := one(t, db, "SELECT count(*) FROM churn_users"); n != 100 {
		t.Errorf("the user's churn_users holds %d rows after cleanup, want its 100", n)
	}
	if n := one(t, db, "SELECT count(*) FROM orders"); n != 10 {
		t.Errorf("the user's orders holds %d rows after cleanup, want its 10", n)
	}
}

// shapes returns each loop's table shapes, in the order it made them,
// as churn_tables recorded them at creation (before any ALTER:
// created_shape), and checks every live table's columns in the catalog
// against its last recorded shape.
func shapes(t *testing.T, db *sqlx.DB) map[int][]string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Query(ctx, "SELECT worker, name, first_shape, shape, dropped_at IS NULL FROM churn_tables ORDER BY worker, seq")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	last := map[string]string{}
	for rows.Next() {
		var w int
		var name, first, cur string
		var alive bool
		if err := rows.Scan(&w, &name, &first, &cur, &alive); err != nil {
			t.Fatal(err)
		}
		out[w] = append(out[w], first)
		if alive {
			last[name] = cur
		}
	}
	rows.Close()
	for name, s := range last {
		// The shape's columns "name(c1 seq, c2 email, ...)" against the
		// catalog's, in order.
		cols := strings.Split(s[strings.Index(s, "(")+1:strings.Index(s, ")")], ", ")
		var names []string
		for _, c := range cols {
			names = append(names, strings.Fields(c)[0])
		}
		var got string
		if err := db.QueryRow(ctx, "SELECT string_agg(column_name::text, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = $1", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != strings.Join(names, ",") {
			t.Errorf("%s has columns %s in the catalog, churn_tables says %s", name, got, s)
		}
	}
	return out
}

// TestChurnSeedRepeatable runs churn twice with one seed and once with
// another, each in a fresh database: each loop makes the same shapes in
// the same order with the same seed (up to where the shorter run
// stopped), and others with another seed.
func TestChurnSeedRepeatable(t *testing.T) {
	var runs []map[int][]string
	var results []*run.Result
	for i, seed := range []uint64{42, 42, 43} {
		db := testdb.Fresh(t, fmt.Sprintf("churn32_seed%d", i), sqlx.Options{MaxConns: 2})
		results = append(results, churnRun(t, db, 2, 4*time.Second, seed, "--mix", "insert=30,create=40,alter=20,drop=10", "--rows", "1-20"))
		runs = append(runs, shapes(t, db))
	}
	compareFigures(t, results[0], results[2])
	for w := range 2 {
		a, b, c := runs[0][w], runs[1][w], runs[2][w]
		n := min(len(a), len(b))
		if n < 3 {
			t.Fatalf("loop %d made %d and %d tables: too few to compare", w, len(a), len(b))
		}
		for i := range n {
			if a[i] != b[i] {
				t.Errorf("loop %d, table %d: seed 42 made %s, then %s", w, i, a[i], b[i])
			}
		}
		same := 0
		for i := range min(n, len(c)) {
			if a[i] == c[i] {
				same++
			}
		}
		if same == min(n, len(c)) {
			t.Errorf("loop %d: seeds 42 and 43 made the same %d shapes", w, same)
		}
	}
}

// compareFigures checks that compare pairs the churn figures of runs a
// and b as each run's summary holds them, with their ratios.
func compareFigures(t *testing.T, a, b *run.Result) {
	t.Helper()
	var runs [2]*runlog.Run
	for i, r := range []*run.Result{a, b} {
		var err error
		if runs[i], err = runlog.Open(r.Info.Dir); err != nil {
			t.Fatal(err)
		}
	}
	c, views, err := results.CompareBy(runs[0], runs[1], "")
	if err != nil {
		t.Fatal(err)
	}
	output.CompareFigures(&c, runs, views)
	got := map[string]results.FigureRow{}
	for _, f := range c.Figures {
		got[f.Name] = f
	}
	for _, name := range []string{"rows_inserted", "rows_per_s", "bytes_per_s", "tables_alive", "database_size_bytes", "database_growth_bytes_per_s"} {
		f, ok := got[name]
		wa, wb := a.Summary.Figures[name], b.Summary.Figures[name]
		switch {
		case !ok || f.A == nil || f.B == nil:
			t.Errorf("compare: figure %s missing: %+v", name, f)
		case *f.A != wa || *f.B != wb:
			t.Errorf("compare: %s A %v, B %v; the runs' summaries: %v, %v", name, *f.A, *f.B, wa, wb)
		case wa != 0 && (f.Ratio == nil || *f.Ratio != wb/wa):
			t.Errorf("compare: %s ratio %v, want %v", name, f.Ratio, wb/wa)
		}
	}
}

// cli runs stampede's command line, returning its exit code and stderr.
func cliRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliMain(args, &out, &errb)
	return code, errb.String()
}

// TestChurnBadInput: each bad input is one line, exit 2, before anything
// is created (no database, no table).
func TestChurnBadInput(t *testing.T) {
	base := testdb.URL(t)
	db := testdb.Fresh(t, "churn32_bad", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	if err := run.Load(ctx, run.LoadSpec{Workload: gen(t), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	inited := u.String()
	u.Path = "/churn32_never_made"
	missing := u.String()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "churn", "--max-tables", "0", inited}, "--max-tables 0 is out of range: give a whole number from 1 to 1000000"},
		{[]string{"init", "churn", "--max-tables", "0", missing}, "--max-tables 0 is out of range: give a whole number from 1 to 1000000"},
		{[]string{"run", "churn", "--max-tables", "3", "--concurrency", "4", inited}, "--max-tables 3 leaves room for 3 tables, fewer than the 4 loops"},
		{[]string{"run", "churn", "--appendoptimized", "true", inited}, "--appendoptimized true: Greenplum's table options on another server: the server is postgres"},
		{[]string{"run", "churn", "--distributed-by", "key", inited}, "--distributed-by key: Greenplum's table options on another server"},
		{[]string{"run", "churn", "--appendoptimized", "yes", inited}, `--appendoptimized "yes": give auto, random, true or false`},
		{[]string{"run", "churn", "--columns", "0-5", inited}, `--columns "0-5": out of range: give MIN-MAX with 1 <= MIN <= MAX <= 200`},
		{[]string{"run", "churn", "--columns", "2-201", inited}, `--columns "2-201": out of range`},
		{[]string{"run", "churn", "--columns", "9-3", inited}, `--columns "9-3": out of range`},
		{[]string{"run", "churn", "--columns", "many", inited}, `--columns "many": give MIN-MAX (or N)`},
		{[]string{"run", "churn", "--rows", "0", inited}, `--rows "0": out of range: give MIN-MAX with 1 <= MIN <= MAX <= 100000`},
		{[]string{"run", "churn", "--rows", "1-100001", inited}, `--rows "1-100001": out of range`},
		{[]string{"run", "churn", "--indexes", "0-21", inited}, `--indexes "0-21": out of range`},
		{[]string{"run", "churn", "--mix", "insert=1", inited}, "create and insert need weights above 0"},
		{[]string{"run", "churn", "--mix", "insert=1,create=1,update=3", inited}, "write KIND=WEIGHT pairs"},
		{[]string{"run", "churn", "--mix", "insert=1,create=-1", inited}, "is not a whole number from 0 to 1000000"},
		{[]string{"run", "churn", "--mix", "insert=1,create=1,insert=2", inited}, "insert is given twice"},
		{[]string{"run", "churn", "--conns", "0", inited}, "--conns 0: workload churn runs one loop per connection: give 1 or more"},
		{[]string{"run", "churn", "--conns", "2", "--concurrency", "3", inited}, "--conns 2 and --concurrency 3: workload churn runs one loop per connection"},
		{[]string{"run", "churn", "--concurrency", "3", "--conns", "4", inited}, "--conns 4 and --concurrency 3"},
	} {
		t.Run(strings.Join(tc.args[:len(tc.args)-1], " "), func(t *testing.T) {
			args := tc.args
			if args[0] == "run" {
				args = append(args[:len(args)-1:len(args)-1], "--duration", "5s", "--telemetry=false", "--results-dir", t.TempDir(), args[len(args)-1])
			}
			code, stderr := cliRun(t, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 2 || len(lines) != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and one line with %q", code, stderr, tc.want)
			}
		})
	}
	if n := markedTables(t, db); n != 0 {
		t.Errorf("%d tables made by the refused runs", n)
	}
	if n := one(t, db, "SELECT count(*) FROM pg_database WHERE datname = 'churn32_never_made'"); n != 0 {
		t.Errorf("a refused init created its database")
	}
}

// TestChurnConnsAreLoops: --conns N alone makes N loops, one per
// connection (each makes its first table at once), as --concurrency N
// does; neither gives the default 20.
func TestChurnConnsAreLoops(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		loops int64
	}{
		{[]string{"--conns", "3"}, 3},
		{[]string{"--concurrency", "2"}, 2},
	} {
		db := testdb.Fresh(t, "churn32_conns", sqlx.Options{MaxConns: 2})
		if err := run.Load(context.Background(), run.LoadSpec{Workload: gen(t), Conn: conn(t, db)}); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(testdb.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + db.Database()
		args := append([]string{"run", "churn", "--duration", "3s", "--telemetry=false", "--results-dir", t.TempDir()}, tc.flags...)
		if code, stderr := cliRun(t, append(args, u.String())...); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.flags, code, stderr)
		}
		if n := one(t, db, "SELECT count(DISTINCT worker) FROM churn_tables"); n != tc.loops {
			t.Errorf("%v: %d loops made tables, want %d", tc.flags, n, tc.loops)
		}
		if n := one(t, db, "SELECT coalesce(max(worker), -1) + 1 FROM churn_tables"); n != tc.loops {
			t.Errorf("%v: loops numbered up to %d, want %d", tc.flags, n-1, tc.loops-1)
		}
	}
}

// TestChurnInitDrop: a run beside a user's table of the name churn's
// first table would take goes on under the next name; init --drop drops
// the tables churn's runs made with churn_tables, which accounted for
// them (a new, empty churn_tables beside them would fail check), and
// leaves the user's table; check then passes on an empty schema.
func TestChurnInitDrop(t *testing.T) {
	db := testdb.Fresh(t, "churn32_drop", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE churn_0_0 (id int)"); err != nil { // named as churn's first table, not made by it
		t.Fatal(err)
	}
	res := churnRun(t, db, 2, 3*time.Second, 5, "--mix", "insert=10,create=10")
	if res.Summary.Total.Errors != 0 {
		t.Fatalf("%d operations failed (loop 0's first name is the user's table: it takes the next): %v", res.Summary.Total.Errors, res.Summary.Errors)
	}
	if n := markedTables(t, db); n == 0 {
		t.Fatal("the run made no table")
	}
	var log bytes.Buffer
	if err := run.Load(ctx, run.LoadSpec{Workload: gen(t), Conn: conn(t, db), Drop: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if n := markedTables(t, db); n != 0 {
		t.Errorf("%d of churn's tables left after init --drop:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "--drop: dropped table churn_0_1, which a run of churn made") {
		t.Errorf("init --drop did not say what it dropped:\n%s", log.String())
	}
	if n := one(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'churn_0_0' AND obj_description(oid, 'pg_class') IS NULL"); n != 1 {
		t.Error("init --drop dropped the user's churn_0_0")
	}
	var out bytes.Buffer
	if err := run.Check(ctx, gen(t), conn(t, db), &out, nil); err != nil {
		t.Errorf("check after init --drop: %v\n%s", err, out.String())
	}
}

// TestChurnNullDriver: without a server (--driver null) the run reports
// the rows and bytes it made and no figure read from a server.
func TestChurnNullDriver(t *testing.T) {
	r, err := run.Start(context.Background(), run.Spec{Workload: gen(t), Conn: run.Conn{Driver: sqlx.DriverNull}, Concurrency: 2,
		Duration: time.Second, Seed: 3, Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	f := res.Summary.Figures
	if f["rows_inserted"] == 0 || f["bytes_per_s"] == 0 {
		t.Errorf("figures %v: want rows and bytes", f)
	}
	for _, name := range []string{"tables_alive", "database_size_bytes", "database_growth_bytes_per_s"} {
		if _, ok := f[name]; ok {
			t.Errorf("figure %s without a server: %v", name, f)
		}
	}
}

// TestChurnClients: two clients of one benchmark (--clients 2
// --client-index 0 and 1, the same --start-at) each make their own tables
// (churn_c0_W_N and churn_c1_W_N: before, both took churn_W_N and one
// failed on the other's name), check passes over both and report --tag
// merges them.
func TestChurnClients(t *testing.T) {
	db := testdb.Fresh(t, "churn32_clients", sqlx.Options{MaxConns: 2})
	if err := run.Load(context.Background(), run.LoadSpec{Workload: gen(t), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	dir := t.TempDir()
	// Far enough ahead that both clients are connected and waiting: at
	// load 30 one client, 3 s ahead, started a second late, and the
	// common interval held 70% of the rows.
	at := time.Now().Add(8 * time.Second).Unix()
	type out struct {
		code   int
		stderr string
	}
	done := make(chan out, 2)
	for i := range 2 {
		go func() {
			code, stderr := cliRun(t, "run", "churn", "--conns", "3", "--clients", "2", "--client-index", fmt.Sprint(i),
				"--start-at", fmt.Sprint(at), "--tag", "job=cc", "--duration", "4s", "--max-tables", "40",
				"--telemetry=false", "--results-dir", dir, u.String())
			done <- out{code, stderr}
		}()
	}
	for range 2 {
		if o := <-done; o.code != 0 {
			t.Errorf("a client: exit %d: %s", o.code, o.stderr)
		}
	}
	for i := range 2 {
		if n := one(t, db, "SELECT count(DISTINCT worker) FROM churn_tables WHERE name LIKE $1", fmt.Sprintf("churn\\_c%d\\_%%", i)); n != 3 {
			t.Errorf("client %d: %d loops made tables churn_c%d_W_N, want 3", i, n, i)
		}
	}
	if n := one(t, db, "SELECT count(*) FROM churn_tables WHERE name NOT LIKE 'churn\\_c_\\_%'"); n != 0 {
		t.Errorf("%d tables not named after their client", n)
	}
	if alive := one(t, db, "SELECT count(*) FROM churn_tables WHERE dropped_at IS NULL"); alive > 40 {
		t.Errorf("%d tables alive, --max-tables 40", alive)
	}
	if code, stderr := cliRun(t, "check", "churn", u.String()); code != 0 {
		t.Errorf("check: exit %d: %s", code, stderr)
	}
	var rep bytes.Buffer
	var errb bytes.Buffer
	if code := cliMain([]string{"report", "--tag", "job=cc", "--results-dir", dir}, &rep, &errb); code != 0 || !strings.Contains(rep.String(), "insert") {
		t.Errorf("report --tag job=cc: exit %d: %s%s", code, rep.String(), errb.String())
	}
	// The merged figures: the rows both clients inserted in their common
	// measurement interval (TestChurnClientsCommonInterval), nearly all
	// the server's bookkeeping sums for clients started together, and
	// the tables alive on the server.
	m := regexp.MustCompile(`rows_inserted: (\d+) rows`).FindStringSubmatch(rep.String())
	if m == nil {
		t.Errorf("report --tag job=cc gives no rows_inserted:\n%s", rep.String())
	} else if want, got := one(t, db, "SELECT sum(rows) FROM churn_tables"), atoi(t, m[1]); want == 0 || got > want || got < want*9/10 {
		t.Errorf("merged rows_inserted %d, churn_tables sums %d: want 90%% to 100%% of it", got, want)
	}
	// Tables alive at the end of the common interval; each of the 6
	// loops may create or drop one more in the run's end (its last
	// statement in flight), which the server holds after.
	if m := regexp.MustCompile(`tables_alive: (\d+) of churn's tables`).FindStringSubmatch(rep.String()); m == nil {
		t.Errorf("merged tables_alive missing:\n%s", rep.String())
	} else if got, server := atoi(t, m[1]), markedTables(t, db); got > server+6 || got < server-6 {
		t.Errorf("merged tables_alive %d, the server holds %d (at most 6 apart, one a loop):\n%s", got, server, rep.String())
	}
	if code, stderr := cliRun(t, "cleanup", "churn", u.String()); code != 0 || markedTables(t, db) != 0 {
		t.Errorf("cleanup: exit %d: %s; %d tables left", code, stderr, markedTables(t, db))
	}
}

// atoi parses a whole number the test read from an output.
func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
