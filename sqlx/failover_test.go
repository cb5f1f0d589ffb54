package sqlx_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/proxy"
	"github.com/stampede-bench/stampede/sqlx"
)

// phase of the failover test.
const (
	before = iota // both endpoints up
	during        // endpoint 0 down
	after         // endpoint 0 back
	numPhases
)

var phaseNames = [numPhases]string{"before", "during", "after"}

// workerTally is what one worker of the failover test saw.
type workerTally struct {
	ok     [numPhases][2]int64 // successes per phase and endpoint
	errs   [numPhases]int64
	moved  time.Duration // from the outage to the first success elsewhere (home 0)
	back   time.Duration // from the resume to the first success at home (home 0)
	sample string        // one error message
}

// TestFailover runs four workers on two endpoints (two proxy listeners in front of
// one server), kills endpoint 0 for two seconds, and checks that its
// workers move to endpoint 1 and come back afterwards.
func TestFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 18 s")
	}
	for _, tc := range []struct {
		name  string
		conns int
	}{
		{"a connection per worker", 4},
		{"workers sharing connections", 2},
	} {
		t.Run(tc.name, func(t *testing.T) { testFailover(t, tc.conns) })
	}
}

// testFailover runs 4 workers on two endpoints with maxConns connections
// in all and stops endpoint 0 in the middle.
func testFailover(t *testing.T, maxConns int) {
	base := testDatabaseURL(t)
	// Two listeners of stampede's proxy (toxiproxy) in front of the one
	// server; "down" on the first closes its connections and refuses new
	// ones, as a dead node does.
	px, err := proxy.Start([]proxy.Listener{
		{Name: "ep0", Listen: "127.0.0.1:0", To: base.Host},
		{Name: "ep1", Listen: "127.0.0.1:0", To: base.Host},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	var urls []string
	for _, l := range px.Listeners() {
		urls = append(urls, withHost(base, l.Listen))
	}
	setDown := func(down bool) {
		t.Helper()
		if _, err := px.SetFaults("ep0", proxy.Faults{Down: down}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: urls, Workers: 4, MaxConns: maxConns, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	const (
		stopAt   = 2 * time.Second
		resumeAt = 4 * time.Second
		endAt    = 9 * time.Second // a worker away retries home every 2 s (homeRetryInterval), each try bounded by 200 ms: three tries, for a loaded machine
	)
	start := time.Now()
	// The phase changes when the proxy has actually stopped or resumed,
	// not at a worker's reading of the clock: a query that started before
	// the stop may still succeed on endpoint 0.
	var phase atomic.Int32
	tallies := make([]workerTally, 4)
	var wg sync.WaitGroup
	for w := range tallies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tally := &tallies[w]
			conn := db.Conn(w, true)
			defer conn.Release()
			for {
				el := time.Since(start)
				if el >= endAt {
					return
				}
				ph := int(phase.Load())
				qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				var one int
				err := conn.QueryRow(qctx, "SELECT 1").Scan(&one)
				cancel()
				if err != nil {
					tally.errs[ph]++
					if tally.sample == "" {
						tally.sample = err.Error()
					}
					time.Sleep(5 * time.Millisecond)
					continue
				}
				ep := sqlx.CurrentEndpoint(conn)
				if ep < 0 {
					t.Errorf("worker %d: no current endpoint after a success", w)
					return
				}
				tally.ok[ph][ep]++
				if w%2 == 0 {
					done := time.Since(start)
					if ph == during && ep == 1 && tally.moved == 0 {
						tally.moved = done - stopAt
					}
					if ph == after && ep == 0 && tally.back == 0 {
						tally.back = done - resumeAt
					}
				}
			}
		}()
	}

	sleepUntil := func(d time.Duration) { time.Sleep(time.Until(start.Add(d))) }
	acquires := func() string {
		var parts []string
		for _, s := range db.EndpointStats() {
			parts = append(parts, fmt.Sprintf("%s: %d acquires (down %v)", s.Name, s.Acquires, s.Down))
		}
		return strings.Join(parts, ", ")
	}
	sleepUntil(stopAt)
	t.Logf("before the outage: %s", acquires())
	setDown(true)
	phase.Store(during)
	sleepUntil(resumeAt)
	during0 := db.EndpointStats()[0].Acquires
	t.Logf("during the outage: %s", acquires())
	setDown(false)
	phase.Store(after)
	wg.Wait()
	t.Logf("after the outage:  %s", acquires())
	after0 := db.EndpointStats()[0].Acquires

	// Figures: queries per second per endpoint and phase, all workers.
	secs := [numPhases]float64{stopAt.Seconds(), (resumeAt - stopAt).Seconds(), (endAt - resumeAt).Seconds()}
	var errs int64
	for ph := range numPhases {
		var ep [2]int64
		var e int64
		for _, tl := range tallies {
			ep[0] += tl.ok[ph][0]
			ep[1] += tl.ok[ph][1]
			e += tl.errs[ph]
		}
		errs += e
		t.Logf("%-6s  endpoint 0: %7.0f q/s  endpoint 1: %7.0f q/s  errors: %d", phaseNames[ph],
			float64(ep[0])/secs[ph], float64(ep[1])/secs[ph], e)
	}
	for w, tl := range tallies {
		t.Logf("worker %d (home %d): ok %v, errors %v, moved after %v, back after %v; first error: %s",
			w, w%2, tl.ok, tl.errs, tl.moved.Round(time.Millisecond), tl.back.Round(time.Millisecond), tl.sample)
	}
	t.Logf("reconnects: %d", db.Reconnects())

	for w, tl := range tallies {
		if tl.ok[before][w%2] == 0 {
			t.Errorf("worker %d: no success at home before the outage", w)
		}
		if tl.ok[during][1] == 0 {
			t.Errorf("worker %d: no success during the outage", w)
		}
		if tl.ok[during][0] != 0 {
			t.Errorf("worker %d: %d successes on the dead endpoint", w, tl.ok[during][0])
		}
		if w%2 == 0 {
			if tl.moved > 2*time.Second {
				t.Errorf("worker %d: moved to endpoint 1 only %v after the outage", w, tl.moved)
			}
			if tl.ok[after][0] == 0 {
				t.Errorf("worker %d: did not come back to endpoint 0 after the outage", w)
			}
		}
	}
	if errs == 0 {
		t.Error("no errors at all: was the endpoint really stopped?")
	}
	if db.Reconnects() == 0 && maxConns >= 4 {
		t.Error("no reconnects") // shared connections are re-made by the pool, uncounted
	}
	if after0 <= during0 {
		t.Errorf("endpoint 0 acquires did not increase after the resume: %d then %d", during0, after0)
	}
}
