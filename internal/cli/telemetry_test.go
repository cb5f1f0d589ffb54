package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// TestRunTelemetry runs a workload with telemetry watching the test
// server's processes and checks what reaches the screen and the run
// directory.
func TestRunTelemetry(t *testing.T) {
	url := testServer(t)
	db := freshDB(t, "tel")
	if r := stampede(t, "init", "ycsb", "--db", db, "-p", "recordcount=500", url); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	results := t.TempDir()
	r := stampede(t, "run", "ycsb", "--db", db, "--workload", "B", "-p", "recordcount=500", "--duration", "3s", "--concurrency", "2",
		"--watch-process", "^postgres", "--display-telemetry", "--results-dir", results, url)
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "  telemetry: cpu usr"); n < 2 {
		t.Errorf("%d telemetry lines in the interval output, want one per interval:\n%s", n, r.stdout)
	}
	for _, want := range []string{"telemetry: ", "postgres cores", "%util"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("final summary lacks %q:\n%s", want, r.stdout)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(results, "*-ycsb-*"))
	if len(dirs) != 1 {
		t.Fatalf("run directories: %v", dirs)
	}
	run, err := runlog.Open(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run.Info.Telemetry), `"^postgres"`) {
		t.Errorf("run.json telemetry = %s", run.Info.Telemetry)
	}
	var samples []telemetry.Sample
	if err := run.Telemetry(func(line []byte) error {
		var s telemetry.Sample
		samples = append(samples, s)
		return json.Unmarshal(line, &samples[len(samples)-1])
	}); err != nil {
		t.Fatal(err)
	}
	if len(samples) < 3 {
		t.Fatalf("%d telemetry samples, want one per interval (>= 3)", len(samples))
	}
	var cores float64
	for _, s := range samples {
		if len(s.Procs) != 1 || s.Procs[0].Processes == 0 {
			t.Fatalf("sample without the watched server processes: %+v", s.Procs)
		}
		cores += s.Procs[0].CPUCores
	}
	if cores <= 0 {
		t.Errorf("the server used no CPU over the run according to telemetry")
	}
	raw, err := os.ReadFile(filepath.Join(dirs[0], runlog.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Telemetry *telemetry.Summary `json:"telemetry"`
	}
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Telemetry == nil || sum.Telemetry.Intervals < 2 || len(sum.Telemetry.Procs) != 1 {
		t.Errorf("summary.json telemetry = %+v", sum.Telemetry)
	}

	// The batch layer recomputes the same telemetry from the samples.
	rep := stampede(t, "report", dirs[0])
	if rep.code != 0 || !strings.Contains(rep.stdout, "^postgres cores") {
		t.Errorf("report: %d %s\n%s", rep.code, rep.stderr, rep.stdout)
	}
	rep = stampede(t, "report", "--format", "json", dirs[0])
	var view struct {
		Telemetry map[string]*telemetry.Summary `json:"telemetry"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &view); err != nil {
		t.Fatal(err)
	}
	got := view.Telemetry[run.Info.ID]
	if got == nil || got.Intervals < 2 || got.Intervals > sum.Telemetry.Intervals {
		t.Errorf("report's telemetry = %+v, the run's %+v", got, sum.Telemetry)
	}
}

func TestRunTelemetryBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad regex", []string{"--watch-process", "post(gres"}, "post(gres"},
		{"gone pid", []string{"--watch-pid", "999999999"}, "PID 999999999 is gone"},
		{"display without telemetry", []string{"--telemetry=false", "--display-telemetry"}, "need --telemetry=true"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "ycsb", "--driver", "null", "--max-ops", "10", "--results-dir", t.TempDir()}, tc.args...)
			r := stampede(t, args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2; stderr %s", r.code, r.stderr)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q, want one line containing %q", r.stderr, tc.want)
			}
		})
	}
}
