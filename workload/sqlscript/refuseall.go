package sqlscript

import (
	"errors"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// refuseAll runs each of the refusals of what init made in turn and
// refuses, in one line, everything they found: a renamed table and a
// renamed index on another table are named together, so that the
// refusal names every object --force-drop would drop (before, the first
// refusal alone was said, and --force-drop went on to drop what the
// later ones would have named). An error that is no refusal (a server's)
// is returned at once.
func refuseAll(checks ...func() error) error {
	var found []error
	for _, check := range checks {
		err := check()
		if err == nil {
			continue
		}
		if !errors.Is(err, sqlx.ErrConfig) {
			return err
		}
		found = append(found, err)
	}
	switch len(found) {
	case 0:
		return nil
	case 1:
		return found[0]
	}
	lines := make([]string, len(found))
	for i, err := range found {
		lines[i] = err.Error()
	}
	return sqlx.ConfigErrorf("%s", strings.Join(lines, "; and "))
}
