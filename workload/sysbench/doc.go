// Package sysbench is the OLTP family of sysbench 1.0.20's Lua scripts as
// stampede workloads, one per script and under the script's name:
// oltp_point_select, oltp_read_only, oltp_read_write, oltp_write_only,
// oltp_insert, oltp_delete, oltp_update_index, oltp_update_non_index,
// bulk_insert, select_random_points and select_random_ranges.
//
// The semantics are reimplemented from the scripts (oltp_common.lua and
// friends) and sysbench's C sources, not translated from them.
//
// # Options
//
// Each workload has its script's options, with sysbench's underscore
// spelling and defaults (--tables=1, --table_size=10000,
// --point_selects=10, ..., --range_selects, --skip_trx, --auto_inc,
// --secondary, --create_secondary; booleans also take on and off), plus
// sysbench's random-number options (--rand-type=special, --rand-spec-iter,
// --rand-spec-pct, --rand-spec-res, --rand-pareto-h, and --rand-zipfian-exp
// of sysbench 1.1). bulk_insert has none. The run options (--threads,
// --time, --events, --rate, --rand-seed...) belong to the CLI.
//
// # Tables and data
//
// The OLTP tables are sbtest1..sbtestN as sysbench's pgsql driver creates
// them, but for the primary key, built once after the load instead of row
// by row (a quarter faster):
//
//	CREATE TABLE sbtest1 (id SERIAL, k INTEGER DEFAULT '0' NOT NULL,
//	    c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)
//	-- the load (COPY), then:
//	ALTER TABLE sbtest1 ADD PRIMARY KEY (id)
//	CREATE INDEX k_1 ON sbtest1(k)
//
// With --auto_inc=off id is INTEGER NOT NULL; with --secondary a
// non-unique index xid_N on id replaces the primary key; with
// --create_secondary=off there is no k_N.
//
// Rows have ids 1..table_size, k drawn from the --rand-type distribution
// over [1, table_size] (so the --rand-* options shape the data, as in
// sysbench's prepare), c of 10 and pad of 5 groups of 11 random digits
// joined by dashes (119 and 59 characters). Batch b of table n draws from
// the stream (init --seed, n<<32 | b). After the load, each SERIAL
// sequence is moved past the loaded ids.
//
// # Operations
//
// QueryLoad.Ops[0] is "transaction": one sysbench event, what sysbench
// counts as a transaction. The other operations are the statement kinds
// the script prepares, in this order, each workload listing only its own:
// point_select, simple_range, sum_range, order_range, distinct_range,
// random_points, random_ranges (ClassRead), index_update,
// non_index_update, delete, insert (ClassWrite), begin, commit
// (ClassOther), then index_update/no_rows, non_index_update/no_rows and
// delete/no_rows (ClassOther): the UPDATEs and DELETEs that changed no
// row, which sysbench's pgsql driver counts as other queries, not
// writes (it classes a statement by its result: rows returned, a read;
// rows affected, a write; else other). Every call of a Worker runs one event, statement by
// statement as the script does, recording each statement's latency
// through the worker's Recorder; tables are drawn uniformly per group of
// statements (get_table_num) and ids from --rand-type over [1,
// table_size] (get_id).
//
// On a connection that sends statements as text
// (sqlx.Options.TextStatements, sysbench's --db-ps-mode=disable), the
// parameters are written into each statement, as sysbench's emulation of
// prepared statements does. bulk_insert's rows left when a worker stops
// go in one last INSERT from QueryLoad.Detach, counted as a write as
// sysbench's thread_done counts it.
//
// # Errors
//
// As sysbench's pgsql driver, a deadlock (40P01), serialization failure
// (40001) or unique violation (23505) rolls the transaction back, counts
// an error of the transaction (Recorder.RecordError(0)) and restarts the
// event; so does a lost connection, which the next statement
// re-establishes. An event gives up after 100 restarts, or after 5
// consecutive connection losses (with a backoff), returning the error;
// any other error is returned at once.
//
// # Determinism
//
// Worker w draws from the stream (run --seed, 1<<63 | w). With one
// worker, a seed determines the statements and their arguments; with
// several, only each worker's own sequence is (which rows exist when
// depends on the interleaving).
package sysbench
