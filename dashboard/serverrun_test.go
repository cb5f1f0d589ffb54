package dashboard_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/stampede-bench/stampede/runlog"
)

// serverRun runs a workload against the test server for a browser test:
// in a database of its own named after prefix (dropped when the test
// ends), `stampede init WORKLOAD initArgs... URL`, then `stampede run
// WORKLOAD runArgs... --results-dir ROOT URL`. It returns the results
// directory, the run's ID and what the run printed. It skips the test
// under -short and without STAMPEDE_TEST_DATABASE.
func serverRun(t *testing.T, prefix, workload string, initArgs, runArgs []string) (root, id, out string) {
	t.Helper()
	dbURL := serverDatabase(t, prefix)
	root = t.TempDir()
	stampede(t, append(append([]string{"init", workload}, initArgs...), dbURL)...)
	out = string(stampede(t, append(append([]string{"run", workload}, runArgs...), "--results-dir", root, dbURL)...))
	infos, err := runlog.List(root)
	if err != nil || len(infos) != 1 {
		t.Fatalf("runs: %v %v", infos, err)
	}
	return root, infos[0].ID, out
}

// serverDatabase makes a database of the test server's for a browser
// test, named after prefix (dropped when the test ends), and returns its
// URL. It skips the test under -short and without
// STAMPEDE_TEST_DATABASE.
func serverDatabase(t *testing.T, prefix string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short")
	}
	admin := os.Getenv("STAMPEDE_TEST_DATABASE")
	if admin == "" {
		t.Skip("Skipping due to missing environment variable STAMPEDE_TEST_DATABASE")
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano()%1e9)
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer db.Close()
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
