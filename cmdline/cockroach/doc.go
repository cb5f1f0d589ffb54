// Package cockroach turns `cockroach workload` command lines into what
// package run takes. `stampede workload init|run|check W [flags] [URL...]`
// takes a line pasted from cockroach (the word `workload` kept) with
// cockroach's defaults and meanings: ycsb's workload B, --concurrency of
// 2 per CPU, tpcc's 10 workers per warehouse and --wait as a factor, its
// foreign keys on, --max-rate as a limiter whose latency is service time,
// --drop dropping the database, and no URL meaning
// postgresql://root@localhost:26257?sslmode=disable. Every cockroach flag
// is either honoured or refused in one line that says why; none is
// ignored. The run prints as cockroach prints (output.Cockroach).
//
// CockroachDB's own features go through package dialect (range splits
// and scatter, IMPORT INTO, AS OF SYSTEM TIME) or the workloads'
// SetColumnFamilies (column families, set once the server is known to be
// CockroachDB); on a server without them the flag says so in one line,
// and the run goes on where it makes sense without it.
package cockroach
