package datadiff

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// canonicalCases are values of every column type the workloads use (and
// a few more), with their canonical text: what PostgreSQL and CockroachDB
// must both produce.
var canonicalCases = []struct {
	typ, value string
	want       *string // nil: NULL
}{
	{"smallint", "-5", str("-5")},
	{"integer", "2147483647", str("2147483647")},
	{"bigint", "-9223372036854775808", str("-9223372036854775808")},
	{"numeric(6,2)", "12.50", str("12.5")},
	{"numeric(6,2)", "100.00", str("100")},
	{"numeric(6,2)", "0", str("0")},
	{"numeric(6,2)", "-0.5", str("-0.5")},
	{"numeric(12,2)", "3000000000.01", str("3000000000.01")},
	{"numeric(4,4)", "0.1", str("0.1")},
	{"numeric", "1.2300", str("1.23")},
	{"numeric", "120", str("120")},
	{"character(24)", "ab", str("ab")},
	{"character(2)", "XY", str("XY")},
	{"character varying(24)", "a b ", str("a b ")},
	{"text", "", str("")},
	{"text", "héllo, wörld", str("héllo, wörld")},
	{"timestamp", "2024-02-29 13:14:15.5", str("2024-02-29 13:14:15.5")},
	{"timestamp", "2024-02-29 13:14:15", str("2024-02-29 13:14:15")},
	{"timestamp with time zone", "2024-02-29 13:14:15.123456+02", str("2024-02-29 11:14:15.123456")},
	{"date", "2024-01-02", str("2024-01-02")},
	{"boolean", "true", str("true")},
	{"bytea", `\x00ff10`, str("00ff10")},
	{"double precision", "1.5", str("1.5")},
	{"uuid", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")},
	{"integer", "NULL", nil},
	{"text", "NULL", nil},
}

func str(s string) *string { return &s }

// goRowHash is the canonical row hash computed here, independently of
// the server: the first 8 bytes of the MD5 of each text as its length in
// characters, ':' and the text, or '-' for NULL, as a signed integer.
func goRowHash(texts []*string) int64 {
	var b strings.Builder
	for _, t := range texts {
		if t == nil {
			b.WriteString("-")
			continue
		}
		b.WriteString(strconv.Itoa(utf8.RuneCountInString(*t)) + ":" + *t)
	}
	sum := md5.Sum([]byte(b.String()))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// TestCanonicalForms loads one row with a column of each case's type and
// checks each column's canonical text as the server computes it, and the
// row hash against the one computed in Go.
func TestCanonicalForms(t *testing.T) {
	db := testdb.Fresh(t, "stampede_diff_canon", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	d := db.Dialect().(dialect.Differ)
	var cols, vals []string
	for i, c := range canonicalCases {
		cols = append(cols, fmt.Sprintf("c%d %s", i, c.typ))
		if c.want == nil {
			vals = append(vals, "NULL")
		} else {
			vals = append(vals, "'"+strings.ReplaceAll(c.value, "'", "''")+"'")
		}
	}
	if _, err := db.Exec(ctx, "CREATE TABLE canon (id INT PRIMARY KEY, "+strings.Join(cols, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO canon VALUES (1, "+strings.Join(vals, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	side := &side{name: "A", db: db, d: d, where: "test"}
	sc, err := side.readSchema(ctx, "canon")
	if err != nil {
		t.Fatal(err)
	}
	ts := newTableSQL(d, "canon", sc.cols[1:], nil, sc, false)
	q, _ := ts.rows(bounds{})
	rows, err := db.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var got []*string
	for rows.Next() {
		for _, v := range rows.RawValues() {
			if v == nil {
				got = append(got, nil)
			} else {
				got = append(got, str(string(v)))
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(canonicalCases) {
		t.Fatalf("%d columns, want %d", len(got), len(canonicalCases))
	}
	for i, c := range canonicalCases {
		if !sameValue(got[i], c.want) {
			t.Errorf("%s %s: canonical %s, want %s", c.typ, c.value, valueText(got[i]), valueText(c.want))
		}
	}
	var n int64
	var sum string
	q, args := ts.checksum(bounds{})
	if err := db.QueryRow(ctx, q, args...).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	want := goRowHash(got)
	if n != 1 || sum != strconv.FormatInt(want, 10) {
		t.Errorf("row hash %s (%d rows), computed here %d", sum, n, want)
	}
}

// TestNativeHashCoversColumns: the native row hash changes when any one
// column of any of the canonical cases' types changes (to NULL, or from
// NULL), and comes back when it is restored.
func TestNativeHashCoversColumns(t *testing.T) {
	db := testdb.Fresh(t, "stampede_diff_native", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	d := db.Dialect().(dialect.Differ)
	var cols, vals []string
	for i, c := range canonicalCases {
		cols = append(cols, fmt.Sprintf("c%d %s", i, c.typ))
		vals = append(vals, "NULL")
		if c.want != nil {
			vals[i] = "'" + strings.ReplaceAll(c.value, "'", "''") + "'"
		}
	}
	if _, err := db.Exec(ctx, "CREATE TABLE canon (id INT PRIMARY KEY, "+strings.Join(cols, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO canon VALUES (1, "+strings.Join(vals, ", ")+")"); err != nil {
		t.Fatal(err)
	}
	sd := &side{name: "A", db: db, d: d, where: "test"}
	sc, err := sd.readSchema(ctx, "canon")
	if err != nil {
		t.Fatal(err)
	}
	ts := newTableSQL(d, "canon", sc.cols, sc.keys, sc, true)
	sum := func() string {
		q, args := ts.checksum(bounds{})
		var n int64
		var s string
		if err := db.QueryRow(ctx, q, args...).Scan(&n, &s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	orig := sum()
	for i, c := range canonicalCases {
		to := "NULL"
		if c.want == nil {
			to = "'1'"
		}
		if _, err := db.Exec(ctx, fmt.Sprintf("UPDATE canon SET c%d = %s", i, to)); err != nil {
			t.Fatal(err)
		}
		if got := sum(); got == orig {
			t.Errorf("%s: the native hash did not change with the column", c.typ)
		}
		if _, err := db.Exec(ctx, fmt.Sprintf("UPDATE canon SET c%d = %s", i, vals[i])); err != nil {
			t.Fatal(err)
		}
		if got := sum(); got != orig {
			t.Errorf("%s: the native hash %s after restoring, was %s", c.typ, got, orig)
		}
	}
}
