package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepTPCCAdoptsLoad: a TPC-C sweep given no --warehouses runs its
// steps on the warehouses init loaded, as `stampede run` does (issue 31:
// it refused them against the default --warehouses 1), and
// --active-warehouses given without --warehouses is judged against the
// load, by run and sweep alike: more active than loaded is refused in one
// line naming both numbers, before a sweep's header (and by cockroach's
// command line, `stampede workload run tpcc`); so is a
// --warehouses the load does not hold.
func TestSweepTPCCAdoptsLoad(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "sweepadopt")
	if r := stampede(t, "init", "tpcc", "--warehouses", "2", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	// Orders of warehouse 2 as loaded (clause 4.3.3.1: 3,000 a district).
	loaded2 := queryInt(t, db, `SELECT count(*) FROM "order" WHERE o_w_id = 2`)
	root := t.TempDir()
	base := []string{"--wait=false", "--duration", "1s", "--skip-checks", "--db", db, "--results-dir", root}
	for _, tc := range []struct {
		name string
		args []string
		// active is each step's --active-warehouses as run.json records it.
		active []string
	}{
		{"--active-warehouses 1,2", []string{"--active-warehouses", "1,2", "--concurrency", "2"}, []string{"1", "2"}},
		{"--concurrency 1,2", []string{"--concurrency", "1,2"}, []string{"0", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append(append([]string{"sweep", "tpcc", "--format", "json"}, base...), tc.args...), srv)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if want := "tpcc: the steps run on the 2 warehouses that init loaded (tpcc_meta), as --warehouses was not given"; strings.Count(r.stderr, want) != 1 {
				t.Errorf("stderr lacks %q once:\n%s", want, r.stderr)
			}
			out := parseSweep(t, r.stdout)
			if len(out.Steps) != 2 {
				t.Fatalf("%d steps:\n%s", len(out.Steps), r.stdout)
			}
			for i, st := range out.Steps {
				b, err := os.ReadFile(filepath.Join(st.Dir, runlog.RunFile))
				if err != nil {
					t.Fatal(err)
				}
				var run struct{ Flags map[string]string }
				if err := json.Unmarshal(b, &run); err != nil {
					t.Fatal(err)
				}
				if run.Flags["warehouses"] != "2" || run.Flags["active-warehouses"] != tc.active[i] {
					t.Errorf("step %d ran --warehouses %q --active-warehouses %q, want 2 and %s", i+1,
						run.Flags["warehouses"], run.Flags["active-warehouses"], tc.active[i])
				}
			}
		})
	}
	// Warehouse 2's terminals ran in the steps over both warehouses: its
	// New-Orders are in the database, beyond the orders loaded.
	if n := queryInt(t, db, `SELECT count(*) FROM "order" WHERE o_w_id = 2`); n <= loaded2 {
		t.Errorf("warehouse 2 holds %d orders, as loaded (%d): no step ran its terminals", n, loaded2)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sweep: more active than loaded", []string{"sweep", "tpcc", "--active-warehouses", "1,3"},
			"--active-warehouses 3 is more than the 2 warehouses that init loaded (tpcc_meta): give --active-warehouses 2 or fewer, or load more with `stampede init tpcc --drop --warehouses 3"},
		{"run: more active than loaded", []string{"run", "tpcc", "--active-warehouses", "3"},
			"--active-warehouses 3 is more than the 2 warehouses that init loaded (tpcc_meta): give --active-warehouses 2 or fewer"},
		{"sweep: --warehouses not loaded", []string{"sweep", "tpcc", "--warehouses", "3", "--max-rate", "20,40"},
			"database " + db + " holds 2 warehouses, not --warehouses 3: give --warehouses 2, or reload with `stampede init tpcc --drop --warehouses 3"},
		{"sweep: active past a --warehouses given", []string{"sweep", "tpcc", "--warehouses", "2", "--active-warehouses", "1,3"},
			"--active-warehouses 3 must be at most --warehouses 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append(tc.args, base...), srv)...)
			checkOneLineError(t, r, 2, tc.want)
			if r.stdout != "" {
				t.Errorf("refused, yet printed:\n%s", r.stdout)
			}
		})
	}
	// cockroach's command line (`stampede workload run tpcc`) judges it
	// against the load too.
	r := stampede(t, "workload", "run", "tpcc", "--active-warehouses", "3", "--wait=false", "--duration", "1s", "--db", db, dbURL(t, db))
	checkOneLineError(t, r, 2, "--active-warehouses 3 is more than the 2 warehouses that init loaded (tpcc_meta): give --active-warehouses 2 or fewer, or load more with `stampede workload init tpcc --drop --warehouses 3`")
	// A run given both: still within the load.
	r = stampede(t, append(append([]string{"run", "tpcc", "--active-warehouses", "2"}, base...), srv)...)
	if r.code != 0 || !strings.Contains(r.stderr, "tpcc: the 2 warehouses that init loaded (tpcc_meta), as --warehouses was not given") {
		t.Errorf("run --active-warehouses 2 on a load of 2: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSweepTPCCActiveOneLoaded: on a load of 1 warehouse (the default of
// --warehouses, so nothing is adopted), --active-warehouses 2 given
// without --warehouses is refused against the load, naming both
// numbers, by run and by sweep before its header.
func TestSweepTPCCActiveOneLoaded(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "sweepactive1")
	if r := stampede(t, "init", "tpcc", "--warehouses", "1", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	want := "--active-warehouses 2 is more than the 1 warehouse that init loaded into database " + db + " (tpcc_meta): give --active-warehouses 1 or fewer, or load more with `stampede init tpcc --drop --warehouses 2"
	for _, args := range [][]string{
		{"run", "tpcc", "--active-warehouses", "2"},
		{"sweep", "tpcc", "--active-warehouses", "2,1"}, // the hardest value first
	} {
		t.Run(args[0], func(t *testing.T) {
			r := stampede(t, append(args, "--wait=false", "--duration", "1s", "--skip-checks", "--db", db, "--results-dir", t.TempDir(), srv)...)
			checkOneLineError(t, r, 2, want)
			if r.stdout != "" {
				t.Errorf("refused, yet printed:\n%s", r.stdout)
			}
		})
	}
}
