package proxy_test

import (
	"net"
	"testing"

	"github.com/stampede-bench/stampede/proxy"
)

// benchRoundTrips sends one byte and waits for it back, b.N times, on a
// connection to addr (an echo server, directly or through a proxy).
func benchRoundTrips(b *testing.B, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1)
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip compares a small request and reply directly and
// through a listener with no fault: the proxy's added cost per round trip.
func BenchmarkRoundTrip(b *testing.B) {
	echo := echoServer(b)
	b.Run("direct", func(b *testing.B) { benchRoundTrips(b, echo) })
	p, err := proxy.Start([]proxy.Listener{{Listen: "127.0.0.1:0", To: echo}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.Run("proxy", func(b *testing.B) { benchRoundTrips(b, p.Listeners()[0].Listen) })
}
