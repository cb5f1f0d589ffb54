package prng

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
)

// logLine is one line of pgbench's per-transaction log (-l).
type logLine struct {
	client, cnt int
	latency     int64 // µs, from the schedule when throttled
	end         int64 // µs since the epoch
}

// runLogged runs pgbench -l with one client per thread and returns each
// thread's log lines.
func runLogged(t *testing.T, threads int, args ...string) [][]logLine {
	t.Helper()
	url := testdb.URL(t)
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench in PATH: this test compares with PostgreSQL 15's pgbench")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.sql")
	if err := os.WriteFile(file, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	full := append([]string{"-n", "-f", file, "-c", fmt.Sprint(threads), "-j", fmt.Sprint(threads),
		"-l", "--log-prefix=" + filepath.Join(dir, "log")}, args...)
	cmd := exec.Command(bin, append(full, url)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pgbench %s: %v\n%s", strings.Join(full, " "), err, stderr.String())
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "log.*"))
	sort.Strings(logs) // log.PID (thread 0) before log.PID.1, ...
	if len(logs) != threads {
		t.Fatalf("%d log files, want one per thread (%d)", len(logs), threads)
	}
	out := make([][]logLine, threads)
	for i, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			f := strings.Fields(line)
			n := make([]int64, 6)
			for j := range n {
				if n[j], err = strconv.ParseInt(f[j], 10, 64); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
			}
			out[i] = append(out[i], logLine{client: int(n[0]), cnt: int(n[1]), latency: n[2], end: n[4]*1000000 + n[5]})
		}
	}
	return out
}

// TestSampleStreamsMatchPgbench runs pgbench -l --sampling-rate: the
// transactions each thread logs must be those whose draw from the
// thread's Sample stream is at most the rate.
func TestSampleStreamsMatchPgbench(t *testing.T) {
	const threads, txns, rate = 2, 60, 0.4
	for _, seed := range []uint64{3, 1<<63 + 12345} {
		logs := runLogged(t, threads, "-t", fmt.Sprint(txns), fmt.Sprintf("--sampling-rate=%g", rate), fmt.Sprintf("--random-seed=%d", seed))
		st := PgbenchStreams(seed, threads, threads)
		for th, lines := range logs {
			var want, got []int
			for k := 1; k <= txns; k++ {
				if !(st.Sample[th].Double() > rate) {
					want = append(want, k)
				}
			}
			for _, l := range lines {
				got = append(got, l.cnt)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("seed %d thread %d: pgbench logged transactions %v, the Sample stream picks %v", seed, th, got, want)
			}
		}
	}
}

// TestThrottleStreamsMatchPgbench runs pgbench -R -l: each transaction's
// schedule (its end minus its latency, which under -R counts from the
// schedule) must advance by the thread's Throttle stream's Poisson draws,
// so that end - latency - schedule, the thread's start, is the same for
// every transaction. pgbench reads the clock twice for a log line (for the
// latency, then for the end), so a thread descheduled in between, on a
// busy machine, logs an end later than the one its latency was measured
// at: single starts stray by up to a millisecond under load. The test
// therefore judges the starts' median absolute deviation, which such
// strays do not move: within 1 ms for the right stream, while a wrong
// stream's schedule drifts by the sum of its draws' differences (tens of
// milliseconds over 60 transactions at 5 ms apart), as the check of the
// next thread's stream, which must miss, shows.
func TestThrottleStreamsMatchPgbench(t *testing.T) {
	const threads, txns, rate = 2, 60, 400
	const delay = 1e6 / rate * threads // µs between one thread's transactions
	// mad is the median absolute deviation (µs) of the starts the lines
	// give under stream s.
	mad := func(lines []logLine, s *State) int64 {
		var schedule int64
		starts := make([]int64, len(lines))
		for i, l := range lines {
			schedule += s.Poisson(delay)
			starts[i] = l.end - l.latency - schedule
		}
		slices.Sort(starts)
		med := starts[len(starts)/2]
		dev := make([]int64, len(starts))
		for i, v := range starts {
			dev[i] = max(v-med, med-v)
		}
		slices.Sort(dev)
		return dev[len(dev)/2]
	}
	for _, seed := range []uint64{7, 99999} {
		logs := runLogged(t, threads, "-t", fmt.Sprint(txns), fmt.Sprintf("-R%d", rate), fmt.Sprintf("--random-seed=%d", seed))
		right := PgbenchStreams(seed, threads, threads)
		wrong := PgbenchStreams(seed+1, threads, threads)
		for th, lines := range logs {
			if len(lines) != txns {
				t.Fatalf("seed %d thread %d: %d log lines, want %d", seed, th, len(lines), txns)
			}
			// Each draw advances a stream: measure each once.
			r, w := mad(lines, &right.Throttle[th]), mad(lines, &wrong.Throttle[th])
			t.Logf("seed %d thread %d: median deviation of the starts %d µs under the Throttle stream, %d µs under seed %d's", seed, th, r, w, seed+1)
			if r > 1000 {
				t.Errorf("seed %d thread %d: the starts the Throttle stream gives deviate by %d µs (median), want within 1 ms", seed, th, r)
			}
			if w <= 1000 {
				t.Errorf("seed %d thread %d: seed %d's stream fits pgbench's schedule too (median deviation %d µs): the test cannot tell streams apart", seed, th, seed+1, w)
			}
		}
	}
}
