package localpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// Timeouts. Variables so that tests can shorten them.
var (
	// startTimeout bounds the wait for a started server to accept connections.
	startTimeout = 30 * time.Second
	// fastStopTimeout bounds the wait for a fast shutdown (which writes a
	// shutdown checkpoint) before the server is killed.
	fastStopTimeout = 15 * time.Second
	// killTimeout bounds each wait after SIGQUIT and after SIGKILL.
	killTimeout = 5 * time.Second
)

// Defaults for postgresql.conf; Options.Settings overrides them.
var defaultSettings = map[string]string{
	"shared_buffers":  "128MB",
	"max_connections": "200",
}

// managedSettings are set by Start itself and cannot be overridden through
// Options.Settings, with the reason given to the caller.
var managedSettings = map[string]string{
	"port":                    "use Options.Port",
	"listen_addresses":        "the server only listens on 127.0.0.1",
	"unix_socket_directories": "the socket lives in the server's own directory",
}

// Names of the files Start creates in the server's directory.
const (
	dataDirName   = "data"
	serverLogName = "postgres.log"
	initdbLogName = "initdb.log"
	confName      = "stampede.conf" // included from data/postgresql.conf
)

// maxSocketPath is the longest Unix-domain socket path PostgreSQL accepts
// (sizeof(sockaddr_un.sun_path) - 1 on Linux).
const maxSocketPath = 107

// Options configures Start. The zero value is a valid configuration.
type Options struct {
	// Dir is the parent directory in which Start creates the server's own
	// directory (data directory, configuration, logs, Unix socket); ""
	// means the system temporary directory (os.MkdirTemp). Stop removes the
	// directory Start created, never Dir itself. When running as root, the
	// "postgres" OS user must be able to traverse Dir.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// BinDir is the directory with the initdb, pg_ctl and postgres binaries;
	// "" means FindBinDir().
	BinDir string
	// Settings are extra postgresql.conf settings, such as
	// {"max_connections": "300"}; they override the defaults
	// (shared_buffers=128MB, max_connections=200). Values are written as
	// quoted strings, which PostgreSQL accepts for every type; a value that
	// is already enclosed in single quotes is written as is. port,
	// listen_addresses and unix_socket_directories cannot be set here.
	Settings map[string]string
	// Log receives one-line progress messages, such as
	// "starting PostgreSQL 15.18 on 127.0.0.1:54321 ...". May be nil.
	Log io.Writer
	// Detach lets the server outlive the calling process (as for
	// `stampede demo --keep`). Without it, on Linux, the server gets an
	// immediate shutdown if the calling process dies without calling Stop.
	// A detached server still stops with Stop; once the calling process is
	// gone, stop it with `pg_ctl -D DATADIR stop` (see DataDir) and remove
	// its directory (see Dir).
	Detach bool

	// pickPort, if set, replaces freePort (for tests).
	pickPort func() (int, error)
}

// Server is a running throwaway PostgreSQL server started by Start. Its
// methods are safe for concurrent use.
type Server struct {
	dir     string // created by Start, removed by Stop
	dataDir string
	binDir  string
	version string
	port    int
	as      *osUser // nil: run as the current user
	detach  bool

	logMu sync.Mutex
	log   io.Writer

	pm *child // the running postmaster, set once Start has launched it

	stopOnce sync.Once
	stopErr  error
}

// osUser is the OS user that runs initdb and postgres when we are root.
type osUser struct {
	name     string
	uid, gid uint32
}

