// Package tcpproxy is a small TCP proxy for fault tests: it forwards the
// connections it accepts on 127.0.0.1 to a target address, and can be
// stopped (closing its listener and every live connection, as if the node
// behind it had died) and resumed on the same port.
package tcpproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout bounds each connection to the target.
const dialTimeout = 5 * time.Second

// Proxy forwards TCP connections from Addr to a target. Its methods are
// safe for concurrent use.
type Proxy struct {
	target string
	addr   string

	mu     sync.Mutex
	ln     net.Listener          // nil while stopped
	conns  map[net.Conn]struct{} // live connections, both sides
	closed bool

	wg       sync.WaitGroup
	accepted atomic.Int64
}

// Start listens on a free port of 127.0.0.1 and forwards every connection
// to target (host:port).
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tcpproxy: %w", err)
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve(ln)
	return p, nil
}

// Addr returns the address the proxy listens on, as 127.0.0.1:port.
func (p *Proxy) Addr() string { return p.addr }

// Accepted returns how many connections the proxy has accepted.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Stop closes the listener and every live connection: clients see their
// connections reset and new connections refused, as with a dead node.
// Stopping a stopped proxy does nothing.
func (p *Proxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
}

func (p *Proxy) stopLocked() {
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // reset rather than a clean close
		}
		c.Close()
		delete(p.conns, c)
	}
}

// Resume listens again on the same address after Stop. Resuming a running
// proxy does nothing.
func (p *Proxy) Resume() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("tcpproxy: resume after Close")
	}
	if p.ln != nil {
		return nil
	}
	var ln net.Listener
	var err error
	// The port was ours a moment ago; give the kernel a moment if needed.
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("tcpproxy: listening again on %s: %w", p.addr, err)
	}
	p.ln = ln
	p.wg.Add(1)
	go p.serve(ln)
	return nil
}

// Close stops the proxy for good and waits for its goroutines to end.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.stopLocked()
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *Proxy) serve(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. too many open files
			continue
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.forward(ln, c)
	}
}

// track registers c as live unless the listener that accepted the
// connection has been stopped since; it reports whether it did.
func (p *Proxy) track(ln net.Listener, c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != ln {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// forward copies bytes both ways between client and a new connection to
// the target until either side ends, then closes both.
func (p *Proxy) forward(ln net.Listener, client net.Conn) {
	defer p.wg.Done()
	if !p.track(ln, client) {
		client.Close()
		return
	}
	defer p.untrack(client)
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		return
	}
	if !p.track(ln, server) {
		server.Close()
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go func() { io.Copy(server, client); done <- struct{}{} }()
	go func() { io.Copy(client, server); done <- struct{}{} }()
	<-done
	// One side ended: end the other one too (the deferred untracks close
	// both connections, which unblocks the second copy).
	client.Close()
	server.Close()
	<-done
}
