package workload_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// figGen is a Figurer with an observed figure among its own; errGen adds
// error figures.
type figGen struct{}

func (figGen) Meta() workload.Meta      { return workload.Meta{Name: "fig"} }
func (figGen) Tables() []workload.Table { return nil }
func (figGen) Ops(context.Context, *sqlx.DB, workload.OpsConfig) (workload.QueryLoad, error) {
	return workload.QueryLoad{}, nil
}
func (figGen) Figures(counts map[string]int64, _ time.Duration) []workload.Figure {
	return []workload.Figure{{Name: "a", Value: float64(counts["op"])}, {Name: "server", Observed: true}, {Name: "b"}}
}

type errGen struct{ figGen }

func (errGen) ErrorFigures(errs map[string]int64) []workload.Figure {
	return []workload.Figure{{Name: "op_error", Value: float64(errs["op"])}}
}

// TestAllFigures checks AllFigures' order: the figures computed from the
// counts, then the error figures, then the observed ones.
func TestAllFigures(t *testing.T) {
	counts, errs := map[string]int64{"op": 7}, map[string]int64{"op": 2}
	for _, tc := range []struct {
		f    workload.Figurer
		want []string
	}{
		{figGen{}, []string{"a", "b", "server"}},
		{errGen{}, []string{"a", "b", "op_error", "server"}},
	} {
		var names []string
		for _, fig := range workload.AllFigures(tc.f, counts, errs, time.Second) {
			names = append(names, fig.Name)
		}
		if !reflect.DeepEqual(names, tc.want) {
			t.Errorf("%T: %v, want %v", tc.f, names, tc.want)
		}
	}
}
