// Package cmdline turns stampede's command lines into what package run
// takes: the flags of init, run, check and cleanup (their own, the
// connection's, telemetry's, limits' and fleets') into run.Spec,
// run.LoadSpec and run.FleetOp values, and a run's output flags into its
// printers (package output). Errors in flags match run.ErrInput and name
// the flag. Foreign command lines (sysbench's, YCSB's, cockroach
// workload's) are turned into the same values by their own parsers.
package cmdline
