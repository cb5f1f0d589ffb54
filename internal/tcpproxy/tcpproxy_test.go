package tcpproxy_test

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/tcpproxy"
)

// echoServer answers each line with the same line until the test ends.
func echoServer(t *testing.T) string {
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
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line on c and reads it back.
func roundTrip(c net.Conn, r *bufio.Reader, msg string) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if line != msg+"\n" {
		return io.ErrUnexpectedEOF
	}
	return nil
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func TestProxyStopResume(t *testing.T) {
	p, err := tcpproxy.Start(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	c, r := dial(t, p.Addr())
	if err := roundTrip(c, r, "hello"); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}

	p.Stop()
	// The live connection is gone...
	if err := roundTrip(c, r, "again"); err == nil {
		t.Fatal("connection survived Stop")
	}
	// ...and new ones are refused.
	if c2, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c2.Close()
		t.Fatal("dial succeeded while stopped")
	}
	p.Stop() // idempotent

	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := p.Resume(); err != nil { // idempotent
		t.Fatal(err)
	}
	c3, r3 := dial(t, p.Addr())
	if err := roundTrip(c3, r3, "back"); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
	if got := p.Accepted(); got != 2 {
		t.Errorf("Accepted() = %d, want 2", got)
	}
}

func TestProxyDeadTarget(t *testing.T) {
	// A listener closed at once: its port refuses connections.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := ln.Addr().String()
	ln.Close()
	p, err := tcpproxy.Start(target)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, r := dial(t, p.Addr())
	if err := roundTrip(c, r, "x"); err == nil {
		t.Fatal("round trip through a proxy to a dead target succeeded")
	}
}

func TestProxyCloseWaits(t *testing.T) {
	p, err := tcpproxy.Start(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for i := 0; i < 5; i++ {
		c, r := dial(t, p.Addr())
		if err := roundTrip(c, r, "x"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if err := p.Resume(); err == nil {
		t.Error("Resume after Close succeeded")
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("connection still open after Close")
		}
	}
}
