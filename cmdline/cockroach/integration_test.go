package cockroach

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// Lines of cockroach's output, as format.go prints them.
var (
	tickRow   = regexp.MustCompile(`^ {0,6}\d+\.\ds +\d+ +\d+\.\d +\d+\.\d( +\d+\.\d){4} \S+$`)
	totalRow  = regexp.MustCompile(`^ {0,6}\d+\.\ds +\d+ +\d+ +\d+\.\d( +\d+\.\d){5}  \S*$`)
	tpmCRow   = regexp.MustCompile(`^ {0,6}\d+\.\ds +\d+\.\d +(\d+\.\d%|   n/a)( +\d+\.\d){6}$`)
	efcLine   = regexp.MustCompile(`^efc: (\d+\.\d)% \(95% interval (\d+\.\d)%-(\d+\.\d)% from the count; tpmC / \(12\.86 x \d+ warehouses\), from (\d+) New-Orders\)`)
	auditLine = regexp.MustCompile(`(?m)^Audit check 9\.2\.[0-9.]+: (PASS|FAIL|SKIP)(: .+)?$`)
)

// crdbCase is one command line's expectations.
type crdbCase struct {
	line string
	// err, when set, is a fragment of the expected error; input, that
	// the error is the command line's (exit code 2).
	err   string
	input bool
	// stdout and stderr hold fragments the output must contain.
	stdout, stderr []string
	// check inspects the database and the output after the line.
	check func(t *testing.T, db *sqlx.DB, out string)
	// during, when set, is polled while the line runs (with the server's
	// URL and the database's name) and must return true at least once.
	during func(server, name string) bool
}

