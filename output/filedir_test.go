package output_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/output"
)

// TestHistogramsPathDirectory checks that --histograms is refused in one
// line, before the run, in a directory that does not exist (which
// stampede must not create) or under a file.
func TestHistogramsPathDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ro")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"parent is a file", filepath.Join(file, "x.json"), "--histograms " + filepath.Join(file, "x.json") + ": " + file + " is a file, not a directory: write the export elsewhere"},
		{"missing directory", filepath.Join(dir, "no", "dir", "x.json"), "directory " + filepath.Join(dir, "no", "dir") + " does not exist: create it, or write the export elsewhere"},
		{"existing directory", filepath.Join(dir, "x.json"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := output.CheckFileDir("--histograms", tc.path, "export")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Errorf("a directory was created: %v", err)
	}
}
