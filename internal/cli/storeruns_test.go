package cli_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// storeDB creates a database on the test server for a results store and
// returns its URL.
func storeDB(t *testing.T) string {
	t.Helper()
	name := freshDB(t, "store31_res")
	adminExec(t, "CREATE DATABASE "+name)
	return dbURL(t, name)
}

// onlyRunID returns the ID of the one run directory under root.
func onlyRunID(t *testing.T, root string) string {
	t.Helper()
	run, _ := onlyRun(t, root)
	return run.Info.ID
}

// storeRun is a short null-driver run of several intervals, with
// telemetry, tagged job=tag.
func storeRun(tag string, extra ...string) []string {
	return append(strs("run", "ycsb", "--driver", "null", "--duration", "3s", "--max-rate", "3000", "--tag", "job="+tag), extra...)
}

// sameReport checks that report's JSON of a run (or of a tag) read from
// its directory is byte for byte the one read from the store alone.
func sameReport(t *testing.T, dir, storeURL string, ref ...string) {
	t.Helper()
	fromDir := stampede(t, append(append(strs("report", "--results-dir", dir, "--format", "json"), ref...), "--results-url", "")...)
	fromStore := stampede(t, append(strs("report", "--results-dir", "none", "--results-url", storeURL, "--format", "json"), ref...)...)
	if fromDir.code != 0 || fromStore.code != 0 {
		t.Fatalf("report %v: from the directory %d %s; from the store %d %s", ref, fromDir.code, fromDir.stderr, fromStore.code, fromStore.stderr)
	}
	if !strings.Contains(fromDir.stdout, `"total"`) && !strings.Contains(fromDir.stdout, `"ops"`) {
		t.Fatalf("report %v: no figures: %s", ref, fromDir.stdout)
	}
	if fromDir.stdout != fromStore.stdout {
		t.Errorf("report %v --format json differs:\nfrom the directory:\n%s\nfrom the store:\n%s", ref, fromDir.stdout, fromStore.stdout)
	}
}

