package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
	// exitAborted is pgbench's exit status when errors aborted clients
	// ("Run was aborted; the above results are incomplete.").
	exitAborted = 2
)

// usageError marks an error caused by the command line: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// asUsage marks err as a usage error (nil stays nil).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var u usageError
	if errors.As(err, &u) {
		return err
	}
	return usageError{err}
}

// errInterrupted reports a run stopped by a signal after its results were
// saved.
var errInterrupted = run.ErrInterrupted

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var u usageError
	// A command stampede ran (`stampede limit -- COMMAND`) passes its own
	// exit status on.
	var ec interface{ ExitCode() int }
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	case errors.Is(err, run.ErrAborted):
		return exitAborted
	case errors.As(err, &u), errors.Is(err, run.ErrInput), errors.Is(err, store.ErrBadURL), errors.Is(err, sqlx.ErrConfig):
		return exitUsage
	case errors.As(err, &ec) && ec.ExitCode() > 0:
		return ec.ExitCode()
	}
	return exitFailure
}

// oneLine flattens an error message to a single line.
func oneLine(msg string) string {
	msg = strings.TrimSpace(msg)
	msg = strings.ReplaceAll(msg, "\n\t", " ")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
}

// resultsRoot returns the directory under which runs are saved.
// storeURL returns the results store of a reading command: flag, else
// $STAMPEDE_RESULTS_URL.
func storeURL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv("STAMPEDE_RESULTS_URL")
}

// resultsRoot is the results directory that --results-dir flag names for
// a command that reads runs, "" for none (the store of url alone).
func resultsRoot(flag, url string) (string, error) {
	root, err := run.ReadRoot(flag, url)
	return root, asUsage(err)
}
