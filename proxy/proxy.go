package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Listener is one proxied address: connections to Listen are forwarded to
// To, with Faults applied.
type Listener struct {
	// Name identifies the listener in the API and in messages; it
	// defaults to the address it listens on (host:port, with the port
	// taken when Listen asked for port 0).
	Name string `json:"name"`
	// Listen is host:port to accept connections on (port 0 picks a free
	// one; Proxy.Listeners reports the port taken).
	Listen string `json:"listen"`
	// To is the upstream server's host:port.
	To string `json:"to"`
	// Faults are applied to every connection.
	Faults Faults `json:"faults"`
}

// ParseListener parses a listener given on the command line:
// LISTEN=UPSTREAM, then optional ",key=value" faults and name that
// override defaults, e.g. "127.0.0.1:6001=127.0.0.1:5432,latency=30ms,name=east".
// A bare port as LISTEN means 127.0.0.1:PORT.
func ParseListener(spec string, defaults Faults) (Listener, error) {
	l := Listener{Faults: defaults}
	parts := strings.Split(spec, ",")
	listen, to, ok := strings.Cut(parts[0], "=")
	if !ok {
		return l, fmt.Errorf("%q: give LISTEN=UPSTREAM, e.g. 127.0.0.1:6001=127.0.0.1:5432", spec)
	}
	l.Listen, l.To = listen, to
	for _, kv := range parts[1:] {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if k == "name" {
			l.Name = v
			continue
		}
		if err := l.Faults.Set(k, v); err != nil {
			return l, fmt.Errorf("%q: %v", spec, err)
		}
	}
	return l, nil
}

// normalize checks l's addresses and fills its defaults.
func (l *Listener) normalize() error {
	if _, err := strconv.Atoi(l.Listen); err == nil {
		l.Listen = net.JoinHostPort("127.0.0.1", l.Listen)
	}
	if err := checkAddr("listen address", l.Listen, true); err != nil {
		return err
	}
	if err := checkAddr("upstream", l.To, false); err != nil {
		return err
	}
	if l.Name != "" && strings.ContainsAny(l.Name, "/?#% \t\n") {
		return fmt.Errorf("listener name %q: use letters, digits, '.', ':', '-' or '_' (it is part of the API's URLs)", l.Name)
	}
	return l.Faults.Validate()
}

func checkAddr(what, addr string, zeroOK bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: give host:port, e.g. 127.0.0.1:6001", what, addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 || (p == 0 && !zeroOK) {
		return fmt.Errorf("%s %q: port %s is out of range (1-65535)", what, addr, port)
	}
	if host == "" && !zeroOK {
		return fmt.Errorf("%s %q: give the host too", what, addr)
	}
	return nil
}

// Proxy is the set of listeners of one process. Its methods are safe for
// concurrent use.
type Proxy struct {
	mu        sync.Mutex
	server    *toxiproxy.ApiServer
	listeners []*listener
	byName    map[string]*listener
	closed    bool
}

// listener is a Listener and the toxiproxy Proxy that serves it.
type listener struct {
	spec  Listener
	proxy *toxiproxy.Proxy
}

