package dialect

// Cockroach is the dialect of CockroachDB: PostgreSQL's SQL, whose
// statements it embeds, with CockroachDB's capabilities. Transactions
// retry with the savepoint protocol (Capabilities.SavepointRetry), and
// CREATE DATABASE takes no TEMPLATE.
type Cockroach struct {
	Postgres
}

var (
	_ Dialect          = Cockroach{}
	_ Analyzer         = Cockroach{}
	_ IndexBuildSharer = Cockroach{}
)

// ShareIndexBuild implements IndexBuildSharer: CockroachDB builds indexes
// in its own distributed jobs, with nothing to share.
func (Cockroach) ShareIndexBuild(int) string { return "" }

// Name implements Dialect.
func (Cockroach) Name() string { return "cockroach" }

// Capabilities implements Dialect.
func (Cockroach) Capabilities() Capabilities {
	return Capabilities{Copy: true, SavepointRetry: true}
}

// Checkpoint implements Checkpointer: CockroachDB has no CHECKPOINT
// (its storage engine flushes on its own), so "".
func (Cockroach) Checkpoint() string { return "" }
