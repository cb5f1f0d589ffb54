package dialect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// Differ is implemented by dialects whose servers `stampede diff` can
// compare: how several connections read one instant, how a table's columns
// and primary key are found, and how a row becomes a checksum computed on
// the server.
type Differ interface {
	// Snapshot returns how connections share one consistent instant.
	Snapshot() Snapshot
	// ImportSnapshot returns the statement that makes a transaction read
	// at the instant token (what Snapshot().Export returned); it is the
	// transaction's first statement. A token that is not of the
	// dialect's form is an error (tokens are spliced into SQL text).
	ImportSnapshot(token string) (string, error)
	// ColumnsQuery returns a query with two placeholders, the table's
	// schema ("" for the search path's) and name, both unquoted,
	// returning one row per
	// visible column in table order: name, type name without modifiers in
	// information_schema's spelling ("integer", "character varying",
	// "timestamp without time zone"), and the full type as the server
	// casts to it ("character(24)", "numeric(6,2)"). No row: no table.
	ColumnsQuery() string
	// PrimaryKeyQuery returns a query with ColumnsQuery's placeholders,
	// returning the primary key's column names in key order; no row
	// when the table has no primary key a user declared.
	PrimaryKeyQuery() string
	// CanonicalText returns an expression giving column col (already
	// quoted) of type t as text that every Differ dialect produces
	// identically for the same value: integers and text as themselves,
	// exact numerics without trailing fractional zeros, timestamps with
	// time zone in UTC, bytes in lower-case hex, CHAR without its padding.
	// NULL stays NULL.
	CanonicalText(col string, t Type) string
	// CanonicalRowHash returns a signed 64-bit integer expression hashing
	// the canonical texts of a row's columns (each an expression from
	// CanonicalText), identically on every Differ dialect: the first 64
	// bits of the MD5 of the columns, each written as its length in
	// characters, a colon and the text, or "-" when NULL.
	CanonicalRowHash(texts []string) string
	// NativeRowHash returns a cheaper signed 64-bit row hash over the
	// columns (quoted) of types ts, and a tag naming the hash: two servers
	// whose dialects return the same tag compute the same hash for the
	// same values. ok is false when the dialect has none for these types.
	NativeRowHash(cols []string, ts []Type) (expr, tag string, ok bool)
	// IdentityQuery returns a query giving one text value that is the
	// same for two connections exactly when they reach the same server
	// (or cluster) and database, however their URLs spell it.
	IdentityQuery() string
	// NativeHashProbe returns a query that fails on servers without the
	// native row hash (PostgreSQL before 14, for example).
	NativeHashProbe() string
	// KeySample returns a query giving, as text and in key order, sampled
	// primary keys (columns keys, quoted, of types ts) of table (quoted),
	// of which every stride-th is a range boundary so that ranges hold
	// about rowsPerRange rows.
	KeySample(table string, keys []string, ts []Type, rowsPerRange int) (query string, stride int)
	// TxSetup returns statements each transaction of a diff runs after
	// taking its snapshot: planner settings for its scans.
	TxSetup() []string
	// FloorDiv returns the integer expression expr divided by step,
	// rounded down (towards minus infinity, for negative keys too).
	FloorDiv(expr string, step int64) string
}

// Snapshot is how a dialect lets several connections read one instant.
type Snapshot struct {
	// Isolation is the isolation level of every transaction ("" for the
	// server's default).
	Isolation string
	// Export is the query returning the instant's token.
	Export string
	// ExportInTx runs Export inside the first transaction, whose snapshot
	// the others import (and which must stay open until they have); when
	// false Export runs on its own and every transaction imports.
	ExportInTx bool
	// Description says what the snapshot is, for people.
	Description string
}

// Type is a column's type as Differ sees it.
type Type struct {
	// Base is the type's name without modifiers, in information_schema's
	// spelling: "integer", "character varying", "numeric".
	Base string
	// Full is the type with its modifiers as the server casts to it:
	// "character(24)", "numeric(6,2)".
	Full string
}

// Family groups types whose values compare by the same canonical text:
// "int", "numeric", "float", "text", "char", "timestamp", "timestamptz",
// "date", "bool", "bytes", "uuid", "json", or the base name itself.
func (t Type) Family() string {
	switch strings.ToLower(t.Base) {
	case "smallint", "integer", "bigint", "int2", "int4", "int8":
		return "int"
	case "numeric", "decimal":
		return "numeric"
	case "real", "double precision", "float4", "float8":
		return "float"
	case "text", "character varying", "varchar", "string", "name":
		return "text"
	case "character", "bpchar", "char":
		return "char"
	case "timestamp without time zone", "timestamp":
		return "timestamp"
	case "timestamp with time zone", "timestamptz":
		return "timestamptz"
	case "date":
		return "date"
	case "boolean", "bool":
		return "bool"
	case "bytea", "bytes":
		return "bytes"
	case "uuid":
		return "uuid"
	case "json", "jsonb":
		return "json"
	}
	return strings.ToLower(t.Base)
}

