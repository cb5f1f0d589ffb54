package sqlx

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// ioModes are the two ways a raw-I/O connection waits, for tests that
// must pass in both.
var ioModes = []struct {
	name     string
	threadIO bool
}{{"poller", false}, {"thread", true}}

// rawPair returns a raw-I/O connection and the peer end of a loopback TCP
// connection: a threadConn with threadIO, else a rawIOConn.
func rawPair(t testing.TB, threadIO bool) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	raw := withRawIO(c, threadIO)
	switch raw.(type) {
	case *threadConn:
		if !threadIO {
			t.Fatal("withRawIO(threadIO=false) made a threadConn")
		}
	case *rawIOConn:
		if threadIO {
			t.Fatal("withRawIO(threadIO=true) made a rawIOConn")
		}
	default:
		t.Fatalf("withRawIO(%T) made a %T", c, raw)
	}
	t.Cleanup(func() { raw.Close(); peer.Close() })
	return raw, peer
}

// closeWrite shuts down the writing side of a raw-I/O connection.
func closeWrite(t *testing.T, c net.Conn) {
	t.Helper()
	var err error
	switch c := c.(type) {
	case *threadConn:
		err = c.CloseWrite()
	case *rawIOConn:
		err = c.Conn.(*net.TCPConn).CloseWrite()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestRawIOLargeTransfers(t *testing.T) {
	for _, mode := range ioModes {
		t.Run(mode.name, func(t *testing.T) {
			raw, peer := rawPair(t, mode.threadIO)
			// 32 MB is far more than the socket buffers hold, so the write
			// waits for the socket to drain many times (EAGAIN, or thread
			// I/O's send timeout), and the reads come in many pieces.
			data := bytes.Repeat([]byte("0123456789abcdef"), 2<<20)
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(io.LimitReader(peer, int64(len(data))))
				got <- b
			}()
			if n, err := raw.Write(data); err != nil || n != len(data) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(data))
			}
			if b := <-got; !bytes.Equal(b, data) {
				t.Fatalf("peer received %d bytes that differ from the %d written", len(b), len(data))
			}

			go func() { peer.Write(data) }()
			back, err := io.ReadAll(io.LimitReader(raw, int64(len(data))))
			if err != nil || !bytes.Equal(back, data) {
				t.Fatalf("read %d bytes (err %v), want the %d the peer wrote", len(back), err, len(data))
			}
		})
	}
}

// TestRawIOSlowReplies has the peer answer each request after a pause
// longer than thread I/O's blocking timeout, so every read of thread I/O
// times out in the kernel at least once and must still get its reply.
func TestRawIOSlowReplies(t *testing.T) {
	for _, mode := range ioModes {
		t.Run(mode.name, func(t *testing.T) {
			raw, peer := rawPair(t, mode.threadIO)
			go func() {
				b := make([]byte, 1)
				for {
					if _, err := io.ReadFull(peer, b); err != nil {
						return
					}
					time.Sleep(3 * blockingTimeout / 2)
					peer.Write([]byte{b[0] + 1})
				}
			}()
			b := make([]byte, 1)
			for i := byte(0); i < 5; i++ {
				if _, err := raw.Write([]byte{i}); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(raw, b); err != nil || b[0] != i+1 {
					t.Fatalf("reply %d: %v, %v; want %d", i, b[0], err, i+1)
				}
			}
		})
	}
}

func TestRawIOEndsAndErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(raw, peer net.Conn)
		check func(err error) bool
	}{
		{
			name:  "peer closes: EOF",
			setup: func(_, peer net.Conn) { peer.Close() },
			check: func(err error) bool { return err == io.EOF },
		},
		{
			name: "deadline passes: a timeout",
			setup: func(raw, _ net.Conn) {
				raw.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			},
			check: func(err error) bool {
				var ne net.Error
				return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
			},
		},
		{
			name: "deadline set while waiting: a timeout",
			setup: func(raw, _ net.Conn) {
				time.AfterFunc(30*time.Millisecond, func() { raw.SetReadDeadline(time.Now()) })
			},
			check: func(err error) bool {
				var ne net.Error
				return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
			},
		},
		{
			name: "closed while waiting: net.ErrClosed",
			setup: func(raw, _ net.Conn) {
				time.AfterFunc(20*time.Millisecond, func() { raw.Close() })
			},
			check: func(err error) bool { return errors.Is(err, net.ErrClosed) },
		},
	}
	for _, mode := range ioModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				raw, peer := rawPair(t, mode.threadIO)
				tc.setup(raw, peer)
				done := make(chan error, 1)
				go func() {
					_, err := raw.Read(make([]byte, 16))
					done <- err
				}()
				select {
				case err := <-done:
					if !tc.check(err) {
						t.Fatalf("Read error = %v (%T)", err, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Read did not return")
				}
			})
		}
	}
}

