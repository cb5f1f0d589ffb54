//go:build linux

package telemetry_test

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

// BenchmarkSample measures one Sample with 200 watched processes (sleep
// children matched by a pattern on their command line). The budget is 1%
// of a core at a 1 s interval: 10 ms per Sample.
func BenchmarkSample(b *testing.B) {
	const children = 200
	var cmds []*exec.Cmd
	b.Cleanup(func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	})
	for range children {
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	s, err := telemetry.New(telemetry.Config{WatchCmdline: []string{`^sleep 60$`}})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	if _, err := s.Sample(now); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	var got telemetry.Sample
	for b.Loop() {
		now = now.Add(time.Second)
		if got, err = s.Sample(now); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime(b) - cpu0
	if n := got.Procs[0].Processes; n != children {
		b.Fatalf("watched %d processes, want %d", n, children)
	}
	// CPU time rather than wall time: the budget is CPU, and wall time
	// grows when other processes compete for the cores.
	perOp := float64(cpu.Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	b.ReportMetric(perOp/1e7, "%core@1s")
}

// cpuTime returns the user and system CPU time used by this process.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
