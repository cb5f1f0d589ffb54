package run

import (
	"errors"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
)

// ErrInput marks an error in what was asked: a Spec (or the command line
// it came from) that cannot run as given, such as a size the machine
// cannot hold or a flag that contradicts what init loaded. Front ends
// report it as bad input (the command line exits with 2).
var ErrInput = errors.New("bad input")

// ErrInterrupted is the error of a run stopped by its context (Ctrl-C)
// after its results were saved.
var ErrInterrupted = errors.New("interrupted")

// ErrAborted is the error of a run under Spec.AbortWorker whose workers
// errors stopped (pgbench's "Run was aborted"), after its results were
// saved: its observer said so, and the command line exits with 2 as
// pgbench does.
var ErrAborted = errors.New("run aborted")

// inputError is an error that matches ErrInput.
type inputError struct{ err error }

func (e inputError) Error() string        { return e.err.Error() }
func (e inputError) Unwrap() error        { return e.err }
func (e inputError) Is(target error) bool { return target == ErrInput }

// inputf returns an error matching ErrInput.
func inputf(format string, args ...any) error {
	return inputError{fmt.Errorf(format, args...)}
}

// asInput marks err as matching ErrInput (nil stays nil).
func asInput(err error) error {
	if err == nil || errors.Is(err, ErrInput) {
		return err
	}
	return inputError{err}
}

// configInput marks err as matching ErrInput when it is an error in the
// connection's configuration (sqlx.ErrConfig: an endpoints file that
// cannot be read, endpoints without a locality), so that it exits as bad
// input whether or not URLs were given too.
func configInput(err error) error {
	if errors.Is(err, sqlx.ErrConfig) {
		return asInput(err)
	}
	return err
}
