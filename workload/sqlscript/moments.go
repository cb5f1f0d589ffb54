package sqlscript

import (
	"sync"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// scriptMoments holds one worker's exact latency and schedule lag moments
// by script, in whole µs as the transaction log writes them, so that
// pgbench's report (latency average and stddev, lag average) is its log's
// to the digit, as pgbench's SimpleStats are. The worker adds; the report
// reads after the run.
type scriptMoments struct {
	mu       sync.Mutex
	lat, lag []stats.Moments
}

// add adds a transaction of script s that took d (lag after its intended
// start; negative without a rate).
func (m *scriptMoments) add(s int, d, lag time.Duration) {
	m.mu.Lock()
	m.lat[s].Add(float64(d.Microseconds()))
	if lag >= 0 {
		m.lag[s].Add(float64(lag.Microseconds()))
	}
	m.mu.Unlock()
}

// KeepMoments asks the run to keep each script's exact latency and lag
// moments (Moments), for pgbench's report: its start is then read for
// every transaction.
func (g *gen) KeepMoments() { g.keepMoments = true }

// Moments is script s's exact latency and schedule lag moments over the
// run's transactions that succeeded, in µs (empty unless KeepMoments was
// called before the run).
func (g *gen) Moments(s int) (lat, lag stats.Moments) {
	for _, m := range g.moments {
		m.mu.Lock()
		if s < len(m.lat) {
			lat.Merge(m.lat[s])
			lag.Merge(m.lag[s])
		}
		m.mu.Unlock()
	}
	return lat, lag
}

// newMoments makes the workers' moments of scripts scripts.
func newMoments(workers, scripts int) []*scriptMoments {
	ms := make([]*scriptMoments, workers)
	for i := range ms {
		ms[i] = &scriptMoments{lat: make([]stats.Moments, scripts), lag: make([]stats.Moments, scripts)}
	}
	return ms
}
