package cli_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// runsWriteRuns writes three runs: two ycsb runs tagged db=pg16 and db=pg17
// a day apart, and a tpcc run.
func runsWriteRuns(t testing.TB) string {
	t.Helper()
	root := compareRuns(t) // 20261122-103512-ycsb-aaaa, 20261122-113512-ycsb-bbbb
	for id, tags := range map[string]map[string]string{
		"20261122-103512-ycsb-aaaa": {"db": "pg16", "env": "ci"},
		"20261122-113512-ycsb-bbbb": {"db": "pg17", "env": "ci"},
	} {
		setTags(t, filepath.Join(root, id), tags)
	}
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261123-103512-tpcc-cccc", Workload: "tpcc", Series: []string{"new_order"}, Start: compareT0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // killed before its first interval
		t.Fatal(err)
	}
	return root
}

// setTags rewrites the tags of a run's run.json.
func setTags(t testing.TB, dir string, tags map[string]string) {
	t.Helper()
	path := filepath.Join(dir, runlog.RunFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["tags"] = tags
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func runIDs(t testing.TB, out string) string {
	t.Helper()
	var ids []string
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if i == 0 || line == "" {
			continue
		}
		id := strings.Fields(line)[0]
		ids = append(ids, id[len(id)-4:])
	}
	return strings.Join(ids, ",")
}

func TestRunsList(t *testing.T) {
	root := runsWriteRuns(t)
	r := stampede(t, "runs", "--results-dir", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(root, store.DefaultFile)); err != nil {
		t.Errorf("no index: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{
		"ID                         START (UTC)          WORKLOAD  STATUS      OPS/S  P99(MS)  TAGS",
		"20261122-103512-ycsb-aaaa  2026-11-22 10:35:12  ycsb      completed  1125.0      2.9  db=pg16,env=ci",
		"20261122-113512-ycsb-bbbb  2026-11-22 11:35:12  ycsb      completed  2125.0      2.8  db=pg17,env=ci",
		"20261123-103512-tpcc-cccc  2026-11-23 10:35:12  tpcc      killed          -        -",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant\n%s", r.stdout, strings.Join(want, "\n"))
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"workload", []string{"--workload", "ycsb"}, "aaaa,bbbb"},
		{"tag", []string{"--tag", "db=pg17"}, "bbbb"},
		{"tags", []string{"--tag", "env=ci", "--tag", "db=pg16"}, "aaaa"},
		{"since", []string{"--since", "2026-11-22T11:00:00Z"}, "bbbb,cccc"},
		{"since date", []string{"--since", "2026-11-23"}, "cccc"},
		{"until", []string{"--until", "2026-11-23"}, "aaaa,bbbb"},
		{"since duration", []string{"--since", "87600h"}, "aaaa,bbbb,cccc"},
		{"limit", []string{"--limit", "1"}, "cccc"},
		{"rebuild", []string{"--rebuild", "--workload", "tpcc"}, "cccc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"runs", "--results-dir", root}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := runIDs(t, r.stdout); got != tc.want {
				t.Errorf("got %q, want %q\n%s", got, tc.want, r.stdout)
			}
		})
	}

	// A new run is picked up; JSON output.
	compareWriteRun(t, root, "20261124-000000-ycsb-dddd", compareT0.Add(48*time.Hour), 3, 10, 100, 0)
	r = stampede(t, "runs", "--results-dir", root, "--format", "json", "--tag", "db=pg16")
	var rows []store.RunRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || r.code != 0 || len(rows) != 1 || rows[0].Tags["env"] != "ci" {
		t.Errorf("json: %v %d %s", err, r.code, r.stdout)
	}
	r = stampede(t, "runs", "--results-dir", root, "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 4 || rows[3].ID != "20261124-000000-ycsb-dddd" {
		t.Errorf("json: %v %s", err, r.stdout)
	}
}

