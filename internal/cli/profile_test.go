package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileFlags checks the hidden profiling flags of run: a writable
// path gets a profile; an unwritable one is a one-line error before the run
// for --cpuprofile, and a one-line warning after it for --memprofile (the
// run's results are saved either way).
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "p.prof")
	for _, tc := range []struct {
		name     string
		flag     string
		path     string
		wantCode int
		wantErr  string // in the last line of stderr; "" for none
	}{
		{"cpu profile", "--cpuprofile", filepath.Join(dir, "cpu.prof"), 0, ""},
		{"alloc profile", "--memprofile", filepath.Join(dir, "mem.prof"), 0, ""},
		{"cpu profile, bad path", "--cpuprofile", missing, 1, "cannot write the CPU profile"},
		{"alloc profile, bad path", "--memprofile", missing, 0, "cannot write the allocation profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--duration", "200ms",
				"--results-dir", t.TempDir(), tc.flag, tc.path)
			if r.code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", r.code, tc.wantCode, r.stderr)
			}
			if tc.wantErr == "" {
				if fi, err := os.Stat(tc.path); err != nil || fi.Size() == 0 {
					t.Errorf("profile %s: %v (size %v)", tc.path, err, fi)
				}
				return
			}
			if !strings.Contains(r.stderr, tc.wantErr) || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("stderr %q: want one line with %q", r.stderr, tc.wantErr)
			}
		})
	}
}
