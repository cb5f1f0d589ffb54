package cli_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestClientsMerge runs YCSB's workload D from two processes as two
// clients of one benchmark: each runs half the rate from a common start,
// inserts its own keys (no duplicate key), and `report` merges the two
// runs into the benchmark's figures, as a histogram merged directly from
// both run logs says.
func TestClientsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_clients")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=2000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	dir := t.TempDir()
	startAt := time.Now().Add(4 * time.Second).UTC()
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*bytes.Buffer, 2)
	for i := range cmds {
		outs[i] = &bytes.Buffer{}
		// No recordcount: each client's share is of the 2000 keys init
		// recorded, not of the default 10000.
		cmds[i] = exec.Command(bin, "run", "ycsb", "--workload", "d", "--clients", "2", "--client-index", string(rune('0'+i)),
			"--max-rate", "400", "--concurrency", "2", "--duration", "2s", "--start-at", startAt.Format(time.RFC3339Nano), "--seed", "7",
			"--tag", "job=merge", "--results-dir", dir, "--db", db, "--format", "json", srv)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("client %d: %v\n%s", i, err, outs[i])
		}
		if !strings.Contains(outs[i].String(), "waiting ") {
			t.Errorf("client %d did not say it waited for the start:\n%s", i, outs[i])
		}
		if strings.Contains(outs[i].String(), "insertstart") {
			t.Errorf("client %d speaks of insertstart, which --clients sets:\n%s", i, outs[i])
		}
	}
	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	type summary struct {
		MaxRate float64 `json:"max_rate"`
		Seed    uint64  `json:"seed"`
		Ops     []struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
		} `json:"ops"`
		Total struct {
			Count  int64   `json:"count"`
			Errors int64   `json:"errors"`
			P99    float64 `json:"p99_ms"`
		} `json:"total"`
	}
	merged := stats.NewHistogram()
	var total, inserts int64
	var firsts []time.Time
	var seeds []uint64
	var refs []string
	for _, info := range runs {
		run, err := runlog.Open(filepath.Join(dir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		var sum summary
		if err := json.Unmarshal(run.Summary, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.MaxRate != 200 || sum.Total.Errors != 0 || sum.Total.Count < 300 {
			t.Errorf("client %s: max_rate %g, %d operations, %d errors; want half the rate, no error", info.Tags["client"], sum.MaxRate, sum.Total.Count, sum.Total.Errors)
		}
		if info.Tags["job"] != "merge" || (info.Tags["client"] != "0/2" && info.Tags["client"] != "1/2") {
			t.Errorf("tags %v", info.Tags)
		}
		total += sum.Total.Count
		seeds = append(seeds, sum.Seed)
		for _, op := range sum.Ops {
			if op.Name == "insert" {
				inserts += op.Count
			}
		}
		ivs, err := run.Intervals()
		if err != nil || len(ivs) == 0 {
			t.Fatalf("intervals: %v", err)
		}
		firsts = append(firsts, ivs[0].Start)
		for _, iv := range ivs {
			for _, name := range []string{"read", "insert"} {
				if s := iv.Series[name]; s != nil {
					s.MergeInto(merged)
				}
			}
		}
		refs = append(refs, info.ID)
	}
	if seeds[0] == seeds[1] {
		t.Errorf("both clients ran seed %d", seeds[0])
	}
	// A common start: both clients' first intervals start there, not
	// when they were launched (before it: d < 0). The bound above allows
	// for a process descheduled on a busy 2-CPU machine (224 ms once,
	// with go test running packages side by side).
	for i, f := range firsts {
		if d := f.Sub(startAt); d < 0 || d > time.Second {
			t.Errorf("client %d's first interval starts %v after --start-at", i, d)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 2000+inserts || inserts == 0 {
		t.Errorf("%d rows after %d inserts into 2000: the clients' keys collided", n, inserts)
	}
	// The job's tag selects the same runs as their ids.
	if byTag := stampede(t, "report", "--results-dir", dir, "--format", "json", "--tag", "job=merge"); byTag.stdout != stampede(t, append([]string{"report", "--results-dir", dir, "--format", "json"}, refs...)...).stdout {
		t.Errorf("report --tag job=merge differs from report of the two runs:\n%s%s", byTag.stdout, byTag.stderr)
	}
	r := stampede(t, append([]string{"report", "--results-dir", dir, "--format", "json"}, refs...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("report: exit %d, %s", r.code, r.stderr)
	}
	var rep struct {
		Total struct {
			Count   int64   `json:"count"`
			P99     float64 `json:"p99_ms"`
			Seconds float64 `json:"seconds"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := stats.Summarize(merged, 0, time.Second)
	if rep.Total.Count != total || merged.TotalCount() != total || rep.Total.P99 != want.P99 {
		t.Errorf("report merges %d operations, p99 %g ms; the clients did %d, their logs merged hold %d, p99 %g ms",
			rep.Total.Count, rep.Total.P99, total, merged.TotalCount(), want.P99)
	}
	// Lined up, they cover the 2 s; a start a second apart (a
	// rounding of --start-at) would be 3 s. At load 8 one client's
	// timer woke late: 2.46 s.
	if rep.Total.Seconds > 2.6 {
		t.Errorf("the merged runs cover %.2fs: their intervals do not line up", rep.Total.Seconds)
	}

	// A single client after them: when its inserts would continue into
	// the clients' stripes, or its reads draw near the last insert, it
	// says so, with advice for stripes of --clients and of insertstart
	// and insertcount alike; a run that inserts nothing and reads among
	// the loaded keys does not meet them and says nothing.
	const stripes = "are not in sequence: clients that each loaded a share of the keys (YCSB's insertstart and insertcount, which --clients sets) inserted them in stripes"
	for _, tc := range []struct {
		name           string
		args           []string
		inserts, reads bool
	}{
		{"reads uniformly", []string{"--workload", "c", "-p", "requestdistribution=uniform"}, false, false},
		{"reads and updates, zipfian", []string{"--workload", "b"}, false, false},
		{"inserts, uniform reads", []string{"--workload", "d", "-p", "requestdistribution=uniform"}, true, false},
		{"reads the latest", []string{"--workload", "c", "-p", "requestdistribution=latest"}, false, true},
		{"inserts, reads the latest", []string{"--workload", "d"}, true, true},
	} {
		// Each case starts from the clients' stripes: an insert of an
		// earlier case would continue the sequence and hide them.
		execIn(t, db, "CREATE TABLE IF NOT EXISTS stripes_keys AS SELECT ycsb_key FROM usertable",
			"DELETE FROM usertable WHERE ycsb_key NOT IN (SELECT ycsb_key FROM stripes_keys)")
		r = stampede(t, append(append([]string{"run", "ycsb"}, tc.args...), "--max-ops", "10", "--db", db, "--results-dir", dir, srv)...)
		if r.code != 0 {
			t.Errorf("%s: exit %d\n%s", tc.name, r.code, r.stderr)
			continue
		}
		warned := strings.Contains(r.stderr, stripes)
		if warned != (tc.inserts || tc.reads) ||
			strings.Contains(r.stderr, "this run's inserts may meet existing keys") != tc.inserts ||
			strings.Contains(r.stderr, "may draw keys never inserted") != tc.reads ||
			(warned && !strings.Contains(r.stderr, "with the --clients and a --client-index of theirs, or with one share's insertstart and insertcount")) {
			t.Errorf("%s after the clients (inserts %v, reads past the load %v):\n%s", tc.name, tc.inserts, tc.reads, r.stderr)
		}
	}
}

// TestDryRun checks a command line as run does, runs nothing and saves
// nothing; a client's part is checked too.
func TestDryRun(t *testing.T) {
	dir := t.TempDir()
	r := stampede(t, "run", "ycsb", "--driver", "null", "--clients", "4", "--client-index", "3", "--max-rate", "1000", "--dry-run", "--results-dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "dry run: ycsb, 8 workers, 1000 ops/s in all, client 3 of 4") {
		t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if runs, _ := runlog.List(dir); len(runs) != 0 {
		t.Errorf("a dry run saved %d runs", len(runs))
	}
	r = stampede(t, "run", "ycsb", "--driver", "null", "--clients", "2", "--client-index", "0", "-p", "insertstart=5", "--dry-run", "--results-dir", dir)
	checkOneLineError(t, r, 2, "--clients gives each client its own keys, as insertstart does: drop insertstart (from -p)")
}
