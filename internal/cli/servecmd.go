package cli

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/run"
)

// serveCmd is `stampede serve`: the web dashboard (package dashboard).
func (a *app) serveCmd() *cobra.Command {
	var dir, url string
	o := dashboard.Options{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Show saved and live runs in a web browser",
		Long: `serve starts a web dashboard (see the README) over the run directories and the
results store, which it only reads, on 127.0.0.1:8080 unless --listen says otherwise
(another address than a loopback one warns: the results are then visible to the
network). Exit status: 0 when stopped (Ctrl-C), 2 for a command line error, including
an address that is malformed or in use, and 1 when the store cannot be read.

The JSON API's endpoints ({id}: a run ID or a unique prefix of one):
  ` + strings.Join(dashboard.Endpoints(), "\n  "),
		Example: `  stampede serve
  stampede serve --listen 127.0.0.1:9000 --results-dir /results`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Root, err = resultsRoot(dir, url); err != nil {
				return err
			}
			o.Named, o.StoreURL = dir != "" || os.Getenv("STAMPEDE_RESULTS_DIR") != "", run.StoreURL(o.Root, url)
			o.DefaultStore = o.StoreURL == store.DefaultURL(o.Root)
			err = dashboard.Start(cmd.Context(), o, a.stderr)
			if errors.Is(err, dashboard.ErrListen) || errors.Is(err, dashboard.ErrInput) {
				return asUsage(err)
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:8080", "address to listen on, HOST:PORT (not a loopback address: visible to the network; port 0: a free one, which serve says)")
	fs.StringVar(&dir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&url, "results-url", "", "results store: sqlite:PATH, postgres://... or postgresql://... (default $STAMPEDE_RESULTS_URL, or index.sqlite in the results directory)")
	return cmd
}
