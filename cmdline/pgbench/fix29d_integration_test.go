package pgbench_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/stats"
)

// logMoments reads the per-transaction logs (-l) in dir: the latency
// moments of every script (index 0: all) and the schedule lag's (with a
// rate), over the transactions that succeeded, in µs.
func logMoments(t *testing.T, dir string, rated bool) (lat []stats.Moments, lag stats.Moments) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
	if len(files) == 0 {
		t.Fatalf("no pgbench_log.* in %s", dir)
	}
	lat = make([]stats.Moments, 1)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fs := strings.Fields(l)
			us, err := strconv.ParseFloat(fs[2], 64)
			if err != nil { // failed or skipped
				continue
			}
			script, _ := strconv.Atoi(fs[3])
			for len(lat) < script+2 {
				lat = append(lat, stats.Moments{})
			}
			lat[0].Add(us)
			lat[script+1].Add(us)
			if rated {
				v, err := strconv.ParseFloat(fs[6], 64)
				if err != nil {
					t.Fatalf("%s: line %q: no schedule_lag", f, l)
				}
				lag.Add(v)
			}
		}
	}
	return lat, lag
}

var (
	reportAverage = regexp.MustCompile(`(?m)latency average = ([0-9.]+) ms$`)
	reportStddev  = regexp.MustCompile(`(?m)latency stddev = ([0-9.]+) ms$`)
	reportLag     = regexp.MustCompile(`rate limit schedule lag: avg ([0-9.]+) \(max ([0-9.]+)\) ms`)
)

// TestReportIsItsLog: pgbench's report's latency average and stddev (in
// total and by script) and its schedule lag's average and maximum are
// those of its own per-transaction log, to the printed digit; the real
// pgbench's are, and stampede's must be.
func TestReportIsItsLog(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	cases := []struct {
		name  string
		args  []string
		rated bool
	}{
		{"progress", []string{"-S", "-c", "4", "-j", "2", "-T", "2", "-P", "5"}, false},
		{"rate", []string{"-S", "-c", "2", "-T", "2", "-R", "300"}, true},
		{"scripts", []string{"-b", "select-only@3", "-b", "simple-update@1", "-c", "2", "-T", "2", "-L", "50"}, false},
	}
	ms := func(us float64) string { return fmt.Sprintf("%.3f", us/1e3) }
	for _, c := range cases {
		for _, real := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/real=%v", c.name, real), func(t *testing.T) {
				dir := t.TempDir()
				out, _ := tool(t, real, dir, append(append(append([]string{}, srv...), "-n", "-l"), append(c.args, db)...)...)
				lat, lag := logMoments(t, dir, c.rated)
				averages, stddevs := reportAverage.FindAllStringSubmatch(out, -1), reportStddev.FindAllStringSubmatch(out, -1)
				want := len(lat)
				if want == 2 { // one script: no lines by script
					want = 1
				}
				if len(averages) != want || len(stddevs) != want {
					t.Fatalf("%d latency averages and %d stddevs in the report, want %d each:\n%s", len(averages), len(stddevs), want, out)
				}
				for i := range want {
					if got, w := averages[i][1], ms(lat[i].Mean()); got != w {
						t.Errorf("latency average %d: report %s ms, log %s ms (%d transactions)\n%s", i, got, w, lat[i].N, out)
					}
					if got, w := stddevs[i][1], ms(lat[i].StdDev()); got != w {
						t.Errorf("latency stddev %d: report %s ms, log %s ms\n%s", i, got, w, out)
					}
				}
				if !c.rated {
					return
				}
				m := reportLag.FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("no schedule lag line:\n%s", out)
				}
				if m[1] != ms(lag.Mean()) || m[2] != ms(lag.Max) {
					t.Errorf("schedule lag: report avg %s max %s ms, log avg %s max %s ms", m[1], m[2], ms(lag.Mean()), ms(lag.Max))
				}
				if math.IsNaN(lag.Mean()) || lag.N == 0 {
					t.Errorf("the log has no lag")
				}
			})
		}
	}
}

// initDB creates a database loaded by pgbench -i -q with the options
// opts, by the real pgbench or by stampede's (stampede), and returns its
// name; it is dropped when the test ends.
func initDB(t *testing.T, stampede bool, opts ...string) string {
	t.Helper()
	srv := server(t)
	name := emptyDB(t, "pgbpart")
	tool(t, !stampede, t.TempDir(), append(append(append(append([]string{}, srv...), "-i", "-q"), opts...), name)...)
	return name
}

// TestPartitionsAsPgbench: over a partitioned pgbench_accounts, made by
// pgbench -i or by stampede's, stampede pgbench's report says the
// partition method and the partitions' count after the scaling factor,
// line for line as the real pgbench's.
func TestPartitionsAsPgbench(t *testing.T) {
	srv := server(t)
	for _, method := range []string{"range", "hash"} {
		for _, byStampede := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stampede-init=%v", method, byStampede), func(t *testing.T) {
				db := initDB(t, byStampede, "--partitions", "3", "--partition-method", method)
				args := append(append([]string{}, srv...), "-n", "-S", "-t", "5", db)
				want, _ := tool(t, true, t.TempDir(), args...)
				got, _ := tool(t, false, t.TempDir(), args...)
				if w, g := strings.Join(blank(want), "\n"), strings.Join(blank(got), "\n"); w != g {
					t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
				}
				if line := "partition method: " + method + "\npartitions: 3\n"; !strings.Contains(got, line) {
					t.Errorf("stampede's report does not say %q:\n%s", line, got)
				}
			})
		}
	}
}

// TestConnectionAdviceAsPgbench: a run that needs more connections than
// the server accepts is refused before it starts with advice in
// pgbench's option (-c), not stampede's (--concurrency, --conns).
func TestConnectionAdviceAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	var limit int
	if err := adminConn(t).QueryRow(context.Background(), "SELECT current_setting('max_connections')::int").Scan(&limit); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, srv...), "-n", "-S", "-t", "1", "-c", strconv.Itoa(limit+5), db)
	_, stderr, code := run(t, false, t.TempDir(), args...)
	if code == 0 || !regexp.MustCompile(`use -c \d+ or less, or raise max_connections\n$`).MatchString(stderr) || strings.Contains(stderr, "--c") {
		t.Errorf("stampede pgbench -c %d over max_connections %d: exit %d, %q; want pgbench's -c in the advice", limit+5, limit, code, stderr)
	}
}
