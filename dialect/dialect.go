// Package dialect holds the SQL text that differs between databases. It
// opens no connections: a Dialect only returns strings and capabilities, so
// every statement can be unit-tested without a server.
package dialect

import (
	"fmt"
	"strconv"
	"strings"
)

// Capabilities says what a database supports.
type Capabilities struct {
	// Copy is true when bulk loading through COPY FROM STDIN works.
	Copy bool
	// CreateDatabaseTemplate is true for CREATE DATABASE ... TEMPLATE.
	CreateDatabaseTemplate bool
	// SavepointRetry is true when retryable errors (SQLSTATE 40001) are
	// best retried inside the transaction with CockroachDB's client-side
	// retry protocol: BEGIN; SAVEPOINT cockroach_restart; the statements;
	// RELEASE SAVEPOINT cockroach_restart; COMMIT, with ROLLBACK TO
	// SAVEPOINT cockroach_restart and the statements again after each
	// retryable error. The server restarts the transaction in place, which
	// keeps its priority, so a transaction that keeps losing conflicts
	// ends up winning them. Servers without it retry the whole
	// transaction. (PostgreSQL accepts the statements, but a rolled back
	// savepoint keeps a REPEATABLE READ or SERIALIZABLE transaction's
	// snapshot, so retries there would see the same conflict again.)
	SavepointRetry bool
}

// Dialect is the SQL of one database family. Implementations are stateless
// and safe for concurrent use.
type Dialect interface {
	// Name is the dialect's name, such as "postgres".
	Name() string
	// Placeholder returns the text of the i-th (1-based) bind parameter:
	// "$1" for PostgreSQL, "?" for MySQL.
	Placeholder(i int) string
	// QuoteIdent quotes an identifier.
	QuoteIdent(name string) string
	// CreateDatabase returns the statement that creates database name.
	CreateDatabase(name string) string
	// DropDatabase returns the statement that drops database name if it exists.
	DropDatabase(name string) string
	// CreateTable returns the statement creating table name (unquoted) with
	// the given parenthesized column list.
	CreateTable(name, schema string) string
	// DropTable returns the statement dropping table name (unquoted) if it
	// exists.
	DropTable(name string) string
	// Capabilities reports what the database supports.
	Capabilities() Capabilities
}

// Postgres is the dialect of PostgreSQL and of servers speaking its wire
// protocol and SQL (YugabyteDB, Greenplum; CockroachDB has its own,
// Cockroach).
type Postgres struct{}

var _ Dialect = Postgres{}

// Name implements Dialect.
func (Postgres) Name() string { return "postgres" }

// Placeholder implements Dialect: "$1", "$2", ...
func (Postgres) Placeholder(i int) string { return "$" + strconv.Itoa(i) }

// QuoteIdent implements Dialect: `"name"`, doubling embedded quotes.
func (Postgres) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// CreateDatabase implements Dialect: CREATE DATABASE "name".
func (p Postgres) CreateDatabase(name string) string {
	return "CREATE DATABASE " + p.QuoteIdent(name)
}

// DropDatabase implements Dialect: DROP DATABASE IF EXISTS "name".
func (p Postgres) DropDatabase(name string) string {
	return "DROP DATABASE IF EXISTS " + p.QuoteIdent(name)
}

// CreateTable implements Dialect: CREATE TABLE "name" (schema).
func (p Postgres) CreateTable(name, schema string) string {
	return fmt.Sprintf("CREATE TABLE %s %s", p.QuoteIdent(name), schema)
}

// DropTable implements Dialect: DROP TABLE IF EXISTS "name".
func (p Postgres) DropTable(name string) string {
	return "DROP TABLE IF EXISTS " + p.QuoteIdent(name)
}

// Capabilities implements Dialect.
func (Postgres) Capabilities() Capabilities {
	return Capabilities{Copy: true, CreateDatabaseTemplate: true}
}

// Placeholders returns n comma-separated placeholders starting at first,
// such as "$3, $4, $5".
func Placeholders(d Dialect, first, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.Placeholder(first + i))
	}
	return b.String()
}

// Analyzer is implemented by dialects that can refresh a table's planner
// statistics after a load.
type Analyzer interface {
	// AnalyzeTable returns the statement that refreshes the statistics of
	// table name (unquoted).
	AnalyzeTable(name string) string
}

