package sqlscript_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The tests below run a user's script with what every run has (a rate,
// limits on the operations, errors tolerated, several clients, sweeps,
// fleets, report and compare), each checked against the server's own
// count of what the script did.

// finalOps returns the operations and errors of a line of the final
// block: name's, or the result line's for "".
func finalOps(t *testing.T, out, name string) (ops, errs int64) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		switch {
		case name == "" && strings.HasSuffix(l, "__result") && i+1 < len(lines):
			f = strings.Fields(lines[i+1])
		case name != "" && len(f) == 10 && f[9] == name:
			// a line of the final block (an interval's has 9 fields)
		default:
			continue
		}
		if len(f) < 3 {
			break
		}
		e, err1 := strconv.ParseInt(f[1], 10, 64)
		n, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot read the figures of %q", l)
		}
		return n, e
	}
	t.Fatalf("no final line for %q in:\n%s", name, out)
	return 0, 0
}

func pgxConnect(u string) (*pgx.Conn, error) {
	return pgx.Connect(context.Background(), u)
}

// finalRate returns the ops/sec(cum) of name's line of the final block.
func finalRate(t *testing.T, out, name string) float64 {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 10 && f[9] == name {
			v, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				t.Fatalf("cannot read the rate of %q", l)
			}
			return v
		}
	}
	t.Fatalf("no final line for %q in:\n%s", name, out)
	return 0
}

// TestRunFlagsWithScripts: one worker; a rate with a ramp and both
// latencies; --max-ops; a script whose statement fails sometimes, with and
// without --tolerate-errors.
func TestRunFlagsWithScripts(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_flags")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, k int)")
	write(t, dir, "ins.sql", "\\set k random(1, 10)\n-- name: put\nINSERT INTO t (k) VALUES (:k);\n")
	write(t, dir, "fail.sql", "\\set k random(1, 10)\n-- name: put\nINSERT INTO t (k) VALUES (:k);\n-- name: divide\nSELECT 1 / (:k - 1);\n")

	t.Run("one worker", func(t *testing.T) {
		exec1(t, conn, "TRUNCATE t")
		// It waited forever for a connection its own worker held.
		r := stampede(t, dir, "run", "sql", "-f", "ins.sql", "--concurrency", "1", "--max-ops", "50", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM t"); n != 50 {
			t.Errorf("the server holds %d rows, want 50", n)
		}
		if ops, _ := finalOps(t, r.stdout, ""); ops != 50 {
			t.Errorf("the result line counts %d operations, want 50 (the script's, not its statements')", ops)
		}
	})

	t.Run("rate", func(t *testing.T) {
		exec1(t, conn, "TRUNCATE t")
		r := stampede(t, dir, "run", "sql", "-f", "ins.sql", "--max-rate", "100", "--ramp", "1s", "--duration", "3s", "--latency", "both", "--concurrency", "2", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stdout+r.stderr, "open loop at 100 ops/s") {
			t.Errorf("no open-loop banner:\n%s%s", r.stdout, r.stderr)
		}
		ops, _ := finalOps(t, r.stdout, "ins.sql")
		svc, _ := finalOps(t, r.stdout, "ins.sql.service")
		put, _ := finalOps(t, r.stdout, "put")
		rows := count(t, conn, "SELECT count(*) FROM t")
		// The final block leaves the ramp out; the server saw it.
		if ops != svc || ops != put || ops > rows || ops < 200 {
			t.Errorf("script %d, its service line %d, statement %d, the server %d rows (ramp included); want each the same, about 300 after the ramp", ops, svc, put, rows)
		}
		if rate := finalRate(t, r.stdout, "ins.sql"); rate < 85 || rate > 105 {
			t.Errorf("the script ran at %.1f ops/s, want the rate, 100", rate)
		}
	})

	t.Run("errors", func(t *testing.T) {
		exec1(t, conn, "TRUNCATE t")
		r := stampede(t, dir, "run", "sql", "-f", "fail.sql", "--max-ops", "400", "--concurrency", "2", "--tolerate-errors", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		ops, errs := finalOps(t, r.stdout, "fail.sql")
		divide, divErrs := finalOps(t, r.stdout, "divide")
		put, _ := finalOps(t, r.stdout, "put")
		failed := count(t, conn, "SELECT count(*) FROM t WHERE k = 1")
		rows := count(t, conn, "SELECT count(*) FROM t")
		if rows != 400 || put != 400 {
			t.Errorf("the server holds %d rows and put ran %d times, want 400", rows, put)
		}
		// The statement's row counts the failures that happened on it.
		if errs != failed || ops != rows-failed || divide != rows-failed || divErrs != failed || failed == 0 {
			t.Errorf("script %d ops %d errors, divide %d ops %d errors; the server: %d rows of which %d divided by zero", ops, errs, divide, divErrs, rows, failed)
		}
		if !strings.Contains(r.stdout, fmt.Sprintf("errors_22012: %d failed", failed)) {
			t.Errorf("no errors_22012 line for %d:\n%s", failed, r.stdout)
		}
		r = stampede(t, dir, "run", "sql", "-f", "fail.sql", "--max-ops", "400", u)
		if r.code != 1 || !strings.Contains(r.stderr, "fail.sql:5 (divide): ERROR: division by zero") || !strings.Contains(r.stderr, "--tolerate-errors") {
			t.Errorf("without --tolerate-errors: exit %d, %s", r.code, r.stderr)
		}
	})
}

