package telemetry_test

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

// tick is the kernel's CPU accounting unit at USER_HZ 100.
const tick = 10 * time.Millisecond

// TestClientCores: no figure for a run shorter than MinCPUInterval, and
// none above the host's CPUs.
func TestClientCores(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cpu    float64
		wall   time.Duration
		cores  int
		want   float64
		wantOK bool
	}{
		{"174 µs run, one tick", 0.01, 174 * time.Microsecond, 2, 0, false},
		{"just short", 0.05, telemetry.MinCPUInterval - time.Millisecond, 2, 0, false},
		{"one core", 1, time.Second, 2, 1, true},
		{"capped at the CPUs", 3, time.Second, 2, 2, true},
		{"unknown CPUs", 3, time.Second, 0, 3, true},
		{"no CPU figure", -1, time.Second, 2, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := telemetry.ClientCores(tc.cpu, tc.wall, tc.cores)
			if ok != tc.wantOK || ok && got != tc.want {
				t.Errorf("ClientCores(%v, %v, %d) = %v, %v; want %v, %v", tc.cpu, tc.wall, tc.cores, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

var coresFigure = regexp.MustCompile(`(?:watched\)|this client|other processes) ([0-9.]+)`)

// TestShortRunCores is a property: for runs of random short intervals
// whose CPU figures come from whole clock ticks (one tick in 174 µs reads
// as 57 cores), every cores figure Bottleneck gives is at most the host's
// CPUs, and a run shorter than MinCPUInterval in all gets no verdict and
// its CPU figures are unknown.
func TestShortRunCores(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 4))
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i := range 2000 {
		cores := 1 + r.IntN(8)
		var samples []telemetry.Sample
		at := start
		var total time.Duration
		for range 1 + r.IntN(4) {
			d := time.Duration(1 + r.Int64N(int64(150*time.Millisecond)))
			busy := float64(r.IntN(100))
			// Up to every CPU busy, and two ticks more: the ticks
			// counted at the interval's ends round it up.
			procTicks := r.IntN(cores*int(d/tick) + 3)
			samples = append(samples, telemetry.Sample{Start: at, End: at.Add(d),
				CPU:   telemetry.CPU{Cores: cores, User: busy, Steal: 0, Idle: 100 - busy},
				Procs: []telemetry.ProcGroup{{Name: "postgres", Processes: 1, CPUCores: float64(procTicks) * tick.Seconds() / d.Seconds()}}})
			at = at.Add(d)
			total += d
		}
		sum := telemetry.Summarize(samples)
		client, ok := telemetry.ClientCores(float64(r.IntN(cores*int(total/tick)+3))*tick.Seconds(), total, cores)
		if ok && client > float64(cores) {
			t.Fatalf("run %d: client cores %v above the %d CPUs", i, client, cores)
		}
		if !ok {
			client = -1
		}
		verdict := telemetry.Bottleneck(sum, client)
		if short := total < telemetry.MinCPUInterval; short != sum.CPUUnknown || short && (verdict != "" || ok) {
			t.Fatalf("run %d of %v: CPU unknown %v, client figure %v, verdict %q", i, total, sum.CPUUnknown, ok, verdict)
		}
		for _, m := range coresFigure.FindAllStringSubmatch(verdict, -1) {
			if v, _ := strconv.ParseFloat(m[1], 64); v > float64(cores) {
				t.Fatalf("run %d of %v: %s cores on %d CPUs: %q", i, total, m[1], cores, verdict)
			}
		}
	}
}
