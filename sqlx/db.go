package sqlx

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/redact"
)

// Driver names accepted by Options.Driver.
const (
	DriverPostgres = "postgres"
	DriverNull     = "null"
)

// Options configure Open.
type Options struct {
	// URLs are the endpoints' connection strings: postgres:// or
	// postgresql:// URLs, or key=value DSNs. Empty means one endpoint
	// described by the libpq environment variables (PGHOST, PGPORT, ...).
	URLs []string
	// Database, when not empty, replaces the database of every URL.
	Database string
	// User, when not empty, replaces the user of every URL, and Password
	// its password (a tenant's login role, say). Neither is ever printed:
	// errors name the user only, as pgx's do.
	User, Password string
	// MaxConns is the total number of connections across all endpoints.
	MaxConns int
	// Driver is "postgres" (the default) or "null".
	Driver string
	// AppName is sent as application_name, unless the URL names one.
	AppName string
	// SearchPath, when not empty, is sent as search_path, so that
	// unqualified table names resolve in that schema first (one schema per
	// tenant).
	SearchPath string
	// SearchPaths, when given, are search paths by URL (in the order of
	// URLs): one not empty replaces SearchPath for its URL's connections.
	SearchPaths []string
	// ConnectTimeout bounds each connection attempt; 0 means 10s.
	ConnectTimeout time.Duration
	// StatementTimeout, when positive, is set as the server's
	// statement_timeout on the workers' connections (not on the ones setup
	// and checks use, whose statements may legitimately take longer).
	StatementTimeout time.Duration
	// Workers is the number of workers that will ask for connections.
	// When MaxConns is smaller, workers share connections (each call
	// borrows one from the pool) instead of keeping one each.
	Workers int
	// ThreadIO makes each connection wait for the server in a blocking
	// system call on its own thread, as libpq and sysbench do, instead of
	// in Go's network poller: the socket is taken out of the poller. With
	// few busy connections the server's reply then wakes the thread that
	// waits for it, rather than one thread that serves them all: fewer
	// wake-ups, no idle CPU between replies. Deadlines take effect within
	// 20 ms, Close at once. A waiting connection holds its goroutine's
	// processor, so the caller sets GOMAXPROCS to the number of workers;
	// with many more workers than CPUs the poller costs less. Linux only.
	ThreadIO bool
	// TextStatements sends every statement as text over the simple query
	// protocol, its parameters written into it as literals, and prepares
	// nothing, as libpq's PQexec and sysbench's --db-ps-mode=disable do:
	// pgx's Exec and Query use QueryExecModeSimpleProtocol and
	// RawQuerier.QueryRaw writes its parameters into its statement.
	// Literals need the server's standard_conforming_strings on (the
	// default since PostgreSQL 9.1); a statement sent without it fails.
	TextStatements bool
	// Dialect, when not nil, is the servers' dialect. Nil means Open asks
	// the first endpoint (SELECT version()): dialect.Cockroach for
	// CockroachDB, dialect.Postgres otherwise. Tests set it to run one
	// dialect's protocol against another server.
	Dialect dialect.Dialect
	// Localities, when not empty, gives the locality of each URL, in
	// order ("" for none): --locality after a URL on the command line. A
	// URL may give its own with ?locality= (see SplitLocality); giving
	// both, different, is an error.
	Localities []string
	// EndpointsFile, when set, names a file listing more endpoints, one
	// connection string per line with an optional locality after it (see
	// EndpointsFileURLs). Open reads it, and then again every second
	// until Close: endpoints it adds get workers at their next call,
	// endpoints it drops lose theirs. A file that cannot be read keeps
	// the last list it gave, with a warning.
	EndpointsFile string
	// Warn receives one line per warning: an endpoint down at the start
	// (the DB opens on the others and keeps trying it), an endpoints file
	// that became unreadable, endpoints added and removed. Nil discards
	// them.
	Warn func(format string, args ...any)
	// Notices, when set, receives the server's notices (NOTICE,
	// WARNING, ...) as libpq's default notice processor prints them on
	// stderr (see LibpqNotice), as pgbench -i shows them; nil drops
	// them.
	Notices io.Writer
}

