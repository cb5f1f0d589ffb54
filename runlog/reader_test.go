package runlog_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
)

// hlogHeaderLines is the number of header lines Create writes to
// intervals.hlog; each interval of the tests adds two lines.
const hlogHeaderLines = 5

func TestCrashTolerance(t *testing.T) {
	tests := []struct {
		name      string
		intervals int // intervals written before the "crash"
		damage    func(t *testing.T, dir string)
		want      int    // complete intervals expected
		file      string // "" means no TruncatedError expected
		line      int    // expected TruncatedError.Line
		reason    string // substring of TruncatedError.Reason
	}{
		{
			name: "half line in both files (kill -9 mid-write)", intervals: 2,
			damage: func(t *testing.T, dir string) {
				appendFile(t, filepath.Join(dir, runlog.HlogFile), []byte("Tag=read,2.000000,1.000000,0.30"))
				appendFile(t, filepath.Join(dir, runlog.IntervalsFile), []byte(`{"start":"2026-11-22T10:35:14.1`))
			},
			want: 2, file: runlog.IntervalsFile, line: 3, reason: "incomplete last line",
		},
		{
			name: "half histogram line only", intervals: 2,
			damage: func(t *testing.T, dir string) {
				appendFile(t, filepath.Join(dir, runlog.HlogFile), []byte("Tag=read,2.000000,1.000000,0.30,HISTFAAAA"))
			},
			want: 2, file: runlog.HlogFile, line: hlogHeaderLines + 2*2 + 1, reason: "incomplete last line",
		},
		{
			name: "histograms without commit record", intervals: 3,
			damage: func(t *testing.T, dir string) {
				keepLines(t, filepath.Join(dir, runlog.IntervalsFile), 2)
			},
			want: 2, file: runlog.HlogFile, line: hlogHeaderLines + 2*2 + 1, reason: "without a commit record",
		},
		{
			name: "commit record without histograms", intervals: 2,
			damage: func(t *testing.T, dir string) {
				keepLines(t, filepath.Join(dir, runlog.HlogFile), hlogHeaderLines+2+1)
			},
			want: 1, file: runlog.HlogFile, line: hlogHeaderLines + 2 + 2, reason: "file ends before the histograms of interval 2",
		},
		{
			name: "garbage commit record", intervals: 2,
			damage: func(t *testing.T, dir string) {
				appendFile(t, filepath.Join(dir, runlog.IntervalsFile), []byte("not json\n"))
			},
			want: 2, file: runlog.IntervalsFile, line: 3, reason: "invalid JSON",
		},
		{
			name: "zero-filled tail (power loss)", intervals: 2,
			damage: func(t *testing.T, dir string) {
				appendFile(t, filepath.Join(dir, runlog.HlogFile), make([]byte, 100))
				appendFile(t, filepath.Join(dir, runlog.IntervalsFile), make([]byte, 100))
			},
			want: 2, file: runlog.IntervalsFile, line: 3, reason: "incomplete last line",
		},
		{
			name: "corrupted histogram in the middle", intervals: 3,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, runlog.HlogFile)
				lines := bytes.SplitAfter(readFile(t, path), []byte("\n"))
				i := hlogHeaderLines + 2 // first line of interval 2
				lines[i] = append(lines[i][:bytes.LastIndexByte(lines[i], ',')+1], []byte("AAAA!!\n")...)
				if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: 1, file: runlog.HlogFile, line: hlogHeaderLines + 3, reason: "cannot decode histogram",
		},
		{
			name: "series mismatch", intervals: 2,
			damage: func(t *testing.T, dir string) {
				path := filepath.Join(dir, runlog.HlogFile)
				data := readFile(t, path)
				// Rename the last histogram line's tag.
				i := bytes.LastIndex(data, []byte("Tag=update,"))
				data = append(data[:i:i], append([]byte("Tag=delete,"), data[i+len("Tag=update,"):]...)...)
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: 1, file: runlog.HlogFile, line: hlogHeaderLines + 4, reason: `unexpected series "delete"`,
		},
		{
			name: "no intervals", intervals: 0,
			damage: func(t *testing.T, dir string) {},
			want:   0,
		},
		{
			name: "intact", intervals: 3,
			damage: func(t *testing.T, dir string) {},
			want:   3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := runlog.Create(t.TempDir(), testInfo("crash", t0))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			written := writeIntervals(t, w, 0, tt.intervals)
			tt.damage(t, w.Dir()) // no Finish, no Close: the process "died"

			run, err := runlog.Open(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			if run.Info.Status != runlog.StatusRunning || run.Info.End != nil || run.Summary != nil {
				t.Errorf("Info = %+v, Summary = %s", run.Info, run.Summary)
			}
			before := snapshot(t, w.Dir())
			ivs, err := run.Intervals()
			if !reflect.DeepEqual(before, snapshot(t, w.Dir())) {
				t.Error("Intervals modified the run directory")
			}
			if len(ivs) != tt.want {
				t.Fatalf("got %d intervals, want %d (err %v)", len(ivs), tt.want, err)
			}
			for i, iv := range ivs {
				for _, s := range written[i] {
					if d := iv.Series[s.Name]; d == nil || !d.Histogram().Equals(s.Hist) || d.Count != s.Count || d.Errors != s.Errors {
						t.Errorf("interval %d series %s differs", i, s.Name)
					}
				}
			}
			if tt.file == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var te *runlog.TruncatedError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *TruncatedError", err)
			}
			if te.File != tt.file || te.Line != tt.line || te.Complete != tt.want || !strings.Contains(te.Reason, tt.reason) {
				t.Errorf("got %+v, want file %s line %d complete %d reason ~%q", *te, tt.file, tt.line, tt.want, tt.reason)
			}
			if errors.Unwrap(err) != nil {
				t.Errorf("TruncatedError wraps %v", errors.Unwrap(err))
			}
		})
	}
}

