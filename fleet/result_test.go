package fleet

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// TestHistQuantiles checks that the low-precision histogram reads
// quantiles within its bucket width (3.2%) of the exact ones.
func TestHistQuantiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []time.Duration
		q    float64
		want time.Duration
	}{
		{"one value", []time.Duration{3 * time.Millisecond}, 0.99, 3 * time.Millisecond},
		{"sub-microsecond", []time.Duration{200 * time.Nanosecond}, 0.5, 200 * time.Nanosecond},
		{"uniform p50", uniform(1000), 0.5, 500 * time.Microsecond},
		{"uniform p99", uniform(1000), 0.99, 990 * time.Microsecond},
		{"tail", append(repeat(time.Millisecond, 98), 2*time.Second, 2*time.Second), 0.99, 2 * time.Second},
		{"minutes", []time.Duration{3 * time.Minute}, 0.5, 3 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h hist
			for _, v := range tc.vals {
				h.record(v)
			}
			var s histSnapshot
			h.addTo(&s)
			got := s.quantile(tc.q)
			want := float64(tc.want) / 1e6
			if math.Abs(got-want)/want > 0.05 {
				t.Errorf("quantile(%g) = %.4fms, want %.4fms within 5%%", tc.q, got, want)
			}
		})
	}
}

func uniform(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Microsecond
	}
	return out
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestBucketsMonotonic checks that buckets grow with the value and that
// each bucket's value lies within 5% of the values it holds.
func TestBucketsMonotonic(t *testing.T) {
	prev := 0
	for us := int64(1); us < 1e10; us = us*21/20 + 1 {
		d := time.Duration(us) * time.Microsecond
		b := bucketOf(d)
		if b < prev {
			t.Fatalf("bucketOf(%s) = %d < %d", d, b, prev)
		}
		prev = b
		if b < histBuckets-1 && us >= 8 {
			if r := bucketValue(b) / float64(d); r < 0.95 || r > 1.05 {
				t.Fatalf("bucket %d of %s reads %.0fns (ratio %.3f)", b, d, bucketValue(b), r)
			}
		}
	}
	if n := int(reflect.TypeFor[hist]().Size()); n > 8192 {
		t.Errorf("a histogram takes %d bytes: 1,000 tenants' workers need them small", n)
	}
}

// TestSummarize checks the fleet figures computed from tenant results.
func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		active int
		ts     []TenantResult
		want   Summary
	}{
		{"empty", 3, nil, Summary{Active: 3}},
		{"odd", 3, []TenantResult{{ID: 1, Total: 30}, {ID: 2, Total: 10}, {ID: 3, Total: 20}},
			Summary{Active: 3, Ran: 3, OpsMin: 10, OpsMedian: 20, OpsMax: 30}},
		{"even and starved", 4, []TenantResult{{ID: 4, Total: 0}, {ID: 2, Total: 10}, {ID: 3, Total: 20}, {ID: 1, Total: 0}},
			Summary{Active: 4, Ran: 4, OpsMin: 0, OpsMedian: 5, OpsMax: 20, Starved: []int{1, 4}}},
		{"efficiency", 2, []TenantResult{
			{ID: 1, Total: 5, Figures: map[string]float64{"efficiency": 99}},
			{ID: 2, Total: 5, Figures: map[string]float64{"efficiency": 95}},
		}, Summary{Active: 2, Ran: 2, OpsMin: 5, OpsMedian: 5, OpsMax: 5, Efficiency: &MinAvg{Avg: 97, Min: 95}}},
		{"rotated twice", 1, []TenantResult{{ID: 7, Total: 0}, {ID: 7, Total: 0}},
			Summary{Active: 1, Ran: 2, Starved: []int{7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.active, tc.ts); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPicker checks both pick orders: round-robin wraps around, random is
// a permutation reproducible from the seed, and busy tenants are skipped.
func TestPicker(t *testing.T) {
	take := func(p *picker, n int, busy map[int]bool) []int {
		var out []int
		for range n {
			out = append(out, p.take(busy))
		}
		return out
	}
	rr := newPicker(RunConfig{Spec: Spec{Tenants: 4}, Pick: PickRoundRobin, Active: 2})
	if got := take(rr, 6, nil); !reflect.DeepEqual(got, []int{1, 2, 3, 4, 1, 2}) {
		t.Errorf("round-robin: %v", got)
	}
	rr = newPicker(RunConfig{Spec: Spec{Tenants: 4}, Pick: PickRoundRobin, Active: 2})
	if got := take(rr, 3, map[int]bool{2: true}); !reflect.DeepEqual(got, []int{1, 3, 4}) {
		t.Errorf("round-robin skipping busy 2: %v", got)
	}
	all := map[int]bool{1: true, 2: true}
	rr = newPicker(RunConfig{Spec: Spec{Tenants: 2}, Pick: PickRoundRobin, Active: 2})
	if got := rr.take(all); got != 1 {
		t.Errorf("every tenant busy: got %d, want the next in order (1)", got)
	}
	cfg := RunConfig{Spec: Spec{Tenants: 50}, Pick: PickRandom, Active: 10, Seed: 42}
	a, b := take(newPicker(cfg), 50, nil), take(newPicker(cfg), 50, nil)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("random picks differ with the same seed: %v %v", a, b)
	}
	seen := map[int]bool{}
	for _, id := range a {
		seen[id] = true
	}
	if len(seen) != 50 {
		t.Errorf("random picks of one round are not a permutation: %v", a)
	}
	cfg.Seed = 43
	if c := take(newPicker(cfg), 50, nil); reflect.DeepEqual(a, c) {
		t.Errorf("random picks do not depend on the seed")
	}
}

// TestTenantSeed checks that tenants get distinct, reproducible seeds.
func TestTenantSeed(t *testing.T) {
	seen := map[uint64]int{}
	for id := 1; id <= 10000; id++ {
		s := tenantSeed(7, id)
		if prev, ok := seen[s]; ok {
			t.Fatalf("tenants %d and %d share seed %d", prev, id, s)
		}
		seen[s] = id
	}
	if tenantSeed(7, 3) != tenantSeed(7, 3) || tenantSeed(7, 3) == tenantSeed(8, 3) {
		t.Error("tenant seeds must follow (seed, id)")
	}
}
