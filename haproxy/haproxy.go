package haproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
)

// Check is how HAProxy decides that a node can take connections.
type Check string

// The health checks Write knows.
const (
	// CheckPostgres opens a PostgreSQL session as CheckUser (HAProxy's
	// `option pgsql-check`): a node is up when it answers the startup
	// message with an authentication request, down when it answers with
	// an error (shutting down, in recovery, too many connections) or not
	// at all.
	CheckPostgres Check = "pgsql"
	// CheckCockroach asks CockroachDB's HTTP port for /health?ready=1: a
	// node is up when it answers 200, which it stops doing while it
	// drains or is decommissioned.
	CheckCockroach Check = "cockroach"
	// CheckTCP only connects to the SQL port.
	CheckTCP Check = "tcp"
)

// Checks lists the health checks, for help texts.
var Checks = []Check{CheckPostgres, CheckCockroach, CheckTCP}

// Defaults for Config's zero fields.
const (
	DefaultMaxConn        = 4096
	DefaultIdleTimeout    = time.Hour
	DefaultConnectTimeout = 5 * time.Second
	DefaultCheckInterval  = time.Second
	// DefaultCockroachHTTPPort is CockroachDB's default HTTP port.
	DefaultCockroachHTTPPort = 8080
)

// Server is one node behind the load balancer.
type Server struct {
	// Name is the server's name in HAProxy (its logs and stats page).
	Name string
	// Addr is host:port of the node's SQL port.
	Addr string
}

// Port is the port of s.Addr (0 if it has none).
func (s Server) Port() int {
	_, p, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// Config is what Write renders. Its zero fields take the defaults above.
type Config struct {
	// Servers are the nodes, in order.
	Servers []Server
	// Bind is the address the load balancer listens on; "" means every
	// interface.
	Bind string
	// Port is the port clients connect to.
	Port int
	// Check is the health check; "" means CheckPostgres.
	Check Check
	// CheckUser is the user CheckPostgres logs in as (no password is
	// sent: the check stops at the server's authentication request).
	CheckUser string
	// HTTPPort is the nodes' HTTP port for CheckCockroach.
	HTTPPort int
	// MaxConn is HAProxy's limit on concurrent connections.
	MaxConn int
	// IdleTimeout is how long a connection may stay silent in either
	// direction before HAProxy closes it (timeout client and server).
	IdleTimeout time.Duration
	// ConnectTimeout bounds each attempt to reach a node; a failed
	// attempt is retried on another node.
	ConnectTimeout time.Duration
	// CheckInterval is the time between two health checks of a node.
	CheckInterval time.Duration
	// StatsPort, when not 0, adds HAProxy's statistics page on
	// Bind:StatsPort.
	StatsPort int
}

// Servers turns connection URLs (postgresql:// URLs or key=value
// strings, as `stampede run` takes them) into the nodes to balance, named
// node1, node2, ... in order; a URL with several hosts
// (postgresql://h1:5432,h2:5432/db) gives one node per host. It also
// returns the user the URLs connect as (for CheckPostgres), "" when they
// name different users. Errors name the URL (without its password).
func Servers(urls []string) ([]Server, string, error) {
	if len(urls) == 0 {
		return nil, "", errors.New("no URL: give the nodes' connection URLs, e.g. postgresql://postgres@10.0.0.1:5432 postgresql://postgres@10.0.0.2:5432")
	}
	var servers []Server
	seen := map[string]int{} // a node's address: the URL that named it
	user, users := "", map[string]bool{}
	for i, u := range urls {
		if strings.TrimSpace(u) == "" {
			return nil, "", errors.New("an empty URL: give each node's connection URL")
		}
		cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{u}})
		if err != nil {
			return nil, "", err
		}
		cc := cfgs[0].ConnConfig
		hosts := []struct {
			host string
			port uint16
		}{{cc.Host, cc.Port}}
		for _, fb := range cc.Fallbacks {
			hosts = append(hosts, struct {
				host string
				port uint16
			}{fb.Host, fb.Port})
		}
		for _, h := range hosts {
			if strings.HasPrefix(h.host, "/") {
				return nil, "", fmt.Errorf("%s connects through the Unix socket %s: HAProxy balances TCP, give the node's host:port", redact.Conn(u), h.host)
			}
			addr := net.JoinHostPort(h.host, strconv.Itoa(int(h.port)))
			if first, ok := seen[addr]; ok {
				if first == i { // pgx lists a host twice for sslmode=prefer
					continue
				}
				return nil, "", fmt.Errorf("URLs %d and %d name the same node, %s: give each node once", first+1, i+1, addr)
			}
			seen[addr] = i
			servers = append(servers, Server{Name: fmt.Sprintf("node%d", len(servers)+1), Addr: addr})
		}
		if !users[cc.User] {
			users[cc.User] = true
			user = cc.User
		}
	}
	if len(users) > 1 {
		user = ""
	}
	return servers, user, nil
}

