// Command stampede is a load generator and benchmark lab for SQL databases.
// See README.md, or run `stampede --help`.
package main

import (
	"os"
	"path/filepath"

	"github.com/stampede-bench/stampede/internal/cli"
	"github.com/stampede-bench/stampede/internal/gcpace"
)

func main() {
	// The command line's set-up (every command's flags, a run's
	// connections and histograms) collects no garbage until it has
	// allocated 64 MiB or a run paces its own collections: two to three
	// collections of a small heap were a tenth of a short run's CPU.
	gcpace.Hold(gcpace.DefaultHeadroom)
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "pgbench" {
		// Installed as pgbench (a link to stampede): pgbench's command line.
		args = append([]string{"pgbench"}, args...)
	}
	os.Exit(cli.Main(args, os.Stdout, os.Stderr))
}
