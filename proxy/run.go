package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/stampede-bench/stampede/internal/exposed"
)

// ParseListeners turns --listen and --to into listeners: one --listen
// ADDR with --to ADDR, or --listen LISTEN=UPSTREAM[,FAULT=VALUE...] each,
// with defaults as the faults not given.
func ParseListeners(listens []string, to string, defaults Faults) ([]Listener, error) {
	var specs []Listener
	for _, l := range listens {
		if to != "" {
			if len(listens) > 1 || strings.Contains(l, "=") {
				return nil, fmt.Errorf("--to goes with one --listen ADDR; for several, give --listen LISTEN=UPSTREAM each")
			}
			specs = append(specs, Listener{Listen: l, To: to, Faults: defaults})
			continue
		}
		if !strings.Contains(l, "=") {
			return nil, fmt.Errorf("--listen %s: say where to forward: --to HOST:PORT, or --listen %s=HOST:PORT", l, l)
		}
		s, err := ParseListener(l, defaults)
		if err != nil {
			return nil, fmt.Errorf("--listen %v", err)
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("no --listen: give --listen ADDR --to ADDR, or --listen ADDR=UPSTREAM")
	}
	return specs, nil
}

// ErrSetup marks Run's errors in what it was asked: an address in use, an
// API address that cannot be listened on.
var ErrSetup = errors.New("proxy")

// Run starts the listeners of specs and, unless api is "off" or "", the
// HTTP API on api that changes their faults; it writes what it does to
// out and warnings to warn, and returns when ctx ends, closing every
// connection.
func Run(ctx context.Context, specs []Listener, api string, out, warn io.Writer) error {
	var ln net.Listener
	if api != "off" && api != "" {
		var err error
		if ln, err = ListenAPI(api); err != nil {
			return fmt.Errorf("%w: --api: %v", ErrSetup, err)
		}
		defer ln.Close()
		if w := exposed.Warning("--api", api, ln.Addr(), "change the proxy's faults (take a node down)"); w != "" {
			fmt.Fprintln(warn, w)
		}
	}
	out, errw := &lockedWriter{w: out}, &lockedWriter{w: warn}
	p, err := Start(specs, func(msg string) { fmt.Fprintf(errw, "warning: %s\n", msg) })
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSetup, err)
	}
	defer p.Close()
	for i, l := range p.Listeners() {
		fmt.Fprintf(out, "listener %s: %s -> %s, faults %s\n", l.Name, l.Listen, l.To, l.Faults)
		given := l.Listen
		if i < len(specs) && !strings.HasSuffix(specs[i].Listen, ":0") {
			given = specs[i].Listen // as typed: 0.0.0.0:P, not the [::]:P it became
		}
		if addr, err := net.ResolveTCPAddr("tcp", l.Listen); err == nil {
			if w := exposed.Warning("--listen", given, addr, "reach "+l.To+" through it"); w != "" {
				fmt.Fprintln(errw, w)
			}
		}
	}
	if ln == nil {
		fmt.Fprintln(out, "no API (--api off): the faults stay as given; Ctrl-C stops")
		<-ctx.Done()
	} else {
		addr := ln.Addr().String()
		fmt.Fprintf(out, "API on http://%s/listeners (PUT or PATCH /listeners/NAME/faults, or `stampede proxy set --api %s NAME --latency 60ms`); Ctrl-C stops\n", addr, addr)
		err := p.ServeAPI(ctx, ln, func(before, after Listener) {
			fmt.Fprintf(out, "listener %s: faults %s (were %s)\n", after.Name, after.Faults, before.Faults)
		})
		if err != nil {
			return fmt.Errorf("proxy: API: %v", err)
		}
	}
	p.Close()
	fmt.Fprintln(out, "proxy stopped: listeners and their connections closed")
	return nil
}

// lockedWriter serializes writes from the API's goroutines and the
// command's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
