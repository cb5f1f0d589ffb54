package cmdline

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
)

// usageError is an error of the command line; it matches run.ErrInput,
// which the command line reports with exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == run.ErrInput }

// usagef returns a usage error.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// ownWords is a usage error whose message is stampede's own words, with
// nothing the user gave (no flag value, no URL): ScrubError scrubs no
// secret from it, as a password that is also a word of the message
// ("password", "secret", "generic") must not mask the flags and commands
// the message advises (chk31 B7).
type ownWords struct{ usageError }

func (e ownWords) Unwrap() error { return e.usageError }

// ownUsage returns a usage error of msg, stampede's own words (ownWords):
// a constant, never formatted with anything the user gave.
func ownUsage(msg string) error { return ownWords{usageError{errors.New(msg)}} }

// ScrubError returns the message to print of err, msg (err's message with
// the hints completed), scrubbed of the secrets (ScrubMessage), unless it
// is err's own words unchanged (ownUsage), where no secret can be.
func ScrubError(err error, msg string, secrets []string) string {
	var own ownWords
	if errors.As(err, &own) && msg == own.Error() {
		return msg
	}
	return ScrubMessage(msg, secrets)
}

// asUsage marks err as a usage error (nil stays nil).
func asUsage(err error) error {
	if err == nil || errors.Is(err, run.ErrInput) {
		return err
	}
	return usageError{err}
}

// ConnArgs picks the arguments that may hold connection secrets.
func ConnArgs(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.Contains(a, "://") || strings.Contains(a, "=") {
			out = append(out, a)
		}
	}
	return out
}

// Secrets returns the secrets of the connection strings in args and of
// the environment (PGPASSWORD), to scrub from what is printed or saved: a
// URL's password, password=... pairs (--pgsql-password=PW too), and the
// value after a password flag given as its own argument (--pgsql-password
// PW, cockroach's --password PW). gen k8s's --password-secret NAME names
// a Kubernetes Secret, not a password: its value is no secret.
func Secrets(args []string) []string {
	out := redact.Secrets(ConnArgs(args), os.Getenv)
	for i, a := range args[:max(len(args)-1, 0)] {
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && strings.Contains(a, "password") && !strings.HasSuffix(a, "-secret") && args[i+1] != "" {
			out = append(out, args[i+1])
		}
	}
	return out
}
