// Package datadiff compares the data of two database nodes without moving
// their rows: `stampede diff`.
//
// For each table it reads the columns and primary key of both sides and
// compares their shapes. Then each server computes, per range of the
// primary key, the number of rows and the sum of a 64-bit hash of each
// row; only these figures cross the network:
//
//   - A table whose key leads with integers is read in one scan per side,
//     its rows grouped by the leading key columns and the next one divided
//     by a step chosen from a sample of keys, so that each group, a key
//     range, holds about [Options.LeafRows] rows. A sequential scan costs
//     about a quarter of index scans of the same rows.
//   - Other tables are cut at keys sampled on side A into ranges of about
//     [Options.RangeRows] rows, each hashed by an index scan; a range that
//     differs is cut again, into 16 at keys numbered by a window function
//     on the server, down to LeafRows rows.
//
// The rows of a range of at most LeafRows rows that differs are fetched from
// both sides and compared column by column, in the client, in memory
// bounded by LeafRows. Ranges are expressed as equalities on leading key
// columns and a range on the next one (see tableSQL.arms), which a B-tree
// scans exactly; bounds travel as text, so a key read on one server binds
// on the other.
//
// Every side reads one instant: its connections share one snapshot, as its
// dialect provides it (a REPEATABLE READ snapshot that the first
// transaction exports and the others import on PostgreSQL; AS OF SYSTEM
// TIME at one cluster timestamp on CockroachDB; see [dialect.Differ]).
// Tables and ranges are checked on [Options.Conns] connections a side in
// parallel.
//
// The row hash is the dialects' canonical one, an MD5 of a text form of the
// row that PostgreSQL and CockroachDB produce identically, unless both sides
// offer the same cheaper native hash for the table's types
// (hash_record_extended on PostgreSQL 14 and later).
//
// With [Options.Converge], the ranges that differ are checked again, each
// time in new snapshots, until they are equal or the time is up: the time
// they took to become equal, run during or right after a workload, is the
// replication lag.
package datadiff
