package tpcc

import (
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

var (
	_ workload.Figurer         = (*tpcc)(nil)
	_ workload.AfterRunChecker = (*tpcc)(nil)
)

// CheckAfterRun implements workload.AfterRunChecker: the consistency
// conditions are checked after every run (--skip-checks skips them).
func (*tpcc) CheckAfterRun() bool { return true }

// maxTpmCPerWarehouse is the highest tpmC one warehouse can produce with
// the specification's keying and think times: 12.86 New-Orders per minute
// (as `cockroach workload` uses for its efficiency).
const maxTpmCPerWarehouse = 12.86

// Figures implements workload.Figurer: tpmC (New-Orders per minute),
// efficiency (tpmC as a share of the maximum for the warehouses, as
// `cockroach workload` prints it), and HammerDB's NOPM (New-Orders per
// minute) and TPM (transactions of every type per minute).
func (g *tpcc) Figures(counts map[string]int64, elapsed time.Duration) []workload.Figure {
	minutes := elapsed.Minutes()
	if minutes <= 0 {
		return nil
	}
	var all int64
	for _, n := range counts {
		all += n
	}
	tpmC := float64(counts[txs[opNewOrder].name]) / minutes
	eff := 100 * tpmC / (maxTpmCPerWarehouse * float64(g.warehouses))
	tpm := float64(all) / minutes
	return []workload.Figure{
		{Name: "tpmC", Value: tpmC, Text: fmt.Sprintf("%.1f", tpmC)},
		{Name: "efficiency", Value: eff, Text: fmt.Sprintf("%.1f%% (tpmC / (12.86 x %d warehouses))", eff, g.warehouses)},
		{Name: "NOPM", Value: tpmC, Text: fmt.Sprintf("%.0f (HammerDB: New-Orders per minute)", tpmC)},
		{Name: "TPM", Value: tpm, Text: fmt.Sprintf("%.0f (HammerDB-style: transactions of every type per minute)", tpm)},
	}
}
