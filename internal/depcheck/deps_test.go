package depcheck_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/stampede-bench/stampede"

// imports returns, per package of the module, its direct imports (deps =
// false) or every package it depends on (deps = true).
func imports(t *testing.T, deps bool) map[string][]string {
	t.Helper()
	format := `{{.ImportPath}} {{join .Imports " "}}`
	if deps {
		format = `{{.ImportPath}} {{join .Deps " "}}`
	}
	cmd := exec.Command("go", "list", "-f", format, module+"/...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// The import rules are checked by nothing else: a failure to
		// list the packages is a failure, never a skip.
		t.Fatalf("go list failed, so the import rules cannot be checked: %v\n%s", err, stderr.String())
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		m[strings.TrimPrefix(f[0], module+"/")] = f[1:]
	}
	return m
}

func TestLayers(t *testing.T) {
	direct := imports(t, false)
	all := imports(t, true)
	for _, d := range all["internal/cacheline"] {
		if !isStd(d) {
			t.Errorf("internal/cacheline depends on %s: it must stay a leaf that anything may use", d)
		}
	}
	for _, d := range all["internal/lazyre"] {
		if !isStd(d) {
			t.Errorf("internal/lazyre depends on %s: it must stay a leaf that anything may use", d)
		}
	}
	for _, d := range all["redact"] {
		if !isStd(d) && d != module+"/internal/lazyre" {
			t.Errorf("redact depends on %s: it must stay a leaf that anything may use", d)
		}
	}
	for _, d := range all["procmatch"] {
		if !isStd(d) {
			t.Errorf("procmatch depends on %s: it must stay a leaf that anything may use", d)
		}
	}
	// internal/cacheline is memory layout only, internal/lazyre a regular
	// expression compiled at first use, procmatch the rule that picks
	// processes by pattern and redact the masking of secrets in text (no
	// imports of ours but lazyre, no I/O): the leaves may use them as
	// they use the standard library.
	ours := func(p string) bool {
		return strings.HasPrefix(p, module+"/") && p != module+"/internal/cacheline" && p != module+"/internal/lazyre" && p != module+"/procmatch" && p != module+"/redact"
	}
	sql := func(p string) bool {
		return strings.HasPrefix(p, "github.com/jackc/") || p == "database/sql" || strings.HasPrefix(p, "modernc.org/sqlite")
	}
	for _, tc := range []struct {
		pkg    string
		deps   bool // check transitive dependencies instead of direct imports
		banned func(string) bool
		why    string
	}{
		{"stats", true, func(p string) bool { return ours(p) || sql(p) }, "stats is a leaf: no SQL, nothing of ours"},
		{"randgen", true, ours, "randgen is a leaf"},
		{"runlog", true, func(p string) bool { return ours(p) || sql(p) }, "runlog is a leaf: no SQL, nothing of ours"},
		{"dialect", true, func(p string) bool { return ours(p) || sql(p) }, "a dialect is SQL text only: no connections"},
		{"results", true, func(p string) bool {
			return sql(p) || (ours(p) && !strings.HasSuffix(p, "/stats") && !strings.HasSuffix(p, "/runlog") && !strings.HasSuffix(p, "/telemetry"))
		}, "batch views are computed from run directories only: no SQL, no workloads"},
		{"telemetry", true, func(p string) bool { return ours(p) || sql(p) }, "telemetry is a leaf: /proc sampling, no SQL, nothing of ours"},
		{"internal/clientsched", true, func(p string) bool { return ours(p) || sql(p) }, "clientsched is a leaf: thread policies, no SQL, nothing of ours"},
		{"internal/gcpace", true, func(p string) bool { return ours(p) || sql(p) }, "gcpace is a leaf: the Go collector's pacing, no SQL, nothing of ours"},
		{"internal/membudget", true, func(p string) bool { return ours(p) || sql(p) }, "membudget is a leaf that workloads use: the memory a command may plan on, no SQL, nothing of ours"},
		{"report", false, func(p string) bool {
			return ours(p) && !strings.HasSuffix(p, "/stats") && !strings.HasSuffix(p, "/telemetry")
		}, "formatters take computed figures (stats, telemetry) and nothing else"},
		{"chart", true, func(p string) bool {
			return sql(p) || (ours(p) && !strings.HasSuffix(p, "/results") && !strings.HasSuffix(p, "/stats") && !strings.HasSuffix(p, "/runlog") && !strings.HasSuffix(p, "/telemetry"))
		}, "charts draw figures computed by results: no SQL, nothing else of ours"},
		{"engine", false, func(p string) bool {
			return sql(p) || (ours(p) && !strings.HasSuffix(p, "/stats") && !strings.HasSuffix(p, "/workload"))
		}, "the engine knows workloads and stats only"},
	} {
		list := direct[tc.pkg]
		if tc.deps {
			list = all[tc.pkg]
		}
		if list == nil && direct[tc.pkg] == nil {
			if _, ok := direct[tc.pkg]; !ok {
				t.Errorf("package %s not found", tc.pkg)
				continue
			}
		}
		for _, p := range list {
			if tc.banned(p) {
				t.Errorf("%s imports %s: %s", tc.pkg, p, tc.why)
			}
		}
	}
	// The run package is the lifecycle every front end shares: it knows no
	// front end. The printers and the command-line parsers sit above it,
	// below the CLI.
	for _, tc := range []struct {
		pkg    string
		banned []string
		why    string
	}{
		{"run", []string{"/internal/cli", "/cmdline", "/output"}, "a run's lifecycle knows no front end (CLI, command-line parsers, printers)"},
		{"output", []string{"/internal/cli", "/cmdline"}, "printers are fed by runs, not by the command line"},
		{"cmdline", []string{"/internal/cli"}, "command-line parsers make run specs; the CLI uses them, not the other way round"},
	} {
		for _, p := range all[tc.pkg] {
			for _, banned := range tc.banned {
				if p == module+banned || strings.HasPrefix(p, module+banned+"/") {
					t.Errorf("%s depends on %s: %s", tc.pkg, p, tc.why)
				}
			}
		}
	}
	// Workloads never import the engine, the run package, the CLI, the
	// command-line parsers, the run log or formatters.
	for pkg, list := range all {
		if !strings.HasPrefix(pkg, "workload") {
			continue
		}
		for _, p := range list {
			for _, banned := range []string{"/engine", "/run", "/internal/cli", "/cmdline", "/output", "/report", "/runlog"} {
				if p == module+banned {
					t.Errorf("%s depends on %s: workloads stay below the engine and the outputs", pkg, p)
				}
			}
		}
	}
}

// isStd reports whether p is a standard library package (no dot in its
// first path element).
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}
