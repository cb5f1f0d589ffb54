package cli_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// onlyRun opens the one run saved under dir, and its summary's series by
// name.
func onlyRun(t *testing.T, dir string) (*runlog.Run, map[string]stats.Summary) {
	t.Helper()
	infos, err := runlog.List(dir)
	if err != nil || len(infos) != 1 {
		t.Fatalf("runs under %s: %v %v", dir, infos, err)
	}
	run, err := runlog.Open(filepath.Join(dir, infos[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Series []struct {
			Name string `json:"name"`
			stats.Summary
		} `json:"series"`
	}
	if err := json.Unmarshal(run.Summary, &sum); err != nil {
		t.Fatal(err)
	}
	series := map[string]stats.Summary{}
	for _, s := range sum.Series {
		series[s.Name] = s.Summary
	}
	return run, series
}

// textBlocks splits stampede's text output into the names on its interval
// lines and, for each line of the final __total block, its p99 column by
// name; extra is the lines after the __result line.
func textBlocks(t *testing.T, stdout string) (intervalNames []string, finalP99 map[string]string, extra []string) {
	t.Helper()
	finalP99 = map[string]string{}
	section := ""
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "_elapsed") && strings.HasSuffix(line, "__total"):
			section = "total"
		case strings.HasPrefix(line, "_elapsed") && strings.HasSuffix(line, "__result"):
			section = "result"
		case strings.HasPrefix(line, "_elapsed"):
			section = "interval"
		case section == "interval" && len(f) == 9:
			if !slices.Contains(intervalNames, f[8]) {
				intervalNames = append(intervalNames, f[8])
			}
		case section == "total" && len(f) == 10:
			finalP99[f[9]] = f[7]
		case section == "result" && strings.HasPrefix(line, "  "):
			extra = append(extra, strings.TrimSpace(line))
		}
	}
	slices.Sort(intervalNames)
	return intervalNames, finalP99, extra
}

// TestLatencyModes runs the null driver under a rate with each --latency
// and checks what each prints: the header line names the latency shown;
// the interval lines show the operations, or their service times under
// the operations' names, or both; and the final block's figures are those
// of the series the mode names (checked against summary.json). Every mode
// ends with the service times, the schedule lags and the pacer lag.
func TestLatencyModes(t *testing.T) {
	for _, tc := range []struct {
		mode      string
		banner    string
		intervals []string
		final     map[string]string // line name -> series
	}{
		{"", "latency counts from each operation's scheduled start (intended)",
			[]string{"read", "update"}, map[string]string{"read": "read", "update": "update"}},
		{"intended", "latency counts from each operation's scheduled start (intended)",
			[]string{"read", "update"}, map[string]string{"read": "read", "update": "update"}},
		{"service", "latency is each operation's service time (--latency service)",
			[]string{"read", "update"}, map[string]string{"read": "read.service", "update": "update.service"}},
		{"both", "OP lines count latency from each operation's scheduled start (intended), OP.service lines are the service time",
			[]string{"read", "read.service", "update", "update.service"},
			map[string]string{"read": "read", "read.service": "read.service", "update": "update", "update.service": "update.service"}},
	} {
		t.Run("latency="+tc.mode, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"run", "ycsb", "--driver", "null", "--concurrency", "2", "--max-rate", "4000", "--max-ops", "2400",
				"--display-every", "100ms", "--telemetry=false", "--results-dir", dir}
			if tc.mode != "" {
				args = append(args, "--latency", tc.mode)
			}
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "open loop at 4000 ops/s, ") || !strings.Contains(r.stderr, tc.banner) {
				t.Errorf("header does not say %q:\n%s", tc.banner, r.stderr)
			}
			run, series := onlyRun(t, dir)
			if p := run.Info.Flags["pacer"]; p != "precise" && p != "coarse" {
				t.Errorf("run.json records pacer %q", p)
			}
			names, finalP99, extra := textBlocks(t, r.stdout)
			if !slices.Equal(names, tc.intervals) {
				t.Errorf("interval lines show %v, want %v\n%s", names, tc.intervals, r.stdout)
			}
			if len(finalP99) != len(tc.final) {
				t.Errorf("final block shows %v, want %v", finalP99, tc.final)
			}
			for line, s := range tc.final {
				if want := report.FormatMs(series[s].P99); finalP99[line] != want {
					t.Errorf("final line %s: p99 %q, want %q (series %s)", line, finalP99[line], want, s)
				}
			}
			pacer, ok := series["pacer.lag"]
			if !ok || pacer.Count != series["read"].Count+series["update"].Count {
				t.Errorf("pacer.lag %+v for %d operations", pacer, series["read"].Count+series["update"].Count)
			}
			for _, want := range []string{"read.service_p99_ms: read.service: p50 ", "read.lag_p99_ms: read.lag: p50 ",
				"pacer.lag_p99_ms: pacer lag: p50 " + report.FormatMs(pacer.P50) + "ms p99 " + report.FormatMs(pacer.P99) + "ms max "} {
				if !slices.ContainsFunc(extra, func(l string) bool { return strings.HasPrefix(l, want) }) {
					t.Errorf("final block lacks %q:\n%s", want, strings.Join(extra, "\n"))
				}
			}
			// The batch layer shows the pacer lag too.
			rr := stampede(t, "report", run.Info.ID, "--results-dir", dir)
			if rr.code != 0 || !strings.Contains(rr.stdout, "pacer lag: p50 "+report.FormatMs(pacer.P50)+"ms p99 "+report.FormatMs(pacer.P99)+"ms") {
				t.Errorf("report: exit %d, no pacer lag line of the run's:\n%s%s", rr.code, rr.stdout, rr.stderr)
			}
		})
	}
}

