package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	stampederun "github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// tpccClient is what TestTPCCClients reads of one client's run.
type tpccClient struct {
	dir        string
	first      int64 // home warehouses first..last
	last       int64
	newOrders  int64 // the run's newOrder count (summary.json)
	records    map[string]float64
	recordAt   map[string]time.Time
	workers    int
	out        string
	checksRan  bool
	checksFail bool
}

// TestTPCCClients runs TPC-C at 4 warehouses from two processes as two
// clients of one benchmark, with (scaled) keying and think times and
// without, split by --clients and by hand (--warehouse-range), and checks
// against the server: each client's New-Orders are its own warehouses'
// only (the orders entered during the runs, by o_w_id, are exactly each
// client's committed New-Orders); the merged report's tpmC is the clients'
// New-Orders over strictly their common measurement interval (from their
// interval logs, read here); its NOPM is the growth
// of sum(d_next_o_id) between the clients' latest start read and earliest
// end read, within the growth the test reads around the runs; the audits
// count every client's transactions; the checks run once with --clients.
// Then the merge's and the run's refusals, one line each, exit 2.
func TestTPCCClients(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 4 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_tpccclients")
	if r := stampede(t, "init", "tpcc", "--warehouses", "4", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	const sumNext = "SELECT sum(d_next_o_id) FROM district"
	var lastDir string
	parent := t
	for _, tc := range []struct {
		name string
		// args are both clients', split each client's own.
		args  []string
		split func(i int) []string
		// checksOnce: only client 0 runs the checks (--clients).
		checksOnce bool
	}{
		{"clients, waits", []string{"--wait=0.01"}, func(i int) []string { return []string{"--clients", "2", "--client-index", strconv.Itoa(i)} }, true},
		{"clients, no waits", []string{"--wait=false", "--concurrency", "4"}, func(i int) []string { return []string{"--clients", "2", "--client-index", strconv.Itoa(i)} }, true},
		{"by hand, no waits", []string{"--wait=false", "--concurrency", "4"}, func(i int) []string {
			return []string{"--warehouse-range", []string{"1:2", "3:4"}[i]}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := parent.TempDir() // kept for the refusals below
			lastDir = dir
			job := "job=" + strings.NewReplacer(",", "", " ", "-").Replace(tc.name)
			before := queryInt(t, db, sumNext)
			t0 := time.Now().UTC()
			startAt := time.Now().Add(4 * time.Second).UTC()
			cmds := make([]*exec.Cmd, 2)
			outs := make([]*bytes.Buffer, 2)
			for i := range cmds {
				outs[i] = &bytes.Buffer{}
				args := append([]string{"run", "tpcc", "--warehouses", "4", "--duration", "5s", "--start-at", startAt.Format(time.RFC3339Nano),
					"--seed", "7", "--tag", job, "--results-dir", dir, "--db", db}, tc.args...)
				cmds[i] = exec.Command(bin, append(append(args, tc.split(i)...), srv)...)
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
			t1 := time.Now().UTC()
			after := queryInt(t, db, sumNext)

			infos, err := runlog.List(dir)
			if err != nil || len(infos) != 2 {
				t.Fatalf("runs %+v %v", infos, err)
			}
			clients := make([]tpccClient, 2)
			var workers int64
			for _, info := range infos {
				r, err := runlog.Open(filepath.Join(dir, info.ID))
				if err != nil {
					t.Fatal(err)
				}
				c := tpccClient{dir: r.Dir, records: map[string]float64{}, recordAt: map[string]time.Time{}}
				var sum struct {
					Concurrency int `json:"concurrency"`
					Ops         []struct {
						Name  string `json:"name"`
						Count int64  `json:"count"`
					} `json:"ops"`
				}
				if err := json.Unmarshal(r.Summary, &sum); err != nil {
					t.Fatal(err)
				}
				for _, op := range sum.Ops {
					if op.Name == "newOrder" {
						c.newOrders = op.Count
					}
				}
				c.workers = sum.Concurrency
				if info.Flags["concurrency"] != strconv.Itoa(sum.Concurrency) {
					// report's figures (efficiency) rest on run.json's.
					t.Errorf("run %s records --concurrency %s, but ran %d workers", info.ID, info.Flags["concurrency"], sum.Concurrency)
				}
				workers += int64(sum.Concurrency)
				events, err := r.Events()
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range events {
					if e.Kind == stampederun.RecordEvent {
						c.records[e.Op], c.recordAt[e.Op] = e.Value, e.Time
					}
				}
				i := 0
				if info.Flags["client-index"] == "1" || info.Flags["warehouse-range"] == "3:4" {
					i = 1
				}
				c.first, c.last = int64(2*i+1), int64(2*i+2)
				c.out = outs[i].String()
				c.checksRan = strings.Contains(c.out, "consistency checks (--skip-checks skips them)")
				c.checksFail = strings.Contains(c.out, ": FAIL")
				clients[i] = c
			}
			var committed, newOrders, doneNO int64
			for i, c := range clients {
				if !strings.Contains(c.out, fmt.Sprintf("the terminals of warehouses %d-%d of 4", c.first, c.last)) {
					t.Errorf("client %d does not say it runs warehouses %d-%d:\n%s", i, c.first, c.last, c.out)
				}
				if want := map[bool]int{true: 20, false: 4}[tc.args[0] == "--wait=0.01"]; c.workers != want {
					t.Errorf("client %d ran %d workers, want %d (with waits, 10 terminals per home warehouse)", i, c.workers, want)
				}
				// The client's New-Orders are its own warehouses': the
				// orders entered during the runs in its range are exactly
				// those it committed (its completed New-Orders but the
				// rolled-back ones).
				done, rolled := int64(c.records["tpcc.audit.done.newOrder"]), int64(c.records["tpcc.audit.rollbacks"])
				if done != c.newOrders || done == 0 {
					t.Errorf("client %d: the audits count %d New-Orders, the run %d", i, done, c.newOrders)
				}
				got := queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM \"order\" WHERE o_w_id BETWEEN %d AND %d AND o_entry_d BETWEEN '%s' AND '%s'",
					c.first, c.last, t0.Format(time.RFC3339Nano), t1.Format(time.RFC3339Nano)))
				if got != done-rolled {
					t.Errorf("client %d: %d orders entered in warehouses %d-%d during the runs, but it committed %d (%d New-Orders, %d rolled back)",
						i, got, c.first, c.last, done-rolled, done, rolled)
				}
				committed += done - rolled
				newOrders += c.newOrders
				doneNO += done
				if want := i == 0 || !tc.checksOnce; c.checksRan != want || c.checksFail {
					t.Errorf("client %d: checks ran %v (want %v), failed %v:\n%s", i, c.checksRan, want, c.checksFail, c.out)
				}
			}
			if after-before != committed {
				t.Errorf("sum(d_next_o_id) grew by %d during the runs; the clients committed %d New-Orders", after-before, committed)
			}

			r := stampede(t, "report", "--results-dir", dir, "--tag", job, "--format", "json")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
			}
			var rep struct {
				Ops []struct {
					Name    string  `json:"name"`
					Count   int64   `json:"count"`
					Seconds float64 `json:"seconds"`
				} `json:"ops"`
				Figures map[string]float64 `json:"figures"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			var count int64
			var seconds float64
			for _, op := range rep.Ops {
				if op.Name == "newOrder" {
					count, seconds = op.Count, op.Seconds
				}
			}
			if count != newOrders {
				t.Errorf("the merge counts %d New-Orders, the clients %d", count, newOrders)
			}
			// tpmC: the clients' New-Orders over strictly their common
			// measurement interval (the latest first start to the
			// earliest last end), read here from their intervals.ndjson,
			// an interval straddling a bound counted for its share within.
			inCommon, common := commonNewOrders(t, clients)
			if seconds <= common.Seconds() || inCommon == 0 {
				t.Errorf("the clients' common interval %s is not shorter than the %gs their intervals cover together, or holds no New-Order (%d)", common, seconds, inCommon)
			}
			if tpmC, want := rep.Figures["tpmC"], float64(inCommon)/common.Minutes(); math.Abs(tpmC-want) > 1e-9*want {
				t.Errorf("merged tpmC %g, want the clients' %d New-Orders over their common interval of %s: %g (over the %gs they cover together: %g)",
					tpmC, inCommon, common, want, seconds, float64(newOrders)/seconds*60)
			}
			// NOPM: the server's growth between the latest start read
			// and the earliest end read; within the growth around the
			// runs, short of it by no more than the New-Orders the
			// clients completed outside their common interval (one
			// client runs on after the other's end read: CI, 13 of
			// them under load) and those in flight at the reads.
			var startAt0, endAt0 time.Time
			var start, end float64
			for _, c := range clients {
				if at := c.recordAt["tpcc.sum_d_next_o_id.start"]; startAt0.IsZero() || at.After(startAt0) {
					startAt0, start = at, c.records["tpcc.sum_d_next_o_id.start"]
				}
				if at := c.recordAt["tpcc.sum_d_next_o_id.end"]; endAt0.IsZero() || at.Before(endAt0) {
					endAt0, end = at, c.records["tpcc.sum_d_next_o_id.end"]
				}
			}
			n := int64(end - start)
			outside := newOrders - inCommon
			if n < 0 || n > after-before || after-before-n > workers+outside || float64(start) < float64(before) || float64(end) > float64(after) {
				t.Errorf("NOPM's reads: %g to %g (growth %d); the test read %d before and %d after the runs (%d workers, %d New-Orders outside the common interval)", start, end, n, before, after, workers, outside)
			}
			if nopm, want := rep.Figures["NOPM"], float64(n)/endAt0.Sub(startAt0).Minutes(); math.Abs(nopm-want) > 1e-6*want || n == 0 {
				t.Errorf("merged NOPM %g, want %d New-Orders in %s: %g", nopm, n, endAt0.Sub(startAt0), want)
			}
			// The audits are over every client's transactions, printed once.
			r = stampede(t, "report", "--results-dir", dir, "--tag", job)
			want := "newOrder p90 <= 5s (5.2.5.3)"
			if strings.Count(r.stdout, want) != 1 || !regexp.MustCompile(`newOrder p90 <= 5s \(5\.2\.5\.3\)\s+p90 \S+ over `+regexp.QuoteMeta(commas(doneNO))+` transactions`).MatchString(r.stdout) {
				t.Errorf("the merged audits do not count the clients' %d New-Orders:\n%s", doneNO, r.stdout)
			}
		})
	}

	// Bad input: one line each, exit 2.
	infos, err := runlog.List(lastDir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("runs %+v %v", infos, err)
	}
	for _, tc := range []struct {
		name, flag, value, want string
	}{
		{"different data flags", "warehouses", "3", "different --warehouses (\"4\" and \"3\"): they ran on different data"},
		// The same --start-at, resolved a minute apart (next:1m read on
		// either side of a minute's end): the recorded starts are
		// compared, not the flag's text.
		{"different start", "start", "+1m", "whose workers started 1m0s apart"},
	} {
		dir := t.TempDir()
		for k, info := range infos {
			src := filepath.Join(lastDir, info.ID)
			dst := filepath.Join(dir, info.ID)
			if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			if k == 1 {
				p := filepath.Join(dst, runlog.RunFile)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				if tc.flag == "start" {
					at, err := time.Parse(time.RFC3339Nano, m["start"].(string))
					if err != nil {
						t.Fatal(err)
					}
					m["start"] = at.Add(time.Minute).Format(time.RFC3339Nano)
				} else {
					m["flags"].(map[string]any)[tc.flag] = tc.value
				}
				b, _ = json.Marshal(m)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		r := stampede(t, "report", "--results-dir", dir, "--tag", "job=by-hand-no-waits")
		t.Run(tc.name, func(t *testing.T) { checkOneLineError(t, r, 2, tc.want) })
	}
	// Overlapping ranges, run by hand.
	dir := t.TempDir()
	for _, rng := range []string{"1:3", "3:4"} {
		if r := stampede(t, "run", "tpcc", "--warehouses", "4", "--warehouse-range", rng, "--wait=false", "--concurrency", "2", "--duration", "1s",
			"--skip-checks", "--tag", "job=overlap", "--results-dir", dir, "--db", db, srv); r.code != 0 {
			t.Fatalf("run --warehouse-range %s: %s", rng, r.stderr)
		}
	}
	r := stampede(t, "report", "--results-dir", dir, "--tag", "job=overlap")
	t.Run("overlapping ranges", func(t *testing.T) {
		checkOneLineError(t, r, 2, "ran the terminals of the same warehouses")
	})
	// Two whole runs (neither a client) still merge as before, with
	// their figures.
	dir = t.TempDir()
	for range 2 {
		if r := stampede(t, "run", "tpcc", "--warehouses", "4", "--wait=false", "--concurrency", "2", "--duration", "1s",
			"--skip-checks", "--tag", "job=whole", "--results-dir", dir, "--db", db, srv); r.code != 0 {
			t.Fatalf("run: %s", r.stderr)
		}
	}
	if r := stampede(t, "report", "--results-dir", dir, "--tag", "job=whole"); r.code != 0 || !strings.Contains(r.stdout, "tpmC: ") || strings.Contains(r.stdout, "NOPM") {
		t.Errorf("report of two whole runs: exit %d, want tpmC and no NOPM (each run read its own)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"range past the load", []string{"--warehouses", "4", "--warehouse-range", "4:5"}, "--warehouse-range 4:5 goes past warehouse 4, the last of --warehouses 4"},
		{"range past a load given no --warehouses", []string{"--warehouse-range", "3:5"}, "--warehouse-range 3:5 goes past warehouse 4, the last of the 4 warehouses that init loaded (tpcc_meta): give a range within 1:4"},
		{"empty range", []string{"--warehouses", "4", "--warehouse-range", "3:2"}, "--warehouse-range 3:2 holds no warehouse"},
		{"not a range", []string{"--warehouses", "4", "--warehouse-range", "3-4"}, "is not A:B"},
		{"range and clients", []string{"--warehouses", "4", "--warehouse-range", "1:2", "--clients", "2", "--client-index", "0"}, "give one or the other"},
		{"more clients than warehouses", []string{"--warehouses", "4", "--clients", "5", "--client-index", "4"}, "use --clients 4 or fewer"},
		{"more warehouses than loaded", []string{"--warehouses", "6", "--warehouse-range", "5:6"}, "holds 4 warehouses, not --warehouses 6"},
		{"fewer warehouses than loaded", []string{"--warehouses", "2"}, "holds 4 warehouses, not --warehouses 2: give --warehouses 4, or reload with `stampede init tpcc --drop --warehouses 2"},
	} {
		r := stampede(t, append(append([]string{"run", "tpcc", "--duration", "1s", "--results-dir", t.TempDir(), "--db", db}, tc.args...), srv)...)
		t.Run(tc.name, func(t *testing.T) { checkOneLineError(t, r, 2, tc.want) })
	}
	// Given no --warehouses, a run takes the 4 init loaded (the
	// checker of issue 28, F2.1: it blamed a "--warehouses 1" nobody
	// typed), with their 40 terminals, as check checks them; a client's
	// share is taken from them too.
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"a whole run", nil, []string{"40 workers", "tpcc: 40 terminals (10 per warehouse)", "tpcc: the 4 warehouses that init loaded (tpcc_meta), as --warehouses was not given"}},
		{"a client's share", []string{"--clients", "2", "--client-index", "1"}, []string{"20 workers", "tpcc: the 4 warehouses that init loaded"}},
		// (chk31 1c: refused against the default "--warehouses 1".)
		{"a range within the load", []string{"--warehouse-range", "3:4"}, []string{"20 workers", "tpcc: the 4 warehouses that init loaded", "--warehouse-range 3:4: the terminals of warehouses 3-4 of 4"}},
	} {
		t.Run("no --warehouses: "+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := stampede(t, append(append([]string{"run", "tpcc", "--duration", "1s", "--skip-checks", "--results-dir", dir, "--db", db}, tc.args...), srv)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			runs, _ := filepath.Glob(filepath.Join(dir, "*-tpcc-*", "run.json"))
			if len(runs) != 1 {
				t.Fatalf("runs %v", runs)
			}
			if b, _ := os.ReadFile(runs[0]); !strings.Contains(string(b), `"warehouses": "4"`) {
				t.Errorf("run.json does not record --warehouses 4:\n%s", b)
			}
		})
	}
}

