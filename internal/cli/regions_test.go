package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/proxy"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// theRun opens the one run under dir.
func theRun(t *testing.T, dir string) *runlog.Run {
	t.Helper()
	run, _ := onlyRun(t, dir)
	return run
}

// reportView is `stampede report RUN --format json`'s view.
func reportView(t *testing.T, dir, id string, args ...string) results.View {
	t.Helper()
	r := stampede(t, append([]string{"report", "--results-dir", dir, id, "--format", "json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("report: %d %s", r.code, r.stderr)
	}
	var v results.View
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("report's JSON: %v\n%s", err, r.stdout)
	}
	return v
}

// listeners starts n listeners of stampede's proxy (toxiproxy), in this
// process, in front of the test server's database db (nodes of a cluster,
// for the tests), and returns the proxy, their URLs and addresses. Runs
// through them use --io-mode poller: workers waiting in system calls on
// their own threads would starve a proxy in the same process.
func listeners(t *testing.T, db string, n int) (*proxy.Proxy, []string, []string) {
	t.Helper()
	base, err := url.Parse(dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	var specs []proxy.Listener
	for i := range n {
		specs = append(specs, proxy.Listener{Name: fmt.Sprintf("n%d", i), Listen: "127.0.0.1:0", To: base.Host})
	}
	px, err := proxy.Start(specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(px.Close)
	var urls, addrs []string
	for _, l := range px.Listeners() {
		u := *base
		u.Host = l.Listen
		urls = append(urls, u.String())
		addrs = append(addrs, l.Listen)
	}
	return px, urls, addrs
}

// TestMultiRegionYCSB stands in for the field report's multi-region YCSB
// on one machine: three PostgreSQL servers behind a `stampede proxy` each
// at 1, 30 and 60 ms (east, central and west), YCSB D over the three
// with --locality after each URL, each locality on its own keys
// (--locality-keys own) and the figures by locality (--by-locality): each
// locality's p50 follows its proxy's latency, in the run's final block
// and in `report --by-locality`, and the localities add up to the total;
// each server's rows inserted by the run are its locality's own keys (the
// stripes of YCSB's insertstart and insertcount, read from the servers).
func TestMultiRegionYCSB(t *testing.T) {
	srvs := ownServers(t, 3)
	added := []int{1, 30, 60}
	names := []string{"east", "central", "west"}
	args := []string{"--api", "off"}
	ports := make([]int, 3)
	for i, s := range srvs {
		ports[i] = freePort(t)
		args = append(args, "--listen", fmt.Sprintf("%d=127.0.0.1:%d,name=%s,latency=%dms", ports[i], s.Port(), names[i], added[i]))
	}
	_, stop := startProxy(t, args...)
	defer stop()
	for i, s := range srvs {
		if r := stampede(t, "init", "ycsb", "--record-count", "300", "--insert-order", "ordered", s.URL("ycsb")); r.code != 0 {
			t.Fatalf("init ycsb on %s: %s", names[i], r.stderr)
		}
		waitDial(t, fmt.Sprintf("127.0.0.1:%d", ports[i]))
	}
	dir := t.TempDir()
	runArgs := []string{"run", "ycsb", "--workload", "d", "--insert-order", "ordered", "--record-count", "300", "--duration", "4s", "--concurrency", "6",
		"--by-locality", "--locality-keys", "own", "--results-dir", dir}
	for i := range srvs {
		runArgs = append(runArgs, fmt.Sprintf("postgresql://postgres@127.0.0.1:%d/ycsb?sslmode=disable", ports[i]), "--locality", "region="+names[i])
	}
	r := stampede(t, runArgs...)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"read@region=east", "read@region=central", "read@region=west",
		"keys by locality (--locality-keys own): region=east: key numbers 0-99; region=central: key numbers 100-199; region=west: key numbers 200-299"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("the run's output lacks %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	run := theRun(t, dir)
	v := reportView(t, dir, run.Info.ID, "--by-locality")
	p50 := map[string]float64{}
	var parts int64
	for _, op := range v.Localities {
		p50[op.Name] = op.P50
		parts += op.Count
	}
	t.Logf("p50 by locality: %v; total %d operations, localities %d", p50, v.Total.Count, parts)
	// A read is one round trip: at least the added latency, and less
	// than 1.5 times it (east: near the local figure), below what a
	// proxy adding its latency twice would give.
	for _, b := range []struct {
		name   string
		lo, hi float64 // ms
	}{{"read@region=east", 1, 15}, {"read@region=central", 30, 45}, {"read@region=west", 60, 90}} {
		if got, ok := p50[b.name]; !ok || got < b.lo || got >= b.hi {
			t.Errorf("p50 of %s %v ms (of %v): want %v to %v ms", b.name, got, p50, b.lo, b.hi)
		}
	}
	if parts != v.Total.Count || parts == 0 {
		t.Errorf("the localities count %d reads, the total %d", parts, v.Total.Count)
	}
	if len(v.Endpoints) != 6 {
		t.Errorf("%d endpoint lines, want 6 (read and insert of 3): %+v", len(v.Endpoints), v.Endpoints)
	}
	// Locality i owns key numbers [100i, 100i+100) of the 300 loaded,
	// and inserts k*300+100i+j (YCSB's stripes): n%300/100 == i.
	var inserts int64
	for i, s := range srvs {
		n, bad := ownInserts(t, s.URL("ycsb"), 300, 100, int64(i))
		inserts += n
		if bad != "" {
			t.Errorf("%s's server holds keys inserted outside its locality's stripes: %s", names[i], bad)
		}
	}
	var counted int64
	for _, op := range v.Ops {
		if op.Name == "insert" {
			counted = op.Count
		}
	}
	if inserts == 0 || inserts != counted {
		t.Errorf("the servers hold %d rows inserted by the run, the run counted %d inserts", inserts, counted)
	}
}

// ownInserts returns the number of rows of usertable at url past the
// records loaded (key numbers >= records, ordered keys "userN") and, if
// any lies outside the stripes of locality number loc, each per keys
// wide (key number n with n%records/per != loc), a few of them.
func ownInserts(t *testing.T, url string, records, per, loc int64) (int64, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	var bad string
	err = conn.QueryRow(ctx, `SELECT count(*), coalesce(string_agg(k::text, ',') FILTER (WHERE k % $1 / $2 <> $3), '')
		FROM (SELECT substr(ycsb_key, 5)::bigint AS k FROM usertable) s WHERE k >= $1`, records, per, loc).Scan(&n, &bad)
	if err != nil {
		t.Fatal(err)
	}
	return n, bad
}

// TestEndpointsFile runs YCSB C over the endpoints of a file (three
// proxies in front of the test server stand for three nodes) while the
// file changes: an endpoint added gets operations within two intervals of
// 500 ms, the file made unreadable keeps the last list with one warning,
// and an endpoint removed gets none after; no operation is lost (the
// endpoints' figures add up to the total).
func TestEndpointsFile(t *testing.T) {
	db := freshDB(t, "epfile")
	if r := stampede(t, "init", "ycsb", "--record-count", "200", dbURL(t, db)); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	_, urls, addrs := listeners(t, db, 3)
	file := filepath.Join(t.TempDir(), "endpoints")
	write := func(lines ...string) {
		t.Helper()
		tmp := file + ".new"
		if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	write("# two nodes to start with", urls[0]+" region=east", urls[1]+" --locality region=west")
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, "run", "ycsb", "--workload", "c", "--record-count", "200", "--duration", "7s", "--concurrency", "6",
			"--display-every", "500ms", "--by-endpoint", "--endpoints-file", file, "--results-dir", dir, "--io-mode", "poller")
	}()
	time.Sleep(2 * time.Second)
	added := time.Now()
	write(urls[0]+" region=east", urls[1]+" region=west", urls[2]+" region=west")
	time.Sleep(1500 * time.Millisecond)
	if err := os.Rename(file, file+".away"); err != nil { // unreadable: no such file
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	removed := time.Now()
	write(urls[1]+" region=west", urls[2]+" region=west")
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"warning: endpoints file: added " + addrs[2] + " (region=west)",
		"warning: endpoints file " + file + ": cannot read the endpoints file: open " + file + ": no such file or directory; keeping its last list (3 endpoints) until it can be read",
		"warning: endpoints file " + file + " can be read again",
		"warning: endpoints file: removed " + addrs[0] + " (region=east); its workers move to the others",
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr has %q %d times, want once:\n%s", want, strings.Count(r.stderr, want), r.stderr)
		}
	}
	run := theRun(t, dir)
	ivs, err := run.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	var firstC time.Time
	var afterRemoval int64
	for _, iv := range ivs {
		if d := iv.Series["read@"+addrs[2]]; d != nil && d.Count > 0 && firstC.IsZero() {
			firstC = iv.End
		}
		if d := iv.Series["read@"+addrs[0]]; d != nil && iv.Start.After(removed.Add(1500*time.Millisecond)) {
			afterRemoval += d.Count
		}
	}
	switch {
	case firstC.IsZero():
		t.Errorf("the endpoint added, %s, got no read", addrs[2])
	case firstC.Sub(added) > 2*time.Second:
		t.Errorf("the endpoint added got its first reads %v after the file changed", firstC.Sub(added))
	}
	if afterRemoval > 0 {
		t.Errorf("the endpoint removed, %s, got %d reads after", addrs[0], afterRemoval)
	}
	v := reportView(t, dir, run.Info.ID, "--by-endpoint")
	var parts int64
	for _, op := range v.Endpoints {
		parts += op.Count
	}
	if parts != v.Total.Count || len(v.Endpoints) != 3 {
		t.Errorf("%d endpoints count %d reads, the total %d", len(v.Endpoints), parts, v.Total.Count)
	}
	t.Logf("C's first reads %v after it was added; endpoints %d reads of %d", firstC.Sub(added).Round(time.Millisecond), parts, v.Total.Count)
}

// TestNodeDownAtStart starts a run with one of its two endpoints down: the
// run starts on the other and says so in one line, and the endpoint gets
// its workers back once it is up.
func TestNodeDownAtStart(t *testing.T) {
	db := freshDB(t, "nodedown")
	if r := stampede(t, "init", "ycsb", "--record-count", "100", dbURL(t, db)); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	px, urls, addrs := listeners(t, db, 2)
	if _, err := px.SetFaults("n1", proxy.Faults{Down: true}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, append([]string{"run", "ycsb", "--workload", "c", "--record-count", "100", "--duration", "6s", "--concurrency", "4",
			"--display-every", "500ms", "--by-endpoint", "--results-dir", dir, "--io-mode", "poller"}, urls...)...)
	}()
	time.Sleep(1500 * time.Millisecond)
	if _, err := px.SetFaults("n1", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := "warning: endpoint " + addrs[1] + " is down at the start ("
	if n := strings.Count(r.stderr, "is down at the start"); n != 1 || !strings.Contains(r.stderr, want) ||
		!strings.Contains(r.stderr, "the run starts on the other 1 and keeps trying it") {
		t.Errorf("stderr: want one line %q...:\n%s", want, r.stderr)
	}
	v := reportView(t, dir, theRun(t, dir).Info.ID, "--by-endpoint")
	counts := map[string]int64{}
	for _, op := range v.Endpoints {
		counts[op.Name] = op.Count
	}
	if counts["read@"+addrs[1]] == 0 || counts["read@"+addrs[0]] == 0 {
		t.Errorf("reads by endpoint %v: the endpoint down at the start got none once up", counts)
	}
}

// TestClusterFlagsBadInput checks the one-line errors of --locality,
// --by-endpoint and --endpoints-file.
func TestClusterFlagsBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	down1, down2 := fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "ycsb", "--driver", "null", "--locality", "region=east", "postgresql://a:1/ycsb"}, 2,
			"--locality region=east follows no URL: put it right after the URL of the endpoint it describes"},
		{[]string{"run", "ycsb", "--driver", "null", "postgresql://a:1/ycsb", "--locality", "east"}, 2,
			`malformed locality "east": use KEY=VALUE tiers separated by commas`},
		{[]string{"run", "ycsb", "--driver", "null", "postgresql://a:1/ycsb", "--locality", "region=a", "--locality", "region=b"}, 2,
			"two localities (region=a and region=b) for postgresql://a:1/ycsb: give one --locality per URL"},
		{[]string{"run", "ycsb", "--driver", "null", "--by-endpoint", "--by-locality", "postgresql://a:1/ycsb"}, 2,
			"--by-endpoint and --by-locality: give one of them"},
		{[]string{"run", "ycsb", "--driver", "null", "--endpoints-file", missing}, 2,
			"cannot read the endpoints file: open " + missing},
		{[]string{"run", "ycsb", "--driver", "null", "postgresql://a:1/ycsb?locality=region%3Deast", "--locality", "region=west", "postgresql://b:1/ycsb"}, 2,
			"has ?locality=region=east and --locality region=west: give one of them"},
		{[]string{"run", "ycsb", "--results-dir", t.TempDir(), "postgresql://postgres@" + down1 + "/ycsb", "postgresql://postgres@" + down2 + "/ycsb"}, 1,
			"every endpoint is down at the start (" + down1 + ", " + down2 + "): cannot connect to " + down1},
	} {
		r := stampede(t, tc.args...)
		checkOneLineError(t, r, tc.code, tc.want)
	}
}

