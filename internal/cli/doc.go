// Package cli implements stampede's command line: one cobra command per
// verb (init, run, check, cleanup, workloads, demo, version), with a
// subcommand per registered workload under each workload verb. It is the
// only package that sees every layer; configuration lives in structs, not
// package-level variables.
//
// Exit codes: 0 success, 1 runtime failure (a server error, a failed
// check, a failed operation), 2 usage error (bad flag, bad URL, bad
// property), 130 when interrupted by Ctrl-C or SIGTERM (after the summary
// is printed and the results saved).
package cli
