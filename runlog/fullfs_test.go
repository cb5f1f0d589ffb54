package runlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestFinishOnAFullDisk fills a real (tmpfs) disk under a run: its
// interval writes fail, and Err says so, but Finish still records the
// run's end, thanks to the space the writer reserved, so the run is not
// taken for a killed one. A run started on a nearly full disk, with less
// free than the reserve's 512 KiB, keeps what it could reserve: before,
// it reserved nothing and its end was never recorded.
func TestFinishOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	for _, tc := range []struct {
		name    string
		free    int64 // bytes left free before the run starts; 0: all of the disk
		summary int   // the size of summary.json's one value
	}{
		{"a disk with room", 0, 64 << 10}, // a large summary.json
		{"300 KiB free", 300 << 10, 64 << 10},
		{"120 KiB free", 120 << 10, 8 << 10}, // a usual one
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt, err := os.MkdirTemp("/tmp", "files-")
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=2m"); err != nil {
				os.Remove(mnt)
				t.Skipf("cannot mount a tmpfs: %v", err)
			}
			defer func() {
				if err := syscall.Unmount(mnt, 0); err != nil {
					_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
				}
				os.Remove(mnt)
			}()
			if tc.free > 0 {
				var st syscall.Statfs_t
				if err := syscall.Statfs(mnt, &st); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(mnt, "prefill"), make([]byte, int64(st.Bavail)*st.Bsize-tc.free), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			w, err := runlog.Create(mnt, testInfo("full-1", t0))
			if err != nil {
				t.Fatal(err)
			}
			writeIntervals(t, w, 0, 1)
			f, err := os.Create(filepath.Join(mnt, "fill"))
			if err != nil {
				t.Fatal(err)
			}
			for err == nil {
				_, err = f.Write(make([]byte, 4096))
			}
			f.Close()
			// The files' last pages may hold a few intervals more.
			err = nil
			for i := 1; err == nil && i < 200; i++ {
				start, end := intervalBounds(i)
				err = w.WriteInterval(start, end, intervalSeries(t, i), nil)
			}
			if err == nil || !strings.Contains(err.Error(), "no space left") {
				t.Fatalf("WriteInterval on a full disk: %v", err)
			}
			if err := w.Err(); err == nil || !strings.Contains(err.Error(), "no space left") {
				t.Errorf("Err after a failed write: %v", err)
			}
			summary := map[string]any{"ops": strings.Repeat("x", tc.summary)}
			if err := w.Finish(t0.Add(2*time.Second), runlog.StatusCompleted, runlog.IncompletePrefix+"disk full", summary); err != nil {
				t.Fatalf("Finish on a full disk: %v", err)
			}
			runs, err := runlog.List(mnt)
			if err != nil || len(runs) != 1 {
				t.Fatalf("List: %v %v", runs, err)
			}
			if runs[0].Status != runlog.StatusCompleted || runs[0].Error != runlog.IncompletePrefix+"disk full" {
				t.Errorf("the run's end: status %q, error %q", runs[0].Status, runs[0].Error)
			}
			if _, err := os.Stat(filepath.Join(mnt, "full-1", runlog.SummaryFile)); err != nil {
				t.Errorf("summary.json: %v", err)
			}
		})
	}
}

// TestModes checks that a run directory and its files are readable by
// their owner only, whatever the umask.
func TestModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := filepath.Join(t.TempDir(), "runs")
	w, err := runlog.Create(root, testInfo("modes-1", t0))
	if err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 1)
	if err := w.WriteTelemetry(map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(t0.Add(time.Second), runlog.StatusCompleted, "", map[string]int{"ops": 1}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, filepath.Join(root, "modes-1")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want mode 0700", p, fi.Mode().Perm(), err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "modes-1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 {
		t.Errorf("%d files in the run directory, want 6 (the reserve removed)", len(entries))
	}
	for _, e := range entries {
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
}
