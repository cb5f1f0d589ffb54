package sqlx_test

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestOpenDialect checks that Open finds PostgreSQL's dialect on the test
// server, keeps a forced one, and gives the null driver PostgreSQL's.
func TestOpenDialect(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts sqlx.Options
		want dialect.Dialect
	}{
		{"null", sqlx.Options{Driver: sqlx.DriverNull}, dialect.Postgres{}},
		{"detected", sqlx.Options{}, dialect.Postgres{}},
		{"forced", sqlx.Options{Dialect: dialect.Cockroach{}}, dialect.Cockroach{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Driver != sqlx.DriverNull {
				tc.opts.URLs = []string{testDatabaseURL(t).String()}
			}
			db, err := sqlx.Open(context.Background(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := db.Dialect(); got != tc.want {
				t.Errorf("Dialect() = %#v, want %#v", got, tc.want)
			}
		})
	}
}
