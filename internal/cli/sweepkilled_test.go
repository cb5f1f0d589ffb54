package cli_test

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepKilledDashboard (issue 34 F2): a sweep killed with SIGKILL
// during its second step, read by `stampede serve`: /api/sweeps/ID shows
// the killed step with the figures `stampede report` gives its run (up
// to its last complete interval) and its workers, not zeros; and the
// conclusion says the sweep was killed at step 2 and what it holds.
func TestSweepKilledDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweepkilled")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	root := t.TempDir()
	cmd := exec.Command(bin, "sweep", "ycsb", "-p", "recordcount=1000", "--workload", "b", "--concurrency", "1,2,4", "--duration", "4s",
		"--display-every", "250ms", "--db", db, "--results-dir", root, srv)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGKILL once the second step has a few complete intervals.
	deadline := time.Now().Add(2 * time.Minute)
	for ; time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if runs, _ := runlog.List(root); len(runs) == 2 && time.Since(runs[1].Start) > 1500*time.Millisecond {
			break
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 2 || runs[1].Status != runlog.StatusKilled {
		t.Fatalf("runs %+v %v: want step 1 completed and step 2 killed", runs, err)
	}
	killed := runs[1]
	r := stampede(t, "report", "--results-dir", root, "--format", "json", killed.ID)
	if r.code != 0 {
		t.Fatalf("report %s: %s", killed.ID, r.stderr)
	}
	var rep struct {
		Total struct {
			Count int64   `json:"count"`
			Rate  float64 `json:"ops_per_sec"`
			P99   float64 `json:"p99_ms"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Total.Count == 0 {
		t.Fatalf("report %s: %v %s", killed.ID, err, r.stdout)
	}

	url, errb, stop := startServe(t, "--listen", "127.0.0.1:0", "--results-dir", root)
	defer func() {
		if code := stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	}()
	resp, err := http.Get(url + "api/sweeps/" + killed.Tags["sweep"])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Conclusion string `json:"conclusion"`
		Steps      []struct {
			Step    int    `json:"step"`
			Status  string `json:"status"`
			Workers int    `json:"workers"`
			Run     string `json:"run"`
			Total   struct {
				Count int64   `json:"count"`
				Rate  float64 `json:"ops_per_sec"`
				P99   float64 `json:"p99_ms"`
			} `json:"total"`
		} `json:"steps"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/sweeps: %d %v", resp.StatusCode, err)
	}
	if len(doc.Steps) != 2 {
		t.Fatalf("%d steps, want 2: %+v", len(doc.Steps), doc.Steps)
	}
	st := doc.Steps[1]
	if st.Run != killed.ID || st.Status != "killed" || st.Workers != 2 {
		t.Errorf("step 2: %+v, want run %s killed with 2 workers", st, killed.ID)
	}
	if st.Total.Count != rep.Total.Count || st.Total.Rate != rep.Total.Rate || st.Total.P99 != rep.Total.P99 {
		t.Errorf("step 2's figures %+v, report's %+v", st.Total, rep.Total)
	}
	want := "killed at step 2 (kill -9 or a crash): the sweep did not finish; what it found is partial: it holds 1 completed step, and step 2's figures up to its last complete interval, not counted"
	if !strings.Contains(doc.Conclusion, want) || !strings.Contains(doc.Conclusion, "at --concurrency 1 (step 1)") {
		t.Errorf("conclusion %q, want the peak of step 1 and %q", doc.Conclusion, want)
	}
}
