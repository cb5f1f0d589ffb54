// Command stampede is a load generator and benchmark lab for SQL databases.
// See README.md, or run `stampede --help`.
package main

import (
	"os"
	"path/filepath"

	"github.com/stampede-bench/stampede/internal/cli"
)

func main() {
	args := os.Args[1:]
	if filepath.Base(os.Args[0]) == "pgbench" {
		// Installed as pgbench (a link to stampede): pgbench's command line.
		args = append([]string{"pgbench"}, args...)
	}
	os.Exit(cli.Main(args, os.Stdout, os.Stderr))
}
