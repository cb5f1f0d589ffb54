package run

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
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
	tpccMeta, _ := workload.Get("tpcc")
	oneWarehouse, err := workload.FromFlags(tpccMeta, "--warehouses", "1")
	if err != nil {
		t.Fatal(err)
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
		{Spec{Workload: oneWarehouse, Part: Part{Index: 0, Count: 2}}, "--clients 2 with 1 warehouse: each client runs the terminals of warehouses of its own; use --clients 1 or fewer"},
		{Spec{Workload: gen("ycsb"), Fleet: &Fleet{Spec: fleet.Spec{Tenants: 1}}, Part: Part{Index: 0, Count: 2}}, "--clients 2 is more than --tenants 1"},
		{Spec{Workload: gen("ycsb"), Fleet: &Fleet{Spec: fleet.Spec{Tenants: 6}, Active: 4}, Part: Part{Index: 0, Count: 3}}, "--active 4 is not a multiple of --clients 3"},
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

// TestFleetShare checks the clients' shares of a fleet: contiguous
// ranges that cover every tenant once, as TPC-C's clients split
// warehouses, and --active split evenly (all of its own tenants when
// --active is every tenant).
func TestFleetShare(t *testing.T) {
	for _, tc := range []struct {
		tenants, active, clients int
		want                     [][3]int // first, last, active per client
	}{
		{6, 0, 3, [][3]int{{1, 2, 2}, {3, 4, 2}, {5, 6, 2}}},
		{7, 7, 3, [][3]int{{1, 2, 2}, {3, 4, 2}, {5, 7, 3}}},
		{20, 3, 3, [][3]int{{1, 6, 1}, {7, 13, 1}, {14, 20, 1}}},
		{6, 6, 6, [][3]int{{1, 1, 1}, {2, 2, 1}, {3, 3, 1}, {4, 4, 1}, {5, 5, 1}, {6, 6, 1}}},
		{10, 4, 2, [][3]int{{1, 5, 2}, {6, 10, 2}}},
		{5, 0, 1, [][3]int{{1, 5, 5}}},
	} {
		next := 1
		for i, w := range tc.want {
			f, err := FleetShare(Fleet{Spec: fleet.Spec{Tenants: tc.tenants}, Active: tc.active}, i, tc.clients)
			if err != nil {
				t.Fatalf("%+v client %d: %v", tc, i, err)
			}
			if got := [3]int{f.First, f.Last, f.Active}; got != w {
				t.Errorf("%d tenants, --active %d, client %d of %d: tenants %d..%d, %d active; want %v", tc.tenants, tc.active, i, tc.clients, f.First, f.Last, f.Active, w)
			}
			if f.First != next || f.Active > f.Last-f.First+1 {
				t.Errorf("client %d: tenants %d..%d after %d, %d active", i, f.First, f.Last, next-1, f.Active)
			}
			next = f.Last + 1
		}
		if next != tc.tenants+1 {
			t.Errorf("%+v: the shares end at %d", tc, next-1)
		}
	}
	for _, tc := range []struct {
		tenants, active, clients int
		err                      string
	}{
		{2, 0, 3, "--clients 3 is more than --tenants 2: each client runs at least one tenant; use at most 2 clients"},
		{6, 4, 3, "--active 4 is not a multiple of --clients 3: each client runs --active ÷ --clients tenant workloads at once; give 3 or 6"},
		{10, 1, 2, "--active 1 is not a multiple of --clients 2"},
	} {
		_, err := FleetShare(Fleet{Spec: fleet.Spec{Tenants: tc.tenants}, Active: tc.active}, 0, tc.clients)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc, err, tc.err)
		}
	}
}
