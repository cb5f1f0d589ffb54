package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// postLoad adds the foreign keys with --fks, once every table is loaded,
// and then writes the row of tpcc_meta: last, so that a database whose
// tpcc_meta is empty is known to hold an unfinished load. In column mode
// the row is the tenant's (preLoad refuses --fks).
func (g *tpcc) postLoad(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	for _, stmt := range fkStmts {
		if !g.fks {
			break
		}
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("adding foreign key (%s): %w", stmt, err)
		}
	}
	if (g.hammerdb() || g.hdb.serverSide) && g.share[0] == 0 {
		// Of a load split between clients, client 0 makes the routines.
		if err := g.installLogged(ctx, db, ""); err != nil {
			return err
		}
	}
	cols := g.metaColumnsOf()
	params := make([]string, len(cols))
	for i := range params {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	if _, err := db.Exec(ctx, "INSERT INTO "+metaTable+" ("+strings.Join(cols, ", ")+") VALUES ("+strings.Join(params, ", ")+")",
		g.metaRow()...); err != nil {
		return fmt.Errorf("writing %s: %w", metaTable, err)
	}
	return nil
}
