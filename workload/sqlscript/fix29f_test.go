package sqlscript_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestNoticesOncePerClient: run sql prints each distinct notice once per
// client, as libpq prints it, however many times the script gets it, and
// at the end, for each that came again, how many times it came in all
// and to how many clients: the server's own count of the scripts run
// (each one a row), in every protocol (prepared statements read the
// server's messages on their own path).
func TestNoticesOncePerClient(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlnotice")
	exec1(t, conn, "CREATE TABLE calls (client int)")
	exec1(t, conn, `CREATE FUNCTION noted(i int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO calls VALUES (i);
	RAISE NOTICE 'client %', i USING HINT = 'a hint';
	RETURN i;
END$$`)
	write(t, dir, "noisy.sql", "DROP TABLE IF EXISTS nope;\nSELECT noted(:client_id);\n")
	for _, protocol := range []string{"simple", "extended", "prepared"} {
		t.Run(protocol, func(t *testing.T) {
			exec1(t, conn, "TRUNCATE calls")
			r := stampede(t, dir, "run", "sql", "-f", "noisy.sql", "--protocol", protocol, "--concurrency", "3", "--max-ops", "60", u)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			calls := count(t, conn, "SELECT count(*) FROM calls")
			clients := count(t, conn, "SELECT count(DISTINCT client) FROM calls")
			const drop = `NOTICE:  table "nope" does not exist, skipping`
			// The lines printed, each as often as it must be.
			want := map[string]int{drop: int(clients), "HINT:  a hint": int(clients)}
			summary := []string{fmt.Sprintf("the server sent this notice %d times, to %d clients (printed above once for each): %s", calls, clients, drop)}
			for k := 0; k < 3; k++ {
				n := count(t, conn, fmt.Sprintf("SELECT count(*) FROM calls WHERE client = %d", k))
				if n == 0 {
					continue
				}
				notice := fmt.Sprintf("NOTICE:  client %d", k)
				want[notice] = 1
				if n > 1 {
					summary = append(summary, fmt.Sprintf("the server sent this notice %d times, to 1 client (printed above once for each): %s", n, notice))
				}
			}
			lines := map[string]int{}
			for _, l := range strings.Split(r.stderr, "\n") {
				lines[l]++
			}
			for line, n := range want {
				if lines[line] != n {
					t.Errorf("%q printed %d times, want %d (once per client):\n%s", line, lines[line], n, r.stderr)
				}
			}
			for _, line := range summary {
				if !strings.Contains(r.stderr, line+"\n") {
					t.Errorf("no line %q in\n%s", line, r.stderr)
				}
			}
			if calls < 60 {
				t.Errorf("%d scripts ran, want 60 at least", calls)
			}
		})
	}
}
