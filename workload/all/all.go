// Package all registers every workload stampede ships by importing each
// workload package for its side effect. Later workloads are added here, one
// blank import each.
package all

import (
	// ycsb registers the YCSB core workloads A-F.
	_ "github.com/stampede-bench/stampede/workload/ycsb"
)