// Start starts every listener, or none: on an error the ones started are
// stopped. An address in use is an error that says so. warn, if not nil,
// gets a one-line message when a listener cannot reach its upstream (the
// client's connection is then closed), at most once per listener every
// 5 s.
func Start(specs []Listener, warn func(msg string)) (*Proxy, error) {
	if len(specs) == 0 {
		return nil, errors.New("no listener: give --listen ADDR --to ADDR, or --listen ADDR=UPSTREAM")
	}
	logger := zerolog.Nop()
	if warn != nil {
		logger = zerolog.New(&upstreamWarner{warn: warn, last: map[string]time.Time{}, quiet: map[string]int{}}).Level(zerolog.ErrorLevel)
	}
	p := &Proxy{
		server: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), logger),
		byName: map[string]*listener{},
	}
	for _, s := range specs {
		if err := s.normalize(); err != nil {
			return nil, err
		}
		p.listeners = append(p.listeners, &listener{spec: s})
	}
	if err := sameAddress(p.listeners); err != nil {
		return nil, err
	}
	for _, l := range p.listeners {
		l.proxy = toxiproxy.NewProxy(p.server, l.spec.Name, l.spec.Listen, l.spec.To)
		err := l.proxy.Start()
		if err != nil {
			p.Close()
			return nil, listenError(l.spec, err)
		}
		l.spec.Listen = l.proxy.Listen // the port taken for :0
		if l.spec.Name == "" {
			l.spec.Name = l.spec.Listen // toxiproxy's own label stays; it logs nowhere
		}
		if p.byName[l.spec.Name] != nil {
			p.Close()
			return nil, fmt.Errorf("two listeners are named %q: give each its own name=", l.spec.Name)
		}
		p.byName[l.spec.Name] = l
		if err := l.apply(Faults{}, l.spec.Faults); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// sameAddress refuses two listeners that ask for the same address (the
// same port on the same host, or on all of them: "", 0.0.0.0, ::), before
// any listens: the second would find the address in use by the first.
func sameAddress(ls []*listener) error {
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	for j, b := range ls {
		hb, pb, _ := net.SplitHostPort(b.spec.Listen)
		if pb == "0" {
			continue // each gets a port of its own
		}
		for i, a := range ls[:j] {
			ha, pa, _ := net.SplitHostPort(a.spec.Listen)
			if pa != pb || (ha != hb && !wildcard(ha) && !wildcard(hb)) {
				continue
			}
			which := fmt.Sprintf("the %s and %s --listen", ordinal(i+1), ordinal(j+1))
			if a.spec.Name != "" && b.spec.Name != "" {
				which = "listeners " + a.spec.Name + " and " + b.spec.Name
			}
			addr := b.spec.Listen
			if a.spec.Listen != b.spec.Listen {
				addr = a.spec.Listen + " and " + b.spec.Listen
			}
			return fmt.Errorf("two listeners ask for the same address (%s: %s): give each its own port", which, addr)
		}
	}
	return nil
}

// ordinal renders n as 1st, 2nd, 3rd, 4th ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func listenError(s Listener, err error) error {
	label := "listener " + s.Listen // a listener without a name= is its address
	if s.Name != "" {
		label = "listener " + s.Name + " on " + s.Listen
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s: the address is in use by another process: pick another port", label)
	}
	if errors.Is(err, syscall.EADDRNOTAVAIL) {
		return fmt.Errorf("%s: not an address of this machine", label)
	}
	return fmt.Errorf("%s: %v", label, err)
}

// Listeners returns the listeners in the order they were given, with
// their current faults.
func (p *Proxy) Listeners() []Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Listener, len(p.listeners))
	for i, l := range p.listeners {
		out[i] = l.spec
	}
	return out
}

// Get returns the listener called name.
func (p *Proxy) Get(name string) (Listener, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byName[name]
	if l == nil {
		return Listener{}, false
	}
	return l.spec, true
}

// ErrNoListener is returned for a listener name that does not exist.
var ErrNoListener = errors.New("no such listener")

// SetFaults replaces the faults of the listener called name, on its open
// connections and new ones, and returns the listener as it was before.
func (p *Proxy) SetFaults(name string, f Faults) (Listener, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byName[name]
	if l == nil {
		return Listener{}, fmt.Errorf("%w %q (listeners: %s)", ErrNoListener, name, p.namesLocked())
	}
	if p.closed {
		return Listener{}, errors.New("the proxy is stopped")
	}
	if err := f.Validate(); err != nil {
		return Listener{}, err
	}
	before := l.spec
	if err := l.apply(before.Faults, f); err != nil {
		// Put back what can be put back.
		_ = l.apply(f, before.Faults)
		return Listener{}, err
	}
	l.spec.Faults = f
	return before, nil
}

func (p *Proxy) namesLocked() string {
	names := make([]string, 0, len(p.byName))
	for n := range p.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Close stops every listener and closes every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	for _, l := range p.listeners {
		if l.proxy != nil {
			l.proxy.Stop()
		}
	}
}

