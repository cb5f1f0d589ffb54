package cli_test

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/telemetry"
)

// TestSweepCPULimitBound sweeps the server's CPU limit under a CPU-heavy
// load (range selects of 1,000 rows, 8 workers) over --cpus 0.5 and the
// machine's every CPU, which a server sharing the machine with its client
// can never use 90% of: each step's run records its cgroup's throttling
// and the server's CPU (the watched cores, as the telemetry says); the
// high step is never throttled and says "limit never bound", in NDJSON
// and in the CSV's note column; the 0.5 step says so exactly when it was
// neither near its limit nor throttled in more than 5% of its periods (a
// busy host may give it less than its limit; "limit did not bind" when a
// few were), and the conclusion says the answer is the machine's exactly
// when the answer's step did not bind.
func TestSweepCPULimitBound(t *testing.T) {
	requireLimitV1(t)
	n := runtime.NumCPU()
	if n < 2 {
		t.Skip("needs 2 CPUs: a limit of the machine's every CPU must be out of a server's reach while its client runs beside it")
	}
	srv := ownServer(t)
	url := srv.URL("sbtest")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "1", "--table_size", "10000", url); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	pid := strconv.Itoa(postmasterPID(t, srv))
	all := strconv.Itoa(n)
	args := []string{"sweep", "oltp_read_only", "--tables", "1", "--table_size", "10000", "--range_size", "1000", "--cpus", "0.5," + all,
		"--watch-pid", pid, "--concurrency", "8", "--duration", "4s", "--slo", "p99<=60s", "--results-dir", t.TempDir(), url}

	r := stampede(t, append(args, "--format", "json")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	type step struct {
		Value     float64            `json:"value"`
		Telemetry *telemetry.Summary `json:"telemetry"`
		CPULimit  *limit.CPUBound    `json:"cpu_limit"`
		Note      string             `json:"limit_note"`
	}
	var steps []step
	var conclusion string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var obj struct {
			Type       string `json:"type"`
			Conclusion string `json:"conclusion"`
		}
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("not NDJSON: %q", sc.Text())
		}
		switch obj.Type {
		case "step":
			var st step
			if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, st)
		case "sweep_result":
			conclusion = obj.Conclusion
		}
	}
	if len(steps) != 2 {
		t.Fatalf("%d steps, want 2:\n%s", len(steps), r.stdout)
	}
	for _, st := range steps {
		b := st.CPULimit
		if b == nil || st.Telemetry == nil || len(st.Telemetry.Procs) != 1 {
			t.Fatalf("--cpus %g: cpu_limit %+v, telemetry %+v: want both, the server watched", st.Value, b, st.Telemetry)
		}
		if b.CPUs != st.Value || b.Periods == 0 || b.Throttled > b.Periods || b.UsedCores != st.Telemetry.Procs[0].CPUCores.Avg {
			t.Errorf("--cpus %g: %+v; want the limit, periods counted, the watched server's %g cores", st.Value, b, st.Telemetry.Procs[0].CPUCores.Avg)
		}
		// Under 90% of the limit and at most 5% of periods throttled:
		// the limit did not bind ("never bound" when none was).
		never := b.UsedCores < 0.9*b.CPUs && float64(b.Throttled) <= 0.05*float64(b.Periods)
		want := "limit never bound: server used " + strconv.FormatFloat(b.UsedCores, 'f', 2, 64) + " of "
		if b.Throttled > 0 {
			want = "limit did not bind: server used " + strconv.FormatFloat(b.UsedCores, 'f', 2, 64) + " of "
		}
		if never != strings.HasPrefix(st.Note, want) || !never && st.Note != "" {
			t.Errorf("--cpus %g: note %q with %d of %d periods throttled, %.3f cores used", st.Value, st.Note, b.Throttled, b.Periods, b.UsedCores)
		}
		t.Logf("--cpus %g: %d of %d periods throttled (%.2fs), server %.3f cores; note %q", st.Value, b.Throttled, b.Periods, b.ThrottledSec, b.UsedCores, st.Note)
	}
	if hi := steps[1]; hi.CPULimit.Throttled != 0 || hi.Note == "" {
		t.Errorf("--cpus %s, every CPU of the machine: throttled in %d periods, note %q; want it never to bind", all, hi.CPULimit.Throttled, hi.Note)
	}
	// Every step meets p99<=60s: the answer is the lowest limit, 0.5,
	// the machine's exactly when its step never bound.
	if machine := strings.Contains(conclusion, "the answer is limited by the machine, not the limit"); machine != (steps[0].Note != "") || !strings.HasPrefix(conclusion, "lowest --cpus meeting the SLO p99<=60s: 0.5") {
		t.Errorf("conclusion with the 0.5 step's note %q:\n%s", steps[0].Note, conclusion)
	}

	r = stampede(t, append(args, "--format", "csv")...)
	if r.code != 0 {
		t.Fatalf("csv: exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v, want a header and 2 steps:\n%s", len(rows), err, r.stdout)
	}
	note := slices.Index(rows[0], "note")
	if note != len(rows[0])-1 || !strings.HasPrefix(rows[2][note], "limit never bound: server used ") || !strings.HasSuffix(rows[2][note], " of "+all+" CPUs, not throttled") {
		t.Errorf("CSV header %q, --cpus %s's row %q: want its note in the last column", rows[0], all, rows[2])
	}
	if rows[1][note] != "-" && !strings.HasPrefix(rows[1][note], "limit never bound: ") && !strings.HasPrefix(rows[1][note], "limit did not bind: ") {
		t.Errorf("--cpus 0.5's note %q", rows[1][note])
	}
}
