package proxy_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/proxy"
)

// echoServer answers every byte it gets with the same byte, on
// 127.0.0.1, until the test ends.
func echoServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// start starts one listener in front of an echo server with faults f.
func start(t *testing.T, f proxy.Faults) (*proxy.Proxy, proxy.Listener) {
	t.Helper()
	p, err := proxy.Start([]proxy.Listener{{Name: "l", Listen: "127.0.0.1:0", To: echoServer(t), Faults: f}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	l, _ := p.Get("l")
	return p, l
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends n bytes and reads them back, returning the time taken.
func roundTrip(c net.Conn, n int) (time.Duration, error) {
	buf := make([]byte, n)
	t0 := time.Now()
	_ = c.SetDeadline(t0.Add(5 * time.Second))
	if _, err := c.Write(buf); err != nil {
		return 0, err
	}
	if _, err := io.ReadFull(c, buf); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// rtts returns 9 one-byte round trips, sorted: their minimum is what the
// proxy adds (a loaded machine only adds to it), their median a typical
// one.
func rtts(t *testing.T, c net.Conn) []time.Duration {
	t.Helper()
	var ds []time.Duration
	for range 9 {
		d, err := roundTrip(c, 1)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds
}

// checkAdded checks that the round trips of c take at least lo and at
// most hi, hi below twice what is added (so that a proxy adding its
// delay twice fails): the minimum within [lo, hi), and the median below
// 2*lo, a bound that a doubled delay never meets either.
func checkAdded(t *testing.T, what string, c net.Conn, lo, hi time.Duration) {
	t.Helper()
	ds := rtts(t, c)
	minimum, median := ds[0], ds[len(ds)/2]
	if minimum < lo || minimum >= hi {
		t.Errorf("%s: fastest round trip %v, want %v to %v (all: %v)", what, minimum, lo, hi, ds)
	}
	if median >= 2*lo {
		t.Errorf("%s: median round trip %v, want below %v (all: %v)", what, median, 2*lo, ds)
	}
}

// checkNothingAdded checks that the round trips of c take about what the
// machine takes without a proxy's delay.
func checkNothingAdded(t *testing.T, what string, c net.Conn) {
	t.Helper()
	ds := rtts(t, c)
	if ds[0] >= 5*time.Millisecond || ds[len(ds)/2] >= 10*time.Millisecond {
		t.Errorf("%s: round trips %v: want the fastest below 5ms and the median below 10ms", what, ds)
	}
}

func ms(n int) proxy.Duration { return proxy.Duration(time.Duration(n) * time.Millisecond) }

// TestLatency checks that each round trip takes the added latency, and
// that a change reaches a connection that is already open.
func TestLatency(t *testing.T) {
	p, l := start(t, proxy.Faults{Latency: ms(30)})
	c := dial(t, l.Listen)
	checkAdded(t, "30ms added", c, 30*time.Millisecond, 45*time.Millisecond)
	if _, err := p.SetFaults("l", proxy.Faults{Latency: ms(80), Jitter: ms(10)}); err != nil {
		t.Fatal(err)
	}
	// Each delay is within 70-90ms; doubled, at least 140ms.
	checkAdded(t, "80ms ±10ms added", c, 70*time.Millisecond, 105*time.Millisecond)
	if _, err := p.SetFaults("l", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	checkNothingAdded(t, "after removing the latency", c)
}

// TestBandwidth sends 100KB through a 200KB/s limit on each direction,
// three times: the bytes go up and come back pipelined, so each round
// trip takes 0.5 s and the time of the last block (at most the 100ms
// blocks toxiproxy sends); the limit applied twice (100KB/s) would take
// 1 s.
func TestBandwidth(t *testing.T) {
	_, l := start(t, proxy.Faults{Bandwidth: 200_000})
	c := dial(t, l.Listen)
	var ds []time.Duration
	for range 3 {
		d, err := roundTrip(c, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	t.Logf("100KB round trips through 200KB/s: %v", ds)
	if ds[0] < 480*time.Millisecond || ds[0] >= 800*time.Millisecond {
		t.Errorf("100KB through a 200KB/s limit took at fastest %v (all: %v), want 480ms to 800ms", ds[0], ds)
	}
}

// TestReset checks that open connections are reset and new ones too,
// until the fault is lifted; the latency given with it stays when the
// reset is lifted, and goes when it is removed.
func TestReset(t *testing.T) {
	p, l := start(t, proxy.Faults{Latency: ms(20)})
	c := dial(t, l.Listen)
	checkAdded(t, "20ms added", c, 20*time.Millisecond, 30*time.Millisecond)
	if _, err := p.SetFaults("l", proxy.Faults{Latency: ms(20), Reset: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(c, 1); err == nil {
		t.Error("an open connection survived the reset")
	}
	if _, err := roundTrip(dial(t, l.Listen), 1); err == nil {
		t.Error("a new connection survived the reset")
	}
	if _, err := p.SetFaults("l", proxy.Faults{Latency: ms(20)}); err != nil {
		t.Fatal(err)
	}
	checkAdded(t, "after lifting the reset, with 20ms", dial(t, l.Listen), 20*time.Millisecond, 30*time.Millisecond)
	if _, err := p.SetFaults("l", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	checkNothingAdded(t, "after removing every fault", dial(t, l.Listen))
}

// TestStall checks that a stall lets nothing through, and that the
// stalled connection is closed when the stall is lifted.
func TestStall(t *testing.T) {
	p, l := start(t, proxy.Faults{Stall: true})
	c := dial(t, l.Listen)
	_, _ = c.Write([]byte{1})
	_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var ne net.Error
	if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read through a stall: %v, want a timeout", err)
	}
	if _, err := p.SetFaults("l", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("the stalled connection is still open after the stall")
	}
	if _, err := roundTrip(dial(t, l.Listen), 1); err != nil {
		t.Errorf("a new connection after the stall: %v", err)
	}

	_, l = start(t, proxy.Faults{Stall: true, StallTimeout: ms(200)})
	c = dial(t, l.Listen)
	t0 := time.Now()
	_ = c.SetReadDeadline(t0.Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || time.Since(t0) > 3*time.Second {
		t.Errorf("with a 200ms stall timeout: %v after %v", err, time.Since(t0))
	}
}

func TestDown(t *testing.T) {
	p, l := start(t, proxy.Faults{})
	c := dial(t, l.Listen)
	if _, err := p.SetFaults("l", proxy.Faults{Down: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(c, 1); err == nil {
		t.Error("an open connection survived down")
	}
	if c, err := net.DialTimeout("tcp", l.Listen, time.Second); err == nil {
		c.Close()
		t.Error("a listener that is down accepted a connection")
	}
	if _, err := p.SetFaults("l", proxy.Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, err := roundTrip(dial(t, l.Listen), 1); err != nil {
		t.Errorf("back up: %v", err)
	}
}

// TestStartErrors checks the errors of Start, and that a failed Start
// leaves nothing listening. Two listeners on one address are refused as
// such, not blamed on another process.
func TestStartErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	_, freePort, _ := net.SplitHostPort(freeAddr)
	free.Close()
	to := echoServer(t)
	tests := []struct {
		name string
		ls   []proxy.Listener
		want string
	}{
		{"port in use", []proxy.Listener{{Listen: freeAddr, To: to}, {Listen: busy.Addr().String(), To: to}},
			"listener " + busy.Addr().String() + ": the address is in use by another process: pick another port"},
		{"named port in use", []proxy.Listener{{Name: "west", Listen: busy.Addr().String(), To: to}},
			"listener west on " + busy.Addr().String() + ": the address is in use by another process: pick another port"},
		{"same address twice", []proxy.Listener{{Listen: freeAddr, To: to}, {Listen: "127.0.0.1:0", To: to}, {Listen: freeAddr, To: to}},
			"two listeners ask for the same address (the 1st and 3rd --listen: " + freeAddr + "): give each its own port"},
		{"same port, all hosts", []proxy.Listener{{Name: "a", Listen: freeAddr, To: to}, {Name: "b", Listen: "0.0.0.0:" + freePort, To: to}},
			"two listeners ask for the same address (listeners a and b: " + freeAddr + " and 0.0.0.0:" + freePort + "): give each its own port"},
		{"no listener", nil, "no listener"},
		{"bad listen", []proxy.Listener{{Listen: "localhost", To: to}}, "give host:port"},
		{"listen port range", []proxy.Listener{{Listen: "127.0.0.1:70000", To: to}}, "out of range"},
		{"upstream port 0", []proxy.Listener{{Listen: "127.0.0.1:0", To: "127.0.0.1:0"}}, "upstream"},
		{"bad faults", []proxy.Listener{{Listen: "127.0.0.1:0", To: to, Faults: proxy.Faults{Jitter: ms(5)}}}, "jitter"},
		{"same name", []proxy.Listener{{Name: "a", Listen: "127.0.0.1:0", To: to}, {Name: "a", Listen: "127.0.0.1:0", To: to}}, `two listeners are named "a"`},
		{"bad name", []proxy.Listener{{Name: "a/b", Listen: "127.0.0.1:0", To: to}}, "listener name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := proxy.Start(tt.ls, nil)
			if err == nil {
				p.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %q, want one line with %q", err, tt.want)
			}
		})
	}
	// The first listener of the failed start is closed again.
	if c, err := net.DialTimeout("tcp", freeAddr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after a failed Start", freeAddr)
	}
}

// TestUnreachableUpstream checks that a listener whose server is down
// closes its clients' connections and says why, once.
func TestUnreachableUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	var mu sync.Mutex
	var warnings []string
	p, err := proxy.Start([]proxy.Listener{{Name: "east", Listen: "127.0.0.1:0", To: gone}}, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, msg)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for range 3 {
		c := dial(t, p.Listeners()[0].Listen)
		if _, err := roundTrip(c, 1); err == nil {
			t.Error("a round trip through a listener whose server is down")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "listener east: cannot reach "+gone) || !strings.Contains(warnings[0], "refused") {
		t.Errorf("warnings %q, want one about %s", warnings, gone)
	}
}

func TestAPI(t *testing.T) {
	p, l := start(t, proxy.Faults{Latency: ms(10)})
	var changes []string
	srv := httptest.NewServer(p.Handler(func(before, after proxy.Listener) {
		changes = append(changes, before.Faults.String()+" -> "+after.Faults.String())
	}))
	defer srv.Close()
	ctx := context.Background()
	c := proxy.NewClient(srv.URL)

	ls, err := c.Listeners(ctx)
	if err != nil || len(ls) != 1 || ls[0] != l {
		t.Fatalf("Listeners: %+v, %v; want [%+v]", ls, err, l)
	}
	got, err := c.SetFaults(ctx, "l", proxy.Faults{Latency: ms(60), Jitter: ms(5)})
	if err != nil || got.Faults.String() != "latency 60ms ±5ms" {
		t.Fatalf("SetFaults: %+v, %v", got, err)
	}
	got, err = c.PatchFaults(ctx, "l", map[string]any{"jitter": "0s", "reset": true})
	if err != nil || got.Faults.String() != "latency 60ms, reset" {
		t.Fatalf("PatchFaults: %+v, %v", got, err)
	}
	if now, _ := p.Get("l"); now != got {
		t.Errorf("the proxy has %+v, the API said %+v", now, got)
	}
	got, err = c.PatchFaults(ctx, "l", map[string]any{"reset": false, "stall_timeout": "5s"})
	if err != nil || got.Faults.String() != "latency 60ms, stall, closing after 5s" {
		t.Fatalf("PatchFaults stall_timeout: %+v, %v", got, err)
	}
	got, err = c.PatchFaults(ctx, "l", map[string]any{"stall": false})
	if err != nil || got.Faults.String() != "latency 60ms" {
		t.Fatalf("PatchFaults stall false: %+v, %v", got, err)
	}
	for _, bad := range []struct {
		fields map[string]any
		want   string
	}{
		{map[string]any{"latncy": "5ms"}, `unknown field "latncy"`},
		{map[string]any{"latency": "soon"}, "not a duration"},
		{map[string]any{"jitter": "90ms"}, "jitter 90ms is more than latency 60ms"},
	} {
		if _, err := c.PatchFaults(ctx, "l", bad.fields); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("PATCH %v: %v, want %q", bad.fields, err, bad.want)
		}
	}
	if now, _ := p.Get("l"); now != got {
		t.Errorf("a refused change changed the faults: %+v", now.Faults)
	}
	if _, err := c.Listener(ctx, "nope"); err == nil || !strings.Contains(err.Error(), `no such listener "nope"`) {
		t.Errorf("unknown listener: %v", err)
	}
	if _, err := c.SetFaults(ctx, "nope", proxy.Faults{}); err == nil || !strings.Contains(err.Error(), "no such listener") {
		t.Errorf("unknown listener: %v", err)
	}
	want := []string{"latency 10ms -> latency 60ms ±5ms", "latency 60ms ±5ms -> latency 60ms, reset",
		"latency 60ms, reset -> latency 60ms, stall, closing after 5s", "latency 60ms, stall, closing after 5s -> latency 60ms"}
	if !slices.Equal(changes, want) {
		t.Errorf("changes %q, want %q", changes, want)
	}
}