// DB is a set of connection pools, one per endpoint. It is safe for
// concurrent use.
type DB struct {
	dialect    dialect.Dialect
	database   string
	null       bool
	shared     bool
	text       bool   // Options.TextStatements
	setTimeout string // statement run on each worker connection, or ""
	reconnects atomic.Int64
	sent       atomic.Int64 // bytes written to the servers
	holds      holdSet      // the connections each worker uses, for Abandon
	connects   connectTimer // how long connections took to open
	// set is the endpoints now; see endpointSet.
	set atomic.Pointer[endpointSet]
	// dyn is what adding endpoints during the run needs.
	dyn dynamic
	// onNotice receives the connections' notices (OnNotice).
	onNotice atomic.Pointer[NoticeFunc]
}

// ParseConfigs parses the connection strings of opts into pool configs,
// applying opts.Database. Errors never contain passwords.
func ParseConfigs(opts Options) ([]*pgxpool.Config, error) {
	urls := opts.URLs
	if len(urls) == 0 {
		urls = []string{""}
	}
	timeout := opts.ConnectTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	cfgs := make([]*pgxpool.Config, 0, len(urls))
	for _, u := range urls {
		u, _, err := SplitLocality(u)
		if err != nil {
			return nil, err
		}
		if u != "" && !strings.Contains(u, "=") && !strings.Contains(u, "://") {
			return nil, fmt.Errorf("malformed connection URL %q: expected postgresql://user@host:port/db or key=value pairs", redact.Conn(u))
		}
		if strings.Contains(u, "://") && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			scheme, _, _ := strings.Cut(u, "://")
			return nil, fmt.Errorf("unsupported URL scheme %q in %s: use postgresql://", scheme, oneLine(redact.Conn(u)))
		}
		if err := CheckUserinfo(u); err != nil {
			// libpq and pgx end the user information at its first '@':
			// the rest of a password would be taken for the host or the
			// database, and printed as such in every later error.
			return nil, fmt.Errorf("malformed connection URL %s: %w", oneLine(HideUserinfo(u)), err)
		}
		if msg := envUnread(u, os.Getenv); msg != "" {
			return nil, errors.New(msg)
		}
		cfg, err := pgxpool.ParseConfig(u)
		if err != nil {
			if msg := envDetail(err, u, os.Getenv); msg != "" {
				return nil, errors.New(msg)
			}
			msg := fmt.Sprintf("malformed connection URL %s: %s", oneLine(redact.Conn(u)), oneLine(parseDetail(err, u)))
			if isURL(u) && strings.Count(u, "@") > 1 {
				msg += "; if a password or user name holds an '@', write it as %40"
			}
			return nil, errors.New(msg)
		}
		if opts.Database != "" {
			cfg.ConnConfig.Database = opts.Database
		}
		if opts.SearchPath != "" {
			cfg.ConnConfig.RuntimeParams["search_path"] = opts.SearchPath
		}
		if opts.User != "" {
			// The fallbacks (other hosts, TLS or not) share these.
			cfg.ConnConfig.User, cfg.ConnConfig.Password = opts.User, opts.Password
		}
		// A URL's own application_name (cockroach's --conn-vars, say) wins.
		if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok && opts.AppName != "" {
			cfg.ConnConfig.RuntimeParams["application_name"] = opts.AppName
		}
		if opts.TextStatements {
			cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		}
		if w := opts.Notices; w != nil {
			cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { _, _ = io.WriteString(w, LibpqNotice(n)) }
		}

		if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > timeout {
			cfg.ConnConfig.ConnectTimeout = timeout
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, nil
}

// ErrStrayAt is CheckUserinfo's error: it says what to do, and prints no
// part of the URL.
var ErrStrayAt = errors.New("it holds an '@' after the one that ends its user name and password (user:password@host): " +
	"write '@' as %40 in passwords, user names and database names")

// CheckUserinfo returns ErrStrayAt when conn is a postgres:// URL whose
// password (or user name) holds an unescaped '@' (see strayAt), else nil.
// Whoever prints conn's host or database must check it first: they would
// hold the rest of the password.
func CheckUserinfo(conn string) error {
	if strayAt(conn) {
		return ErrStrayAt
	}
	return nil
}

// HideUserinfo returns a postgres:// URL whose user information holds an
// unescaped '@' (strayAt) with all of it, user name too, replaced by
// "xxxxx" (up to the last '@' before the query: which '@' ends it cannot
// be known), and without its query: what names the server and database,
// and no part of a secret.
func HideUserinfo(conn string) string {
	scheme, rest, _ := strings.Cut(conn, "://")
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q]
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		rest = redact.Mask + rest[at:]
	}
	return scheme + "://" + rest
}

