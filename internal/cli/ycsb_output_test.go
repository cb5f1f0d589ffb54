package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/golden"
)

// ycsbReport parses YCSB's final report into "[NAME], MEASUREMENT" ->
// value.
func ycsbReport(t *testing.T, out string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		parts := strings.Split(line, ", ")
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "[") {
			t.Fatalf("not a YCSB report line: %q", line)
		}
		v, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		m[parts[0]+", "+parts[1]] = v
	}
	return m
}

// seriesMax reads each series' maximum latency, in ms, from the run's
// summary.json.
func seriesMax(t *testing.T, r result) map[string]float64 {
	t.Helper()
	dir := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(r.stderr)
	if dir == nil {
		t.Fatalf("no results directory in %q", r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir[1], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Series []struct {
			Name  string  `json:"name"`
			Max   float64 `json:"max_ms"`
			Count int64   `json:"count"`
		} `json:"series"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, s := range sum.Series {
		m[s.Name] = s.Max
	}
	return m
}

// TestYCSBMeasurementInterval runs YCSB's measurement.interval modes under
// a target rate with --output-style ycsb, and compares each report's
// layout with a golden file (figures masked) and its figures with the
// run's own series: op reports the service time ([READ] is read.service),
// intended the latency from the scheduled start ([READ] is read), both
// the two ([READ] and [Intended-READ]), as YCSB does. Without
// measurement.interval the YCSB output is op, YCSB's default.
func TestYCSBMeasurementInterval(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		args     []string
		header   string
		measures map[string]string // YCSB measurement -> stampede series
	}{
		{"op", []string{"-p", "measurement.interval=op"}, "latency is each operation's service time",
			map[string]string{"[READ]": "read.service", "[UPDATE]": "update.service"}},
		{"default", nil, "latency is each operation's service time",
			map[string]string{"[READ]": "read.service", "[UPDATE]": "update.service"}},
		{"intended", []string{"-p", "measurement.interval=intended"}, "latency counts from each operation's scheduled start",
			map[string]string{"[READ]": "read", "[UPDATE]": "update"}},
		{"both", []string{"--measurement-interval", "both"}, "OP lines count latency from each operation's scheduled start (intended), OP.service lines are the service time",
			map[string]string{"[READ]": "read.service", "[Intended-READ]": "read", "[UPDATE]": "update.service", "[Intended-UPDATE]": "update"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			args := append([]string{"run", "ycsb", "--driver", "null", "--max-ops", "20000", "--max-rate", "40000",
				"--output-style", "ycsb", "--seed", "1", "--display-every", "100ms", "--results-dir", t.TempDir()}, tc.args...)
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.header) {
				t.Errorf("the header does not say %q:\n%s", tc.header, r.stderr)
			}
			if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} \d+ sec: \d+ operations; .*\[READ: Count=\d+, Max=`).MatchString(r.stderr) {
				t.Errorf("no YCSB status line on stderr:\n%s", r.stderr)
			}
			rep := ycsbReport(t, r.stdout)
			max := seriesMax(t, r)
			if rep["[READ], Operations"]+rep["[UPDATE], Operations"] != 20000 || rep["[READ], Return=OK"] != rep["[READ], Operations"] {
				t.Errorf("report %v: want 20000 operations", rep)
			}
			for measure, series := range tc.measures {
				// The series' max is the top of its step of nanoseconds
				// (512 ns wide below 1 ms), which YCSB's whole
				// microseconds truncate (up to 1.512 µs less); above
				// 2 ms YCSB's own steps, 3 significant digits of
				// microseconds (1/2048 to 1/1024 of the value), count:
				// within two of them.
				got, want := rep[measure+", MaxLatency(us)"], max[series]*1000
				if math.Abs(got-want) > math.Max(1.512, want/512) {
					t.Errorf("%s MaxLatency(us) %v, want %s's max %.0fus", measure, got, series, want)
				}
			}
			name := tc.mode
			if name == "default" {
				name = "op"
			}
			golden.Check(t, filepath.Join("testdata", "ycsb_"+name+".golden"), []byte(shape(r.stdout)))
		})
	}
	// hdrhistogram.percentiles chooses the report's percentiles.
	r := stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "5000", "-p", "hdrhistogram.percentiles=90,99.9",
		"--output-style", "ycsb", "--results-dir", t.TempDir())
	for _, want := range []string{"\n[READ], 90thPercentileLatency(us), ", "\n[READ], 99.9PercentileLatency(us), "} {
		if !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "[READ], 50thPercentileLatency(us)") {
			t.Errorf("hdrhistogram.percentiles=90,99.9: no %q, or another percentile:\n%s", want, r.stdout)
		}
	}

	// Without a rate the intended start is the actual start: [READ] and
	// [Intended-READ] are the same.
	r = stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "5000", "-p", "measurement.interval=both",
		"--output-style", "ycsb", "--results-dir", t.TempDir())
	rep := ycsbReport(t, r.stdout)
	for _, m := range []string{"Operations", "MaxLatency(us)", "99thPercentileLatency(us)"} {
		if rep["[READ], "+m] != rep["[Intended-READ], "+m] {
			t.Errorf("closed loop: [READ], %s %v but [Intended-READ] %v", m, rep["[READ], "+m], rep["[Intended-READ], "+m])
		}
	}
}