// AnalyzeTable implements Analyzer: ANALYZE "name".
func (p Postgres) AnalyzeTable(name string) string { return "ANALYZE " + p.QuoteIdent(name) }

// IndexBuildSharer is implemented by dialects whose servers build an index
// with parallel workers that builds running at once should share.
type IndexBuildSharer interface {
	// ShareIndexBuild returns a statement to run just before an index
	// build, in the same transaction, when builds index builds run at
	// once; "" when there is nothing to share.
	ShareIndexBuild(builds int) string
}

// ShareIndexBuild implements IndexBuildSharer. PostgreSQL gives each
// CREATE INDEX (and ADD PRIMARY KEY) up to max_parallel_maintenance_workers
// helpers besides the building backend: with several builds at once, each
// gets its share of that number (none when there are more builds than
// workers), set with SET LOCAL semantics, so that the builds together use
// no more processes than the server's setting intends. Measured with 4
// builds of 1,000,000-row indexes at once on 2 vCPUs: 1.3-1.4 s instead
// of 1.9-2.3 s with 2 helpers each.
func (Postgres) ShareIndexBuild(builds int) string {
	if builds <= 1 {
		return ""
	}
	return "SELECT set_config('max_parallel_maintenance_workers', (current_setting('max_parallel_maintenance_workers')::int / " +
		strconv.Itoa(builds) + ")::text, true)"
}

// TableExistsQuery returns a query with one placeholder, and the value to
// bind to it, that returns one row with a boolean: whether the table named
// name (unquoted) exists in the current database and schema search path.
func TableExistsQuery(d Dialect, name string) (string, string) {
	if r, ok := d.(regclasser); ok {
		return r.tableExistsQuery(name)
	}
	return "SELECT count(*) > 0 FROM information_schema.tables WHERE table_name = " + d.Placeholder(1), name
}

// regclasser is implemented by dialects with PostgreSQL's to_regclass,
// which resolves a name through the search path as the statements do.
type regclasser interface {
	tableExistsQuery(name string) (string, string)
}

// tableExistsQuery implements regclasser.
func (p Postgres) tableExistsQuery(name string) (string, string) {
	return "SELECT to_regclass(" + p.Placeholder(1) + ") IS NOT NULL", p.QuoteIdent(name)
}

// DatabaseCommentQuery returns a query with one placeholder, the database
// name, that returns one row with the database's comment (NULL without
// one), and no row when the database does not exist. PostgreSQL and
// CockroachDB both have pg_database and shobj_description:
//
//	SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1
func DatabaseCommentQuery(d Dialect) string {
	return "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = " + d.Placeholder(1)
}

// CommentOnDatabase returns the statement that sets database name's
// comment: COMMENT ON DATABASE "name" IS 'text'.
func CommentOnDatabase(d Dialect, name, text string) string {
	return "COMMENT ON DATABASE " + d.QuoteIdent(name) + " IS '" + strings.ReplaceAll(text, "'", "''") + "'"
}

// ConnectionLimitQuery returns a query that returns one row: the server's
// connection limit for the current user (max_connections, less the
// connections reserved for superusers when the user is not one) and the
// client connections in use; "" for a dialect whose servers have no such
// server-wide limit (CockroachDB's is per node and off by default).
func ConnectionLimitQuery(d Dialect) string {
	if _, ok := d.(Cockroach); ok {
		return ""
	}
	return `SELECT current_setting('max_connections')::int -
	CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN 0
	     ELSE current_setting('superuser_reserved_connections')::int END,
	(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int`
}

// Checkpointer is implemented by dialects whose servers flush their dirty
// pages and write a checkpoint on request, so that a benchmark's next step
// does not pay for the writes of the one before.
type Checkpointer interface {
	// Checkpoint returns the statement that forces a checkpoint, or ""
	// when the server has none (CockroachDB, which embeds Postgres).
	Checkpoint() string
}

// Checkpoint implements Checkpointer: CHECKPOINT (it needs a superuser or,
// from PostgreSQL 15, the pg_checkpoint role).
func (Postgres) Checkpoint() string { return "CHECKPOINT" }

var _ Checkpointer = Postgres{}
