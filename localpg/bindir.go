package localpg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrBinariesNotFound is returned (possibly wrapped) by FindBinDir and Start
// when no directory with the PostgreSQL server binaries exists.
var ErrBinariesNotFound = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: install them with `apt-get install -y postgresql`")

// serverBinaries must all be present, as executables, in a bin directory.
var serverBinaries = []string{"initdb", "pg_ctl", "postgres"}

// packageBinGlob is where Debian's and Ubuntu's postgresql-NN packages put
// the server binaries, which are not on $PATH. A variable for tests.
var packageBinGlob = "/usr/lib/postgresql/*/bin"

// FindBinDir returns a directory that contains the PostgreSQL server
// binaries initdb, pg_ctl and postgres. It looks at the directories in $PATH
// first, in order, and then under /usr/lib/postgresql/*/bin, highest
// PostgreSQL version first. If none has all three, the error is
// ErrBinariesNotFound, which tells how to install them.
func FindBinDir() (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		// Relative entries (including "", meaning ".") are ignored, like
		// os/exec.LookPath refuses to resolve through them.
		if !filepath.IsAbs(dir) {
			continue
		}
		if hasServerBinaries(dir) == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob(packageBinGlob) // the only possible error is a bad pattern
	sortByVersionDesc(dirs)
	for _, dir := range dirs {
		if hasServerBinaries(dir) == nil {
			return dir, nil
		}
	}
	return "", ErrBinariesNotFound
}

// hasServerBinaries reports which server binary, if any, is missing from dir
// or not executable.
func hasServerBinaries(dir string) error {
	for _, name := range serverBinaries {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", p)
		}
	}
	return nil
}

// sortByVersionDesc sorts /usr/lib/postgresql/VERSION/bin paths by VERSION,
// compared numerically ("9.6" < "15" < "16"), highest first. Paths whose
// VERSION is not numeric sort last, by name.
func sortByVersionDesc(dirs []string) {
	version := func(dir string) []int {
		v := filepath.Base(filepath.Dir(dir))
		var nums []int
		for _, part := range strings.Split(v, ".") {
			n, err := strconv.Atoi(part)
			if err != nil {
				return nil
			}
			nums = append(nums, n)
		}
		return nums
	}
	sort.SliceStable(dirs, func(i, j int) bool {
		a, b := version(dirs[i]), version(dirs[j])
		if (a == nil) != (b == nil) {
			return a != nil
		}
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return dirs[i] < dirs[j]
	})
}
