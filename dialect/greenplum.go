package dialect

import (
	"fmt"
	"strings"
)

// Greenplum is the dialect of Greenplum Database (and its forks, such as
// Cloudberry): PostgreSQL's SQL, whose every statement it takes, plus
// storage options and distribution clauses on CREATE TABLE
// (TableOptioner).
type Greenplum struct{ Postgres }

var (
	_ Dialect       = Greenplum{}
	_ TableOptioner = Greenplum{}
)

// Name implements Dialect.
func (Greenplum) Name() string { return "greenplum" }

// TableOptions are the storage and distribution options of one CREATE
// TABLE, for servers that have them (TableOptioner).
type TableOptions struct {
	// AppendOptimized, when set, asks for an append-optimized table
	// (true) or a heap table (false): WITH (appendoptimized=...).
	AppendOptimized *bool
	// DistributedBy names the distribution key's columns (unquoted);
	// DistributedRandomly asks for random distribution instead. At most
	// one of them is set.
	DistributedBy       []string
	DistributedRandomly bool
}

// Empty reports whether o asks for nothing.
func (o TableOptions) Empty() bool {
	return o.AppendOptimized == nil && len(o.DistributedBy) == 0 && !o.DistributedRandomly
}

// TableOptioner is implemented by dialects whose CREATE TABLE takes
// storage options and a distribution clause (Greenplum's). Other
// dialects have none: a workload asked for them on such a server
// refuses before it creates anything.
type TableOptioner interface {
	// TableOptionsClause returns the text that follows CREATE TABLE's
	// column list for o, such as
	//
	//	WITH (appendoptimized=true) DISTRIBUTED BY ("c1", "c2")
	//
	// ("" when o asks for nothing), or an error for options that
	// contradict each other.
	TableOptionsClause(o TableOptions) (string, error)
}

// TableOptionsClause implements TableOptioner:
// [WITH (appendoptimized=true|false)] [DISTRIBUTED BY (cols) | DISTRIBUTED RANDOMLY].
func (g Greenplum) TableOptionsClause(o TableOptions) (string, error) {
	if len(o.DistributedBy) > 0 && o.DistributedRandomly {
		return "", fmt.Errorf("a table is distributed by columns or randomly, not both")
	}
	var parts []string
	if o.AppendOptimized != nil {
		parts = append(parts, fmt.Sprintf("WITH (appendoptimized=%t)", *o.AppendOptimized))
	}
	switch {
	case len(o.DistributedBy) > 0:
		cols := make([]string, len(o.DistributedBy))
		for i, c := range o.DistributedBy {
			cols[i] = g.QuoteIdent(c)
		}
		parts = append(parts, "DISTRIBUTED BY ("+strings.Join(cols, ", ")+")")
	case o.DistributedRandomly:
		parts = append(parts, "DISTRIBUTED RANDOMLY")
	}
	return strings.Join(parts, " "), nil
}

// IsGreenplumVersion reports whether a server's version() names
// Greenplum Database, which reports itself as
// "PostgreSQL 12.12 (Greenplum Database 7.1.0 build ...) on x86_64...".
func IsGreenplumVersion(version string) bool {
	return strings.Contains(version, "Greenplum Database")
}
