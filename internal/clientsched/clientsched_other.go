//go:build !linux

package clientsched

// Apply does nothing outside Linux: the threads keep the system's default
// scheduling.
func Apply(p Policy) (Applied, func(), error) {
	return Applied{Policy: Normal}, func() {}, nil
}