// TestCommandLines runs cockroach workload command lines against the test
// server, each group in a database of its own, and checks their effect in
// the database and the format of their output.
func TestCommandLines(t *testing.T) {
	base := testdb.URL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	server := u.String()
	dir := t.TempDir()
	var rowsBefore int64 // usertable's rows before the deletes
	groups := []struct {
		name  string
		cases []crdbCase
	}{
		{"ycsb", []crdbCase{
			{line: "init ycsb --drop --insert-count=500 --splits=4 --families",
				stderr: []string{"warning: --families: column families are CockroachDB's; PostgreSQL stores each row whole: the run goes on without them\n",
					"warning: --splits: range splits and scatter are CockroachDB's; postgres has no ranges: the run goes on without them\n"},
				check: func(t *testing.T, db *sqlx.DB, _ string) { wantCount(t, db, "SELECT count(*) FROM usertable", 500) }},
			{line: "run ycsb --insert-count=500 --max-ops=40 --count-errors --method=prepare --concurrency=2",
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					if n := resultCount(t, out); n != 40 {
						t.Errorf("--max-ops=40: %d operations", n)
					}
				}},
			{line: "run ycsb --insert-count=500 --duration=3s --concurrency=2 --isolation-level=read_committed --conn-vars=application_name=crdb_iso --pprofport=" + pprofPort,
				during: func(server, name string) bool {
					return countActivity(server, name, "crdb_iso") >= 2 && pprofServes(pprofPort)
				}},
			{line: "run ycsb --duration=2s --concurrency=2 --insert-count=500",
				// cockroach names the connections after the workload.
				during: func(server, name string) bool { return countActivity(server, name, "ycsb") >= 2 },
				stdout: []string{"_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)\n",
					"_pMax(ms)__total\n", "_pMax(ms)__result\n"},
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkSimple(t, out, []string{"read", "update"}, "")
				}},
			{line: "run ycsb --workload=CUSTOM --read-freq=0.5 --insert-freq=0.5 --duration=1500ms --concurrency=2 --insert-count=500",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					var n int64
					if err := db.QueryRow(context.Background(), "SELECT count(*) FROM usertable").Scan(&n); err != nil || n <= 500 {
						t.Errorf("CUSTOM with inserts: %d rows (%v), want more than the 500 loaded", n, err)
					}
					rowsBefore = n
					checkSimple(t, out, []string{"insert", "read"}, "")
				}},
			{line: "run ycsb --workload=F --read-modify-write-in-txn --duration=1500ms --concurrency=2 --insert-count=500",
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkSimple(t, out, []string{"read", "readModifyWrite"}, "")
				}},
			{line: "run ycsb --workload=A --display-format=incremental-json --histograms=" + filepath.Join(dir, "h.json") + " --duration=2s --concurrency=2 --insert-count=500",
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkJSON(t, out)
					checkHistogramFile(t, filepath.Join(dir, "h.json"))
				}},
			{line: "run ycsb --max-rate=200 --duration=3s --concurrency=4 --insert-count=500",
				stderr: []string{"open loop at 200 ops/s", "latency is each operation's service time (--latency service)"},
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					n := resultCount(t, out)
					if n < 450 || n > 700 {
						t.Errorf("--max-rate 200 for 3s: %d operations, want about 600", n)
					}
				}},
			{line: "run ycsb --insert-count=500 --ramp=1s --duration=2s --concurrency=2",
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkSimple(t, out, []string{"read", "update"}, "")
					checkTickRates(t, out)
				}},
			{line: "run ycsb --max-rate=200 --latency=intended --duration=1s --concurrency=2 --insert-count=500",
				stderr: []string{"latency counts from each operation's scheduled start (intended)"}},
			{line: "init ycsb --insert-count=500", err: "already"},
			{line: "run ycsb --insert-count=500 --duration=1s --user=alice", stderr: []string{"warning: --user shapes cockroach's default URL only"}},
			// Last: the deleted keys stay missing.
			{line: "run ycsb --workload=CUSTOM --read-freq=0.5 --delete-freq=0.5 --request-distribution=uniform --duration=1500ms --concurrency=2 --insert-count=500",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					var n int64
					if err := db.QueryRow(context.Background(), "SELECT count(*) FROM usertable").Scan(&n); err != nil || n >= rowsBefore {
						t.Errorf("CUSTOM with deletes: %d rows (%v), want fewer than the %d before", n, err, rowsBefore)
					}
					checkSimple(t, out, []string{"delete", "read"}, "")
				}},
		}},
		{"ycsbjson", []crdbCase{
			{line: "init ycsb --json --drop --insert-count=300 --data-loader=insert",
				check: func(t *testing.T, db *sqlx.DB, _ string) {
					wantCount(t, db, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'usertable' AND column_name = 'field' AND data_type = 'jsonb'", 1)
					wantCount(t, db, "SELECT count(*) FROM usertable WHERE (SELECT count(*) FROM jsonb_object_keys(field)) = 10", 300)
				}},
			{line: "run ycsb --json --workload=CUSTOM --read-freq=0.3 --update-freq=0.3 --insert-freq=0.2 --scan-freq=0.1 --read-modify-write-freq=0.1 --duration=2s --concurrency=2 --insert-count=300",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					checkSimple(t, out, []string{"insert", "read", "readModifyWrite", "scan", "update"}, "")
					var n int64
					if err := db.QueryRow(context.Background(), "SELECT count(*) FROM usertable").Scan(&n); err != nil || n <= 300 {
						t.Errorf("--json with inserts: %d rows (%v), want more than the 300 loaded", n, err)
					}
					wantCount(t, db, "SELECT count(*) FROM usertable WHERE (SELECT count(*) FROM jsonb_object_keys(field)) <> 10", 0)
				}},
			{line: "run ycsb --json=false --insert-count=300 --duration=1s", err: "--json=false differs from what init (of ycsb) loaded"},
			{line: "check ycsb --json --insert-count=300"},
		}},
		{"runinit", []crdbCase{
			{line: "run ycsb --init --insert-count=200 --duration=1s --concurrency=1",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					wantCount(t, db, "SELECT count(*) FROM usertable", 200)
					checkSimple(t, out, []string{"read", "update"}, "")
				}},
		}},
		{"tpcc", []crdbCase{
			{line: "init tpcc --warehouses=1 --drop --split --scatter --families",
				stderr: []string{"warning: --families: column families are CockroachDB's",
					"warning: --split, --scatter: range splits and scatter are CockroachDB's; postgres has no ranges: the run goes on without them\n"},
				check: func(t *testing.T, db *sqlx.DB, _ string) {
					wantCount(t, db, "SELECT count(*) FROM warehouse", 1)
					wantCount(t, db, "SELECT count(*) FROM district", 10)
					var fks int64
					if err := db.QueryRow(context.Background(), "SELECT count(*) FROM pg_constraint WHERE contype = 'f'").Scan(&fks); err != nil || fks == 0 {
						t.Errorf("--fks is on by default, as cockroach's: %d foreign keys (%v)", fks, err)
					}
				}},
			{line: "run tpcc --warehouses=1 --wait=false --workers=2 --duration=2s --idle-conns=2",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					checkSimple(t, out, []string{"delivery", "newOrder", "orderStatus", "payment", "stockLevel"}, "")
					checkTPCC(t, out, false)
					checkEfficiencySaved(t, dir, false)
					var orders int64
					if err := db.QueryRow(context.Background(), "SELECT count(*) FROM \"order\"").Scan(&orders); err != nil || orders <= 30000 {
						t.Errorf("the run's New-Orders: %d orders (%v), want more than the 30000 loaded", orders, err)
					}
				}},
			{line: "run tpcc --warehouses=1 --wait=0.01 --duration=2s",
				stderr: []string{"10 terminals"},
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkSimple(t, out, []string{"delivery", "newOrder", "orderStatus", "payment", "stockLevel"}, "newOrder")
					checkTPCC(t, out, false)
					checkEfficiencySaved(t, dir, false)
				}},
			// Long enough for New-Orders (their keying time is 18 s).
			{line: "run tpcc --warehouses=1 --duration=25s",
				check: func(t *testing.T, _ *sqlx.DB, out string) {
					checkTPCC(t, out, true)
					checkEfficiencySaved(t, dir, true)
				}},
			{line: "run tpcc --warehouses=1 --workers=3 --duration=1s", err: "requires --active-workers=10"},
			{line: "run tpcc --warehouses=2 --wait=false --duration=1s", input: true,
				err: "holds 1 warehouse, not --warehouses 2: give --warehouses 1, or reload with `stampede workload init tpcc --drop --warehouses 2 --db=crdb_tpcc_"},
			{line: "check tpcc --warehouses=1"},
		}},
		{"bank", []crdbCase{
			{line: "init bank --rows=300 --batch-size=50 --data-loader=insert --init-conns=2 --ranges=3",
				stderr: []string{"warning: --ranges: range splits and scatter are CockroachDB's; postgres has no ranges: the run goes on without them"},
				check: func(t *testing.T, db *sqlx.DB, _ string) {
					wantCount(t, db, "SELECT count(*) FROM bank", 300)
					wantCount(t, db, "SELECT sum(balance) FROM bank", 0)
				}},
			{line: "run bank --rows=300 --duration=1s --concurrency=2 --tolerate-errors",
				check: func(t *testing.T, db *sqlx.DB, out string) {
					checkSimple(t, out, []string{"transfer"}, "")
					wantCount(t, db, "SELECT sum(balance) FROM bank", 0)
				}},
			{line: "check bank --rows=300"},
			{line: "run bank --drop --rows=100 --duration=1s --concurrency=1",
				stderr: []string{"--drop: dropping database"},
				check:  func(t *testing.T, db *sqlx.DB, _ string) { wantCount(t, db, "SELECT count(*) FROM bank", 100) }},
		}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			name := fmt.Sprintf("crdb_%s_%d", g.name, rand.Uint32())
			admin, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{base}, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				defer admin.Close()
				_, _ = admin.Exec(context.Background(), admin.Dialect().DropDatabase(name)+" WITH (FORCE)")
			})
			for _, tc := range g.cases {
				args := append(strings.Fields(tc.line), "--db="+name, server)
				if !strings.HasPrefix(tc.line, "check") {
					args = append(args, "--results-dir="+dir)
				}
				var stdout, stderr bytes.Buffer
				env := cmdline.Env{Args: append([]string{"stampede", "workload"}, args...), Stdout: &stdout, Stderr: &stderr}
				var idle atomic.Int64
				stop := make(chan struct{})
				if strings.Contains(tc.line, "--idle-conns") {
					go watchIdle(server, name, &idle, stop)
				}
				var seen atomic.Bool
				if tc.during != nil {
					go func() {
						for !seen.Load() {
							select {
							case <-stop:
								return
							case <-time.After(100 * time.Millisecond):
							}
							if tc.during(server, name) {
								seen.Store(true)
							}
						}
					}()
				}
				err := Main(context.Background(), args, env)
				close(stop)
				switch {
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Errorf("%s: error %v, want one about %q", tc.line, err, tc.err)
				case tc.err == "" && err != nil:
					t.Errorf("%s: %v\nstderr:\n%s", tc.line, err, stderr.String())
				case tc.input && !errors.Is(err, run.ErrInput):
					t.Errorf("%s: error %v does not match run.ErrInput (exit code 2)", tc.line, err)
				}
				if err != nil {
					continue
				}
				if strings.HasPrefix(tc.line, "check") && (stdout.Len() != 0 || !strings.Contains(stderr.String(), "PASS")) {
					t.Errorf("%s: stdout %q (cockroach's check prints nothing), stderr %q (stampede's checks)", tc.line, stdout.String(), stderr.String())
				}
				for _, f := range tc.stdout {
					if !strings.Contains(stdout.String(), f) {
						t.Errorf("%s: stdout lacks %q:\n%s", tc.line, f, stdout.String())
					}
				}
				for _, f := range tc.stderr {
					if !strings.Contains(stderr.String(), f) {
						t.Errorf("%s: stderr lacks %q:\n%s", tc.line, f, stderr.String())
					}
				}
				if tc.during != nil && !seen.Load() {
					t.Errorf("%s: what the line does while it runs was never seen", tc.line)
				}
				if strings.Contains(tc.line, "--idle-conns=2") && idle.Load() != 2 {
					t.Errorf("%s: %d idle connections seen during the run, want 2", tc.line, idle.Load())
				}
				if tc.check != nil {
					db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{base}, Database: name, MaxConns: 1})
					if err != nil {
						t.Fatal(err)
					}
					tc.check(t, db, stdout.String())
					db.Close()
				}
			}
		})
	}
}