// isURL reports whether conn is a postgres:// or postgresql:// URL.
func isURL(conn string) bool {
	return strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://")
}

// strayAt reports whether a postgres:// URL holds an '@' after the one
// that ends its user information, outside its query: a password (or user
// name) with an unescaped '@'. libpq and pgx end the user information at
// the first '@' before any '/', so the rest of such a password becomes
// the host ("user:p@ss@host": host "ss@host") or the database
// ("user:p@ss/x@host/db": database "x@host/db"), and would be printed as
// such. A host never holds an '@'; a database name that does must be
// written with %40 too.
func strayAt(conn string) bool {
	if !isURL(conn) {
		return false
	}
	_, p, _ := strings.Cut(conn, "://")
	i := strings.IndexAny(p, "@/")
	if i < 0 || p[i] != '@' {
		return false // no user information, as libpq reads it
	}
	rest := p[i+1:]
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q] // a query value may hold an '@' (application_name=me@box)
	}
	return strings.Contains(rest, "@")
}

// connectDetail returns the most specific part of a connection error
// message, on one line: the certificate problem for TLS verification
// failures, else the last part of pgconn's message.
func connectDetail(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var badCert x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownCA):
		return "TLS: the server's certificate is signed by an unknown authority"
	case errors.As(err, &badHost):
		return "TLS: " + strings.TrimPrefix(badHost.Error(), "x509: ")
	case errors.As(err, &badCert):
		return "TLS: " + strings.TrimPrefix(badCert.Error(), "x509: ")
	}
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		// The server's own message whole: it may hold ": " itself
		// (invalid value for parameter "work_mem": "bogus").
		return oneLine(pe.Message + " (SQLSTATE " + pe.Code + ")")
	}
	return oneLine(lastLine(err))
}

// oneLine escapes the control characters of s (line breaks, tabs, ...) as
// Go does in quoted strings, so that s prints on one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// lastLine returns the most specific part of a pgconn error message.
func lastLine(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		return msg[i+2:]
	}
	return msg
}

// Open connects to every endpoint (checking each with a ping) and returns
// the DB. An endpoint that cannot be reached (a connection error) while
// another can is a warning (Options.Warn), not an error: the DB opens on
// the others, and workers keep trying it (see workerConn). Unless
// opts.Dialect says which it is, it tells CockroachDB from PostgreSQL by
// the first reachable endpoint's version() (one more round trip). With the
// null driver nothing is opened and the dialect is Postgres; its
// endpoints are those of the URLs when there are several, else one named
// "null".
func Open(ctx context.Context, opts Options) (*DB, error) {
	db := &DB{dialect: dialect.Postgres{}, database: opts.Database}
	db.set.Store(&endpointSet{})
	db.dyn.opts = opts
	switch opts.Driver {
	case "", DriverPostgres:
	case DriverNull:
		db.null = true
		if err := db.openNull(opts); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	default:
		return nil, fmt.Errorf("unknown driver %q: use postgres or null", opts.Driver)
	}
	entries, err := endpointEntries(opts)
	if err != nil {
		return nil, err
	}
	maxConns := opts.MaxConns
	if maxConns < 1 {
		maxConns = 1
	}
	db.shared = opts.Workers > maxConns
	db.text = opts.TextStatements
	if opts.StatementTimeout > 0 {
		ms := max(1, (opts.StatementTimeout+time.Millisecond-1)/time.Millisecond) // 0 would disable it
		db.setTimeout = fmt.Sprintf("SET statement_timeout = %d", int64(ms))
	}
	var down []*endpoint
	var downErr []error
	for i, en := range entries {
		e, err := db.newEndpoint(ctx, en, len(entries), i)
		if err != nil {
			db.Close()
			return nil, err
		}
		db.set.Store(db.set.Load().with(e))
		if err := e.pool.Ping(ctx); err != nil {
			if !IsConnectionError(err) || ctx.Err() != nil {
				db.Close()
				return nil, describeConnectError(e.pool.Config(), err)
			}
			e.health.markDown()
			down = append(down, e)
			downErr = append(downErr, err)
		}
	}
	live := db.set.Load().live
	if len(down) == len(live) {
		db.Close()
		err := describeConnectError(down[0].pool.Config(), downErr[0])
		if len(down) > 1 {
			names := make([]string, len(down))
			for k, e := range down {
				names[k] = e.Name
			}
			err = fmt.Errorf("every endpoint is down at the start (%s): %w", strings.Join(names, ", "), err)
		}
		return nil, err
	}
	for k, e := range down {
		db.warnf("endpoint %s is down at the start (%s): the run starts on the other %d and keeps trying it",
			e.Name, DescribeConnectFailure(e.Name, downErr[k]), len(live)-len(down))
	}
	if db.database == "" {
		db.database = live[0].pool.Config().ConnConfig.Database
	}
	db.dialect = opts.Dialect
	if db.dialect == nil {
		db.dialect = detectDialect(ctx, db.first().pool)
	}
	if opts.EndpointsFile != "" {
		db.watchFile(opts.EndpointsFile)
	}
	return db, nil
}

