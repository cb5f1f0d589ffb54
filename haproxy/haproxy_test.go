package haproxy_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/haproxy"
	"github.com/stampede-bench/stampede/internal/golden"
)

func three() []haproxy.Server {
	return []haproxy.Server{
		{Name: "node1", Addr: "127.0.0.1:5432"},
		{Name: "node2", Addr: "127.0.0.1:5433"},
		{Name: "node3", Addr: "127.0.0.1:5434"},
	}
}

var goldens = []struct {
	name string
	cfg  haproxy.Config
}{
	{"pgsql", haproxy.Config{Servers: three(), Port: 5432, CheckUser: "postgres"}},
	{"cockroach", haproxy.Config{
		Servers: []haproxy.Server{{"node1", "127.0.0.1:26257"}, {"node2", "127.0.0.1:26258"}, {"node3", "127.0.0.1:26259"}},
		Port:    26257, Check: haproxy.CheckCockroach,
	}},
	// An IPv6 address in brackets, as HAProxy writes it (the checker of
	// issue 28, F6.2: it was refused as neither an address nor a name).
	{"bind-ipv6-brackets", haproxy.Config{Servers: three()[:2], Bind: "[::1]", Port: 15799, Check: haproxy.CheckTCP}},
	{"tcp-bind-stats", haproxy.Config{
		Servers: three()[:2], Bind: "127.0.0.1", Port: 6432, Check: haproxy.CheckTCP,
		MaxConn: 20000, IdleTimeout: 90 * time.Minute, ConnectTimeout: 2500 * time.Millisecond,
		CheckInterval: 500 * time.Millisecond, StatsPort: 8404,
	}},
}

// TestGolden compares each configuration with testdata/NAME.cfg (go test
// -update rewrites them) and, when HAProxy is installed, has HAProxy check
// it (haproxy -c).
func TestGolden(t *testing.T) {
	bin, _ := exec.LookPath("haproxy")
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			got, err := haproxy.Render(g.cfg)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.name+".cfg")
			golden.Check(t, path, got)
			if bin == "" {
				t.Log("haproxy is not installed: configuration not checked by HAProxy")
				return
			}
			out, err := exec.Command(bin, "-c", "-f", path).CombinedOutput()
			if err != nil || strings.Contains(string(out), "[WARNING]") {
				t.Errorf("haproxy -c -f %s: %v\n%s", path, err, out)
			}
		})
	}
}

