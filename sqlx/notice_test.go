package sqlx_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestNoticesToTheirWorker: a notice the server sends on a worker's
// connection reaches OnNotice's function with that worker, in every
// protocol (the prepared one's fast path too, which reads the messages
// itself), and one on a pooled connection with -1; without a function,
// Options.Notices gets it as libpq prints it.
func TestNoticesToTheirWorker(t *testing.T) {
	u := testDatabaseURL(t)
	var printed strings.Builder
	db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{u.String()}, MaxConns: 2, Workers: 2, Notices: &printed})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var got []string
	db.OnNotice(func(worker int, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(rune('0'+worker+1))+" "+n.Severity+" "+n.Message)
	})
	ctx := context.Background()
	conn := db.Conn(1, true)
	q := conn.(sqlx.ScriptQuerier)
	for _, c := range []struct {
		p    sqlx.Protocol
		name string
		runs int
	}{
		{sqlx.Simple, "simple", 1},
		{sqlx.Extended, "extended", 1},
		// Prepared, then run on the fast path, twice.
		{sqlx.Prepared, "prepared", 3},
	} {
		for i := 0; i < c.runs; i++ {
			if _, err := q.QueryScript(ctx, c.p, "DROP TABLE IF EXISTS sqlx_notice_"+c.name, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	conn.Release()
	if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS sqlx_notice_pooled"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`2 NOTICE table "sqlx_notice_simple" does not exist, skipping`,
		`2 NOTICE table "sqlx_notice_extended" does not exist, skipping`,
		`2 NOTICE table "sqlx_notice_prepared" does not exist, skipping`,
		`2 NOTICE table "sqlx_notice_prepared" does not exist, skipping`,
		`2 NOTICE table "sqlx_notice_prepared" does not exist, skipping`,
		`0 NOTICE table "sqlx_notice_pooled" does not exist, skipping`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || printed.Len() != 0 {
		t.Errorf("OnNotice got (worker+1, severity, message)\n%s\nwant\n%s\n(and Options.Notices %q, want nothing)", strings.Join(got, "\n"), strings.Join(want, "\n"), printed.String())
	}
	db.OnNotice(nil)
	if _, err := db.Exec(ctx, "DROP TABLE IF EXISTS sqlx_notice_printed"); err != nil {
		t.Fatal(err)
	}
	if want := "NOTICE:  table \"sqlx_notice_printed\" does not exist, skipping\n"; printed.String() != want {
		t.Errorf("Options.Notices got %q, want %q", printed.String(), want)
	}
}