// detectDialect returns the dialect of the server behind pool, from its
// version() (see dialectOf); dialect.Postgres when the query fails. The
// simple protocol makes it one round trip, and leaves no prepared
// statement behind.
func detectDialect(ctx context.Context, pool *pgxpool.Pool) dialect.Dialect {
	var v string
	if err := pool.QueryRow(ctx, "SELECT version()", pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
		return dialect.Postgres{}
	}
	return dialectOf(v)
}

// dialectOf returns the dialect of a server whose version() is version:
// dialect.Cockroach when it names CockroachDB, dialect.Greenplum when it
// names Greenplum Database, else dialect.Postgres.
func dialectOf(version string) dialect.Dialect {
	switch {
	case strings.Contains(version, "CockroachDB"):
		return dialect.Cockroach{}
	case dialect.IsGreenplumVersion(version):
		return dialect.Greenplum{}
	}
	return dialect.Postgres{}
}

// setupWorkerConn prepares a connection a worker just acquired: it sets
// the statement timeout, when there is one.
func (db *DB) setupWorkerConn(ctx context.Context, c *pgxpool.Conn) error {
	if db.setTimeout == "" {
		return nil
	}
	_, err := c.Exec(ctx, db.setTimeout)
	return err
}

// endpointName is host:port of a config, safe to print.
func endpointName(cfg *pgxpool.Config) string {
	host := cfg.ConnConfig.Host
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("%s/.s.PGSQL.%d", host, cfg.ConnConfig.Port)
	}
	return fmt.Sprintf("%s:%d", host, cfg.ConnConfig.Port)
}

// ConnectError is a failure to reach or log into a server, with the
// endpoint and a hint of what to do.
type ConnectError struct {
	// Endpoint is host:port.
	Endpoint string
	// Database and User are what the connection asked for.
	Database, User string
	// Hint says what the user should check.
	Hint string
	// Err is the underlying error.
	Err error
	// BadKey, when set, is a key of the connection string that is not a
	// libpq connection parameter, which the server refused as a setting
	// (SQLSTATE 42704): the user's input, not the server's failure.
	BadKey string
}

// Error implements error.
func (e *ConnectError) Error() string {
	if e.BadKey != "" {
		return fmt.Sprintf("cannot connect to %s (database %q, user %q): the connection string's key %q is neither a libpq connection parameter nor a setting the server knows (sent to it as a setting, it was refused): check the key's spelling, or drop it",
			e.Endpoint, e.Database, e.User, e.BadKey)
	}
	msg := fmt.Sprintf("cannot connect to %s (database %q, user %q): %s", e.Endpoint, e.Database, e.User, connectDetail(e.Err))
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *ConnectError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrConfig) true for a key of the connection
// string that no one knows (BadKey): bad input.
func (e *ConnectError) Is(target error) bool { return target == ErrConfig && e.BadKey != "" }

