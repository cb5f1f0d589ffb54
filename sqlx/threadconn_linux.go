package sqlx

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadConn is a connection for thread I/O (Options.ThreadIO): a socket
// in blocking mode, read and written with raw system calls on the calling
// goroutine's thread and never registered with Go's network poller.
//
// A read sleeps in the kernel on its own socket, as libpq's and sysbench's
// threads do, and the server's reply wakes that thread and no other. A
// socket the poller knows also has an epoll entry: every reply then ran
// the poller's wake-up callback too, and waits that timed out or were
// interrupted by a signal went through the poller, moving the goroutine
// to another thread. Taking the socket out of the poller, in four
// alternating pairs of oltp_point_select runs at 8 threads: 82,983,
// 81,364, 76,884 and 83,513 tps against 77,486, 78,697, 83,978 and 78,663
// (sysbench 85,556-88,228 between them); client CPU per query 7.40, 7.68,
// 8.49 and 7.49 µs against 8.22, 8.09, 7.42 and 8.14.
//
// Each read and write waits at most blockingTimeout in the kernel before
// it looks at the deadlines and at Close, so a deadline takes effect
// within blockingTimeout. Close shuts the socket down first, which wakes
// blocked calls at once; the descriptor is closed when the last call
// using it returns.
type threadConn struct {
	fd            int
	local, remote net.Addr

	// refs counts the owner (until Close) and the calls in flight; the
	// one that drops it to 0 closes fd.
	refs    atomic.Int32
	closing atomic.Bool
	// readDL and writeDL are the deadlines in Unix nanoseconds, 0 for
	// none.
	readDL, writeDL atomic.Int64

	rmu, wmu sync.Mutex // one read and one write at a time, as the kernel would interleave them
}

// blockingTimeout bounds each blocking system call of thread I/O: the
// longest a deadline waits for a blocked read or write to notice it.
const blockingTimeout = 20 * time.Millisecond

// newThreadConn moves c's socket to a threadConn: it duplicates the
// descriptor, sets the socket to blocking mode with blockingTimeout on
// sends and receives, and closes c, which takes the socket out of the
// poller while the duplicate keeps the connection open. It returns false,
// leaving c open and as it was, when a step before closing c fails.
func newThreadConn(c net.Conn, rc syscall.RawConn) (net.Conn, bool) {
	fd := -1
	var err error
	if cerr := rc.Control(func(s uintptr) {
		fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); cerr != nil || err != nil {
		return nil, false
	}
	tv := unix.NsecToTimeval(blockingTimeout.Nanoseconds())
	if unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv) != nil ||
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) != nil ||
		unix.SetNonblock(fd, false) != nil {
		_ = unix.SetNonblock(fd, true) // c's descriptor shares the mode
		_ = unix.Close(fd)
		return nil, false
	}
	tc := &threadConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}
	tc.refs.Store(1)
	// Closing c removes the poller's epoll entry (EPOLL_CTL_DEL) and c's
	// descriptor; nothing reads c in between.
	_ = c.Close()
	return tc, true
}

// acquire takes a reference for a call, unless the connection is closed.
func (c *threadConn) acquire() bool {
	for {
		r := c.refs.Load()
		if r == 0 || c.closing.Load() {
			return false
		}
		if c.refs.CompareAndSwap(r, r+1) {
			return true
		}
	}
}

// release drops a reference, closing the descriptor with the last one.
func (c *threadConn) release() {
	if c.refs.Add(-1) == 0 {
		_ = unix.Close(c.fd)
	}
}

// expired says whether the deadline dl (Unix nanoseconds, 0 for none) has
// passed, or the connection is closing; it returns the error to report.
func (c *threadConn) expired(dl *atomic.Int64) error {
	if c.closing.Load() {
		return net.ErrClosed
	}
	if d := dl.Load(); d != 0 && time.Now().UnixNano() >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// Read implements net.Conn.
func (c *threadConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if !c.acquire() {
		return 0, c.opError("read", net.ErrClosed)
	}
	defer c.release()
	for {
		if err := c.expired(&c.readDL); err != nil {
			return 0, c.opError("read", err)
		}
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			if r == 0 {
				if c.closing.Load() {
					return 0, c.opError("read", net.ErrClosed)
				}
				return 0, io.EOF
			}
			return int(r), nil
		case syscall.EAGAIN: // the receive timeout: look at deadlines, wait again
		case syscall.EINTR:
			// A signal, most likely the runtime asking this goroutine
			// to stop (a garbage collection): let it.
			runtime.Gosched()
		default:
			if c.closing.Load() {
				return 0, c.opError("read", net.ErrClosed)
			}
			return 0, c.opError("read", e)
		}
	}
}

// Write implements net.Conn: it writes all of b.
func (c *threadConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.acquire() {
		return 0, c.opError("write", net.ErrClosed)
	}
	defer c.release()
	n := 0
	for n < len(b) {
		if err := c.expired(&c.writeDL); err != nil {
			return n, c.opError("write", err)
		}
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n))
		switch e {
		case 0:
			n += int(r)
		case syscall.EAGAIN: // the send timeout: look at deadlines, wait again
		case syscall.EINTR:
			runtime.Gosched()
		default:
			if c.closing.Load() {
				return n, c.opError("write", net.ErrClosed)
			}
			return n, c.opError("write", e)
		}
	}
	return n, nil
}

// Close implements net.Conn. Shutting the socket down wakes any call
// blocked on it; the descriptor is closed when the last call returns.
func (c *threadConn) Close() error {
	if !c.closing.CompareAndSwap(false, true) {
		return c.opError("close", net.ErrClosed)
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	c.release()
	return nil
}

// LocalAddr implements net.Conn.
func (c *threadConn) LocalAddr() net.Addr { return c.local }

// RemoteAddr implements net.Conn.
func (c *threadConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline implements net.Conn; it takes effect within blockingTimeout.
func (c *threadConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline implements net.Conn; it takes effect within
// blockingTimeout.
func (c *threadConn) SetReadDeadline(t time.Time) error {
	c.readDL.Store(unixNanos(t))
	return nil
}

// SetWriteDeadline implements net.Conn; it takes effect within
// blockingTimeout.
func (c *threadConn) SetWriteDeadline(t time.Time) error {
	c.writeDL.Store(unixNanos(t))
	return nil
}

// unixNanos is t in Unix nanoseconds, 0 for the zero time (no deadline).
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	if n := t.UnixNano(); n > 0 {
		return n
	}
	return 1 // a deadline before 1970 has passed
}

// opError wraps err as net.Conn's methods do.
func (c *threadConn) opError(op string, err error) error { return opError(op, c, err) }

// CloseWrite shuts down the writing side of the connection, as
// net.TCPConn's does.
func (c *threadConn) CloseWrite() error {
	if !c.acquire() {
		return c.opError("close", net.ErrClosed)
	}
	defer c.release()
	if err := unix.Shutdown(c.fd, unix.SHUT_WR); err != nil {
		return c.opError("close", err)
	}
	return nil
}
