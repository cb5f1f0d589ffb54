// Package all registers every workload stampede ships by importing each
// workload package for its side effect. Later workloads are added here, one
// blank import each.
package all

import (
	// bank registers the bank transfer workload (after cockroach workload bank).
	_ "github.com/stampede-bench/stampede/workload/bank"
	// churn registers churn, schema churn with fake data (issue 32).
	_ "github.com/stampede-bench/stampede/workload/churn"
	// lambda registers the IoT lambda-architecture data path.
	_ "github.com/stampede-bench/stampede/workload/lambda"
	// pgbench registers pgbench's tables and data (pgbench -i).
	_ "github.com/stampede-bench/stampede/workload/pgbench"
	// sysbench registers the sysbench 1.0.20 OLTP scripts (oltp_read_write...).
	_ "github.com/stampede-bench/stampede/workload/sysbench"
	// tpcc registers the TPC-C benchmark (after cockroach workload tpcc).
	_ "github.com/stampede-bench/stampede/workload/tpcc"
	// sqlscript registers sql, users' own scripts in pgbench's script language.
	_ "github.com/stampede-bench/stampede/workload/sqlscript"
	// ycsb registers the YCSB core workloads A-F.
	_ "github.com/stampede-bench/stampede/workload/ycsb"
)
