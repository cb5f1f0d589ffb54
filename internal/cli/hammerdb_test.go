package cli_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// summaryFigures reads the figures of the summary.json of run directory dir.
func summaryFigures(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	var sum struct {
		Figures map[string]float64 `json:"figures"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		t.Fatal(err)
	}
	return sum.Figures
}

// TestHammerDBRun runs `init tpcc --profile hammerdb` and `run tpcc
// --profile hammerdb` as a user does: the run prints HammerDB's result
// line after stampede's figures, NOPM equal to the growth of
// sum(d_next_o_id) the test reads per nominal minute, keeps both figures
// in summary.json, and report --tag of two clients adds them up; the
// other profile's database, a replaced routine without
// --use-installed-routines and a missing one are refused in one line.
func TestHammerDBRun(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_hammerdb")
	if r := stampede(t, "init", "tpcc", "--profile", "hammerdb", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	root := t.TempDir()
	before := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district")
	r := stampede(t, "run", "tpcc", "--profile", "hammerdb", "--concurrency", "3", "--duration", "3s", "--db", db,
		"--results-dir", root, "--tag", "job=hdb", "--clients", "2", "--client-index", "0", srv)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	growth := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district") - before
	nopm := float64(growth) / (3.0 / 60)
	m := regexp.MustCompile(`(?m)^  hammerdb_nopm: TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no result line:\n%s", r.stdout)
	}
	if got, _ := strconv.ParseFloat(m[1], 64); growth == 0 || got != math.Floor(nopm) {
		t.Errorf("result line %q: want NOPM %v, sum(d_next_o_id) grew by %d in the nominal 3s", m[0], math.Floor(nopm), growth)
	}
	if i, j := strings.Index(r.stdout, "\n  tpmC: "), strings.Index(r.stdout, m[0]); i < 0 || j < i {
		t.Errorf("the result line is not after stampede's figures:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "1% of New-Orders end on item 100001, which does not exist, and commit") {
		t.Errorf("the header does not name the unused item's deviation:\n%s", r.stderr)
	}
	dir := lastRun(t, root)
	figs := summaryFigures(t, dir)
	tpm, _ := strconv.ParseFloat(m[2], 64)
	if figs["hammerdb_nopm"] != nopm || math.Floor(figs["hammerdb_tpm"]) != tpm {
		t.Errorf("summary.json figures %v, want hammerdb_nopm %v and hammerdb_tpm %v", figs, nopm, tpm)
	}
	// A second client: report --tag adds their NOPM up.
	r2 := stampede(t, "run", "tpcc", "--profile", "hammerdb", "--concurrency", "2", "--duration", "2s", "--skip-checks", "--db", db,
		"--results-dir", root, "--tag", "job=hdb", "--clients", "2", "--client-index", "1", srv)
	if r2.code != 0 {
		t.Fatalf("run 2: %d\n%s", r2.code, r2.stderr)
	}
	var figs2 map[string]float64
	for _, e := range []string{filepath.Join(root, runID(t, r2.stderr))} {
		figs2 = summaryFigures(t, e)
	}
	// They ran one after the other on one database: their measured
	// periods do not overlap, so no workload figure is merged (the
	// server's, counted once per database, have no common interval), and
	// the report says why.
	rep := stampede(t, "report", "--results-dir", root, "--tag", "job=hdb")
	if rep.code != 0 || strings.Contains(rep.stdout, "TEST RESULT") || !strings.Contains(rep.stdout, "tpcc figures: none merged: the clients' measured periods do not overlap") ||
		figs2["hammerdb_nopm"] == 0 {
		t.Errorf("report --tag of two clients one after the other on one database (exit %d): want no result line, and why\n%s%s", rep.code, rep.stdout, rep.stderr)
	}

	// Bad input, one line each.
	checkOneLineError(t, stampede(t, "run", "tpcc", "--duration", "1s", "--db", db, "--results-dir", root, srv), 2,
		"holds HammerDB's TPROC-C schema (table orders), loaded with --profile hammerdb: add --profile hammerdb")
	execIn(t, db, "CREATE OR REPLACE FUNCTION slev(a_w_id integer, a_d_id integer, a_threshold integer) RETURNS integer LANGUAGE sql AS 'SELECT 0'")
	// A replaced routine is called as installed, as HammerDB calls it,
	// and the header names it.
	if r := stampede(t, "run", "tpcc", "--profile", "hammerdb", "--duration", "1s", "--skip-checks", "--db", db, "--results-dir", root, srv); r.code != 0 ||
		!strings.Contains(r.stdout+r.stderr, "function slev(integer,integer,integer) in database "+db+" is not the one stampede's init made (yours, or replaced since): the run calls the routines installed, as HammerDB does") {
		t.Errorf("run over a replaced slev (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	execIn(t, db, "DROP FUNCTION ostat(integer, integer, integer, integer, varchar)")
	checkOneLineError(t, stampede(t, "run", "tpcc", "--profile", "hammerdb", "--use-installed-routines", "--duration", "1s", "--db", db, "--results-dir", root, srv), 2,
		"function ostat (Order-Status) is missing from database "+db+": run `stampede init tpcc --profile hammerdb --routines-only --use-installed-routines")
	// The remedy works as given (slev is the user's: init keeps it).
	if r := stampede(t, "init", "tpcc", "--profile", "hammerdb", "--routines-only", "--use-installed-routines", "--db", db, srv); r.code != 0 {
		t.Errorf("the suggested init --routines-only (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	execIn(t, db, "DROP FUNCTION ostat(integer, integer, integer, integer, varchar)")
	checkOneLineError(t, stampede(t, "init", "tpcc", "--profile", "hammerdb", "--drop", "--db", db, srv), 2,
		"function slev(integer,integer,integer) in database "+db+" was not made by stampede, or was replaced since: init never replaces a routine it did not make")
}

// TestTPCCServerSideCompare loads stampede's TPC-C with its server-side
// functions (init --server-side) and runs it client-side and server-side
// on the same data and workers: both pass the consistency checks, each
// run's NOPM is the growth of sum(d_next_o_id) the test reads, and one
// compare puts them side by side.
func TestTPCCServerSideCompare(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_serverside")
	if r := stampede(t, "init", "tpcc", "--server-side", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	root := t.TempDir()
	var ids []string
	for _, side := range [][]string{nil, {"--server-side"}} {
		before := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district")
		args := append([]string{"run", "tpcc", "--wait=false", "--concurrency", "3", "--duration", "3s", "--expensive-checks",
			"--db", db, "--results-dir", root}, side...)
		r := stampede(t, append(args, srv)...)
		if r.code != 0 {
			t.Fatalf("run %q: %d\n%s\n%s", side, r.code, r.stdout, r.stderr)
		}
		growth := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district") - before
		if _, line := figureLine(t, r.stdout, "NOPM"); growth == 0 || !strings.Contains(line, "sum(d_next_o_id) grew by "+strconv.FormatInt(growth, 10)+",") {
			t.Errorf("run %q: %q, want a growth of %d", side, line, growth)
		}
		if n := strings.Count(r.stdout+r.stderr, ": PASS"); !strings.Contains(r.stdout+r.stderr, "3.3.2.12 C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer: PASS") || n < 11 {
			t.Errorf("run %q: the checks did not pass:\n%s%s", side, r.stdout, r.stderr)
		}
		if server := strings.Contains(r.stderr, "tpcc: --server-side: each transaction is one call of a server-side function"); server != (side != nil) {
			t.Errorf("run %q: header says server-side %v:\n%s", side, server, r.stderr)
		}
		ids = append(ids, runID(t, r.stderr))
	}
	c := stampede(t, "compare", "--results-dir", root, ids[0], ids[1])
	if c.code != 0 || !strings.Contains(c.stdout, "A: run "+ids[0]) || !strings.Contains(c.stdout, "B: run "+ids[1]) ||
		!regexp.MustCompile(`(?m)^newOrder +[0-9.]+ +[0-9.]+ `).MatchString(c.stdout) || !regexp.MustCompile(`(?m)^NOPM +[0-9.]+ +[0-9.]+ `).MatchString(c.stdout) {
		t.Errorf("compare (exit %d):\n%s%s", c.code, c.stdout, c.stderr)
	}
	// A run server-side without the functions is refused, naming one.
	execIn(t, db, "DROP FUNCTION stampede_payment(integer, integer, integer, integer, integer, integer, numeric, varchar, varchar, numeric)")
	checkOneLineError(t, stampede(t, "run", "tpcc", "--server-side", "--duration", "1s", "--db", db, "--results-dir", root, srv), 2,
		"function stampede_payment (Payment) is missing from database "+db+": run `stampede init tpcc --server-side")
	// A replaced function of stampede's own server-side mode is refused,
	// and the remedy it names makes stampede's in its place.
	if r := stampede(t, "init", "tpcc", "--server-side", "--routines-only", "--db", db, srv); r.code != 0 {
		t.Fatalf("init --routines-only (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	execIn(t, db, "CREATE OR REPLACE FUNCTION stampede_slev(integer, integer, integer) RETURNS integer LANGUAGE sql AS 'SELECT 0'")
	checkOneLineError(t, stampede(t, "run", "tpcc", "--server-side", "--duration", "1s", "--db", db, "--results-dir", root, srv), 2,
		"function stampede_slev(integer,integer,integer) in database "+db+" is not the one stampede's init made (made by another, or replaced since): re-run `stampede init tpcc --server-side --routines-only --force-drop")
	if r := stampede(t, "init", "tpcc", "--server-side", "--routines-only", "--force-drop", "--db", db, srv); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "(in place of yours: --force-drop)") {
		t.Errorf("the remedy init --routines-only --force-drop (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := stampede(t, "run", "tpcc", "--server-side", "--wait=false", "--duration", "1s", "--skip-checks", "--db", db, "--results-dir", root, srv); r.code != 0 {
		t.Errorf("run after the remedy (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestHammerDBCleanupRoutines: cleanup tpcc drops, with the tables, the
// routines init made (HammerDB's functions or procedures, --server-side's
// stampede_* functions) whose mark still matches their body, and keeps a
// user's replaced neword, saying so in one line.
func TestHammerDBCleanupRoutines(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	for _, c := range []struct {
		name, kind, neword string
		flags              []string
	}{
		{"functions", "function", "neword", []string{"--profile", "hammerdb"}},
		{"procedures", "procedure", "neword", []string{"--profile", "hammerdb", "--stored-procs"}},
		{"server-side", "function", "stampede_neword", []string{"--server-side"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := freshDB(t, "stampede_hdbclean")
			if r := stampede(t, append(append([]string{"init", "tpcc"}, c.flags...), "--db", db, srv)...); r.code != 0 {
				t.Fatalf("init: %d %s", r.code, r.stderr)
			}
			ctx := context.Background()
			conn := connectTo(t, ctx, db)
			defer conn.Close(ctx)
			var def string
			if err := conn.QueryRow(ctx, "SELECT pg_get_functiondef(oid) FROM pg_proc WHERE proname = $1", c.neword).Scan(&def); err != nil {
				t.Fatal(err)
			}
			mine := strings.Replace(def, "\nBEGIN\n", "\nBEGIN\n  PERFORM 1; -- the user's\n", 1)
			if mine == def {
				t.Fatalf("no BEGIN line in %s:\n%s", c.neword, def)
			}
			if _, err := conn.Exec(ctx, mine); err != nil {
				t.Fatal(err)
			}
			names := "'neword', 'payment', 'delivery', 'ostat', 'slev', 'stampede_neword', 'stampede_payment', 'stampede_delivery', 'stampede_ostat', 'stampede_slev'"
			if n := queryInt(t, db, "SELECT count(*) FROM pg_proc WHERE proname IN ("+names+")"); n != 5 {
				t.Fatalf("%d routines after init, want 5", n)
			}
			r := stampede(t, append(append([]string{"cleanup", "tpcc"}, c.flags...), "--db", db, srv)...)
			if r.code != 0 {
				t.Fatalf("cleanup: %d %s", r.code, r.stderr)
			}
			out := r.stdout + r.stderr
			var left []string
			rows, err := conn.Query(ctx, "SELECT proname::text, prosrc FROM pg_proc WHERE proname IN ("+names+")")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var name, src string
				if err := rows.Scan(&name, &src); err != nil {
					t.Fatal(err)
				}
				if name != c.neword || !strings.Contains(src, "PERFORM 1; -- the user's") {
					t.Errorf("cleanup left %s %s (not the user's)", c.kind, name)
				}
				left = append(left, name)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if len(left) != 1 {
				t.Errorf("cleanup left %q, want the user's %s only", left, c.neword)
			}
			kept := regexp.MustCompile(`(?m)^kept ` + c.kind + ` ` + c.neword + `\([a-z ,\[\]]+\) in database ` + db + `: not made by stampede's init, or replaced since.*$`)
			if n := len(kept.FindAllString(out, -1)); n != 1 {
				t.Errorf("cleanup said %d times that it kept the user's %s, want once:\n%s", n, c.neword, out)
			}
			prefix := strings.TrimSuffix(c.neword, "neword")
			for _, n := range []string{"payment", "delivery", "ostat", "slev"} {
				if !strings.Contains(out, "dropped "+c.kind+" "+prefix+n+"(") {
					t.Errorf("cleanup did not say it dropped %s %s:\n%s", c.kind, prefix+n, out)
				}
			}
			// HammerDB's sixth routine, DBMS_RANDOM, init's too: dropped.
			if random := strings.Contains(out, "dropped function dbms_random(integer,integer)"); random != (prefix == "") {
				t.Errorf("cleanup said it dropped dbms_random: %v, want %v:\n%s", random, prefix == "", out)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_proc WHERE proname = 'dbms_random'"); n != 0 {
				t.Errorf("cleanup left %d dbms_random", n)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('warehouse', 'district', 'customer')"); n != 0 {
				t.Errorf("%d of the tables left after cleanup", n)
			}
		})
	}
}

// TestTPCCRemediesAcrossProfiles runs the commands that a run's refusal
// of missing routines suggests, and cleanup with the other profile than
// the load's, in both directions. Before, the suggested init exited 2
// (tpcc_meta exists): init --routines-only now makes the missing routines
// on the loaded data; and cleanup left the other profile's orders table
// (stampede's "order", HammerDB's orders), so that a later init failed.
func TestTPCCRemediesAcrossProfiles(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	for _, c := range []struct {
		name          string
		init, run     []string
		cleanup, made []string
	}{
		{"stampede's data, --server-side", nil, []string{"--server-side"},
			[]string{"--profile", "hammerdb"}, []string{"function stampede_neword(", "function stampede_slev("}},
		{"hammerdb procedures, one missing", []string{"--profile", "hammerdb", "--stored-procs"},
			[]string{"--profile", "hammerdb", "--stored-procs", "--use-installed-routines"}, nil, []string{"procedure slev("}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := freshDB(t, "stampede_hdbremedy")
			root := t.TempDir()
			mustRun(t, append(append([]string{"init", "tpcc"}, c.init...), "--db", db, srv)...)
			if c.init != nil {
				execIn(t, db, "DROP PROCEDURE slev(integer, integer, integer, integer)")
			}
			run := append(append([]string{"run", "tpcc"}, c.run...), "--duration", "2s", "--skip-checks", "--db", db, "--results-dir", root, srv)
			r := stampede(t, run...)
			m := hintRE.FindStringSubmatch(r.stderr)
			if r.code != 2 || m == nil || !strings.Contains(m[1], " --routines-only") {
				t.Fatalf("run without the routines: exit %d, no init --routines-only suggested:\n%s", r.code, r.stderr)
			}
			hint := stampede(t, shellWords(t, m[1])[1:]...)
			if hint.code != 0 || strings.Contains(hint.stderr, "warning") {
				t.Fatalf("the suggestion %s: exit %d\n%s", m[1], hint.code, hint.stderr)
			}
			for _, w := range c.made {
				if !strings.Contains(hint.stderr, w) {
					t.Errorf("the suggestion %s did not say it made %s:\n%s", m[1], w, hint.stderr)
				}
			}
			if r := stampede(t, run...); r.code != 0 {
				t.Errorf("run after the suggestion: exit %d\n%s", r.code, r.stderr)
			}
			r = stampede(t, append(append([]string{"cleanup", "tpcc"}, c.cleanup...), "--db", db, srv)...)
			if r.code != 0 {
				t.Fatalf("cleanup %q: exit %d\n%s", c.cleanup, r.code, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
				t.Errorf("cleanup %q of a load of %q left %d tables:\n%s", c.cleanup, c.init, n, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace"); n != 0 {
				t.Errorf("cleanup %q left %d routines", c.cleanup, n)
			}
		})
	}
}

// TestTPCCReloadAcrossProfiles (chk33 F1, F2): init --routines-only of
// the other profile than the load's suggests a reload that, pasted,
// succeeds (it left --routines-only in, which init refuses with --drop);
// that reload drops the other profile's orders table and routines, which
// it left behind before (the wrong profile then ran on stale data), and
// the profile tpcc_meta records refuses a run of the other in one line,
// in both directions.
func TestTPCCReloadAcrossProfiles(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	for _, c := range []struct {
		name        string
		init, other []string
		// stale is the other profile's orders table, and routine one of
		// its routines, which the reload must drop.
		stale, routine string
	}{
		{"stampede's load, hammerdb reload", []string{"--server-side"}, []string{"--profile", "hammerdb"}, "order", "stampede_neword"},
		{"hammerdb load, stampede reload", []string{"--profile", "hammerdb"}, []string{"--server-side"}, "orders", "neword"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := freshDB(t, "stampede_hdbreload")
			root := t.TempDir()
			mustRun(t, append(append([]string{"init", "tpcc"}, c.init...), "--db", db, srv)...)
			r := stampede(t, append(append([]string{"init", "tpcc"}, c.other...), "--routines-only", "--db", db, srv)...)
			m := hintRE.FindStringSubmatch(r.stderr)
			if r.code != 2 || m == nil || !strings.Contains(m[1], " --drop") {
				t.Fatalf("init --routines-only of the other profile: exit %d, no reload suggested:\n%s", r.code, r.stderr)
			}
			if strings.Contains(m[1], "--routines-only") {
				t.Errorf("the reload suggested keeps --routines-only, which init refuses with --drop: %s", m[1])
			}
			hint := stampede(t, shellWords(t, m[1])[1:]...)
			if hint.code != 0 || strings.Contains(hint.stderr, "warning") {
				t.Fatalf("the suggestion %s: exit %d\n%s", m[1], hint.code, hint.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = '"+c.stale+"'"); n != 0 {
				t.Errorf("the reload %s left the other profile's table %s:\n%s", m[1], c.stale, hint.stderr)
			}
			if !strings.Contains(hint.stderr, "--drop: dropped table "+c.stale+", which stampede's init of tpcc made with the other --profile") {
				t.Errorf("the reload did not say it dropped table %s:\n%s", c.stale, hint.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_proc WHERE proname = '"+c.routine+"'"); n != 0 {
				t.Errorf("the reload %s left the other profile's routine %s:\n%s", m[1], c.routine, hint.stderr)
			}
			if !strings.Contains(hint.stderr, "--drop: dropped function "+c.routine+"(") || !strings.Contains(hint.stderr, "\nmade function ") {
				t.Errorf("the reload did not say which routines it dropped and made:\n%s", hint.stderr)
			}
			// The reloaded profile runs; the former one is refused in
			// one line, by what tpcc_meta records.
			mustRun(t, append(append([]string{"run", "tpcc"}, c.other...), "--duration", "1s", "--db", db, "--results-dir", root, srv)...)
			want := "holds stampede's TPC-C schema"
			if c.stale == "order" {
				want = "holds HammerDB's TPROC-C schema (table orders), loaded with --profile hammerdb"
			}
			r = stampede(t, append(append([]string{"run", "tpcc"}, c.init...), "--duration", "1s", "--db", db, "--results-dir", root, srv)...)
			checkOneLineError(t, r, 2, want)
			// --drop with --routines-only is refused, naming both.
			r = stampede(t, append(append([]string{"init", "tpcc"}, c.other...), "--drop", "--routines-only", "--db", db, srv)...)
			checkOneLineError(t, r, 2, "--drop with --routines-only: --routines-only keeps the data loaded")
		})
	}
}