// TestClientsMerged runs two clients of one benchmark, started together,
// and merges them with report --tag: :client_id differs across clients,
// and the merged counts are the server's.
func TestClientsMerged(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_clients")
	exec1(t, conn, "CREATE TABLE t (c int)")
	write(t, dir, "c.sql", "-- name: put\nINSERT INTO t VALUES (:client_id);\n")
	at := time.Now().Add(6 * time.Second).UTC().Format(time.RFC3339)
	done := make(chan result, 2)
	for i := range 2 {
		go func() {
			done <- stampede(t, dir, "run", "sql", "-f", "c.sql", "--clients", "2", "--client-index", strconv.Itoa(i),
				"--concurrency", "2", "--max-ops", "1000", "--start-at", at, "--tag", "job=sqlc", u)
		}()
	}
	for range 2 {
		if r := <-done; r.code != 0 {
			t.Fatalf("a client: exit %d: %s", r.code, r.stderr)
		}
	}
	rows, err := conn.Query(context.Background(), "SELECT c, count(*) FROM t GROUP BY c ORDER BY c")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var c, n int64
		if err := rows.Scan(&c, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%d", c, n))
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	// Each client's 2 workers are :client_id 0-1 and 2-3, 250 each.
	if strings.Join(got, " ") != "0:250 1:250 2:250 3:250" {
		t.Errorf("rows by :client_id %v, want 250 for each of 0 to 3", got)
	}
	r := stampede(t, dir, "report", "--tag", "job=sqlc", "--include-ramp")
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"c.sql", "put", ""} {
		if ops, _ := finalOps(t, r.stdout, name); ops != 1000 {
			t.Errorf("report --tag: %q counts %d operations, want the server's 1000", name, ops)
		}
	}
	if strings.Contains(r.stderr, "missing") {
		t.Errorf("report warns: %s", r.stderr)
	}
}

