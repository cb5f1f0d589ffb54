//go:build linux

package telemetry_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

// TestRealDiskWriter watches a dd that writes 50 MB with O_DIRECT and
// checks that its group's write rate shows up.
func TestRealDiskWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	s, err := telemetry.New(telemetry.Config{WatchProcess: []string{`^dd$`}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(time.Now()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(t.TempDir(), "out"), "bs=1M", "count=50", "oflag=direct")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run dd: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// dd may take only tens of milliseconds: sample often while it runs.
	var written, peak float64
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Skipf("dd failed (O_DIRECT unsupported here?): %v", err)
			}
			running = false
		case <-time.After(5 * time.Millisecond):
		}
		if !running {
			break
		}
		got, err := s.Sample(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		g := got.Procs[0]
		written += g.WriteBytesPerSec * got.End.Sub(got.Start).Seconds()
		peak = max(peak, g.WriteBytesPerSec)
	}
	t.Logf("dd: %.1f MB counted, peak %.1f MB/s", written/1e6, peak/1e6)
	if peak <= 0 {
		t.Errorf("write bytes/s of the dd group never rose above 0")
	}
}

// TestRealCPUBurner watches a busy shell loop by PID for one second.
func TestRealCPUBurner(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sh: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	s, err := telemetry.New(telemetry.Config{WatchPIDs: []int{cmd.Process.Pid}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(time.Now()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	got, err := s.Sample(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	g := got.Procs[0]
	t.Logf("%+v; host CPU %+v", g, got.CPU)
	if g.Processes == 1 && g.CPUCores <= 0.5 && got.CPU.Idle < 25 {
		t.Skipf("the CPUs were saturated by other processes (idle %.1f%%): the burner got %.2f cores", got.CPU.Idle, g.CPUCores)
	}
	if g.Processes != 1 || g.CPUCores <= 0.5 {
		t.Errorf("burner: %d processes, %.2f cores; want 1 process above 0.5 cores", g.Processes, g.CPUCores)
	}
	if got.CPU.Cores < 1 || got.CPU.User+got.CPU.System <= 0 {
		t.Errorf("host CPU = %+v, want some use", got.CPU)
	}
	if got.Memory.TotalBytes == 0 || got.Memory.UsedBytes == 0 {
		t.Errorf("memory = %+v", got.Memory)
	}
}
