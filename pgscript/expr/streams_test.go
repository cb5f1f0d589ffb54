package expr_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
	"github.com/stampede-bench/stampede/sqlx"
)

// streamScripts are two weighted scripts of random draws; every
// transaction inserts the script's number, the client, its transaction
// number and the values it drew.
var streamScripts = []struct {
	weight int
	exprs  []string
}{
	{1, []string{
		"random(1, 100000)", "random_exponential(1, 1000, 2.5)", "random_gaussian(1, 1000, 3.0)",
		"random_zipfian(1, 1000, 1.07)", "permute(:x0, 1000)", "hash(:x0)", "random(-5000000000, 5000000000)",
		"permute(:x1, 7, :x0)", "hash_fnv1a(:x2)",
	}},
	{3, []string{
		"random_zipfian(1, 10, 2.5)", "random_gaussian(-50, 50, 2.0)", "random(0, 1)",
		"random_exponential(1, 1000000, 0.5)", "permute(random(1, 1000), 1000, 7)", "hash_murmur2(:x0, :client_id)",
		"random_zipfian(1, 1000000000, 1.5)", "random(1, 100) + random(1, 10)", "int(random_gaussian(1, 5, 2) * 1.5)",
	}},
}

const streamCols = 9

// TestRandomStreamsMatchPgbench runs real pgbench 15 with --random-seed,
// three clients on three threads and two weighted scripts, and replays
// each client in package expr with the streams prng.PgbenchStreams derives
// from the same seed: the script each transaction chose (the thread's
// choice stream) and every value each client drew (its own stream), and
// :default_seed, must be the same, exactly.
func TestRandomStreamsMatchPgbench(t *testing.T) {
	db := testdb.Fresh(t, "stampede_pgexpr", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	cols := make([]string, streamCols)
	for i := range cols {
		cols[i] = fmt.Sprintf("x%d bigint", i)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE r (seed numeric, script int, client int, n int, default_seed bigint, "+strings.Join(cols, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	url := dbURL(t, db.Database())
	const clients, threads, txns = 3, 3, 40
	for _, seed := range []uint64{1, 20260529, 1<<64 - 1} {
		scripts := make([]string, len(streamScripts))
		for s, sc := range streamScripts {
			var b strings.Builder
			fmt.Fprintf(&b, "-- weight %d\n\\set n :n + 1\n", sc.weight)
			vals := []string{fmt.Sprint(seed), fmt.Sprint(s), ":client_id", ":n", ":default_seed"}
			for i, e := range sc.exprs {
				fmt.Fprintf(&b, "\\set x%d %s\n", i, e)
				vals = append(vals, fmt.Sprintf(":x%d", i))
			}
			fmt.Fprintf(&b, "INSERT INTO r VALUES (%s);\n", strings.Join(vals, ", "))
			scripts[s] = b.String()
		}
		stderr, ok := runPgbench(t, scripts, "-c", fmt.Sprint(clients), "-j", fmt.Sprint(threads),
			"-t", fmt.Sprint(txns), fmt.Sprintf("--random-seed=%d", seed), "-D", "n=0", url)
		if !ok {
			t.Fatalf("pgbench failed:\n%s", stderr)
		}
		checkStreams(t, db, seed, clients, threads, txns)
	}
}

func checkStreams(t *testing.T, db *sqlx.DB, seed uint64, clients, threads, txns int) {
	t.Helper()
	ctx := context.Background()
	parsed := make([][]*expr.Expr, len(streamScripts))
	totalWeight := 0
	for s, sc := range streamScripts {
		totalWeight += sc.weight
		for _, src := range sc.exprs {
			x, err := expr.Parse(src)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			parsed[s] = append(parsed[s], x)
		}
	}
	st := prng.PgbenchStreams(seed, clients, threads)
	rows, err := db.Query(ctx, "SELECT script, client, n, default_seed, "+colList()+
		" FROM r WHERE seed = $1 ORDER BY client, n", fmt.Sprint(seed))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var script, client, n int
		var defaultSeed int64
		got := make([]*int64, streamCols)
		dest := []any{&script, &client, &n, &defaultSeed}
		for i := range got {
			dest = append(dest, &got[i])
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		if defaultSeed != st.DefaultSeed {
			t.Fatalf("seed %d: pgbench's :default_seed is %d, PgbenchStreams' %d", seed, defaultSeed, st.DefaultSeed)
		}
		// With as many threads as clients, client i is thread i's only one.
		w := st.Choose[client].Rand(0, int64(totalWeight-1))
		want := 0
		for w -= int64(streamScripts[want].weight); w >= 0; w -= int64(streamScripts[want].weight) {
			want++
		}
		if script != want {
			t.Fatalf("seed %d client %d transaction %d: pgbench ran script %d, the choice stream picks %d", seed, client, n, script, want)
		}
		e := &env{vars: map[string]expr.Value{
			"client_id": expr.IntValue(int64(client)), "n": expr.IntValue(int64(n)),
			"default_seed": expr.IntValue(st.DefaultSeed),
		}, rs: &st.Clients[client]}
		for i, x := range parsed[script] {
			v, err := x.Eval(e)
			if err != nil {
				t.Fatalf("%s: %v", streamScripts[script].exprs[i], err)
			}
			e.vars[fmt.Sprintf("x%d", i)] = v
			if got[i] == nil || v.Kind != expr.Int || v.I != *got[i] {
				t.Errorf("seed %d client %d transaction %d: %s = %v, pgbench drew %v",
					seed, client, n, streamScripts[script].exprs[i], v, deref(got[i]))
			}
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked != clients*txns {
		t.Fatalf("seed %d: %d transactions in the table, want %d", seed, checked, clients*txns)
	}
}

func colList() string {
	c := make([]string, streamCols)
	for i := range c {
		c[i] = fmt.Sprintf("x%d", i)
	}
	return strings.Join(c, ", ")
}

func deref(p *int64) any {
	if p == nil {
		return "NULL"
	}
	return *p
}
