package cli_test

import (
	"strings"
	"testing"
)

// TestForceDropSubscription: `workload init --force-drop` over a database
// stampede made that a user's logical replication subscription now lives
// in: the refusal names the subscription; --force-drop drops it (detached
// from its slot, which stays on the publisher, as the line says) and the
// database, and loads again. Before, --force-drop named it and then failed
// on DROP DATABASE ("is being used by logical replication subscription").
func TestForceDropSubscription(t *testing.T) {
	db := freshDB(t, "stampede_sub28")
	u := dbURL(t, "")
	if r := stampede(t, "workload", "init", "bank", "--rows=10", "--db", db, u); r.code != 0 {
		t.Fatalf("workload init bank: exit %d: %s", r.code, r.stderr)
	}
	execIn(t, db, "CREATE SUBSCRIPTION sub28_usub CONNECTION 'host=127.0.0.1 dbname=nosuch' PUBLICATION p WITH (connect = false)")
	t.Cleanup(func() {
		if queryInt(t, "postgres", "SELECT count(*) FROM pg_subscription WHERE subname = 'sub28_usub'") > 0 {
			execIn(t, db, "ALTER SUBSCRIPTION sub28_usub SET (slot_name = NONE)", "DROP SUBSCRIPTION sub28_usub")
		}
	})
	r := stampede(t, "workload", "init", "bank", "--rows=10", "--db", db, "--drop", u)
	if r.code == 0 || !strings.Contains(r.stderr, "sub28_usub") || !strings.Contains(r.stderr, "--force-drop") {
		t.Fatalf("--drop over the user's subscription: exit %d, want the refusal naming it and --force-drop:\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_subscription WHERE subname = 'sub28_usub'"); n != 1 {
		t.Fatalf("the refusal dropped the subscription (%d left)", n)
	}
	r = stampede(t, "workload", "init", "bank", "--rows=10", "--db", db, "--force-drop", u)
	if r.code != 0 {
		t.Fatalf("--force-drop: exit %d:\n%s", r.code, r.stderr)
	}
	if want := "--force-drop: dropping subscription sub28_usub of database \"" + db + "\" (its replication slot sub28_usub on the publisher is kept: drop it there)"; !strings.Contains(r.stderr, want) {
		t.Errorf("--force-drop does not say what it drops: want %q in\n%s", want, r.stderr)
	}
	if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_subscription WHERE subname = 'sub28_usub'"); n != 0 {
		t.Errorf("%d subscriptions sub28_usub left after --force-drop", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != 10 {
		t.Errorf("bank holds %d rows after the reload, want 10", n)
	}
}
