package run

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all"
)

func TestApplyPart(t *testing.T) {
	gen := func(name string) workload.Generator {
		m, _ := workload.Get(name)
		g, err := workload.FromFlags(m)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// 1001 operations over 3 clients: 334, 334, 333; the rate divided.
	var ops int64
	for i := range 3 {
		s := Spec{Workload: gen("bank"), MaxRate: 3000, MaxOps: 1001, Tags: map[string]string{"job": "x"}, Part: Part{Index: i, Count: 3}}
		if err := applyPart(&s); err != nil {
			t.Fatal(err)
		}
		ops += s.MaxOps
		if s.MaxRate != 1000 || s.MaxOps < 333 || s.MaxOps > 334 || s.Tags[PartTag] != strings.Join([]string{string(rune('0' + i)), "3"}, "/") || s.Tags["job"] != "x" {
			t.Errorf("client %d: rate %g ops %d tags %v", i, s.MaxRate, s.MaxOps, s.Tags)
		}
	}
	if ops != 1001 {
		t.Errorf("the clients' budgets add up to %d", ops)
	}
	for _, tc := range []struct {
		spec Spec
		err  string
	}{
		{Spec{Workload: gen("bank"), Part: Part{Index: 2, Count: 2}}, "Spec.Part.Index 2"},
		{Spec{Workload: gen("bank"), Part: Part{Index: 0, Count: -1}}, "Spec.Part.Count -1"},
		{Spec{Workload: gen("bank"), Part: Part{Index: 1}}, "Spec.Part.Count 0"},
		{Spec{Workload: gen("bank"), MaxOps: 2, Part: Part{Index: 2, Count: 3}}, "Spec.MaxOps 2 is fewer than the 3 clients"},
		{Spec{Workload: gen("tpcc"), Part: Part{Index: 0, Count: 2}}, "--clients 2 with 1 warehouse: each client runs the terminals of warehouses of its own; use --clients 1 or fewer"},
		{Spec{Workload: gen("ycsb"), Fleet: &Fleet{}, Part: Part{Index: 0, Count: 2}}, "a fleet runs from one client"},
	} {
		if err := applyPart(&tc.spec); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.spec.Part, err, tc.err)
		}
	}
	// A client's seed: its own, the same for the same seed and index.
	if partSeed(42, 0) == partSeed(42, 1) || partSeed(42, 1) != partSeed(42, 1) || partSeed(42, 0) == 42 {
		t.Errorf("seeds %d %d", partSeed(42, 0), partSeed(42, 1))
	}
}
