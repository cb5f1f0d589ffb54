package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	stampederun "github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// TestTPCCClientKilled runs two TPC-C clients of one benchmark at 2
// warehouses, into a directory and a results store, and kills client 1
// with SIGKILL mid-run: its run log then holds no sum(d_next_o_id) reads
// and no audit counters (a client records them at its end). The merged
// report, from the directory and from the store alone, prints tpmC over
// the clients' common measurement interval and no NOPM, with one line
// naming the killed client (once NOPM came from the survivor's reads
// alone, over another time than tpmC); and the audits over client 0's
// transactions, after a line naming the killed client (once no audits
// and no word).
func TestTPCCClientKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 2 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_kill31d")
	if r := stampede(t, "init", "tpcc", "--warehouses", "2", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	st := storeDB(t)
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	bin := buildStampede(t)
	dir := t.TempDir()
	startAt := time.Now().Add(4 * time.Second)
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*bytes.Buffer, 2)
	for i := range cmds {
		outs[i] = &bytes.Buffer{}
		cmds[i] = exec.Command(bin, "run", "tpcc", "--warehouses", "2", "--clients", "2", "--client-index", strconv.Itoa(i),
			"--wait=false", "--concurrency", "2", "--duration", "8s", "--start-at", startAt.UTC().Format(time.RFC3339Nano), "--skip-checks",
			"--tag", "job=killed", "--results-dir", dir, "--results-url", st, "--db", db, srv)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Until(startAt.Add(3 * time.Second)))
	if err := cmds[1].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmds[1].Wait()
	if err := cmds[0].Wait(); err != nil {
		t.Fatalf("client 0: %v\n%s", err, outs[0])
	}

	infos, err := runlog.List(dir)
	if err != nil || len(infos) != 2 {
		t.Fatalf("runs %+v %v", infos, err)
	}
	var killed string
	var survivorNewOrders int64
	for _, info := range infos {
		r, err := runlog.Open(filepath.Join(dir, info.ID))
		if err != nil {
			t.Fatal(err)
		}
		events, _ := r.Events()
		recorded := map[string]float64{}
		for _, e := range events {
			if e.Kind == stampederun.RecordEvent {
				recorded[e.Op] = e.Value
			}
		}
		switch info.Flags["client-index"] {
		case "1":
			killed = info.ID
			if info.Status != runlog.StatusKilled || len(recorded) != 0 {
				t.Fatalf("client 1: status %s, %d records; want killed, none", info.Status, len(recorded))
			}
		default:
			survivorNewOrders = int64(recorded["tpcc.audit.done.newOrder"])
			if survivorNewOrders == 0 || recorded["tpcc.sum_d_next_o_id.end"] == 0 {
				t.Fatalf("client 0 recorded %v", recorded)
			}
		}
	}
	for _, from := range []struct {
		name string
		args []string
	}{
		{"directory", []string{"--results-dir", dir, "--results-url", ""}},
		{"store", []string{"--results-dir", "none", "--results-url", st}},
	} {
		t.Run(from.name, func(t *testing.T) {
			r := stampede(t, append([]string{"report", "--tag", "job=killed"}, from.args...)...)
			if r.code != 0 {
				t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
			}
			if !regexp.MustCompile(`(?m)^  tpmC: [0-9.]+ \(.* New-Orders in the [0-9.]+(?:ms|s|m[0-9.]+s) of their common measurement interval\)$`).MatchString(r.stdout) {
				t.Errorf("no tpmC over the common interval:\n%s", r.stdout)
			}
			if regexp.MustCompile(`(?m)^  NOPM: `).MatchString(r.stdout) {
				t.Errorf("a NOPM without the killed client's reads:\n%s", r.stdout)
			}
			// The store may still list the killed run as running, until
			// its beat is stale: either reason names it.
			noNOPM := regexp.MustCompile(`(?m)^  TPM: .*; no NOPM: run ` + killed + ` \(client 1 of 2\) recorded no sum\(d_next_o_id\) reads: (killed|still running, or killed) .*; NOPM needs the start and end reads of every client\)$`)
			if !noNOPM.MatchString(r.stdout) {
				t.Errorf("no line naming the killed client as why there is no NOPM:\n%s", r.stdout)
			}
			audits := block(r.stdout, "audits:")
			left := regexp.MustCompile(`(?m)^  SKIP  clients audited\s+1 of 2: run ` + killed + ` \(client 1 of 2\) recorded no audit counters: (killed|still running, or killed) .*the audits below count the transactions of the 1 client that recorded them`)
			if !left.MatchString(audits) {
				t.Errorf("the audits do not name the killed client:\n%s", r.stdout)
			}
			// The audits count the survivor's New-Orders, as it recorded them.
			if want := "newOrder p90 <= 5s (5.2.5.3)"; !regexp.MustCompile(regexp.QuoteMeta(want) + `\s+p90 \S+ over ` + regexp.QuoteMeta(commas(survivorNewOrders)) + ` transactions`).MatchString(audits) {
				t.Errorf("the audits do not count client 0's %d New-Orders:\n%s", survivorNewOrders, audits)
			}
		})
	}
}

