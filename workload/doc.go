// Package workload is the contract between stampede's engine and the
// workloads it runs, and the registry through which workloads make
// themselves known.
//
// # The contract
//
// A workload is one package that calls [Register] from an init function
// with a [Meta] describing it. [Meta.New] returns a [Generator], the only
// required interface (two methods). Everything else is optional and found
// by type assertion:
//
//   - [Flagser]: the workload's own flags (kebab-case or, for drop-in
//     compatibility, the original tool's spelling).
//   - [Hookser]: lifecycle hooks (validate, pre/post load, checks).
//   - [Opser]: the operations a run performs, one [Worker] closure per
//     worker; the engine owns goroutines, pacing, timing and statistics.
//
// # Determinism
//
// Any randomness in a Generator must be derived from its flags and the
// run's seed: data batch b uses a stream seeded by (seed, b) and worker w a
// stream seeded by (seed, w), so the same seed gives the same data and the
// same per-worker operation sequence. [Meta.Version] must change whenever
// the initial data a given set of flags produces changes.
package workload