// unknownParameter matches the server's refusal of a setting it does not
// have, naming it.
var unknownParameter = lazyre.New(`^unrecognized configuration parameter "([^"]+)"$`)

// badKey returns the key of cfg's connection string that err (a failed
// connection) says the server does not know as a setting: pgx sends the
// keys that are not libpq's to the server as settings. "" for another
// failure, or a setting that came from elsewhere ($PGOPTIONS).
func badKey(cfg *pgxpool.Config, err error) string {
	pe := (*pgconn.PgError)(nil)
	if !errors.As(err, &pe) || pe.Code != "42704" {
		return ""
	}
	m := unknownParameter().FindStringSubmatch(pe.Message)
	if m == nil {
		return ""
	}
	if _, ok := cfg.ConnConfig.RuntimeParams[m[1]]; !ok {
		return ""
	}
	return m[1]
}

// IsMissingDatabase reports whether err says the database does not exist.
func IsMissingDatabase(err error) bool { return SQLState(err) == "3D000" }

func describeConnectError(cfg *pgxpool.Config, err error) error {
	ce := &ConnectError{Endpoint: endpointName(cfg), Database: cfg.ConnConfig.Database, User: cfg.ConnConfig.User, Err: err}
	ce.Hint = connectHint(err, ce.Endpoint, int(cfg.ConnConfig.Port))
	ce.BadKey = badKey(cfg, err)
	return ce
}

// DescribeConnectFailure explains, in one line, why a connection to
// endpoint (host:port, or a socket path) failed: the innermost cause
// without the driver's wrapping, and what to check. For connections that
// do not go through Open, such as the results store's.
func DescribeConnectFailure(endpoint string, err error) string {
	inner := err
	for {
		if j, ok := inner.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
			inner = j.Unwrap()[0] // the first of several attempts
			continue
		}
		next := errors.Unwrap(inner)
		if next == nil {
			break
		}
		inner = next
	}
	msg := inner.Error()
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		msg = pe.Message + " (SQLSTATE " + pe.Code + ")"
	}
	if hint := connectHint(err, endpoint, 0); hint != "" {
		msg += "; " + hint
	}
	return msg
}

// connectHint says what to check after a failed connection to endpoint
// (port 0: unknown); "" when it has nothing to add.
// NoDatabaseHint is what a connection refused for a database that does
// not exist advises; the pgbench form, which takes no --db, replaces it
// with its own.
const NoDatabaseHint = "run `stampede init` first, or pass --db"

func connectHint(err error, endpoint string, port int) string {
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var badCert x509.CertificateInvalidError
	switch st := SQLState(err); {
	case st == "28000" && strings.Contains(err.Error(), "certificate"):
		return "check sslcert and sslkey: the server wants a client certificate whose CN is the user name"
	case st == "28000" && strings.Contains(err.Error(), "pg_hba.conf"):
		return "the server's pg_hba.conf does not let this user, database or host in (with this sslmode)"
	case st == "28P01" || st == "28000":
		return "check the user name and password"
	case errors.As(err, &unknownCA):
		return "check sslrootcert (the CA that signed the server's certificate), or use sslmode=require to skip verification"
	case errors.As(err, &badHost):
		return "the server's certificate does not name this host; connect with a name it holds, or use sslmode=verify-ca"
	case errors.As(err, &badCert):
		return "the server's certificate is not valid (expired or not usable for TLS servers)"
	case st == "3D000":
		return NoDatabaseHint
	case st == "53300":
		return "the server refuses more connections (its max_connections, or the role's or database's CONNECTION LIMIT): raise the limit, or share fewer connections among the workers with --conns"
	case (st == "42601" || st == "22023" || st == "42704") && envSettingHint(err.Error()) != "":
		return envSettingHint(err.Error())
	case st == "42704" && strings.Contains(err.Error(), "configuration parameter"):
		// pgx sends a URL's keys that are not libpq's to the server as
		// settings (as options=-c would).
		return "a URL key that is not a libpq connection parameter is sent to the server as a setting, and the server has none of that name: check the key's spelling, or drop it"
	case st == "" && strings.Contains(err.Error(), "server refused TLS connection"):
		// With sslmode=prefer a refused TLS attempt is followed by a
		// plain one; a server error (st) means that one got through.
		return "the server does not accept TLS: connect with sslmode=prefer or sslmode=disable, or turn ssl on in the server's configuration"
	case strings.HasPrefix(endpoint, "/") && (errors.Is(err, syscall.ENOENT) || strings.Contains(err.Error(), "no such file or directory")):
		where := fmt.Sprintf("%s in its unix_socket_directories", filepath.Dir(endpoint))
		if port > 0 {
			where += fmt.Sprintf(" and port %d", port)
		}
		return fmt.Sprintf("no Unix socket %s: is the server running, with %s? (Debian's servers use /var/run/postgresql)", endpoint, where)
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout"):
		return "the server did not answer in time; check host, port and firewall"
	case st == "" && strings.Contains(err.Error(), "refused"):
		// A server error (st) means the server answered: a refused TLS
		// attempt before it is no sign of a server that is down.
		return "is the server running and listening there? check host and port"
	case strings.Contains(err.Error(), "no such host"):
		return "check the host name"
	}
	return ""
}