func TestServers(t *testing.T) {
	tests := []struct {
		name    string
		urls    []string
		want    []haproxy.Server
		user    string
		wantErr string
	}{
		{name: "two urls", urls: []string{"postgresql://app@db1.example:5432/db", "postgresql://app:secret@db2.example:5433/db?sslmode=disable"},
			want: []haproxy.Server{{"node1", "db1.example:5432"}, {"node2", "db2.example:5433"}}, user: "app"},
		{name: "multi-host url and a dsn", urls: []string{"postgresql://u@a:1,b:2/db?sslmode=prefer", "host=c port=3 user=u"},
			want: []haproxy.Server{{"node1", "a:1"}, {"node2", "b:2"}, {"node3", "c:3"}}, user: "u"},
		{name: "ipv6", urls: []string{"postgresql://u@[::1]:5432/db"}, want: []haproxy.Server{{"node1", "[::1]:5432"}}, user: "u"},
		// One node given twice would be balanced as two: refused.
		{name: "duplicate", urls: []string{"postgresql://u@a:1/x", "postgresql://u@a:1/y"}, wantErr: "URLs 1 and 2 name the same node, a:1: give each node once"},
		{name: "same url twice", urls: []string{"postgresql://u:secret@a:1/x", "postgresql://u:secret@a:1/x"}, wantErr: "URLs 1 and 2 name the same node, a:1: give each node once"},
		{name: "different users", urls: []string{"postgresql://u@a:1/x", "postgresql://v@b:1/y"},
			want: []haproxy.Server{{"node1", "a:1"}, {"node2", "b:1"}}, user: ""},
		{name: "no url", wantErr: "no URL"},
		{name: "empty url", urls: []string{""}, wantErr: "empty URL"},
		{name: "does not parse", urls: []string{"postgresql://u:secret@host:notaport/db"}, wantErr: "malformed connection URL"},
		{name: "not a url", urls: []string{"db.example.com"}, wantErr: "malformed connection URL"},
		{name: "other scheme", urls: []string{"mysql://u@h/db"}, wantErr: "unsupported URL scheme"},
		{name: "unix socket", urls: []string{"host=/var/run/postgresql user=u"}, wantErr: "Unix socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, user, err := haproxy.Servers(tt.urls)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
					t.Errorf("error shows a password or spans lines: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) || user != tt.user {
				t.Errorf("got %v user %q, want %v user %q", got, user, tt.want, tt.user)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := haproxy.Config{Servers: three(), Port: 5432, CheckUser: "postgres"}
	tests := []struct {
		name string
		edit func(c *haproxy.Config)
		want string
	}{
		{"port 0", func(c *haproxy.Config) { c.Port = 0 }, "port 0 is out of range"},
		{"port too big", func(c *haproxy.Config) { c.Port = 70000 }, "port 70000 is out of range"},
		{"stats port", func(c *haproxy.Config) { c.StatsPort = -1 }, "stats port -1 is out of range"},
		{"stats port clash", func(c *haproxy.Config) { c.StatsPort = 5432 }, "pick another"},
		{"http port", func(c *haproxy.Config) { c.Check = haproxy.CheckCockroach; c.HTTPPort = 99999 }, "HTTP port 99999"},
		{"no user", func(c *haproxy.Config) { c.CheckUser = "" }, "needs a user"},
		{"bad user", func(c *haproxy.Config) { c.CheckUser = "a b" }, "cannot hold spaces"},
		{"bad check", func(c *haproxy.Config) { c.Check = "ping" }, `unknown health check "ping"`},
		{"no servers", func(c *haproxy.Config) { c.Servers = nil }, "no server"},
		{"tiny timeout", func(c *haproxy.Config) { c.IdleTimeout = time.Microsecond }, "idle timeout"},
		{"bind beyond IPv4", func(c *haproxy.Config) { c.Bind = "999.1.1.1" }, `bind address "999.1.1.1" is neither an IP address nor a host name`},
		{"bind of three numbers", func(c *haproxy.Config) { c.Bind = "10.0.1" }, "neither an IP address nor a host name"},
		{"bind with a bad label", func(c *haproxy.Config) { c.Bind = "lb_1.example" }, "neither an IP address nor a host name"},
		{"bind with a port", func(c *haproxy.Config) { c.Bind = "10.0.0.1:5432" }, `bind address "10.0.0.1:5432" holds a port: give the address alone (--bind 10.0.0.1) and the port with --port 5432`},
		{"bind in brackets with a port", func(c *haproxy.Config) { c.Bind = "[::1]:15799" }, `bind address "[::1]:15799" holds a port: give the address alone (--bind ::1) and the port with --port 15799`},
		{"bind with an unclosed bracket", func(c *haproxy.Config) { c.Bind = "[::1" }, "neither an IP address nor a host name"},
		// HAProxy resolves a name when it starts, and refuses one it
		// cannot (.invalid never resolves: RFC 6761).
		{"bind of a name that does not resolve", func(c *haproxy.Config) { c.Bind = "notanip.invalid" }, `bind address "notanip.invalid" is not an IP address, and the host name does not resolve here`},
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	// Addresses HAProxy listens on: every interface, IPv4, IPv6, a name
	// that resolves.
	for _, bind := range []string{"", "*", "0.0.0.0", "10.0.0.5", "::", "::1", "fe80::1", "localhost"} {
		c := ok
		c.Bind = bind
		if err := c.Validate(); err != nil {
			t.Errorf("--bind %q: %v", bind, err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			c.Servers = append([]haproxy.Server(nil), ok.Servers...)
			tt.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
			var b strings.Builder
			if haproxy.Write(&b, c) == nil || b.Len() != 0 {
				t.Errorf("Write of an invalid config wrote %q", b.String())
			}
		})
	}
}

func TestString(t *testing.T) {
	c := haproxy.Config{Servers: three()[:2], Bind: "127.0.0.1", Port: 6432, CheckUser: "app"}
	want := "HAProxy on 127.0.0.1:6432 in front of 2 nodes (127.0.0.1:5432, 127.0.0.1:5433), round robin, health check pgsql as app"
	if c.String() != want {
		t.Errorf("got  %q\nwant %q", c, want)
	}
	c = haproxy.Config{Servers: three()[:1], Port: 26257, Check: haproxy.CheckCockroach}
	want = "HAProxy on *:26257 in front of 1 node (127.0.0.1:5432), round robin, health check cockroach (GET /health?ready=1 on port 8080)"
	if c.String() != want {
		t.Errorf("got  %q\nwant %q", c, want)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	c := haproxy.Config{Servers: three(), Port: 5432, CheckUser: "postgres"}
	path := filepath.Join(dir, "haproxy.cfg")
	if err := haproxy.WriteFile(path, false, c); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	c.Port = 6000
	if err := haproxy.WriteFile(path, false, c); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwrite without force: %v", err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Fatal("the existing file changed")
	}
	if err := haproxy.WriteFile(path, true, c); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !strings.Contains(string(again), "bind :6000") {
		t.Fatalf("--force did not replace the file:\n%s", again)
	}
	if err := haproxy.WriteFile(filepath.Join(dir, "missing", "h.cfg"), false, c); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing directory: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left files behind: %v", entries)
	}
}