// TestRunIntoStore (issue 31, item 4): a run given a PostgreSQL results
// store writes itself into it; report (by ID and by --tag), compare and
// charts read it from the store alone, equal to its directory's; a run
// with --results-dir none leaves no directory behind; a run whose store
// is unreachable goes on locally, says so once, and `runs upload` sends
// it later, equal too, and once only.
func TestRunIntoStore(t *testing.T) {
	st := storeDB(t)
	t.Setenv("STAMPEDE_RESULTS_URL", "")

	// Both a directory and the store.
	dir := t.TempDir()
	r := stampede(t, append(storeRun("both"), "--results-dir", dir, "--results-url", st)...)
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "results store") {
		t.Errorf("run into a reachable store said something of it: %s", r.stderr)
	}
	id := onlyRunID(t, dir)
	sameReport(t, dir, st, id)
	sameReport(t, dir, st, id[:len(id)-2]) // a prefix
	sameReport(t, dir, st, "--tag", "job=both")
	sameReport(t, dir, st, id, "--from", "1s", "--to", "2s")
	// compare and charts: the same bytes from the store, but where the
	// run is kept.
	cd := stampede(t, "compare", id, id, "--results-dir", dir, "--format", "json")
	cs := stampede(t, "compare", id, id, "--results-dir", "none", "--results-url", st, "--format", "json")
	if want := strings.ReplaceAll(cd.stdout, filepath.Join(dir, id), "results store "+storeName(st)); cd.code != 0 || want != cs.stdout {
		t.Errorf("compare from the store differs: %d %s\n%s\n%s", cs.code, cs.stderr, cd.stdout, cs.stdout)
	}
	charts := t.TempDir()
	for _, src := range []struct{ name, dir, url string }{{"dir", dir, ""}, {"store", "none", st}} {
		r := stampede(t, "report", id, "--results-dir", src.dir, "--results-url", src.url, "--chart", filepath.Join(charts, src.name+".svg"))
		if r.code != 0 {
			t.Fatalf("chart from %s: %d %s", src.name, r.code, r.stderr)
		}
	}
	a, _ := os.ReadFile(filepath.Join(charts, "dir.svg"))
	b, _ := os.ReadFile(filepath.Join(charts, "store.svg"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("chart from the store differs from the directory's (%d and %d bytes)", len(a), len(b))
	}

	// The store only: no directory is left.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r = stampede(t, append(storeRun("storeonly"), "--results-dir", "none", "--results-url", st, "--format", "json")...)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "results saved in the results store (run ") {
		t.Fatalf("run --results-dir none: %d %s", r.code, r.stderr)
	}
	sameAsPrinted(t, r.stdout, st, "--tag", "job=storeonly")
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("run --results-dir none left %v in the temporary directory", left)
	}
	ls := stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--tag", "job=storeonly")
	if ls.code != 0 || strings.Count(ls.stdout, "job=storeonly") != 1 {
		t.Errorf("runs from the store: %d %q %s", ls.code, ls.stdout, ls.stderr)
	}
	rep := stampede(t, "report", "--results-dir", "none", "--results-url", st, "--tag", "job=storeonly")
	if rep.code != 0 || !strings.Contains(rep.stdout, "completed") {
		t.Errorf("report of a store-only run: %d %s %s", rep.code, rep.stdout, rep.stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("report left %v in the temporary directory", left)
	}

	// The store unreachable at the start: said once, then uploaded.
	lost := t.TempDir()
	r = stampede(t, append(storeRun("lost"), "--results-dir", lost, "--results-url", "postgresql://postgres@127.0.0.1:1/x?connect_timeout=2")...)
	if r.code != 0 {
		t.Fatalf("run with its store unreachable: %d %s", r.code, r.stderr)
	}
	said := 0
	for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
		if strings.Contains(l, "results store") {
			said++
		}
	}
	if n := said; n != 1 || !strings.Contains(r.stderr, "warning: the run goes on in ") {
		t.Errorf("the lost store said %d times, want once: %s", n, r.stderr)
	}
	lid := onlyRunID(t, lost)
	up := stampede(t, "runs", "upload", filepath.Join(lost, lid), "--results-url", st)
	if up.code != 0 || !strings.Contains(up.stdout, "run "+lid+" sent to the results store") {
		t.Fatalf("upload: %d %q %s", up.code, up.stdout, up.stderr)
	}
	sameReport(t, lost, st, lid)
	sameReport(t, lost, st, "--tag", "job=lost")
	again := stampede(t, "runs", "upload", filepath.Join(lost, lid), "--results-url", st)
	if again.code != 0 || strings.TrimSpace(again.stdout) != "run "+lid+" is already in the results store "+storeName(st)+": nothing sent" {
		t.Errorf("second upload: %d %q %s", again.code, again.stdout, again.stderr)
	}
	sameReport(t, lost, st, lid)
	ls = stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--tag", "job=lost")
	if ls.code != 0 || strings.Count(ls.stdout, lid) != 1 {
		t.Errorf("runs after the upload: %d %q %s", ls.code, ls.stdout, ls.stderr)
	}
}

