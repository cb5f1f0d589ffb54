// Package procmatch decides which processes a pattern names, one way for
// every part of stampede that picks processes by pattern: the telemetry's
// watched processes (--watch-process, --watch-cmdline) and the targets of
// resource limits (--limit-process, --limit-cmdline, `stampede limit
// --watch`, `--watch-cmdline`).
//
// A pattern is a regular expression in Go syntax, searched (not anchored:
// use ^ and $ for that) in one string of the process:
//
//   - By default, its name: the command name the kernel keeps for it
//     (/proc/PID/comm, what top, ps -o comm and pidstat -C show, and what
//     pgrep matches). A program does not change its name by rewriting its
//     arguments, so PostgreSQL's backends, whose command lines read
//     "postgres: user db 127.0.0.1(51234) idle", are all named "postgres",
//     and neither a client whose arguments hold "postgresql://" nor a
//     "pidstat -C postgres" is.
//   - On request, its full command line: the arguments joined by single
//     spaces (what ps -o args and pgrep -f show). Processes without one
//     (kernel threads, zombies) never match.
//
// The kernel keeps at most 15 bytes of a name ("yugabyte-tserver" is kept
// as "yugabyte-tserve"). A name of exactly 15 bytes is therefore completed
// from the base name of the first argument when that begins with it, so
// that a pattern written with the program's full name still matches.
package procmatch

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// commLen is the longest name the kernel keeps (TASK_COMM_LEN - 1).
const commLen = 15

// Pattern is a compiled pattern. It is safe for concurrent use.
type Pattern struct {
	expr    string
	re      *regexp.Regexp
	cmdline bool
}

// Compile parses expr. With cmdline, the pattern is matched against the
// command line instead of the name.
func Compile(expr string, cmdline bool) (*Pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid process pattern %q: %s (use Go regexp syntax, e.g. \"^postgres$\")", expr, oneLine(err))
	}
	return &Pattern{expr: expr, re: re, cmdline: cmdline}, nil
}

// String returns the pattern as given.
func (p *Pattern) String() string { return p.expr }

// Cmdline reports whether the pattern is matched against the command line.
func (p *Pattern) Cmdline() bool { return p.cmdline }

// Match reports whether a process matches. comm is its name
// (/proc/PID/comm, or the name in /proc/PID/stat); args returns its
// command line, nil when it has none or cannot be read. Match calls args
// only when it needs it: always for a command-line pattern, for a name
// pattern only when the name may have been cut.
func (p *Pattern) Match(comm string, args func() []string) bool {
	if p.cmdline {
		a := args()
		return len(a) > 0 && p.re.MatchString(strings.Join(a, " "))
	}
	return p.re.MatchString(Name(comm, args))
}

// Name returns the name a process is matched by: comm, or, when comm has
// the 15 bytes of a name the kernel may have cut, the base name of the
// first argument if that begins with comm.
func Name(comm string, args func() []string) string {
	if len(comm) != commLen {
		return comm
	}
	a := args()
	if len(a) == 0 {
		return comm
	}
	// A first argument may hold spaces (a rewritten ps display): its
	// first word is the program.
	first, _, _ := strings.Cut(a[0], " ")
	if base := path.Base(first); len(base) > commLen && strings.HasPrefix(base, comm) {
		return base
	}
	return comm
}

// oneLine returns err's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
