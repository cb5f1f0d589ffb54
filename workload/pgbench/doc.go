// Package pgbench is pgbench's initialisation (`pgbench -i`) as a stampede
// workload: `stampede init pgbench --scale 5 URL` builds what
// `pgbench -i -s 5` builds, reimplemented from pgbench 15's behaviour
// (its statements, as the server logs them, and its data), not translated
// from its sources.
//
// # Tables and data
//
// pgbench_branches (1 row per scale), pgbench_tellers (10), pgbench_accounts
// (100,000) and pgbench_history (empty), with pgbench 15's columns, in its
// order and of its types (aid is bigint from scale 20,000 on, in
// pgbench_accounts and pgbench_history), WITH (fillfactor=F) on all but
// pgbench_history, every balance 0, the filler NULL in branches and tellers
// and blank-padded empty in accounts. Branch b has tellers 10(b-1)+1..10b
// and accounts 100,000(b-1)+1..100,000b.
//
// # Steps
//
// --init-steps takes pgbench's -I letters: d (drop the tables first, under
// stampede's ownership rule: only what stampede made, unless
// --force-drop), t (create), g (data sent by the client: in one transaction
// that truncates the tables, the branches and tellers inserted and the
// accounts copied in pgbench's text rows WITH (FREEZE), as pgbench does;
// measured faster than stampede's parallel binary COPY streams followed by
// a vacuum that must then visit every page), G (data made by the server, pgbench's INSERT ...
// SELECT generate_series), v (VACUUM ANALYZE), p (primary keys), f (foreign
// keys). Steps run in the order given; stampede creates the tables itself,
// so t is required and only d may come before it, each letter at most once,
// and g and G exclude each other.
//
// # Check
//
// `stampede check pgbench` checks the row counts of the scale and the
// invariant of pgbench's tpcb-like transactions: the sums of abalance,
// bbalance, tbalance and pgbench_history's delta are equal.
package pgbench