// TestTPCCClientsApart runs two TPC-C clients of one benchmark one after
// the other, so that their measured periods do not overlap. Given no
// --start-at, the merge prints no tpmC, TPM, NOPM or efficiency (once
// tpmC "over their common measurement interval" over the union of their
// periods) and one line that says why, naming both periods. Given the
// same relative --start-at (next:5s), resolved 5 s or more apart, the
// merge is refused in one line naming both start times (once the flag's
// text, the same on both, let them through).
func TestTPCCClientsApart(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 2 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_apart31d")
	if r := stampede(t, "init", "tpcc", "--warehouses", "2", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"no --start-at", nil},
		{"next:5s", []string{"--start-at", "next:5s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i := range 2 {
				args := append([]string{"run", "tpcc", "--warehouses", "2", "--clients", "2", "--client-index", strconv.Itoa(i),
					"--wait=false", "--concurrency", "2", "--duration", "2s", "--skip-checks", "--tag", "job=apart", "--results-dir", dir, "--db", db}, tc.extra...)
				if r := stampede(t, append(args, srv)...); r.code != 0 {
					t.Fatalf("client %d: exit %d\n%s", i, r.code, r.stderr)
				}
			}
			infos, err := runlog.List(dir)
			if err != nil || len(infos) != 2 {
				t.Fatalf("runs %+v %v", infos, err)
			}
			r := stampede(t, "report", "--results-dir", dir, "--tag", "job=apart")
			if tc.extra != nil {
				first, last := infos[0], infos[1]
				if last.Start.Before(first.Start) {
					first, last = last, first
				}
				const layout = "2006-01-02T15:04:05.000Z07:00"
				checkOneLineError(t, r, 2, fmt.Sprintf("runs %s and %s are clients of one benchmark whose workers started %s apart, at %s (--start-at next:5s) and %s (--start-at next:5s)",
					first.ID, last.ID, last.Start.Sub(first.Start).Round(100*time.Millisecond), first.Start.UTC().Format(layout), last.Start.UTC().Format(layout)))
				return
			}
			if r.code != 0 {
				t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
			}
			for _, figure := range []string{"\n  tpmC: ", "\n  TPM: ", "\n  NOPM: ", "\n  efficiency: ", "of their common measurement interval"} {
				if strings.Contains(r.stdout, figure) {
					t.Errorf("the merge of clients that never ran together prints %q:\n%s", figure, r.stdout)
				}
			}
			line := regexp.MustCompile(`(?m)^  tpcc figures: none merged: the clients' measured periods do not overlap \(run (\S+) from (\S+) to (\S+), run (\S+) from (\S+) to (\S+)\), so they have no common measurement interval to count them over; a benchmark's clients must start together: give every client the same --start-at, one absolute time`)
			m := line.FindStringSubmatch(r.stdout)
			if m == nil {
				t.Fatalf("no line saying why there are no figures:\n%s", r.stdout)
			}
			// The periods named are the runs' and do not overlap.
			ends := map[string][2]time.Time{}
			for _, k := range []int{1, 4} {
				from, err1 := time.Parse(time.RFC3339Nano, m[k+1])
				to, err2 := time.Parse(time.RFC3339Nano, m[k+2])
				if err1 != nil || err2 != nil || !to.After(from) {
					t.Fatalf("period %s to %s: %v %v", m[k+1], m[k+2], err1, err2)
				}
				ends[m[k]] = [2]time.Time{from, to}
			}
			a, b := ends[infos[0].ID], ends[infos[1].ID]
			if a[0].IsZero() || b[0].IsZero() || (a[0].Before(b[1]) && b[0].Before(a[1])) {
				t.Errorf("the periods named %v are not the two runs' or overlap", ends)
			}
			j := stampede(t, "report", "--results-dir", dir, "--tag", "job=apart", "--format", "json")
			var doc struct {
				Figures map[string]float64 `json:"figures"`
				Note    string             `json:"figures_note"`
			}
			if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil || j.code != 0 {
				t.Fatalf("report --format json: %v %d %s", err, j.code, j.stderr)
			}
			if len(doc.Figures) != 0 || !strings.HasPrefix(doc.Note, "tpcc figures: none merged: the clients' measured periods do not overlap") {
				t.Errorf("JSON figures %v, note %q", doc.Figures, doc.Note)
			}
		})
	}
}