// Start creates a new PostgreSQL cluster in a fresh directory and starts a
// server for it on 127.0.0.1, waiting (at most 30 s) until it accepts
// connections. The superuser is "postgres", with trust authentication, and
// the only database is "postgres"; see URL.
//
// If ctx is cancelled, or anything fails, before Start returns, Start stops
// whatever it started and removes every file it created before returning
// the error (ctx.Err() for a cancellation). ctx only bounds the startup:
// cancelling it later does not affect the server. On success the caller
// must call Stop.
//
// When Options.Port is 0 and the free port picked is taken by someone else
// before the server binds it, Start retries with another port (3 attempts).
func Start(ctx context.Context, opts Options) (*Server, error) {
	if !platformSupported {
		return nil, fmt.Errorf("localpg: starting PostgreSQL is not supported on %s", runtime.GOOS)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("localpg: invalid port %d", opts.Port)
	}
	settings, err := mergeSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	binDir := opts.BinDir
	if binDir == "" {
		if binDir, err = FindBinDir(); err != nil {
			return nil, err
		}
	} else if err := hasServerBinaries(binDir); err != nil {
		return nil, fmt.Errorf("localpg: BinDir %s does not hold the PostgreSQL server binaries: %w", binDir, err)
	}
	version, err := serverVersion(ctx, binDir)
	if err != nil {
		return nil, err
	}
	as, err := serverUser()
	if err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp(opts.Dir, "stampede-pg-")
	if err != nil {
		return nil, fmt.Errorf("localpg: %w", err)
	}
	dir, err := filepath.Abs(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("localpg: %w", err)
	}
	s := &Server{
		dir:     dir,
		dataDir: filepath.Join(dir, dataDirName),
		binDir:  binDir,
		version: version,
		as:      as,
		log:     opts.Log,
		detach:  opts.Detach,
	}
	ok := false
	defer func() {
		if !ok {
			s.destroy()
		}
	}()
	if as != nil {
		if err := os.Chown(dir, int(as.uid), int(as.gid)); err != nil {
			return nil, fmt.Errorf("localpg: %w", err)
		}
	}

	s.logf("initializing PostgreSQL %s in %s ...", version, dir)
	if err := s.initdb(ctx); err != nil {
		return nil, err
	}
	if err := s.includeConf(); err != nil {
		return nil, err
	}

	pickPort := opts.pickPort
	if pickPort == nil {
		pickPort = freePort
	}
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			if port, err = pickPort(); err != nil {
				return nil, err
			}
		}
		s.port = port
		if err := s.writeConf(settings); err != nil {
			return nil, err
		}
		s.logf("starting PostgreSQL %s on 127.0.0.1:%d ...", version, port)
		logStart := fileSize(s.logPath())
		err := s.launch(ctx)
		if err == nil {
			break
		}
		// A port picked by freePort can be taken by someone else before
		// postgres binds it; try another one.
		if opts.Port == 0 && attempt < 3 && ctx.Err() == nil && s.pm.hasExited() &&
			portConflict(readFrom(s.logPath(), logStart)) {
			s.logf("port %d was taken; trying another one", port)
			continue
		}
		return nil, err
	}
	ok = true
	return s, nil
}

// URL returns a connection URL for the given database as the "postgres"
// superuser over TCP, for example
// "postgresql://postgres@127.0.0.1:54321/postgres?sslmode=disable".
func (s *Server) URL(database string) string {
	return fmt.Sprintf("postgresql://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, url.PathEscape(database))
}

// Port returns the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Version returns the server's version as printed by `postgres --version`,
// for example "15.18".
func (s *Server) Version() string { return s.version }

// Dir returns the directory Start created for the server (data directory,
// configuration, logs, Unix socket); Stop removes it.
func (s *Server) Dir() string { return s.dir }

// DataDir returns the server's data directory, inside Dir.
func (s *Server) DataDir() string { return s.dataDir }

// PID returns the process ID of the server's postmaster (the parent of
// its backends), from postmaster.pid in the data directory.
func (s *Server) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("reading the server's PID: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, fmt.Errorf("reading the server's PID: malformed postmaster.pid: %w", err)
	}
	return pid, nil
}

// Stop shuts the server down with a fast shutdown (the SIGINT that
// `pg_ctl stop -m fast` sends: open transactions are rolled back and
// connections closed), kills it if it has not exited within 15 s, and then
// removes the directory Start created with everything in it.
//
// Stop is idempotent and safe for concurrent use, for instance from a signal
// handler goroutine while other goroutines still use the server: every call
// waits until the first one has finished and returns its result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.logf("stopping PostgreSQL on 127.0.0.1:%d ...", s.port)
		var errs []error
		if err := s.stopServer(true); err != nil {
			errs = append(errs, err)
		}
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("localpg: %w", err))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// destroy undoes a failed Start: immediate shutdown, then removal of files.
func (s *Server) destroy() {
	s.stopServer(false)
	os.RemoveAll(s.dir)
}