// scaleRE finds the scale of a type such as numeric(6,2).
var scaleRE = lazyre.New(`\(\s*\d+\s*,\s*(\d+)\s*\)`)

// Scale returns the declared scale of an exact numeric type, -1 when none.
func (t Type) Scale() int {
	m := scaleRE().FindStringSubmatch(t.Full)
	if m == nil {
		return -1
	}
	s, _ := strconv.Atoi(m[1])
	return s
}

var (
	_ Differ = Postgres{}
	_ Differ = Cockroach{}
)

// pgSnapshotRE matches the identifiers pg_export_snapshot returns, such
// as 00000003-0000001B-1.
var pgSnapshotRE = lazyre.New(`^[0-9A-Fa-f]+(-[0-9A-Fa-f]+)+$`)

// Snapshot implements Differ: a read-only REPEATABLE READ transaction
// exports its snapshot (pg_export_snapshot) and the others import it.
func (Postgres) Snapshot() Snapshot {
	return Snapshot{Isolation: "repeatable read", Export: "SELECT pg_export_snapshot()", ExportInTx: true,
		Description: "REPEATABLE READ, one exported snapshot"}
}

// ImportSnapshot implements Differ: SET TRANSACTION SNAPSHOT 'token'.
func (Postgres) ImportSnapshot(token string) (string, error) {
	if !pgSnapshotRE().MatchString(token) {
		return "", fmt.Errorf("unexpected snapshot identifier %q", token)
	}
	return "SET TRANSACTION SNAPSHOT '" + token + "'", nil
}

// ColumnsQuery implements Differ, from pg_attribute.
func (Postgres) ColumnsQuery() string {
	return `SELECT a.attname::text, format_type(a.atttypid, NULL), format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a WHERE a.attrelid = ` + pgRegclass + ` AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`
}

// pgRegclass is the table of ColumnsQuery's placeholders, resolved as the
// statements resolve it.
const pgRegclass = `to_regclass(CASE WHEN CAST($1 AS TEXT) = '' THEN quote_ident($2) ELSE quote_ident($1) || '.' || quote_ident($2) END)`

// PrimaryKeyQuery implements Differ, from pg_index.
func (Postgres) PrimaryKeyQuery() string {
	return `SELECT a.attname::text FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
WHERE i.indrelid = ` + pgRegclass + ` AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`
}

// CanonicalText implements Differ.
func (Postgres) CanonicalText(col string, t Type) string { return canonicalText(col, t) }

// canonicalText is CanonicalText in the SQL PostgreSQL and CockroachDB
// share: CAST to TEXT, rtrim, strpos, encode and AT TIME ZONE exist in
// both with the same results for these types.
func canonicalText(col string, t Type) string {
	text := "CAST(" + col + " AS TEXT)"
	switch t.Family() {
	case "text":
		return text
	case "char":
		return "rtrim(" + text + ")"
	case "numeric":
		// 12.50 and 12.5 are the same number: drop trailing fractional
		// zeros, and the point when nothing follows it.
		return "CASE WHEN strpos(" + text + ", '.') > 0 THEN rtrim(rtrim(" + text + ", '0'), '.') ELSE " + text + " END"
	case "timestamptz":
		return "CAST((" + col + ") AT TIME ZONE 'UTC' AS TEXT)"
	case "bytes":
		return "encode(" + col + ", 'hex')"
	}
	return text
}

// CanonicalRowHash implements Differ.
func (Postgres) CanonicalRowHash(texts []string) string { return canonicalRowHash(texts) }

// canonicalRowHash is CanonicalRowHash in the SQL PostgreSQL and
// CockroachDB share: both read 'x' followed by hex digits as a bit
// string, and a BIT(64) as a two's complement INT8.
func canonicalRowHash(texts []string) string {
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = "COALESCE(CAST(length(" + t + ") AS TEXT) || ':' || " + t + ", '-')"
	}
	row := strings.Join(parts, " || ")
	if len(parts) == 0 {
		row = "''"
	}
	return "CAST(CAST('x' || substr(md5(" + row + "), 1, 16) AS BIT(64)) AS BIGINT)"
}