// watchIdle records the most connections named stampede-idle to database
// name seen while the run goes.
func watchIdle(server, name string, most *atomic.Int64, stop <-chan struct{}) {
	db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{server}, Database: "postgres", MaxConns: 1})
	if err != nil {
		return
	}
	defer db.Close()
	for {
		select {
		case <-stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		var n int64
		if err := db.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'stampede-idle'", name).Scan(&n); err == nil && n > most.Load() {
			most.Store(n)
		}
	}
}

// pprofPort is a port free when the tests start, for --pprofport.
var pprofPort = func() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "0"
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}()

// countActivity counts the connections to database name whose
// application_name is app.
func countActivity(server, name, app string) int64 {
	db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{server}, Database: "postgres", MaxConns: 1})
	if err != nil {
		return -1
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2", name, app).Scan(&n); err != nil {
		return -1
	}
	return n
}

// pprofServes reports whether Go's pprof index answers on port.
func pprofServes(port string) bool {
	resp, err := http.Get("http://127.0.0.1:" + port + "/debug/pprof/")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && strings.Contains(string(b), "goroutine")
}

func wantCount(t *testing.T, db *sqlx.DB, query string, want int64) {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), query).Scan(&n); err != nil || n != want {
		t.Errorf("%s: %d (%v), want %d", query, n, err, want)
	}
}

