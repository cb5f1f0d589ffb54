package output

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
)

// fleetFlags are the run flags that name a fleet: clients of one fleet
// run must agree on them (CheckClients).
var fleetFlags = []string{"tenants", "tenant-mode", "tenant-pattern"}

// isFleet reports whether a run ran a fleet (--tenants N).
func isFleet(r *runlog.Run) bool {
	t := r.Info.Flags["tenants"]
	return t != "" && t != "0"
}

// FleetOf returns the fleet's tenant workloads and table of runs (their
// summary.json): one fleet run's as it printed them; several runs', each
// a client's share of one fleet's tenants (run --tenants --clients), as
// one run of the whole fleet prints them: every tenant workload's
// figures, the table's operations per tenant and efficiency over all of
// them, active the clients' actives added, client CPU the clients'
// cores added, server CPU the mean of the clients' readings of it, QPS
// and p99 those of v, the clients' histograms merged. Nil, with the
// reason in why ("" when the runs are no fleet's), when there is no
// table to show: not every run is a fleet's or has its summary, runs
// ran the same tenants, or v is another window than the runs' whole
// time after the ramp (the tenants' figures cover that only).
func FleetOf(runs []*runlog.Run, v results.View) (tenants []fleet.TenantResult, sum *run.FleetSummary, why string) {
	fleets := 0
	for _, r := range runs {
		if isFleet(r) {
			fleets++
		}
	}
	if fleets == 0 {
		return nil, nil, ""
	}
	if fleets < len(runs) {
		return nil, nil, "some of these runs are a fleet's and some are not: no fleet table for them together"
	}
	if v.Window != (results.Window{}).String() {
		return nil, nil, "the tenants' figures cover each run's whole time after its ramp: report without --from, --to or --include-ramp for the fleet's table"
	}
	type share struct {
		Tenants []fleet.TenantResult `json:"tenants"`
		Fleet   *run.FleetSummary    `json:"fleet"`
	}
	shares := make([]share, len(runs))
	for i, r := range runs {
		if len(r.Summary) == 0 || json.Unmarshal(r.Summary, &shares[i]) != nil || shares[i].Fleet == nil {
			return nil, nil, fmt.Sprintf("run %s has no fleet summary (it did not finish): no fleet table", r.Info.ID)
		}
	}
	first := shares[0].Fleet
	if len(runs) == 1 {
		s := *first
		return shares[0].Tenants, &s, ""
	}
	// The clients' shares must not overlap: a run of the whole fleet
	// (no First) overlaps any other.
	for i := range shares {
		for j := i + 1; j < len(shares); j++ {
			a, b := shares[i].Fleet, shares[j].Fleet
			if a.Last == 0 || b.Last == 0 || (a.First <= b.Last && b.First <= a.Last) {
				return nil, nil, fmt.Sprintf("runs %s and %s ran the same tenants: no fleet table for them together (report them apart)", runs[i].Info.ID, runs[j].Info.ID)
			}
		}
	}
	merged := &run.FleetSummary{Tenants: first.Tenants, Mode: first.Mode, Pattern: first.Pattern,
		WorkersPerTenant: first.WorkersPerTenant, ConnsPerTenant: first.ConnsPerTenant, Clients: len(runs),
		QPS: v.Total.Rate, P99: v.Total.P99}
	active := 0
	var server float64
	servers := 0
	for _, sh := range shares {
		f := sh.Fleet
		tenants = append(tenants, sh.Tenants...)
		active += f.Active
		merged.Rotate = merged.Rotate || f.Rotate
		merged.ClientCPU += f.ClientCPU
		if f.ServerCPU != nil {
			server += *f.ServerCPU
			servers++
		}
	}
	if servers > 0 {
		server /= float64(servers)
		merged.ServerCPU = &server
	}
	slices.SortStableFunc(tenants, func(a, b fleet.TenantResult) int { return a.ID - b.ID })
	merged.Summary = fleet.SummarizeWith(active, tenants, tenantFigurer(runs[0], first.WorkersPerTenant))
	return tenants, merged, ""
}

// tenantFigurer returns a tenant's workload of run r as its run made it
// (its workload flags from run.json, workers per tenant), for the figures'
// texts; nil when it has no figures or cannot be rebuilt.
func tenantFigurer(r *runlog.Run, workers int) workload.Figurer {
	meta, ok := workload.Get(r.Info.Workload)
	if !ok {
		return nil
	}
	gen := meta.New()
	fig, ok := gen.(workload.Figurer)
	if !ok {
		return nil
	}
	if f, ok := gen.(workload.Flagser); ok {
		var setErr error
		f.Flags().FlagSet.VisitAll(func(fl *pflag.Flag) {
			if val, ok := r.Info.Flags[fl.Name]; ok && val != fl.DefValue && setErr == nil {
				setErr = setFlag(fl, val)
			}
		})
		if setErr != nil {
			return nil
		}
	}
	if wf, ok := gen.(workload.WorkerFigurer); ok && workers > 0 {
		wf.SetFigureWorkers(workers)
	}
	return fig
}

// fleetTenantsLine says which tenants a fleet table covers when it is one
// client's share, or how many clients it merged.
func fleetTenantsLine(f *run.FleetSummary) string {
	switch {
	case f.Clients > 1:
		return "fleet's tenants from " + strconv.Itoa(f.Clients) + " clients"
	case f.Last != 0:
		return fmt.Sprintf("this client's share: tenants %d..%d", f.First, f.Last)
	}
	return ""
}
