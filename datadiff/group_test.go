package datadiff

import (
	"strconv"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

// TestPlanGroups checks the groupings chosen for TPC-C-like keys, for a
// text key (none) and for sparse 64-bit keys.
func TestPlanGroups(t *testing.T) {
	ints := func(n int) []dialect.Type {
		ts := make([]dialect.Type, n)
		for i := range ts {
			ts[i] = dialect.Type{Base: "integer", Full: "integer"}
		}
		return ts
	}
	// order_line: 4 warehouses x 10 districts x 3000 orders x 10 lines;
	// a sample of one line in 320.
	var sample []key
	n := 0
	for w := 1; w <= 4; w++ {
		for d := 1; d <= 10; d++ {
			for o := 1; o <= 3000; o++ {
				for l := 1; l <= 10; l++ {
					if n++; n%320 == 0 {
						sample = append(sample, key{strconv.Itoa(w), strconv.Itoa(d), strconv.Itoa(o), strconv.Itoa(l)})
					}
				}
			}
		}
	}
	gp := planGroups(sample, 1200000, ints(4), 1000)
	if gp == nil || gp.j != 2 || gp.step < 70 || gp.step > 130 {
		t.Errorf("order_line: %+v, want groups by (w, d, o / about 100)", gp)
	}
	if gp := planGroups([]key{{"a"}, {"b"}}, 1000, []dialect.Type{{Base: "text"}}, 100); gp != nil {
		t.Errorf("text key: %+v", gp)
	}
	// 10,000 sparse keys up to 2^62: groups of about 1,000 rows.
	var sparse []key
	for i := int64(1); i <= 100; i++ {
		sparse = append(sparse, key{strconv.FormatInt(i*(1<<62/100), 10)})
	}
	gp = planGroups(sparse, 10000, ints(1), 1000)
	if gp == nil || gp.j != 0 || gp.step < (1<<62)/20 || gp.step > (1<<62)/5 {
		t.Errorf("sparse keys: %+v", gp)
	}
	// A tiny sample: no grouping.
	if gp := planGroups([]key{{"1"}}, 10, ints(1), 1000); gp != nil {
		t.Errorf("one sampled key: %+v", gp)
	}
}

// TestGroupBounds: a group's range stays within its column's type.
func TestGroupBounds(t *testing.T) {
	tb := &table{sql: [2]*tableSQL{{kType: []dialect.Type{{Base: "integer"}, {Base: "smallint"}}}}}
	gp := &groupPlan{j: 1, step: 10000}
	b := tb.groupBounds(gp, key{"7", "3"})
	if b.lo[0] != "7" || b.lo[1] != "30000" || b.hi[1] != "32767" || !b.incl {
		t.Errorf("bounds %+v", b)
	}
	b = tb.groupBounds(gp, key{"7", "-4"})
	if b.lo[1] != "-32768" || b.hi[1] != "-30001" {
		t.Errorf("negative bounds %+v", b)
	}
}
