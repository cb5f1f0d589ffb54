package output

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistogramExportCockroachGolden feeds the histogram of cockroach's
// own exporter test (pkg/workload/histogram/exporter/testdata/kv: its
// JSON line, then its OpenMetrics text) to HistogramExporter and compares
// both exports with cockroach's, byte for byte.
func TestHistogramExportCockroachGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "cockroach", "exporter_kv"))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(strings.TrimPrefix(string(b), "echo\n"), "----\n", 2)
	if len(parts) != 2 {
		t.Fatalf("testdata: want the JSON line, ----, the OpenMetrics text")
	}
	wantJSON, wantOM := parts[0], parts[1]
	var snap crdbSnapshot
	if err := json.Unmarshal([]byte(wantJSON), &snap); err != nil {
		t.Fatal(err)
	}
	h := snap.Hist.histogram()
	for _, tc := range []struct{ format, want string }{{HistogramJSON, wantJSON}, {HistogramOpenMetrics, wantOM}} {
		var out bytes.Buffer
		e := NewHistogramExporter(&out, tc.format, 0, nil)
		if err := e.Write(snap.Name, h, snap.Elapsed, snap.Now); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tc.want {
			t.Errorf("%s export differs from cockroach's:\n got %q\nwant %q", tc.format, got, tc.want)
		}
	}
}
