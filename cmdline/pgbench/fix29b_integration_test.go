package pgbench_test

import (
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestOutputStreamsAsPgbench: what pgbench prints instead of running
// (-b list, --show-script, --help, --version) goes to the same stream,
// stdout or stderr, as the real pgbench's, with the same text (the
// version's and help's own words apart), and exit 0.
func TestOutputStreamsAsPgbench(t *testing.T) {
	server(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		same bool // the same text
	}{
		{[]string{"-b", "list"}, true},
		{[]string{"--show-script=select-only"}, true},
		{[]string{"--show-script", "tpcb"}, true},
		{[]string{"--help"}, false},
		{[]string{"--version"}, false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			pgOut, pgErr, pgCode := run(t, true, dir, c.args...)
			stOut, stErr, stCode := run(t, false, dir, c.args...)
			if pgCode != 0 || stCode != 0 {
				t.Fatalf("exit %d (pgbench), %d (stampede)", pgCode, stCode)
			}
			if (pgOut == "") != (stOut == "") || (pgErr == "") != (stErr == "") {
				t.Errorf("pgbench printed %d bytes on stdout and %d on stderr, stampede %d and %d", len(pgOut), len(pgErr), len(stOut), len(stErr))
			}
			if c.same && (pgOut != stOut || pgErr != stErr) {
				t.Errorf("pgbench printed\n%q %q\nstampede printed\n%q %q", pgOut, pgErr, stOut, stErr)
			}
		})
	}
}

// TestInstalledAsPgbench: the binary installed under the name pgbench (a
// link to stampede, as README's install says) takes pgbench's command
// line, with no "pgbench" word before it: the report is pgbench's, line
// for line beside the real pgbench's, and a refusal is pgbench's.
func TestInstalledAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "pgbench")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, srv...), "-n", "-t", "5", "-S", db)
	cmd := exec.Command(link, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", link, strings.Join(args, " "), err)
	}
	pgOut, _ := tool(t, true, dir, args...)
	if want, got := strings.Join(blank(pgOut), "\n"), strings.Join(blank(string(out)), "\n"); want != got {
		t.Errorf("pgbench printed\n%s\nthe link printed\n%s", want, got)
	}
	cmd = exec.Command(link, "--debug", db)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), "pgbench: error: ") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("the link with --debug: %v, %q: want exit 2 and one line of pgbench's", err, stderr.String())
	}
}

