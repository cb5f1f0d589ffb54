package results_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// TestSavedTotalsEqualStream: for completed runs, Recompute over the
// default window from the saved totals.json equals the streaming
// recompute exactly (one run, a run with a ramp-up and errors, several
// clients merged), and the saved file is what is read (the intervals
// blanked, the figures the same); a killed run gets no file and is
// streamed; any other window streams; a damaged file, or one of another
// run, is ignored with one warning and the streamed figures.
func TestSavedTotalsEqualStream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		specs []runSpec
	}{
		{"one run", []runSpec{{id: "one", intervals: synthetic(5)}}},
		{"ramp and errors", []runSpec{{id: "ramp", intervals: synthetic(7), rampEnd: 1500 * time.Millisecond,
			extra: func(i int) map[string]float64 {
				return map[string]float64{"reconnects": float64(i), "skipped": float64(3 * i), "errors_40001": float64(i % 2), "retries_40P01": float64(i % 3)}
			}}}},
		{"three clients", []runSpec{
			{id: "c0", intervals: synthetic(6), rampEnd: 2 * time.Second},
			{id: "c1", intervals: synthetic(5), start: t0.Add(300 * time.Millisecond), rampEnd: 2 * time.Second},
			{id: "c2", intervals: synthetic(8), start: t0.Add(-200 * time.Millisecond)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var runs []*runlog.Run
			for _, s := range tc.specs {
				runs = append(runs, writeRun(t, root, s))
			}
			stream, streamWarns := recompute(t, runs, results.Window{})
			windowed := results.Window{From: results.Offset(1 * time.Second)}
			streamW, _ := recompute(t, runs, windowed)
			for _, run := range runs {
				if err := results.SaveTotals(run); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(filepath.Join(run.Dir, runlog.TotalsFile)); err != nil {
					t.Fatalf("no %s: %v", runlog.TotalsFile, err)
				}
			}
			saved, warns := recompute(t, runs, results.Window{})
			if !reflect.DeepEqual(warns, streamWarns) {
				t.Errorf("warnings from the saved totals %v, the stream's %v", warns, streamWarns)
			}
			sameView(t, "saved totals", saved, stream)
			if got, _ := recompute(t, runs, windowed); !reflect.DeepEqual(got, streamW) {
				t.Error("a window other than the default did not equal the stream")
			}

			// The file is what is read: intervals.hlog blanked (same
			// size), the figures are the same.
			for _, run := range runs {
				blank(t, filepath.Join(run.Dir, runlog.HlogFile))
			}
			blanked, _ := recompute(t, runs, results.Window{})
			sameView(t, "intervals blanked", blanked, stream)
		})
	}

	// A killed run: no file, streamed.
	root := t.TempDir()
	killed := writeRun(t, root, runSpec{id: "killed", intervals: synthetic(4), killed: true})
	if err := results.SaveTotals(killed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(killed.Dir, runlog.TotalsFile)); err == nil {
		t.Error("a killed run got totals")
	}

	// Damaged or foreign files: ignored with one warning, streamed.
	other := writeRun(t, root, runSpec{id: "other", intervals: synthetic(6)})
	if err := results.SaveTotals(other); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(filepath.Join(other.Dir, runlog.TotalsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name string
		edit func(doc map[string]any) // nil: data replaces the file
		data string
	}{
		{name: "truncated", data: string(foreign[:len(foreign)/2])},
		{name: "not JSON", data: "\x00\x01"},
		{name: "another run's", data: string(foreign)},
		{name: "other version", edit: func(d map[string]any) { d["version"] = 99 }},
		{name: "other hlog size", edit: func(d map[string]any) { d["hlog_bytes"] = d["hlog_bytes"].(float64) + 1 }},
		{name: "other window", edit: func(d map[string]any) { d["from"] = t0.Add(time.Hour) }},
		{name: "histogram damaged", edit: func(d map[string]any) {
			d["series"].([]any)[0].(map[string]any)["hist"] = "HISTFAAAA"
		}},
		{name: "series missing", edit: func(d map[string]any) { d["series"] = d["series"].([]any)[1:] }},
		{name: "no interval", edit: func(d map[string]any) { d["intervals"] = 0 }},
		{name: "empty span", edit: func(d map[string]any) { d["spans"] = [][2]time.Time{{t0, t0}} }},
	} {
		t.Run(bad.name, func(t *testing.T) {
			run := writeRun(t, t.TempDir(), runSpec{id: "bad", intervals: synthetic(5), rampEnd: time.Second})
			stream, _ := recompute(t, []*runlog.Run{run}, results.Window{})
			if err := results.SaveTotals(run); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(run.Dir, runlog.TotalsFile)
			data := []byte(bad.data)
			if bad.edit != nil {
				mine, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]any
				if err := json.Unmarshal(mine, &doc); err != nil {
					t.Fatal(err)
				}
				bad.edit(doc)
				if data, err = json.Marshal(doc); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, warns := recompute(t, []*runlog.Run{run}, results.Window{})
			if len(warns) != 1 || !strings.Contains(warns[0].Error(), runlog.TotalsFile) || !strings.Contains(warns[0].Error(), "intervals were read instead") {
				t.Fatalf("warnings %v, want one about %s", warns, runlog.TotalsFile)
			}
			got.Warnings = nil
			sameView(t, bad.name, got, stream)
		})
	}
}

// sameView fails unless a and b are equal, field by field and as
// report's JSON.
func sameView(t *testing.T, what string, a, b results.View) {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ja) != string(jb) || !reflect.DeepEqual(a, b) {
		t.Errorf("%s: view differs from the stream's:\n%s\n%s", what, ja, jb)
	}
}