// withDefaults fills c's zero fields.
func (c Config) withDefaults() Config {
	if h, ok := strings.CutPrefix(c.Bind, "["); ok && strings.HasSuffix(h, "]") && strings.Contains(h, ":") && net.ParseIP(strings.TrimSuffix(h, "]")) != nil {
		c.Bind = strings.TrimSuffix(h, "]") // [::1], as HAProxy writes it, is ::1
	}
	if c.Check == "" {
		c.Check = CheckPostgres
	}
	if c.HTTPPort == 0 && c.Check == CheckCockroach {
		c.HTTPPort = DefaultCockroachHTTPPort
	}
	if c.MaxConn == 0 {
		c.MaxConn = DefaultMaxConn
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.CheckInterval == 0 {
		c.CheckInterval = DefaultCheckInterval
	}
	return c
}

// Validate reports the first problem with c (after defaults), as a
// one-line message that names the setting.
func (c Config) Validate() error {
	c = c.withDefaults()
	if len(c.Servers) == 0 {
		return errors.New("no server to balance")
	}
	if err := checkPort("port", c.Port); err != nil {
		return err
	}
	if c.StatsPort != 0 {
		if err := checkPort("stats port", c.StatsPort); err != nil {
			return err
		}
		if c.StatsPort == c.Port {
			return fmt.Errorf("the stats port %d is the port clients connect to: pick another", c.StatsPort)
		}
	}
	switch c.Check {
	case CheckPostgres:
		if c.CheckUser == "" {
			return errors.New("the pgsql health check needs a user to log in as: the URLs name different users, so give one")
		}
		if strings.ContainsAny(c.CheckUser, " \t\r\n#\\'\"") {
			return fmt.Errorf("health check user %q: HAProxy's configuration cannot hold spaces, quotes, '#' or '\\' there; use another user or --check tcp", c.CheckUser)
		}
	case CheckCockroach:
		if err := checkPort("HTTP port", c.HTTPPort); err != nil {
			return err
		}
	case CheckTCP:
	default:
		return fmt.Errorf("unknown health check %q: use %s", c.Check, checkNames())
	}
	if strings.ContainsAny(c.Bind, " \t\r\n#") {
		return fmt.Errorf("bind address %q has a space or '#'", c.Bind)
	}
	if h, port, err := net.SplitHostPort(c.Bind); err == nil && port != "" && strings.Trim(port, "0123456789") == "" && (net.ParseIP(h) != nil || bindable(h)) {
		return fmt.Errorf("bind address %q holds a port: give the address alone (--bind %s) and the port with --port %s", c.Bind, h, port)
	}
	if !bindable(c.Bind) {
		return fmt.Errorf("bind address %q is neither an IP address nor a host name, so HAProxy would refuse to start: give one of this machine's addresses (such as 127.0.0.1 or ::1), or none for every interface", c.Bind)
	}
	if err := resolves(c.Bind); err != nil {
		return fmt.Errorf("bind address %q is not an IP address, and the host name does not resolve here (%v), so HAProxy would refuse to start: give the IP address to listen on (such as 127.0.0.1 or ::1), or none for every interface", c.Bind, err)
	}
	for _, s := range c.Servers {
		if strings.ContainsAny(s.Addr+s.Name, " \t\r\n#\\'\"") {
			return fmt.Errorf("server address %q: HAProxy's configuration cannot hold spaces, quotes, '#' or '\\' there", s.Addr)
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"idle timeout", c.IdleTimeout}, {"connect timeout", c.ConnectTimeout}, {"check interval", c.CheckInterval}} {
		if d.v < time.Millisecond {
			return fmt.Errorf("%s %v: must be at least 1ms", d.name, d.v)
		}
	}
	if c.MaxConn < 1 {
		return fmt.Errorf("maxconn %d: must be at least 1", c.MaxConn)
	}
	return nil
}

// bindable reports whether HAProxy can listen on host: every interface
// ("" or "*"), an IP address, or a host name it resolves when it starts.
// A name of digits and dots only (999.1.1.1) is a mistyped IPv4 address,
// which no resolver takes for a name.
func bindable(host string) bool {
	if host == "" || host == "*" || net.ParseIP(host) != nil {
		return true
	}
	if len(host) > 253 || strings.Trim(host, "0123456789.") == "" {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
	}
	return true
}

// resolves checks that a bind address that is a host name resolves, as
// HAProxy resolves it when it reads its configuration (and refuses to
// start when it cannot).
func resolves(host string) error {
	if host == "" || host == "*" || net.ParseIP(host) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := net.DefaultResolver.LookupHost(ctx, host)
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return errors.New(dns.Err)
	}
	return err
}

func checkPort(name string, p int) error {
	if p < 1 || p > 65535 {
		return fmt.Errorf("%s %d is out of range: use 1-65535", name, p)
	}
	return nil
}