// TestSplitReportCompareChart runs the null driver over three endpoints
// in two localities, with --by-endpoint, and checks that report, compare
// and the chart break the figures down by endpoint and by locality from
// the run directories alone, the parts adding up to the operations.
func TestSplitReportCompareChart(t *testing.T) {
	dir := t.TempDir()
	urls := []string{"postgresql://10.0.0.1:26257/ycsb", "--locality", "region=east", "postgresql://10.0.0.2:26257/ycsb", "--locality", "region=west",
		"postgresql://10.0.0.3:26257/ycsb?locality=region%3Deast"}
	var ids []string
	newest := func() string { // the run not seen yet
		t.Helper()
		runs, _ := runlog.List(dir)
		for _, r := range runs {
			if !slices.Contains(ids, r.ID) {
				return r.ID
			}
		}
		t.Fatal("no new run")
		return ""
	}
	var first string // the first run's final block
	for range 2 {
		r := stampede(t, append([]string{"run", "ycsb", "--driver", "null", "--duration", "1s", "--concurrency", "3", "--by-endpoint",
			"--results-dir", dir, "--telemetry=false"}, urls...)...)
		if r.code != 0 {
			t.Fatalf("run: %s", r.stderr)
		}
		for _, want := range []string{" read@10.0.0.1:26257\n", " update@10.0.0.3:26257\n", "reconnects@10.0.0.2:26257: 0", "  read_return_ok: "} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("run's output lacks %q:\n%s", want, r.stdout)
			}
		}
		if first == "" {
			first = finalBlock(r.stdout)
		}
		ids = append(ids, newest())
	}
	// report --by-endpoint prints the final block the run printed, line
	// for line: the parts by endpoint, reconnects@ENDPOINT and YCSB's
	// statuses included.
	if r := stampede(t, "report", "--results-dir", dir, ids[0], "--by-endpoint"); r.code != 0 || finalBlock(r.stdout) != first {
		t.Errorf("report --by-endpoint (exit %d):\n%s\nthe run's final block:\n%s", r.code, finalBlock(r.stdout), first)
	}
	v := reportView(t, dir, ids[0])
	var byLoc = map[string]int64{}
	for _, op := range v.Localities {
		byLoc[op.Name] = op.Count
	}
	var reads int64
	for _, op := range v.Ops {
		if op.Name == "read" {
			reads = op.Count
		}
	}
	if reads == 0 || byLoc["read@region=east"]+byLoc["read@region=west"] != reads {
		t.Errorf("reads %d, by locality %v", reads, byLoc)
	}
	r := stampede(t, "report", "--results-dir", dir, ids[0], "--by-locality", "--chart", filepath.Join(t.TempDir(), "c.svg"))
	if r.code != 0 || !strings.Contains(r.stdout, "  read@region=west\n") || strings.Contains(r.stdout, "read@10.0.0.1") {
		t.Errorf("report --by-locality: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, "compare", "--results-dir", dir, ids[0], ids[1], "--by-endpoint", "--format", "json")
	if r.code != 0 {
		t.Fatalf("compare: %s", r.stderr)
	}
	var c results.Comparison
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, row := range c.Ops {
		rows[row.Name] = row.A != nil && row.B != nil && row.Throughput.NA > 0
	}
	if !rows["read@10.0.0.2:26257"] || !rows["read"] {
		t.Errorf("compare --by-endpoint rows: %v", rows)
	}
	// A run without the split says so in one line.
	if r = stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--results-dir", dir, "--telemetry=false"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r = stampede(t, "report", "--results-dir", dir, newest(), "--by-endpoint")
	if r.code != 0 || !strings.Contains(r.stdout, "no figures by endpoint: the run did not record them (run with --by-endpoint or --by-locality)") {
		t.Errorf("report --by-endpoint of a run without: %d\n%s", r.code, r.stdout)
	}
}

// TestRegionsNeedCockroach checks that `init ycsb --regions` on
// PostgreSQL says in one line that it needs CockroachDB, before creating
// anything: the database it names does not exist after the refusal, nor
// did init say it created it. init without --regions then works.
func TestRegionsNeedCockroach(t *testing.T) {
	db := freshDB(t, "regions")
	r := stampede(t, "init", "ycsb", "--record-count", "10", "--regions", "east,central,west", dbURL(t, db))
	checkOneLineError(t, r, 2, "--regions east,central,west: multi-region databases (ALTER DATABASE ... PRIMARY REGION) are CockroachDB's, and this server is postgres: needs CockroachDB")
	if n := queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname = '%s'", db)); n != 0 {
		t.Errorf("the refusal left database %s behind", db)
	}
	if r := stampede(t, "init", "ycsb", "--record-count", "10", dbURL(t, db)); r.code != 0 {
		t.Errorf("init after the refusal: %d %s", r.code, r.stderr)
	}
	r = stampede(t, "run", "ycsb", "--record-count", "10", "--regions", "east", "--max-ops", "10", "--results-dir", t.TempDir(), dbURL(t, db))
	if r.code != 0 || !strings.Contains(r.stderr, "warning: --regions only changes what `stampede init ycsb` does: run ignores it") {
		t.Errorf("run with --regions: %d %s", r.code, r.stderr)
	}
}

