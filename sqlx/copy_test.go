package sqlx_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// copyTable has a column of each type a RowWriter encodes, and a quoted
// name, so that CopyEncoded's quoting is exercised too.
const copyTable = `CREATE TABLE "copy me" (s SMALLINT, i INTEGER, b BIGINT, t TEXT, v VARCHAR(10), c CHAR(5), n NAME)`

var copyColumns = []string{"s", "i", "b", "t", "v", "c", "n"}

// copyRow writes row i of the test data.
func copyRow(w *sqlx.RowWriter, i int64) {
	w.Row()
	w.Int(-i)
	w.Int(i * 100_000)
	w.Int(i * 10_000_000_000)
	w.String(strings.Repeat("t", int(i)))
	copy(w.Text(2), "v"+string(rune('0'+i)))
	w.String("c")
	w.Bytes([]byte("n"))
}

// TestCopyEncoded copies rows of every supported column type through
// CopyEncoded into the test server, in batches of uneven size (one empty),
// and reads them back; then rows a RowWriter must refuse, each failing the
// whole COPY with a message naming the row; then a table of a type it
// cannot encode, which must give ErrCopyTypes and copy nothing.
func TestCopyEncoded(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_copy_test", sqlx.Options{MaxConns: 2})
	if _, err := db.Exec(ctx, copyTable); err != nil {
		t.Fatal(err)
	}
	batches := [][]int64{{1, 2}, {}, {3}, {4, 5, 6}}
	next := 0
	n, err := db.CopyEncoded(ctx, 0, "copy me", copyColumns, func(w *sqlx.RowWriter) bool {
		if next == len(batches) {
			return false
		}
		for _, i := range batches[next] {
			copyRow(w, i)
		}
		next++
		return true
	})
	if err != nil || n != 6 {
		t.Fatalf("CopyEncoded = %d, %v; want 6 rows", n, err)
	}
	var got string
	if err := db.QueryRow(ctx, `SELECT string_agg(concat_ws('|', s, i, b, t, v, c || '.', n), ';' ORDER BY b) FROM "copy me"`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	const want = "-1|100000|10000000000|t|v1|c.|n;-2|200000|20000000000|tt|v2|c.|n;-3|300000|30000000000|ttt|v3|c.|n;" +
		"-4|400000|40000000000|tttt|v4|c.|n;-5|500000|50000000000|ttttt|v5|c.|n;-6|600000|60000000000|tttttt|v6|c.|n"
	if got != want {
		t.Errorf("rows read back:\n%s\nwant\n%s", got, want)
	}

	for _, tc := range []struct {
		name string
		row  func(w *sqlx.RowWriter)
		want string
	}{
		{"smallint out of range", func(w *sqlx.RowWriter) {
			copyRow(w, 1)
			w.Row()
			w.Int(40_000)
		}, "row 2: 40000 is out of range for column 1"},
		{"integer out of range", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.Int(1 << 31) }, "row 1: 2147483648 is out of range for column 2"},
		{"string in an integer column", func(w *sqlx.RowWriter) { w.Row(); w.String("x") }, "row 1: column 1 is not a string column"},
		{"integer in a string column", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.Int(1); w.Int(1); w.Int(1) }, "row 1: column 4 is not an integer column"},
		{"too few values", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.Row() }, "row 1 has 1 values for 7 columns"},
		{"too few values in the last row", func(w *sqlx.RowWriter) { w.Row(); w.Int(1) }, "row 1 has 1 values for 7 columns"},
		{"too many values", func(w *sqlx.RowWriter) { copyRow(w, 1); w.Int(1) }, "row 1 has more values than its 7 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			once := false
			n, err := db.CopyEncoded(ctx, 1, "copy me", copyColumns, func(w *sqlx.RowWriter) bool {
				if once {
					return false
				}
				once = true
				tc.row(w)
				return true
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CopyEncoded = %d, %v; want an error containing %q", n, err, tc.want)
			}
		})
	}
	var count int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM "copy me"`).Scan(&count); err != nil || count != 6 {
		t.Errorf("after the failed copies: %d rows (%v), want the first 6 only", count, err)
	}

	if _, err := db.Exec(ctx, "CREATE TABLE priced (id INTEGER, price NUMERIC)"); err != nil {
		t.Fatal(err)
	}
	called := false
	_, err = db.CopyEncoded(ctx, 0, "priced", []string{"id", "price"}, func(*sqlx.RowWriter) bool { called = true; return false })
	if !errors.Is(err, sqlx.ErrCopyTypes) || !strings.Contains(err.Error(), "column price") || called {
		t.Errorf("CopyEncoded into a NUMERIC column: %v (fill called: %t), want ErrCopyTypes naming price, before any row", err, called)
	}
}

// TestCopyEncodedNull runs CopyEncoded on the null driver: every batch is
// written and counted, any value goes in any column, and a malformed row
// is still an error.
func TestCopyEncodedNull(t *testing.T) {
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{Driver: "null"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	left := 3
	n, err := db.CopyEncoded(ctx, 0, "t", []string{"a", "b"}, func(w *sqlx.RowWriter) bool {
		if left == 0 {
			return false
		}
		left--
		for range 1000 {
			w.Row()
			w.Int(1 << 40)
			w.String("x")
		}
		return true
	})
	if err != nil || n != 3000 {
		t.Errorf("CopyEncoded on the null driver = %d, %v; want 3000 rows", n, err)
	}
	_, err = db.CopyEncoded(ctx, 0, "t", []string{"a", "b"}, func(w *sqlx.RowWriter) bool {
		w.Row()
		w.Int(1)
		return false
	})
	if err == nil || !strings.Contains(err.Error(), "row 1 has 1 values for 2 columns") {
		t.Errorf("a short row on the null driver: %v", err)
	}
}

// TestCopyInTx: the statements before and the COPY commit together, and a
// COPY that fails rolls the statements before it back, leaving the
// connection usable (the pool has one).
func TestCopyInTx(t *testing.T) {
	db := testdb.Fresh(t, "stampede_sqlx_copyintx", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	if _, err := db.Exec(ctx, "CREATE TABLE c (a int)"); err != nil {
		t.Fatal(err)
	}
	count := func() (n int64) {
		t.Helper()
		if err := db.QueryRow(ctx, "SELECT count(*) FROM c").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := db.CopyInTx(ctx, 0, []string{"INSERT INTO c VALUES (1)"}, "COPY c FROM STDIN", strings.NewReader("2\nx\n")); err == nil {
		t.Fatal("a COPY of a bad row succeeded")
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows after a failed COPY, want 0 (the INSERT before it rolled back)", n)
	}
	n, err := db.CopyInTx(ctx, 0, []string{"TRUNCATE c", "INSERT INTO c VALUES (1)"}, "COPY c FROM STDIN WITH (FREEZE ON)", strings.NewReader("2\n3\n"))
	if err != nil || n != 2 {
		t.Fatalf("copied %d rows, %v; want 2", n, err)
	}
	if n := count(); n != 3 {
		t.Fatalf("%d rows, want 3", n)
	}
}

// TestCopyEncodedTime copies times through RowWriter.Time into timestamptz
// and timestamp columns and reads them back through pgx (the server's
// own reading of the values): before 1970, before 2000, with nanoseconds
// (truncated to the microsecond toward the past), in another zone; then a
// time in an integer column and an integer in a time column, refused.
func TestCopyEncodedTime(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_copy_time", sqlx.Options{MaxConns: 1})
	if _, err := db.Exec(ctx, "CREATE TABLE times (id INT, tz TIMESTAMPTZ, ts TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	zone := time.FixedZone("UTC+5", 5*3600)
	times := []time.Time{
		time.Date(2026, 11, 29, 17, 30, 1, 123456789, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1969, 7, 20, 20, 17, 40, 500, time.UTC),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2030, 1, 1, 4, 0, 0, 1000, zone),
	}
	once := false
	n, err := db.CopyEncoded(ctx, 0, "times", []string{"id", "tz", "ts"}, func(w *sqlx.RowWriter) bool {
		if once {
			return false
		}
		once = true
		for i, at := range times {
			w.Row()
			w.Int(int64(i))
			w.Time(at)
			w.Time(at)
		}
		return true
	})
	if err != nil || n != int64(len(times)) {
		t.Fatalf("CopyEncoded = %d, %v; want %d rows", n, err, len(times))
	}
	rows, err := db.Query(ctx, "SELECT id, tz, ts::text FROM times ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var tz time.Time
		var ts string
		if err := rows.Scan(&id, &tz, &ts); err != nil {
			t.Fatal(err)
		}
		want := times[id].Truncate(time.Microsecond) // toward the past, 1969 too
		if !tz.Equal(want) {
			t.Errorf("row %d: timestamptz read back %s, want %s", id, tz, want)
		}
		if w := want.UTC().Format("2006-01-02 15:04:05.999999"); ts != w {
			t.Errorf("row %d: timestamp read back %s, want %s (the UTC wall time)", id, ts, w)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		row  func(w *sqlx.RowWriter)
		want string
	}{
		{"time in an integer column", func(w *sqlx.RowWriter) { w.Row(); w.Time(times[0]) }, "row 1: column 1 is not a timestamp column"},
		{"integer in a time column", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.Int(1) }, "row 1: column 2 is a timestamp column"},
		{"string in a time column", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.String("now") }, "row 1: column 2 is a timestamp column"},
		{"time past the row", func(w *sqlx.RowWriter) { w.Row(); w.Int(1); w.Time(times[0]); w.Time(times[0]); w.Time(times[0]) }, "row 1 has more values than its 3 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			once := false
			_, err := db.CopyEncoded(ctx, 0, "times", []string{"id", "tz", "ts"}, func(w *sqlx.RowWriter) bool {
				if once {
					return false
				}
				once = true
				tc.row(w)
				return true
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CopyEncoded = %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