func checkNames() string {
	names := make([]string, len(Checks))
	for i, c := range Checks {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// String describes c in one line: "HAProxy on *:5432 in front of 3 nodes
// (h1:5432, h2:5432, h3:5432), round robin, health check pgsql as postgres".
func (c Config) String() string {
	c = c.withDefaults()
	addrs := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		addrs[i] = s.Addr
	}
	bind := c.Bind
	if bind == "" {
		bind = "*"
	}
	check := string(c.Check)
	switch c.Check {
	case CheckPostgres:
		check += " as " + c.CheckUser
	case CheckCockroach:
		check += fmt.Sprintf(" (GET /health?ready=1 on port %d)", c.HTTPPort)
	}
	return fmt.Sprintf("HAProxy on %s in front of %d %s (%s), round robin, health check %s",
		net.JoinHostPort(bind, strconv.Itoa(c.Port)), len(c.Servers), view{c}.ServerWord(), strings.Join(addrs, ", "), check)
}

// Render returns c as an HAProxy configuration file, or the first
// problem with it.
func Render(c Config) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, view{Config: c.withDefaults()}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write renders c to w. It writes nothing when c is not valid.
func Write(w io.Writer, c Config) error {
	b, err := Render(c)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteFile renders c into the file path. It never replaces an existing
// file unless force is set (the error then wraps fs.ErrExist), and
// replaces one atomically (a new file renamed over it), so a failed write
// leaves the old file whole. A missing directory is an error wrapping
// fs.ErrNotExist; it is not created.
func WriteFile(path string, force bool, c Config) error {
	b, err := Render(c)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("directory %s does not exist: %w", dir, fs.ErrNotExist)
	} else if err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if !force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			os.Remove(path)
			return err
		}
		if err := f.Close(); err != nil {
			os.Remove(path)
			return err
		}
		return nil
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// view adds the rendered fields the template needs.
type view struct{ Config }

// Listen is the address clients connect to, as HAProxy writes it.
func (v view) Listen() string { return bindAddr(v.Bind, v.Port) }

// StatsListen is the statistics page's address.
func (v view) StatsListen() string { return bindAddr(v.Bind, v.StatsPort) }

// Idle, Connect and Inter are the durations in HAProxy's syntax.
func (v view) Idle() string    { return haDuration(v.IdleTimeout) }
func (v view) Connect() string { return haDuration(v.ConnectTimeout) }
func (v view) Inter() string   { return haDuration(v.CheckInterval) }

// CheckTimeout bounds one health check: the interval, at most 2s.
func (v view) CheckTimeout() string { return haDuration(min(v.CheckInterval, 2*time.Second)) }

// ServerWord is "node" or "nodes".
func (v view) ServerWord() string {
	if len(v.Servers) == 1 {
		return "node"
	}
	return "nodes"
}

// bindAddr is host:port for HAProxy's bind line (":port" for every
// interface; an IPv6 address in brackets).
func bindAddr(host string, port int) string {
	if host == "" || host == "*" {
		return ":" + strconv.Itoa(port)
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// haDuration writes d in HAProxy's time syntax (a number and a unit:
// h, m, s or ms), exactly.
func haDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", (d+time.Millisecond/2)/time.Millisecond)
}

var tmpl = template.Must(template.New("haproxy.cfg").Parse(`# HAProxy configuration for {{len .Servers}} database {{.ServerWord}}, written by ` + "`stampede gen haproxy`" + `.
# Run it with: haproxy -f FILE   (add -db to stay in the foreground)
# Clients connect to {{.Listen}}; each new connection goes to the next node in
# turn (round robin) among the nodes that pass their health check.

global
    maxconn {{.MaxConn}}

defaults
    mode tcp
    # A connection attempt waits {{.Connect}} for a node; a failed one is tried
    # again (3 times), on another node when that one is down (redispatch).
    timeout connect {{.Connect}}
    retries 3
    option redispatch
    # How long a connection may stay silent before HAProxy closes it: longer
    # than the longest statement a benchmark runs (an index build while
    # loading, a consistency check), so raise it for bigger data sets.
    timeout client {{.Idle}}
    timeout server {{.Idle}}
    # TCP keep-alives on both sides keep idle connections open through
    # firewalls and NAT.
    option clitcpka
    option srvtcpka
    timeout check {{.CheckTimeout}}

listen stampede
    bind {{.Listen}}
    balance roundrobin
{{- if eq .Check "pgsql"}}
    # Health check: a PostgreSQL startup message as user {{.CheckUser}}; the node
    # is up when it asks for authentication (no password is sent).
    option pgsql-check user {{.CheckUser}}
{{- else if eq .Check "cockroach"}}
    # Health check: CockroachDB's readiness endpoint on its HTTP port; a node
    # that drains or is decommissioned stops answering 200.
    option httpchk GET /health?ready=1
{{- else}}
    # Health check: a TCP connection to the SQL port.
{{- end}}
    # A node is checked every {{.Inter}}, marked down after 2 failed checks (its
    # open connections are closed, so clients reconnect to the others) and
    # up again after 2 good ones.
    default-server inter {{.Inter}} fall 2 rise 2 on-marked-down shutdown-sessions
{{- range .Servers}}
    server {{.Name}} {{.Addr}} check{{if eq $.Check "cockroach"}} port {{$.HTTPPort}}{{end}}
{{- end}}
{{- if .StatsPort}}

# HAProxy's statistics page: each node's state, sessions and bytes.
listen stats
    bind {{.StatsListen}}
    mode http
    stats enable
    stats uri /
    stats refresh 5s
{{- end}}
`))
