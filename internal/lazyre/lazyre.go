// Package lazyre compiles a package's regular expressions at their first
// use instead of at the program's start.
//
// Every package linked into stampede runs its initializers in every
// process, whatever the command: the package-level regexp.MustCompile of
// the SQL script workload's DDL checks alone was about 3 ms of CPU and
// 680 KB of garbage in each `stampede pgbench` and `stampede version`,
// which never use them.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (panicking,
// as regexp.MustCompile does, if it does not compile) and returns the same
// *regexp.Regexp to every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