// TestSweepScripts runs a sweep of rates, one of workers, and an SLO
// search, each step a run of the script.
func TestSweepScripts(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_sweep")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, k int)")
	write(t, dir, "ins.sql", "\\set k random(1, 10)\nINSERT INTO t (k) VALUES (:k);\n")
	for _, c := range []struct {
		args  []string
		steps int
		want  string
	}{
		{[]string{"--max-rate", "50,100"}, 2, "peak throughput"},
		{[]string{"--concurrency", "1,2"}, 2, "peak throughput"},
		{[]string{"--max-rate", "50:100", "--search", "--slo", "p99<=5s"}, 2, "highest --max-rate meeting the SLO"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			exec1(t, conn, "TRUNCATE t")
			r := stampede(t, dir, append(append([]string{"sweep", "sql", "-f", "ins.sql", "--duration", "2s", "--format", "json"}, c.args...), u)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var steps int
			var ops float64
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var obj struct {
					Type  string `json:"type"`
					Total struct {
						Count float64 `json:"count"`
					} `json:"total"`
				}
				if err := json.Unmarshal([]byte(l), &obj); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				if obj.Type == "step" {
					steps++
					ops += obj.Total.Count
				}
			}
			rows := count(t, conn, "SELECT count(*) FROM t")
			if steps < c.steps || ops <= 0 || int64(ops) > rows {
				t.Errorf("%d steps of %v operations in all, the server %d rows; want %d steps, at most the server's rows\n%s", steps, ops, rows, c.steps, r.stdout)
			}
		})
	}
}

