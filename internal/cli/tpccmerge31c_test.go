package cli_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestTPCCMergeNOPM runs TPC-C clients of one benchmark (3 warehouses,
// no waits) and checks the merged NOPM counts the New-Orders of the
// reported clients' warehouses only, on each database they ran on: two
// clients on two databases (the merge once subtracted one server's start
// read from the other's end read: a negative NOPM), and two of three
// clients reported (once the growth over every warehouse, the missing
// client's too). Then clients with different --wait: the merge is
// refused, naming --wait (once the figures silently vanished).
func TestTPCCMergeNOPM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 2 × 3 warehouses")
	}
	srv := testServer(t)
	dbA, dbB := freshDB(t, "stampede_merge31a"), freshDB(t, "stampede_merge31b")
	for _, db := range []string{dbA, dbB} {
		if r := stampede(t, "init", "tpcc", "--warehouses", "3", "--db", db, srv); r.code != 0 {
			t.Fatalf("init: %s", r.stderr)
		}
	}
	bin := buildStampede(t)
	dir := t.TempDir()
	// clients runs n clients at once, client i on dbs[i] with extra[i],
	// and returns their run IDs by client index.
	clients := func(job string, n int, dbs []string, extra func(i int) []string) []string {
		startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
		cmds := make([]*exec.Cmd, n)
		outs := make([]*bytes.Buffer, n)
		for i := range cmds {
			outs[i] = &bytes.Buffer{}
			args := []string{"run", "tpcc", "--warehouses", "3", "--duration", "3s", "--start-at", startAt, "--concurrency", "2",
				"--clients", strconv.Itoa(n), "--client-index", strconv.Itoa(i), "--skip-checks", "--seed", "7",
				"--tag", "job=" + job, "--results-dir", dir, "--db", dbs[i]}
			args = append(append(args, extra(i)...), srv)
			cmds[i] = exec.Command(bin, args...)
			cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("%s client %d: %v\n%s", job, i, err, outs[i])
			}
		}
		ids := make([]string, n)
		infos, err := runlog.List(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if info.Tags["job"] == job {
				i, _ := strconv.Atoi(info.Flags["client-index"])
				ids[i] = info.ID
			}
		}
		return ids
	}
	// homeRate is the growth of a run's home warehouses' sum(d_next_o_id)
	// per minute of its measurement interval, from its records.
	homeRate := func(id string) (growth int64, rate float64) {
		r, err := runlog.Open(filepath.Join(dir, id))
		if err != nil {
			t.Fatal(err)
		}
		events, err := r.Events()
		if err != nil {
			t.Fatal(err)
		}
		var start, end float64
		var startAt, endAt time.Time
		for _, e := range events {
			switch e.Op {
			case "tpcc.sum_d_next_o_id.home.start":
				start, startAt = e.Value, e.Time
			case "tpcc.sum_d_next_o_id.home.end":
				end, endAt = e.Value, e.Time
			}
		}
		if startAt.IsZero() || endAt.IsZero() {
			t.Fatalf("run %s recorded no reads over its own warehouses", id)
		}
		return int64(end - start), (end - start) / endAt.Sub(startAt).Minutes()
	}
	nopmOf := func(args ...string) float64 {
		t.Helper()
		r := stampede(t, append([]string{"report", "--results-dir", dir, "--format", "json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("report %v: exit %d\n%s", args, r.code, r.stderr)
		}
		var rep struct {
			Figures map[string]float64 `json:"figures"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		nopm, ok := rep.Figures["NOPM"]
		if !ok {
			t.Fatalf("report %v: no NOPM\n%s", args, r.stdout)
		}
		return nopm
	}

	t.Run("two databases", func(t *testing.T) {
		ids := clients("twodb", 2, []string{dbA, dbB}, func(int) []string { return []string{"--wait=false"} })
		var want float64
		var growth int64
		for _, id := range ids {
			n, rate := homeRate(id)
			growth += n
			want += rate
		}
		nopm := nopmOf("--tag", "job=twodb")
		if growth <= 0 || nopm <= 0 || math.Abs(nopm-want) > 1e-6*want {
			t.Errorf("NOPM of clients on two databases %g, want %g (%d New-Orders, each database's own growth)", nopm, want, growth)
		}
		r := stampede(t, "report", "--results-dir", dir, "--tag", "job=twodb")
		if !strings.Contains(r.stdout, "over each client's own warehouses, on their 2 databases") {
			t.Errorf("report text does not say how NOPM was read:\n%s", r.stdout)
		}
	})

	t.Run("a client missing", func(t *testing.T) {
		before := queryInt(t, dbA, "SELECT sum(d_next_o_id) FROM district WHERE d_w_id = 3")
		ids := clients("three", 3, []string{dbA, dbA, dbA}, func(int) []string { return []string{"--wait=false"} })
		after := queryInt(t, dbA, "SELECT sum(d_next_o_id) FROM district WHERE d_w_id = 3")
		if after == before {
			t.Fatal("client 2 placed no order: the test proves nothing")
		}
		var want float64
		for _, id := range ids[:2] {
			_, rate := homeRate(id)
			want += rate
		}
		nopm := nopmOf(ids[0], ids[1])
		if nopm <= 0 || math.Abs(nopm-want) > 1e-6*want {
			t.Errorf("NOPM of clients 0 and 1 of 3: %g, want %g (their warehouses' growth only)", nopm, want)
		}
		// All three: the server's growth over every warehouse, once.
		if all := nopmOf("--tag", "job=three"); all <= nopm {
			t.Errorf("NOPM of all 3 clients %g, of 2 of them %g", all, nopm)
		}
	})

	t.Run("different wait", func(t *testing.T) {
		clients("wait", 2, []string{dbA, dbA}, func(i int) []string { return []string{[]string{"--wait=0.01", "--wait=false"}[i]} })
		r := stampede(t, "report", "--results-dir", dir, "--tag", "job=wait")
		checkOneLineError(t, r, 2, "with different --wait")
	})
}

// TestHammerDBMergeOnce runs two --profile hammerdb clients of one
// benchmark together on one database, as the README's two-client
// example does when both nodes' scripts name one database: each client's
// NOPM and TPM is the whole server's, so the merge counts them once,
// between the clients' latest start read and earliest end read (it once
// added them up: twice the server's).
func TestHammerDBMergeOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_hdbonce31")
	if r := stampede(t, "init", "tpcc", "--profile", "hammerdb", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	dir := t.TempDir()
	startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*bytes.Buffer, 2)
	for i := range cmds {
		outs[i] = &bytes.Buffer{}
		cmds[i] = exec.Command(bin, "run", "tpcc", "--profile", "hammerdb", "--concurrency", "2", "--duration", "3s", "--skip-checks",
			"--start-at", startAt, "--clients", "2", "--client-index", strconv.Itoa(i), "--tag", "job=two", "--results-dir", dir, "--db", db, srv)
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
	if err != nil || len(infos) != 2 {
		t.Fatalf("runs %v %v", infos, err)
	}
	var sum float64
	var startV, endV float64
	var startT, endT time.Time
	for _, info := range infos {
		sum += summaryFigures(t, filepath.Join(dir, info.ID))["hammerdb_nopm"]
		r, err := runlog.Open(filepath.Join(dir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		events, err := r.Events()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			switch {
			case e.Op == "hammerdb.sum_d_next_o_id.start" && (startT.IsZero() || e.Time.After(startT)):
				startT, startV = e.Time, e.Value
			case e.Op == "hammerdb.sum_d_next_o_id.end" && (endT.IsZero() || e.Time.Before(endT)):
				endT, endV = e.Time, e.Value
			}
		}
	}
	if startT.IsZero() || !endT.After(startT) || endV <= startV {
		t.Fatalf("no common interval of reads: %v %g, %v %g", startT, startV, endT, endV)
	}
	want := (endV - startV) / endT.Sub(startT).Minutes()
	r := stampede(t, "report", "--results-dir", dir, "--tag", "job=two", "--format", "json")
	var rep struct {
		Figures map[string]float64 `json:"figures"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
		t.Fatalf("report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := rep.Figures["hammerdb_nopm"]; math.Abs(got-want) > 1e-6*want || got > 0.75*sum {
		t.Errorf("merged HammerDB NOPM %g, want %g, the database's growth once (the clients' figures add up to %g)", got, want, sum)
	}
	r = stampede(t, "report", "--results-dir", dir, "--tag", "job=two")
	if !strings.Contains(r.stdout, "each server's and each database's figures counted once") {
		t.Errorf("report does not say the server's figures are counted once:\n%s", r.stdout)
	}
}
