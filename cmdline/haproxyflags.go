package cmdline

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/haproxy"
)

// CheckHAProxyFlags refuses the flags of gen haproxy that would do nothing:
// a zero --maxconn or interval (which the configuration's defaults would
// replace without a word), --http-port without the cockroach check that
// uses it, --check-user without the pgsql check.
func CheckHAProxyFlags(fs *pflag.FlagSet, c haproxy.Config) error {
	if fs.Changed("maxconn") && c.MaxConn == 0 {
		return usagef("gen haproxy: --maxconn 0: HAProxy needs a limit of at least 1 connection (leave --maxconn out for %d)", haproxy.DefaultMaxConn)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
		def  time.Duration
	}{{"idle-timeout", c.IdleTimeout, haproxy.DefaultIdleTimeout}, {"connect-timeout", c.ConnectTimeout, haproxy.DefaultConnectTimeout}, {"check-interval", c.CheckInterval, haproxy.DefaultCheckInterval}} {
		if fs.Changed(d.name) && d.v == 0 {
			return usagef("gen haproxy: --%s 0s: give at least 1ms (leave --%s out for %v)", d.name, d.name, d.def)
		}
	}
	if fs.Changed("http-port") && (c.HTTPPort < 1 || c.HTTPPort > 65535) {
		// 0 would be taken for the default, 8080, without a word.
		return usagef("gen haproxy: --http-port %d: give the nodes' HTTP port, from 1 to 65535 (leave --http-port out for %d)", c.HTTPPort, haproxy.DefaultCockroachHTTPPort)
	}
	if fs.Changed("http-port") && c.Check != haproxy.CheckCockroach {
		return usagef("gen haproxy: --http-port is the port of --check cockroach's health check, and --check %s does not use it: give --check cockroach, or leave --http-port out", c.Check)
	}
	if fs.Changed("check-user") && c.Check != haproxy.CheckPostgres {
		return usagef("gen haproxy: --check-user is the user --check pgsql's health check logs in as, and --check %s logs in as no one: give --check pgsql, or leave --check-user out", c.Check)
	}
	return nil
}

// HAProxyConfig completes c, read from gen haproxy's flags fs, with the
// nodes of the URLs args (haproxy.Servers): the health check's user and
// the port default to the URLs', and the whole is checked
// (CheckHAProxyFlags, Config.Validate). Its errors are usage errors.
func HAProxyConfig(fs *pflag.FlagSet, c *haproxy.Config, args []string) error {
	servers, user, err := haproxy.Servers(args)
	if err != nil {
		return usagef("gen haproxy: %v", err)
	}
	c.Servers = servers
	if c.CheckUser == "" {
		c.CheckUser = user
	}
	if !fs.Changed("port") {
		c.Port = servers[0].Port()
	}
	if err := CheckHAProxyFlags(fs, *c); err != nil {
		return err
	}
	if c.Check == haproxy.CheckPostgres && c.CheckUser == "" {
		return usagef("gen haproxy: the URLs connect as different users: give the one the health check logs in as with --check-user")
	}
	if err := c.Validate(); err != nil {
		return usagef("gen haproxy: %v", err)
	}
	return nil
}