// TestFleetScripts: init runs the init file in every tenant, run runs the
// script on each, in database and schema modes.
func TestFleetScripts(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sqlfeat_fleet")
	write(t, dir, "init.sql", "CREATE TABLE kv (k int PRIMARY KEY, v int);\nINSERT INTO kv SELECT g, 0 FROM generate_series(1, 100) g;\n")
	write(t, dir, "bump.sql", "\\set k random(1, 100)\n-- name: bump\nUPDATE kv SET v = v + 1 WHERE k = :k;\n")
	for _, mode := range []string{"database", "schema"} {
		t.Run(mode, func(t *testing.T) {
			pattern := name + "_" + mode + "_%d"
			fl := []string{"--tenants", "3", "--tenant-mode", mode, "--tenant-pattern", pattern}
			r := stampede(t, dir, append(append([]string{"init", "sql", "--init-file", "init.sql"}, fl...), u)...)
			if r.code != 0 {
				t.Fatalf("init: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			t.Cleanup(func() { stampede(t, dir, append(append([]string{"cleanup", "sql"}, fl...), u)...) })
			// init's figure is what the first tenant holds, counted by
			// the server, and the file's one stream.
			first := fmt.Sprintf(pattern, 1)
			var loaded int64
			if mode == "database" {
				c, err := pgxConnect(strings.Replace(u, "/"+name, "/"+first, 1))
				if err != nil {
					t.Fatal(err)
				}
				loaded = count(t, c, "SELECT count(*) FROM kv")
				c.Close(context.Background())
			} else {
				loaded = count(t, conn, "SELECT count(*) FROM "+first+".kv")
			}
			out := r.stdout + r.stderr
			if loaded != 100 || !strings.Contains(out, fmt.Sprintf("loading tenant 1 (%s): running init.sql, one stream", first)) ||
				!strings.Contains(out, fmt.Sprintf("ran init.sql for tenant 1 (%s): %d rows written by COPY and INSERT", first, loaded)) {
				t.Errorf("init of tenant 1, which holds %d rows, said:\n%s", loaded, out)
			}
			r = stampede(t, dir, append(append([]string{"run", "sql", "-f", "bump.sql", "--duration", "3s"}, fl...), u)...)
			if r.code != 0 {
				t.Fatalf("run: exit %d: %s", r.code, r.stderr)
			}
			var sum int64
			for i := 1; i <= 3; i++ {
				tenant := fmt.Sprintf(pattern, i)
				var n int64
				if mode == "database" {
					tu := strings.Replace(u, "/"+name, "/"+tenant, 1)
					c, err := pgxConnect(tu)
					if err != nil {
						t.Fatal(err)
					}
					n = count(t, c, "SELECT sum(v) FROM kv")
					c.Close(context.Background())
				} else {
					n = count(t, conn, "SELECT sum(v) FROM "+tenant+".kv")
				}
				if n == 0 {
					t.Errorf("tenant %s: no update ran", tenant)
				}
				sum += n
			}
			if ops, _ := finalOps(t, r.stdout, "bump"); ops > sum || ops == 0 {
				t.Errorf("bump counts %d operations after the ramp, the tenants %d updates", ops, sum)
			}
		})
	}
}

// TestReportCompareChart: report, compare and the chart name every
// statement, and their totals count the scripts alone.
func TestReportCompareChart(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_report")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, k int)")
	write(t, dir, "w.sql", "\\set k random(1, 10)\n-- name: put\nINSERT INTO t (k) VALUES (:k);\n-- name: look\nSELECT count(*) FROM t WHERE id = :k;\n")
	var ids []string
	for range 2 {
		r := stampede(t, dir, "run", "sql", "-f", "w.sql", "--max-ops", "300", "--concurrency", "2", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		ids = append(ids, filepath.Base(runDir(t, r)))
	}
	r := stampede(t, dir, "report", ids[0])
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"w.sql", "put", "look", ""} {
		if ops, _ := finalOps(t, r.stdout, name); ops != 300 {
			t.Errorf("report: %q counts %d operations, want 300", name, ops)
		}
	}
	r = stampede(t, dir, "compare", ids[0], ids[1])
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	rates := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 {
			rates[f[0]] = f[1]
		}
	}
	for _, name := range []string{"w.sql", "put", "look", "__result"} {
		if rates[name] == "" {
			t.Errorf("compare has no line for %s:\n%s", name, r.stdout)
		}
	}
	if rates["__result"] != rates["w.sql"] {
		t.Errorf("compare's total %s ops/s is not the script's %s", rates["__result"], rates["w.sql"])
	}
	svg := filepath.Join(dir, "f.svg")
	if r = stampede(t, dir, "report", "--chart", svg, ids[0]); r.code != 0 {
		t.Fatalf("report --chart: exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w.sql", "put", "look"} {
		if !strings.Contains(string(b), ">"+name) {
			t.Errorf("the SVG chart does not name %s in a text", name)
		}
	}
	// The PNG draws what the SVG draws (its panels make its height: the
	// same in pixels at 96 dpi); the HTML page carries every name.
	m := regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("the SVG has no size in points")
	}
	w, _ := strconv.ParseFloat(m[1], 64)
	h, _ := strconv.ParseFloat(m[2], 64)
	png := filepath.Join(dir, "f.png")
	if r = stampede(t, dir, "report", "--chart", png, ids[0]); r.code != 0 {
		t.Fatalf("report --chart .png: exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		t.Fatalf("the PNG chart does not decode: %v", err)
	}
	if cfg.Width != int(math.Round(w*96/72)) || cfg.Height != int(math.Round(h*96/72)) {
		t.Errorf("the PNG is %dx%d px, the SVG %gx%g pt (%gx%g px at 96 dpi)", cfg.Width, cfg.Height, w, h, w*96/72, h*96/72)
	}
	html := filepath.Join(dir, "f.html")
	if r = stampede(t, dir, "report", "--chart", html, ids[0]); r.code != 0 {
		t.Fatalf("report --chart .html: exit %d: %s", r.code, r.stderr)
	}
	if b, err = os.ReadFile(html); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w.sql", "put", "look"} {
		if !strings.Contains(string(b), `"`+name+`"`) {
			t.Errorf("the HTML chart does not carry %s", name)
		}
	}
}