// checkSimple checks --display-format simple's output: rows %7.1fs wide
// under the header, operations sorted by name, a __total block per
// operation and the __result block named result.
func checkSimple(t *testing.T, out string, ops []string, result string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	var ticks []string
	section := "tick"
	sawResult := false
	for i, l := range lines {
		switch {
		case l == "" || auditLine.MatchString(l) || strings.HasPrefix(l, "_elapsed_______tpmC") || tpmCRow.MatchString(l):
		case strings.HasPrefix(l, "_elapsed___errors__ops/sec(inst)"):
		case strings.HasSuffix(l, "__total"):
			section = "total"
		case strings.HasSuffix(l, "__result"):
			section = "result"
		case section == "tick":
			if !tickRow.MatchString(l) {
				t.Errorf("line %d %q is not a tick row", i+1, l)
				continue
			}
			ticks = append(ticks, l[strings.LastIndexByte(l, ' ')+1:])
		default:
			if !totalRow.MatchString(l) {
				t.Errorf("line %d %q is not a total row", i+1, l)
			}
			if section == "result" {
				sawResult = true
				if name := l[strings.LastIndex(l, "  ")+2:]; name != result {
					t.Errorf("__result row named %q, want %q", name, result)
				}
			}
		}
	}
	if !sawResult {
		t.Errorf("no __result row in\n%s", out)
	}
	if len(ticks) < len(ops) {
		t.Fatalf("%d tick rows, want at least %d: %q", len(ticks), len(ops), ticks)
	}
	for i, op := range ops {
		if ticks[i] != op {
			t.Errorf("first interval's rows %q, want %q (sorted by name)", ticks[:len(ops)], ops)
			break
		}
	}
}

