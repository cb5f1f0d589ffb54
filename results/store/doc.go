// Package store is stampede's serving layer: an index of runs, with each
// run's metadata and final figures, kept in an embedded SQLite file or in a
// PostgreSQL-compatible database (PostgreSQL, CockroachDB) so that runs can
// be listed and filtered without reading every run directory.
//
// The store holds nothing that is not derived from run directories: a row is
// the run's run.json plus the view package results recomputes from its
// intervals (default window: after the ramp-up, to the end). It can always
// be thrown away and rebuilt from the directories ([Store.Rebuild]), and
// indexing a run again replaces its rows ([Store.Index]).
//
// # Schema
//
// The tables are created when missing. Their names start with "stampede_"
// so that a store can share a database with other tables:
//
//	stampede_runs      one row per run: id (primary key), dir, workload,
//	                   start_ns and end_ns (Unix nanoseconds; end_ns NULL
//	                   while running), status, error, seed (decimal text),
//	                   concurrency, tags (JSON object), stampede_version,
//	                   seconds, intervals, and the total's count, errors,
//	                   ops_per_sec and p50/p95/p99/p99.9/max latencies (ms),
//	                   warnings (what recomputing could not read)
//	stampede_run_ops   one row per run and operation: run_id, op, count,
//	                   errors, ops_per_sec, mean, p50, p95, p99, p99.9, max
//	stampede_run_tags  one row per run and tag: run_id, key, value (for
//	                   queries of the store's own users; List selects by
//	                   tags with runlog.MatchTags, as report does)
//
// A PostgreSQL store also keeps the runs' files (stampede_run_files, see
// [Store.Ship]), written by runs as they go ([Store.ShipLive]), and, for
// each run so written, when its writer last wrote it by the store's clock
// (stampede_run_live): a run whose copy says "running" is read as killed
// once its writer has been silent for longer than [StaleAfter] its beat
// ([Live]), as a run directory is once no process holds its lock.
//
// The SQL is the same for both engines: numbered placeholders ($1), INSERT
// ... ON CONFLICT, BIGINT, DOUBLE PRECISION and TEXT columns.
package store
