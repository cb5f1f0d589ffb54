package sqlx

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// exchangePair returns a rawIOConn and the peer end of its loopback TCP
// connection.
func exchangePair(t *testing.T) (*rawIOConn, net.Conn) {
	t.Helper()
	c, peer := rawPair(t, false)
	return c.(*rawIOConn), peer
}

// TestExchangeWaitsWithoutEmptyRead: a request whose reply comes 5 ms
// later is answered without a read that finds nothing, where Write and
// Read make one each time; the reply is read whole.
func TestExchangeWaitsWithoutEmptyRead(t *testing.T) {
	c, peer := exchangePair(t)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := peer.Read(buf)
			if err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
			if _, err := peer.Write(bytes.ToUpper(buf[:n])); err != nil {
				return
			}
		}
	}()
	r := make([]byte, 64)
	for i := 0; i < 5; i++ {
		wrote, n, err := c.Exchange([]byte("ping"), r)
		if err != nil || wrote != 4 || string(r[:n]) != "PING" {
			t.Fatalf("Exchange: wrote %d, read %q, %v; want 4, \"PING\", nil", wrote, r[:n], err)
		}
	}
	if c.empty != 0 {
		t.Errorf("Exchange made %d reads that found nothing in 5 exchanges; want 0", c.empty)
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(r); err != nil || string(r[:n]) != "PING" {
		t.Fatalf("Read: %q, %v", r[:n], err)
	}
	if c.empty == 0 {
		t.Error("Write and Read of a reply 5 ms later made no read that found nothing: the test cannot tell Exchange's saving")
	}
}

// TestExchangeNeverLosesAReply: a peer that answers at once, as fast as
// it can, against exchanges on as many processors as the test has: the
// reply's readiness can come before the client's goroutine parks, or be
// collected by another processor's poller, and every exchange must still
// end.
func TestExchangeNeverLosesAReply(t *testing.T) {
	const pairs, rounds = 4, 5000
	done := make(chan error, pairs)
	var total atomic.Int64
	for p := 0; p < pairs; p++ {
		c, peer := exchangePair(t)
		go func() {
			buf := make([]byte, 8)
			for {
				if _, err := io.ReadFull(peer, buf); err != nil {
					return
				}
				if _, err := peer.Write(buf); err != nil {
					return
				}
			}
		}()
		go func() {
			w, r := make([]byte, 8), make([]byte, 8)
			for i := 0; i < rounds; i++ {
				w[0] = byte(i)
				n := 0
				wrote, m, err := c.Exchange(w, r)
				for err == nil && n+m < len(r) {
					n += m
					m, err = c.Read(r[n:])
				}
				if err != nil || wrote != 8 || r[0] != byte(i) {
					done <- errors.Join(err, errors.New("wrong reply"))
					return
				}
				total.Add(1)
			}
			done <- nil
		}()
	}
	timeout := time.After(2 * time.Minute)
	for p := 0; p < pairs; p++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatalf("exchanges hung after %d of %d: a reply's readiness was lost", total.Load(), pairs*rounds)
		}
	}
}

// TestExchangeLargeRequest: a request larger than the socket's buffers is
// written whole (the rest after the buffer fills, as Write) before the
// reply is read.
func TestExchangeLargeRequest(t *testing.T) {
	c, peer := exchangePair(t)
	const size = 16 << 20
	go func() {
		n, _ := io.CopyN(io.Discard, peer, size)
		time.Sleep(10 * time.Millisecond)
		_, _ = peer.Write([]byte{byte(n >> 20)})
	}()
	r := make([]byte, 8)
	wrote, n, err := c.Exchange(make([]byte, size), r)
	if err != nil || wrote != size || n != 1 || r[0] != 16 {
		t.Fatalf("Exchange of 16 MiB: wrote %d, read %d bytes (%v), %v; want 16 MiB, the peer's byte 16", wrote, n, r[:n], err)
	}
}

// TestExchangeEnds: a peer that closes gives io.EOF after the write; a
// deadline already past writes nothing and says so; a peer reset fails
// the write or the read.
func TestExchangeEnds(t *testing.T) {
	t.Run("eof", func(t *testing.T) {
		c, peer := exchangePair(t)
		go func() {
			buf := make([]byte, 4)
			_, _ = io.ReadFull(peer, buf)
			peer.Close()
		}()
		wrote, _, err := c.Exchange([]byte("ping"), make([]byte, 8))
		if wrote != 4 || !errors.Is(err, io.EOF) {
			t.Fatalf("Exchange with a peer that closes: wrote %d, %v; want 4, io.EOF", wrote, err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		c, peer := exchangePair(t)
		_ = c.SetDeadline(time.Now().Add(-time.Second))
		wrote, _, err := c.Exchange([]byte("ping"), make([]byte, 8))
		var ne net.Error
		if wrote != 0 || !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("Exchange past its deadline: wrote %d, %v; want 0 and a timeout", wrote, err)
		}
		_ = peer.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, _ := peer.Read(make([]byte, 8)); n != 0 {
			t.Errorf("the peer read %d bytes of an exchange past its deadline", n)
		}
	})
	t.Run("deadline while waiting", func(t *testing.T) {
		c, _ := exchangePair(t)
		_ = c.SetDeadline(time.Now().Add(50 * time.Millisecond))
		wrote, _, err := c.Exchange([]byte("ping"), make([]byte, 8))
		var ne net.Error
		if wrote != 4 || !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("Exchange whose reply never comes: wrote %d, %v; want 4 and a timeout", wrote, err)
		}
	})
}
