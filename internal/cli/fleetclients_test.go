package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/runlog"
)

// fleetClientSum is what the tests read of a fleet client's summary.json
// and of `report --format json`.
type fleetClientSum struct {
	Tags    map[string]string     `json:"tags"`
	Total   struct{ Count int64 } `json:"total"`
	Tenants []fleet.TenantResult  `json:"tenants"`
	Fleet   *struct {
		fleet.Summary
		Tenants int `json:"tenants"`
		First   int `json:"first_tenant"`
		Last    int `json:"last_tenant"`
		Clients int `json:"clients"`
	} `json:"fleet"`
}

// runFleetClients runs clients processes of the built binary bin as the
// clients of one fleet benchmark (args after `run`), from a common start,
// tagged job=JOB, into dir; it returns their summaries by client index.
func runFleetClients(t *testing.T, bin, dir, job string, clients int, args ...string) []fleetClientSum {
	t.Helper()
	startAt := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	cmds := make([]*exec.Cmd, clients)
	outs := make([]*bytes.Buffer, clients)
	for i := range cmds {
		outs[i] = &bytes.Buffer{}
		a := append([]string{"run"}, args...)
		a = append(a, "--clients", strconv.Itoa(clients), "--client-index", strconv.Itoa(i), "--start-at", startAt,
			"--tag", "job="+job, "--results-dir", dir, "--report-interval", "0")
		cmds[i] = exec.Command(bin, a...)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("client %d: %v\n%s", i, err, outs[i])
		}
	}
	infos, err := runlog.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	sums := make([]fleetClientSum, clients)
	seen := 0
	for _, info := range infos {
		if info.Tags["job"] != job {
			continue
		}
		r, err := runlog.Open(filepath.Join(dir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		var s fleetClientSum
		if err := json.Unmarshal(r.Summary, &s); err != nil || s.Fleet == nil {
			t.Fatalf("run %s: summary.json %v, fleet %v", info.ID, err, s.Fleet)
		}
		i, err := strconv.Atoi(strings.TrimSuffix(info.Tags["client"], "/"+strconv.Itoa(clients)))
		if err != nil || i < 0 || i >= clients {
			t.Fatalf("run %s tagged client=%q", info.ID, info.Tags["client"])
		}
		sums[i] = s
		seen++
	}
	if seen != clients {
		t.Fatalf("%d runs tagged job=%s, want %d", seen, job, clients)
	}
	return sums
}

// checkFleetMerge checks that `report --tag job=JOB` merges the clients'
// shares of a fleet of tenants into the fleet's: every tenant once, with
// the figures its client measured, the totals added, and the fleet's
// table over all tenants; it returns the report's text.
func checkFleetMerge(t *testing.T, dir, job string, tenants int, sums []fleetClientSum) string {
	t.Helper()
	r := stampede(t, "report", "--results-dir", dir, "--tag", "job="+job, "--format", "json")
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	var merged fleetClientSum
	if err := json.Unmarshal([]byte(r.stdout), &merged); err != nil || merged.Fleet == nil {
		t.Fatalf("report JSON: %v, fleet %v:\n%s", err, merged.Fleet, r.stdout)
	}
	byID := map[int]fleet.TenantResult{}
	for _, tr := range merged.Tenants {
		if _, twice := byID[tr.ID]; twice {
			t.Errorf("tenant %d twice in the merged report", tr.ID)
		}
		byID[tr.ID] = tr
	}
	var total int64
	var totals []int64
	for i, s := range sums {
		total += s.Total.Count
		if s.Fleet.First != i*tenants/len(sums)+1 || s.Fleet.Last != (i+1)*tenants/len(sums) {
			t.Errorf("client %d ran tenants %d..%d", i, s.Fleet.First, s.Fleet.Last)
		}
		var ops int64
		for _, tr := range s.Tenants {
			if tr.ID < s.Fleet.First || tr.ID > s.Fleet.Last {
				t.Errorf("client %d ran tenant %d, outside its share %d..%d", i, tr.ID, s.Fleet.First, s.Fleet.Last)
			}
			if tr.Total == 0 {
				t.Errorf("tenant %d got no load", tr.ID)
			}
			if got, ok := byID[tr.ID]; !ok || !reflect.DeepEqual(got, tr) {
				t.Errorf("tenant %d: merged %+v, client %d measured %+v", tr.ID, got, i, tr)
			}
			ops += tr.Total
			totals = append(totals, tr.Total)
		}
		if ops != s.Total.Count {
			t.Errorf("client %d: its tenants' operations add up to %d, its total is %d", i, ops, s.Total.Count)
		}
	}
	if len(byID) != tenants || len(merged.Tenants) != tenants {
		t.Errorf("merged report holds %d tenant workloads of %d tenants, want each of %d once", len(merged.Tenants), len(byID), tenants)
	}
	if merged.Total.Count != total {
		t.Errorf("merged total %d, the clients' add up to %d", merged.Total.Count, total)
	}
	lo, hi := totals[0], totals[0]
	for _, n := range totals {
		lo, hi = min(lo, n), max(hi, n)
	}
	f := merged.Fleet
	if f.Active != tenants || f.Ran != tenants || f.Tenants != tenants || f.Clients != len(sums) || f.First != 0 || f.OpsMin != lo || f.OpsMax != hi {
		t.Errorf("merged fleet %+v: want %d active and ran, %d clients, operations per tenant %d..%d", *f, tenants, len(sums), lo, hi)
	}
	text := stampede(t, "report", "--results-dir", dir, "--tag", "job="+job)
	want := fmt.Sprintf("), %d active, ", tenants)
	if text.code != 0 || !strings.Contains(text.stdout, want) || !strings.Contains(text.stdout, fmt.Sprintf("(fleet's tenants from %d clients)", len(sums))) {
		t.Errorf("report's text has no fleet table of %d active from %d clients:\n%s%s", tenants, len(sums), text.stdout, text.stderr)
	}
	return text.stdout
}

// TestFleetClientsNull runs a fleet of 7 tenants from 3 client processes
// on the null driver: each runs its contiguous share (2, 2 and 3
// tenants), and the report of the job is the fleet's.
func TestFleetClientsNull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildStampede(t)
	dir := t.TempDir()
	sums := runFleetClients(t, bin, dir, "null7", 3, "bank", "--driver", "null", "--tenants", "7", "--duration", "1s")
	checkFleetMerge(t, dir, "null7", 7, sums)
	// One client's run alone: its own share's table, as it printed it.
	infos, err := runlog.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Tags["client"] != "2/3" {
			continue
		}
		r := stampede(t, "report", "--results-dir", dir, info.ID)
		if want := "fleet: 7 tenants (database mode, bank_%d), 3 active, 1 worker and 1 connection each (this client's share: tenants 5..7)\n"; r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("report of client 2 alone lacks %q:\n%s%s", want, r.stdout, r.stderr)
		}
		// Another window: the table (the whole run's) is not shown, and
		// the report says why.
		r = stampede(t, "report", "--results-dir", dir, "--include-ramp", info.ID)
		if want := "\nfleet: the tenants' figures cover each run's whole time after its ramp: report without --from, --to or --include-ramp for the fleet's table\n"; r.code != 0 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "__active__") {
			t.Errorf("report --include-ramp: want %q and no table:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}

// TestFleetClientsBadInput checks the refusals of a fleet from several
// clients: one line each, exit 2.
func TestFleetClientsBadInput(t *testing.T) {
	null := []string{"--driver", "null", "--duration", "200ms"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"active not a multiple", []string{"--tenants", "6", "--active", "4", "--clients", "3", "--client-index", "1"},
			"--active 4 is not a multiple of --clients 3: each client runs --active ÷ --clients tenant workloads at once; give 3 or 6"},
		{"more clients than tenants", []string{"--tenants", "2", "--clients", "3", "--client-index", "0"},
			"--clients 3 is more than --tenants 2: each client runs at least one tenant; use at most 2 clients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append([]string{"run", "bank"}, tc.args...), null...)...)
			checkOneLineError(t, r, 2, tc.want)
			dry := stampede(t, append(append([]string{"run", "bank", "--dry-run"}, tc.args...), null...)...)
			checkOneLineError(t, dry, 2, tc.want)
			// gen k8s sets --clients and --client-index itself.
			fleetArgs := tc.args[:len(tc.args)-4]
			k8s := stampede(t, append(append([]string{"gen", "k8s", "--name", "f", "--clients", "3", "--image", "img:1", "--out", filepath.Join(t.TempDir(), "f.yaml"), "--", "run", "bank"},
				fleetArgs...), "--duration", "1m", "postgresql://u@h/db")...)
			checkOneLineError(t, k8s, 2, tc.want)
		})
	}
	// Clients of different fleets: the merge refuses, naming the flag.
	dir := t.TempDir()
	for i, tenants := range []string{"4", "6"} {
		r := stampede(t, append([]string{"run", "bank", "--tenants", tenants, "--clients", "2", "--client-index", strconv.Itoa(i),
			"--tag", "job=two", "--results-dir", dir, "--report-interval", "0"}, null...)...)
		if r.code != 0 {
			t.Fatalf("client %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	r := stampede(t, "report", "--results-dir", dir, "--tag", "job=two")
	checkOneLineError(t, r, 2, `are clients of one benchmark with different --tenants ("4" and "6"): they ran different fleets; report them apart`)
}

// TestGenK8sFleet checks that gen k8s writes the Job of a fleet's
// clients, each pod's command line its client's.
func TestGenK8sFleet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f6.yaml")
	r := stampede(t, "gen", "k8s", "--name", "f6", "--clients", "3", "--image", "img:1", "--out", out, "--",
		"run", "bank", "--tenants", "6", "--active", "3", "--duration", "1m", "postgresql://u@h/db")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "job f6, 3 client pods") {
		t.Fatalf("gen k8s of a fleet: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	for i := range 3 {
		dry := stampede(t, "run", "bank", "--tenants", "6", "--active", "3", "--clients", "3", "--client-index", strconv.Itoa(i), "--dry-run", "postgresql://u@h/db")
		want := fmt.Sprintf("client %d of 3 (its share of the rate and operations), tenants %d..%d of 6, 1 active", i, 2*i+1, 2*i+2)
		if dry.code != 0 || !strings.Contains(dry.stdout+dry.stderr, want) {
			t.Errorf("dry run of client %d: exit %d: %s%s; want %q", i, dry.code, dry.stdout, dry.stderr, want)
		}
	}
}

// TestFleetClients runs a fleet of 6 bank tenant databases from 3 client
// processes and checks on the server that each tenant ran exactly once:
// the rows its database updated (pg_stat_database.tup_updated: a transfer
// updates two) are twice the transfers of the one client that ran it, and
// its transactions (xact_commit + xact_rollback) those transfers and the
// few of that client's set-up; every tenant got load; the job's report
// is the fleet's, per tenant and in total; its table is the one a single
// process running the whole fleet prints.
func TestFleetClients(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := testServer(t)
	prefix := fmt.Sprintf("fcl%d", time.Now().UnixNano()%1e8)
	tmpl := freshDB(t, prefix+"_tmpl")
	adminExec(t, "CREATE DATABASE "+tmpl)
	if r := stampede(t, "init", "bank", "--rows=100", "--db", tmpl, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	execIn(t, tmpl, tenantMarker(t, "", "bank", "--rows=100")...)
	pattern := prefix + "_%d"
	var creates, drops []string
	for id := 1; id <= 6; id++ {
		creates = append(creates, fmt.Sprintf("CREATE DATABASE "+pattern+" TEMPLATE %s", id, tmpl), tenantDatabaseMark(fmt.Sprintf(pattern, id), "bank"))
		drops = append(drops, fmt.Sprintf("DROP DATABASE IF EXISTS "+pattern+" WITH (FORCE)", id))
	}
	t.Cleanup(func() { adminExec(t, drops...) })
	adminExec(t, creates...)

	type dbStats struct{ xacts, updated int64 }
	ctx := context.Background()
	readStats := func() map[int]dbStats {
		conn, err := pgx.Connect(ctx, srv)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, "SELECT datname, xact_commit + xact_rollback, tup_updated FROM pg_stat_database WHERE datname LIKE $1", prefix+`\_%`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]dbStats{}
		for rows.Next() {
			var name string
			var s dbStats
			if err := rows.Scan(&name, &s.xacts, &s.updated); err != nil {
				t.Fatal(err)
			}
			if id, err := strconv.Atoi(strings.TrimPrefix(name, prefix+"_")); err == nil {
				out[id] = s
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := readStats()

	bin := buildStampede(t)
	dir := t.TempDir()
	sums := runFleetClients(t, bin, dir, "fleet6", 3, "bank", "--rows=100", "--tenants", "6", "--tenant-pattern", pattern,
		"--duration", "3s", fleetTolerate, srv)
	ran := map[int]fleet.TenantResult{}
	for _, s := range sums {
		for _, tr := range s.Tenants {
			ran[tr.ID] = tr
		}
	}
	// The clients' backends report their counts as they exit: wait for
	// every tenant's rows to be counted.
	var after map[int]dbStats
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		after = readStats()
		done := true
		for id, tr := range ran {
			if after[id].updated-before[id].updated < 2*tr.Ops["transfer"] {
				done = false
			}
		}
		if done || time.Now().After(deadline) {
			break
		}
	}
	for id := 1; id <= 6; id++ {
		tr, ok := ran[id]
		updated, xacts := after[id].updated-before[id].updated, after[id].xacts-before[id].xacts
		transfers := tr.Ops["transfer"]
		switch {
		case !ok || transfers == 0:
			t.Errorf("tenant %d got no load (%+v)", id, tr)
		case updated < 2*transfers || updated > 2*(transfers+tr.Errors)+10:
			// The few operations in flight when the run ended (cut, or
			// done after the tenants' counts were read: once 3 rows more
			// than twice 289 transfers) add a few rows; a second client
			// on the tenant would add hundreds.
			t.Errorf("tenant %d: the server updated %d rows, its client %d transfers (%d errors): want 2 rows each, from that client alone", id, updated, transfers, tr.Errors)
		case xacts < transfers || xacts > transfers+tr.Errors+60:
			// The start of the one client that runs the tenant reads
			// its marker once (fleet.SurveyTenants: 6 statements, on a
			// connection of its own) and opens it (5 more), with the
			// load's survey (the search path, the OID-bound marks), and
			// the few transfers in flight at the end (15 to 21 in all,
			// measured before that survey; 35 to 38 in CI after it; 28
			// to 49 while every client read every tenant's marker, and
			// tenant 1's twice). A second client on the tenant would add
			// hundreds.
			t.Errorf("tenant %d: the server counted %d transactions, its client %d transfers (%d errors)", id, xacts, transfers, tr.Errors)
		}
		t.Logf("tenant %d: %d transfers, %d rows updated, %d transactions on the server", id, transfers, updated, xacts)
	}
	text := checkFleetMerge(t, dir, "fleet6", 6, sums)

	// One process running the whole fleet prints the same table.
	one := stampede(t, "run", "bank", "--rows=100", "--tenants", "6", "--tenant-pattern", pattern, "--duration", "1s",
		fleetTolerate, "--results-dir", t.TempDir(), "--report-interval", "0", srv)
	title := regexp.MustCompile(`(?m)^fleet: .*$`)
	head := regexp.MustCompile(`(?m)^__active__.*$`)
	oneTitle, mergedTitle := title.FindString(one.stdout), title.FindString(text)
	// The header's columns are as wide as their figures: the names are
	// compared, not the padding.
	cols := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '_' }), " ")
	}
	if one.code != 0 || oneTitle == "" || mergedTitle != oneTitle+" (fleet's tenants from 3 clients)" || cols(head.FindString(one.stdout)) != cols(head.FindString(text)) {
		t.Errorf("one process's fleet table:\n%s\nthe clients' merged:\n%s\n(exit %d: %s)", one.stdout, text, one.code, one.stderr)
	}
}