// TestClosedLoopBanner checks the header line of a run without a rate,
// which records no schedule series.
func TestClosedLoopBanner(t *testing.T) {
	dir := t.TempDir()
	r := stampede(t, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--max-ops", "2000", "--telemetry=false", "--results-dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "closed loop: latency is each operation's service time") {
		t.Errorf("header:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "pacer lag") {
		t.Errorf("a closed loop shows a pacer lag:\n%s", r.stdout)
	}
	_, series := onlyRun(t, dir)
	for name := range series {
		if strings.Contains(name, ".") {
			t.Errorf("a closed loop recorded series %s", name)
		}
	}
}

// TestPacerFlags checks that --latency and --pacer need a rate, and that
// --pacer takes only its two values; sysbench's --rate counts as a rate.
func TestPacerFlags(t *testing.T) {
	null := []string{"--driver", "null", "--telemetry=false"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"latency without a rate", []string{"run", "ycsb", "--latency", "service"}, "--latency only applies with --max-rate"},
		{"latency both without a rate", []string{"run", "ycsb", "--latency", "both", "--max-rate", "0"}, "--latency only applies with --max-rate"},
		{"pacer without a rate", []string{"run", "ycsb", "--pacer", "coarse"}, "--pacer only applies with --max-rate"},
		{"unknown pacer", []string{"run", "ycsb", "--pacer", "exact", "--max-rate", "100"}, `unknown --pacer "exact": use precise or coarse`},
		{"sysbench latency without a rate", []string{"oltp_point_select", "--latency=service", "run"}, "--latency only applies with --max-rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOneLineError(t, stampede(t, append(tc.args, null...)...), 2, tc.want)
		})
	}
	dir := t.TempDir()
	r := stampede(t, append([]string{"oltp_point_select", "--rate=2000", "--latency=service", "--pacer=coarse", "--events=400",
		"--results-dir", dir, "run"}, null...)...)
	// A sysbench command line: --rate is sysbench's one queue.
	if r.code != 0 || !strings.Contains(r.stderr, "sysbench's rate: events arrive at 2000/s on average (exponential gaps, coarse pacer)") ||
		!strings.Contains(r.stderr, "latency is each event's service time (--latency service)") {
		t.Errorf("sysbench --rate with --latency and --pacer: exit %d\n%s", r.code, r.stderr)
	}
}

// TestNullDriverLatencyIsPacerLag checks, on the figures a null-driver run
// saves, that the intended latency is the schedule lag plus the service
// time (means, within the histograms' resolution), and that with
// operations that cost nothing the schedule lag is all the pacer's: the
// pacer lag's mean is the operations' schedule lags' mean, for each pacer.
func TestNullDriverLatencyIsPacerLag(t *testing.T) {
	for _, pacer := range []string{"precise", "coarse"} {
		t.Run(pacer, func(t *testing.T) {
			const workers, rate = 4, 4000
			dir := t.TempDir()
			r := stampede(t, "run", "ycsb", "--driver", "null", "--concurrency", strconv.Itoa(workers), "--max-rate", strconv.Itoa(rate),
				"--max-ops", "2000", "--pacer", pacer, "--telemetry=false", "--format", "json", "--results-dir", dir)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			_, series := onlyRun(t, dir)
			// Each value is kept to within 0.512 µs below 1 ms, and to
			// 1/1024 above; means are in ms.
			tol := func(ms float64) float64 { return 3*0.000512 + ms/300 }
			var n int64
			var lagSum, serviceMax float64
			for _, op := range []string{"read", "update"} {
				in, lag, svc := series[op], series[op+".lag"], series[op+".service"]
				if in.Count == 0 || lag.Count != in.Count || svc.Count != in.Count {
					t.Fatalf("%s: counts %d, lag %d, service %d", op, in.Count, lag.Count, svc.Count)
				}
				if d := in.Mean - lag.Mean - svc.Mean; math.Abs(d) > tol(in.Mean) {
					t.Errorf("%s: mean intended %.6f ms, lag %.6f + service %.6f: off by %.6f", op, in.Mean, lag.Mean, svc.Mean, d)
				}
				n += in.Count
				lagSum += lag.Mean * float64(in.Count)
				serviceMax = max(serviceMax, svc.Max)
			}
			p := series["pacer.lag"]
			if p.Count != n {
				t.Fatalf("pacer.lag counts %d of %d operations", p.Count, n)
			}
			// Nothing queues while every operation takes less than a
			// worker's interval; the run checks that rather than assume
			// it.
			if interval := float64(workers) * 1000 / rate; serviceMax >= interval {
				t.Skipf("an operation took %.3f ms, more than the %.3f ms interval: it may have queued others", serviceMax, interval)
			}
			if d := p.Mean - lagSum/float64(n); math.Abs(d) > tol(p.Mean) {
				t.Errorf("pacer lag mean %.6f ms, schedule lag mean %.6f ms, with nothing queued", p.Mean, lagSum/float64(n))
			}
		})
	}
}

// TestPacerSeriesIsNotAnOp checks that the batch layer keeps the pacer
// lag apart from the operations (out of the total, the charts' operation
// series and the runs list), as it does the OP.service and OP.lag series.
func TestPacerSeriesIsNotAnOp(t *testing.T) {
	if results.IsOp(engine.PacerSeries) {
		t.Errorf("results.IsOp(%q) is true", engine.PacerSeries)
	}
}
