package sqlx_test

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestInterpolate(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	for _, tc := range []struct {
		sql    string
		params [][]byte
		want   string
	}{
		{"SELECT c FROM sbtest1 WHERE id=$1", [][]byte{b("42")}, "SELECT c FROM sbtest1 WHERE id=42"},
		{"UPDATE t SET c=$1 WHERE id=$2", [][]byte{b("12-34"), b("7")}, "UPDATE t SET c='12-34' WHERE id=7"},
		{"SELECT k-$1", [][]byte{b("-5")}, "SELECT k-(-5)"},
		{"SELECT $1, $2", [][]byte{nil, b("it's")}, "SELECT NULL, 'it''s'"},
		{"SELECT '$1', \"$1\" -- $1\n, $1 /* $1 */", [][]byte{b("9")}, "SELECT '$1', \"$1\" -- $1\n, 9 /* $1 */"},
		{"SELECT $2, $10", [][]byte{b("1")}, "SELECT $2, $10"},
		{"SELECT $1", [][]byte{b("99999999999999999999")}, "SELECT '99999999999999999999'"},
		{"SELECT 'a''$1', $1", [][]byte{b("x")}, "SELECT 'a''$1', 'x'"},
	} {
		if got := sqlx.Interpolate(tc.sql, tc.params); got != tc.want {
			t.Errorf("Interpolate(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// TestTextStatements checks that with TextStatements nothing is prepared
// on the server, through the fast path (in and out of a transaction) and
// pgx's Exec and Query with arguments, and that the rows affected are
// counted as with prepared statements.
func TestTextStatements(t *testing.T) {
	u := testDatabaseURL(t)
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{u.String()}, MaxConns: 1, Workers: 1, TextStatements: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.TextStatements() {
		t.Fatal("TextStatements() is false")
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	raw, ok := conn.(sqlx.RawQuerier)
	if !ok {
		t.Fatal("a dedicated connection has no fast path")
	}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE tt (id int, c char(10))"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO tt VALUES ($1, $2), ($3, $4)", 1, "a'b", 2, []byte("x")); err != nil {
		t.Fatal(err)
	}
	n, err := raw.QueryRaw(ctx, "DELETE FROM tt WHERE id=$1", [][]byte{[]byte("3")}, nil)
	if err != nil || n != 0 {
		t.Fatalf("delete of a missing id: %d rows, %v", n, err)
	}
	tx, err := conn.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	n, err = tx.(sqlx.RawQuerier).QueryRaw(ctx, "SELECT c FROM tt WHERE id BETWEEN $1 AND $2 ORDER BY id", [][]byte{[]byte("1"), []byte("2")},
		func(cols [][]byte) { got = append(got, string(cols[0])) })
	if err != nil || n != 2 {
		t.Fatalf("select: %d rows, %v", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "a'b       " {
		t.Errorf("rows %q", got)
	}
	var prepared int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	if prepared != 0 {
		t.Errorf("%d statements prepared on the connection, want none", prepared)
	}
}
