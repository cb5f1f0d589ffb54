package sqlscript

import (
	"context"
	"errors"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
)

// accountsPartitions is pgbench 15's query (GetTableInfo) for how the
// first pgbench_accounts on the search path is partitioned: its strategy
// (null when it is not partitioned) and its partitions' count.
const accountsPartitions = `SELECT p.partstrat, count(i.inhparent)
FROM pg_catalog.pg_class AS c
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
CROSS JOIN LATERAL (SELECT pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) AS o(n)
LEFT JOIN pg_catalog.pg_partitioned_table AS p ON p.partrelid = c.oid
LEFT JOIN pg_catalog.pg_inherits AS i ON c.oid = i.inhparent
WHERE c.relname = 'pgbench_accounts' AND o.n IS NOT NULL
GROUP BY o.n, p.partstrat
ORDER BY o.n
LIMIT 1`

// readPartitions reads, as pgbench does before running a built-in
// script, how pgbench_accounts is partitioned, for the report's
// "partition method" and "partitions" lines.
func (g *gen) readPartitions(ctx context.Context, db *sqlx.DB) error {
	var strategy *string
	var n int
	if err := db.QueryRow(ctx, accountsPartitions).Scan(&strategy, &n); err != nil {
		if errors.Is(err, sqlx.ErrNoRows) {
			return sqlx.ConfigErrorf("no pgbench_accounts table found in search_path: load pgbench's tables with `stampede init pgbench --scale N` (or pgbench -i) in database %q", db.Database())
		}
		return fmt.Errorf("reading how pgbench_accounts is partitioned: %w", err)
	}
	switch {
	case strategy == nil:
		g.partMethod, g.partitions = "", 0
	case *strategy == "r":
		g.partMethod, g.partitions = "range", n
	case *strategy == "h":
		g.partMethod, g.partitions = "hash", n
	default:
		return fmt.Errorf("pgbench_accounts is partitioned by an unexpected method %q", *strategy)
	}
	return nil
}

// Partitions is how pgbench_accounts was partitioned when a built-in
// script ran: "range" or "hash" and the partitions' count ("" when it was
// not, or no built-in script ran).
func (g *gen) Partitions() (method string, n int) { return g.partMethod, g.partitions }
