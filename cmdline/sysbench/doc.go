// Package sysbench turns a sysbench 1.0.20 command line, pasted with
// `stampede` in place of `sysbench`, into stampede's: the test named by
// a script's name or the path of its Lua file (oltp_read_write,
// /usr/share/sysbench/oltp_insert.lua) becomes the workload of the same
// name, sysbench's command (prepare, run, cleanup, help) stampede's verb,
// and every option stampede's flag, or a one-line refusal that says why.
//
// Options come in any order, before or after the script, as --name=value
// (dashes and underscores alike), and --config-file is read as sysbench
// reads it. The workloads' own options and stampede's flags pass through
// as they are. A line that names no connection URL gets sysbench's
// --pgsql-* defaults, and `run`, `prepare` and `cleanup` get the flag
// (SyntaxFlag) by which stampede's flags give them sysbench's meanings:
// one thread and ten seconds by default, --events as one count, --rate as
// one queue, sysbench's output and prepare's and cleanup's lines (see
// package cmdline and lines.go).
//
// Golden tests of pasted lines are in testdata/lines.txt.
package sysbench
