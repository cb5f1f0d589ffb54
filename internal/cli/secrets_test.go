package cli_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the results index, read as it is stored

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// TestPasswordWithAt runs against the test server as a role whose password
// holds an '@' (issue 28): written unescaped in the URL, it is refused in
// one line that says to write it %40, exit 2, with no piece of the password
// printed (pgx would take the part after the '@' for the host, and print it
// in "cannot connect to ..."); written %40, the run connects. The password,
// also given bare as a tag (--tag secret=PW), is masked in run.json, the
// index, and what runs, report and compare print.
func TestPasswordWithAt(t *testing.T) {
	srv := testServer(t)
	const password = "Pw@H2x-at-pass"
	adminExec(t, "DROP ROLE IF EXISTS stampede_pw_user",
		fmt.Sprintf("CREATE ROLE stampede_pw_user LOGIN SUPERUSER PASSWORD '%s'", password))
	db := freshDB(t, "stampede_at")
	base, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	base.Path = "/" + db
	base.User = nil
	hostPath := base.String()[len("postgresql://"):] // 127.0.0.1:PORT/db?...
	if !strings.HasPrefix(base.String(), "postgresql://") {
		hostPath = base.String()[len("postgres://"):]
	}
	raw := "postgresql://stampede_pw_user:" + password + "@" + hostPath
	escaped := "postgresql://stampede_pw_user:" + url.QueryEscape(password) + "@" + hostPath
	dir := t.TempDir()
	// pieces of the password, any of which printed is a leak.
	leaks := []string{password, "H2x-at-pass", "Pw@H2x"}
	var outputs []string

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"init", []string{"init", "ycsb", "-p", "recordcount=100", raw}},
		{"run", []string{"run", "ycsb", "-p", "recordcount=100", "--duration", "1s", "--results-dir", dir, raw}},
		{"check", []string{"check", "ycsb", raw}},
		{"cockroach's form", []string{"workload", "run", "ycsb", "--duration", "1s", raw}},
		{"results store", []string{"runs", "--results-dir", dir, "--results-url", raw}},
	} {
		t.Run("unescaped/"+tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, 2, "it holds an '@' after the one that ends its user name and password (user:password@host): write '@' as %40 in passwords, user names and database names")
			outputs = append(outputs, r.stdout, r.stderr)
		})
	}

	// Written %40, it connects, and logs in with that password.
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=100", escaped); r.code != 0 {
		t.Fatalf("init with %%40: exit %d: %s", r.code, r.stderr)
	}
	for i := range 2 {
		r := stampede(t, "run", "ycsb", "-p", "recordcount=100", "--duration", "1s", "--results-dir", dir,
			"--tag", "secret="+password, "--tag", "note=pw is "+password, "--tag", fmt.Sprintf("n=%d", i), escaped)
		if r.code != 0 {
			t.Fatalf("run with %%40: exit %d: %s", r.code, r.stderr)
		}
		// The tags saved are not those given: the run says so once.
		if want := "--tag note=pw is xxxxx --tag secret=xxxxx: saved with the password of the run's connections masked"; strings.Count(r.stderr, want) != 1 {
			t.Errorf("the run's warning about its masked tags: want one %q in\n%s", want, r.stderr)
		}
		outputs = append(outputs, r.stdout, r.stderr)
	}
	// The password as a flag of its own (sysbench's connection flags), not
	// in a URL: masked in run.json's command and flags too.
	r := stampede(t, "run", "ycsb", "-p", "recordcount=100", "--duration", "1s", "--results-dir", dir,
		"--pgsql-host", base.Hostname(), "--pgsql-port", base.Port(), "--pgsql-user", "stampede_pw_user",
		"--pgsql-password", password, "--pgsql-db", db, "--pgsql-sslmode", "disable", "--tag", "secret="+password, "--tag", "n=2")
	if r.code != 0 {
		t.Fatalf("run with --pgsql-password: exit %d: %s", r.code, r.stderr)
	}
	outputs = append(outputs, r.stdout, r.stderr)
	infos, err := runlog.List(dir)
	if err != nil || len(infos) != 3 {
		t.Fatalf("%d runs, %v", len(infos), err)
	}
	for _, info := range infos {
		if info.Tags["secret"] != "xxxxx" || info.Tags["n"] != "2" && info.Tags["note"] != "pw is xxxxx" {
			t.Errorf("run.json's tags %v: want secret=xxxxx, note=pw is xxxxx", info.Tags)
		}
	}
	if queryInt(t, "postgres", "SELECT count(*) FROM pg_hba_file_rules WHERE 'stampede_pw_user' = ANY(user_name)") > 0 {
		r := stampede(t, "run", "ycsb", "--duration", "1s", "--results-dir", t.TempDir(),
			strings.Replace(escaped, "%40", "%41", 1))
		checkFinalError(t, r, 1, "check the user name and password")
		outputs = append(outputs, r.stdout, r.stderr)
	} else {
		t.Log("the server trusts stampede_pw_user: the wrong-password case is skipped")
	}

	// Everything that prints tags.
	chartDir := t.TempDir()
	for _, args := range [][]string{
		{"runs", "--results-dir", dir},
		{"runs", "--results-dir", dir, "--format", "json"},
		{"runs", "--results-dir", dir, "--tag", "secret=xxxxx"},
		{"report", "--results-dir", dir, infos[0].ID},
		{"report", "--results-dir", dir, "--format", "json", infos[0].ID, infos[1].ID},
		{"report", "--results-dir", dir, "--chart", filepath.Join(chartDir, "c.html"), infos[0].ID},
		{"compare", "--results-dir", dir, infos[0].ID, infos[1].ID},
		{"compare", "--results-dir", dir, "--format", "json", infos[0].ID, infos[1].ID},
	} {
		r := stampede(t, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		outputs = append(outputs, r.stdout, r.stderr)
	}
	// The saved page holds the run's header, flags and command line.
	page, err := os.ReadFile(filepath.Join(chartDir, "c.html"))
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(page))
	if r := stampede(t, "runs", "--results-dir", dir, "--tag", "secret=xxxxx"); runIDs(t, r.stdout) == "" {
		t.Errorf("runs --tag secret=xxxxx lists nothing: %s", r.stderr)
	}
	for _, o := range outputs {
		for _, l := range leaks {
			if strings.Contains(o, l) {
				t.Errorf("%q printed: %s", l, o)
			}
		}
	}
	// The index, read as it is stored.
	idx, err := sql.Open("sqlite", filepath.Join(dir, store.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var n int
	if err := idx.QueryRow(`SELECT count(*) FROM stampede_run_tags WHERE tag_key = 'secret' AND tag_value = 'xxxxx'`).Scan(&n); err != nil || n != 3 {
		t.Errorf("index: %d runs tagged secret=xxxxx, %v; want 3", n, err)
	}
	// Every file the runs wrote, the index and the chart included.
	for _, root := range []string{dir, chartDir} {
		_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			b, _ := os.ReadFile(p)
			for _, l := range leaks {
				if strings.Contains(string(b), l) {
					t.Errorf("%q in %s", l, p)
				}
			}
			return nil
		})
	}
	var rows []store.RunRow
	r = stampede(t, "runs", "--results-dir", dir, "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 3 || rows[0].Tags["secret"] != "xxxxx" {
		t.Errorf("runs --format json: %v %s", err, r.stdout)
	}
}
