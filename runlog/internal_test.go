package runlog

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestMemTotal(t *testing.T) {
	tests := []struct {
		path string
		want uint64
	}{
		{filepath.Join("testdata", "meminfo"), 65831840 * 1024},
		{filepath.Join("testdata", "missing"), 0},
	}
	for _, tt := range tests {
		if got := memTotal(tt.path); got != tt.want {
			t.Errorf("memTotal(%s) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

// TestEmptyIntervalLines checks that writeEmpty writes, for empty
// histograms of several configurations and intervals, the line the
// library's HistogramLogWriter writes, byte for byte, and that a cached
// encoding serves a later interval.
func TestEmptyIntervalLines(t *testing.T) {
	w := &Writer{baseMs: 1_795_661_652_123}
	for _, cfg := range []histConfig{{1, 3_600_000_000_000, 3}, {1, 60_000_000_000, 2}, {1000, 10_000_000, 4}} {
		for _, iv := range [][2]int64{{0, 1000}, {1000, 2001}, {123_456, 125_000}, {7, 8}} {
			h := hdrhistogram.New(cfg.lowest, cfg.highest, int(cfg.digits))
			startMs, endMs := w.baseMs+iv[0], w.baseMs+iv[1]
			var want bytes.Buffer
			lw := hdrhistogram.NewHistogramLogWriter(&want)
			lw.SetBaseTime(w.baseMs)
			h.SetTag("read.lag")
			h.SetStartTimeMs(startMs)
			h.SetEndTimeMs(endMs)
			if err := lw.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
			w.hlogBuf.Reset()
			if err := w.writeEmpty("read.lag", h, startMs, endMs); err != nil {
				t.Fatal(err)
			}
			if got := w.hlogBuf.String(); got != want.String() {
				t.Errorf("%+v, interval %v:\ngot  %q\nwant %q", cfg, iv, got, want.String())
			}
		}
	}
	if len(w.empty) != 3 {
		t.Errorf("%d cached encodings for 3 configurations", len(w.empty))
	}
}
