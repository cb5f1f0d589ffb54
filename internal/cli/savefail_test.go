package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// runWhile runs a short null-driver YCSB run into root and calls during
// with its run directory once the run has written its first interval.
func runWhile(t *testing.T, root string, during func(dir string)) result {
	t.Helper()
	before := map[string]bool{}
	if runs, err := runlog.List(root); err == nil {
		for _, r := range runs {
			before[r.ID] = true
		}
	}
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--duration", "2s",
			"--display-every", "200ms", "--telemetry=false", "--results-dir", root)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs, _ := runlog.List(root)
		if n := len(runs); n > 0 && !before[runs[n-1].ID] {
			if b, err := os.ReadFile(filepath.Join(root, runs[n-1].ID, runlog.IntervalsFile)); err == nil && len(b) > 0 {
				during(filepath.Join(root, runs[n-1].ID))
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the run wrote no interval in 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return <-done
}

// TestUnsavedResults checks that a run whose results could not be saved
// says what became of them, instead of "results saved in", and exits 1,
// its figures printed on stdout: its directory removed during the run, or
// its end not recorded (run.json cannot be replaced).
func TestUnsavedResults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		during func(dir string) error
		want   func(dir string) string
	}{
		{"removed", os.RemoveAll, func(dir string) string {
			return "results not saved: the run directory " + dir + " was removed during the run"
		}},
		{"end not recorded", func(dir string) error {
			// run.json becomes a directory the final run.json cannot
			// be renamed over.
			if err := os.Remove(filepath.Join(dir, runlog.RunFile)); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(dir, runlog.RunFile, "x"), 0o700)
		}, func(dir string) string {
			return "results incomplete in " + dir + ": its directory could not be written at the run's end (cannot write run.json"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var dir string
			r := runWhile(t, root, func(d string) {
				dir = d
				if err := tc.during(d); err != nil {
					t.Fatal(err)
				}
			})
			checkFinalError(t, r, 1, tc.want(dir))
			if strings.Contains(r.stderr, "results saved in") {
				t.Errorf("says the results were saved:\n%s", r.stderr)
			}
			if !strings.Contains(r.stdout, "__result") {
				t.Errorf("the run's figures are not on stdout:\n%s", r.stdout)
			}
		})
	}
}

// TestReadOnlyRunDirectory makes a run's directory read-only in the
// middle of the run (a read-only bind mount over it: root ignores file
// modes): the run says in one line that its results are incomplete and
// where its end was recorded, exit 1; `runs` lists it as completed,
// results incomplete, and `report` says so, not "killed (its process
// died…)", which it was not.
func TestReadOnlyRunDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a read-only bind mount needs root")
	}
	root := t.TempDir()
	var dir string
	r := runWhile(t, root, func(d string) {
		dir = d
		if err := syscall.Mount(d, d, "", syscall.MS_BIND, ""); err != nil {
			t.Skipf("cannot bind-mount: %v", err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(d, syscall.MNT_DETACH) })
		if err := syscall.Mount("", d, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			t.Fatalf("remount read-only: %v", err)
		}
	})
	checkFinalError(t, r, 1, "results incomplete in "+dir+": its directory could not be written at the run's end (cannot write ")
	if !strings.Contains(r.stderr, "read-only file system") || !strings.Contains(r.stderr, "the end is recorded beside it, in "+runlog.EndFile(dir)) {
		t.Errorf("the cause or the record of the end is not named:\n%s", r.stderr)
	}
	id := filepath.Base(dir)
	runs := stampede(t, "runs", "--results-dir", root)
	if runs.code != 0 || !strings.Contains(runs.stdout, "completed, results incomplete") || strings.Contains(runs.stdout, "killed") {
		t.Errorf("runs: exit %d\n%s%s", runs.code, runs.stdout, runs.stderr)
	}
	rep := stampede(t, "report", "--results-dir", root, id)
	if rep.code != 0 || strings.Contains(rep.stdout, "killed") ||
		!strings.Contains(rep.stdout, "completed (results incomplete: its directory could not be written at its end (run.json: read-only file system)") {
		t.Errorf("report: exit %d\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
}

// mountTmpfs mounts a tmpfs of size bytes under /tmp/files-*, unmounted
// at the end of the test; the test is skipped where it cannot (not root).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir, err := os.MkdirTemp("/tmp", "files-")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		os.Remove(dir)
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
		os.Remove(dir)
	})
	return dir
}

