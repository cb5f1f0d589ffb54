package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Handler serves the proxy's HTTP API:
//
//	GET   /listeners               every listener, as a JSON array of Listener
//	GET   /listeners/NAME          one listener
//	PUT   /listeners/NAME/faults   replace its faults with the body (a Faults object)
//	PATCH /listeners/NAME/faults   change only the faults the body names
//
// PUT and PATCH answer with the listener as it is now. As with the
// command-line flags, reset_after and reset_fraction imply reset, and
// stall_timeout stall, unless the body sets those too. Unknown fields
// and invalid values are refused (400) and change nothing. onChange, if
// not nil, is called after each change with the listener before and after.
func (p *Proxy) Handler(onChange func(before, after Listener)) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /listeners", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, p.Listeners())
	})
	mux.HandleFunc("GET /listeners/{name}", func(w http.ResponseWriter, r *http.Request) {
		l, ok := p.Get(r.PathValue("name"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Errorf("%w %q", ErrNoListener, r.PathValue("name")))
			return
		}
		writeJSON(w, http.StatusOK, l)
	})
	change := func(merge bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			name := r.PathValue("name")
			l, ok := p.Get(name)
			if !ok {
				writeError(w, http.StatusNotFound, fmt.Errorf("%w %q", ErrNoListener, name))
				return
			}
			var f Faults
			if merge {
				f = l.Faults
			}
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
			if err != nil {
				writeError(w, http.StatusBadRequest, fmt.Errorf("faults: %v", err))
				return
			}
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&f); err != nil {
				writeError(w, http.StatusBadRequest, fmt.Errorf("faults: %v", err))
				return
			}
			// As on the command line, reset_after and reset_fraction imply
			// reset, and stall_timeout stall, unless the body says otherwise.
			var keys map[string]json.RawMessage
			_ = json.Unmarshal(body, &keys)
			if _, ok := keys["reset"]; !ok && (keys["reset_after"] != nil || keys["reset_fraction"] != nil) {
				f.Reset = true
			}
			if _, ok := keys["stall"]; !ok && keys["stall_timeout"] != nil {
				f.Stall = true
			}
			before, err := p.SetFaults(name, f)
			if err != nil {
				status := http.StatusBadRequest
				if errors.Is(err, ErrNoListener) {
					status = http.StatusNotFound
				}
				writeError(w, status, err)
				return
			}
			after, _ := p.Get(name)
			if onChange != nil {
				onChange(before, after)
			}
			writeJSON(w, http.StatusOK, after)
		}
	}
	mux.HandleFunc("PUT /listeners/{name}/faults", change(false))
	mux.HandleFunc("PATCH /listeners/{name}/faults", change(true))
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// apiError is the body of an API error.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, apiError{err.Error()})
}

// Client calls a proxy's HTTP API.
type Client struct {
	// Base is the API's address, e.g. "http://127.0.0.1:8474".
	Base string
	// HTTP is the client to use; nil means one with a 10 s timeout.
	HTTP *http.Client
}

// CheckAPIAddr reports, in words, why addr is not the address of an API
// (host:port, or an http:// or https:// URL), before any request.
func CheckAPIAddr(addr string) error {
	const eg = "give host:port, e.g. 127.0.0.1:8474"
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("API address %q is not an http:// URL: %s", addr, eg)
		}
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("API address %q: %s", addr, eg)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("API address %q: port %q is not a port (1-65535): %s", addr, port, eg)
	}
	return nil
}

// NewClient returns a client for the API at addr (host:port, or a URL).
func NewClient(addr string) *Client {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	return &Client{Base: strings.TrimRight(addr, "/")}
}

// Listeners returns every listener.
func (c *Client) Listeners(ctx context.Context) ([]Listener, error) {
	var out []Listener
	err := c.do(ctx, http.MethodGet, "/listeners", nil, &out)
	return out, err
}

// Listener returns the listener called name.
func (c *Client) Listener(ctx context.Context, name string) (Listener, error) {
	var out Listener
	err := c.do(ctx, http.MethodGet, "/listeners/"+url.PathEscape(name), nil, &out)
	return out, err
}

// SetFaults replaces a listener's faults.
func (c *Client) SetFaults(ctx context.Context, name string, f Faults) (Listener, error) {
	var out Listener
	err := c.do(ctx, http.MethodPut, "/listeners/"+url.PathEscape(name)+"/faults", f, &out)
	return out, err
}

// PatchFaults changes the faults named in fields (a JSON object such as
// {"latency": "60ms"}) and leaves the others.
func (c *Client) PatchFaults(ctx context.Context, name string, fields map[string]any) (Listener, error) {
	var out Listener
	err := c.do(ctx, http.MethodPatch, "/listeners/"+url.PathEscape(name)+"/faults", fields, &out)
	return out, err
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("no proxy API answers at %s (connection refused): start `stampede proxy` first, or give --api the address its --api listens on", strings.TrimPrefix(c.Base, "http://"))
		}
		return fmt.Errorf("proxy API at %s: %v", c.Base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e apiError
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return &RequestError{Status: resp.StatusCode, Msg: e.Error}
		}
		return fmt.Errorf("proxy API at %s: %s", c.Base, resp.Status)
	}
	return json.Unmarshal(b, out)
}

// RequestError is the API's answer to a request it refused: Status is
// the HTTP status (404 for a listener it does not have, which matches
// ErrNoListener; 400 for faults it does not take), Msg its message.
type RequestError struct {
	Status int
	Msg    string
}

func (e *RequestError) Error() string { return e.Msg }

// Is makes a 404 match ErrNoListener.
func (e *RequestError) Is(target error) bool {
	return target == ErrNoListener && e.Status == http.StatusNotFound
}

// ListenAPI opens the API's address (host:port; port 0 picks a free one).
func ListenAPI(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("API address %s is in use by another process (another stampede proxy?): pick another port", addr)
		}
		return nil, fmt.Errorf("API address %s: %v", addr, err)
	}
	return ln, nil
}

// ServeAPI serves the API (see Handler) on ln until ctx is done, then
// closes it.
func (p *Proxy) ServeAPI(ctx context.Context, ln net.Listener, onChange func(before, after Listener)) error {
	srv := &http.Server{Handler: p.Handler(onChange), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
		return nil
	}
}
