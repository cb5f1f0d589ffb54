package churn

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestValuesVaried inserts 10,000 rows of one column of each kind but the
// keys, as a worker writes them, into a table on the test server and
// counts each column's distinct values there: every textual value was
// once one of a run's 512 made at its start (count(DISTINCT) was exactly
// 512 in a 9,856-row table); names, emails, phones, streets, timestamps,
// dates and numbers now come from a pool of 8,192 composed from
// gofakeit's data (or drawn by gofakeit), beside one value in 4,096 made
// anew by each worker, UUIDs are made for each value, and gofakeit's cities,
// companies, sentences and paragraphs are renewed through the run. The
// server's octet_length of the values equals the bytes the worker
// counted.
func TestValuesVaried(t *testing.T) {
	db := testdb.Fresh(t, "churn_values", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	const rows = 10000
	s := &shape{name: "churn_values", seq: 1}
	kinds := []kind{kName, kEmail, kPhone, kStreet, kCity, kCompany, kSentence, kParagraph, kTimestamp, kDate, kUUID,
		kBigint, kInt, kSmallint, kNumeric, kBool}
	for _, k := range kinds {
		s.columns = append(s.columns, column{name: kindInfo[k].label, kind: k})
	}
	stmts, err := s.createSQL(dialect.Postgres{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p := newPool(randgen.New(1, poolStream))
	w := &worker{d: dialect.Postgres{}, fill: newFiller(randgen.New(1, dataStream), p)}
	head := w.insertHead(s)
	var counted int64
	for left := rows; left > 0; {
		k, b := w.nextInsert(head, s, left)
		if _, err := db.Exec(ctx, string(w.buf)); err != nil {
			t.Fatalf("insert: %v", err)
		}
		counted += b
		left -= k
	}
	// At least this many distinct values in 10,000 rows: of old, 512 of
	// every textual kind. The composed kinds draw from a pool of 8,192
	// (about 5,800 distinct in 10,000 draws) and compose one value in
	// 4,096 anew; paragraphs (gofakeit's recipe: 2 to 5 of its sentences
	// from the pool's) too; gofakeit's own kinds (cities, companies,
	// sentences; gofakeit's lists of about 100 cities and 530 companies
	// bound those) from 512, of which sentences must show more distinct
	// values than the pool holds (it repeats a few).
	want := map[kind]int{kName: 4000, kEmail: 4000, kPhone: 4000, kStreet: 4000, kTimestamp: 4000, kDate: 3500, kUUID: rows,
		kCity: 90, kCompany: 300, kParagraph: 4000, kBigint: 4000, kInt: 4000, kSmallint: 4000, kNumeric: 4000, kBool: 2}
	for _, k := range []kind{kSentence} {
		inPool := map[string]bool{}
		for i := range len(p.off[k]) - 1 {
			inPool[string(p.text[k][p.off[k][i]:p.off[k][i+1]])] = true
		}
		want[k] = len(inPool) + 1
	}
	var total int64
	for _, k := range kinds {
		var n int
		var bytes int64
		c := kindInfo[k].label
		if err := db.QueryRow(ctx, "SELECT count(DISTINCT "+c+"), coalesce(sum(octet_length("+c+"::text)), 0) FROM churn_values").Scan(&n, &bytes); err != nil {
			t.Fatal(err)
		}
		total += bytes
		t.Logf("%-9s %5d distinct values in %d rows", c, n, rows)
		if n < want[k] {
			t.Errorf("%s: %d distinct values in %d rows, want at least %d", c, n, rows, want[k])
		}
	}
	if total != counted {
		t.Errorf("the values' text is %d bytes on the server (octet_length), the worker counted %d", total, counted)
	}
}