// sameAsPrinted checks the report --format json of a run read from the
// store alone against the figures the run itself printed with --format
// json when it ended (its "final" line of each operation and its
// "summary" line), computed by the run from its own histograms and never
// read back from the store: each operation's figures, and the total's,
// byte for byte (chk31 T5).
func sameAsPrinted(t *testing.T, printed, storeURL string, ref ...string) {
	t.Helper()
	type fields map[string]json.RawMessage
	want := map[string]fields{}
	for _, l := range strings.Split(strings.TrimSpace(printed), "\n") {
		var line struct {
			Type, Op   string
			Cumulative fields
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("the run's line %q: %v", l, err)
		}
		switch line.Type {
		case "final":
			want[line.Op] = line.Cumulative
		case "summary":
			want["total"] = line.Cumulative
		}
	}
	if len(want) < 3 || want["total"] == nil {
		t.Fatalf("the run printed %d final and summary lines, want each operation's and the total's:\n%s", len(want), printed)
	}
	rep := stampede(t, append(strs("report", "--results-dir", "none", "--results-url", storeURL, "--format", "json"), ref...)...)
	if rep.code != 0 {
		t.Fatalf("report %v from the store: %d %s", ref, rep.code, rep.stderr)
	}
	var got struct {
		Ops   []fields
		Total fields
	}
	if err := json.Unmarshal([]byte(rep.stdout), &got); err != nil {
		t.Fatalf("report %v: %v\n%s", ref, err, rep.stdout)
	}
	reported := map[string]fields{"total": got.Total}
	for _, op := range got.Ops {
		var name string
		_ = json.Unmarshal(op["name"], &name)
		delete(op, "name")
		reported[name] = op
	}
	if len(reported) != len(want) {
		t.Errorf("report %v gives %d operations and the total, the run printed %d", ref, len(reported), len(want))
	}
	for op, w := range want {
		g := reported[op]
		if len(g) != len(w) {
			t.Errorf("%s: the report's figures %v, the run printed %v", op, keys(g), keys(w))
		}
		for k, v := range w {
			var a, b bytes.Buffer
			_ = json.Compact(&a, v)
			_ = json.Compact(&b, g[k])
			if a.String() != b.String() {
				t.Errorf("%s's %s: the run printed %s, the report from the store gives %s", op, k, a.String(), b.String())
			}
		}
	}
}

// keys lists a JSON object's keys, sorted.
func keys(m map[string]json.RawMessage) []string {
	return slices.Sorted(maps.Keys(m))
}

// storeName is how messages name the store of url: host and database.
func storeName(url string) string {
	s := strings.TrimPrefix(strings.TrimPrefix(url, "postgresql://"), "postgres://")
	if at := strings.LastIndex(s, "@"); at >= 0 {
		s = s[at+1:]
	}
	s, _, _ = strings.Cut(s, "?")
	return s
}