// Dialect returns the database's SQL dialect.
func (db *DB) Dialect() dialect.Dialect { return db.dialect }

// Null reports whether this is the null driver.
func (db *DB) Null() bool { return db.null }

// Database returns the database name connections use.
func (db *DB) Database() string { return db.database }

// Endpoints returns the live endpoints as host:port, safe to print.
func (db *DB) Endpoints() []string {
	var names []string
	for _, e := range db.endpointSet().live {
		names = append(names, e.Name)
	}
	return names
}

// Where names the database and its live endpoints as a refusal says
// where it looked: `database "bank" on 127.0.0.1:5432`.
func (db *DB) Where() string {
	return fmt.Sprintf("database %q on %s", db.Database(), strings.Join(db.Endpoints(), ","))
}

// Reconnects returns how many times a worker connection was re-established
// after being lost.
func (db *DB) Reconnects() int64 { return db.reconnects.Load() }

// Close stops watching the endpoints file and closes every pool.
func (db *DB) Close() {
	db.stopWatching()
	for _, e := range db.endpointSet().all {
		if e.pool != nil {
			e.pool.Close()
		}
	}
}

// pool returns the pool for a worker: round-robin over the live
// endpoints.
func (db *DB) pool(worker int) *pgxpool.Pool {
	live := db.endpointSet().live
	if worker < 0 {
		worker = -worker
	}
	return live[worker%len(live)].pool
}

// first returns the endpoint that statements outside workers use: the
// first live one not marked down, else the first live one.
func (db *DB) first() *endpoint {
	live := db.endpointSet().live
	now := time.Now().UnixNano()
	for _, e := range live {
		if !e.health.isDown(now) {
			return e
		}
	}
	return live[0]
}

// Exec runs a statement on the first endpoint.
func (db *DB) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if db.null {
		return 0, nil
	}
	tag, err := db.first().pool.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

// Query runs a statement that returns rows on the first endpoint.
func (db *DB) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	if db.null {
		return nullRows{}, nil
	}
	return db.first().pool.Query(ctx, sql, args...)
}

// QueryRow runs a single-row statement on the first endpoint.
func (db *DB) QueryRow(ctx context.Context, sql string, args ...any) Row {
	if db.null {
		return nullRow{}
	}
	return db.first().pool.QueryRow(ctx, sql, args...)
}

// Begin starts a transaction on the first endpoint.
func (db *DB) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	if db.null {
		return nullConn{}, nil
	}
	tx, err := db.first().pool.BeginTx(ctx, pgxTxOptions(opts))
	if err != nil {
		return nil, err
	}
	return txAdapter{tx}, nil
}

// ServerVersion returns the server's version string.
func (db *DB) ServerVersion(ctx context.Context) string {
	if db.null {
		return "null"
	}
	var v string
	if err := db.first().pool.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return "unknown"
	}
	return v
}

// CopyFrom bulk-loads rows into table through COPY (on the endpoint of
// stream, round-robin) and returns the number of rows copied.
func (db *DB) CopyFrom(ctx context.Context, stream int, table string, columns []string, src pgx.CopyFromSource) (int64, error) {
	if db.null {
		var n int64
		for src.Next() {
			if _, err := src.Values(); err != nil {
				return n, err
			}
			n++
		}
		return n, src.Err()
	}
	return db.pool(stream).CopyFrom(ctx, pgx.Identifier{table}, columns, src)
}

