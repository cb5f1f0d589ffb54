package output

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
)

// update is internal/golden's -update, for the tests of the package that
// still write their golden files themselves (sweep_internal_test.go).
var update = golden.Update

// TestFleetTableGolden checks the fleet table's layout against golden
// files (go test -run FleetTable -update rewrites them).
func TestFleetTableGolden(t *testing.T) {
	server := 1.75
	starved := make([]int, 12)
	for i := range starved {
		starved[i] = 100 + i
	}
	for _, tc := range []struct {
		golden string
		f      run.FleetSummary
	}{
		{"fleet_bank.golden", run.FleetSummary{
			Summary: fleet.Summary{Active: 1000, Ran: 1000, OpsMin: 812, OpsMedian: 1190, OpsMax: 1402},
			Tenants: 20000, Mode: "database", Pattern: "bank_%d", WorkersPerTenant: 1, ConnsPerTenant: 1,
			ClientCPU: 0.8312, QPS: 19873.25, P99: 12.71,
		}},
		{"fleet_tpcc_rotate.golden", run.FleetSummary{
			Summary: fleet.Summary{Active: 20, Ran: 57, OpsMin: 0, OpsMedian: 130, OpsMax: 141, Starved: starved,
				// The texts are the workload's (TestFleetRunTPCCEfficiency
				// checks real ones); here, their place.
				Efficiency: &fleet.MinAvg{Avg: 97.46, Min: 91.04, MinTenant: 17,
					Pooled: "POOLED FIGURE'S TEXT", MinText: "TENANT 17'S FIGURE'S TEXT"}},
			Tenants: 200, Mode: "schema", Pattern: "tpcc_%d", Rotate: true, WorkersPerTenant: 10, ConnsPerTenant: 2,
			ClientCPU: 0.05, ServerCPU: &server, QPS: 4.31, P99: 0.087,
		}},
		{"fleet_column.golden", run.FleetSummary{
			Summary: fleet.Summary{Active: 3, Ran: 3, OpsMin: 5, OpsMedian: 5, OpsMax: 6, Starved: []int{2}},
			Tenants: 3, Mode: "column", WorkersPerTenant: 2, ConnsPerTenant: 1, QPS: 1.5, P99: 0.5,
		}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeFleetTable(&b, &tc.f); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), b.Bytes())
		})
	}
}