// TestRunsUploadBadInput: what upload refuses, in one line each.
func TestRunsUploadBadInput(t *testing.T) {
	st := storeDB(t)
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	dir := t.TempDir()
	if r := stampede(t, append(storeRun("copy"), "--results-dir", dir, "--results-url", st)...); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	id := onlyRunID(t, dir)
	// Another copy of the run: same ID, other bytes.
	other := filepath.Join(t.TempDir(), id)
	if err := os.CopyFS(other, os.DirFS(filepath.Join(dir, id))); err != nil {
		t.Fatal(err)
	}
	info, err := os.ReadFile(filepath.Join(other, runlog.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, runlog.RunFile), bytes.Replace(info, []byte("job=copy"), []byte("job=c0py"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no store", strs("runs", "upload", filepath.Join(dir, id)), "name the PostgreSQL results store"},
		{"sqlite store", strs("runs", "upload", filepath.Join(dir, id), "--results-url", "sqlite:"+filepath.Join(dir, "i.sqlite")), "keeps no runs' files"},
		{"not a run", strs("runs", "upload", dir, "--results-url", st), "is not a run directory"},
		{"missing", strs("runs", "upload", filepath.Join(dir, "nope"), "--results-url", st), "is not a run directory"},
		{"no dir", strs("runs", "upload", "--results-url", st), "takes at least 1 argument, not 0"},
		{"different copy", strs("runs", "upload", other, "--results-url", st), "the results store holds a different copy of the run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOneLineError(t, stampede(t, tc.args...), 2, tc.want)
		})
	}
	sameReport(t, dir, st, id) // the store's copy is untouched
}

// TestStoreLostDuringRun: the store goes away during the run: the run
// goes on in its directory, says so once, and ends as it would have; when
// the store is back, `runs upload` sends it whole, and the store's report
// equals the directory's. The store comes back empty (its database
// dropped and made again), or still holding the run's partial copy, left
// 'running' when the store was cut off (connections refused): the upload
// completes that copy (chk31 T6); a second upload sends nothing.
func TestStoreLostDuringRun(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lose, back func(t *testing.T, db string)
		// partial says the store keeps the run's 'running' copy.
		partial bool
	}{
		{"back empty",
			func(t *testing.T, db string) { adminExec(t, "DROP DATABASE "+db+" WITH (FORCE)") },
			func(t *testing.T, db string) { adminExec(t, "CREATE DATABASE "+db) }, false},
		{"back with the partial copy",
			func(t *testing.T, db string) {
				adminExec(t, "ALTER DATABASE "+db+" ALLOW_CONNECTIONS false")
				adminExec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+db+"'")
			},
			func(t *testing.T, db string) { adminExec(t, "ALTER DATABASE "+db+" ALLOW_CONNECTIONS true") }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := storeDB(t)
			name, _, _ := strings.Cut(st[strings.LastIndex(st, "/")+1:], "?")
			t.Setenv("STAMPEDE_RESULTS_URL", "")
			dir := t.TempDir()
			done := make(chan result, 1)
			go func() {
				done <- stampede(t, "run", "ycsb", "--driver", "null", "--duration", "5s", "--max-rate", "2000", "--tag", "job=lostmid",
					"--results-dir", dir, "--results-url", st)
			}()
			time.Sleep(2500 * time.Millisecond)
			tc.lose(t, name)
			r := <-done
			if r.code != 0 {
				t.Fatalf("run that lost its store: %d %s", r.code, r.stderr)
			}
			var said []string
			for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
				if strings.Contains(l, "results store") {
					said = append(said, l)
				}
			}
			if len(said) != 1 || !strings.HasPrefix(said[0], "warning: the run goes on in ") || !strings.Contains(said[0], "`stampede runs upload ") {
				t.Errorf("the lost store: want one warning line, got %q", said)
			}
			id := onlyRunID(t, dir)
			run, err := runlog.Open(filepath.Join(dir, id))
			if err != nil || run.Info.Status != runlog.StatusCompleted {
				t.Fatalf("the run's directory: %v %v", run, err)
			}
			tc.back(t, name)
			listed := func() string {
				ls := stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--tag", "job=lostmid")
				if ls.code != 0 {
					t.Fatalf("runs from the store: %d %s", ls.code, ls.stderr)
				}
				return ls.stdout
			}
			if tc.partial {
				if before := listed(); !strings.Contains(before, id) || !strings.Contains(before, "running") {
					t.Fatalf("the store before the upload: want its copy listed 'running':\n%s", before)
				}
			}
			up := stampede(t, "runs", "upload", filepath.Join(dir, id), "--results-url", st)
			if up.code != 0 || !strings.Contains(up.stdout, "run "+id+" sent to the results store") {
				t.Fatalf("upload: %d %q %s", up.code, up.stdout, up.stderr)
			}
			if after := listed(); strings.Count(after, id) != 1 || !strings.Contains(after, "completed") || strings.Contains(after, "running") {
				t.Errorf("the store after the upload: want its one copy completed:\n%s", after)
			}
			sameReport(t, dir, st, id)
			sameText(t, dir, st, id)
			again := stampede(t, "runs", "upload", filepath.Join(dir, id), "--results-url", st)
			if again.code != 0 || strings.TrimSpace(again.stdout) != "run "+id+" is already in the results store "+storeName(st)+": nothing sent" {
				t.Errorf("second upload: %d %q %s", again.code, again.stdout, again.stderr)
			}
			sameReport(t, dir, st, id)
		})
	}
}

// sameText checks that report's text of a run read from its directory is
// the one read from the store, but for where the run is kept.
func sameText(t *testing.T, dir, storeURL, id string) {
	t.Helper()
	fromDir := stampede(t, "report", id, "--results-dir", dir, "--results-url", "")
	fromStore := stampede(t, "report", id, "--results-dir", "none", "--results-url", storeURL)
	if fromDir.code != 0 || fromStore.code != 0 || !strings.Contains(fromDir.stdout, id) {
		t.Fatalf("report %s: from the directory %d %s; from the store %d %s", id, fromDir.code, fromDir.stderr, fromStore.code, fromStore.stderr)
	}
	if want := strings.ReplaceAll(fromDir.stdout, filepath.Join(dir, id), "results store "+storeName(storeURL)); want != fromStore.stdout {
		t.Errorf("report %s differs:\nfrom the directory:\n%s\nfrom the store:\n%s", id, fromDir.stdout, fromStore.stdout)
	}
}
