package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results/store"
)

// ErrListen marks an address the dashboard cannot listen on because of
// how it was given (malformed, in use, not this machine's): bad input.
var ErrListen = errors.New("cannot listen")

// listenError is an ErrListen with its message.
type listenError struct{ msg string }

func (e listenError) Error() string        { return e.msg }
func (e listenError) Is(target error) bool { return target == ErrListen }

// Listen opens addr (host:port) for the dashboard. A malformed address, a
// port in use and an address that is not this machine's are errors
// wrapping ErrListen, each in one line saying what to do. For an address
// that is not a loopback one, warning is a line saying that the results
// are then visible to the network.
func Listen(addr string) (ln net.Listener, warning string, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", listenError{fmt.Sprintf("--listen %q is not HOST:PORT (%v): give an address such as 127.0.0.1:8080", addr, strings.TrimPrefix(err.Error(), "address "+addr+": "))}
	}
	if n, perr := net.LookupPort("tcp", port); perr != nil || n > 65535 {
		return nil, "", listenError{fmt.Sprintf("--listen %s: port %q is not a port number: give one from 1 to 65535, such as 127.0.0.1:8080, or 0 for a free one (serve says which)", addr, port)}
	}
	ln, err = net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, "", listenError{fmt.Sprintf("--listen %s: the port is in use (another stampede serve, or another server): choose another port, such as --listen %s", addr, net.JoinHostPort(hostOr(host), "8081"))}
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, "", listenError{fmt.Sprintf("--listen %s: %s is not an address of this machine: give one of its addresses, or 127.0.0.1", addr, host)}
	case errors.Is(err, syscall.EACCES):
		return nil, "", listenError{fmt.Sprintf("--listen %s: not allowed to listen on port %s (ports below 1024 need privileges): choose a port above 1023, such as %s", addr, port, net.JoinHostPort(hostOr(host), "8080"))}
	case err != nil:
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, "", listenError{fmt.Sprintf("--listen %s: cannot resolve the host %q: give an IP address, such as 127.0.0.1", addr, host)}
		}
		return nil, "", fmt.Errorf("--listen %s: %w", addr, err)
	}
	if !loopback(ln.Addr()) {
		warning = fmt.Sprintf("--listen %s is not a loopback address: the dashboard, and the results it shows (hosts, command lines, tags), are visible to the network", addr)
	}
	return ln, warning, nil
}

// hostOr returns host, or 127.0.0.1 for an empty one.
func hostOr(host string) string {
	if host == "" {
		return "127.0.0.1"
	}
	return host
}

// loopback reports whether addr is a loopback address (an unspecified
// one, 0.0.0.0 or ::, is every address and is not).
func loopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// Serve serves h on ln until ctx ends, then closes the listener and every
// connection, live streams included.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = srv.Close()
		return nil
	}
}

// OpenStore opens the results store at url read-only for the dashboard. The
// default SQLite store of a results directory that has none yet is no
// error: the store is nil, and the runs are listed from their directories.
func OpenStore(ctx context.Context, url string, isDefault bool) (*store.Store, error) {
	st, err := store.OpenReadOnly(ctx, url)
	if err != nil && isDefault && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		if strings.HasPrefix(url, "sqlite:") && errors.Is(err, fs.ErrNotExist) {
			path := strings.TrimPrefix(url, "sqlite:")
			return nil, fmt.Errorf("%w: results store %s does not exist: give the store `stampede runs` indexes into (--results-url), or leave --results-url out", store.ErrBadURL, path)
		}
		return nil, err
	}
	return st, nil
}

// Options are what `stampede serve` serves.
type Options struct {
	// Listen is the address, HOST:PORT.
	Listen string
	// Root is the results directory, "" for none (--results-dir none:
	// the runs of StoreURL, a PostgreSQL store, alone); Named says it was named on purpose
	// (--results-dir, $STAMPEDE_RESULTS_DIR), so that a missing one is a
	// typo rather than a machine with no run yet.
	Root  string
	Named bool
	// StoreURL is the results store's URL; DefaultStore says it is the
	// default SQLite file of Root, which may not exist yet.
	StoreURL     string
	DefaultStore bool
}

// ErrInput marks bad input other than the address (a results directory
// that does not exist or is a file).
var ErrInput = errors.New("bad input")

// inputError is an ErrInput with its message.
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == ErrInput }

// Start opens what o names (the results directory, the store read-only,
// the address) and serves the dashboard until ctx ends, saying on log where
// it serves and warning there about what it cannot read and about an
// address visible to the network, one line each. Bad input is an error
// wrapping ErrListen, ErrInput or store.ErrBadURL, before anything is
// served.
func Start(ctx context.Context, o Options, log io.Writer) error {
	serving := o.Root
	if o.Root == "" {
		if !store.KeepsFiles(o.StoreURL) {
			return inputError{"--results-dir none serves the runs of the results store alone: give --results-url postgresql://... (a PostgreSQL store)"}
		}
		// No directory: an empty one, which lists nothing.
		empty, err := os.MkdirTemp("", "stampede-serve-none-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(empty)
		o.Root, serving = empty, "the results store "+redact.Conn(o.StoreURL)
	}
	fi, err := os.Stat(o.Root)
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.Named && !store.KeepsFiles(o.StoreURL):
		return inputError{fmt.Sprintf("results directory %s does not exist: name the directory runs were saved in (run --results-dir), or leave --results-dir out for ~/.stampede/runs", o.Root)}
	case err == nil && !fi.IsDir():
		return inputError{fmt.Sprintf("results directory %s is not a directory: name the directory runs were saved in (run --results-dir)", o.Root)}
	}
	st, err := OpenStore(ctx, o.StoreURL, o.DefaultStore)
	if err != nil {
		return err
	}
	cfg := Config{Root: o.Root, StoreName: redact.Conn(o.StoreURL)}
	if st != nil {
		defer st.Close()
		cfg.Store = st
	}
	if st != nil && store.KeepsFiles(o.StoreURL) {
		// Runs written into the store from elsewhere are read from
		// copies fetched here, removed when serving ends.
		tmp, err := os.MkdirTemp("", "stampede-serve-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cfg.FetchDir = tmp
	}
	srv := New(cfg)
	if err := srv.Warm(ctx); err != nil {
		fmt.Fprintf(log, "warning: cannot read the results store %s (%s): listing the run directories of %s\n", cfg.StoreName, oneLine(err), o.Root)
	}
	ln, warning, err := Listen(o.Listen)
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintf(log, "warning: %s\n", warning)
	}
	if _, port, err := net.SplitHostPort(o.Listen); err == nil && port == "0" {
		fmt.Fprintf(log, "--listen %s: port 0 picked a free port, %d\n", o.Listen, ln.Addr().(*net.TCPAddr).Port)
	}
	fmt.Fprintf(log, "serving the runs of %s at http://%s/ (Ctrl-C stops it)\n", serving, ln.Addr())
	return Serve(ctx, ln, srv)
}