// catalogue describes everything of database db that a user sees in its
// catalogue: every relation outside the system's schemas (kind,
// persistence, options, comment), every constraint, the schemas, the
// database's comment, and per pgbench table its rows and sums.
func catalogue(t *testing.T, db string) []string {
	t.Helper()
	ctx := context.Background()
	c := connect(t, db)
	defer c.Close(ctx)
	var out []string
	for _, q := range []string{
		`SELECT n.nspname || '.' || c.relname || ' kind ' || c.relkind::text || ' persistence ' || c.relpersistence::text ||
			' options ' || coalesce(array_to_string(c.reloptions, ','), '') || ' comment ' || coalesce(nullif(` + dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class") + `, 'made by stampede pgbench -i'), '')
		 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND c.relname NOT LIKE 'stampede\_load%' ORDER BY 1`,
		`SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
		 WHERE connamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema'))
		   AND conrelid <> coalesce(to_regclass('stampede_load'), 0) ORDER BY 1`,
		`SELECT 'schema ' || nspname || ' ' || coalesce(obj_description(oid, 'pg_namespace'), '') FROM pg_namespace
		 WHERE nspname NOT LIKE 'pg_%' AND nspname <> 'information_schema' ORDER BY 1`,
		`SELECT 'database comment ' || coalesce(shobj_description(oid, 'pg_database'), '') FROM pg_database WHERE datname = current_database()`,
	} {
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"SELECT 'branches ' || count(*) || ' ' || coalesce(sum(bbalance), 0) FROM pgbench_branches",
		"SELECT 'tellers ' || count(*) || ' ' || coalesce(sum(tbalance), 0) FROM pgbench_tellers",
		"SELECT 'accounts ' || count(*) || ' ' || coalesce(sum(abalance), 0) || ' ' || md5(string_agg(aid || ',' || bid || ',' || filler, ';' ORDER BY aid)) FROM pgbench_accounts",
		"SELECT 'history ' || count(*) FROM pgbench_history",
	} {
		var s string
		if err := c.QueryRow(ctx, q).Scan(&s); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// TestInitStepsAsPgbench: `stampede pgbench -i` takes pgbench's -I step
// lists as pgbench does, on tables the real pgbench made, one line after
// another in two databases (pgbench's, stampede's): the same lines (the
// server's NOTICEs among them; the numbers blanked), the same exit status, and
// the same catalogue, the whole of it (no comments: nothing of stampede's
// but the mark of the tables its -i made, and its record of the load,
// stampede_load, which the catalogue leaves out).
// Stampede's own `init pgbench --drop` then drops those tables, which
// stampede made.
func TestInitStepsAsPgbench(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	dbs := [2]string{freshDB(t), freshDB(t)} // both loaded by the real pgbench -i -s 1
	// Stampede's own init over the second: its record and marks, which
	// the pgbench form's -i replaces with pgbench's tables alone.
	own := exec.Command(bin, "init", "pgbench", "--drop", "--force-drop", dbURL(dbs[1]))
	own.Dir, own.Env = dir, append(os.Environ(), "HOME="+dir)
	if out, err := own.CombinedOutput(); err != nil {
		t.Fatalf("stampede init pgbench: %v\n%s", err, out)
	}
	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			out = append(out, numbers.ReplaceAllString(l, "N"))
		}
		return out
	}
	for _, args := range [][]string{
		{"-i", "-s", "2"}, // over pgbench's own tables: dropped and made again, as pgbench does
		{"-i", "-I", "d"},
		{"-i", "-I", "v"}, // no tables: the server's error, in pgbench's two lines, exit 1
		{"-i", "-I", "t"},
		{"-i", "-I", "t"}, // they exist: exit 1
		{"-i", "-I", "g", "-s", "2"},
		{"-i", "-I", "vpf"},
		{"-i", "-I", "p"}, // the keys exist: exit 1
		{"-i", "-I", "G"},
		{"-i", "-I", "dt gvp", "--foreign-keys", "-F", "90"},
		{"-i", "-I", "dtGv", "--partitions", "3", "--unlogged-tables"},
		{"-i", "-I", "p"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var said [2][]string
			var code [2]int
			for k, real := range []bool{true, false} {
				_, stderr, c := run(t, real, dir, append(append(append([]string{}, srv...), args...), dbs[k])...)
				said[k], code[k] = lines(stderr), c
			}
			if code[0] != code[1] || strings.Join(said[0], "\n") != strings.Join(said[1], "\n") {
				t.Errorf("pgbench: exit %d\n%s\nstampede: exit %d\n%s", code[0], strings.Join(said[0], "\n"), code[1], strings.Join(said[1], "\n"))
			}
			if want, got := catalogue(t, dbs[0]), catalogue(t, dbs[1]); strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("the catalogues differ\npgbench's:\n%s\nstampede's:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
		})
	}
	// A run without -n empties pgbench_history as pgbench's does, whoever
	// made it.
	for k, real := range []bool{true, false} {
		tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "5", dbs[k])...)
		tool(t, real, dir, append(append([]string{}, srv...), "-t", "3", dbs[k])...)
	}
	if want, got := catalogue(t, dbs[0]), catalogue(t, dbs[1]); want[len(want)-1] != "history 3" || got[len(got)-1] != want[len(want)-1] {
		t.Errorf("after -n -t 5 then -t 3: pgbench's %q, stampede's %q (want history 3: the run without -n empties it first)", want[len(want)-1], got[len(got)-1])
	}
	// Stampede's own form keeps its rule, and the pgbench form's tables
	// are stampede's (their mark): it drops them.
	cmd := exec.Command(bin, "init", "pgbench", "--drop", dbURL(dbs[1]))
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("stampede init pgbench --drop over the pgbench form's tables: %v\n%s(want exit 0: stampede made them)", err, out)
	}
}

// TestSkippedByScript: under -R with -L and several scripts, the
// transactions skipped by script add up to those skipped in all, and each
// script's share is pgbench's: of its transactions processed, failed
// and skipped. (TestReportAsPgbench compares the lines with pgbench's.)
func TestSkippedByScript(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	out, _ := tool(t, false, dir, append(append([]string{}, srv...), "-n", "-T", "2", "-c", "2", "-R", "400", "-L", "1", "-b", "select-only@2", "-b", "simple-update", db)...)
	total := regexp.MustCompile(`(?m)^number of transactions skipped: (\d+) `).FindStringSubmatch(out)
	scripts := regexp.MustCompile(`(?m)^ - (\d+) transactions \(.*\n - number of failed transactions: (\d+) .*\n - number of transactions skipped: (\d+) \(([\d.]+)%\)$`).FindAllStringSubmatch(out, -1)
	if total == nil || len(scripts) != 2 {
		t.Fatalf("no skipped lines, overall and for each of the two scripts:\n%s", out)
	}
	var sum int64
	for _, m := range scripts {
		var done, failed, skipped int64
		var share float64
		fmt.Sscan(m[1]+" "+m[2]+" "+m[3]+" "+m[4], &done, &failed, &skipped, &share)
		sum += skipped
		if want := 100 * float64(skipped) / float64(done+failed+skipped); math.Abs(share-want) > 0.001 {
			t.Errorf("%s: %.3f%% skipped, want %.3f%%", m[0], share, want)
		}
	}
	if fmt.Sprint(sum) != total[1] || sum == 0 {
		t.Errorf("the scripts' skipped add up to %d, the run's is %s:\n%s", sum, total[1], out)
	}
}

// TestGoldenReports runs the command lines of testdata/golden/cases.tsv
// with stampede pgbench and compares what it prints, numbers blanked,
// with what Debian's real pgbench printed for them, as
// scripts/pgbench-golden recorded it: the report line by line, and every
// progress line (about as many as pgbench's, each of the same shape).
// TestReportAsPgbench compares live with the installed pgbench too.
func TestGoldenReports(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	golden, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile(filepath.Join(golden, "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(golden, name))
		if err != nil {
			t.Fatalf("%v: run scripts/pgbench-golden", err)
		}
		if len(b) == 0 {
			return nil
		}
		return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	}
	n := 0
	for _, line := range strings.Split(string(cases), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, opts, _ := strings.Cut(line, "\t")
		opts, init, _ := strings.Cut(opts, "\t")
		n++
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db := db
			if init != "" { // a database of its own, with these pgbench -i options
				db = initDB(t, false, strings.Fields(init)...)
			}
			args := append(append(append([]string{"pgbench"}, srv...), strings.Fields(opts)...), db)
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir, cmd.Env = golden, append(os.Environ(), "HOME="+home)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("stampede %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
			}
			want, got := read(name+".out"), blank(stdout.String())
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("report differs from the golden file %s.out\npgbench:\n%s\nstampede:\n%s", name, strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			wantP := read(name + ".progress")
			var gotP []string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.HasPrefix(l, "progress: ") {
					gotP = append(gotP, blanks.ReplaceAllString(numbers.ReplaceAllString(l, "N"), " "))
				}
			}
			if len(gotP) < len(wantP)-1 || len(gotP) > len(wantP)+1 {
				t.Errorf("%d progress lines, pgbench printed %d:\n%s", len(gotP), len(wantP), strings.Join(gotP, "\n"))
			}
			for i, l := range gotP {
				if len(wantP) == 0 || l != wantP[min(i, len(wantP)-1)] {
					t.Errorf("progress line %d: %q, pgbench's %q", i+1, l, wantP)
					break
				}
			}
		})
	}
	if n < 10 {
		t.Errorf("cases.tsv holds %d command lines", n)
	}
}

// TestScaleIgnoredAsPgbench: -s given to the built-in scripts is said
// ignored in pgbench's words, whenever it is given (the same scale as
// pgbench_branches' count too), and not for a script of one's own.
func TestScaleIgnoredAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.sql"), []byte("SELECT :scale;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	warnings := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "pgbench: warning: ") {
				out = append(out, l)
			}
		}
		return out
	}
	for _, args := range [][]string{{"-s", "5", "-S"}, {"-s", "1", "-S"}, {"-S"}, {"-s", "5", "-f", "one.sql"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append(append(append([]string{}, srv...), "-n", "-t", "1"), args...), db)
			_, pgErr := tool(t, true, dir, full...)
			_, stErr := tool(t, false, dir, full...)
			if want, got := warnings(pgErr), warnings(stErr); strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("pgbench warned %q, stampede %q", want, got)
			}
		})
	}
}

// TestVacuumWithoutTablesAsPgbench: a run without -n in a database
// without pgbench's tables says, as pgbench does, each of the three
// statements before the run that failed (two vacuums, the truncation of
// pgbench_history), and goes on; its advice names pgbench's options
// only.
func TestVacuumWithoutTablesAsPgbench(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	db := emptyDB(t, "fix29b_novac")
	if err := os.WriteFile(filepath.Join(dir, "s1.sql"), []byte("SELECT 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := regexp.MustCompile(`relation "(pgbench_\w+)" does not exist`)
	var said [2][]string
	for k, real := range []bool{true, false} {
		_, stderr := tool(t, real, dir, append(append([]string{}, srv...), "-t", "1", "-f", "s1.sql", db)...)
		for _, m := range missing.FindAllStringSubmatch(stderr, -1) {
			said[k] = append(said[k], m[1])
		}
		if !real && strings.Contains(stderr, "--vacuum-first") {
			t.Errorf("the pgbench form names stampede's --vacuum-first:\n%s", stderr)
		}
	}
	if len(said[0]) != 3 || strings.Join(said[0], " ") != strings.Join(said[1], " ") {
		t.Errorf("pgbench said %v missing, stampede %v", said[0], said[1])
	}
}
