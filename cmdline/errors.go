package cmdline

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
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
	out := sqlx.Secrets(ConnArgs(args), os.Getenv)
	for i, a := range args[:max(len(args)-1, 0)] {
		if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && strings.Contains(a, "password") && !strings.HasSuffix(a, "-secret") && args[i+1] != "" {
			out = append(out, args[i+1])
		}
	}
	return out
}
