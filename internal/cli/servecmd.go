package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// serveFlags are the flags of `stampede serve`.
type serveFlags struct {
	listen     string
	resultsDir string
	resultsURL string
}

// serveCmd is `stampede serve`: the web dashboard.
func (a *app) serveCmd() *cobra.Command {
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Show saved and live runs in a web browser",
		Long: `serve starts a web dashboard over the run directories of the results directory and
the results store: the runs (filtered, sorted, paged; select several to compare
them), each run's figures (those of ` + "`stampede report`" + `) and charts over time (zoom
to a window to recompute its figures exactly, as report --from --to does), a run
in progress as it runs, and comparisons (` + "`stampede compare`" + `'s table). It only
reads: no run directory and no store is ever written. The page works with no
network: everything it needs is in the binary.

It listens on 127.0.0.1:8080 unless --listen says otherwise; an address other than
a loopback one is allowed, with a warning: the results are then visible to the
network. The JSON it serves is described in the dashboard package (/api/runs,
/api/runs/ID, .../series, .../window?from=&to=, .../telemetry, .../live,
.../files/NAME, /api/compare?run=A&run=B).

Exit status: 0 when stopped (Ctrl-C), 2 for a command line error, including an
address that is malformed or in use, and 1 when the store cannot be read.`,
		Example: `  stampede serve
  stampede serve --listen 127.0.0.1:9000 --results-dir /results
  stampede serve --results-url postgresql://bench@results-db/stampede`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serve(cmd.Context(), sf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&sf.listen, "listen", "127.0.0.1:8080", "address to listen on, HOST:PORT (not a loopback address: visible to the network)")
	fs.StringVar(&sf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&sf.resultsURL, "results-url", "", "results store: sqlite:PATH, postgres://... or postgresql://... (default $STAMPEDE_RESULTS_URL, or index.sqlite in the results directory)")
	return cmd
}

// serve runs `stampede serve` until ctx ends.
func (a *app) serve(ctx context.Context, sf serveFlags) error {
	root, err := resultsRoot(sf.resultsDir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) && (sf.resultsDir != "" || os.Getenv("STAMPEDE_RESULTS_DIR") != "") {
		return usagef("results directory %s does not exist: name the directory runs were saved in (run --results-dir), or leave --results-dir out for ~/.stampede/runs", root)
	} else if err == nil && !fi.IsDir() {
		return usagef("results directory %s is not a directory: name the directory runs were saved in (run --results-dir)", root)
	}
	url := run.StoreURL(root, sf.resultsURL)
	st, err := dashboard.OpenStore(ctx, url, url == store.DefaultURL(root))
	if err != nil {
		return err
	}
	cfg := dashboard.Config{Root: root, StoreName: sqlx.Redact(url)}
	if st != nil {
		defer st.Close()
		cfg.Store = st
	}
	srv := dashboard.New(cfg)
	if err := srv.Warm(ctx); err != nil {
		fmt.Fprintf(a.stderr, "warning: cannot read the results store %s (%s): listing the run directories of %s\n", cfg.StoreName, oneLine(err.Error()), root)
	}
	ln, warning, err := dashboard.Listen(sf.listen)
	if errors.Is(err, dashboard.ErrListen) {
		return asUsage(err)
	}
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintf(a.stderr, "warning: %s\n", warning)
	}
	fmt.Fprintf(a.stderr, "serving the runs of %s at http://%s/ (Ctrl-C stops it)\n", root, ln.Addr())
	return dashboard.Serve(ctx, ln, srv)
}
