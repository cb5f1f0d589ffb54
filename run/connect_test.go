package run_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// slowServer forwards TCP connections to a server, starting them one at a
// time, each delay after the one before, as a postmaster on a loaded
// machine starts its backends: the n-th of many connections opened at
// once waits n × delay. A connection whose client has gone by its turn
// costs its delay too (the server forks for it all the same).
type slowServer struct {
	addr string
	mu   sync.Mutex
	// started holds when each connection was passed on to the server.
	started []time.Time
}

func startSlowServer(t *testing.T, upstream string, delay time.Duration) *slowServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &slowServer{addr: ln.Addr().String()}
	queue := make(chan net.Conn, 4096)
	var mu sync.Mutex
	var open []net.Conn
	keep := func(c ...net.Conn) {
		mu.Lock()
		open = append(open, c...)
		mu.Unlock()
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(queue)
				return
			}
			keep(c)
			queue <- c
		}
	}()
	go func() {
		for c := range queue {
			select {
			case <-time.After(delay):
			case <-done:
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			keep(up)
			s.mu.Lock()
			s.started = append(s.started, time.Now())
			s.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return s
}

// startedAfter counts the connections passed on to the server after at.
func (s *slowServer) startedAfter(at time.Time) (n, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.started {
		if st.After(at) {
			n++
		}
	}
	return n, len(s.started)
}

// TestConnectionsOpenBeforeTheClock runs 80 workers through a server that
// starts one backend every 25 ms (2 s for them all, each connection
// attempt timing out after 1 s): the workers' connections are made
// before the run's clock starts, none of them during the measured
// interval, no connection's wait is a failed operation, the measured
// interval is the run's duration, and the set-up is reported apart.
// Timed as the first operations, as before, about half the workers'
// connections timed out into failed operations and the rest were seconds
// of latency inside the measured interval.
func TestConnectionsOpenBeforeTheClock(t *testing.T) {
	db := testdb.Fresh(t, "stampede_connect", sqlx.Options{MaxConns: 1})
	base := testdb.URL(t)
	ctx := context.Background()
	meta, _ := workload.Get("ycsb")
	gen, err := workload.FromFlags(meta, "--workload=c", "-p", "recordcount=1000")
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Load(ctx, run.LoadSpec{Workload: gen, Conn: run.Conn{URLs: []string{base}, Database: db.Database()}}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	const (
		workers  = 80
		delay    = 25 * time.Millisecond
		duration = time.Second
	)
	srv := startSlowServer(t, u.Host, delay)
	u.Host = srv.addr
	q := u.Query()
	q.Set("connect_timeout", "1")
	u.RawQuery = q.Encode()

	// A few at a time: each waits behind at most 7 others (175 ms), well
	// within its 1 s.
	defer func(p int) { run.ConnectParallel = p }(run.ConnectParallel)
	run.ConnectParallel = 8
	began := time.Now()
	r, err := run.Start(ctx, run.Spec{
		Workload: gen, Conn: run.Conn{URLs: []string{u.String()}, Database: db.Database()},
		Concurrency: workers, Duration: duration, TolerateErrors: true,
		Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(began)
	sum := res.Summary
	t.Logf("set-up %s for %d connections, measured interval %.3fs, whole run %s; %d operations, %d failed",
		res.Info.ConnectTime, res.Info.Connections, sum.ElapsedSec, wall, sum.Total.Count, sum.Total.Errors)
	if sum.Total.Errors != 0 || sum.Total.Count == 0 {
		t.Errorf("%d operations, %d failed (errors by code %v): want some and none failed", sum.Total.Count, sum.Total.Errors, sum.Errors)
	}
	if sum.Reconnects != 0 {
		t.Errorf("%d reconnects, want 0", sum.Reconnects)
	}
	if res.Info.Connections != workers || sum.Connections != workers {
		t.Errorf("connections opened before the clock: %d (summary %d), want %d", res.Info.Connections, sum.Connections, workers)
	}
	// The server started them one every 25 ms: 2 s for the 80.
	if min := workers * delay * 9 / 10; res.Info.ConnectTime < min {
		t.Errorf("set-up took %s, want at least %s (80 backend starts 25 ms apart)", res.Info.ConnectTime, min)
	}
	if got := time.Duration(sum.ConnectSec * float64(time.Second)); (got - res.Info.ConnectTime).Abs() > time.Microsecond {
		t.Errorf("summary's connect_s %v, want the run's %s", sum.ConnectSec, res.Info.ConnectTime)
	}
	measuredFrom := res.Final.CumStart
	if n, all := srv.startedAfter(measuredFrom); n != 0 {
		t.Errorf("%d of the %d connections were started after the measured interval began: their set-up was timed", n, all)
	}
	// The measured interval is the duration (the operations in flight at
	// its end, a few ms each, finish after it).
	if el := time.Duration(sum.ElapsedSec * float64(time.Second)); el < duration || el > duration+500*time.Millisecond {
		t.Errorf("measured interval %s, want the duration %s (+ at most 500 ms)", el, duration)
	}
	// The whole run: the set-up, the duration, and what comes before and
	// after (opening, the load's checks, closing), bounded.
	if extra := wall - res.Info.ConnectTime - duration; extra > 3*time.Second {
		t.Errorf("the run took %s: %s of set-up, %s of duration and %s more", wall, res.Info.ConnectTime, duration, extra)
	}
	// The set-up is said when the clock starts and kept in summary.json,
	// not in the final block (which report recomputes from the run log).
	if res.Summary.ConnectSec != sum.ConnectSec || res.Summary.Connections == 0 {
		t.Errorf("summary's connect_s %v (%d connections), want %v", res.Summary.ConnectSec, res.Summary.Connections, sum.ConnectSec)
	}
	for _, e := range res.Extra {
		if e.Name == "connect_s" {
			t.Errorf("connect_s among the final block's extras, which report cannot recompute: %v", res.Extra)
		}
	}
}