// checkTickRates checks that no tick row's rate is beyond what the run
// did: each is at most 10 times the operation's rate over the whole run
// (the __total row's): an interval of a few hundred nanoseconds after the
// ramp's end once printed 4,235,616,438.4 reads per second. (At 3 times,
// a ramp second at 36,934 reads/s beside a run of 12,124/s failed: the
// server, shared with the other packages' tests, slowed down.)
func checkTickRates(t *testing.T, out string) {
	t.Helper()
	total := map[string]float64{}
	for _, m := range regexp.MustCompile(`(?m)__total\n.*?(\S+)  (\S+)$`).FindAllStringSubmatch(out, -1) {
		f := strings.Fields(m[0])
		total[m[2]], _ = strconv.ParseFloat(f[len(f)-7], 64)
	}
	for _, l := range strings.Split(out, "\n") {
		if !tickRow.MatchString(l) {
			continue
		}
		f := strings.Fields(l)
		inst, _ := strconv.ParseFloat(f[2], 64)
		op := f[len(f)-1]
		if inst > 10*total[op] {
			t.Errorf("tick row %q: %s/s, the run's %s rate is %.1f/s", l, f[2], op, total[op])
		}
	}
	if len(total) == 0 {
		t.Errorf("no __total rows in\n%s", out)
	}
}

// checkTPCC checks TPC-C's audit lines and tpmC block: its efc column a
// percentage with efficiency, n/a for a run where it means nothing.
func checkTPCC(t *testing.T, out string, efficiency bool) {
	t.Helper()
	if n := len(auditLine.FindAllString(out, -1)); strings.Count(out, "Audit check ") != 7 || n != 7 {
		t.Errorf("want 7 audit lines, got %d:\n%s", strings.Count(out, "Audit check "), out)
	}
	i := strings.Index(out, "\n_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)\n")
	if i < 0 {
		t.Fatalf("no tpmC block:\n%s", out)
	}
	lines := strings.SplitN(out[i+1:], "\n", 4)
	row := lines[1]
	m := tpmCRow.FindStringSubmatch(row)
	if m == nil || (m[1] != "   n/a") != efficiency {
		t.Errorf("tpmC row %q (efficiency %v)", row, efficiency)
	}
	// With efficiency, the line under the row gives efc's 95% interval
	// from the count: newOrder's __total count over the run's time.
	efc := efcLine.FindStringSubmatch(lines[2])
	if efc == nil {
		if efficiency {
			t.Errorf("no efc line under the tpmC row:\n%s", out[i:])
		}
		return
	}
	if !efficiency {
		t.Errorf("an efc line without efficiency: %q", lines[2])
		return
	}
	// The __total block has no row for an operation that never
	// completed: 0 New-Orders.
	count := "0"
	if total := regexp.MustCompile(`(?m)^ *[0-9.]+s +\d+ +(\d+) .* newOrder$`).FindStringSubmatch(out); total != nil {
		count = total[1]
	}
	sec, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(row)[0], "s"), 64)
	n, _ := strconv.ParseFloat(count, 64)
	v, _ := strconv.ParseFloat(efc[1], 64)
	lo, _ := strconv.ParseFloat(efc[2], 64)
	hi, _ := strconv.ParseFloat(efc[3], 64)
	want := 100 * n / (sec / 60) / 12.86
	if efc[1]+"%" != strings.TrimSpace(m[1]) || efc[4] != count || math.Abs(v-want) > 0.05*want+0.1 || lo > v || v > hi || hi <= lo {
		t.Errorf("efc line %q under row %q: want the row's efc, inside its interval, from newOrder's %s (%.1f%% over %.1f s)",
			lines[2], row, count, want, sec)
	}
	t.Logf("%s", lines[2])
}