// toxic is one toxiproxy toxic that a Faults asks for.
type toxic struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// toxics returns the toxics f needs, by name.
func (f Faults) toxics() map[string]toxic {
	out := map[string]toxic{}
	add := func(name, typ, stream string, toxicity float32, attrs map[string]any) {
		out[name] = toxic{Name: name, Type: typ, Stream: stream, Toxicity: toxicity, Attributes: attrs}
	}
	if f.Latency > 0 {
		add("latency", "latency", "downstream", 1, map[string]any{"latency": ms(f.Latency), "jitter": ms(f.Jitter)})
	}
	if f.Bandwidth > 0 {
		kbps := max(int64(f.Bandwidth+500)/1000, 1)
		add("bandwidth_up", "bandwidth", "upstream", 1, map[string]any{"rate": kbps})
		add("bandwidth_down", "bandwidth", "downstream", 1, map[string]any{"rate": kbps})
	}
	if f.Reset {
		frac := f.ResetFraction
		if frac == 0 {
			frac = 1
		}
		if f.ResetAfter == 0 {
			add("reset", "reset_peer", "downstream", float32(frac), map[string]any{"timeout": 0})
		} else {
			// reset_peer would drop the server's first reply (see
			// resetAfterReply); this one never fires, but makes
			// toxiproxy set SO_LINGER 0 on new connections, so that
			// resetAfterReply's close is a reset.
			add("reset_linger", "reset_peer", "downstream", 0, map[string]any{"timeout": 0})
			add("reset_after", resetAfterType, "downstream", float32(frac), map[string]any{"timeout": ms(f.ResetAfter)})
		}
	}
	if f.Stall {
		add("stall_up", "timeout", "upstream", 1, map[string]any{"timeout": ms(f.StallTimeout)})
		add("stall_down", "timeout", "downstream", 1, map[string]any{"timeout": ms(f.StallTimeout)})
	}
	return out
}

func ms(d Duration) int64 { return int64(d) / 1e6 }

// apply moves the listener's toxics from those of old to those of new,
// adding, updating and removing only what changed, and stops or starts
// the listener for Down.
func (l *listener) apply(old, new Faults) error {
	if new.Down && !old.Down {
		l.proxy.Stop()
	}
	have, want := old.toxics(), new.toxics()
	names := make([]string, 0, len(have)+len(want))
	for n := range have {
		names = append(names, n)
	}
	for n := range want {
		if _, ok := have[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		h, hok := have[n]
		w, wok := want[n]
		var err error
		switch {
		case hok && !wok:
			err = l.proxy.Toxics.RemoveToxic(context.Background(), n)
		case !hok && wok:
			_, err = l.proxy.Toxics.AddToxicJson(jsonReader(w))
		case hok && wok && !sameToxic(h, w):
			_, err = l.proxy.Toxics.UpdateToxicJson(n, jsonReader(w))
		}
		if err != nil {
			return fmt.Errorf("listener %s: fault %s: %v", l.spec.Name, n, err)
		}
	}
	if !new.Down && old.Down {
		if err := l.proxy.Start(); err != nil && !errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
			return listenError(l.spec, err)
		}
	}
	return nil
}

func sameToxic(a, b toxic) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func jsonReader(v any) *bytes.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a toxic is always marshalable
	}
	return bytes.NewReader(b)
}

// upstreamWarner turns toxiproxy's log events about an upstream it cannot
// reach into warnings, at most one per listener every 5 s (with the count
// of those left out). Other events are dropped: toxiproxy logs every
// connection that ends.
type upstreamWarner struct {
	mu    sync.Mutex
	warn  func(string)
	last  map[string]time.Time
	quiet map[string]int
}

// Write implements io.Writer for zerolog's JSON events.
func (w *upstreamWarner) Write(b []byte) (int, error) {
	var e struct {
		Message  string `json:"message"`
		Name     string `json:"name"`
		Upstream string `json:"upstream"`
		Error    string `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Message != "Unable to open connection to upstream" {
		return len(b), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.last[e.Name]) < 5*time.Second {
		w.quiet[e.Name]++
		return len(b), nil
	}
	msg := fmt.Sprintf("listener %s: cannot reach %s (%s): the client's connection was closed", e.Name, e.Upstream, e.Error)
	if n := w.quiet[e.Name]; n > 0 {
		msg += fmt.Sprintf(" (and %d more since the last warning)", n)
	}
	w.last[e.Name], w.quiet[e.Name] = time.Now(), 0
	w.warn(msg)
	return len(b), nil
}