// stopServer stops the postmaster if it is running: with a fast shutdown
// first if fast is set, then with an immediate shutdown (SIGQUIT), then by
// killing its whole process group.
func (s *Server) stopServer(fast bool) error {
	pm := s.pm
	if pm == nil || pm.hasExited() {
		return nil
	}
	pid := pm.cmd.Process.Pid
	if fast {
		if pm.signal(syscall.SIGINT) == nil && pm.wait(fastStopTimeout) {
			return nil
		}
		s.logf("PostgreSQL (pid %d) did not shut down within %s; killing it", pid, fastStopTimeout)
	}
	if pm.signal(syscall.SIGQUIT) == nil && pm.wait(killTimeout) {
		return nil
	}
	// The postmaster would take its backends down with it, but they are in
	// its process group: take no chances.
	if killGroup(pm) {
		return nil
	}
	return fmt.Errorf("localpg: could not stop PostgreSQL (pid %d)", pid)
}

// killGroup kills c and every process in its process group (such as the
// processes initdb starts) and waits until they are gone, at most
// killTimeout. It reports whether c has exited.
func killGroup(c *child) bool {
	pid := c.cmd.Process.Pid
	signalGroup(pid, syscall.SIGKILL)
	exited := c.wait(killTimeout)
	// c was the group's leader; its children may take a moment to die.
	deadline := time.Now().Add(killTimeout)
	for groupAlive(pid) && time.Now().Before(deadline) {
		signalGroup(pid, syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
	return exited
}

func (s *Server) logPath() string { return filepath.Join(s.dir, serverLogName) }

// logf writes one progress line to Options.Log.
func (s *Server) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, format+"\n", args...)
}

// initdb creates the cluster in s.dataDir.
func (s *Server) initdb(ctx context.Context) error {
	logPath := filepath.Join(s.dir, initdbLogName)
	out, err := s.createLog(logPath)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.Command(filepath.Join(s.binDir, "initdb"),
		"-D", s.dataDir,
		"-U", "postgres",
		"--auth=trust",
		"-E", "UTF8",
		"--locale=C",
		// Only initdb's own final fsync of the new files is skipped; the
		// server runs with fsync on.
		"--no-sync",
	)
	s.prepare(cmd, out, syscall.SIGKILL)
	c, err := startChild(cmd)
	if err != nil {
		return fmt.Errorf("localpg: running initdb: %w%s", err, s.accessHint())
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		killGroup(c)
		return ctx.Err()
	}
	if c.err != nil {
		return fmt.Errorf("localpg: initdb failed (%v)%s; its output:\n%s", c.err, s.accessHint(), tail(readFrom(logPath, 0), 20))
	}
	return nil
}

// accessHint explains, after a failure, that the server user cannot reach
// the server's directory, if that seems to be the case; otherwise it
// returns "".
func (s *Server) accessHint() string {
	if s.as == nil {
		return ""
	}
	if hint := traverseHint(s.dir, s.as); hint != "" {
		return "; " + hint
	}
	return ""
}