func TestTruncatedErrorMessage(t *testing.T) {
	tests := []struct {
		err  runlog.TruncatedError
		want string
	}{
		{
			runlog.TruncatedError{File: runlog.HlogFile, Line: 10, Reason: "incomplete last line", Complete: 2},
			"intervals.hlog is truncated at line 10: incomplete last line; showing the 2 complete intervals before it",
		},
		{
			runlog.TruncatedError{File: runlog.IntervalsFile, Line: 2, Reason: "invalid JSON", Complete: 1},
			"intervals.ndjson is truncated at line 2: invalid JSON; showing the 1 complete interval before it",
		},
		{
			runlog.TruncatedError{File: runlog.EventsFile, Line: 4, Reason: "incomplete last line", Complete: 3},
			"events.ndjson is truncated at line 4: incomplete last line; showing the 3 complete events before it",
		},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

func TestEventsTruncated(t *testing.T) {
	w, err := runlog.Create(t.TempDir(), testInfo("ev", t0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	w.Event(runlog.Event{Time: t0, Kind: runlog.EventError, Op: "read", Code: "57P01", Message: "terminating connection"})
	w.Event(runlog.Event{Time: t0.Add(time.Millisecond), Kind: runlog.EventReconnect})
	writeIntervals(t, w, 0, 1) // flushes the events
	appendFile(t, filepath.Join(w.Dir(), runlog.EventsFile), []byte(`{"time":"2026-11-22T10:35:13Z","kind":"err`))

	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	evs, err := run.Events()
	if len(evs) != 2 || evs[0].Code != "57P01" || evs[1].Kind != runlog.EventReconnect {
		t.Errorf("Events = %+v", evs)
	}
	var te *runlog.TruncatedError
	if !errors.As(err, &te) || te.File != runlog.EventsFile || te.Line != 3 || te.Complete != 2 {
		t.Fatalf("error = %v", err)
	}
	if want := "events.ndjson is truncated at line 3: incomplete last line; showing the 2 complete events before it"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

// TestHlogCrossCheck reads intervals.hlog with hdrhistogram-go's own log
// reader, as HdrHistogram tools would.
func TestHlogCrossCheck(t *testing.T) {
	w, err := runlog.Create(t.TempDir(), testInfo("xcheck", t0))
	if err != nil {
		t.Fatal(err)
	}
	written := writeIntervals(t, w, 0, 3)
	if err := w.Finish(t0.Add(3*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(w.Dir(), runlog.HlogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr := hdrhistogram.NewHistogramLogReader(f)
	var n int
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("histogram %d: %v", n, err)
		}
		if h == nil {
			break
		}
		i, j := n/2, n%2
		if i >= len(written) {
			t.Fatalf("too many histograms")
		}
		want := written[i][j]
		start, end := intervalBounds(i)
		if h.Tag() != want.Name {
			t.Errorf("histogram %d: tag %q, want %q", n, h.Tag(), want.Name)
		}
		if !h.Equals(want.Hist) {
			t.Errorf("histogram %d: differs", n)
		}
		// The log reader converts seconds to ms with truncation, so allow
		// for floating point error of 1 ms.
		if d := h.StartTimeMs() - start.UnixMilli(); d < -1 || d > 1 {
			t.Errorf("histogram %d: start %d ms, want %d", n, h.StartTimeMs(), start.UnixMilli())
		}
		if d := h.EndTimeMs() - end.UnixMilli(); d < -1 || d > 1 {
			t.Errorf("histogram %d: end %d ms, want %d", n, h.EndTimeMs(), end.UnixMilli())
		}
		n++
	}
	if n != 6 {
		t.Errorf("log reader found %d histograms, want 6", n)
	}
	if lr.RangeObservedMax() != max(written[0][1].Hist.Max(), written[2][1].Hist.Max()) {
		t.Errorf("RangeObservedMax = %d", lr.RangeObservedMax())
	}
}

func TestOpenErrors(t *testing.T) {
	root := t.TempDir()
	write := func(name, runJSON string) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if runJSON != "" {
			if err := os.WriteFile(filepath.Join(dir, runlog.RunFile), []byte(runJSON), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	empty := write("empty", "")
	tests := []struct {
		name    string
		dir     string
		is      error
		message string
	}{
		{"not a run dir", empty, runlog.ErrNotRunDir, "not a stampede run directory: " + empty + " (no run.json)"},
		{"missing dir", filepath.Join(root, "nope"), fs.ErrNotExist, ""},
		{"future version", write("v2", `{"format_version": 2, "id": "v2"}`), runlog.ErrUnsupportedFormat,
			filepath.Join(root, "v2") + ": unsupported run format version 2 (this stampede reads version 1)"},
		{"no version", write("v0", `{"id": "v0"}`), runlog.ErrUnsupportedFormat, ""},
		{"invalid json", write("bad", `{"format_version": 1,`), nil, "invalid run.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runlog.Open(tt.dir)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if tt.message != "" && !strings.Contains(err.Error(), tt.message) {
				t.Errorf("error %q does not contain %q", err, tt.message)
			}
		})
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runlog.Open(filepath.Join(root, "file")); !errors.Is(err, runlog.ErrNotRunDir) {
		t.Errorf("Open(file) = %v, want ErrNotRunDir", err)
	}
}

func TestFindAndList(t *testing.T) {
	root := t.TempDir()
	ids := []struct {
		id    string
		start time.Time
	}{
		// Starts deliberately not in ID order, to check List sorts by Start.
		{"20260101-000000-ycsb-aaaa", t0.Add(2 * time.Hour)},
		{"20260101-000000-ycsb-aabb", t0},
		{"20260102-000000-tpcc-cccc", t0.Add(time.Hour)},
	}
	dirs := map[string]string{}
	for _, r := range ids {
		w, err := runlog.Create(root, testInfo(r.id, r.start))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		dirs[r.id] = w.Dir()
	}
	// Things that are not runs.
	if err := os.Mkdir(filepath.Join(root, "20260103-junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "20260104-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	before := snapshot(t, root)
	tests := []struct {
		ref  string
		want string
		is   error
		msg  string
	}{
		{ref: "20260101-000000-ycsb-aaaa", want: dirs["20260101-000000-ycsb-aaaa"]},
		{ref: "20260102", want: dirs["20260102-000000-tpcc-cccc"]},
		{ref: "20260101-000000-ycsb-aab", want: dirs["20260101-000000-ycsb-aabb"]},
		{ref: dirs["20260102-000000-tpcc-cccc"], want: dirs["20260102-000000-tpcc-cccc"]},
		{ref: dirs["20260102-000000-tpcc-cccc"] + "/", want: dirs["20260102-000000-tpcc-cccc"]},
		{ref: "20260101-000000-ycsb-aa", is: runlog.ErrAmbiguousRun,
			msg: `ambiguous run reference "20260101-000000-ycsb-aa": matches 2 runs under ` + root + ": 20260101-000000-ycsb-aaaa, 20260101-000000-ycsb-aabb"},
		{ref: "2026", is: runlog.ErrAmbiguousRun, msg: "matches 3 runs"},
		{ref: "2027", is: runlog.ErrRunNotFound, msg: `no run "2027" under ` + root},
		{ref: "20260103", is: runlog.ErrRunNotFound},
		{ref: "", is: runlog.ErrRunNotFound},
		{ref: filepath.Join(root, "20260103-junk"), is: runlog.ErrNotRunDir},
		{ref: filepath.Join(root, "missing"), is: runlog.ErrRunNotFound},
	}
	for _, tt := range tests {
		t.Run("find "+tt.ref, func(t *testing.T) {
			got, err := runlog.Find(root, tt.ref)
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Fatalf("Find = %q, %v; want error %v", got, err, tt.is)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %q does not contain %q", err, tt.msg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := runlog.Find(filepath.Join(root, "missing-root"), "2026"); !errors.Is(err, runlog.ErrRunNotFound) {
		t.Errorf("Find in missing root: %v", err)
	}

	runs, err := runlog.List(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID)
	}
	want := []string{"20260101-000000-ycsb-aabb", "20260102-000000-tpcc-cccc", "20260101-000000-ycsb-aaaa"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(before, snapshot(t, root)) {
		t.Error("Find or List modified the run root")
	}

	// An unreadable run does not hide the others.
	bad := filepath.Join(root, "20260105-future")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, runlog.RunFile), []byte(`{"format_version": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err = runlog.List(root)
	if len(runs) != 3 || !errors.Is(err, runlog.ErrUnsupportedFormat) {
		t.Errorf("List with a future run: %d runs, %v", len(runs), err)
	}

	runs, err = runlog.List(filepath.Join(root, "missing-root"))
	if runs != nil || err != nil {
		t.Errorf("List(missing root) = %v, %v", runs, err)
	}
}

// TestReadingDoesNotModify checks that no reading function changes a run
// directory, finished or crashed.
func TestReadingDoesNotModify(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, testInfo("ro", t0))
	if err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 2)
	w.Event(runlog.Event{Kind: runlog.EventError})
	if err := w.Finish(t0.Add(2*time.Second), runlog.StatusCompleted, "", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(w.Dir(), runlog.HlogFile), []byte("Tag=re")) // damaged, too
	before := snapshot(t, root)
	dir, err := runlog.Find(root, "ro")
	if err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Intervals(); err == nil {
		t.Error("damaged hlog not reported")
	}
	if _, err := run.Events(); err != nil {
		t.Error(err)
	}
	if _, err := runlog.List(root); err != nil {
		t.Error(err)
	}
	if !reflect.DeepEqual(before, snapshot(t, root)) {
		t.Error("reading modified the run directory")
	}
}