// Conn returns the connection for worker number worker, whose home is
// endpoint worker % len(Endpoints()). With dedicated true, the worker keeps
// one connection for its lifetime, re-established when lost: when its home
// endpoint cannot be reached it fails over to the other endpoints in turn,
// and goes back home once the endpoint answers again (see workerConn).
// When the DB was opened with fewer connections than workers, each call
// borrows one from the first endpoint not recently down, in the same
// order (see sharedConn). Otherwise (dedicated false) each call borrows
// one from the home endpoint's pool, without failover.
func (db *DB) Conn(worker int, dedicated bool) Conn {
	if db.null {
		live := db.endpointSet().live
		db.WorkerCell(worker).Store(int32(live[abs(worker)%len(live)].Slot))
		return nullConn{}
	}
	if live := db.endpointSet().live; !dedicated || (db.shared && len(live) == 1) {
		db.WorkerCell(worker).Store(int32(live[abs(worker)%len(live)].Slot))
		return poolConn{db.pool(worker), db.holdOf(worker)}
	}
	if db.shared {
		return newSharedConn(db, worker)
	}
	return newWorkerConn(db, worker)
}

func pgxTxOptions(o TxOptions) pgx.TxOptions {
	opts := pgx.TxOptions{IsoLevel: pgx.TxIsoLevel(o.Isolation)}
	if o.ReadOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	return opts
}

func (w *workerConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return 0, err
	}
	tag, err := c.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (w *workerConn) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return nil, err
	}
	return c.Query(ctx, sql, args...)
}

func (w *workerConn) QueryRow(ctx context.Context, sql string, args ...any) Row {
	c, err := w.conn(ctx)
	if err != nil {
		return errRow{err}
	}
	return c.QueryRow(ctx, sql, args...)
}

func (w *workerConn) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Pipeline {
		return &lazyTx{c: c, raw: &w.raw, begin: beginStmt(opts)}, nil
	}
	tx, err := c.BeginTx(ctx, pgxTxOptions(opts))
	if err != nil {
		return nil, err
	}
	return rawTx{txAdapter{tx}, &w.raw}, nil
}

func (w *workerConn) Release() {
	w.raw.fast.unwatch()
	if w.c != nil {
		if f := &w.raw.fast; f.valid && f.txStatus != 'I' {
			// pgconn's status, which the pool looks at, may be older:
			// a connection inside a transaction is not given back.
			_ = w.c.Conn().Close(context.Background())
		}
		unmarkWorker(w.c.Conn().PgConn())
		w.hold.release(w.c) // closed first when abandoned
		w.c = nil
		w.raw.reset()
	}
}

// poolConn borrows a connection from the pool for each call, recorded in
// the worker's hold while in use (see DB.Abandon).
type poolConn struct {
	p *pgxpool.Pool
	h *hold
}

func (p poolConn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := p.h.exec(ctx, p.p, sql, args...)
	return tag.RowsAffected(), err
}

func (p poolConn) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	return p.h.query(ctx, p.p, sql, args...)
}

func (p poolConn) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return p.h.queryRow(ctx, p.p, sql, args...)
}

func (p poolConn) Begin(ctx context.Context, opts TxOptions) (Tx, error) {
	return p.h.begin(ctx, p.p, opts)
}

func (poolConn) Release() {}

// txAdapter adapts pgx.Tx to Tx.
type txAdapter struct{ tx pgx.Tx }

func (t txAdapter) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (t txAdapter) Query(ctx context.Context, sql string, args ...any) (Rows, error) {
	return t.tx.Query(ctx, sql, args...)
}

func (t txAdapter) QueryRow(ctx context.Context, sql string, args ...any) Row {
	return t.tx.QueryRow(ctx, sql, args...)
}

func (t txAdapter) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t txAdapter) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }

type errRow struct{ err error }

func (e errRow) Scan(...any) error { return e.err }

