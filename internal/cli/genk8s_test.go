package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/stampede-bench/stampede/runlog"
)

// TestGenK8s writes the manifests of a two-client benchmark, decodes the
// Job strictly, and runs each pod's command line as the kubelet would
// (its index in place of $(JOB_COMPLETION_INDEX), the results volume a
// directory here): both clients run their share, and report merges them.
func TestGenK8s(t *testing.T) {
	// The pods run at once, as a Job's do, from a start time far enough
	// ahead for both to be waiting for it on a loaded machine: run one
	// after the other, the second started 1.2 s after the first under
	// load, and report refused them as clients that did not start
	// together (CI).
	startAt := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	r := stampede(t, "gen", "k8s", "--clients", "2", "--image", "registry.example.com/stampede:0.1", "--name", "null-b", "--start-at", startAt,
		"-o", "-", "--", "run", "ycsb", "--driver", "null", "--workload", "b", "--max-rate", "2000", "--max-ops", "1001", "--concurrency", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	docs := bytes.Split([]byte(r.stdout), []byte("---\n"))
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the claim and the job:\n%s", len(docs), r.stdout)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(docs[1], &job); err != nil {
		t.Fatal(err)
	}
	if job.Kind != "Job" || *job.Spec.Completions != 2 {
		t.Fatalf("job %+v", job)
	}
	results := t.TempDir()
	bin := buildStampede(t)
	cmds := make([]*exec.Cmd, 2)
	outs := make([]*bytes.Buffer, 2)
	for i := range cmds {
		var args []string
		for _, a := range job.Spec.Template.Spec.Containers[0].Args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", string(rune('0'+i)))
			args = append(args, strings.Replace(a, "/results", results, 1))
		}
		outs[i] = &bytes.Buffer{}
		cmds[i] = exec.Command(bin, args...)
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("client %d: %q: %v\n%s", i, c.Args, err, outs[i])
		}
	}
	runs, err := runlog.List(results)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	for _, run := range runs {
		if run.Tags["job"] != "null-b" || !strings.HasSuffix(run.Tags["client"], "/2") || run.Flags["max-rate"] != "2000" {
			t.Errorf("run %s: tags %v flags max-rate %s", run.ID, run.Tags, run.Flags["max-rate"])
		}
	}
	rep := stampede(t, "report", "--results-dir", results, "--tag", "job=null-b")
	if rep.code != 0 || !strings.Contains(rep.stdout, "           1001 ") {
		t.Errorf("report of both clients: want their 1001 operations:\n%s%s", rep.stdout, rep.stderr)
	}
	none := stampede(t, "report", "--results-dir", results, "--tag", "job=other")
	checkOneLineError(t, none, 2, "has the tags job=other: see `stampede runs --results-dir")
}