// fill writes zeros to a file in dir until its disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "fill")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !strings.Contains(err.Error(), "no space left") {
				t.Fatal(err)
			}
			return
		}
	}
}

// TestFullResultsDisk fills a real (tmpfs) results disk in the middle of
// a run: the run still records its end, marked incomplete, says so and
// exits 1; `runs` and `runs --rebuild`, which only need to read, list it
// on the full disk and on the disk remounted read-only, with a warning
// that says what to do.
func TestFullResultsDisk(t *testing.T) {
	mnt := mountTmpfs(t, "4m")
	root := filepath.Join(mnt, "runs")
	// A first run, indexed while there is room.
	if r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "300ms", "--telemetry=false", "--results-dir", root); r.code != 0 {
		t.Fatalf("first run: %d\n%s", r.code, r.stderr)
	}
	var dir string
	r := runWhile(t, root, func(d string) { dir = d; fill(t, mnt) })
	checkFinalError(t, r, 1, "results saved in "+dir+", but incomplete (cannot write ")
	if !strings.Contains(r.stderr, "no space left on device") || strings.Contains(r.stderr, "\nresults saved in") {
		t.Errorf("the cause is not named, or the results are said saved:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "__result") {
		t.Errorf("the run's figures are not on stdout:\n%s", r.stdout)
	}
	run, err := runlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info := run.Info; info.Status != runlog.StatusCompleted || !strings.HasPrefix(info.Error, runlog.IncompletePrefix) {
		t.Errorf("run.json: status %q, error %q; want completed, %q...", info.Status, info.Error, runlog.IncompletePrefix)
	}
	if _, err := os.Stat(filepath.Join(dir, ".reserve")); err == nil {
		t.Errorf("the reserve file is left in %s", dir)
	}
	// warned says whether `runs` must warn: it must where the index
	// needs writing (a run to add, or --rebuild); on a read-only disk
	// after the first listing, plain `runs` reads the index, up to date.
	// `runs` only reads: it lists the runs from their directories, with a
	// warning; `runs --rebuild`, asked to write the store, fails in one
	// line naming the cause, and does not advise itself.
	checkRuns := func(state, cause string) {
		t.Helper()
		r := stampede(t, "runs", "--results-dir", root)
		if r.code != 0 || strings.Count(r.stdout, " ycsb ") != 2 || !strings.Contains(r.stdout, "completed, results incomplete") {
			t.Errorf("runs on a %s disk: exit %d\n%s\n%s", state, r.code, r.stdout, r.stderr)
		}
		warning := "warning: cannot write the results store " + filepath.Join(root, "index.sqlite")
		if !strings.Contains(r.stderr, warning) || !strings.Contains(r.stderr, "listing the runs from their directories") ||
			!strings.Contains(r.stderr, "then `stampede runs --rebuild` updates it") {
			t.Errorf("runs on a %s disk: no warning that says what happened and what to do:\n%s", state, r.stderr)
		}
		r = stampede(t, "runs", "--rebuild", "--results-dir", root)
		checkOneLineError(t, r, 1, "cannot rebuild the results store "+filepath.Join(root, "index.sqlite")+" ("+cause+"): nothing was rebuilt")
		if strings.Contains(r.stderr, "then `stampede runs --rebuild`") {
			t.Errorf("runs --rebuild on a %s disk advises itself: %s", state, r.stderr)
		}
	}
	fill(t, mnt) // again: the run freed its reserve
	checkRuns("full", "its disk is full, or failing")
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	checkRuns("read-only", "it is read-only")
}

// TestRunDirectoryModes checks that a run directory and its files, and
// the index, are readable by their owner only, whatever the umask.
func TestRunDirectoryModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	if r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "300ms", "--results-dir", root); r.code != 0 {
		t.Fatalf("run: %d\n%s", r.code, r.stderr)
	}
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	n := 0
	err = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == root {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 7 { // the run directory, its six files, the index
		t.Errorf("only %d entries under %s", n, root)
	}
}

