package cli_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/limit"
	stampederun "github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// telemetryWriteRun writes a run whose telemetry shows the server writing
// wkBs kB/s to vda, with the given limits in run.json.
func telemetryWriteRun(t testing.TB, root, id string, start time.Time, wkBs float64, limits string) {
	t.Helper()
	info := runlog.RunInfo{ID: id, Workload: "oltp_write_only", Series: []string{"write"}, Start: start}
	if limits != "" {
		info.Limits = json.RawMessage(limits)
	}
	w, err := runlog.Create(root, info)
	if err != nil {
		t.Fatal(err)
	}
	sample := func(s, e time.Time, i int) telemetry.Sample {
		return telemetry.Sample{
			Start: s, End: e,
			CPU:    telemetry.CPU{User: 40, System: 10, IOWait: float64(i), Idle: 50 - float64(i), Cores: 2},
			Memory: telemetry.Memory{TotalBytes: 8 << 30, UsedBytes: 2 << 30},
			Disks:  []telemetry.Disk{{Name: "vda", WritesPerSec: wkBs / 16, WriteKBPerSec: wkBs, UtilPct: wkBs / 1000}},
			Procs:  []telemetry.ProcGroup{{Name: "postgres", Processes: 9, CPUCores: 0.5, RSSBytes: 300 << 20, WriteBytesPerSec: wkBs * 1024}},
		}
	}
	if err := w.WriteTelemetry(sample(start, start, 0)); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		h := stats.NewHistogram()
		for j := range 100 {
			_ = h.RecordValue(int64(1_000_000 + j*int(40000/wkBs)*1000))
		}
		s := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(s, s.Add(time.Second), []runlog.IntervalSeries{{Name: "write", Hist: h, Count: h.TotalCount()}}, nil); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteTelemetry(sample(s, s.Add(time.Second), i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(5*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
}

// TestCompareTelemetry compares a run without limits and one whose server
// was limited to 5 MB/s of writes: the Greenplum experiment.
func TestCompareTelemetry(t *testing.T) {
	// The cgroup as run records it (its path), and as an older stampede
	// recorded it (the group's description, with its version and limits
	// around the path): either way the path is shown once.
	for _, cgroup := range []string{"/sys/fs/cgroup/stampede/run-x", "cgroup v2 /sys/fs/cgroup/stampede/run-x: cpus 1.5, io 254:0 (/data) write 5.0M/s"} {
		t.Run(strings.Fields(cgroup)[0], func(t *testing.T) { compareTelemetry(t, cgroup) })
	}
}

func compareTelemetry(t *testing.T, cgroup string) {
	root := t.TempDir()
	telemetryWriteRun(t, root, "20261122-100000-oltp_write_only-aaaa", compareT0, 40000, "")
	rec, err := json.Marshal(stampederun.LimitsRecord{Text: "cpus 1.5, io 254:0 (/data) write 5.0M/s", Cgroup: cgroup, Version: "cgroup v2",
		CPUs: 1.5, IO: []limit.DeviceIO{{Major: 254, Minor: 0, Source: "/data", WriteBPS: 5 << 20}}, Processes: []string{"postgres"}})
	if err != nil {
		t.Fatal(err)
	}
	telemetryWriteRun(t, root, "20261122-110000-oltp_write_only-bbbb", compareT0.Add(time.Hour), 5120, string(rec))
	r := stampede(t, "compare", "--results-dir", root, "20261122-1000", "20261122-1100")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// The limits are a table, A beside B, as the telemetry below them,
	// not a JSON record.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^limits +A +B$`),
		regexp.MustCompile(`(?m)^cpus +none +1\.5$`),
		regexp.MustCompile(`(?m)^io 254:0 write +none +` + regexp.QuoteMeta(limit.FormatSize(5<<20)) + `/s$`),
		regexp.MustCompile(`(?m)^applied to +none +postgres$`),
		regexp.MustCompile(`(?m)^cgroup +none +v2 /sys/fs/cgroup/stampede/run-x$`),
		// Each telemetry row is labelled as report's telemetry block
		// labels the figure, avg or max after it.
		regexp.MustCompile(`(?m)^cpu sys % \(excl\. irq, softirq\) avg +% +10\.0 +10\.0 +1\.00$`),
		regexp.MustCompile(`(?m)^vda wkB/s max +kB/s +40000 +5120 +0\.13$`),
		regexp.MustCompile(`(?m)^postgres dirtied \(pidstat kB_wr/s\) avg +bytes/s +39M +5\.0M +0\.13$`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("no line matching %s in:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "{") {
		t.Errorf("compare printed JSON:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "/sys/fs/cgroup/stampede/run-x"); n != 1 {
		t.Errorf("the cgroup's path printed %d times, want once:\n%s", n, r.stdout)
	}
	// The labels are report's: every row of report's telemetry block of
	// run B is a compare row, avg and max (but those zero in both runs,
	// which compare leaves out).
	rep := stampede(t, "report", "--results-dir", root, "20261122-1100")
	i := strings.Index(rep.stdout, "\nfigure ")
	if i < 0 {
		t.Fatalf("no telemetry block in report:\n%s", rep.stdout)
	}
	rowRe := regexp.MustCompile(`^(.*?) +(\S+) +(\S+)$`)
	n := 0
	for _, l := range strings.Split(rep.stdout[i+1:], "\n")[1:] {
		f := rowRe.FindStringSubmatch(l)
		if f == nil || strings.HasPrefix(l, "bottleneck: ") {
			break // the table ends; the bottleneck line is report's own
		}
		if strings.Trim(f[2], "0.B/s") == "" && strings.Trim(f[3], "0.B/s") == "" {
			continue
		}
		n++
		for _, suffix := range []string{" avg", " max"} {
			if !strings.Contains(r.stdout, "\n"+f[1]+suffix+" ") {
				t.Errorf("report's telemetry row %q has no compare row %q:\n%s", f[1], f[1]+suffix, r.stdout)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d rows of report's telemetry block checked, want 10 or more:\n%s", n, rep.stdout)
	}
	golden.Check(t, filepath.Join("testdata", "compare_telemetry.golden"), []byte(strings.ReplaceAll(r.stdout, root, "ROOT")))

	r = stampede(t, "compare", "--results-dir", root, "--format", "json", "20261122-1000", "20261122-1100")
	var c struct {
		Telemetry []struct {
			Name  string   `json:"name"`
			Label string   `json:"label"`
			A     *float64 `json:"a"`
			B     *float64 `json:"b"`
			Ratio *float64 `json:"ratio"`
		} `json:"telemetry"`
		Limits *struct{ A, B json.RawMessage } `json:"limits"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.Limits == nil || string(c.Limits.A) != "null" || !strings.Contains(string(c.Limits.B), "5242880") {
		t.Errorf("limits = %+v", c.Limits)
	}
	found := false
	for _, row := range c.Telemetry {
		if row.Name == "disk_vda_wkB_s_avg" {
			found = true
			if row.Label != "vda wkB/s avg" {
				t.Errorf("disk_vda_wkB_s_avg label %q, want %q", row.Label, "vda wkB/s avg")
			}
			if row.Ratio == nil || *row.Ratio != 0.128 {
				t.Errorf("disk_vda_wkB_s_avg ratio = %v, want 0.128 (5120/40000)", row.Ratio)
			}
		}
	}
	if !found {
		t.Errorf("no disk_vda_wkB_s_avg row in %s", r.stdout)
	}
}