// TestGenK8sBadInput: one line, exit 2, nothing written.
func TestGenK8sBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.yaml")
	base := []string{"gen", "k8s", "--clients", "2", "--image", "img", "-o", out}
	line := []string{"--", "run", "ycsb", "--driver", "null", "postgresql://bench@db:5432/ycsb"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no client line", base, "give each client's command line after --"},
		{"no image", append([]string{"gen", "k8s", "--clients", "2", "-o", out}, line...), "--image: give the container image"},
		{"no clients", append([]string{"gen", "k8s", "--image", "img", "-o", out}, line...), "--clients 0: give the number of client pods"},
		{"password", append(base, "--", "run", "ycsb", "postgresql://bench:hunter2@db/ycsb"), "holds a password, which is never written into a manifest"},
		{"client flags", append(base, "--", "run", "ycsb", "--clients", "3", "postgresql://bench@db/ycsb"), "--clients is gen k8s's to set"},
		{"results dir", append(base, "--", "run", "ycsb", "--results-dir=/x", "postgresql://bench@db/ycsb"), "--results-dir=/x is gen k8s's to set"},
		{"not run", append(base, "--", "init", "ycsb"), "the clients' command line after -- is `run WORKLOAD [flags] URL...`"},
		{"no verb", append(base, "--", "ycsb", "--workload", "a"), "the clients' command line after -- is `run WORKLOAD"},
		{"bad run line", append(base, "--", "run", "ycsb", "--max-rate", "-5", "postgresql://bench@db/ycsb"), "the command line of client 0 would not run: --max-rate -5 is negative"},
		{"unknown flag", append(base, "--", "run", "ycsb", "--bogus", "postgresql://bench@db/ycsb"), "the command line of client 0 would not run: unknown flag: --bogus"},
		{"last client's share", append(base, "--", "run", "ycsb", "-p", "recordcount=1", "postgresql://bench@db/ycsb"), "would not run: insertcount must be at least 1"},
		{"ycsb password", append(base, "--", "run", "ycsb", "-p", "db.passwd=hunter2", "postgresql://bench@db/ycsb"), "holds a password"},
		{"dry run", append(base, "--", "run", "ycsb", "--dry-run", "postgresql://bench@db/ycsb"), "would make every pod run nothing"},
		{"job tag", append(base, "--", "run", "ycsb", "--tag", "job=x", "postgresql://bench@db/ycsb"), "--tag job=x: gen k8s tags each client's run job=NAME"},
		{"past start", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "--start-at", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "-o", out}, line...), "is past"},
		{"negative cpu", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "--cpu", "-1", "-o", out}, line...), "--cpu \"-1\" is not a positive Kubernetes quantity"},
		{"tiny claim", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "--results-size", "1m", "-o", out}, line...), "--results-size \"1m\""},
		{"out is a directory", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "-o", dir}, line...), "is a directory: give a file name"},
		{"tpcc", append(base, "--", "run", "tpcc", "--warehouses", "1", "postgresql://bench@db/tpcc"), "--clients 2 with 1 warehouse: each client runs the terminals of warehouses of its own"},
		{"bad name", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "--name", "My_Job", "-o", out}, line...), "--name \"My_Job\""},
		{"missing script", append(base, "--", "run", "sql", "-f", filepath.Join(dir, "none.sql"), "postgresql://bench@db/x"), "-f " + filepath.Join(dir, "none.sql") + ": no such file or directory"},
		{"script from stdin", append(base, "--", "run", "sql", "-f", "-", "postgresql://bench@db/x"), "-f -: a pod has no standard input"},
		{"bad start", append([]string{"gen", "k8s", "--clients", "2", "--image", "img", "--start-at", "soon", "-o", out}, line...), "--start-at soon is not a time"},
		// An empty value was silently left out (chk31 B8: an empty
		// --results-url-secret wrote a shared-volume claim, exit 0).
		{"empty results url secret", append(append(slices.Clone(base), "--results-url-secret", ""), line...), "gen k8s: --results-url-secret '' is empty: give the Secret whose key \"url\" holds the results store's URL, or leave it out (a volume claim for the run directories)"},
		{"empty results claim", append(append(slices.Clone(base), "--results-claim="), line...), "gen k8s: --results-claim '' is empty: give an existing ReadWriteMany claim, or leave it out (the claim NAME-results gen k8s creates)"},
		{"empty password secret", append(append(slices.Clone(base), "--password-secret", ""), line...), "gen k8s: --password-secret '' is empty"},
		{"empty name", append(append(slices.Clone(base), "--name", ""), line...), "gen k8s: --name '' is empty: give the Job's name, or leave it out (the workload's name)"},
		{"empty namespace", append(append(slices.Clone(base), "--namespace", " "), line...), "gen k8s: --namespace '' is empty"},
		{"empty cpu", append(append(slices.Clone(base), "--cpu", ""), line...), "gen k8s: --cpu '' is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, 2, tc.want)
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
	if r := stampede(t, append(base, line...)...); r.code != 0 || !strings.Contains(r.stdout, "wrote "+out) {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r := stampede(t, append(base, line...)...)
	checkOneLineError(t, r, 2, "exists: not overwritten (add --force to replace it")
}

// TestGenK8sInitChecked: gen k8s --init checks the first and last
// clients' init command lines with init --dry-run, as the run form checks
// run's (issue 31: it wrote any line and exited 0): each refusal is the
// client's, in one line, exit 2, and nothing is written; a line that
// passes is written, an existing -P file carried in the ConfigMap. init
// --dry-run itself says what the client would load, connecting to
// nothing (the host pg does not resolve here).
func TestGenK8sInitChecked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g2.yaml")
	const u = "postgresql://bench@pg/db"
	props := filepath.Join(dir, "load.props")
	if err := os.WriteFile(props, []byte("recordcount=3000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.props")
	for _, tc := range []struct {
		name string
		line []string
		want string // the refusal; "" for a line written
	}{
		{"unknown flag", []string{"init", "ycsb", "--no-such-flag", u}, "unknown flag: --no-such-flag"},
		{"no warehouses", []string{"init", "tpcc", "--warehouses", "0", u}, "--warehouses must be at least 1, not 0"},
		{"bad property", []string{"init", "ycsb", "-p", "recordcount=abc", u}, `invalid recordcount "abc" (from -p): not an integer`},
		{"more clients than warehouses", []string{"init", "tpcc", "--warehouses", "2", u}, "--clients 3 with 2 warehouses: each client loads warehouses of its own; use --clients 2 or fewer"},
		{"missing property file", []string{"init", "ycsb", "-P", missing, u}, "cannot read property file " + missing + ": no such file or directory"},
		{"too few rows for the clients", []string{"init", "bank", "--rows", "2000", u}, "--clients 3 with --rows 2000"},
		{"more clients than tenants", []string{"init", "bank", "--tenants", "2", u}, "--clients 3 is more than --tenants 2"},
		// gen k8s sets no --start-at in the init Job, and init has none
		// (chk31: the refusal said gen k8s sets it).
		{"start at", []string{"init", "ycsb", "--start-at", "next:1m", u}, "gen k8s: the init Job's command line would not run: init takes no --start-at (unknown flag: --start-at): drop it"},
		{"results url", []string{"init", "ycsb", "--results-url", "postgresql://bench@db/r", u}, "gen k8s: the init Job's command line would not run: init takes no --results-url (unknown flag: --results-url)"},
		{"client index", []string{"init", "ycsb", "--client-index", "1", u}, "gen k8s: --client-index is gen k8s's to set in each client's command line: drop it (gen k8s --init sets --clients and --client-index)"},
		{"property file", []string{"init", "ycsb", "-P", props, u}, ""},
		{"tenants", []string{"init", "bank", "--tenants", "3", "--tenant-mode", "schema", u}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"gen", "k8s", "--name", "g2", "--clients", "3", "--image", "x", "--init", "-o", out, "--force", "--"}, tc.line...)...)
			if tc.want != "" {
				want := tc.want
				if !strings.HasPrefix(want, "gen k8s: ") {
					want = "gen k8s: the command line of client 0 would not run: " + want
				}
				checkOneLineError(t, r, 2, want)
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout, "wrote "+out) {
				t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			defer os.Remove(out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if carried := strings.Contains(string(b), "kind: ConfigMap") && strings.Contains(string(b), "recordcount=3000"); carried != slices.Contains(tc.line, "-P") {
				t.Errorf("the manifest carries the -P file: %v, want %v:\n%s", carried, !carried, b)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "ycsb", "-p", "recordcount=30000", "--clients", "3", "--client-index", "1", "--dry-run", u},
			"dry run: init ycsb, client 1 of 3's share (keys 10000-19999): the command line is valid; nothing was loaded\n"},
		{[]string{"init", "bank", "--tenants", "4", "--clients", "2", "--client-index", "1", "--dry-run", u},
			"dry run: init bank, 4 tenants, client 1 of 2's share (tenants 3..4): the command line is valid; nothing was loaded\n"},
		{[]string{"init", "tpcc", "--dry-run", u}, "dry run: init tpcc: the command line is valid; nothing was loaded\n"},
	} {
		if r := stampede(t, tc.args...); r.code != 0 || r.stdout != tc.want {
			t.Errorf("%q: exit %d, stdout %q, want %q\n%s", tc.args, r.code, r.stdout, tc.want, r.stderr)
		}
	}
}

