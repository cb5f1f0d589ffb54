package results

import (
	"errors"

	"github.com/stampede-bench/stampede/runlog"
)

// PerRun returns each run's own figures over w, for a chart that draws
// several runs side by side. A run with no interval in the window (which
// Recompute of all of them warned about) gets a View without figures.
func PerRun(runs []*runlog.Run, w Window) ([]View, error) {
	views := make([]View, 0, len(runs))
	for _, run := range runs {
		v, _, err := Recompute([]*runlog.Run{run}, w)
		var we *WindowError
		if errors.As(err, &we) {
			v, err = View{Runs: []string{run.Info.ID}}, nil
		}
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return views, nil
}
