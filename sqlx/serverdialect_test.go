package sqlx_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestServerDialect checks that ServerDialect tells the test server's
// dialect, for an existing database and for one that does not exist,
// which it leaves uncreated; an unreachable server is an error.
func TestServerDialect(t *testing.T) {
	u := testDatabaseURL(t)
	ctx := context.Background()
	missing := fmt.Sprintf("sqlx_serverdialect_%d", time.Now().UnixNano()%1e9)
	m := *u
	m.Path = "/" + missing
	for _, url := range []string{u.String(), m.String()} {
		d, err := sqlx.ServerDialect(ctx, sqlx.Options{URLs: []string{url}})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if _, ok := d.(dialect.Postgres); !ok {
			t.Errorf("%s: dialect %s, want postgres", url, d.Name())
		}
	}
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", missing).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s: %d (%v): ServerDialect created it", missing, n, err)
	}
	if d, err := sqlx.ServerDialect(ctx, sqlx.Options{Driver: sqlx.DriverNull}); err != nil || d.Name() != "postgres" {
		t.Errorf("null driver: %v %v", d, err)
	}
	if _, err := sqlx.ServerDialect(ctx, sqlx.Options{URLs: []string{withHost(u, "127.0.0.1:1")}, ConnectTimeout: time.Second}); err == nil {
		t.Error("an unreachable server: no error")
	}
}
