package pgbench

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// check verifies, in one REPEATABLE READ snapshot, the row counts of the
// scale (with --scale, or init's record of it; else the scale the
// branches say, as pgbench reads it) and the invariant of pgbench's
// tpcb-like transactions, each of which adds one delta to an account, its
// teller, its branch and the history: the four sums are equal.
func (g *generator) check(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		rep.Printf("pgbench: skipped (null driver)")
		return nil
	}
	for _, t := range []string{Branches, Tellers, Accounts, History} {
		ok, err := workload.TableExists(ctx, db, t)
		if err != nil {
			return fmt.Errorf("checking table %s: %w", t, err)
		}
		if !ok {
			return fmt.Errorf("table %s does not exist in database %s: run `stampede init pgbench` first", t, db.Database())
		}
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("checking pgbench's tables: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only
	var counts [4]int64
	var sums [4]string
	// The sums are numeric (sum of int), read as text: exact at any size.
	for i, q := range []string{
		"SELECT count(*), coalesce(sum(bbalance), 0)::text FROM " + Branches,
		"SELECT count(*), coalesce(sum(tbalance), 0)::text FROM " + Tellers,
		"SELECT count(*), coalesce(sum(abalance), 0)::text FROM " + Accounts,
		"SELECT count(*), coalesce(sum(delta), 0)::text FROM " + History,
	} {
		if err := tx.QueryRow(ctx, q).Scan(&counts[i], &sums[i]); err != nil {
			return fmt.Errorf("checking pgbench's tables: %s: %w", q, err)
		}
	}
	// The scale given (--scale, or the one init recorded), else the
	// branches': said with what the branches hold, so a mismatch shows.
	scale := int64(g.scale)
	if !g.flags.Changed("scale") {
		scale = counts[0] / branchesPerScale
	}
	rows := "rows"
	if counts[0] == 1 {
		rows = "row"
	}
	rep.Printf("pgbench: scale %d (pgbench_branches holds %d %s)", scale, counts[0], rows)
	if scale == 0 {
		rep.Printf("%s: no rows FAIL", Branches)
		return fmt.Errorf("pgbench consistency check failed: %s in database %s is empty: nothing was loaded (pgbench's or stampede's init without its data step?)", Branches, db.Database())
	}
	failed := 0
	for i, t := range []struct {
		name string
		per  int64
	}{{Branches, branchesPerScale}, {Tellers, tellersPerScale}, {Accounts, accountsPerScale}} {
		ok := counts[i] == scale*t.per
		if !ok {
			failed++
		}
		rep.Printf("%s: %d rows (expected %d) %s", t.name, counts[i], scale*t.per, passFail(ok))
	}
	ok := sums[0] == sums[1] && sums[1] == sums[2] && sums[2] == sums[3]
	if !ok {
		failed++
	}
	rep.Printf("balances: sum(abalance) %s, sum(bbalance) %s, sum(tbalance) %s, sum(delta) %s (%d history rows): equal %s",
		sums[2], sums[0], sums[1], sums[3], counts[3], passFail(ok))
	if failed > 0 {
		return fmt.Errorf("pgbench consistency check failed: %d of 4 checks failed (lines above)", failed)
	}
	return nil
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
