package sqlx

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawIOConn is a TCP or Unix connection whose reads and writes are raw
// system calls on its socket, made through the runtime poller's
// syscall.RawConn (so deadlines, readiness waits and Close behave as on
// the net.Conn it wraps).
//
// Why: a read or write made by net.Conn goes through the Go scheduler's
// syscall entry and exit. A write that wakes a local server's backend can
// take longer than a scheduler tick, and then the runtime's monitor thread
// hands the goroutine's processor to another thread, which it must wake;
// with thousands of statements a second the monitor polls every 20 µs and
// took 6-12% of the client's CPU.
//
// The socket is non-blocking: a call never waits, it returns EAGAIN, and
// RawConn then parks the goroutine in the poller as net.Conn would.
// Thread I/O uses threadConn instead.
type rawIOConn struct {
	net.Conn
	rc syscall.RawConn

	// The functions given to rc, made once: a closure made per call
	// escapes to the heap, two allocations per statement. Each direction
	// has one set of arguments, which its mutex guards: net.Conn allows
	// concurrent reads (pgconn never makes them; uncontended, the lock
	// costs one atomic operation).
	readFn, writeFn, exchangeFn func(fd uintptr) bool
	rmu, wmu                    sync.Mutex
	rbuf, wbuf                  []byte
	rn, wn                      int
	rerrno, werrno              syscall.Errno
	// wrote says an exchange's write was made (its first call).
	wrote bool
	// empty counts the reads that found nothing to read (EAGAIN), under
	// rmu: what Exchange saves, for its tests.
	empty int
}

// withRawIO returns c with raw-syscall reads and writes when c is a socket
// that can give its RawConn, and c itself otherwise. With threadIO it
// returns a threadConn on c's socket, unless the socket cannot be moved
// (then the poller's raw I/O).
func withRawIO(c net.Conn, threadIO bool) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	if threadIO {
		if tc, ok := newThreadConn(c, rc); ok {
			return tc
		}
	}
	raw := &rawIOConn{Conn: c, rc: rc}
	raw.readFn, raw.writeFn, raw.exchangeFn = raw.read, raw.write, raw.exchange
	return raw
}

// Read implements net.Conn.
func (c *rawIOConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	c.rbuf, c.rn, c.rerrno = b, 0, 0
	err := c.rc.Read(c.readFn)
	n, errno := c.rn, c.rerrno
	c.rbuf = nil
	c.rmu.Unlock()
	if err := ioError("read", err, errno, c); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// read is Read's system call, called by the RawConn with the socket: it
// returns false to wait in the poller.
func (c *rawIOConn) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.rn, c.rerrno = int(r), e
		if e == syscall.EAGAIN {
			c.empty++
			return false
		}
		return true
	}
}

// Write implements net.Conn: it writes all of b, waiting for the socket to
// drain when its buffer is full.
func (c *rawIOConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	c.wbuf, c.wn, c.werrno = b, 0, 0
	err := c.rc.Write(c.writeFn)
	n, errno := c.wn, c.werrno
	c.wbuf = nil
	c.wmu.Unlock()
	return n, ioError("write", err, errno, c)
}

// write is Write's system calls, called by the RawConn with the socket:
// it returns false to wait in the poller.
func (c *rawIOConn) write(fd uintptr) bool {
	return !c.writeAll(fd)
}

// writeAll writes what is left of wbuf with raw system calls, and reports
// whether the socket's buffer filled (EAGAIN) before its end; a failed
// call leaves its error in werrno.
func (c *rawIOConn) writeAll(fd uintptr) (full bool) {
	for c.wn < len(c.wbuf) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[c.wn])), uintptr(len(c.wbuf)-c.wn))
		switch e {
		case 0:
			c.wn += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return true
		default:
			c.werrno = e
			return false
		}
	}
	return false
}

// Exchange writes w whole and then reads the reply into r, as Write and
// Read do, but without the read a reply cannot have reached yet: the
// write is made inside the RawConn's read, after the poller has forgotten
// the socket's earlier readiness (RawConn.Read resets it before its first
// call), so the reply's readiness, which can only follow the write, is
// never lost, and the goroutine parks at once instead of first reading
// EAGAIN. A read right after the write was one system call of the 3-4 a
// prepared statement took (pgbench -S: 0.9 of 1.9 reads per transaction
// returned EAGAIN; pgbench's poll loop makes 1.4).
//
// A write the socket's buffer cannot take whole (a statement larger than
// it, or a server that is not reading) is finished as Write finishes it,
// and then read as Read reads.
//
// It returns the bytes of w written and of the reply read.
func (c *rawIOConn) Exchange(w, r []byte) (wrote, n int, err error) {
	if len(r) == 0 {
		wrote, err = c.Write(w)
		return wrote, 0, err
	}
	c.wmu.Lock()
	c.rmu.Lock()
	c.wbuf, c.wn, c.werrno, c.wrote = w, 0, 0, false
	c.rbuf, c.rn, c.rerrno = r, 0, 0
	err = c.rc.Read(c.exchangeFn)
	wn, werrno, rn, rerrno := c.wn, c.werrno, c.rn, c.rerrno
	c.rbuf, c.wbuf = nil, nil
	c.rmu.Unlock()
	c.wmu.Unlock()
	if werrno != 0 {
		return wn, 0, ioError("write", nil, werrno, c)
	}
	if wn < len(w) {
		if err != nil {
			// The RawConn failed before the first call (a deadline
			// passed, the connection closed): nothing was written.
			return wn, 0, ioError("write", err, 0, c)
		}
		// The socket's buffer filled.
		more, err := c.Write(w[wn:])
		if err != nil {
			return wn + more, 0, err
		}
		n, err = c.Read(r)
		return len(w), n, err
	}
	if err := ioError("read", err, rerrno, c); err != nil {
		return len(w), 0, err
	}
	if rn == 0 {
		return len(w), 0, io.EOF
	}
	return len(w), rn, nil
}

// exchange is Exchange's system calls, called by the RawConn with the
// socket: the write on the first call, then reads. It returns false to
// wait in the poller for the reply.
func (c *rawIOConn) exchange(fd uintptr) bool {
	if c.wrote {
		return c.read(fd)
	}
	c.wrote = true
	// A full buffer or a failed write ends the call: Exchange finishes
	// the one or returns the other.
	full := c.writeAll(fd)
	return full || c.werrno != 0
}

// ioError is the error of a raw read or write: err from the RawConn, else
// errno from the system call, else nil.
func ioError(op string, err error, errno syscall.Errno, c net.Conn) error {
	if err == nil && errno != 0 {
		err = errno
	}
	if err == nil {
		return nil
	}
	return opError(op, c, err)
}

// opError wraps err as net.Conn's methods do, so that callers that look
// for a *net.OpError (timeouts, closed connections) still find one.
func opError(op string, c net.Conn, err error) error {
	if errno, ok := err.(syscall.Errno); ok {
		err = os.NewSyscallError(op, errno)
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
