package ycsb_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/cmdline/ycsb"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestJDBCCurrentSchema connects through the URLs a db.url's
// currentSchema becomes and asks the test server for its search_path:
// libpq's options must reach it as "-c search_path=..." exactly (a space
// written '+' arrived as a setting "+search_path").
func TestJDBCCurrentSchema(t *testing.T) {
	db := testdb.Fresh(t, "stampede_jdbcschema", sqlx.Options{MaxConns: 1})
	srv, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, want string
	}{
		{"s", "s"},
		{"s,public", "s,public"},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			jdbc := fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable&currentSchema=%s", srv.Host, db.Database(), url.QueryEscape(tc.schema))
			l, err := ycsb.Parse([]string{"run", "jdbc", "-p", jdbc, "-p", "db.user=" + srv.User.Username()})
			if err != nil {
				t.Fatal(err)
			}
			conn := l.Args[len(l.Args)-1]
			if !strings.HasPrefix(conn, "postgresql://") {
				t.Fatalf("the line's last argument %q is no URL: %q", conn, l.Args)
			}
			ctx := context.Background()
			c, err := pgx.Connect(ctx, conn)
			if err != nil {
				t.Fatalf("connecting through %s: %v", conn, err)
			}
			defer c.Close(ctx)
			var got string
			if err := c.QueryRow(ctx, "SHOW search_path").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("search_path %q through %s, want %q", got, conn, tc.want)
			}
		})
	}
}