// checkEfficiencySaved checks whether the newest run's summary.json in
// dir saves an efficiency figure.
func checkEfficiencySaved(t *testing.T, dir string, want bool) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*", "summary.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no summary.json in %s (%v)", dir, err)
	}
	var newest string
	var at time.Time
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(at) {
			newest, at = p, fi.ModTime()
		}
	}
	b, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Figures map[string]float64 }
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	_, tpmC := sum.Figures["tpmC"]
	if _, ok := sum.Figures["efficiency"]; ok != want || !tpmC {
		t.Errorf("%s: figures %v, want efficiency saved %v (and tpmC)", newest, sum.Figures, want)
	}
}

// checkJSON checks incremental-json lines: cockroach's fields in its
// order.
func checkJSON(t *testing.T, out string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, `{"time":"`) {
			continue
		}
		n++
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		var keys []string
		for _, f := range regexp.MustCompile(`"(\w+)":`).FindAllStringSubmatch(l, -1) {
			keys = append(keys, f[1])
		}
		if got := strings.Join(keys, ","); got != "time,errs,avgt,avgl,p50l,p95l,p99l,maxl,type" {
			t.Errorf("fields %s", got)
		}
		if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
			t.Errorf("time %v: %v", m["time"], err)
		}
	}
	if n == 0 || strings.Contains(out, "__total") {
		t.Errorf("incremental-json: %d JSON lines, and no totals expected:\n%s", n, out)
	}
}

// checkHistogramFile checks a --histograms file: one snapshot per line.
func checkHistogramFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	names := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s struct {
			Name string
			Hist struct {
				LowestTrackableValue, HighestTrackableValue int64
				SignificantFigures                          int64
				Counts                                      []int64
			}
			Elapsed int64
			Now     time.Time
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		names[s.Name] = true
		for _, c := range s.Hist.Counts {
			total += c
		}
		if s.Hist.SignificantFigures != 1 || s.Elapsed <= 0 || s.Now.IsZero() {
			t.Errorf("snapshot %s: %d figures, elapsed %d, now %v", s.Name, s.Hist.SignificantFigures, s.Elapsed, s.Now)
		}
	}
	if !names["read"] || !names["update"] || total == 0 {
		t.Errorf("histograms of %v, %d operations", names, total)
	}
}

// resultCount is the __result row's operation count.
func resultCount(t *testing.T, out string) int64 {
	t.Helper()
	i := strings.Index(out, "__result\n")
	if i < 0 {
		t.Fatalf("no __result block:\n%s", out)
	}
	var n int64
	f := strings.Fields(strings.SplitN(out[i:], "\n", 3)[1])
	if len(f) < 3 {
		t.Fatalf("result row %q", f)
	}
	fmt.Sscan(f[2], &n)
	return n
}

