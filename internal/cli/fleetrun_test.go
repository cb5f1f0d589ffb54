package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestFleetRunBadInput checks the fleet run flags' usage errors: one line,
// exit code 2.
func TestFleetRunBadInput(t *testing.T) {
	null := []string{"--driver", "null", "--duration", "1s"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"active without tenants", []string{"--active", "3"}, "--active needs --tenants"},
		{"active above tenants", []string{"--tenants", "5", "--active", "6"}, "--active 6 is more than --tenants 5"},
		{"active zero", []string{"--tenants", "5", "--active", "0"}, "--active 0: need at least 1"},
		{"active negative", []string{"--tenants", "5", "--active", "-2"}, "--active -2: need at least 1"},
		{"unknown pick", []string{"--tenants", "5", "--pick", "lottery"}, `unknown --pick "lottery"`},
		{"pick without tenants", []string{"--pick", "round-robin"}, "--pick needs --tenants"},
		{"rotate without tenants", []string{"--rotate"}, "--rotate needs --tenants"},
		{"tenant-duration without rotate", []string{"--tenants", "5", "--tenant-duration", "1s"}, "--tenant-duration needs --rotate"},
		{"negative tenant-duration", []string{"--tenants", "5", "--rotate", "--tenant-duration", "-1s"}, "--tenant-duration -1s is negative"},
		{"conns-per-tenant zero", []string{"--tenants", "5", "--conns-per-tenant", "0"}, "--conns-per-tenant 0: need at least 1"},
		{"conns-per-tenant without tenants", []string{"--conns-per-tenant", "2"}, "--conns-per-tenant needs --tenants"},
		{"tenant-mode without tenants", []string{"--tenant-mode", "schema"}, "--tenant-mode needs --tenants"},
		{"bad tenant mode", []string{"--tenants", "5", "--tenant-mode", "table"}, `unknown tenant mode "table"`},
		{"bad pattern", []string{"--tenants", "5", "--tenant-pattern", "bank"}, "exactly one %d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append([]string{"run", "bank"}, tc.args...), null...)...)
			if r.code != 2 {
				t.Errorf("exit code %d, want 2 (stderr %q)", r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "stampede: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one error line containing %q", r.stderr, tc.want)
			}
		})
	}
}

// TestFleetRunNull runs a fleet on the null driver (no server) in text
// and JSON, and checks the fleet table and summary.json.
func TestFleetRunNull(t *testing.T) {
	root := t.TempDir()
	r := stampede(t, "run", "bank", "--driver", "null", "--tenants", "20", "--active", "10", "--pick", "round-robin",
		"--duration", "300ms", "--results-dir", root, "--report-interval", "0")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "\nfleet: 20 tenants (database mode, bank_%d), 10 active, 1 worker and 1 connection each\n__active__") {
		t.Errorf("no fleet table in:\n%s", r.stdout)
	}
	sum := readSummary(t, lastRun(t, root))
	if len(sum.Tenants) != 10 || sum.Fleet == nil || sum.Fleet.Active != 10 || sum.Concurrency != 10 {
		t.Errorf("summary.json: %d tenants, fleet %+v, concurrency %d", len(sum.Tenants), sum.Fleet, sum.Concurrency)
	}
	for _, tr := range sum.Tenants {
		if tr.ID < 1 || tr.ID > 10 {
			t.Errorf("round-robin ran tenant %d", tr.ID)
		}
	}
	r = stampede(t, "run", "bank", "--driver", "null", "--tenants", "4", "--duration", "200ms", "--results-dir", root, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var last struct {
		Type  string
		Fleet struct{ Active int }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "fleet" || last.Fleet.Active != 4 {
		t.Errorf("last NDJSON line %q: want the fleet object with 4 active (default --active: every tenant)", lines[len(lines)-1])
	}
}

// fleetSum is the part of summary.json the tests read.
type fleetSum struct {
	Concurrency int                     `json:"concurrency"`
	ElapsedSec  float64                 `json:"elapsed_s"`
	Status      string                  `json:"status"`
	Ops         []struct{ Count int64 } `json:"ops"`
	Total       struct{ Count int64 }   `json:"total"`
	Tenants     []fleet.TenantResult    `json:"tenants"`
	Fleet       *struct {
		fleet.Summary
		QPS float64 `json:"qps"`
		P99 float64 `json:"p99_ms"`
	} `json:"fleet"`
}

func readSummary(t testing.TB, dir string) fleetSum {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s fleetSum
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// lastRun returns the newest run directory under root.
func lastRun(t testing.TB, root string) string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	last := ""
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() > last {
			last = e.Name()
		}
	}
	if last == "" {
		t.Fatalf("no run under %s", root)
	}
	return filepath.Join(root, last)
}

