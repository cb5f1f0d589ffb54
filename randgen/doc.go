// Package randgen provides seeded random streams and the key and value
// distributions used by the YCSB, sysbench and TPC-C workloads.
//
// Every random draw comes from a caller-supplied *rand.Rand (math/rand/v2),
// normally one per worker created with New(seed, stream), so a run is
// reproducible: the same seed and stream always give the same sequence.
//
// The generators (Uniform, Zipfian, ScrambledZipfian, SkewedLatest, Hotspot,
// Exponential and the sysbench distributions) are small per-worker values:
// their Next methods do not allocate and take no locks, and they are not safe
// for concurrent use (Zipfian and SkewedLatest update themselves as the item
// count changes; the stateless ones, such as Uniform, say so and may be
// shared by goroutines passing their own *rand.Rand). Create one per worker
// goroutine. Their constructors are cheap: Zipfian's normalising constant
// (zeta) takes constant time for any item count (see Zeta).
//
// AcknowledgedCounter is the exception: it is shared by all workers (it hands
// out insert keys and tracks which inserts have completed) and is safe for
// concurrent use.
//
// The free functions (New, FNV64, Zeta, NURand, RandASCII, RandAlnum,
// RandDigits) keep no state of their own; they are safe for concurrent use as
// long as each goroutine passes its own *rand.Rand (a *rand.Rand is not safe
// for concurrent use).
//
// The algorithms are reimplemented from their published descriptions:
// Gray et al., "Quickly Generating Billion-Record Synthetic Databases"
// (SIGMOD 1994) for Zipfian; YCSB's generator semantics for the scrambled,
// latest, hotspot and exponential generators and for FNV64; sysbench
// 1.0.20's sb_rand.c semantics for the sysbench distributions (its Zipfian is
// the rejection-inversion method of Hörmann and Derflinger); and TPC-C
// clause 2.1.6 for NURand.
package randgen
