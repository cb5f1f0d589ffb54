package cli_test

import (
	"strings"
	"testing"
	"time"
)

// TestStoreClientsTogether runs 4 clients at once into a fresh PostgreSQL
// results store, as a benchmark's clients started together do: each
// creates the store's tables (they once collided in pg_type, and the
// losers went on in a local directory, saying the store was lost), and
// every run is in the store. report --tag --format json of them reads the
// same bytes from the store as from the directory: runs that start in
// the same second are listed in the order of their start, then ID, from
// both (the store's once by ID alone).
func TestStoreClientsTogether(t *testing.T) {
	st := storeDB(t)
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	dir := t.TempDir()
	startAt := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	done := make(chan result, 4)
	for range 4 {
		go func() {
			done <- stampede(t, append(storeRun("together", "--duration", "2s"), "--start-at", startAt, "--results-dir", dir, "--results-url", st)...)
		}()
	}
	for range 4 {
		r := <-done
		if r.code != 0 || strings.Contains(r.stderr, "results store") {
			t.Errorf("client: exit %d, said of the store:\n%s", r.code, r.stderr)
		}
	}
	ls := stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--tag", "job=together")
	if n := strings.Count(ls.stdout, "-ycsb-"); ls.code != 0 || n != 4 {
		t.Errorf("the store lists %d runs of 4:\n%s%s", n, ls.stdout, ls.stderr)
	}
	sameReport(t, dir, st, "--tag", "job=together")
}
