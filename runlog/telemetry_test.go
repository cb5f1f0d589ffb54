package runlog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

func TestTelemetryRoundTrip(t *testing.T) {
	type sample struct {
		N   int     `json:"n"`
		CPU float64 `json:"cpu"`
	}
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		samples int
		tail    string // bytes appended after the writer finished (a crash mid-write)
		want    int
		trunc   bool
	}{
		{name: "none", samples: 0, want: 0},
		{name: "three", samples: 3, want: 3},
		{name: "torn last line", samples: 2, tail: `{"n":9,"cp`, want: 2, trunc: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			info := testInfo("20261122-100000-tel-"+string(rune('a'+i)), t0)
			w, err := runlog.Create(root, info)
			if err != nil {
				t.Fatal(err)
			}
			for n := range tc.samples {
				if err := w.WriteTelemetry(sample{N: n, CPU: 1.5}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Finish(t0.Add(time.Minute), runlog.StatusCompleted, "", nil); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteTelemetry(sample{}); !errors.Is(err, runlog.ErrClosed) {
				t.Errorf("WriteTelemetry after Finish: %v, want ErrClosed", err)
			}
			path := filepath.Join(w.Dir(), runlog.TelemetryFile)
			if _, err := os.Stat(path); (err == nil) != (tc.samples > 0) {
				t.Errorf("telemetry file exists = %v with %d samples", err == nil, tc.samples)
			}
			if tc.tail != "" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tc.tail)
				f.Close()
			}
			run, err := runlog.Open(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			var got []sample
			err = run.Telemetry(func(line []byte) error {
				var s sample
				if err := json.Unmarshal(line, &s); err != nil {
					return err
				}
				got = append(got, s)
				return nil
			})
			var te *runlog.TruncatedError
			if errors.As(err, &te) != tc.trunc {
				t.Fatalf("Telemetry error = %v, truncated want %v", err, tc.trunc)
			}
			if !tc.trunc && err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("read %d samples, want %d", len(got), tc.want)
			}
			for n, s := range got {
				if s.N != n || s.CPU != 1.5 {
					t.Errorf("sample %d = %+v", n, s)
				}
			}
		})
	}
}
