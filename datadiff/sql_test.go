package datadiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// orderLineSQL is tableSQL for a table keyed like TPC-C's order_line.
func orderLineSQL() *tableSQL {
	types := map[string]dialect.Type{}
	cols := []string{"w", "d", "o", "n", "v"}
	for _, c := range cols {
		types[c] = dialect.Type{Base: "integer", Full: "integer"}
	}
	sc := &schema{cols: cols, types: types, keys: cols[:4]}
	return newTableSQL(dialect.Postgres{}, "t", cols, sc.keys, sc, true)
}

// TestArms checks the conditions of a range: equalities on the columns
// the bounds share, then one range per arm, never a row comparison.
func TestArms(t *testing.T) {
	ts := orderLineSQL()
	for _, tc := range []struct {
		lo, hi key
		want   []string
	}{
		{nil, nil, []string{"TRUE"}},
		{key{"1", "3", "1500", "5"}, key{"1", "3", "1500", "5"}, []string{"FALSE"}},
		{key{"1", "3", "1000"}, key{"1", "3", "1999"}, []string{"w = 1 AND d = 3 AND o >= 1000 AND o < 1999"}},
		{key{"1", "3", "1500", "5"}, key{"1", "4", "200", "3"}, []string{
			"w = 1 AND d > 3 AND d < 4",
			"w = 1 AND d = 3 AND o > 1500",
			"w = 1 AND d = 3 AND o = 1500 AND n >= 5",
			"w = 1 AND d = 4 AND o < 200",
			"w = 1 AND d = 4 AND o = 200 AND n < 3",
		}},
		{key{"1", "3", "1500", "5"}, key{"1", "3", "1500", "9"}, []string{"w = 1 AND d = 3 AND o = 1500 AND n >= 5 AND n < 9"}},
		{nil, key{"2", "1", "7", "1"}, []string{"w < 2", "w = 2 AND d < 1", "w = 2 AND d = 1 AND o < 7", "w = 2 AND d = 1 AND o = 7 AND n < 1"}},
		{key{"2", "1", "7", "1"}, nil, []string{"w > 2", "w = 2 AND d > 1", "w = 2 AND d = 1 AND o > 7", "w = 2 AND d = 1 AND o = 7 AND n >= 1"}},
	} {
		arms, args := ts.arms(bounds{lo: tc.lo, hi: tc.hi})
		var got []string
		for _, a := range arms {
			for i := len(args); i >= 1; i-- { // $10 before $1
				a = strings.ReplaceAll(a, fmt.Sprintf("CAST(CAST($%d AS TEXT) AS integer)", i), fmt.Sprint(args[i-1]))
			}
			got = append(got, strings.ReplaceAll(a, `"`, ""))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("[%v, %v):\n%s\nwant\n%s", tc.lo, tc.hi, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestRangesPartition: on a server, random ranges of a four-column key
// select exactly the rows between their bounds (compared here), and
// consecutive ranges cover every row once.
func TestRangesPartition(t *testing.T) {
	db := testdb.Fresh(t, "stampede_diff_ranges", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	if _, err := db.Exec(ctx, `CREATE TABLE t (w int, d int, o int, n int, v int, PRIMARY KEY (w, d, o, n));
INSERT INTO t SELECT w, d, o, n, w + d + o + n FROM generate_series(1, 3) w, generate_series(1, 4) d, generate_series(1, 5) o, generate_series(1, 3) n`); err != nil {
		t.Fatal(err)
	}
	var all []key
	for w := 1; w <= 3; w++ {
		for d := 1; d <= 4; d++ {
			for o := 1; o <= 5; o++ {
				for n := 1; n <= 3; n++ {
					all = append(all, key{strconv.Itoa(w), strconv.Itoa(d), strconv.Itoa(o), strconv.Itoa(n)})
				}
			}
		}
	}
	// cmp compares a key's first len(b) columns with bound b.
	cmp := func(k, b key) int {
		for i := range b {
			x, _ := strconv.Atoi(k[i])
			y, _ := strconv.Atoi(b[i])
			if x != y {
				return x - y
			}
		}
		return 0
	}
	in := func(k key, b bounds) bool {
		if b.lo != nil && cmp(k, b.lo) < 0 {
			return false
		}
		if b.hi == nil {
			return true
		}
		if c := cmp(k, b.hi); c > 0 || c == 0 && !b.incl {
			return false
		}
		return true
	}
	ts := orderLineSQL()
	count := func(b bounds) int64 {
		q, args := ts.checksum(b)
		var n int64
		var sum string
		if err := db.QueryRow(ctx, q, args...).Scan(&n, &sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	r := rand.New(rand.NewPCG(1, 2))
	randKey := func(n int) key { // values from 0 to 6: some outside the data
		k := key{strconv.Itoa(r.IntN(5)), strconv.Itoa(r.IntN(6)), strconv.Itoa(r.IntN(7)), strconv.Itoa(r.IntN(5))}
		return k[:n]
	}
	for range 400 {
		// Bounds of 1 to 4 columns, the upper one included or not.
		b := bounds{lo: randKey(1 + r.IntN(4)), hi: randKey(1 + r.IntN(4)), incl: r.IntN(2) == 0}
		switch r.IntN(8) {
		case 0:
			b.lo = nil
		case 1:
			b.hi = nil
		}
		if b.lo != nil && b.hi != nil && cmp(b.lo[:min(len(b.lo), len(b.hi))], b.hi[:min(len(b.lo), len(b.hi))]) > 0 {
			b.lo, b.hi = b.hi, b.lo // diff's ranges never end before they start
			if cmp(b.lo[:min(len(b.lo), len(b.hi))], b.hi[:min(len(b.lo), len(b.hi))]) > 0 {
				continue
			}
		}
		var want int64
		for _, k := range all {
			if in(k, b) {
				want++
			}
		}
		if got := count(b); got != want {
			arms, args := ts.arms(b)
			t.Fatalf("%+v: %d rows, want %d\n%s\n%v", b, got, want, strings.Join(arms, "\n"), args)
		}
	}
	// Boundaries cut the key space into ranges that hold every row once.
	cuts := []key{randKey(4), randKey(4), randKey(4), randKey(4)}
	slices.SortFunc(cuts, func(a, b key) int { return cmp(a, b) })
	cuts = slices.CompactFunc(cuts, func(a, b key) bool { return cmp(a, b) == 0 })
	var total int64
	for _, tk := range spans(&table{}, bounds{}, cuts, 0, 0) {
		total += count(tk.span.bounds)
	}
	if total != int64(len(all)) {
		t.Errorf("ranges hold %d rows, want %d", total, len(all))
	}
}
