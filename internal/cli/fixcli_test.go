package cli_test

import (
	"strings"
	"testing"
)

// TestReloadHintOfSplitRun: a split run (--clients N --client-index I)
// refused because its data settings differ from the load advises a
// reload that init accepts (before, it carried --clients and
// --client-index, which init refuses with --drop); after the advised
// reload, the split run runs.
func TestReloadHintOfSplitRun(t *testing.T) {
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fixcli_hint")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "ycsb", "-p", "recordcount=100", u)
	run := []string{"run", "ycsb", "-p", "recordcount=800", "--clients", "2", "--client-index", "1", "--max-ops", "50", u}
	r := stampede(t, run...)
	m := hintRE.FindStringSubmatch(r.stderr)
	if r.code != 2 || m == nil || !strings.HasPrefix(m[1], "stampede init ycsb --drop") {
		t.Fatalf("the split run: exit %d, no reload advised:\n%s", r.code, r.stderr)
	}
	words := shellWords(t, m[1])
	if r := stampede(t, words[1:]...); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("the advice %s: exit %d\n%s", m[1], r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 800 {
		t.Errorf("the advised reload loaded %d rows, want 800", n)
	}
	if r := stampede(t, run...); r.code != 0 {
		t.Errorf("the split run after the reload: exit %d\n%s", r.code, r.stderr)
	}
}
