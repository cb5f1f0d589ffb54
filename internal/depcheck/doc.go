// Package depcheck holds no code: its test checks that the import graph
// keeps stampede's layers honest (leaves import nothing of ours, workloads
// never import the engine, the CLI or a formatter, and so on), as
// cockroach's workload/dep_test.go does.
package depcheck
