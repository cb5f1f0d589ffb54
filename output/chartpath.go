package output

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/stampede-bench/stampede/runlog"
)

// CheckChartPath refuses a chart file at path inside one of the run
// directories, which are never modified, in a directory that does not
// exist or cannot be written, or a file that exists unless force (as gen
// refuses to replace its --out); "" is no chart. It is called before a
// report is printed, so that a bad --chart fails before any output.
func CheckChartPath(path string, runs []*runlog.Run, force bool) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("--chart %s is a directory: give a file name, such as %s", path, filepath.Join(path, "chart"+filepath.Ext(path)))
		}
		if !force {
			return fmt.Errorf("--chart %s exists: not overwritten (add --force to replace it, or give another --chart)", path)
		}
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("--chart %s: %v", path, err)
	}
	for _, run := range runs {
		rd, err := filepath.Abs(run.Dir)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rd, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("--chart %s: the file would be inside run directory %s, which stampede never modifies", path, run.Dir)
		}
	}
	return CheckFileDir("--chart", path, "chart")
}

// CheckFileDir refuses a file at path, given as flag, whose directory
// does not exist, is not a directory or cannot be written: stampede
// creates no directory the user did not ask for. what names the file for
// the advice ("chart").
func CheckFileDir(flag, path, what string) error {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, err)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s %s: %s is a file, not a directory: write the %s elsewhere", flag, path, dir, what)
	} else if err != nil {
		return fmt.Errorf("%s %s: directory %s does not exist: create it, or write the %s elsewhere", flag, path, dir, what)
	}
	if unix.Access(dir, unix.W_OK) != nil {
		return fmt.Errorf("%s %s: directory %s is not writable", flag, path, dir)
	}
	return nil
}