// includeConf makes postgresql.conf include our own settings file, which
// writeConf (re)writes.
func (s *Server) includeConf() error {
	f, err := os.OpenFile(filepath.Join(s.dataDir, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	_, err = fmt.Fprintf(f, "\n# Added by stampede's localpg: settings for a throwaway server.\ninclude '%s'\n", confName)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	return nil
}

// writeConf writes the configuration included from postgresql.conf.
func (s *Server) writeConf(settings map[string]string) error {
	all := map[string]string{
		"listen_addresses":        quoteSetting("127.0.0.1"),
		"port":                    strconv.Itoa(s.port),
		"unix_socket_directories": quoteSetting(s.socketDir()),
	}
	for k, v := range settings {
		all[k] = v
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by stampede's localpg (throwaway server); overrides postgresql.conf.\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, all[k])
	}
	path := filepath.Join(s.dataDir, confName)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	if s.as != nil {
		if err := os.Chown(path, int(s.as.uid), int(s.as.gid)); err != nil {
			return fmt.Errorf("localpg: %w", err)
		}
	}
	return nil
}

// socketDir is where the server puts its Unix-domain socket: its own
// directory, or nowhere ("" disables Unix sockets; we connect over TCP
// anyway) if the socket path would be too long.
func (s *Server) socketDir() string {
	if len(s.dir)+len("/.s.PGSQL.65535") > maxSocketPath {
		return ""
	}
	return s.dir
}

// launch starts the postmaster and waits until it accepts connections.
func (s *Server) launch(ctx context.Context) error {
	out, err := s.createLog(s.logPath())
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"), "-D", s.dataDir)
	// SIGQUIT is an immediate shutdown, sent if we die without Stop.
	deathSig := syscall.SIGQUIT
	if s.detach {
		deathSig = 0
	}
	s.prepare(cmd, out, deathSig)
	pm, err := startChild(cmd)
	out.Close() // the child has its own descriptor
	if err != nil {
		return fmt.Errorf("localpg: starting postgres: %w", err)
	}
	s.pm = pm
	return s.waitReady(ctx, pm)
}

// waitReady polls until the server accepts connections, exits, ctx is
// cancelled or startTimeout passes.
func (s *Server) waitReady(ctx context.Context, pm *child) error {
	began := time.Now()
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.pidFileReady() && s.ping(ctx) {
			s.logf("PostgreSQL %s is ready on 127.0.0.1:%d (%.1fs)", s.version, s.port, time.Since(began).Seconds())
			return nil
		}
		select {
		case <-pm.done:
			return fmt.Errorf("localpg: PostgreSQL exited during startup (%v); server log:\n%s",
				pm.err, tail(readFrom(s.logPath(), 0), 20))
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("localpg: PostgreSQL did not accept connections on 127.0.0.1:%d within %s; server log:\n%s",
				s.port, startTimeout, tail(readFrom(s.logPath(), 0), 20))
		case <-tick.C:
		}
	}
}

// pidFileReady reports whether postmaster.pid says "ready" (PostgreSQL 10
// and later write the postmaster's status on its 8th line; this is what
// `pg_ctl start -w` waits for). For older versions it always reports true.
func (s *Server) pidFileReady() bool {
	if major, _ := strconv.Atoi(strings.SplitN(s.version, ".", 2)[0]); major < 10 {
		return true
	}
	data, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(data), "\n")
	return len(lines) >= 8 && strings.TrimSpace(lines[7]) == "ready"
}

// ping reports whether a connection to the server succeeds.
func (s *Server) ping(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return false
	}
	conn.Close(ctx)
	return true
}

// createLog creates (or opens for appending) a log file owned by the server
// user.
func (s *Server) createLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("localpg: %w", err)
	}
	if s.as != nil {
		if err := f.Chown(int(s.as.uid), int(s.as.gid)); err != nil {
			f.Close()
			return nil, fmt.Errorf("localpg: %w", err)
		}
	}
	return f, nil
}

// prepare sets up cmd to run in the server's directory as the server user,
// in its own process group, with out as stdout and stderr and a clean
// environment.
func (s *Server) prepare(cmd *exec.Cmd, out *os.File, deathSig syscall.Signal) {
	cmd.Dir = s.dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.Env = childEnv()
	setProcAttr(cmd, s.as, deathSig)
}

// childEnv is our environment without PG* variables (which would let
// PGDATA, PGPORT and the like interfere) and with the C locale (so that the
// server log is in English and parseable).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG=") ||
			strings.HasPrefix(kv, "LANGUAGE=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C")
}

// child is a started process whose exit is observed by a goroutine.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result; read only after done is closed
}

