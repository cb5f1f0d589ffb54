package cli_test

import (
	"net/url"
	"testing"
)

// TestPgbenchFormHints checks a hint of the pgbench form's errors. Its
// command tree holds only the workload its line runs (app.only); a hint
// that names another verb's command (init pgbench, for a database without
// pgbench's tables) is completed from the whole tree, with that command's
// flags and the database's URL, as stampede's own line's hints are.
func TestPgbenchFormHints(t *testing.T) {
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(testServer(t))
	db := freshDB(t, "pgbhint")
	adminExec(t, "CREATE DATABASE "+db)
	r := stampede(t, "pgbench", "-n", "-S", "-t", "1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), db)
	checkOneLineError(t, r, 2, "load them with `stampede init pgbench --scale N --output-style pgbench postgresql://"+u.User.Username()+"@"+u.Host+"/"+db+"` (or pgbench -i)")
}
