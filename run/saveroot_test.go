package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSaveRootError: a results directory that cannot hold a run directory
// is named with the reason in words, as bad input, in one line, without
// the system call's text (chk28b F9 #64: `mkdir /proc/1/...: no such file
// or directory; pass --results-dir`, exit 1).
func TestSaveRootError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ root, reason string }{
		{"/proc/1", "it exists, but the system refuses new directories in it"},
		{"/proc/nope", "the system refuses to make it"},
		{file, "it is not a directory"},
		{filepath.Join(file, "runs"), "a part of its path is a file, not a directory"},
	} {
		_, err := runlog.Create(tc.root, runlog.RunInfo{ID: runlog.NewID("ycsb", time.Now()), Workload: "ycsb", Start: time.Now()})
		if err == nil {
			t.Fatalf("%s: runlog.Create succeeded", tc.root)
		}
		got := saveRootError(tc.root, err)
		msg := got.Error()
		if !errors.Is(got, ErrInput) || !strings.HasPrefix(msg, "cannot save results in "+tc.root+": "+tc.reason) ||
			!strings.Contains(msg, "give --results-dir a directory you can write") ||
			strings.Contains(msg, "mkdir") || strings.Contains(msg, "no such file") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q (input %v)", tc.root, msg, errors.Is(got, ErrInput))
		}
	}
}
