// Package testdb gives integration tests a database of their own on the
// PostgreSQL server named by STAMPEDE_TEST_DATABASE (scripts/test starts
// one and sets it). Tests that need a server skip when it is unset.
package testdb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// Env is the variable holding the test server's URL, such as
// postgresql://postgres@127.0.0.1:5432/postgres?sslmode=disable.
const Env = "STAMPEDE_TEST_DATABASE"

// URL returns the test server's URL, or skips the test when it is unset.
func URL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(Env)
	if url == "" {
		t.Skip(Env + " not set: scripts/test starts a server and sets it")
	}
	return url
}

// Fresh creates a database named prefix_<random> on the test server,
// opens it with opts (URLs and Database are filled in), and drops it
// (WITH (FORCE)) when the test ends. It skips when there is no server.
func Fresh(t testing.TB, prefix string, opts sqlx.Options) *sqlx.DB {
	t.Helper()
	url := URL(t)
	ctx := context.Background()
	admin, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%d", prefix, rand.Uint32())
	if _, err := admin.Exec(ctx, admin.Dialect().CreateDatabase(name)); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(context.Background(), admin.Dialect().DropDatabase(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	opts.URLs, opts.Database = []string{url}, name
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close) // runs before the drop
	return db
}
