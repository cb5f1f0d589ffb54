package pgbench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// messages splits a run's standard error into what was said, each
// message its first line and the lines that go on from it (libpq's
// DETAIL, HINT and LINE lines and the caret under the error's position),
// without stampede's "results saved in"; sorted when unordered, for runs
// whose clients speak in an order of their own.
func messages(stderr string, unordered bool) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		goesOn := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "LINE ")
		for _, f := range []string{"DETAIL:  ", "HINT:  ", "CONTEXT:  ", "QUERY:  "} {
			goesOn = goesOn || strings.HasPrefix(l, f)
		}
		switch {
		case l == "" || strings.HasPrefix(l, "results saved in "):
		case goesOn && len(out) > 0:
			out[len(out)-1] += "\n" + l
		default:
			out = append(out, l)
		}
	}
	if unordered {
		sort.Strings(out)
	}
	return out
}

// savedStatus is the status and error in run.json of the run directory
// that stampede's stderr names.
func savedStatus(t *testing.T, stderr string) (status, reason string) {
	t.Helper()
	_, saved, ok := strings.Cut(stderr, "results saved in ")
	if !ok {
		t.Fatalf("no run directory said in %q", stderr)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(saved), "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Status, Error string }
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Fatal(err)
	}
	return info.Status, info.Error
}

// TestRefusedStatementAsPgbench: a statement the server refuses (a table
// or column that does not exist, a syntax error) is not refused before
// the run, as run sql refuses it: the run starts and the server's error
// aborts each client that sends it, as in pgbench, with the same lines
// on stderr (libpq's ERROR and LINE lines, under -M prepared the
// PREPARE's error and then the abort on the statement that was not
// prepared), the same report on stdout and exit status 2, in every -M
// mode, with one client and two, -t and -T; the run directory is saved,
// marked failed with the server's error.
func TestRefusedStatementAsPgbench(t *testing.T) {
	db := freshDB(t)
	files := map[string]string{
		"table.sql":  "SELECT 1;\nSELECT * FROM nope;\n",
		"column.sql": "\\set aid random(1, 10)\nSELECT nocol FROM pgbench_accounts WHERE aid = :aid;\n",
		"syntax.sql": "SELEC 1;\n",
		// The \gset query's columns are not known before the run.
		"gset.sql": "SELECT nocol AS x FROM pgbench_branches \\gset\nSELECT :x;\n",
	}
	said := map[string]string{
		"table.sql":  `relation "nope" does not exist`,
		"column.sql": `column "nocol" does not exist`,
		"syntax.sql": `syntax error at or near "SELEC"`,
		"gset.sql":   `column "nocol" does not exist`,
	}
	for name := range files {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			for _, clients := range []string{"1", "2"} {
				for _, length := range [][]string{{"-t", "3"}, {"-T", "1"}} {
					args := append([]string{"-n", "--random-seed", "5", "-M", mode, "-c", clients, "-f", name}, length...)
					t.Run(strings.Join(args, " "), func(t *testing.T) {
						var out, errs [2]string
						var code [2]int
						for k, real := range []bool{true, false} {
							dir := t.TempDir()
							writeFiles(t, dir, files)
							out[k], errs[k], code[k] = run(t, real, dir, append(append(append([]string{}, server(t)...), args...), db)...)
						}
						if code[0] != 2 || !strings.Contains(errs[0], said[name]) {
							t.Fatalf("pgbench: exit %d\n%s: the case no longer holds", code[0], errs[0])
						}
						if want, got := strings.Join(blank(out[0]), "\n"), strings.Join(blank(out[1]), "\n"); want != got {
							t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
						}
						// Two clients abort in either order.
						unordered := clients != "1"
						if want, got := messages(errs[0], unordered), messages(errs[1], unordered); code[1] != code[0] || strings.Join(want, "\n") != strings.Join(got, "\n") {
							t.Errorf("pgbench: exit %d\n%s\nstampede: exit %d\n%s", code[0], strings.Join(want, "\n"), code[1], strings.Join(got, "\n"))
						}
						if status, reason := savedStatus(t, errs[1]); status != "failed" || !strings.Contains(reason, said[name]) {
							t.Errorf("run.json says %s, %q; want failed on %q", status, reason, said[name])
						}
					})
				}
			}
		}
	}
}

// TestNoticesAsPgbench: the notices a run gets (a function's RAISE
// NOTICE with its DETAIL and HINT, a RAISE WARNING, DROP TABLE IF EXISTS
// on a table that does not exist) are printed on stderr as pgbench
// prints them, libpq's lines, one for each time the server sends one:
// in the same order with one client (the same scripts drawn, by
// --random-seed), the same lines with two (in two threads); in every -M
// mode.
func TestNoticesAsPgbench(t *testing.T) {
	db := freshDB(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), `CREATE FUNCTION noisy(i int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'client %', i USING DETAIL = 'a detail', HINT = 'a hint';
	RAISE WARNING 'careful';
	RETURN i;
END$$`); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"drop.sql":  "DROP TABLE IF EXISTS nope;\nSELECT 1;\n",
		"noisy.sql": "SELECT noisy(:client_id);\n",
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		for _, clients := range []string{"1", "2"} {
			// A thread per client: pgbench draws the scripts from
			// each thread's own stream.
			args := []string{"-n", "-t", "6", "--random-seed", "3", "-M", mode, "-c", clients, "-j", clients, "-f", "drop.sql", "-f", "noisy.sql"}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var errs [2]string
				for k, real := range []bool{true, false} {
					dir := t.TempDir()
					writeFiles(t, dir, files)
					_, errs[k] = tool(t, real, dir, append(append(append([]string{}, server(t)...), args...), db)...)
				}
				unordered := clients != "1"
				want, got := messages(errs[0], unordered), messages(errs[1], unordered)
				if len(want) < 6 || strings.Join(want, "\n") != strings.Join(got, "\n") {
					t.Errorf("pgbench said\n%s\nstampede said\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
				}
			})
		}
	}
}
