package sqlx_test

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// testDatabaseEnv names the environment variable with the URL of a
// PostgreSQL server for integration tests (scripts/test sets it).
const testDatabaseEnv = "STAMPEDE_TEST_DATABASE"

// testDatabaseURL returns the test server's URL, parsed, or skips the test.
func testDatabaseURL(t testing.TB) *url.URL {
	t.Helper()
	s := os.Getenv(testDatabaseEnv)
	if s == "" {
		t.Skipf("Skipping due to missing environment variable %v", testDatabaseEnv)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		t.Skipf("%s is not a postgresql://host:port/... URL", testDatabaseEnv)
	}
	return u
}

// withHost returns u with its host:port replaced.
func withHost(u *url.URL, hostport string) string {
	c := *u
	c.Host = hostport
	return c.String()
}

// openWorkerDB opens the test server for two workers with a connection
// each, closed when the test ends, and returns worker 0's dedicated
// connection.
func openWorkerDB(t *testing.T) (*sqlx.DB, sqlx.Conn) {
	return openWorkerDBIO(t, false)
}

// openWorkerDBIO is openWorkerDB with thread I/O when threadIO is set.
func openWorkerDBIO(t *testing.T, threadIO bool) (*sqlx.DB, sqlx.Conn) {
	t.Helper()
	u := testDatabaseURL(t)
	db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{u.String()}, MaxConns: 2, Workers: 2, ThreadIO: threadIO})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	conn := db.Conn(0, true)
	t.Cleanup(conn.Release)
	return db, conn
}
