package sqlscript

import (
	"errors"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// refuseAll runs each of the refusals of what init made in turn and
// refuses, in one line, everything they found (workload.Refusal: each
// problem named, the flag that forces them said once, at the end): a
// renamed table and a renamed index on another table are named
// together, so that the refusal names every object --force-drop would
// drop (before, the first refusal alone was said, and --force-drop went
// on to drop what the later ones would have named). An error that is no
// refusal (a server's) is returned at once.
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
		var r *workload.RefusalError
		if errors.As(err, &r) {
			found = append(found, r.Problems...) // one list, not nested
			continue
		}
		found = append(found, err)
	}
	return workload.Refusal(found...)
}
