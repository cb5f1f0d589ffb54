// Package promexport serves a run's live figures at /metrics in the
// Prometheus exposition format (the speed layer's pull side). It computes
// nothing: the caller hands it a Snapshot at every interval, and scrapes
// read the latest one, so the hot path never touches Prometheus.
package promexport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Buckets are the latency histogram's upper bounds, in seconds.
var Buckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Op is one operation type's cumulative figures.
type Op struct {
	// Name is the operation's name (the "op" label).
	Name string
	// Count and Errors are completed and failed operations so far.
	Count, Errors uint64
	// Buckets are cumulative counts for promexport.Buckets.
	Buckets []uint64
	// SumSeconds is the sum of the latencies.
	SumSeconds float64
}

// Snapshot is the state of a run at the end of an interval.
type Snapshot struct {
	// Ops has one entry per operation type.
	Ops []Op
	// Reconnects counts connections re-established so far.
	Reconnects uint64
}

// Exporter is a prometheus.Collector of the latest Snapshot. It is safe
// for concurrent use.
type Exporter struct {
	workload string
	latest   atomic.Pointer[Snapshot]

	ops, errs, latency, reconnects *prometheus.Desc
}

var _ prometheus.Collector = (*Exporter)(nil)

// New returns an Exporter labelling every metric with the workload name.
func New(workload string) *Exporter {
	l := prometheus.Labels{"workload": workload}
	return &Exporter{
		workload:   workload,
		ops:        prometheus.NewDesc("stampede_operations_total", "Operations completed, by operation type.", []string{"op"}, l),
		errs:       prometheus.NewDesc("stampede_errors_total", "Operations failed, by operation type.", []string{"op"}, l),
		latency:    prometheus.NewDesc("stampede_latency_seconds", "Operation latency (from the intended start under --max-rate).", []string{"op"}, l),
		reconnects: prometheus.NewDesc("stampede_reconnects_total", "Connections re-established after being lost.", nil, l),
	}
}

// Update makes s the snapshot that scrapes see.
func (e *Exporter) Update(s Snapshot) { e.latest.Store(&s) }

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	ch <- e.ops
	ch <- e.errs
	ch <- e.latency
	ch <- e.reconnects
}

// Collect implements prometheus.Collector.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	s := e.latest.Load()
	if s == nil {
		return
	}
	for _, op := range s.Ops {
		ch <- prometheus.MustNewConstMetric(e.ops, prometheus.CounterValue, float64(op.Count), op.Name)
		ch <- prometheus.MustNewConstMetric(e.errs, prometheus.CounterValue, float64(op.Errors), op.Name)
		buckets := make(map[float64]uint64, len(Buckets))
		for i, b := range Buckets {
			if i < len(op.Buckets) {
				buckets[b] = op.Buckets[i]
			}
		}
		ch <- prometheus.MustNewConstHistogram(e.latency, op.Count, op.SumSeconds, buckets, op.Name)
	}
	ch <- prometheus.MustNewConstMetric(e.reconnects, prometheus.CounterValue, float64(s.Reconnects))
}

// Server serves /metrics.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Serve starts serving e's metrics at http://addr/metrics (":9090", or
// "127.0.0.1:0" for a free port).
func Serve(addr string, e *Exporter) (*Server, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// ListenAddr is the address the server listens on, as a net.Addr.
func (s *Server) ListenAddr() net.Addr { return s.ln.Addr() }

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
