package cli

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/proxy"
)

func (a *app) proxyCmd() *cobra.Command {
	var listens []string
	var to, api string
	var procs int
	cmd := &cobra.Command{
		Use:   "proxy --listen ADDR --to ADDR [faults] | --listen ADDR=UPSTREAM[,FAULT=VALUE...]...",
		Short: "Run TCP proxies that add latency, bandwidth limits, resets and stalls (simulated regions and faults)",
		Long: `proxy forwards connections from each --listen address to a server, adding faults:
a region's latency (--latency, --jitter), a thin link (--bandwidth), connection resets
(--reset, --reset-after, --reset-fraction), a partition (--stall, --stall-timeout) or a
node that went away (--down). The proxying and the faults are Shopify's toxiproxy,
embedded. Latency is added to every round trip: a query through a 30ms proxy takes
30ms more.

One listener: --listen ADDR --to ADDR, with the fault flags. Several: repeat
--listen LISTEN=UPSTREAM, each optionally followed by ,FAULT=VALUE pairs (the fault
flags' names, and name=NAME) that override the fault flags for that listener. A bare
port listens on 127.0.0.1.

While it runs, faults change through a small HTTP API on --api (default
127.0.0.1:8474; "off" for none):
  GET   /listeners                 the listeners and their faults (JSON)
  PUT   /listeners/NAME/faults     replace a listener's faults: {"latency": "60ms"}
  PATCH /listeners/NAME/faults     change only the faults given
or with ` + "`stampede proxy set NAME --latency 60ms`" + `. Faults apply to open connections too.
Ctrl-C stops it and closes every connection.`,
		Example: `  # one server 30ms away
  stampede proxy --listen 127.0.0.1:6001 --to 127.0.0.1:5432 --latency 30ms --jitter 5ms

  # three regions in front of three local servers
  stampede proxy --listen 6001=127.0.0.1:5432,name=east,latency=1ms \
                 --listen 6002=127.0.0.1:5433,name=central,latency=30ms \
                 --listen 6003=127.0.0.1:5434,name=west,latency=60ms
  stampede run ycsb --tolerate-errors postgresql://postgres@127.0.0.1:6001/ycsb \
      postgresql://postgres@127.0.0.1:6002/ycsb postgresql://postgres@127.0.0.1:6003/ycsb
  stampede proxy set west --stall                # partition the west region
  curl -X PATCH -d '{"stall": false}' http://127.0.0.1:8474/listeners/west/faults`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			defaults, _, err := proxy.FromFlags(cmd.Flags(), proxy.Faults{})
			if err != nil {
				return usagef("proxy: %v", err)
			}
			specs, err := proxy.ParseListeners(listens, to, defaults)
			if err != nil {
				return usagef("proxy: %v", err)
			}
			for _, l := range specs {
				if w := proxy.DownWarning(cmp.Or(l.Name, l.Listen), l.Faults, api); w != "" {
					fmt.Fprintf(a.stderr, "warning: %s\n", w)
				}
			}
			if procs < 0 {
				return usagef("proxy: --procs %d: give 1 or more (0 leaves Go's default)", procs)
			}
			if procs > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			}
			err = proxy.Run(cmd.Context(), specs, api, a.stdout, a.stderr)
			if errors.Is(err, proxy.ErrSetup) {
				return asUsage(err)
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&listens, "listen", nil, "address to accept connections on, or LISTEN=UPSTREAM[,FAULT=VALUE...] (repeat for several)")
	fs.StringVar(&to, "to", "", "the server's host:port, with a single --listen ADDR")
	fs.StringVar(&api, "api", proxy.DefaultAPI, `address of the HTTP API that changes faults while running ("off" for none)`)
	fs.IntVar(&procs, "procs", 1, "threads running proxy code at once (GOMAXPROCS; 0: one per CPU): 1 costs the least CPU per query on a machine shared with client and server")
	proxy.AddFlags(fs)
	cmd.AddCommand(a.proxySetCmd())
	return cmd
}

func (a *app) proxySetCmd() *cobra.Command {
	var api string
	var replace bool
	cmd := &cobra.Command{
		Use:   "set NAME [faults]",
		Short: "Change the faults of a running proxy's listener",
		Long: `set changes the faults of the listener NAME of a running ` + "`stampede proxy`" + ` through its
API: the fault flags given change, the others stay (with --replace, the others are
cleared). With no fault flag it prints the listener. Open connections get the new
faults at once.`,
		Example: `  stampede proxy set west --latency 120ms --jitter 10ms
  stampede proxy set east --reset --reset-fraction 0.5
  stampede proxy set east --replace             # clear every fault`,
		Args: cmdline.Positional(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := proxy.Change(cmd.Context(), api, args[0], cmd.Flags(), replace, func(w string) { fmt.Fprintf(a.stderr, "warning: %s\n", w) })
			if errors.Is(err, proxy.ErrSetup) {
				return asUsage(err)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "listener %s: %s -> %s, faults %s\n", l.Name, l.Listen, l.To, l.Faults)
			return nil
		},
	}
	cmd.Flags().StringVar(&api, "api", proxy.DefaultAPI, "the proxy's API address")
	cmd.Flags().BoolVar(&replace, "replace", false, "clear the faults not given")
	proxy.AddFlags(cmd.Flags())
	return cmd
}