func TestRawIOWriteToReset(t *testing.T) {
	for _, mode := range ioModes {
		t.Run(mode.name, func(t *testing.T) { testRawIOWriteToReset(t, mode.threadIO) })
	}
}

func testRawIOWriteToReset(t *testing.T, threadIO bool) {
	raw, peer := rawPair(t, threadIO)
	peer.(*net.TCPConn).SetLinger(0) // close with a reset
	peer.Close()
	var err error
	for i := 0; i < 100 && err == nil; i++ { // the first writes may be buffered
		_, err = raw.Write([]byte("x"))
		time.Sleep(time.Millisecond)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" {
		t.Fatalf("Write to a reset connection: %v (%T), want a *net.OpError for write", err, err)
	}
}

// TestRawIOConcurrentUse reads and writes from several goroutines at once,
// as net.Conn allows: every byte written comes back once, and the race
// detector sees no shared state unguarded.
func TestRawIOConcurrentUse(t *testing.T) {
	const writers, readers, frames, frameLen = 4, 2, 200, 64
	for _, mode := range ioModes {
		t.Run(mode.name, func(t *testing.T) {
			raw, peer := rawPair(t, mode.threadIO)
			go func() {
				// Echo everything back, then end the stream.
				_, _ = io.Copy(peer, peer)
				_ = peer.(*net.TCPConn).CloseWrite()
			}()
			var mu sync.Mutex
			counts := make([]int, writers)
			var rg, wg sync.WaitGroup
			for r := 0; r < readers; r++ {
				rg.Add(1)
				go func() {
					defer rg.Done()
					buf := make([]byte, 100)
					for {
						n, err := raw.Read(buf)
						mu.Lock()
						for _, b := range buf[:n] {
							counts[b-'a']++
						}
						mu.Unlock()
						if err == io.EOF {
							return
						}
						if err != nil {
							t.Errorf("read: %v", err)
							return
						}
					}
				}()
			}
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					frame := bytes.Repeat([]byte{byte('a' + w)}, frameLen)
					for i := 0; i < frames; i++ {
						if _, err := raw.Write(frame); err != nil {
							t.Errorf("write: %v", err)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			closeWrite(t, raw)
			rg.Wait()
			for w, n := range counts {
				if n != frames*frameLen {
					t.Errorf("writer %d: %d bytes came back, want %d", w, n, frames*frameLen)
				}
			}
		})
	}
}

// TestThreadConnDeadlineCleared checks that a read after a deadline passed
// and was cleared waits for data again, as on a net.Conn.
func TestThreadConnDeadlineCleared(t *testing.T) {
	raw, peer := rawPair(t, true)
	raw.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := raw.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want a timeout", err)
	}
	raw.SetReadDeadline(time.Time{})
	time.AfterFunc(3*blockingTimeout/2, func() { peer.Write([]byte("y")) })
	b := make([]byte, 1)
	if _, err := raw.Read(b); err != nil || b[0] != 'y' {
		t.Fatalf("Read after clearing the deadline: %q, %v", b, err)
	}
}

// TestThreadConnCloseUnblocksWrite closes a connection whose write waits
// for a peer that does not read: the write returns net.ErrClosed, and the
// descriptor is closed once it has.
func TestThreadConnCloseUnblocksWrite(t *testing.T) {
	raw, _ := rawPair(t, true)
	done := make(chan error, 1)
	go func() {
		_, err := raw.Write(make([]byte, 64<<20))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	raw.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Write did not return after Close")
	}
	tc := raw.(*threadConn)
	if tc.refs.Load() != 0 {
		t.Fatalf("%d references left after Close and the write returned", tc.refs.Load())
	}
	if _, err := raw.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write on a closed connection: %v, want net.ErrClosed", err)
	}
}