// TestLoadMismatch checks a run against what init loaded: given no data
// flag it uses what was loaded; given another value it is refused (exit
// code 2) in cockroach's flags, with the loaded value and a reload command
// that runs as printed (its --db and URL kept); after that reload the
// refused line runs.
func TestLoadMismatch(t *testing.T) {
	base := testdb.URL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	server := u.String()
	dir := t.TempDir()
	for _, tc := range []struct {
		init, adopt, refused string
		note, want           string
	}{
		{"init ycsb --insert-count=300", "run ycsb --duration=1s --concurrency=1", "run ycsb --insert-count=700 --duration=1s --concurrency=1",
			"note: using --insert-count=300, as init (of ycsb) loaded", "--insert-count=700 differs from what init (of ycsb) loaded into database %q, --insert-count=300: give --insert-count=300 or leave it out"},
		{"init ycsb --insert-start=100 --insert-count=200", "run ycsb --duration=1s --concurrency=1", "run ycsb --insert-count=200 --record-count=500 --duration=1s --concurrency=1",
			"note: using --insert-start=100 --insert-count=200 --record-count=300, as init", "--record-count=500 differs from what init (of ycsb) loaded into database %q, --record-count=300"},
		{"init bank --rows=200", "run bank --duration=1s --concurrency=1", "run bank --rows=400 --duration=1s --concurrency=1",
			"note: using --rows=200, as init (of bank) loaded", "--rows=400 differs from what init (of bank) loaded into database %q, --rows=200: give --rows=200 or leave it out"},
		{"init tpcc --warehouses=2", "run tpcc --wait=false --workers=2 --duration=1s", "run tpcc --warehouses=1 --wait=false --workers=2 --duration=1s",
			"note: using --warehouses 2, as init (of tpcc) loaded", "database %s holds 2 warehouses, not --warehouses 1: give --warehouses 2, or reload with"},
	} {
		t.Run(tc.refused, func(t *testing.T) {
			name := fmt.Sprintf("crdb_mm_%d", rand.Uint32())
			t.Cleanup(func() {
				admin, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{base}, MaxConns: 1})
				if err == nil {
					_, _ = admin.Exec(context.Background(), admin.Dialect().DropDatabase(name)+" WITH (FORCE)")
					admin.Close()
				}
			})
			main := func(line string) (string, error) {
				args := append(strings.Fields(line), "--db", name, "--results-dir", dir, server)
				var stdout, stderr bytes.Buffer
				err := Main(context.Background(), args, cmdline.Env{Args: append([]string{"stampede", "workload"}, args...), Stdout: &stdout, Stderr: &stderr})
				return stderr.String(), err
			}
			if _, err := main(tc.init); err != nil {
				t.Fatal(err)
			}
			stderr, err := main(tc.adopt)
			if err != nil || !strings.Contains(stderr, tc.note) {
				t.Errorf("%s: %v, stderr lacks %q:\n%s", tc.adopt, err, tc.note, stderr)
			}
			_, err = main(tc.refused)
			if err == nil || !errors.Is(err, run.ErrInput) || !strings.Contains(err.Error(), fmt.Sprintf(tc.want, name)) {
				t.Fatalf("%s: %v, want an input error with %q", tc.refused, err, fmt.Sprintf(tc.want, name))
			}
			msg := err.Error()
			i := strings.Index(msg, "`stampede workload init ")
			j := strings.LastIndexByte(msg, '`')
			if i < 0 || j <= i {
				t.Fatalf("no reload command in %q", msg)
			}
			reload := splitLine(msg[i+1 : j])
			if !strings.Contains(msg, "--drop") || !strings.Contains(msg, "--db "+name) || reload[len(reload)-1] != server {
				t.Errorf("reload command %q lacks --drop, --db %s or the URL %s", msg[i+1:j], name, server)
			}
			var out bytes.Buffer
			if err := Main(context.Background(), reload[2:], cmdline.Env{Args: reload, Stdout: &out, Stderr: &out}); err != nil {
				t.Fatalf("%s: %v\n%s", msg[i+1:j], err, out.String())
			}
			if _, err := main(tc.refused); err != nil {
				t.Errorf("%s after the reload: %v", tc.refused, err)
			}
		})
	}
}
