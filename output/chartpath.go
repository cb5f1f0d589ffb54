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
// directories, which are never modified, or in a directory that does not
// exist or cannot be written; "" is no chart. It is called before a report
// is printed, so that a bad --chart fails before any output.
func CheckChartPath(path string, runs []*runlog.Run) error {
	if path == "" {
		return nil
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
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("--chart %s: directory %s does not exist: create it, or write the chart elsewhere", path, dir)
	}
	if unix.Access(dir, unix.W_OK) != nil {
		return fmt.Errorf("--chart %s: directory %s is not writable", path, dir)
	}
	return nil
}
