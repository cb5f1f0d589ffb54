package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/internal/golden"
)

// TestReportOldFormat: runs written before interval histograms were
// stored uncompressed (testdata/oldformat: two clients' two-minute runs
// of three operations, their histograms deflated at the library's best
// compression, written by scripts/benchruns of that version) report as
// that version reported them: the goldens are its output, the merge of
// every interval (--from 0s, text and JSON), a window, and the saved
// views (totals.json).
func TestReportOldFormat(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "oldformat"))); err != nil {
		t.Fatal(err)
	}
	before := reportHashDir(t, root)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"oldformat_merge.golden", []string{"--from", "0s"}},
		{"oldformat_json.golden", []string{"--from", "0s", "--format", "json"}},
		{"oldformat_window.golden", []string{"--from", "30s", "--to", "90s"}},
		{"oldformat_views.golden", nil},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			r := stampede(t, append([]string{"report", "--tag", "job=old", "--results-dir", root}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(r.stdout+r.stderr))
		})
	}
	reportCheckUnchanged(t, before, reportHashDir(t, root))
}
