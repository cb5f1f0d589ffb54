package cli_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/proxy"
)

// burner switches a CPU-burning child process (another process's load)
// on and off until stopped: on for on, off for off, over and over.
type burner struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	ons  int
}

func startBurner(t *testing.T, on, off time.Duration) *burner {
	b := &burner{stop: make(chan struct{})}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			cmd := exec.Command("sh", "-c", "while :; do :; done")
			if err := cmd.Start(); err != nil {
				t.Errorf("burner: %v", err)
				return
			}
			b.mu.Lock()
			b.ons++
			b.mu.Unlock()
			select {
			case <-b.stop:
			case <-time.After(on):
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			select {
			case <-b.stop:
				return
			case <-time.After(off):
			}
		}
	}()
	return b
}

// Stop ends the burner and returns how many times it was switched on.
func (b *burner) Stop() int {
	close(b.stop)
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ons
}

// TestSweepSearchSurvivesNoise: a server behind a proxy (a `stampede
// proxy` process of its own: see ycsbBehindProxy) that adds a fixed
// 50 ms to every round trip, run by a fixed 8 workers, has a known
// capacity: 8 / (50 ms + the service time), which can never exceed 8 /
// 50 ms = 160 ops/s (one round trip an operation: YCSB's read). The
// delay is large beside the service time (the server's, the client's and
// the scheduler's, beyond the delay: 2-6 ms here at load 15-22 on 2
// CPUs, 21 ms at load 24), so that the capacity is the proxy's and not
// the machine's: with a 2 ms delay the service time was as large as the
// delay, and the capacity moved with other processes' load by half within
// one search. The capacity is measured closed loop (3 s, before and after
// each search) and checked against the formula: its ops/s are 8 / its
// mean latency (Little's law) and below 8 / 50 ms. A search for the
// highest --max-rate that keeps its rate (rate>=95%), with --repeat
// 3, while another process's CPU load is switched on and off during
// its probes (1.3 s on, 1.7 s off, out of step with the 4 s probes:
// with 2 s probes, answers at load 28-31 fell to 70% of the capacity, a
// burst's backlog being a larger share of a shorter probe),
// lands within 10% of that capacity: a probe that met a burst is
// re-run and judged on the median of three. Three runs in a row at load
// 23-33 on 2 CPUs (other engineers' benches beside): answers 142, 138,
// 140; 145, 148, 148; 148, 142, 140 ops/s against closed-loop capacities
// of 141.6-149.4 ops/s (service times 3.5-6.2 ms beyond the delay). The
// test runs one search (90 s); `scripts/bench sweep` runs three in a row
// and holds their spread to 10%.
func TestSweepSearchSurvivesNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 minutes of search")
	}
	const (
		workers = 8
		delay   = 50 * time.Millisecond
	)
	bound := workers / delay.Seconds()
	px, via := ycsbBehindProxy(t, "stampede_sweepnoise")
	if _, err := px.SetFaults("pg", proxy.Faults{Latency: proxy.Duration(delay)}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	w := strconv.Itoa(workers)
	common := []string{"ycsb", "--workload", "c", "-p", "recordcount=1000", "--concurrency", w, "--conns", w, "--telemetry=false", "--results-dir", root}
	// measure is the capacity: what the workers complete closed loop in
	// 3 s, held to the formula workers / (delay + service time), with
	// the service time read from the same run (its mean latency beyond
	// the delay). It skips, saying so, when the service time is a fifth
	// of the delay or more: the machine's load is then too high for the
	// capacity to be the proxy's. A rated probe's operation waits for
	// more wake-ups than a closed loop's (the pacer's and its worker's
	// beside the reply's), each late on a loaded machine: with a service
	// time of 4.6-8.9 ms (load 20-30, 1 CPU-burning process beside) the
	// answers were 91-96% of the closed loop's capacity, with 15.7 ms
	// (load 27, 2 of them) 85%.
	measure := func(when string) float64 {
		t.Helper()
		r := stampede(t, append(append([]string{"run"}, common...), "--duration", "3s", "--format", "json", via.String())...)
		if r.code != 0 {
			t.Fatalf("capacity run %s: %d %s", when, r.code, r.stderr)
		}
		_, sum := ndjsonFinal(t, r.stdout)
		total, _ := sum["cumulative"].(map[string]any)
		c, _ := total["ops_per_sec"].(float64)
		mean, _ := total["mean_ms"].(float64)
		service := mean - float64(delay.Milliseconds())
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("capacity %s: %.1f ops/s closed loop, mean latency %.2f ms (service time %.2f ms beyond the %v delay), formula %.1f ops/s, load average %.4s",
			when, c, mean, service, delay, workers/(mean/1000), load)
		if service >= float64(delay.Milliseconds())/5 {
			t.Skipf("the service time beyond the proxy's %v was %.1f ms %s (load average %.4s on %d CPUs): the capacity is the machine's, not the proxy's; the machine is too loaded for this test's figure",
				delay, service, when, load, runtime.NumCPU())
		}
		if mean <= 0 || math.Abs(c-workers/(mean/1000)) > 0.05*c {
			t.Fatalf("capacity %s: %.1f ops/s closed loop, but %d workers at a mean %.2f ms complete %.1f ops/s", when, c, workers, mean, workers/(mean/1000))
		}
		if c > bound*1.01 {
			t.Fatalf("capacity %s: %.1f ops/s closed loop, above %d workers / %v = %.0f ops/s: the proxy's delay was not applied", when, c, workers, delay, bound)
		}
		return c
	}
	for i := range 1 {
		capacity := measure(fmt.Sprintf("before search %d", i+1))
		// The objective: the rate kept (rate>=95%, which a step beyond
		// the capacity cannot meet); the p99 term only rules out a
		// queue without bound (a step kept at 95% of its rate by
		// workers that fall ever further behind).
		slo := "rate>=95%,p99<=1s"
		lo, hi := math.Round(capacity/2), math.Round(capacity*2)
		b := startBurner(t, 1300*time.Millisecond, 1700*time.Millisecond)
		start := time.Now()
		r := stampede(t, append(append([]string{"sweep"}, common...), "--max-rate", strconv.Itoa(int(lo))+":"+strconv.Itoa(int(hi)), "--search",
			"--repeat", "3", "--slo", slo, "--duration", "4s", "--format", "json", via.String())...)
		ons := b.Stop()
		took := time.Since(start).Round(time.Second)
		if r.code != 0 {
			t.Fatalf("search %d: %d %s", i+1, r.code, r.stderr)
		}
		s := parseSweep(t, r.stdout)
		if s.Result.Best == nil {
			t.Fatalf("search %d: no answer: %s", i+1, s.Result.Conclusion)
		}
		answer := s.Result.Best.Value
		// The capacity again after the search: the answer is held within
		// 10% of the lower and of the higher measure.
		after := measure(fmt.Sprintf("after search %d", i+1))
		low, high := math.Min(capacity, after), math.Max(capacity, after)
		t.Logf("search %d: answer %g ops/s (capacity %.1f before, %.1f after, at most %.0f), %d probes in %s, the other load switched on %d times: %s",
			i+1, answer, capacity, after, bound, len(s.Steps), took, ons, s.Result.Conclusion)
		if answer < 0.9*low || answer > 1.1*high || answer > 1.1*bound {
			t.Errorf("search %d: answer %g ops/s is not within 10%% of the capacity (%.0f ops/s before the search, %.0f after, at most %.0f):\n%s", i+1, answer, capacity, after, bound, s.Result.Conclusion)
		}
		if ons < 2 {
			t.Errorf("search %d: the other load was switched on %d times during it", i+1, ons)
		}
	}
}
