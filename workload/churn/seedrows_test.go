package churn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnSeedSameRows runs churn for a fixed number of operations (2
// loops of 40 each) twice with one seed and once with another, each in a
// fresh database: the two runs of one seed leave the same tables with the
// same bookkeeping (shape, rows, bytes) and the same rows, every value's
// text equal (names, UUIDs, keys, paragraphs: all drawn from the run's
// seed), and the other seed's run leaves other rows.
func TestChurnSeedSameRows(t *testing.T) {
	ctx := context.Background()
	var dumps []map[string]string
	for i, seed := range []uint64{42, 42, 43} {
		db := testdb.Fresh(t, fmt.Sprintf("churn32_rows%d", i), sqlx.Options{MaxConns: 2})
		args := []string{"--rows", "1-300", "--columns", "2-30"}
		if err := run.Load(ctx, run.LoadSpec{Workload: gen(t, args...), Conn: conn(t, db)}); err != nil {
			t.Fatal(err)
		}
		r, err := run.Start(ctx, run.Spec{Workload: gen(t, args...), Conn: conn(t, db), Concurrency: 2, MaxOps: 80, Seed: seed,
			Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.Total.Errors != 0 || res.Summary.Total.Count != 80 {
			t.Fatalf("seed %d: %d operations, %d errors; want 80 without error", seed, res.Summary.Total.Count, res.Summary.Total.Errors)
		}
		dumps = append(dumps, tableDump(t, db))
	}
	a, b, c := dumps[0], dumps[1], dumps[2]
	rows := 0
	for name, da := range a {
		if name == "churn_tables" {
			continue
		}
		db, ok := b[name]
		switch {
		case !ok:
			t.Errorf("seed 42 left table %s in its first run only", name)
		case da != db:
			t.Errorf("seed 42: table %s holds other rows in the second run:\n%.300s\nagainst\n%.300s", name, da, db)
		}
		if da != "" {
			rows++
		}
		if dc, ok := c[name]; ok && dc == da && da != "" {
			t.Errorf("seeds 42 and 43 filled table %s with the same rows", name)
		}
	}
	if len(b) != len(a) {
		t.Errorf("seed 42 left %d tables, then %d", len(a), len(b))
	}
	if a["churn_tables"] != b["churn_tables"] {
		t.Errorf("seed 42: churn_tables differs between the runs:\n%s\nagainst\n%s", a["churn_tables"], b["churn_tables"])
	}
	if rows < 3 {
		t.Fatalf("only %d tables with rows: too few to compare", rows)
	}
}

// tableDump returns, for churn_tables (its names, shapes, counts and
// bytes) and each live table it names, the rows' text, sorted.
func tableDump(t *testing.T, db *sqlx.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	var names []string
	rows, err := db.Query(ctx, "SELECT name FROM churn_tables WHERE dropped_at IS NULL ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out["churn_tables"] = dumpQuery(t, db, "SELECT string_agg(concat_ws(' ', name, worker, seq, first_shape, shape, rows, bytes, dropped_at IS NULL), E'\\n' ORDER BY name) FROM churn_tables")
	for _, n := range names {
		out[n] = dumpQuery(t, db, `SELECT string_agg(r::text, E'\n' ORDER BY r::text COLLATE "C") FROM "`+n+`" r`)
	}
	return out
}

// dumpQuery returns the one text q returns ("" for NULL).
func dumpQuery(t *testing.T, db *sqlx.DB, q string) string {
	t.Helper()
	var s *string
	if err := db.QueryRow(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if s == nil {
		return ""
	}
	return *s
}