// startChild starts cmd and waits for it in a goroutine that stays locked to
// the OS thread that started it. On Linux the parent-death signal is tied to
// the thread that forked the child, not to the process: keeping that thread
// alive, and out of the Go runtime's hands, for the child's whole life
// prevents a spurious signal when the runtime retires a thread.
func startChild(cmd *exec.Cmd) (*child, error) {
	c := &child{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, after the child.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.err = cmd.Wait()
		close(c.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// hasExited reports whether the process has exited (true for a nil child).
func (c *child) hasExited() bool {
	if c == nil {
		return true
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits at most d for the process to exit and reports whether it did.
func (c *child) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}

// signal sends sig to the process (not its group) unless it has exited.
func (c *child) signal(sig os.Signal) error {
	if c.hasExited() {
		return nil
	}
	return c.cmd.Process.Signal(sig)
}

// serverVersion runs `postgres --version` and returns the version number.
func serverVersion(ctx context.Context, binDir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version")
	cmd.Env = childEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(ctxErr, context.Canceled) {
			return "", ctxErr
		}
		return "", fmt.Errorf("localpg: %s --version: %v: %s", filepath.Join(binDir, "postgres"), err, bytes.TrimSpace(out))
	}
	return parseVersion(string(out)), nil
}

var versionRE = lazyre.New(`\(PostgreSQL\)\s+(\S+)`)

// parseVersion extracts "15.18" from
// "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"; for output in
// another shape it returns the trimmed output.
func parseVersion(out string) string {
	if m := versionRE().FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return strings.TrimSpace(out)
}

// serverUser returns the OS user that must run initdb and postgres: nil
// (the current user) unless we are root, in which case it is "postgres",
// since PostgreSQL refuses to run as root.
func serverUser() (*osUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("localpg: running as root, and PostgreSQL refuses to run as root, but there is no `postgres` OS user to run it as (%v): "+
			"install PostgreSQL with `apt-get install -y postgresql`, which creates that user, or run as a regular user", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("localpg: unexpected uid/gid %q/%q for OS user postgres", u.Uid, u.Gid)
	}
	if uid == 0 {
		return nil, errors.New("localpg: the `postgres` OS user has uid 0, and PostgreSQL refuses to run as root")
	}
	return &osUser{name: u.Username, uid: uint32(uid), gid: uint32(gid)}, nil
}

// mergeSettings validates Options.Settings and merges them over the
// defaults, returning postgresql.conf-ready values keyed by lower-case name.
func mergeSettings(extra map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(defaultSettings)+len(extra))
	for k, v := range defaultSettings {
		out[k] = quoteSetting(v)
	}
	for k, v := range extra {
		name := strings.ToLower(strings.TrimSpace(k))
		if !settingNameRE().MatchString(name) {
			return nil, fmt.Errorf("localpg: invalid setting name %q", k)
		}
		if why, ok := managedSettings[name]; ok {
			return nil, fmt.Errorf("localpg: setting %s cannot be changed (%s)", name, why)
		}
		if strings.ContainsAny(v, "\n\r\x00") {
			return nil, fmt.Errorf("localpg: value of setting %s contains a line break or NUL", name)
		}
		if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			out[name] = v // already quoted by the caller
		} else {
			out[name] = quoteSetting(v)
		}
	}
	return out, nil
}

var settingNameRE = lazyre.New(`^[a-z_][a-z0-9_$]*(\.[a-z_][a-z0-9_$]*)?$`)

// quoteSetting quotes a value for postgresql.conf, where backslashes are
// escape characters and a quote is doubled.
func quoteSetting(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("localpg: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portConflict reports whether a server log says the port was in use.
func portConflict(log string) bool {
	return strings.Contains(log, "Address already in use") ||
		strings.Contains(log, "could not create any TCP/IP sockets")
}

// fileSize returns the size of the file at path, or 0.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// readFrom returns the contents of the file at path from offset on (at most
// the last 64 KiB), or "" if it cannot be read.
func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if size := fileSize(path); size-offset > 64<<10 {
		offset = size - 64<<10
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	data, _ := io.ReadAll(f)
	return string(data)
}

// tail returns the last n lines of s, indented, or a placeholder.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := "    " + strings.Join(lines, "\n    ")
	if strings.TrimSpace(s) == "" {
		out = "    (empty)"
	}
	return out
}
