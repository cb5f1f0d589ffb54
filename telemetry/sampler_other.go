//go:build !linux

package telemetry

import (
	"errors"
	"time"
)

// Sampler reads system figures from /proc. It exists only on Linux; New
// fails elsewhere.
type Sampler struct{}

// New returns an error: system telemetry reads /proc, which only Linux has.
func New(cfg Config) (*Sampler, error) {
	return nil, errors.New("system telemetry needs Linux /proc; run without telemetry on this system")
}

// Sample is never reached: New fails on this system.
func (s *Sampler) Sample(now time.Time) (Sample, error) {
	return Sample{}, errors.New("system telemetry needs Linux /proc")
}
