// Package stats records operation latencies in HDR histograms and turns
// them into per-interval and cumulative views. It knows nothing of SQL,
// workloads or output formats, and does no I/O.
//
// A [Registry] holds named series (one per operation type, plus any derived
// series such as service time or schedule lag). Workers record through a
// [Handle]; handles are sharded so that a few busy workers never contend
// while thousands of workers share a bounded amount of memory. [Registry.Tick]
// swaps each shard's interval histograms out under a short lock, merges them
// exactly (histogram merge, never an average of percentiles) into the
// interval view and the cumulative view, and returns both.
//
// A series' histograms are [Hist]s, made on its first value and sparse
// while they hold few values (a script's thousands of statements, each
// recorded once per transaction), dense once they fill; every figure is
// the dense histogram's, to the bit.
//
// All values are nanoseconds, recorded with 3 significant digits between
// [Lowest] and [Highest]; values outside are clamped, and a Summary counts
// those clamped to Highest (Capped) so that no figure at the cap passes for
// the value.
package stats