// blank overwrites the file at path with as many spaces as it holds.
func blank(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat(" ", int(fi.Size()))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSavedSeriesEqualStream: for completed runs, TimeSeries from the
// saved series.ndjson equals the streamed one exactly (a ramp-up, errors,
// endpoints' parts, a short last interval merged into the one before),
// and the file is what is read (the intervals blanked, the same series);
// by locality, and for a killed run, the intervals are streamed; a
// damaged file, or one of another run, is ignored with one warning and
// the streamed series.
func TestSavedSeriesEqualStream(t *testing.T) {
	for _, tc := range seriesRuns() {
		t.Run(tc.name, func(t *testing.T) {
			run := writeRun(t, t.TempDir(), tc.spec)
			stream, err := results.TimeSeries(run)
			if err != nil {
				t.Fatal(err)
			}
			byLoc, err := results.TimeSeriesBy(run, "locality")
			if err != nil {
				t.Fatal(err)
			}
			if err := results.SaveSeries(run); err != nil {
				t.Fatal(err)
			}
			saved, err := results.TimeSeries(run)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(saved, stream) {
				t.Fatalf("saved series differ from the stream's:\n%+v\n%+v", saved, stream)
			}
			if got, _ := results.TimeSeriesBy(run, "locality"); !reflect.DeepEqual(got, byLoc) {
				t.Error("series by locality differ")
			}
			if len(stream.Ops) == 0 || (tc.spec.lastLen > 0 && len(stream.Ops[0].Points) != len(tc.spec.intervals)-1) {
				t.Fatalf("the case does not hold what it tests: %d ops", len(stream.Ops))
			}
			blank(t, filepath.Join(run.Dir, runlog.HlogFile))
			if got, err := results.TimeSeries(run); err != nil || !reflect.DeepEqual(got, stream) {
				t.Errorf("intervals blanked: %v, series differ", err)
			}
		})
	}

	root := t.TempDir()
	killed := writeRun(t, root, runSpec{id: "killed", intervals: synthetic(4), killed: true})
	if err := results.SaveSeries(killed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(killed.Dir, runlog.SeriesFile)); err == nil {
		t.Error("a killed run got series")
	}
	other := writeRun(t, root, runSpec{id: "other", intervals: synthetic(6)})
	if err := results.SaveSeries(other); err != nil {
		t.Fatal(err)
	}
	foreign, err := os.ReadFile(filepath.Join(other.Dir, runlog.SeriesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name string
		edit func(lines []string) []string
	}{
		{"another run's", func([]string) []string { return strings.Split(strings.TrimSuffix(string(foreign), "\n"), "\n") }},
		{"truncated", func(l []string) []string { return l[:len(l)-1] }},
		{"a line too many", func(l []string) []string { return append(l, l[len(l)-1]) }},
		{"not JSON", func(l []string) []string { l[2] = "{"; return l }},
		{"other version", func(l []string) []string { l[0] = strings.Replace(l[0], `"version":1`, `"version":7`, 1); return l }},
		{"other ramp", func(l []string) []string {
			l[0] = strings.Replace(l[0], `"ramp_end_s":1`, `"ramp_end_s":2`, 1)
			return l
		}},
		{"a point missing", func(l []string) []string {
			l[1] = strings.Replace(l[1], `"count":[`, `"count":[0,`, 1)
			return l
		}},
		{"spans out of order", func(l []string) []string { l[1], l[2] = l[2], l[1]; return l }},
	} {
		t.Run(bad.name, func(t *testing.T) {
			run := writeRun(t, t.TempDir(), runSpec{id: "bad", intervals: synthetic(5), rampEnd: time.Second})
			stream, err := results.TimeSeries(run)
			if err != nil {
				t.Fatal(err)
			}
			if err := results.SaveSeries(run); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(run.Dir, runlog.SeriesFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bad.edit(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := results.TimeSeries(run)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], runlog.SeriesFile) || !strings.Contains(got.Warnings[0], "intervals were read instead") {
				t.Fatalf("warnings %q, want one about %s", got.Warnings, runlog.SeriesFile)
			}
			got.Warnings = nil
			if !reflect.DeepEqual(got, stream) {
				t.Errorf("series differ from the stream's")
			}
		})
	}
}

// TestSavedTotalsReadSparse: a run of many series, most of them empty (a
// workload's error kinds, its unused .lag and .service series: 64 for
// YCSB), reads back from totals.json equal to the stream, and without a
// dense histogram per series (156 kB each, and a zlib reader): the run's
// end reads the file back (its index in the results store), and holding
// them all was most of its live heap's rise over the run's steady state.
func TestSavedTotalsReadSparse(t *testing.T) {
	series := []string{"read", "update"}
	for i := range 62 {
		series = append(series, fmt.Sprintf("read/error_%02d", i))
	}
	run := writeRun(t, t.TempDir(), runSpec{id: "sparse", series: series, intervals: synthetic(5)})
	stream, _ := recompute(t, []*runlog.Run{run}, results.Window{})
	if err := results.SaveTotals(run); err != nil {
		t.Fatal(err)
	}
	blank(t, filepath.Join(run.Dir, runlog.HlogFile)) // the file is what is read
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	saved, _ := recompute(t, []*runlog.Run{run}, results.Window{})
	runtime.ReadMemStats(&after)
	sameView(t, "saved totals of 64 series", saved, stream)
	// Dense, the 64 series alone would allocate 64 x 156 kB = 10 MB; the
	// two filled ones' accumulators are dense (2 x 156 kB).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3<<20 {
		t.Errorf("reading totals.json of 64 series allocated %.1f MB, want at most 3 MB", float64(alloc)/(1<<20))
	} else {
		t.Logf("reading totals.json of 64 series allocated %.2f MB", float64(alloc)/(1<<20))
	}
}