// TestRunResultsURL checks that run --results-url indexes the run in that
// store, and refuses a store it cannot use before running.
func TestRunResultsURL(t *testing.T) {
	dir := t.TempDir()
	teamDir := filepath.Join(t.TempDir(), "team")
	if err := os.Mkdir(teamDir, 0o700); err != nil { // a store's directory must exist
		t.Fatal(err)
	}
	team := "sqlite:" + filepath.Join(teamDir, "index.sqlite")
	r := stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "1000", "--telemetry=false", "--results-dir", dir, "--results-url", team, "--tag", "where=team")
	if r.code != 0 {
		t.Fatalf("run --results-url: %d %s", r.code, r.stderr)
	}
	r = stampede(t, "runs", "--results-dir", t.TempDir(), "--results-url", team)
	if r.code != 0 || !strings.Contains(r.stdout, "where=team") {
		t.Errorf("runs of the team store: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "1000", "--telemetry=false", "--results-dir", dir, "--results-url", "mysql://u:topsecret@h/db")
	checkOneLineError(t, r, 2, `--results-url: unsupported results store URL scheme "mysql"`)
	if strings.Contains(r.stderr, "topsecret") || strings.Contains(r.stdout, "_elapsed") {
		t.Errorf("refused store: a password printed, or the run went ahead: %q %q", r.stdout, r.stderr)
	}
}

func TestRunsEmpty(t *testing.T) {
	// The default results directory, before the first run: no runs.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("STAMPEDE_RESULTS_DIR", "")
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	r := stampede(t, "runs")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no runs") {
		t.Errorf("%d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".stampede")); err == nil {
		t.Errorf("runs created the results directory")
	}
	r = stampede(t, "runs", "--format", "json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("%d %q %q", r.code, r.stdout, r.stderr)
	}
	// A results directory named on purpose that does not exist is a typo.
	missing := filepath.Join(t.TempDir(), "none")
	checkOneLineError(t, stampede(t, "runs", "--results-dir", missing), 2, "results directory "+missing+" does not exist")
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("runs created %s", missing)
	}
}

func TestRunsBadInput(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"args", []string{"x"}, 2, "unknown command"},
		{"bad format", []string{"--format", "xml"}, 2, `unknown --format "xml"`},
		{"bad tag", []string{"--tag", "novalue"}, 2, `malformed --tag "novalue"`},
		{"tag key twice", []string{"--tag", "job=mix", "--tag", "job=pair"}, 2, "--tag job=mix and --tag job=pair give the key job two values"},
		{"@ in the store's password", []string{"--results-url", "postgresql://u:top@secret@127.0.0.1:1/db"}, 2, "malformed results store URL postgresql://xxxxx@127.0.0.1:1/db: it holds an '@'"},
		{"bad since", []string{"--since", "yesterday"}, 2, `--since: malformed time "yesterday"`},
		{"negative until", []string{"--until", "-3h"}, 2, "--until: duration"},
		{"negative limit", []string{"--limit", "-1"}, 2, "--limit -1 is negative"},
		{"reversed window", []string{"--since", "1h", "--until", "2h"}, 2, "--since 1h is not before --until 2h"},
		{"bad url", []string{"--results-url", "mysql://u:topsecret@h/db"}, 2, `unsupported results store URL scheme "mysql"`},
		{"unreachable", []string{"--results-url", "postgresql://u:topsecret@127.0.0.1:1/db?connect_timeout=2"}, 1, "cannot reach the results store postgresql://u:xxxxx@127.0.0.1:1/db?connect_timeout=2: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"runs", "--results-dir", root}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", r.code, tc.code, r.stderr)
			}
			if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 ||
				!strings.HasPrefix(lines[0], "stampede: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one error line containing %q", r.stderr, tc.want)
			}
			if strings.Contains(r.stderr, "topsecret") || strings.Contains(r.stderr, "secret@") {
				t.Errorf("password leaked: %s", r.stderr)
			}
		})
	}
}

