package cli_test

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestTPCCSplitInitKilled kills a TPC-C split init (SIGKILL) once rows of
// its share are committed: its re-run refuses in one line (exit 2) that
// the share is partly loaded and names the way out, which works: cleanup,
// then every client's init, and check passes.
func TestTPCCSplitInitKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 4 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_splitkill")
	bin := buildStampede(t)
	share := func(i string) []string {
		return []string{"init", "tpcc", "--warehouses", "4", "--clients", "2", "--client-index", i, "--db", db, srv}
	}
	cmd := exec.Command(bin, share("0")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for queryIntMaybe(db, "SELECT count(*) FROM stock") <= 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no stock row committed in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if n := queryInt(t, db, "SELECT count(*) FROM stock"); n >= 200000 {
		t.Skipf("the share was complete (%d stock rows) before the kill landed", n)
	}
	r := stampede(t, share("0")...)
	checkFinalError(t, r, 2, "client 0 of 2's share of tpcc (warehouses 1-2 and the items) is partly loaded already in database \""+db+"\"")
	checkFinalError(t, r, 2, "start the split load over: `stampede cleanup tpcc --db "+db+" ")
	checkFinalError(t, r, 2, "`, then every client's init again")
	if r := stampede(t, "cleanup", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("cleanup: exit %d\n%s", r.code, r.stderr)
	}
	for _, i := range []string{"0", "1"} {
		if r := stampede(t, share(i)...); r.code != 0 {
			t.Fatalf("init share %s after cleanup: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM stock"); n != 400000 {
		t.Errorf("stock holds %d rows after both shares, want 400000", n)
	}
	if r := stampede(t, "check", "tpcc", "--warehouses", "4", "--db", db, srv); r.code != 0 {
		t.Errorf("check after the split load over: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
