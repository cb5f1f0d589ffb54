package limit

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInterrupted is the error of RunCommand when a signal or the context
// stopped the command.
var ErrInterrupted = errors.New("interrupted")

// ExitError is RunCommand's error for a command that did not exit with
// status 0: ExitCode is the status to pass on (128+N for signal N).
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// ExitCode is the status the caller should exit with.
func (e *ExitError) ExitCode() int { return e.Code }

// CreateFree creates a group named base-1, base-2, ...: the first name no
// group has (base is first made a valid name: letters, digits, '.', '_'
// and '-'), as cgexec users expect to just run a command.
func CreateFree(base string, l Limits, opts ...Option) (*Group, error) {
	base = nameBase(base)
	for n := 1; ; n++ {
		g, err := Create(fmt.Sprintf("%s-%d", base, n), l, opts...)
		if !errors.Is(err, ErrExists) || n == 1000 {
			return g, err
		}
	}
}

// nameBase makes s a valid start of a group name.
func nameBase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	s = strings.TrimLeft(string(b), "._-")
	if len(s) > 50 {
		s = s[:50]
	}
	if s == "" {
		s = "cmd"
	}
	return s
}