// TestGenK8sPasswordAdvice: refusing a password in the clients' command
// line, gen k8s masks it where the user gave it, never in its own advice,
// whose flag and command must read as written whatever the password
// (chk31 B7: "give --xxxxx-secret NAME", "kubectl create xxxxx").
func TestGenK8sPasswordAdvice(t *testing.T) {
	const want = "stampede: error: gen k8s: the clients' command line holds a password, which is never written into a manifest: give the URL without it, store it in a Secret and give --password-secret NAME; the Secret is made with kubectl create secret generic NAME --from-literal=password=PASSWORD\n"
	out := filepath.Join(t.TempDir(), "m.yaml")
	for _, pw := range []string{"password", "secret", "generic", "k", "NAME"} {
		t.Run(pw, func(t *testing.T) {
			r := stampede(t, "gen", "k8s", "--name", "zp", "--clients", "2", "--image", "r/s:1", "-o", out, "--", "run", "ycsb", "postgresql://bench:"+pw+"@pg:5432/ycsb")
			if r.code != 2 || r.stderr != want || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr\n%q\nwant exit 2 and\n%q", r.code, r.stdout, r.stderr, want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

// TestGenK8sFiles: the scripts a client line names are carried in a
// ConfigMap mounted in the pods, whose arguments name them there (weights
// kept); the pods' line, with the mount in place of /scripts, passes run's
// dry run, and says the scripts' weights.
func TestGenK8sFiles(t *testing.T) {
	dir := t.TempDir()
	q := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(q, []byte("SELECT 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "gen", "k8s", "--clients", "2", "--image", "i:1", "--name", "sqlf", "-o", "-", "--", "run", "sql", "-f", q+"@3", "-b", "select-only@1", "postgresql://bench@db/x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	docs := bytes.Split([]byte(r.stdout), []byte("---\n"))
	var job batchv1.Job
	var cm corev1.ConfigMap
	for _, d := range docs {
		switch {
		case bytes.Contains(d, []byte("kind: Job")):
			if err := yaml.UnmarshalStrict(d, &job); err != nil {
				t.Fatal(err)
			}
		case bytes.Contains(d, []byte("kind: ConfigMap")):
			if err := yaml.UnmarshalStrict(d, &cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cm.Name != "sqlf-files" || cm.Data["q.sql"] != "SELECT 1;\n" {
		t.Fatalf("ConfigMap %+v", cm)
	}
	mounts := t.TempDir()
	if err := os.WriteFile(filepath.Join(mounts, "q.sql"), []byte(cm.Data["q.sql"]), 0o600); err != nil {
		t.Fatal(err)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "/scripts/q.sql@3") {
		t.Fatalf("pod args %q name no /scripts/q.sql@3", args)
	}
	var local []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", "0")
		local = append(local, strings.Replace(a, "/scripts", mounts, 1))
	}
	dry := stampede(t, append(local, "--dry-run")...)
	if dry.code != 0 || !strings.Contains(dry.stdout, "the command line is valid") {
		t.Errorf("the pod's line %q: exit %d:\n%s%s", local, dry.code, dry.stdout, dry.stderr)
	}
	// The dry run reads the scripts: without the mount, the pod's line
	// would fail on /scripts/q.sql (this machine has no /scripts).
	if _, err := os.Stat("/scripts"); err == nil {
		t.Skip("/scripts exists here")
	}
	unmounted := stampede(t, append(slices.Clone(args[:7]), "--dry-run")...)
	checkOneLineError(t, unmounted, 2, "/scripts/q.sql")
}

// TestTPCCClientsDryRun: a dry run of a TPC-C client, and gen k8s, given
// no --warehouses, do not judge the client count against the default of
// 1 warehouse, which the user never gave (the run takes the loaded
// count): the dry run says the split is checked when the client starts.
// With --warehouses the count is judged at once.
func TestTPCCClientsDryRun(t *testing.T) {
	u := "postgresql://bench@db/tpcc"
	r := stampede(t, "run", "tpcc", "--clients", "3", "--client-index", "0", "--duration", "2s", "--dry-run", u)
	if r.code != 0 || !strings.Contains(r.stdout, "client 0 of 3 (its share of the rate and operations), its share of the warehouses init loaded (the split is checked against them when the client starts)") {
		t.Errorf("dry run without --warehouses: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Its workers (10 per warehouse of its share) are not known before
	// it reads the load: no count, for any client (it said 8 for some).
	for _, i := range []string{"0", "1", "2"} {
		r = stampede(t, "run", "tpcc", "--clients", "3", "--client-index", i, "--duration", "2s", "--dry-run", u)
		if !strings.HasPrefix(r.stdout, "dry run: tpcc, its workers counted when it starts, client "+i+" of 3") {
			t.Errorf("dry run of client %s without --warehouses:\n%s%s", i, r.stdout, r.stderr)
		}
	}
	r = stampede(t, "run", "tpcc", "--clients", "3", "--client-index", "0", "--wait=false", "--concurrency", "9", "--duration", "2s", "--dry-run", u)
	if !strings.HasPrefix(r.stdout, "dry run: tpcc, 9 workers, client 0 of 3") {
		t.Errorf("dry run without waits, --concurrency 9:\n%s%s", r.stdout, r.stderr)
	}
	r = stampede(t, "run", "tpcc", "--clients", "3", "--client-index", "2", "--warehouses", "4", "--duration", "2s", "--dry-run", u)
	if r.code != 0 || !strings.Contains(r.stdout, "the terminals of warehouses 3-4 of 4") {
		t.Errorf("dry run with --warehouses 4: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, "run", "tpcc", "--clients", "3", "--client-index", "0", "--warehouses", "2", "--dry-run", u)
	checkOneLineError(t, r, 2, "--clients 3 with 2 warehouses: each client runs the terminals of warehouses of its own; use --clients 2 or fewer")
	r = stampede(t, "gen", "k8s", "--clients", "3", "--image", "i:1", "-o", "-", "--", "run", "tpcc", "--duration", "1m", u)
	if r.code != 0 || !strings.Contains(r.stdout, "kind: Job") {
		t.Errorf("gen k8s of tpcc without --warehouses: exit %d\n%s", r.code, r.stderr)
	}
}