// TestFleetClientsTPCC runs 2 TPC-C tenants of one warehouse, with the
// specification's waits and 10 terminals each, from 2 clients (one tenant
// each), and checks that the report of the job gives the fleet's
// efficiency lines as a single process running both prints them: pooled
// over both tenants' New-Orders and time (100 × New-Orders / minutes /
// 12.86), inside its 95% interval, and the lowest tenant's.
func TestFleetClientsTPCC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel() // mostly waiting: keying and think times
	db := freshDB(t, "stampede_fleet_clients_tpcc")
	adminExec(t, "CREATE DATABASE "+db)
	loadTenants(t, db, "tpcc", "tpcc_%d", 1, 2, "--warehouses=1")
	bin := buildStampede(t)
	dir := t.TempDir()
	sums := runFleetClients(t, bin, dir, "tpcc2", 2, "tpcc", "--warehouses=1", "--tenants", "2", "--tenant-mode", "schema",
		"--duration", "40s", dbURL(t, db))
	text := checkFleetMerge(t, dir, "tpcc2", 2, sums)
	var newOrders int64
	var sec float64
	var tenants []fleet.TenantResult
	for _, s := range sums {
		for _, tr := range s.Tenants {
			newOrders += tr.Ops["newOrder"]
			sec += tr.ElapsedSec
			tenants = append(tenants, tr)
			if _, ok := tr.Figures["efficiency"]; !ok {
				t.Errorf("tenant %d has no efficiency: %v", tr.ID, tr.Figures)
			}
		}
	}
	eff := 100 * float64(newOrders) / (sec / 60) / 12.86
	line := regexp.MustCompile(`(?m)^efficiency pooled over the 2 tenant workloads \(their operations over their summed time\): ([0-9.]+)% \(95% interval ([0-9.]+)%-([0-9.]+)% from the count; tpmC / \(12\.86 x 1 warehouses\), from ([0-9,]+) New-Orders\)`).
		FindStringSubmatch(text)
	if line == nil {
		t.Fatalf("no pooled efficiency line in:\n%s", text)
	}
	lo, _ := strconv.ParseFloat(line[2], 64)
	hi, _ := strconv.ParseFloat(line[3], 64)
	if line[1] != fmt.Sprintf("%.1f", eff) || strings.ReplaceAll(line[4], ",", "") != strconv.FormatInt(newOrders, 10) || !(lo <= eff && eff <= hi) || hi-lo < 1 {
		t.Errorf("pooled line %q: want %.1f%% from %d New-Orders (the clients' tenants, %.1f s), inside [%s, %s]", line[0], eff, newOrders, sec, line[2], line[3])
	}
	lowest := tenants[0]
	var effSum float64
	for _, tr := range tenants {
		effSum += tr.Figures["efficiency"]
		if tr.Figures["efficiency"] < lowest.Figures["efficiency"] {
			lowest = tr
		}
	}
	want := fmt.Sprintf("efficiency of the lowest, tenant %d: %.1f%% (95%% interval ", lowest.ID, lowest.Figures["efficiency"])
	if !strings.Contains(text, want) || !strings.Contains(text, fmt.Sprintf("from %d New-Orders)", lowest.Ops["newOrder"])) {
		t.Errorf("report lacks %q (tenant %d, %d New-Orders):\n%s", want, lowest.ID, lowest.Ops["newOrder"], text)
	}
	if w := fmt.Sprintf("%.1f%%  %.1f%%", effSum/2, lowest.Figures["efficiency"]); !strings.Contains(strings.Join(strings.Fields(text), "  "), w) {
		t.Errorf("the table's efficiency-avg and min are not %s:\n%s", w, text)
	}
	t.Logf("%d New-Orders in %.1f tenant-seconds: %s", newOrders, sec, line[0])
}
