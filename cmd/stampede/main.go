// Command stampede is a load generator and benchmark lab for SQL databases.
// See README.md, or run `stampede --help`.
package main

import (
	"os"

	"github.com/stampede-bench/stampede/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
