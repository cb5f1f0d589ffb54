package cli_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSweepReloadAfterKill (issue 34, item 1) kills a sweep with SIGKILL
// in its first step's reload, leaving an unfinished load whose mark
// names the data flags (-p recordcount adopted from init, -p fieldlength
// the step's): a second sweep --reload takes the record count from that
// mark, loading init's rows at both steps, not the default 10000.
func TestSweepReloadAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_reloadkill")
	if r := stampede(t, "init", "ycsb", "--workload", "c", "-p", "recordcount=5000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	cmd := exec.Command(bin, "sweep", "ycsb", "--workload", "c", "-p", "fieldlength=50,200", "--reload", "--duration", "2s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGKILL once the reload's table is there, marked with its flags.
	mark := "SELECT coalesce(obj_description(to_regclass('usertable')), '')"
	want := "its data flags: -p recordcount=5000 -p fieldlength=50"
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(queryString(t, db, mark), want) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := queryString(t, db, mark); !strings.Contains(got, want) {
		t.Fatalf("usertable's mark after the kill: %q, want the unfinished load's %q", got, want)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'stampede_load'"); n != 0 {
		t.Fatalf("the load was recorded before the kill: kill it sooner")
	}

	r := stampede(t, "sweep", "ycsb", "--workload", "c", "-p", "fieldlength=50,200", "--reload", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	if r.code != 0 {
		t.Fatalf("the second sweep: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, ": 5000 rows,"); n != 2 {
		t.Errorf("%d reloads of 5000 rows, want 2 (the unfinished load's -p recordcount):\n%s", n, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 5000 {
		t.Errorf("%d rows after the sweep, want 5000", n)
	}
	if got := queryString(t, db, "SELECT settings::jsonb->>'recordcount' FROM stampede_load"); got != "5000" {
		t.Errorf("the load's record says recordcount %s, want 5000", got)
	}
}

// TestSweepInterruptedInReload interrupts a --reload sweep (SIGINT) while
// its first step reloads: its end says that it stopped before a step had
// run, that the database holds no complete load, and the init that loads
// init's data again.
func TestSweepInterruptedInReload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_reloadint")
	if r := stampede(t, "init", "ycsb", "--workload", "c", "-p", "recordcount=5000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	bin := buildStampede(t)
	var out strings.Builder
	cmd := exec.Command(bin, "sweep", "ycsb", "--workload", "c", "-p", "fieldlength=50,200", "--reload", "--duration", "2s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// SIGINT once the reload's table is there, before its record.
	mark := "SELECT coalesce(obj_description(to_regclass('usertable')), '')"
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(queryString(t, db, mark), "-p fieldlength=50") && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	_ = cmd.Wait()
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'stampede_load'"); n != 0 {
		t.Skip("the reload was recorded before the interrupt: the machine was too quick for this test")
	}
	for _, want := range []string{
		"interrupted before its first step had run (in its reload or start)",
		`database "` + db + `" holds no complete load: the sweep's last reload did not finish (before the sweep it held -p fieldlength=100)`,
		"to load what it held before the sweep again: stampede init ycsb -p recordcount=5000 ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the sweep's end lacks %q:\n%s", want, out.String())
		}
	}
}
