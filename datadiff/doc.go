// Package datadiff compares the data of two database nodes without moving
// their rows: `stampede diff`.
//
// For each table it reads the columns and primary key of both sides and
// compares their shapes; then it splits the primary key's span into ranges
// (boundaries sampled on side A, about [Options.RangeRows] rows each) and
// has each server compute, per range, the number of rows and the sum of a
// 64-bit hash of each row. Only these two figures cross the network. A range
// whose figures differ is split again (into 16, at keys numbered by a window
// function on the server) down to ranges of at most [Options.LeafRows] rows,
// whose rows are then fetched from both sides and compared column by
// column, in the client, in memory bounded by LeafRows.
//
// Every side reads one instant: its connections share one snapshot, as its
// dialect provides it (a REPEATABLE READ snapshot that the first
// transaction exports and the others import on PostgreSQL; AS OF SYSTEM
// TIME at one cluster timestamp on CockroachDB; see [dialect.Differ]).
// Ranges are checked on [Options.Conns] connections a side in parallel.
//
// The row hash is the dialects' canonical one, an MD5 of a text form of the
// row that PostgreSQL and CockroachDB produce identically, unless both sides
// offer the same cheaper native hash for the table's types
// (hash_record_extended on PostgreSQL 14 and later, about four times
// cheaper).
//
// With [Options.Converge], the ranges that differ are checked again, each
// time in new snapshots, until they are equal or the time is up: the time
// they took to become equal, run during or right after a workload, is the
// replication lag.
package datadiff
