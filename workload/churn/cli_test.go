package churn_test

import "github.com/stampede-bench/stampede/internal/cli"

// cliMain is stampede's command line.
var cliMain = cli.Main