// commonNewOrders returns the New-Orders of the clients' runs over their
// common measurement interval, from the latest of their first intervals'
// starts to the earliest of their last intervals' ends (the runs have no
// ramp-up), and its length: each interval's count, or for an interval
// straddling a bound its share within, added up and rounded, read from
// the runs' intervals.ndjson.
func commonNewOrders(t *testing.T, clients []tpccClient) (int64, time.Duration) {
	t.Helper()
	type line struct {
		Start, End time.Time
		Series     map[string]struct{ Count int64 }
	}
	runs := make([][]line, len(clients))
	var from, to time.Time
	for i, c := range clients {
		b, err := os.ReadFile(filepath.Join(c.dir, runlog.IntervalsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var x line
			if err := json.Unmarshal([]byte(l), &x); err != nil {
				t.Fatal(err)
			}
			runs[i] = append(runs[i], x)
		}
		first, last := runs[i][0].Start, runs[i][len(runs[i])-1].End
		if i == 0 || first.After(from) {
			from = first
		}
		if i == 0 || last.Before(to) {
			to = last
		}
	}
	var sum float64
	for _, ls := range runs {
		for _, l := range ls {
			lo, hi := l.Start, l.End
			if lo.Before(from) {
				lo = from
			}
			if hi.After(to) {
				hi = to
			}
			if hi.After(lo) {
				sum += float64(l.Series["newOrder"].Count) * float64(hi.Sub(lo)) / float64(l.End.Sub(l.Start))
			}
		}
	}
	return int64(math.Round(sum)), to.Sub(from)
}

// commas writes n with thousands separators, as the audits do.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestGenK8sTPCC: gen k8s writes the Job of TPC-C's clients, each client's
// command line checked as run checks it; more clients than warehouses
// are refused in one line.
func TestGenK8sTPCC(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tpcc.yaml")
	r := stampede(t, "gen", "k8s", "--clients", "4", "--image", "img", "-o", out, "--", "run", "tpcc", "--warehouses", "8", "--ramp", "1m", "--duration", "10m", "postgresql://bench@db/tpcc")
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+out) {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "tpcc") || !strings.Contains(string(b), "--client-index") {
		t.Errorf("manifest: %v\n%s", err, b)
	}
	r = stampede(t, "gen", "k8s", "--clients", "9", "--image", "img", "-o", out+"2", "--", "run", "tpcc", "--warehouses", "8", "postgresql://bench@db/tpcc")
	checkOneLineError(t, r, 2, "--clients 9 with 8 warehouses: each client runs the terminals of warehouses of its own; use --clients 8 or fewer")
}