// pgHashable are the types whose hash functions hash_record_extended
// finds (each has a default hash operator class with an extended hash).
var pgHashable = map[string]bool{
	"int": true, "numeric": true, "float": true, "text": true, "char": true, "timestamp": true,
	"timestamptz": true, "date": true, "bool": true, "bytes": true, "uuid": true,
}

// pgHashFuncs are the extended hash functions (of hash partitioning and
// hash indexes) callable on a column of each type; other hashable types
// are hashed as one-column records.
var pgHashFuncs = map[string]string{
	"smallint": "hashint2extended", "integer": "hashint4extended", "bigint": "hashint8extended",
	"numeric": "hash_numeric_extended", "text": "hashtextextended", "character varying": "hashtextextended",
	"character": "hashbpcharextended", "timestamp without time zone": "timestamp_hash_extended",
	"double precision": "hashfloat8extended", "real": "hashfloat4extended", "uuid": "uuid_hash_extended",
}

// NativeRowHash implements Differ: the exclusive or of each column's hash
// by its type's own extended hash function, seeded with the column's
// position, without formatting anything as text. The functions are those
// hash partitioning relies on, which do not change between versions.
// Measured on 1,200,000 order lines: 0.28 s of server CPU, against 0.40 s
// for hash_record_extended of the row (which builds a record per row) and
// 1.3 s for the canonical MD5.
func (Postgres) NativeRowHash(cols []string, ts []Type) (string, string, bool) {
	terms := make([]string, len(cols))
	for i, t := range ts {
		if !pgHashable[t.Family()] {
			return "", "", false
		}
		seed := strconv.Itoa(i + 1)
		if f, ok := pgHashFuncs[strings.ToLower(t.Base)]; ok {
			terms[i] = "COALESCE(" + f + "(" + cols[i] + ", " + seed + "), 0)"
		} else {
			terms[i] = "hash_record_extended(ROW(" + cols[i] + "), " + seed + ")"
		}
	}
	if len(terms) == 0 {
		return "0", "postgres-column-hash-xor", true
	}
	return "(" + strings.Join(terms, " # ") + ")", "postgres-column-hash-xor", true
}

// IdentityQuery implements Differ: the server's start time (to the
// microsecond), port and the database.
func (Postgres) IdentityQuery() string {
	return "SELECT CAST(pg_postmaster_start_time() AS TEXT) || ' ' || COALESCE(CAST(inet_server_port() AS TEXT), '') || ' ' || current_database()"
}

// NativeHashProbe implements Differ.
func (Postgres) NativeHashProbe() string { return "SELECT hash_record_extended(ROW(1), 0)" }

// samplesPerRange is how many sampled keys make one range: boundaries are
// every samplesPerRange-th key of a sample of samplesPerRange keys per
// range, so that range sizes vary little.
const samplesPerRange = 32

// KeySample implements Differ: a BERNOULLI sample of the rows (every page
// read, few rows kept: 25 ms for 1,200,000 order lines), sorted.
func (Postgres) KeySample(table string, keys []string, ts []Type, rowsPerRange int) (string, int) {
	pct := 100 * float64(samplesPerRange) / float64(max(rowsPerRange, samplesPerRange))
	return "SELECT " + KeyTexts(keys) + " FROM " + table + " TABLESAMPLE BERNOULLI (" +
		strconv.FormatFloat(pct, 'f', -1, 64) + ") ORDER BY " + strings.Join(keys, ", "), samplesPerRange
}

// KeyTexts lists the columns cols (quoted) cast to text, each renamed
// stampede_k1, stampede_k2...: a cast column keeps the column's name, and
// an ORDER BY of the column would otherwise sort by the text (8746 after
// 78556).
func KeyTexts(cols []string) string {
	out := make([]string, len(cols))
	for i, k := range cols {
		out[i] = "CAST(" + k + " AS TEXT) AS stampede_k" + strconv.Itoa(i+1)
	}
	return strings.Join(out, ", ")
}

// TxSetup implements Differ. The planner cannot estimate how many groups
// a checksum by groups of key ranges makes (a division of a key column),
// guesses about a quarter of the rows, and then sorts the whole table
// (400,000 stock rows: 135 MB written to disk and 2.5 s) rather than
// hash the 44 groups: sorts are discouraged. JIT compilation costs about
// 0.2 s per scan, more than it saves on these.
func (Postgres) TxSetup() []string {
	return []string{"SET LOCAL jit = off", "SET LOCAL enable_sort = off", "SET LOCAL enable_incremental_sort = off"}
}

