package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
		{"bad cmdline regex", []string{"--watch-cmdline", "post(gres"}, "post(gres"},
		{"cmdline without telemetry", []string{"--telemetry=false", "--watch-cmdline", "postgres"}, "need --telemetry=true"},
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

// procTicks returns the user + system CPU time of a process in ticks
// (1/100 s), from /proc/PID/stat: the kernel's own count.
func procTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// TestRunTelemetryKnownLength runs for 3.1 s with 1 s intervals, so that
// the last interval is about 0.1 s, while a shell burns CPU between two
// reads of its input (watched by PID), a copy of sleep runs under a
// distinctive name and a shell mentions that name in its command line. It
// checks summary.json against a hand computation from telemetry.ndjson
// (averages weighted by interval length, peaks without the short last
// interval), the burner's CPU against the kernel's count, and which
// processes the name and command-line patterns counted.
func TestRunTelemetryKnownLength(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	burner := exec.Command("sh", "-c", `read go; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo done; read stop`)
	in, err := burner.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := burner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("stwp%d", os.Getpid())
	prog := filepath.Join(t.TempDir(), name)
	if err := os.Symlink("/bin/sleep", prog); err != nil {
		t.Fatal(err)
	}
	named := exec.Command(prog, "30")
	mention := exec.Command("sh", "-c", "sleep 30; : postgresql://"+name)
	for _, c := range []*exec.Cmd{burner, named, mention} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Process.Kill()
			_ = c.Wait()
		})
	}
	results := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- stampedeCtx(t, context.Background(), "run", "ycsb", "--driver", "null", "--max-rate", "500", "--concurrency", "2",
			"--duration", "3100ms", "--display-every", "1s", "--watch-pid", strconv.Itoa(burner.Process.Pid),
			"--watch-process", "^"+name+"$", "--watch-cmdline", name, "--results-dir", results)
	}()
	// Release the burner once the baseline sample is written, so that
	// all of its CPU time falls inside the sampled span.
	var dir string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if dirs, _ := filepath.Glob(filepath.Join(results, "*-ycsb-*")); len(dirs) == 1 {
			if b, _ := os.ReadFile(filepath.Join(dirs[0], runlog.TelemetryFile)); len(b) > 0 {
				dir = dirs[0]
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no baseline telemetry sample within 20 s")
		}
	}
	ticks0 := procTicks(t, burner.Process.Pid)
	// When the burner said it was done (zero: it did not), after all of
	// its CPU time.
	finished := make(chan time.Time, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line == "done\n" {
			finished <- time.Now()
		} else {
			finished <- time.Time{}
		}
	}()
	if _, err := io.WriteString(in, "go\n"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	ticks := procTicks(t, burner.Process.Pid) - ticks0
	var doneAt time.Time
	select {
	case doneAt = <-finished:
	default:
	}

	var samples []telemetry.Sample
	if err := run(t, dir).Telemetry(func(line []byte) error {
		var s telemetry.Sample
		samples = append(samples, s)
		return json.Unmarshal(line, &samples[len(samples)-1])
	}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, runlog.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Telemetry *telemetry.Summary `json:"telemetry"`
	}
	if err := json.Unmarshal(raw, &sum); err != nil || sum.Telemetry == nil {
		t.Fatalf("summary.json: %v %s", err, raw)
	}
	st := sum.Telemetry

	// By hand: the intervals, their lengths, the usual one.
	var ivs []telemetry.Sample
	var lens []float64
	for _, s := range samples {
		if d := s.End.Sub(s.Start).Seconds(); d > 0 {
			ivs = append(ivs, s)
			lens = append(lens, d)
		}
	}
	if len(ivs) < 3 || st.Intervals != len(ivs) {
		t.Fatalf("%d intervals in telemetry.ndjson, summary says %d; want at least 3", len(ivs), st.Intervals)
	}
	last := lens[len(lens)-1]
	if last > 0.5 || lens[0] < 0.9 {
		t.Fatalf("interval lengths %v: want whole seconds and a short last one", lens)
	}
	byHand := func(v func(telemetry.Sample) float64) telemetry.Stat {
		var sum, w, mx float64
		n := len(ivs)
		for i, s := range ivs {
			sum += v(s) * lens[i]
			w += lens[i]
			switch {
			case i < n-2:
				mx = max(mx, v(s))
			case i == n-2: // the short last interval joins it for the peak
				mx = max(mx, (v(s)*lens[i]+v(ivs[n-1])*lens[n-1])/(lens[i]+lens[n-1]))
			}
		}
		return telemetry.Stat{Avg: sum / w, Max: mx}
	}
	group := func(i int) func(telemetry.Sample) float64 {
		return func(s telemetry.Sample) float64 { return s.Procs[i].CPUCores }
	}
	for _, tc := range []struct {
		name string
		got  telemetry.Stat
		v    func(telemetry.Sample) float64
	}{
		{"cpu usr", st.CPU.User, func(s telemetry.Sample) float64 { return s.CPU.User }},
		{"cpu sys", st.CPU.System, func(s telemetry.Sample) float64 { return s.CPU.System }},
		{"cpu idle", st.CPU.Idle, func(s telemetry.Sample) float64 { return s.CPU.Idle }},
		{"burner cores", st.Procs[2].CPUCores, group(2)},
		{"named cores", st.Procs[0].CPUCores, group(0)},
	} {
		want := byHand(tc.v)
		if math.Abs(tc.got.Avg-want.Avg) > 1e-9*math.Max(1, want.Avg) || math.Abs(tc.got.Max-want.Max) > 1e-9*math.Max(1, want.Max) {
			t.Errorf("%s: summary.json %+v, by hand from telemetry.ndjson %+v", tc.name, tc.got, want)
		}
	}

	// The batch layer recomputes the same figures from telemetry.ndjson.
	rep := stampede(t, "report", "--format", "json", dir)
	var view struct {
		Telemetry map[string]*telemetry.Summary `json:"telemetry"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &view); err != nil {
		t.Fatalf("report: %v: %s %s", err, rep.stdout, rep.stderr)
	}
	switch got := view.Telemetry[filepath.Base(dir)]; {
	case got == nil:
		t.Errorf("report: no telemetry: %s", rep.stdout)
	case got.Intervals != st.Intervals:
		// The report's window (results/window.go) left an interval out:
		// its figures are over other samples.
		t.Logf("report's window holds %d of the run's %d intervals: not compared", got.Intervals, st.Intervals)
	case got.ShortIntervals != st.ShortIntervals || got.CPU.System != st.CPU.System || got.CPU.User != st.CPU.User ||
		got.Procs[2].CPUCores != st.Procs[2].CPUCores:
		t.Errorf("report's telemetry %+v, the run's %+v", got, st)
	}
	if st.ShortIntervals != 1 {
		t.Errorf("summary.json: %d short intervals, want 1 (the last)", st.ShortIntervals)
	}

	// The burner, against the kernel's count of its CPU time.
	counted := st.Procs[2].CPUCores.Avg * st.End.Sub(st.Start).Seconds() * 100
	t.Logf("burner: %d ticks by the kernel, %.1f counted; intervals %v", ticks, counted, lens)
	if doneAt.IsZero() || !doneAt.Before(st.End) {
		t.Logf("the burner did not finish before the last sample (a loaded machine): its CPU time is not checked")
	} else if math.Abs(counted-float64(ticks)) > 0.05*float64(ticks)+3 {
		t.Errorf("burner: %.1f ticks counted, the kernel's %d: want within 5%% + 3 ticks", counted, ticks)
	}

	// Groups: by name only the copy of sleep; by command line also the
	// shell that mentions it; the PID group named after its process.
	wantNames := []string{"^" + name + "$", "cmdline " + name, fmt.Sprintf("sh (pid %d)", burner.Process.Pid)}
	for i, s := range samples {
		if len(s.Procs) != 3 {
			t.Fatalf("sample %d: groups %+v", i, s.Procs)
		}
		for j, g := range s.Procs {
			if g.Name != wantNames[j] {
				t.Errorf("sample %d: group %d named %q, want %q", i, j, g.Name, wantNames[j])
			}
		}
		if n := s.Procs[0].Processes; n != 1 {
			t.Errorf("sample %d: %d processes named %s, want 1 (the shell that mentions it is not one)", i, n, name)
		}
		if n := s.Procs[1].Processes; n != 2 {
			t.Errorf("sample %d: %d processes whose command line holds %s, want 2", i, n, name)
		}
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("sh (pid %d) cores", burner.Process.Pid)) {
		t.Errorf("the printed summary does not name the PID group after its process:\n%s", r.stdout)
	}
}

// run opens a run directory.
func run(t *testing.T, dir string) *runlog.Run {
	t.Helper()
	r, err := runlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
