package sysbench

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// rowCheck is what a workload's runs leave of a table's row count.
type rowCheck int

const (
	// rowsKept: updates, and deletes re-inserting the same id, keep the
	// ids 1..table_size.
	rowsKept rowCheck = iota
	// rowsGrow: oltp_insert adds rows.
	rowsGrow
	// rowsShrink: oltp_delete removes rows.
	rowsShrink
)

// prepareHint returns the commands that create g's tables, with the flags
// given that shape the data.
func (g *generator) prepareHint() string {
	var args strings.Builder
	g.flags.VisitAll(func(f *pflag.Flag) {
		if dataFlags[f.Name] && f.Changed {
			fmt.Fprintf(&args, " --%s=%s", f.Name, f.Value)
		}
	})
	name := g.s.name
	return fmt.Sprintf("`stampede prepare %s%s` (or `stampede init %s%s`)", name, args.String(), name, args.String())
}

// preRun checks that the tables exist and have the OLTP columns, and hold
// the ids the run looks up. With the null driver there is nothing to
// check.
func (g *generator) preRun(ctx context.Context, db *sqlx.DB) error {
	if err := g.checkTables(ctx, db); err != nil || db.Null() {
		return err
	}
	for n := 1; n <= g.cfg.tables; n++ {
		if err := g.checkSize(ctx, db, tableName(n)); err != nil {
			return err
		}
	}
	return nil
}

// checkTables checks that the tables exist and have the OLTP columns.
func (g *generator) checkTables(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	for n := 1; n <= g.cfg.tables; n++ {
		t := tableName(n)
		exists, err := workload.TableExists(ctx, db, t)
		if err != nil {
			return fmt.Errorf("checking table %s: %w", t, err)
		}
		if !exists {
			return fmt.Errorf("table %s does not exist in database %q: run %s first", t, db.Database(), g.prepareHint())
		}
		if g.cfg.tenant != 0 {
			rows, err := db.Query(ctx, "SELECT "+workload.TenantColumn+" FROM "+t+" WHERE 1=0")
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			if err != nil {
				return fmt.Errorf("table %s in database %q has no column %s: it was loaded without tenants; "+
					"load it in tenant column mode (--tenant-mode column): %v", t, db.Database(), workload.TenantColumn, err)
			}
		}
		rows, err := db.Query(ctx, "SELECT id, k, c, pad FROM "+t+" WHERE 1=0")
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			return fmt.Errorf("table %s in database %q is not a sysbench OLTP table (id, k, c, pad): %v; recreate it with %s and --drop",
				t, db.Database(), err, g.prepareHint())
		}
	}
	return nil
}

// checkSize refuses a --table_size larger than what table t holds, when
// the run looks rows up by id in 1..table_size: most lookups would find
// nothing, and the run would report them as fast reads.
func (g *generator) checkSize(ctx context.Context, db *sqlx.DB, t string) error {
	if g.s.rows == rowsShrink || (g.s.rows == rowsGrow && !g.cfg.autoInc) {
		return nil // rows are missing on purpose, or the table starts empty
	}
	var hi int64
	q := "SELECT coalesce(max(id), 0) FROM " + t + g.cfg.tenantWhere(db.Dialect())
	if err := db.QueryRow(ctx, q, g.cfg.tenantArgs()...).Scan(&hi); err != nil {
		return fmt.Errorf("reading the largest id of %s: %w", g.cfg.label(t), err)
	}
	if hi < int64(g.cfg.tableSize) {
		return fmt.Errorf("%s holds ids up to %d, fewer than --table_size=%d: give --table_size=%d (what was prepared), or prepare again with --table_size=%d and --drop",
			g.cfg.label(t), hi, g.cfg.tableSize, hi, g.cfg.tableSize)
	}
	return nil
}

// checkConsistency checks each table's rows against what the workload's
// runs leave: the ids 1..table_size, each once, for the workloads that
// keep them; at least table_size rows after oltp_insert (none when
// --auto_inc is off: its tables start empty); at most table_size after
// oltp_delete.
func (g *generator) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if err := g.checkTables(ctx, db); err != nil {
		return err
	}
	if db.Null() {
		rep.Printf("skipped (null driver)")
		return nil
	}
	size := int64(g.cfg.tableSize)
	failed := 0
	for n := 1; n <= g.cfg.tables; n++ {
		t := tableName(n)
		var count, distinct, lo, hi int64
		q := "SELECT count(*), count(DISTINCT id), coalesce(min(id), 0), coalesce(max(id), 0) FROM " + t + g.cfg.tenantWhere(db.Dialect())
		if err := db.QueryRow(ctx, q, g.cfg.tenantArgs()...).
			Scan(&count, &distinct, &lo, &hi); err != nil {
			return fmt.Errorf("counting the rows of %s: %w", g.cfg.label(t), err)
		}
		label := g.cfg.label(t)
		var ok bool
		var line string
		switch g.s.rows {
		case rowsGrow:
			want := size
			if !g.cfg.autoInc {
				want = 0
			}
			ok = count >= want && distinct == count
			line = fmt.Sprintf("%s: %d rows, %d distinct ids (expected at least %d, all distinct)", label, count, distinct, want)
		case rowsShrink:
			ok = count <= size && distinct == count && (count == 0 || lo >= 1 && hi <= size)
			line = fmt.Sprintf("%s: %d rows, %d distinct ids in %d..%d (expected at most %d, distinct, in 1..%d)", label, count, distinct, lo, hi, size, size)
		default:
			ok = count == size && distinct == size && lo == 1 && hi == size
			line = fmt.Sprintf("%s: %d rows, %d distinct ids in %d..%d (expected %d, ids 1..%d)", label, count, distinct, lo, hi, size, size)
		}
		rep.Printf("%s %s", line, passFail(ok))
		if !ok {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d tables failed the consistency check", failed, g.cfg.tables)
	}
	return nil
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