// FloorDiv implements Differ: PostgreSQL's integer division truncates
// towards zero, so negative values are shifted first.
func (Postgres) FloorDiv(expr string, step int64) string {
	st := strconv.FormatInt(step, 10)
	return "(CASE WHEN " + expr + " >= 0 THEN " + expr + " / " + st + " ELSE -((-(" + expr + " + 1)) / " + st + ") - 1 END)"
}

// crdbTimestampRE matches the HLC timestamps cluster_logical_timestamp
// returns, such as 1700000000000000000.0000000001.
var crdbTimestampRE = lazyre.New(`^[0-9]+(\.[0-9]+)?$`)

// Snapshot implements Differ: the cluster's current HLC timestamp, at which
// every transaction reads with AS OF SYSTEM TIME.
func (Cockroach) Snapshot() Snapshot {
	return Snapshot{Export: "SELECT CAST(cluster_logical_timestamp() AS STRING)",
		Description: "AS OF SYSTEM TIME, one cluster timestamp"}
}

// ImportSnapshot implements Differ: SET TRANSACTION AS OF SYSTEM TIME.
func (Cockroach) ImportSnapshot(token string) (string, error) {
	if !crdbTimestampRE().MatchString(token) {
		return "", fmt.Errorf("unexpected cluster timestamp %q", token)
	}
	return "SET TRANSACTION AS OF SYSTEM TIME " + token, nil
}

// ColumnsQuery implements Differ, from information_schema, leaving out
// hidden columns (the rowid of a table created without a primary key).
func (Cockroach) ColumnsQuery() string {
	return `SELECT column_name, data_type, crdb_sql_type FROM information_schema.columns
WHERE table_schema = ` + crdbSchema + ` AND table_name = $2 AND is_hidden = 'NO' ORDER BY ordinal_position`
}

// crdbSchema is the schema of ColumnsQuery's placeholders.
const crdbSchema = `CASE WHEN CAST($1 AS STRING) = '' THEN current_schema() ELSE $1 END`

// PrimaryKeyQuery implements Differ. A table created without a primary
// key has one on its hidden rowid, which is no key of the data: no row.
func (Cockroach) PrimaryKeyQuery() string {
	return `SELECT k.column_name FROM information_schema.key_column_usage k
JOIN information_schema.table_constraints c ON c.constraint_schema = k.constraint_schema AND c.constraint_name = k.constraint_name AND c.table_name = k.table_name
JOIN information_schema.columns col ON col.table_schema = k.table_schema AND col.table_name = k.table_name AND col.column_name = k.column_name
WHERE c.constraint_type = 'PRIMARY KEY' AND k.table_schema = ` + crdbSchema + ` AND k.table_name = $2 AND col.is_hidden = 'NO'
ORDER BY k.ordinal_position`
}

// CanonicalText implements Differ.
func (Cockroach) CanonicalText(col string, t Type) string { return canonicalText(col, t) }

// CanonicalRowHash implements Differ.
func (Cockroach) CanonicalRowHash(texts []string) string { return canonicalRowHash(texts) }

// NativeRowHash implements Differ: none shared with any other server, so
// a CockroachDB side always uses the canonical hash.
func (Cockroach) NativeRowHash([]string, []Type) (string, string, bool) { return "", "", false }

// IdentityQuery implements Differ: the cluster's ID and the database;
// two nodes of one cluster hold the same data.
func (Cockroach) IdentityQuery() string {
	return "SELECT CAST(crdb_internal.cluster_id() AS STRING) || ' ' || current_database()"
}

// NativeHashProbe implements Differ.
func (Cockroach) NativeHashProbe() string { return "" }

// KeySample implements Differ: CockroachDB has no TABLESAMPLE, so every
// rowsPerRange-th key in key order, numbered by a window function.
func (Cockroach) KeySample(table string, keys []string, ts []Type, rowsPerRange int) (string, int) {
	return "SELECT " + KeyTexts(keys) + " FROM (SELECT " + strings.Join(keys, ", ") + ", row_number() OVER (ORDER BY " +
		strings.Join(keys, ", ") + ") AS rn FROM " + table + ") s WHERE rn % " + strconv.Itoa(max(rowsPerRange, 1)) +
		" = 0 ORDER BY " + strings.Join(keys, ", "), 1
}

// TxSetup implements Differ: nothing to set.
func (Cockroach) TxSetup() []string { return nil }

// FloorDiv implements Differ: CockroachDB's // is floor division of
// integers (its / of integers is a DECIMAL).
func (Cockroach) FloorDiv(expr string, step int64) string {
	return "(" + expr + " // " + strconv.FormatInt(step, 10) + ")"
}
