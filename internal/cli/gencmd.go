package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/haproxy"
)

func (a *app) genCmd() *cobra.Command {
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate configuration for what surrounds a benchmark (gen haproxy, gen k8s)",
		Example: `  stampede gen haproxy --port 26000 'postgresql://postgres@10.0.0.1:5432/bench' 'postgresql://postgres@10.0.0.2:5432/bench'
  stampede gen k8s --name ycsb-a --clients 8 --image registry.example.com/stampede:0.1 --password-secret bench-password -- run ycsb --workload a --duration 10m 'postgresql://bench@pg-lb:5432/ycsb'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown generator %q: use `stampede gen haproxy` or `stampede gen k8s`", args[0])
			}
			return cmd.Help()
		},
	}
	gen.AddCommand(a.genHAProxyCmd(), cmdline.GenK8sCommand(a.env(), func(args []string, stderr io.Writer) int {
		return MainContext(context.Background(), args, io.Discard, stderr)
	}))
	return gen
}

func (a *app) genHAProxyCmd() *cobra.Command {
	var c haproxy.Config
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "haproxy URL...",
		Short: "Write an HAProxy configuration that balances connections over the given nodes",
		Long: `gen haproxy writes an HAProxy configuration for the nodes named by the URLs (one
node per host; postgresql://h1,h2/db names two), as ` + "`cockroach gen haproxy`" + ` does for
a CockroachDB cluster: HAProxy listens on --port and hands each new connection to
the next node in turn (round robin), skipping nodes that fail their health check:
  --check pgsql      a PostgreSQL startup message as the URLs' user (option pgsql-check)
  --check cockroach  CockroachDB's GET /health?ready=1 on each node's --http-port
  --check tcp        a TCP connection to the SQL port
Idle timeouts are long (--idle-timeout 1h), for statements that keep a connection
silent for minutes; a node marked down has its connections closed, so clients
reconnect to the others. No password is written. The file is --out (default
haproxy.cfg; - for stdout); an existing file is replaced only with --force.`,
		Example: `  stampede gen haproxy --port 26000 'postgresql://postgres@10.0.0.1:5432/bench' 'postgresql://postgres@10.0.0.2:5432/bench'
  haproxy -f haproxy.cfg
  stampede run ycsb --workload a --tolerate-errors 'postgresql://postgres@LB-HOST:26000/bench'

  stampede gen haproxy --check cockroach --out - 'postgresql://root@roach1:26257/defaultdb' 'postgresql://root@roach2:26257/defaultdb'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdline.HAProxyConfig(cmd.Flags(), &c, args); err != nil {
				return err
			}
			if out == "-" {
				return haproxy.Write(a.stdout, c)
			}
			if err := haproxy.WriteFile(out, force, c); err != nil {
				return cmdline.OutFileError("gen haproxy", out, err)
			}
			fmt.Fprintf(a.stdout, "wrote %s: %s\nstart it with: haproxy -f %s\n", out, c, out)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&out, "out", "o", "haproxy.cfg", "file to write (- for stdout)")
	fs.BoolVar(&force, "force", false, "replace --out if it exists")
	fs.IntVar(&c.Port, "port", 0, "port HAProxy listens on (default: the first node's port)")
	fs.StringVar(&c.Bind, "bind", "", "address HAProxy listens on (default: every interface)")
	fs.StringVar((*string)(&c.Check), "check", string(haproxy.CheckPostgres), "health check: pgsql, cockroach or tcp")
	fs.StringVar(&c.CheckUser, "check-user", "", "user the pgsql health check logs in as (default: the URLs' user)")
	fs.IntVar(&c.HTTPPort, "http-port", haproxy.DefaultCockroachHTTPPort, "the nodes' HTTP port, for --check cockroach")
	fs.IntVar(&c.MaxConn, "maxconn", haproxy.DefaultMaxConn, "HAProxy's limit on concurrent connections")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", haproxy.DefaultIdleTimeout, "how long a connection may stay silent (timeout client/server): longer than the longest statement")
	fs.DurationVar(&c.ConnectTimeout, "connect-timeout", haproxy.DefaultConnectTimeout, "how long HAProxy waits for a node to accept a connection")
	fs.DurationVar(&c.CheckInterval, "check-interval", haproxy.DefaultCheckInterval, "time between two health checks of a node (2 failed checks mark it down)")
	fs.IntVar(&c.StatsPort, "stats-port", 0, "also serve HAProxy's statistics page on this port")
	return cmd
}
