package telemetry

import "time"

// MinCPUInterval is the shortest interval whose CPU figures (the host's
// shares, a process group's cores, the client's cores) stampede gives.
// The kernel counts CPU time in clock ticks (10 ms at USER_HZ 100), so
// that a shorter interval holds a tick or two, or none: one tick in a
// 174 µs interval reads as 57 cores. Ten ticks make a share to 10%.
const MinCPUInterval = 100 * time.Millisecond

// ClientCores is the cores a process used: cpuSecs of CPU time over wall,
// at most cores (when known, above 0); ok is false when wall is shorter
// than MinCPUInterval, too short for a figure.
func ClientCores(cpuSecs float64, wall time.Duration, cores int) (v float64, ok bool) {
	if wall < MinCPUInterval || cpuSecs < 0 {
		return 0, false
	}
	v = cpuSecs / wall.Seconds()
	if cores > 0 {
		v = min(v, float64(cores))
	}
	return v, true
}
