package fleet

import "testing"

// TestPickerRange checks that a run of a share of the fleet (First..Last,
// one client's of several) picks its tenants only, each once before any
// again, in both pick orders, and that a range outside the fleet, or
// fewer tenants than --active, is refused.
func TestPickerRange(t *testing.T) {
	for _, pick := range []string{PickRandom, PickRoundRobin} {
		cfg := RunConfig{Spec: Spec{Tenants: 9}, First: 4, Last: 6, Pick: pick, Seed: 7}
		p := newPicker(cfg)
		busy := map[int]bool{}
		for range 3 {
			id := p.take(busy)
			if id < 4 || id > 6 || busy[id] {
				t.Errorf("%s: took tenant %d with %v busy; want one of 4..6 not busy", pick, id, busy)
			}
			busy[id] = true
		}
		if id := p.take(map[int]bool{}); id < 4 || id > 6 {
			t.Errorf("%s: rotation took tenant %d outside 4..6", pick, id)
		}
	}
	for _, tc := range []struct {
		cfg  RunConfig
		want string
	}{
		{RunConfig{Spec: Spec{Tenants: 9}, First: 8, Last: 10, Active: 1}, "tenants 8..10: give a range within the fleet's 1..9"},
		{RunConfig{Spec: Spec{Tenants: 9}, First: 4, Last: 6, Active: 4}, "--active 4 is more than this run's 3 tenants (4..6)"},
	} {
		tc.cfg.ConnsPerTenant, tc.cfg.WorkersPerTenant = 1, 1
		if err := tc.cfg.validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
