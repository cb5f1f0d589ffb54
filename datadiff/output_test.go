package datadiff

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// TestVerdictCountsTables: the verdict's counts agree with the per-table
// lines above it, read back from the text: the tables that differ are
// those whose status is neither identical nor not compared, the rows are
// the sum of the "differing rows" column, over the tables whose column
// is not 0, and each table that differs is counted once, by one of the
// ways the verdict lists. It said "1 row differs in 3 of 3 tables" of one
// table with a differing row beside one missing and one of another shape.
func TestVerdictCountsTables(t *testing.T) {
	missingShape := &Result{Tables: []TableResult{
		{Table: "a", Status: "differs", RowsA: 10, RowsB: 10, Ranges: 1, DifferingRanges: 1, DifferingRows: 1},
		{Table: "b", Status: "missing", Missing: "B"},
		{Table: "c", Status: "shape", Shape: []string{"column x: only on A"}},
	}, Rows: []RowDiff{{Table: "a", Kind: OnlyA}}}
	unsearched := &Result{Tables: []TableResult{
		{Table: "a", Status: "identical", RowsA: 5, RowsB: 5, Ranges: 1},
		{Table: "b", Status: "differs", RowsA: 500, RowsB: 500, Ranges: 4, DifferingRanges: 2, DifferingRows: 3, Unlocated: 1},
		{Table: "c", Status: "differs", RowsA: 500, RowsB: 500, Ranges: 4, DifferingRanges: 1, Unlocated: 1},
		{Table: "d", Status: "differs", FullRow: true, RowsA: 7, RowsB: 8, Ranges: 1, DifferingRanges: 1},
		{Table: "e", Status: NoKey},
		{Table: "f", Status: "missing", Missing: "A"},
	}, Rows: []RowDiff{{Table: "b"}, {Table: "b"}}}
	converged := &Result{Converge: &Convergence{Limit: 5, Checks: 3, Ranges: 1}, Tables: []TableResult{
		{Table: "a", Status: "differs", RowsA: 50, RowsB: 50, Ranges: 2, DifferingRanges: 1},
	}, Rows: []RowDiff{}}
	line := regexp.MustCompile(`^  (\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)  (.*)$`)
	item := regexp.MustCompile(`^(\d+) (by ([0-9,]+) rows?( \(\d+ shown: --max-rows\))?|by checksum \(no primary key: rows not located\)|by ranges not searched \(--max-rows\)|by ranges whose rows were not found again|in shape|missing on [AB])$`)
	for name, res := range map[string]*Result{"sample": sampleResult(), "missing and shape": missingShape, "unsearched": unsearched, "converge": converged} {
		var b bytes.Buffer
		if err := WriteText(&b, res); err != nil {
			t.Fatal(err)
		}
		// The per-table lines, read as a user reads them.
		var tables, differ, rowTables, rows int
		for _, l := range strings.Split(b.String(), "\n") {
			m := line.FindStringSubmatch(l)
			if m == nil || m[1] == "table" {
				continue
			}
			tables++
			status := m[8]
			if status != "identical" && !strings.HasPrefix(status, "not compared") {
				differ++
			}
			if n, err := strconv.Atoi(m[6]); err == nil && n > 0 {
				rowTables++
				rows += n
			}
		}
		if tables != len(res.Tables) {
			t.Fatalf("%s: read %d table lines, want %d:\n%s", name, tables, len(res.Tables), b.String())
		}
		v := Verdict(res)
		head := fmt.Sprintf("different: %d of %d %s %s: ", differ, tables, plural(tables, "table", "tables"), plural(differ, "differs", "differ"))
		rest, ok := strings.CutPrefix(v, head)
		if !ok {
			t.Errorf("%s: verdict %q, want it to begin %q", name, v, head)
			continue
		}
		how, _, _ := strings.Cut(rest, "; ")
		var counted, gotRowTables, gotRows int
		for _, it := range strings.Split(how, ", ") {
			m := item.FindStringSubmatch(it)
			if m == nil {
				t.Errorf("%s: %q in the verdict %q says no count of tables", name, it, v)
				continue
			}
			n, _ := strconv.Atoi(m[1])
			counted += n
			if m[3] != "" {
				gotRowTables = n
				gotRows, _ = strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
			}
		}
		if counted != differ || gotRowTables != rowTables || gotRows != rows {
			t.Errorf("%s: verdict %q counts %d tables, %d rows in %d; the lines say %d tables differ, %d rows in %d", name, v, counted, gotRows, gotRowTables, differ, rows, rowTables)
		}
	}
}
