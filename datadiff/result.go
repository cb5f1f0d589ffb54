package datadiff

// Result is what a diff found.
type Result struct {
	// A and B describe the two sides.
	A Side `json:"a"`
	B Side `json:"b"`
	// Identical is true when every table has the same shape and rows on
	// both sides.
	Identical bool `json:"identical"`
	// Tables are the tables compared, in the order given.
	Tables []TableResult `json:"tables"`
	// Rows are the rows found to differ, at most Options.MaxRows, by
	// table then key.
	Rows []RowDiff `json:"rows"`
	// Converge is the outcome of --converge; nil without it.
	Converge *Convergence `json:"converge,omitempty"`
	// Notes are remarks on how the diff ran.
	Notes []string `json:"notes,omitempty"`
	// Seconds is the diff's duration.
	Seconds float64 `json:"seconds"`
	// Conns is the number of connections each side read with.
	Conns int `json:"conns"`
}

// Side describes one node.
type Side struct {
	// Where is the endpoint and database, safe to print.
	Where string `json:"where"`
	// Dialect is the server's SQL dialect.
	Dialect string `json:"dialect"`
	// Version is the server's version string.
	Version string `json:"version,omitempty"`
	// Snapshot says how its connections shared one instant.
	Snapshot string `json:"snapshot"`
}

// NoKey is the status of a table without a primary key that a diff of
// every table (no Options.Tables) did not compare, without Options.NoPK.
const NoKey = "no_primary_key"

// TableResult is one table's comparison.
type TableResult struct {
	// Table is the table's name.
	Table string `json:"table"`
	// Status is "identical", "differs", "shape" (columns or primary key
	// differ: rows not compared), "missing" (absent on a side), NoKey
	// (no primary key, when every table is compared without --no-pk:
	// not compared) or "skipped".
	Status string `json:"status"`
	// Missing is the side the table is absent from, if any.
	Missing string `json:"missing,omitempty"`
	// Shape lists the differences of columns and primary key.
	Shape []string `json:"shape,omitempty"`
	// Notes are type differences that do not change how values compare.
	Notes []string `json:"notes,omitempty"`
	// Hash is the row hash used: "native" (the servers' own, same on
	// both), "canonical" (MD5 of the canonical text) or "" when not
	// compared.
	Hash string `json:"hash,omitempty"`
	// FullRow is true for a table without primary key compared by one
	// checksum of all its rows (--no-pk): differing rows are not located.
	FullRow bool `json:"full_row,omitempty"`
	// RowsA and RowsB are the rows counted on each side (at the first
	// check).
	RowsA int64 `json:"rows_a"`
	RowsB int64 `json:"rows_b"`
	// Ranges is the number of key ranges the table was split into.
	Ranges int `json:"ranges"`
	// DifferingRanges is the number of those whose checksums differed.
	DifferingRanges int `json:"differing_ranges"`
	// DifferingRows is the number of rows found to differ.
	DifferingRows int `json:"differing_rows"`
	// Unlocated is the number of differing ranges (of DifferingRanges)
	// none of whose rows were searched once Options.MaxRows rows were
	// found: each counts once, however many parts it was split into.
	Unlocated int `json:"unlocated_ranges,omitempty"`
	// Seconds is the time the table's checks took, added up over the
	// connections that ran them in parallel.
	Seconds float64 `json:"seconds"`
}

// Row differences' kinds.
const (
	OnlyA   = "only_a"
	OnlyB   = "only_b"
	Changed = "changed"
)

// RowDiff is a row that differs.
type RowDiff struct {
	// Table is the row's table.
	Table string `json:"table"`
	// Key is the primary key, column by column.
	Key []Value `json:"key"`
	// Kind is "only_a", "only_b" or "changed".
	Kind string `json:"kind"`
	// Columns are the columns that differ, for a changed row.
	Columns []ColumnDiff `json:"columns,omitempty"`
}

// Value is a column's value in canonical text, nil for NULL.
type Value struct {
	Column string  `json:"column"`
	Value  *string `json:"value"`
}

// ColumnDiff is a column whose values differ.
type ColumnDiff struct {
	Column string  `json:"column"`
	A      *string `json:"a"`
	B      *string `json:"b"`
}

// Convergence is the outcome of re-checking the differing ranges.
type Convergence struct {
	// Limit is how long the diff waited at most, in seconds.
	Limit float64 `json:"limit_seconds"`
	// Converged is true when the ranges became equal in time.
	Converged bool `json:"converged"`
	// After is the time from the first check's snapshot to the snapshot
	// in which the ranges were equal, in seconds: the replication lag.
	After float64 `json:"after_seconds,omitempty"`
	// Resolution is the time between that snapshot and the previous
	// one, which still differed, in seconds: After is exact to within it.
	Resolution float64 `json:"resolution_seconds,omitempty"`
	// Checks is how many times the ranges were checked, the first
	// included.
	Checks int `json:"checks"`
	// Ranges is how many ranges differed at the first check.
	Ranges int `json:"ranges"`
}