// TestLimitsAndTelemetry runs a script with the server's processes
// watched and under a CPU limit: the run's telemetry has the watched
// processes (the postmaster and at least one backend per worker) and
// their CPU within the limit, and run.json records the limit.
func TestLimitsAndTelemetry(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("limits need root (a cgroup)")
	}
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_limits")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, k int)")
	write(t, dir, "ins.sql", "\\set k random(1, 10)\nINSERT INTO t (k) VALUES (:k);\nSELECT count(*) FROM t WHERE k = :k;\n")
	var data string
	if err := conn.QueryRow(context.Background(), "SELECT setting FROM pg_settings WHERE name = 'data_directory'").Scan(&data); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		t.Skipf("cannot read the server's postmaster.pid: %v", err)
	}
	pm := strings.SplitN(string(b), "\n", 2)[0]
	r := stampede(t, dir, "run", "sql", "-f", "ins.sql", "--concurrency", "4", "--duration", "4s",
		"--watch-pid", pm, "--cpus", "0.3", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	run := runDir(t, r)
	var sum struct {
		Total struct {
			Count int64 `json:"count"`
		} `json:"total"`
		Telemetry struct {
			Procs []struct {
				Name      string                     `json:"name"`
				Processes struct{ Max float64 }      `json:"processes"`
				CPU       struct{ Avg, Max float64 } `json:"cpu_cores"`
			} `json:"procs"`
		} `json:"telemetry"`
	}
	readJSON(t, filepath.Join(run, "summary.json"), &sum)
	var info struct {
		Limits struct {
			CPUs float64 `json:"cpus"`
		} `json:"limits"`
	}
	readJSON(t, filepath.Join(run, "run.json"), &info)
	if info.Limits.CPUs != 0.3 {
		t.Errorf("run.json records cpus %v, want 0.3", info.Limits.CPUs)
	}
	if len(sum.Telemetry.Procs) != 1 {
		t.Fatalf("telemetry has %d watched groups, want 1: %+v", len(sum.Telemetry.Procs), sum.Telemetry)
	}
	p := sum.Telemetry.Procs[0]
	if p.Name != "postgres (pid "+pm+")" || p.Processes.Max < 5 || p.CPU.Avg <= 0 || p.CPU.Avg > 0.3*1.1 {
		t.Errorf("watched group %+v: want postgres (pid %s), the postmaster and 4 backends at least, CPU above 0 and within the 0.3 limit", p, pm)
	}
	if rows := count(t, conn, "SELECT count(*) FROM t"); sum.Total.Count == 0 || sum.Total.Count > rows {
		t.Errorf("summary counts %d scripts, the server %d rows", sum.Total.Count, rows)
	}
}

// runDir is the run directory a run says it saved its results in.
func runDir(t *testing.T, r result) string {
	t.Helper()
	out := r.stdout + r.stderr
	i := strings.Index(out, "results saved in ")
	if i < 0 {
		t.Fatalf("no run directory in:\n%s", out)
	}
	return strings.TrimSpace(strings.SplitN(out[i+len("results saved in "):], "\n", 2)[0])
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestScriptInAnotherDirectory: a script given with a directory counts in
// the total (a "/" in its name made it a part of an operation, never
// counted), named by its file's name; a statement name with a "/" is
// refused (two scripts of one name run: TestScriptsOfOneName).
func TestScriptInAnotherDirectory(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlfeat_dir")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, k int)")
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		write(t, dir, d+"/ins.sql", "\\set k random(1, 10)\nINSERT INTO t (k) VALUES (:k);\n")
	}
	write(t, dir, "a/slash.sql", "-- name: read/one\nSELECT 1;\n")
	r := stampede(t, dir, "run", "sql", "-f", filepath.Join(dir, "a", "ins.sql"), "--max-ops", "200", "--concurrency", "2", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"ins.sql", "ins.sql:2", ""} {
		if ops, _ := finalOps(t, r.stdout, name); ops != 200 {
			t.Errorf("%q counts %d operations, want the server's 200", name, ops)
		}
	}
	if n := count(t, conn, "SELECT count(*) FROM t"); n != 200 {
		t.Errorf("the server holds %d rows", n)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "a/slash.sql"}, `a/slash.sql:2: the statement name "read/one" holds a /`},
	} {
		r := stampede(t, dir, append(append([]string{"run", "sql", "--max-ops", "10"}, c.args...), u)...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, r.code, msg, c.want)
		}
	}
}
