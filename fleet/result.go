package fleet

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
)

// TenantResult is what one tenant workload of a fleet run did. A tenant
// that ran twice (rotated out and picked again) has one result per
// workload.
type TenantResult struct {
	// ID is the tenant's number and Name its database or schema ("" in
	// column mode).
	ID   int    `json:"id"`
	Name string `json:"name,omitempty"`
	// Ops counts the operations completed, by operation name (failures
	// excluded), including those the workers recorded themselves.
	Ops map[string]int64 `json:"ops"`
	// Total is the number of whole operations (transactions, when the
	// workload classifies its operations), as the fleet's QPS counts them.
	Total int64 `json:"total_ops"`
	// Errors counts failed operations, including those the workers
	// retried.
	Errors int64 `json:"errors"`
	// P50, P99 and Max are the latencies of the tenant's calls in
	// milliseconds, from a low-precision histogram (within about 5%),
	// after the engine's ramp as the engine's own figures.
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
	// ElapsedSec is how long the tenant's workload ran.
	ElapsedSec float64 `json:"elapsed_s"`
	// Ended says why the tenant's workload ended: "run" (the run ended),
	// "duration" (--tenant-duration elapsed) or "error" (rotated out after
	// a failure).
	Ended string `json:"ended"`
	// Figures are the workload's own figures computed from this tenant's
	// counts alone (TPC-C's efficiency, say).
	Figures map[string]float64 `json:"figures,omitempty"`
}

// Summary condenses the tenant results of a fleet run: the figures of the
// field report's table that are not the engine's (QPS and p99 of the
// whole fleet come from the engine's merged histograms).
type Summary struct {
	// Active is the number of tenant workloads that ran at once and Ran
	// the number that ran in all (more than Active when rotating).
	Active int `json:"active"`
	Ran    int `json:"tenant_workloads"`
	// OpsMin, OpsMedian and OpsMax are the smallest, median and largest
	// TenantResult.Total.
	OpsMin    int64 `json:"ops_per_tenant_min"`
	OpsMedian int64 `json:"ops_per_tenant_median"`
	OpsMax    int64 `json:"ops_per_tenant_max"`
	// Starved lists the tenants whose workload completed no operation.
	Starved []int `json:"starved,omitempty"`
	// Efficiency is set when the workload has an "efficiency" figure
	// (TPC-C): its mean and minimum over the tenant workloads.
	Efficiency *MinAvg `json:"efficiency,omitempty"`
}

// MinAvg is the mean and the minimum of a figure over tenants.
type MinAvg struct {
	// Avg is the mean and Min the minimum.
	Avg float64 `json:"avg"`
	Min float64 `json:"min"`
	// Pooled is the figure as the workload reads it (its Figure.Text:
	// TPC-C's efficiency with its 95% interval from the New-Order count)
	// over every tenant workload's operations and time together; MinText
	// the same for the tenant MinTenant, whose figure is Min. Set by
	// Run.Summary.
	Pooled    string `json:"pooled,omitempty"`
	MinText   string `json:"min_text,omitempty"`
	MinTenant int    `json:"min_tenant,omitempty"`
}

// Summarize computes the Summary of a fleet run whose active tenant
// workloads ran at once.
func Summarize(active int, ts []TenantResult) Summary {
	s := Summary{Active: active, Ran: len(ts)}
	if len(ts) == 0 {
		return s
	}
	totals := make([]int64, len(ts))
	var effSum float64
	effN := 0
	effMin := math.Inf(1)
	for i, t := range ts {
		totals[i] = t.Total
		if t.Total == 0 {
			s.Starved = append(s.Starved, t.ID)
		}
		if e, ok := t.Figures["efficiency"]; ok {
			effSum += e
			effN++
			effMin = min(effMin, e)
		}
	}
	slices.Sort(totals)
	s.OpsMin, s.OpsMax = totals[0], totals[len(totals)-1]
	if n := len(totals); n%2 == 1 {
		s.OpsMedian = totals[n/2]
	} else {
		s.OpsMedian = (totals[n/2-1] + totals[n/2]) / 2
	}
	slices.Sort(s.Starved)
	s.Starved = slices.Compact(s.Starved)
	if effN > 0 {
		s.Efficiency = &MinAvg{Avg: effSum / float64(effN), Min: effMin}
	}
	return s
}

// Geometry of the per-tenant latency histograms: each doubling of the
// latency from 1µs up to 2^histDoublings µs (4.8 hours; larger values go to
// the last bucket) is split into subBuckets equal buckets, and quantiles
// are read at a bucket's middle, within 3.2% of the values it holds.
const (
	subBits       = 4
	subBuckets    = 1 << subBits
	histDoublings = 34
	histBuckets   = histDoublings*subBuckets + 1
)

// hist is a low-precision latency histogram of fixed size (4.4 KB), so
// that thousands of tenants' workers cost a few tens of megabytes. Its
// fields are atomics: the worker that owns it records without locks
// (uncontended atomic adds), and a snapshot may be read at any time.
type hist struct {
	counts [histBuckets]atomic.Uint64
	max    atomic.Int64 // ns
}

// bucketOf returns the bucket of a latency d: 0 below 1µs, else
// 1 + e*subBuckets + s for d = 2^e * (1 + s/subBuckets + r) µs.
func bucketOf(d time.Duration) int {
	us := uint64(max(d, 0) / time.Microsecond)
	if us < 1 {
		return 0
	}
	e := bits.Len64(us) - 1
	var sub uint64
	if e >= subBits {
		sub = (us >> (e - subBits)) & (subBuckets - 1)
	} else {
		sub = (us << (subBits - e)) & (subBuckets - 1)
	}
	return min(e*subBuckets+int(sub)+1, histBuckets-1)
}

// bucketValue returns the middle of bucket b in nanoseconds.
func bucketValue(b int) float64 {
	if b == 0 {
		return 500 // below 1µs
	}
	e, sub := (b-1)/subBuckets, (b-1)%subBuckets
	return math.Exp2(float64(e)) * (1 + (float64(sub)+0.5)/subBuckets) * 1e3
}

// record adds one latency; only the owning worker calls it.
func (h *hist) record(d time.Duration) {
	h.counts[bucketOf(d)].Add(1)
	if int64(d) > h.max.Load() {
		h.max.Store(int64(d))
	}
}

// reset forgets what h recorded (the engine's ramp, at its end). A call
// recorded at that moment may fall on either side.
func (h *hist) reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.max.Store(0)
}

// histSnapshot is a plain copy of hists, for merging and quantiles.
type histSnapshot struct {
	counts [histBuckets]uint64
	total  uint64
	max    int64
}

// addTo adds h's current counts to s.
func (h *hist) addTo(s *histSnapshot) {
	for i := range h.counts {
		c := h.counts[i].Load()
		s.counts[i] += c
		s.total += c
	}
	s.max = max(s.max, h.max.Load())
}

// quantile returns the q-th quantile (0 < q <= 1) in milliseconds: the
// middle of the bucket holding it, never more than the maximum.
func (s *histSnapshot) quantile(q float64) float64 {
	if s.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.total)))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range s.counts {
		seen += c
		if seen >= rank {
			return min(bucketValue(i), float64(s.max)) / 1e6
		}
	}
	return float64(s.max) / 1e6
}