// TestDiffNotSaved checks that a diff whose run cannot record its end
// (run.json replaced by a directory while it compares) prints the
// comparison, says the results were not saved instead of "saved as run",
// and exits non-zero.
func TestDiffNotSaved(t *testing.T) {
	dbA, dbB := freshDB(t, "files_diffa"), freshDB(t, "files_diffb")
	urlA, urlB := dbURL(t, dbA), dbURL(t, dbB)
	for _, u := range []string{urlA, urlB} {
		mustRun(t, "init", "bank", "--rows", "300000", "--seed", "7", u)
	}
	root := t.TempDir()
	stop := make(chan struct{})
	broke := make(chan bool, 1)
	go func() {
		for {
			select {
			case <-stop:
				broke <- false
				return
			default:
			}
			if runs, _ := runlog.List(root); len(runs) == 1 {
				dir := filepath.Join(root, runs[0].ID)
				if os.Remove(filepath.Join(dir, runlog.RunFile)) == nil && os.MkdirAll(filepath.Join(dir, runlog.RunFile, "x"), 0o700) == nil {
					broke <- true
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	r := stampede(t, "diff", "--workload", "bank", "--results-dir", root, urlA, urlB)
	close(stop)
	if !<-broke {
		t.Skip("the diff ended before its run.json could be replaced")
	}
	if !strings.Contains(r.stdout, "identical: 1 table, 300,000 rows compared") {
		t.Errorf("the comparison is not printed:\n%s", r.stdout)
	}
	lines := checkFinalError(t, r, 2, "the comparison above was not saved")
	if !strings.Contains(r.stderr, "results not saved in "+root) || !strings.Contains(r.stderr, "cannot write run.json") || strings.Contains(r.stderr, "saved as run") {
		t.Errorf("stderr does not say what became of the results:\n%s", strings.Join(lines, "\n"))
	}
}

// TestRunStartedOnNearlyFullDisk starts a run on a results disk with less
// free than the 512 KiB a run reserves for its end, and fills the rest
// during the run: the run still records its end (completed, incomplete),
// says so and exits 1. Before, the reserve was all or nothing: the run
// reserved nothing, could not write run.json at its end, and was listed
// as killed.
func TestRunStartedOnNearlyFullDisk(t *testing.T) {
	t.Run("full", func(t *testing.T) {
		// A run started on a disk that is full says so in one line,
		// naming the file and the cause once.
		mnt := mountTmpfs(t, "4m")
		root := filepath.Join(mnt, "runs")
		if err := os.Mkdir(root, 0o700); err != nil {
			t.Fatal(err)
		}
		fill(t, mnt)
		r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "300ms", "--telemetry=false", "--results-dir", root)
		checkOneLineError(t, r, 1, "cannot save results under "+root+" (")
		if n := strings.Count(r.stderr, "no space left on device"); n != 1 || !strings.Contains(r.stderr, "no space left on device): free space on its disk, or give --results-dir a directory on another") {
			t.Errorf("the cause is not said once, with what to do: %s", r.stderr)
		}
	})
	for _, tc := range []struct {
		name string
		free int64
	}{
		{"200 KiB free", 200 << 10},
		{"60 KiB free", 60 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := mountTmpfs(t, "4m")
			var st syscall.Statfs_t
			if err := syscall.Statfs(mnt, &st); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(mnt, "prefill"), make([]byte, int64(st.Bavail)*st.Bsize-tc.free), 0o600); err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(mnt, "runs")
			var dir string
			r := runWhile(t, root, func(d string) { dir = d; fill(t, mnt) })
			checkFinalError(t, r, 1, "results saved in "+dir+", but incomplete (cannot write ")
			run, err := runlog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if info := run.Info; info.Status != runlog.StatusCompleted || !strings.HasPrefix(info.Error, runlog.IncompletePrefix) {
				t.Errorf("run.json: status %q, error %q; want completed, %q...", info.Status, info.Error, runlog.IncompletePrefix)
			}
			if _, err := os.Stat(filepath.Join(dir, runlog.SummaryFile)); err != nil {
				t.Errorf("summary.json: %v", err)
			}
		})
	}
}
