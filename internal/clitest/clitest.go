// Package clitest checks what stampede's command lines print when they
// fail, for the tests of the packages that run them.
package clitest

import (
	"strings"
	"testing"
)

// FinalError checks that a command that exited with code and printed
// stderr failed as a command that started its work (and may have printed
// progress) should: exit code want, and a last line "stampede: error: ..."
// ("pgbench: error: ..." for stampede pgbench) containing msg, with no stack trace. It returns stderr's lines.
func FinalError(t testing.TB, code int, stderr string, want int, msg string) []string {
	t.Helper()
	if code != want {
		t.Errorf("exit code %d, want %d (stderr %q)", code, want, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	// pgbench's command line (stampede pgbench) says its errors as
	// pgbench does.
	if !strings.HasPrefix(last, "stampede: error: ") && !strings.HasPrefix(last, "pgbench: error: ") || !strings.Contains(last, msg) {
		t.Errorf("stderr %q: want one error line containing %q", stderr, msg)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace in stderr: %s", stderr)
	}
	return lines
}

// OneLineError is FinalError for bad input: besides warnings, the error
// is stderr's only line.
func OneLineError(t testing.TB, code int, stderr string, want int, msg string) {
	t.Helper()
	lines := FinalError(t, code, stderr, want, msg)
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "warning: ") {
			t.Errorf("stderr %q: a line besides the error: %q", stderr, l)
		}
	}
}
