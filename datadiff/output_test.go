package datadiff

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/internal/golden"
)

// sampleResult is a diff that found a bit of everything.
func sampleResult() *Result {
	return &Result{
		A:     Side{Where: "10.0.0.1:5432/tpcc", Dialect: "postgres", Version: "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64", Snapshot: "REPEATABLE READ, one exported snapshot"},
		B:     Side{Where: "10.0.0.2:26257/tpcc", Dialect: "cockroach", Version: "CockroachDB CCL v24.1.0", Snapshot: "AS OF SYSTEM TIME, one cluster timestamp"},
		Conns: 4,
		Tables: []TableResult{
			{Table: "warehouse", Status: "identical", Hash: "canonical", RowsA: 4, RowsB: 4, Ranges: 1, Seconds: 0.01},
			{Table: "customer", Status: "differs", Hash: "canonical", RowsA: 120000, RowsB: 119999, Ranges: 160, DifferingRanges: 1, DifferingRows: 1, Seconds: 1.5,
				Notes: []string{"column c_id: integer on A, bigint on B (compared by value)"}},
			{Table: "order_line", Status: "differs", Hash: "canonical", RowsA: 1199228, RowsB: 1199228, Ranges: 1240, DifferingRanges: 3, DifferingRows: 2, Unlocated: 1, Seconds: 4.25},
			{Table: "history", Status: "differs", Hash: "canonical", FullRow: true, RowsA: 120000, RowsB: 120000, Ranges: 1, DifferingRanges: 1, Seconds: 0.5},
			{Table: "stock", Status: "shape", Shape: []string{"column s_dist_10: only on A", "column s_quantity: smallint on A, text on B"}},
			{Table: "new_order", Status: "missing", Missing: "B"},
		},
		Rows: []RowDiff{
			{Table: "customer", Key: []Value{{"c_w_id", str("1")}, {"c_d_id", str("4")}, {"c_id", str("2001")}}, Kind: OnlyA},
			{Table: "order_line", Key: []Value{{"ol_w_id", str("2")}, {"ol_d_id", str("7")}, {"ol_o_id", str("1234")}, {"ol_number", str("3")}}, Kind: Changed,
				Columns: []ColumnDiff{{Column: "ol_amount", A: str("38.4"), B: str("39.4")}, {Column: "ol_delivery_d", A: nil, B: str("2026-11-25 10:00:00")}}},
			{Table: "order_line", Key: []Value{{"ol_w_id", str("4")}, {"ol_d_id", str("1")}, {"ol_o_id", str("9")}, {"ol_number", str("12")}}, Kind: OnlyB},
		},
		Notes:   []string{"server B cannot share its snapshot: one connection reads it"},
		Seconds: 6.5,
	}
}

// TestOutputGolden checks the text and JSON output of a diff against
// testdata/ (go test -run TestOutputGolden -update rewrites them).
func TestOutputGolden(t *testing.T) {
	converged := sampleResult()
	converged.Tables = converged.Tables[:1]
	converged.Rows, converged.Notes = []RowDiff{}, nil
	converged.Identical = true
	converged.Converge = &Convergence{Limit: 30, Converged: true, After: 2.13, Resolution: 0.11, Checks: 21, Ranges: 1}
	for name, res := range map[string]*Result{"differs": sampleResult(), "converged": converged} {
		for _, format := range []string{"txt", "json"} {
			var b bytes.Buffer
			var err error
			if format == "txt" {
				err = WriteText(&b, res)
			} else {
				err = WriteJSON(&b, res)
			}
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+"."+format), b.Bytes())
		}
	}
}