// loadTenants loads tenants first..last of workload name (with args) in
// schema mode into database db, 4 at a time, with workload.Setup on a
// connection whose search_path is the tenant's schema.
func loadTenants(t testing.TB, db, name, pattern string, first, last int, args ...string) {
	t.Helper()
	ctx := context.Background()
	m, _ := workload.Get(name)
	var wg sync.WaitGroup
	errs := make(chan error, last-first+1)
	sem := make(chan struct{}, 4)
	for id := first; id <= last; id++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			schema := fmt.Sprintf(pattern, id)
			gen, err := workload.FromFlags(m, args...)
			if err != nil {
				errs <- err
				return
			}
			sdb, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{dbURL(t, db)}, MaxConns: 2, SearchPath: schema})
			if err != nil {
				errs <- err
				return
			}
			defer sdb.Close()
			if _, err := sdb.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
				errs <- err
				return
			}
			if err := workload.Setup(ctx, sdb, gen, workload.LoadOptions{Concurrency: 1}); err != nil {
				errs <- fmt.Errorf("tenant %d: %w", id, err)
				return
			}
			for _, q := range tenantMarker(t, schema, name, args...) {
				if _, err := sdb.Exec(ctx, q); err != nil {
					errs <- fmt.Errorf("tenant %d: %s: %w", id, q, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// checkFleetRun checks a completed fleet run of active tenants: every
// tenant completed operations, their counts add up to the engine's, and
// `stampede report` reads the run.
func checkFleetRun(t *testing.T, root string, active int) fleetSum {
	t.Helper()
	dir := lastRun(t, root)
	sum := readSummary(t, dir)
	if sum.Status != "completed" || len(sum.Tenants) != active || sum.Fleet == nil {
		t.Fatalf("summary.json: status %s, %d tenants (want %d), fleet %v", sum.Status, len(sum.Tenants), active, sum.Fleet)
	}
	var tenantOps, engineOps int64
	for _, tr := range sum.Tenants {
		if tr.Total == 0 || tr.P99 <= 0 || tr.ElapsedSec <= 0 {
			t.Errorf("tenant %d: %+v", tr.ID, tr)
		}
		for _, n := range tr.Ops {
			tenantOps += n
		}
	}
	for _, op := range sum.Ops {
		engineOps += op.Count
	}
	if tenantOps != engineOps || engineOps == 0 {
		t.Errorf("tenants' operations add up to %d, the engine counted %d", tenantOps, engineOps)
	}
	var errs int64
	for _, tr := range sum.Tenants {
		errs += tr.Errors
	}
	if errs > 0 {
		// Retried serialization failures count here: with the whole
		// suite's SERIALIZABLE transactions on one server, PostgreSQL's
		// SSI summarizes and reports conflicts across tenants.
		t.Logf("%d errors (retried or tolerated) over %d operations", errs, engineOps)
	}
	if f := sum.Fleet; f.OpsMin == 0 || len(f.Starved) != 0 || f.QPS <= 0 || f.P99 <= 0 {
		t.Errorf("fleet summary %+v", *f)
	}
	r := stampede(t, "report", "--results-dir", root, filepath.Base(dir))
	if r.code != 0 || !strings.Contains(r.stdout, "transfer") {
		t.Errorf("report: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	return sum
}

// fleetTolerate keeps the fleet runs of the tests going through a failure
// of the server's own: with the whole suite sharing one PostgreSQL 15
// (hundreds of concurrent SERIALIZABLE transactions, many CREATE/DROP
// DATABASE and their checkpoints), the bank tenants twice met "could not
// access status of transaction N (SQLSTATE 58P01)", an SLRU file the
// server could not find (likely pg_serial, which SSI uses once it
// summarizes), which these tests are not about.
const fleetTolerate = "--tolerate-errors"

// TestFleetRunSchemaMode runs 100 bank tenants in schema mode for 20s
// (the acceptance run), then checks rotation and a missing tenant
// on the same fleet.
func TestFleetRunSchemaMode(t *testing.T) {
	t.Parallel() // bound by the server (database creation and checkpoints), not by the client
	db := freshDB(t, "stampede_fleet_schema")
	adminExec(t, "CREATE DATABASE "+db)
	loadTenants(t, db, "bank", "bank_%d", 1, 100, "--rows=100")
	u := dbURL(t, db)
	root := t.TempDir()
	dur := "20s"
	if testing.Short() {
		dur = "5s"
	}
	r := stampede(t, "run", "bank", "--rows=100", fleetTolerate, "--tenants", "100", "--active", "100", "--tenant-mode", "schema",
		"--duration", dur, "--results-dir", root, "--report-interval", "0", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "fleet: 100 tenants (schema mode, bank_%d), 100 active") || strings.Contains(r.stdout, "starved") {
		t.Errorf("fleet table:\n%s", r.stdout)
	}
	checkFleetRun(t, root, 100)

	t.Run("rotate", func(t *testing.T) {
		root := t.TempDir()
		r := stampede(t, "run", "bank", "--rows=100", "--tenants", "10", "--active", "3", "--tenant-mode", "schema",
			"--rotate", "--tenant-duration", "1s", "--duration", "5s", "--results-dir", root, "--report-interval", "0", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		sum := readSummary(t, lastRun(t, root))
		if len(sum.Tenants) <= 3 || sum.Fleet.Ran != len(sum.Tenants) {
			t.Errorf("%d tenant workloads ran (fleet says %d), want more than 3", len(sum.Tenants), sum.Fleet.Ran)
		}
		if !strings.Contains(r.stdout, "__workloads__") {
			t.Errorf("no workloads column in:\n%s", r.stdout)
		}
	})

	t.Run("ramp", func(t *testing.T) {
		// The tenants leave the ramp out of their figures, as the engine
		// does (an operation in flight at the ramp's end may land on
		// either side, so the sums agree to a few operations).
		root := t.TempDir()
		r := stampede(t, "run", "bank", "--rows=100", fleetTolerate, "--tenants", "100", "--active", "20", "--tenant-mode", "schema",
			"--ramp", "2s", "--duration", "3s", "--results-dir", root, "--report-interval", "0", u)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		sum := readSummary(t, lastRun(t, root))
		// The engine's own time after the ramp is 3 s and the last
		// operation in flight then (a transfer retrying serialization
		// failures on a busy server took 0.9 s more in CI): a tenant's
		// time is inside it, starting at the ramp's end, not before.
		if sum.ElapsedSec < 3 || sum.ElapsedSec > 3+5 {
			t.Errorf("the engine measured %.3fs after the ramp, want 3 s and its last operations", sum.ElapsedSec)
		}
		var tenantOps, engineOps int64
		for _, tr := range sum.Tenants {
			tenantOps += tr.Total
			if tr.ElapsedSec > sum.ElapsedSec+0.001 || tr.ElapsedSec < 1 {
				t.Errorf("tenant %d: %.3fs of figures, want at most the engine's %.3fs after the ramp", tr.ID, tr.ElapsedSec, sum.ElapsedSec)
			}
		}
		for _, op := range sum.Ops {
			engineOps += op.Count
		}
		if engineOps == 0 || math.Abs(float64(tenantOps-engineOps)) > 0.02*float64(engineOps)+20 {
			t.Errorf("tenants' operations after the ramp add up to %d, the engine counted %d", tenantOps, engineOps)
		}
	})

	t.Run("missing tenant", func(t *testing.T) {
		r := stampede(t, "run", "bank", "--rows=100", "--tenants", "102", "--active", "102", "--tenant-mode", "schema",
			"--duration", "1s", "--results-dir", t.TempDir(), u)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		last := lines[len(lines)-1]
		if r.code != 1 || !strings.Contains(last, `tenant 10`) || !strings.Contains(last, "stampede init bank --tenants 102") {
			t.Errorf("exit %d, stderr %q: want one line naming tenant 101 or 102 and `stampede init bank --tenants 102`", r.code, r.stderr)
		}
	})
}

// TestFleetRunDatabaseMode runs 100 bank tenants in database mode, each
// a database cloned from a loaded template.
func TestFleetRunDatabaseMode(t *testing.T) {
	t.Parallel() // bound by the server (database creation and checkpoints), not by the client
	prefix := fmt.Sprintf("sfdb%d", time.Now().UnixNano()%1e8)
	tmpl := freshDB(t, prefix+"_tmpl")
	adminExec(t, "CREATE DATABASE "+tmpl)
	ctx := context.Background()
	m, _ := workload.Get("bank")
	gen, err := workload.FromFlags(m, "--rows=100")
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{dbURL(t, tmpl)}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = workload.Setup(ctx, tdb, gen, workload.LoadOptions{Concurrency: 1})
	for _, q := range tenantMarker(t, "", "bank", "--rows=100") {
		if err == nil {
			_, err = tdb.Exec(ctx, q)
		}
	}
	tdb.Close()
	if err != nil {
		t.Fatal(err)
	}
	pattern := prefix + "_%d"
	var creates, drops []string
	for id := 1; id <= 100; id++ {
		creates = append(creates, fmt.Sprintf("CREATE DATABASE "+pattern+" TEMPLATE %s", id, tmpl), tenantDatabaseMark(fmt.Sprintf(pattern, id), "bank"))
		drops = append(drops, fmt.Sprintf("DROP DATABASE IF EXISTS "+pattern, id))
	}
	t.Cleanup(func() { adminExec(t, drops...) })
	start := time.Now()
	adminExec(t, creates...)
	t.Logf("created 100 tenant databases in %s", time.Since(start).Round(time.Millisecond))
	root := t.TempDir()
	r := stampede(t, "run", "bank", "--rows=100", fleetTolerate, "--tenants", "100", "--active", "100", "--tenant-pattern", pattern,
		"--duration", "5s", "--results-dir", root, "--report-interval", "0", testServer(t))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkFleetRun(t, root, 100)

	r = stampede(t, "run", "bank", "--rows=100", "--tenants", "101", "--active", "101", "--tenant-pattern", pattern,
		"--duration", "1s", "--results-dir", root, testServer(t))
	want := fmt.Sprintf(`tenant 101 (database "`+pattern+`")`, 101)
	if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "stampede init bank --tenants 101") {
		t.Errorf("missing tenant database: exit %d, stderr %q: want %q", r.code, r.stderr, want)
	}
}

// TestFleetRunTPCC runs 2 TPC-C tenants of one warehouse without waits
// and checks that each has its own figures, without efficiency, which
// needs keying and think times and 10 terminals per warehouse.
func TestFleetRunTPCC(t *testing.T) {
	t.Parallel() // bound by the server (database creation and checkpoints), not by the client
	db := freshDB(t, "stampede_fleet_tpcc")
	adminExec(t, "CREATE DATABASE "+db)
	loadTenants(t, db, "tpcc", "tpcc_%d", 1, 2, "--warehouses=1")
	root := t.TempDir()
	r := stampede(t, "run", "tpcc", "--warehouses=1", "--wait=false", "--tenants", "2", "--tenant-mode", "schema",
		"--duration", "5s", "--results-dir", root, "--report-interval", "0", dbURL(t, db))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sum := readSummary(t, lastRun(t, root))
	if len(sum.Tenants) != 2 {
		t.Fatalf("%d tenants in summary.json, want 2", len(sum.Tenants))
	}
	for _, tr := range sum.Tenants {
		if _, eff := tr.Figures["efficiency"]; eff || tr.Figures["tpmC"] <= 0 || tr.Ops["newOrder"] == 0 {
			t.Errorf("tenant %d: figures %v, ops %v", tr.ID, tr.Figures, tr.Ops)
		}
	}
	if sum.Fleet == nil || sum.Fleet.Efficiency != nil {
		t.Errorf("fleet summary with efficiency, or none: %+v", sum.Fleet)
	}
	if strings.Contains(r.stdout, "efficiency-avg") || !strings.Contains(r.stderr, "stampede check tpcc --tenants 2") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// TestFleetRunTPCCEfficiency runs 2 TPC-C tenants of one warehouse with
// the specification's waits and 10 terminals each, and checks the fleet's
// efficiency lines against the tenants' own counts in summary.json: the
// pooled figure is 100 × their New-Orders / their summed minutes / 12.86,
// inside its printed 95% interval, from that many New-Orders; the lowest
// is the tenant whose efficiency is the minimum.
func TestFleetRunTPCCEfficiency(t *testing.T) {
	t.Parallel() // mostly waiting: keying and think times
	db := freshDB(t, "stampede_fleet_tpcc_eff")
	adminExec(t, "CREATE DATABASE "+db)
	loadTenants(t, db, "tpcc", "tpcc_%d", 1, 2, "--warehouses=1")
	root := t.TempDir()
	r := stampede(t, "run", "tpcc", "--warehouses=1", "--tenants", "2", "--tenant-mode", "schema",
		"--duration", "40s", "--results-dir", root, "--report-interval", "0", dbURL(t, db))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sum := readSummary(t, lastRun(t, root))
	if sum.Fleet == nil || sum.Fleet.Efficiency == nil {
		t.Fatalf("no fleet efficiency in summary.json: %+v", sum.Fleet)
	}
	var newOrders int64
	var sec float64
	for _, tr := range sum.Tenants {
		newOrders += tr.Ops["newOrder"]
		sec += tr.ElapsedSec
	}
	eff := 100 * float64(newOrders) / (sec / 60) / 12.86
	e := sum.Fleet.Efficiency
	line := regexp.MustCompile(`(?m)^efficiency pooled over the 2 tenant workloads \(their operations over their summed time\): ([0-9.]+)% \(95% interval ([0-9.]+)%-([0-9.]+)% from the count; tpmC / \(12\.86 x 1 warehouses\), from ([0-9,]+) New-Orders\)`).
		FindStringSubmatch(r.stdout)
	if line == nil {
		t.Fatalf("no pooled efficiency line in:\n%s", r.stdout)
	}
	lo, _ := strconv.ParseFloat(line[2], 64)
	hi, _ := strconv.ParseFloat(line[3], 64)
	if line[1] != fmt.Sprintf("%.1f", eff) || strings.ReplaceAll(line[4], ",", "") != strconv.FormatInt(newOrders, 10) || !(lo <= eff && eff <= hi) || hi-lo < 1 {
		t.Errorf("pooled line %q: want %.1f%% from %d New-Orders (summary.json's tenants, %.1f s), inside [%s, %s]",
			line[0], eff, newOrders, sec, line[2], line[3])
	}
	if !strings.HasPrefix(e.Pooled, line[1]+"% (95% interval") {
		t.Errorf("summary.json's pooled text %q, stdout's %q", e.Pooled, line[0])
	}
	var lowest *fleet.TenantResult
	for i, tr := range sum.Tenants {
		if lowest == nil || tr.Figures["efficiency"] < lowest.Figures["efficiency"] {
			lowest = &sum.Tenants[i]
		}
	}
	want := fmt.Sprintf("efficiency of the lowest, tenant %d: %.1f%% (95%% interval ", lowest.ID, lowest.Figures["efficiency"])
	if e.MinTenant != lowest.ID || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, fmt.Sprintf("from %d New-Orders)", lowest.Ops["newOrder"])) {
		t.Errorf("stdout lacks %q (tenant %d, %d New-Orders):\n%s", want, lowest.ID, lowest.Ops["newOrder"], r.stdout)
	}
	t.Logf("%d New-Orders in %.1f tenant-seconds: %s", newOrders, sec, line[0])
}
