package tpcc

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
)

// postLoad adds the foreign keys with --fks, once every table is loaded.
func (g *tpcc) postLoad(ctx context.Context, db *sqlx.DB) error {
	if db.Null() || !g.fks {
		return nil
	}
	for _, stmt := range fkStmts {
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("adding foreign key (%s): %w", stmt, err)
		}
	}
	return nil
}