// TestResultsURLUnreachable: a PostgreSQL results store that cannot be
// reached (nothing listens on its port; its server is up but has no such
// database) is refused in one line that names the store's URL with its
// password masked and says what to do: check the URL, start the server,
// or omit --results-url. Before, a missing database got the advice for a
// benchmark's database (`stampede init`, --db), which does not apply, and
// a store named by $STAMPEDE_RESULTS_URL was found unreachable only after
// the run.
func TestResultsURLUnreachable(t *testing.T) {
	srv, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	srv.User = url.UserPassword(srv.User.Username(), "topsecret") // the server trusts; the password is only to be masked
	missing := *srv
	missing.Path = "/" + freshDB(t, "cmp29_nostore") // never created
	closed := "postgresql://postgres:topsecret@127.0.0.1:1/results?connect_timeout=5"
	masked := func(u string) string { return strings.Replace(u, ":topsecret@", ":xxxxx@", 1) }
	for _, tc := range []struct {
		name, url string
		why       string // the reason and its advice
	}{
		{"closed port", closed, "connection refused; is the server running and listening there? check host and port"},
		{"no such database", missing.String(), "does not exist (SQLSTATE 3D000); check the database name in the URL, or create the database on that server"},
	} {
		run := strs("run", "ycsb", "--driver", "null", "--max-ops", "100", "--telemetry=false", "--results-dir", t.TempDir())
		// Without a results directory: the run goes on in a temporary
		// one, and is not advised to do without the store.
		none := strs("run", "ycsb", "--driver", "null", "--max-ops", "100", "--telemetry=false", "--results-dir", "none")
		runs := strs("runs", "--results-dir", t.TempDir())
		for _, cmd := range []struct {
			name, prefix string
			args         []string
			env          bool // the URL in $STAMPEDE_RESULTS_URL, not --results-url
		}{
			{"run", "--results-url: ", run, false},
			{"runs", "", runs, false},
			// README: a store that cannot be opened is refused before the
			// run; from the environment, it was found only at the run's end.
			{"run from the environment", "$STAMPEDE_RESULTS_URL: ", run, true},
			{"runs from the environment", "", runs, true},
			{"run --results-dir none", "--results-url: ", none, false},
		} {
			t.Run(tc.name+"/"+cmd.name, func(t *testing.T) {
				args := append(cmd.args, "--results-url", tc.url)
				if cmd.env {
					t.Setenv("STAMPEDE_RESULTS_URL", tc.url)
					args = cmd.args
				}
				t.Setenv("TMPDIR", t.TempDir())
				r := stampede(t, args...)
				wrongs := []string{"topsecret", "stampede init", "--db", "_elapsed"}
				omit := "; or omit --results-url (and $STAMPEDE_RESULTS_URL) to index runs in index.sqlite in the results directory"
				wants := []string{tc.why, omit}
				if slices.Contains(cmd.args, "none") {
					wants, wrongs = wants[:1], append(wrongs, omit)
				}
				if cmd.args[0] == "run" {
					// Issue 31: the run goes on in its directory and says
					// so once, with the command that sends it later.
					if r.code != 0 {
						t.Fatalf("run with its store unreachable: exit %d, want 0 (it goes on locally): %s", r.code, r.stderr)
					}
					var warned []string
					for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
						if strings.Contains(l, "results store") {
							warned = append(warned, l)
						}
					}
					if len(warned) != 1 || !strings.HasPrefix(warned[0], "warning: the run goes on in ") ||
						!strings.Contains(warned[0], cmd.prefix+"cannot reach the results store "+masked(tc.url)+": ") ||
						!strings.Contains(warned[0], "`stampede runs upload ") {
						t.Errorf("want one line saying the run goes on locally and how to upload it, got %q", warned)
					}
					wrongs = slices.Delete(wrongs, 3, 4) // "_elapsed": the run's progress
				} else {
					checkOneLineError(t, r, 1, cmd.prefix+"cannot reach the results store "+masked(tc.url)+": ")
				}
				for _, want := range wants {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("stderr %q lacks %q", r.stderr, want)
					}
				}
				for _, wrong := range wrongs {
					if strings.Contains(r.stdout+r.stderr, wrong) {
						t.Errorf("output holds %q: %s%s", wrong, r.stdout, r.stderr)
					}
				}
			})
		}
	}
}

// TestNoDirStoreUnreachable: with --results-dir none, an unreachable store
// is refused without the advice to index the runs in the results
// directory instead, which there is none of (chk31).
func TestNoDirStoreUnreachable(t *testing.T) {
	u := "postgresql://postgres@127.0.0.1:1/r?sslmode=disable"
	for _, args := range [][]string{
		{"report", "--tag", "a=b", "--results-dir", "none", "--results-url", u},
		{"runs", "--results-dir", "none", "--results-url", u},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 1, "cannot reach the results store "+u+": connection refused")
		if strings.Contains(r.stderr, "omit --results-url") {
			t.Errorf("%v: advises the results directory of --results-dir none:\n%s", args, r.stderr)
		}
	}
}