// EnsureDatabase creates opts.Database on the first endpoint when it does
// not exist, connecting to the endpoint's maintenance database ("postgres")
// to do so, and marks it (CreatedDatabaseMark). It reports whether it
// created the database.
func EnsureDatabase(ctx context.Context, opts Options) (bool, error) {
	if opts.Driver == DriverNull {
		return false, nil
	}
	cfgs, err := ParseConfigs(opts)
	if err != nil {
		return false, err
	}
	cfg := cfgs[0].ConnConfig
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err == nil {
		conn.Close(ctx)
		return false, nil
	}
	if !IsMissingDatabase(err) {
		return false, describeConnectError(cfgs[0], err)
	}
	admin := cfg.Copy()
	admin.Database = "postgres"
	conn, err = pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return false, describeConnectError(cfgs[0], err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, dialect.Postgres{}.CreateDatabase(cfg.Database)); err != nil {
		var pgErr *pgconn.PgError
		// Created concurrently (a split load's clients start together):
		// 42P04 once the other's is committed, 23505 on the catalog's
		// unique index while both are under way.
		if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
			return false, nil
		}
		return false, fmt.Errorf("creating database %q: %w", cfg.Database, err)
	}
	if _, err := conn.Exec(ctx, dialect.CommentOnDatabase(dialect.Postgres{}, cfg.Database, CreatedDatabaseMark)); err != nil {
		return true, fmt.Errorf("marking database %q as created by stampede: %w", cfg.Database, err)
	}
	return true, nil
}

// CreatedDatabaseMark is the comment EnsureDatabase puts on a database it
// creates: the cockroach form's --drop drops a database only where it
// finds it (a database a user created keeps its owner, comment, grants
// and settings; --drop then drops only the workload's tables in it).
const CreatedDatabaseMark = "made by stampede init, which created this database"

// BytesSent returns the number of bytes written to the servers on the DB's
// connections so far (COPY data, statements, parameters; after TLS).
func (db *DB) BytesSent() int64 { return db.sent.Load() }

// countingDial wraps dial so that the connections it makes count the bytes
// written on them in db.sent: one atomic add per write system call. With
// threadIO their sockets are read and written with blocking system calls.
func (db *DB) countingDial(dial pgconn.DialFunc, threadIO bool) pgconn.DialFunc {
	if dial == nil {
		d := &net.Dialer{KeepAlive: 5 * time.Minute}
		dial = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: withRawIO(c, threadIO), n: &db.sent}, nil
	}
}

// countingConn counts the bytes written on a connection. It also holds
// the bytes the script fast path read past the end of its exchange
// (msgReader), which its next Read returns first.
type countingConn struct {
	net.Conn
	n       *atomic.Int64
	pending []byte
}

// Read implements net.Conn.
func (c *countingConn) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		if c.pending = c.pending[n:]; len(c.pending) == 0 {
			c.pending = nil
		}
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// exchanger is a connection that writes a request and reads the first
// bytes of its reply in one call (rawIOConn).
type exchanger interface {
	Exchange(w, r []byte) (wrote, n int, err error)
}

// Exchange writes w whole and reads the first bytes of the reply into r:
// in one call when the connection is an exchanger and nothing read ahead
// is pending, else as Write and Read. It returns the bytes of the reply
// read.
func (c *countingConn) Exchange(w, r []byte) (int, error) {
	x, ok := c.Conn.(exchanger)
	if !ok || len(c.pending) > 0 {
		if _, err := c.Write(w); err != nil {
			return 0, err
		}
		return c.Read(r)
	}
	wrote, n, err := x.Exchange(w, r)
	c.n.Add(int64(wrote))
	return n, err
}

// ConnectionRoom returns how many more connections the server of the
// first endpoint accepts from this user (its limit less the connections in
// use), and that limit; ok is false when the server has no server-wide
// limit (see dialect.ConnectionLimitQuery) or it cannot be read.
func (db *DB) ConnectionRoom(ctx context.Context) (room, limit int, ok bool) {
	q := dialect.ConnectionLimitQuery(db.dialect)
	if db.Null() || q == "" {
		return 0, 0, false
	}
	var used int
	if err := db.QueryRow(ctx, q).Scan(&limit, &used); err != nil {
		return 0, 0, false
	}
	return max(limit-used, 0), limit, true
}
