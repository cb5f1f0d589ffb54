// Package report formats results for people and scripts. It computes
// nothing: callers pass summaries already computed by package stats.
//
// The text format follows `cockroach workload`: during a run, one line per
// operation per interval
//
//	_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)
//	      1.0s        0         1523.9         1523.9      4.7      8.9     12.6     25.2 read
//
// and at the end a block per operation and a __result line with the total.
// The JSON format writes the same figures as newline-delimited JSON.
package report