// TestNodeDownMidRun takes one of three endpoints down in the middle of a
// run under --tolerate-errors and brings it back: the run goes on, and
// the errors and reconnects are counted on that endpoint (its workers'
// connections were lost there, whichever node they reconnected to), in
// the run's final block and in `report --by-endpoint`; the endpoints'
// errors add up to the run's.
func TestNodeDownMidRun(t *testing.T) {
	db := freshDB(t, "middown")
	if r := stampede(t, "init", "ycsb", "--record-count", "100", dbURL(t, db)); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	px, urls, addrs := listeners(t, db, 3)
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, append([]string{"run", "ycsb", "--workload", "c", "--record-count", "100", "--duration", "6s", "--concurrency", "6",
			"--display-every", "500ms", "--by-endpoint", "--tolerate-errors", "--results-dir", dir, "--io-mode", "poller", "--telemetry=false"}, urls...)...)
	}()
	time.Sleep(1500 * time.Millisecond)
	if _, err := px.SetFaults("n1", proxy.Faults{Down: true}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if _, err := px.SetFaults("n1", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for i, a := range addrs {
		line := "  reconnects@" + a + ": "
		k := strings.Index(r.stdout, line)
		if k < 0 {
			t.Fatalf("the final block lacks %q:\n%s", line, r.stdout)
		}
		n := strings.TrimSpace(strings.SplitN(r.stdout[k+len(line):], "\n", 2)[0])
		if (i == 1) != (n != "0") {
			t.Errorf("%s%s: want reconnects on the endpoint taken down (%s) only:\n%s", line, n, addrs[1], r.stdout)
		}
	}
	v := reportView(t, dir, theRun(t, dir).Info.ID, "--by-endpoint")
	errs := map[string]int64{}
	var sum int64
	for _, op := range v.Endpoints {
		errs[op.Name] = op.Errors
		sum += op.Errors
	}
	var total int64
	for _, op := range v.Ops {
		if op.Name == "read" {
			total = op.Errors
		}
	}
	t.Logf("errors by endpoint %v, of %d; reconnects by endpoint %v", errs, total, v.EndpointReconnects)
	if errs["read@"+addrs[1]] == 0 || errs["read@"+addrs[0]] != 0 || errs["read@"+addrs[2]] != 0 || sum != total {
		t.Errorf("errors by endpoint %v, the run's %d: want them all on %s", errs, total, addrs[1])
	}
	if v.EndpointReconnects[addrs[1]] == 0 || v.Reconnects == nil || v.EndpointReconnects[addrs[1]] != *v.Reconnects {
		t.Errorf("report's reconnects by endpoint %v (total %v): want all on %s", v.EndpointReconnects, v.Reconnects, addrs[1])
	}
}
