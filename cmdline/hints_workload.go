package cmdline

import (
	"slices"
	"sort"
	"strings"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// NoDatabaseHint is sqlx.NoDatabaseHint for the command line argv: a workload's
// run, check or sweep names the init that loads that workload
// (completed by hinter with the URL and flags), not a bare `stampede init`;
// its cleanup says to check the database's name (run.NoDatabaseError).
func NoDatabaseHint(argv []string) string {
	if len(argv) < 2 || !slices.Contains([]string{"run", "check", "cleanup", "sweep"}, argv[0]) {
		return sqlx.NoDatabaseHint
	}
	if _, ok := workload.Get(argv[1]); !ok {
		return sqlx.NoDatabaseHint
	}
	if argv[0] == "cleanup" {
		// Nothing of stampede's is there; still an error: the name may
		// be a typo for the database that holds the load.
		flag := "--db"
		if slices.Contains(argv, "--sysbench-syntax") {
			flag = "--pgsql-db"
		}
		return "check the database's name, or name another database with " + flag
	}
	if slices.Contains(argv, "--sysbench-syntax") { // sysbench's line: its prepare, its flag
		return "create it (createdb) and load it with the same command line ending in prepare, or name another database with --pgsql-db"
	}
	return "load it with `stampede init " + argv[1] + "` (which creates the database), or name another database with --db"
}

// NotWorkload is the error for a word given where verb takes a
// workload's name: a URL put first, or an unknown name.
func NotWorkload(verb, word string) error {
	if strings.Contains(word, "://") || strings.Contains(word, "=") {
		return usagef("%q is a URL, not a workload: name the workload first, as in `stampede %s WORKLOAD [flags] URL...` (workloads: %s)", redact.Conn(word), verb, WorkloadNames())
	}
	return usagef("unknown workload %q: see `stampede workloads` (available: %s)", word, WorkloadNames())
}

// WorkloadNames lists the registered workloads, sorted.
func WorkloadNames() string {
	var names []string
	for _, m := range workload.Registered() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
