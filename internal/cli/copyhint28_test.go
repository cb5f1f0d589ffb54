package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// suggested finds the commands a message suggests, in backticks.
var suggested = regexp.MustCompile("`(stampede [^`]+)`")

// TestCopySuggestionsRun: on a copy a user made (CREATE DATABASE ...
// TEMPLATE) of a database stampede loaded, a refusal suggested commands
// that were themselves refused: a run whose flags differ from the load
// suggested `stampede init W --drop ...`, and init sql over its own
// tables `stampede init sql --drop ...` and `stampede cleanup sql`, each
// of which refuses a copy without --force-drop (fails on the old code).
// For every form (bank, ycsb, tpcc, a sysbench script, init sql, a
// schema-mode fleet, a copy of a fleet's tenant database) the refusal's
// suggestion, or the command with the --force-drop it names, now runs
// as written, exit 0.
func TestCopySuggestionsRun(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	file := filepath.Join(t.TempDir(), "s1.sql")
	if err := os.WriteFile(file, []byte("CREATE TABLE t1(id int primary key, v text);\nINSERT INTO t1 SELECT g, md5(g::text) FROM generate_series(1, 100) g;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	schemaFleet := []string{"--tenants", "2", "--tenant-mode", "schema"}
	for _, c := range []struct {
		name string
		// init loads the source (its URL appended); tenant makes the
		// copy of its first tenant database rather than of it.
		init   []string
		tenant bool
		// refused runs on the copy (its URL appended), exit 2.
		refused []string
	}{
		{"bank run", []string{"init", "bank", "--rows", "10"}, false, []string{"run", "bank", "--rows", "20", "--duration", "1s"}},
		{"bank cleanup", []string{"init", "bank", "--rows", "10"}, false, []string{"cleanup", "bank"}},
		// Its plain advice, "use --drop to recreate it", takes the flag
		// too (chk28e: --drop alone is refused on the copy).
		{"bank init again", []string{"init", "bank", "--rows", "10"}, false, []string{"init", "bank", "--rows", "10"}},
		{"ycsb run", []string{"init", "ycsb", "-p", "recordcount=100"}, false, []string{"run", "ycsb", "-p", "recordcount=100", "-p", "fieldlength=50", "--duration", "1s"}},
		{"tpcc run", []string{"init", "tpcc", "--warehouses", "1"}, false, []string{"run", "tpcc", "--warehouses", "2", "--duration", "1s"}},
		{"sysbench script run", []string{"init", "oltp_read_write", "--tables", "1", "--table-size", "100"}, false,
			[]string{"run", "oltp_read_write", "--tables", "2", "--table-size", "100", "--duration", "1s"}},
		{"init sql again", []string{"init", "sql", "--init-file", file}, false, []string{"init", "sql", "--init-file", file}},
		{"schema fleet cleanup", append([]string{"init", "bank", "--rows", "20"}, schemaFleet...), false, append([]string{"cleanup", "bank"}, schemaFleet...)},
		{"tenant copy run", []string{"init", "bank", "--rows", "10", "--tenants", "1"}, true, []string{"run", "bank", "--rows", "20", "--duration", "1s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, cp := freshDB(t, "fix28ah_src"), freshDB(t, "fix28ah_cp")
			adminExec(t, "CREATE DATABASE "+src)
			from := src
			init := append(slices.Clone(c.init), dbURL(t, src))
			if c.tenant {
				from = src + "_t1"
				init = append(slices.Clone(c.init), "--tenant-pattern", src+"_t%d", dbURL(t, src))
				t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+from+" WITH (FORCE)") })
			}
			mustRun(t, init...)
			adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+from)
			r := stampede(t, append(slices.Clone(c.refused), dbURL(t, cp))...)
			if r.code != 2 || !strings.Contains(r.stderr, "stampede: error: ") {
				t.Fatalf("%v on the copy: exit %d, want a refusal (2):\n%s", c.refused, r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "use --drop ") && !strings.Contains(r.stderr, "use --drop --force-drop to recreate it") {
				t.Errorf("the refusal advises --drop without the --force-drop a copy needs:\n%s", r.stderr)
			}
			var cmds [][]string
			for _, m := range suggested.FindAllStringSubmatch(r.stderr, -1) {
				words := strings.Fields(m[1])[1:]
				for i, w := range words {
					words[i] = strings.Trim(w, "'")
				}
				cmds = append(cmds, words)
			}
			if len(cmds) == 0 {
				// No command: the refusal names the flag that does it.
				if !strings.HasSuffix(strings.TrimSpace(r.stderr), "add --force-drop") {
					t.Fatalf("the refusal suggests nothing:\n%s", r.stderr)
				}
				cmds = [][]string{append(slices.Clone(c.refused), "--force-drop", dbURL(t, cp))}
			}
			for _, cmd := range cmds {
				if got := stampede(t, cmd...); got.code != 0 {
					t.Errorf("the suggestion `stampede %s` of\n%s\nexits %d:\n%s", strings.Join(cmd, " "), r.stderr, got.code, got.stderr)
				}
			}
			if t.Failed() {
				return
			}
			// And the command refused at first runs now (but a cleanup,
			// which has dropped what it would drop).
			if c.refused[0] != "cleanup" {
				if got := stampede(t, append(slices.Clone(c.refused), dbURL(t, cp))...); got.code != 0 {
					t.Errorf("after the suggestion, %v exits %d:\n%s", c.refused, got.code, got.stderr)
				}
			}
		})
	}
}
