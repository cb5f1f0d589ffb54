package sqlx

import (
	"errors"
	"fmt"
)

// ErrConfig marks an error in what the caller configured rather than one
// of a server: an endpoints file that cannot be read or parsed, endpoints
// without the locality an option needs. Front ends report it as bad input.
var ErrConfig = errors.New("bad connection configuration")

// configError is an error that matches ErrConfig.
type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == ErrConfig }

// ConfigErrorf returns an error matching ErrConfig.
func ConfigErrorf(format string, args ...any) error {
	return configError{fmt.Errorf(format, args...)}
}
