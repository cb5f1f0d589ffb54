//go:build !linux

package sqlx

import "net"

// withRawIO returns c: raw-syscall socket I/O is implemented on Linux only.
func withRawIO(c net.Conn, _ bool) net.Conn { return c }
