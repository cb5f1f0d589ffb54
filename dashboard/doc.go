// Package dashboard serves saved and live runs to a web browser: the
// handler behind `stampede serve`. It reads the run directories under a
// results directory and, when there is one, the results store, and writes
// to neither: every figure it serves is computed by the functions
// `stampede report`, `runs` and `compare` use (results.Recompute,
// results.TimeSeries, results.Compare, store.Load), never by a second
// implementation of the numbers.
//
// # JSON endpoints
//
//	GET /api/runs                      the runs: filters workload, tag (key=value, repeatable),
//	                                   since, until, status, group; sort; page, per_page
//	GET /api/runs/{id}                 a run's header and its report (= report --format json, with
//	                                   the workload's series over the run: churn's size, tables alive)
//	GET /api/runs/{id}/series          per interval and operation: throughput, p50/p95/p99/max, errors
//	GET /api/runs/{id}/window          ?from=&to= (or include_ramp=1): report --from --to
//	GET /api/runs/{id}/telemetry       the telemetry samples: CPU, memory, disks, watched processes
//	                                   (CPU, IO, RSS), the limits' cgroup counters
//	GET /api/runs/{id}/live            server-sent events: each interval as the run log grows, then "end"
//	GET /api/runs/{id}/files/{name}    downloads: intervals.hlog, summary.json, series.csv
//	GET /api/compare?run=A&run=B...    compare of each run with the first (compare --format json)
//	GET /api/compare?a=A1&a=A2&b=B1&b=B2 (or a_tag=, b_tag=)    two groups judged over runs (compare A1,A2 B1,B2 --format json)
//	GET /api/merge?tag=job=NAME        a job's clients merged (report --tag job=NAME --format json),
//	                                   with each client's total and share
//	GET /api/sweeps/{id}               a sweep's steps from their runs, judged again under its SLO,
//	                                   with its answer (as sweep --format json); a grid's
//	                                   cells, each its runs' medians
//
// The same page is also saved whole, with the answers of its requests
// embedded, as the interactive chart of `report --chart x.html` and
// `compare --chart x.html` (WriteStatic).
//
// Errors are JSON objects {"error": "..."}: 404 for a run that does not
// exist or whose directory is gone, 400 for bad parameters. No response
// holds a password: every string served goes through redact.Text, and
// the command line, flags and tags through the redaction `run` applies.
//
// Everything under / that is not /api/ is the front end, embedded in the
// binary (see assets/README.md).
package dashboard
