package proxy_test

import (
	"context"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/proxy"
)

// TestResetAfterWithPostgres puts a listener with 10ms of latency and
// reset-after 300ms in front of the test's PostgreSQL, and has a client
// connect, run SELECT 1 until its connection is reset, and connect again,
// for 3 s. Each connection must work (the server's first reply reaches
// the client, as toxiproxy's reset_peer does not let it) and be reset
// 300 ms after that first reply: the 10ms round trips bound the queries
// of each connection from both sides, and the resets are counted against
// the time they had.
func TestResetAfterWithPostgres(t *testing.T) {
	dsn := os.Getenv("STAMPEDE_TEST_DATABASE")
	if dsn == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	upstream := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	const latency, after = 10 * time.Millisecond, 300 * time.Millisecond
	p, err := proxy.Start([]proxy.Listener{{Name: "pg", Listen: "127.0.0.1:0", To: upstream,
		Faults: proxy.Faults{Latency: proxy.Duration(latency), Reset: true, ResetAfter: proxy.Duration(after)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	host, port, _ := net.SplitHostPort(p.Listeners()[0].Listen)
	pn, _ := strconv.Atoi(port)
	cfg.Host, cfg.Port = host, uint16(pn)
	cfg.Fallbacks = nil
	cfg.ConnectTimeout = 5 * time.Second

	type conn struct {
		queries  int
		lifetime time.Duration // from the dial to the reset
		err      error
	}
	var conns []conn
	ctx := context.Background()
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		t0 := time.Now()
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatalf("connection %d: %v (after %v)", len(conns)+1, err, time.Since(t0))
		}
		var cn conn
		for {
			var one int
			if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				cn.err, cn.lifetime = err, time.Since(t0)
				break
			}
			cn.queries++
		}
		c.Close(ctx)
		conns = append(conns, cn)
	}
	// The last connection may have been cut short by the end of the 3 s
	// only if it was reset too: every connection here ended by a reset.
	var queries []int
	var lifetimes []time.Duration
	for i, c := range conns {
		if !errors.Is(c.err, syscall.ECONNRESET) {
			t.Errorf("connection %d ended with %v, want a reset (ECONNRESET)", i+1, c.err)
		}
		queries = append(queries, c.queries)
		lifetimes = append(lifetimes, c.lifetime)
	}
	slices.Sort(queries)
	slices.Sort(lifetimes)
	t.Logf("%d connections reset; queries per connection %v; lifetimes %v", len(conns), queries, lifetimes)
	// Each connection lives at least after + one round trip (its first
	// reply is held back by the latency), so 3 s hold at most 10 of them;
	// a connection set-up of up to 450 ms on a loaded machine still
	// leaves 4.
	if n := len(conns); n < 4 || n > 10 {
		t.Errorf("%d connections reset in 3 s with reset-after %v: want 4 to 10", n, after)
	}
	if lifetimes[0] < after+latency {
		t.Errorf("a connection was reset %v after its dial: before reset-after %v plus the first reply's %v", lifetimes[0], after, latency)
	}
	if med := lifetimes[len(lifetimes)/2]; med > after+200*time.Millisecond {
		t.Errorf("median connection lived %v from its dial: more than reset-after %v and 200ms", med, after)
	}
	// After the first reply a connection has 300 ms: the rest of its
	// start-up (one round trip) and then queries of one 10ms round trip
	// each, so at most 29 (a hard bound: the most of any connection);
	// at least 8 for the median connection even if its round trips took
	// 3.5 times the latency on a loaded machine.
	if q := queries[len(queries)/2]; q < 8 {
		t.Errorf("the median connection completed %d queries before its reset: want at least 8 in %v (all: %v)", q, after, queries)
	}
	if q := queries[len(queries)-1]; q > int(after/latency)-1 {
		t.Errorf("a connection completed %d queries of one %v round trip each in %v", q, latency, after)
	}
}
