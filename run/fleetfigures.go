package run

import (
	"fmt"
	"slices"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/workload"
)

// fleetFigures returns a fleet run's own figures for a workload whose
// figures add up over its tenants (workload.FleetSummer): each the sum of
// the tenant workloads' figures, in the order the first tenant's came,
// with the smallest and largest tenant's beside it. Other workloads get
// none (their tenants' figures stay in the tenant results).
func fleetFigures(gen workload.Generator, tenants []fleet.TenantResult) []workload.Figure {
	fs, ok := gen.(workload.FleetSummer)
	if !ok || !fs.FiguresAddUp() || len(tenants) == 0 {
		return nil
	}
	var names []string
	sums, lo, hi, n := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]int{}
	for _, t := range tenants {
		tn := make([]string, 0, len(t.Figures))
		for name := range t.Figures {
			tn = append(tn, name)
		}
		slices.Sort(tn)
		for _, name := range tn {
			v := t.Figures[name]
			if n[name] == 0 {
				names = append(names, name)
				lo[name], hi[name] = v, v
			}
			n[name]++
			sums[name] += v
			lo[name], hi[name] = min(lo[name], v), max(hi[name], v)
		}
	}
	out := make([]workload.Figure, 0, len(names))
	for _, name := range names {
		out = append(out, workload.Figure{Name: name, Value: sums[name], Observed: true,
			Text: fmt.Sprintf("%.0f (the sum over %d tenant workloads, each its own figure from its own counts and time: from %.0f to %.0f per tenant)",
				sums[name], n[name], lo[name], hi[name])})
	}
	return out
}
