package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepRefusals34k: bad sweeps are refused in one line before the
// sweep's header or any step (each failed on c2f33ed0): --conns above
// --concurrency (a search answered a value that never ran), limits
// without targets in a sweep whose steps are not built (said at step 1),
// and a swept property's bad value (named with a stray space).
func TestSweepRefusals34k(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"conns search above", []string{"--conns", "1:32", "--concurrency", "8", "--search", "--slo", "p99<=60ms"},
			"--conns up to 32 with --concurrency 8: a run opens at most one connection per worker, so above 8 more --conns is not a heavier load (and never runs): raise --concurrency to at least 32, or end the --conns range at 8"},
		{"conns list above", []string{"--conns", "2,16", "--concurrency", "4"}, "raise --concurrency to at least 16, or give --conns values up to 4"},
		{"limits without targets", []string{"--concurrency", "1,2", "--cpus", "0.5"}, "limits apply to the system under test: say which processes with --limit-process REGEX"},
		{"property", []string{"-p", "readproportion=0.5,x"}, `-p readproportion=0.5,x: "x" is not a number`},
		// A non-number first was not taken for a list (chk34f F6).
		{"property, a non-number first", []string{"-p", "readproportion=x,0.5"}, `-p readproportion=x,0.5: "x" is not a number`},
		{"grid of conns by concurrency", []string{"--conns", "4,16", "--concurrency", "4,16"}, "--conns 16 with --concurrency 4 is a step of the grid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := stampede(t, append([]string{"sweep", "ycsb", "--driver", "null", "--duration", "1s", "--results-dir", t.TempDir()}, c.args...)...)
			checkOneLineError(t, r, 2, c.want)
			if r.stdout != "" {
				t.Errorf("the sweep began before the refusal:\n%s", r.stdout)
			}
		})
	}
}

// TestLimitsMatchingNothing: limits whose patterns match no process by
// the run's end say so in one line on stderr, in the run log's events
// and in a sweep step's note; limits that hold a process do not (it
// failed on c2f33ed0, which said nothing).
func TestLimitsMatchingNothing(t *testing.T) {
	requireLimitV1(t)
	const none = "no process matched --limit-process ^zzc34knone$: nothing was limited"
	// A process of a name of its own, for the limits to hold.
	bin := filepath.Join(t.TempDir(), "zzc34k_sleep")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("needs sleep")
	}
	if err := os.Symlink(sleep, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for _, c := range []struct {
		name   string
		target []string
		warned bool
		moved  string // in the limits' removed event
	}{
		{"matching nothing", []string{"--limit-process", "^zzc34knone$"}, true, "; 0 processes moved in during the run"},
		{"matching a process", []string{"--limit-process", "^zzc34k_sleep$"}, false, "; 1 process moved in during the run"},
		// --limit-pid's process counted (it said 0: chk34g).
		{"by PID", []string{"--limit-pid", strconv.Itoa(cmd.Process.Pid)}, false, "; 1 process moved in during the run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := t.TempDir()
			r := stampede(t, append([]string{"run", "ycsb", "--driver", "null", "--duration", "1s", "--memory", "64M", "--results-dir", results}, c.target...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "warning: limits: "+none+" (list the processes with `ps -eo pid,comm,args`)"); got != c.warned {
				t.Errorf("warned %v, want %v:\n%s", got, c.warned, r.stderr)
			}
			runs, err := runlog.List(results)
			if err != nil || len(runs) != 1 {
				t.Fatalf("runs %v: %v", runs, err)
			}
			events, err := os.ReadFile(filepath.Join(results, runs[0].ID, "events.ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(events), `"nothing-limited"`); got != c.warned {
				t.Errorf("events.ndjson holds nothing-limited: %v, want %v:\n%s", got, c.warned, events)
			}
			if !strings.Contains(string(events), c.moved) {
				t.Errorf("events.ndjson does not say %q:\n%s", c.moved, events)
			}
		})
	}
	r := stampede(t, "sweep", "ycsb", "--driver", "null", "--duration", "1s", "--memory", "64M,128M", "--limit-cmdline", "zzc34k_nomatch", "--results-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, "no process matched --limit-cmdline zzc34k_nomatch: nothing was limited"); n != 2 {
		t.Errorf("the sweep's table notes nothing limited at %d steps, want 2:\n%s", n, r.stdout)
	}
}

// TestFleetSearchTop: a fleet's search whose range ends at --tenants and
// meets the SLO there says that is every tenant, as TPC-C's says of its
// warehouses, not "search a higher range" (it did on c2f33ed0).
func TestFleetSearchTop(t *testing.T) {
	for _, tc := range []struct {
		name, active, want string
		more               []string
	}{
		{"every tenant", "1:6", "the range's highest value, --active 6, met the SLO: that is every tenant (--tenants 6): load more (`stampede init bank --tenants N`) to search higher", nil},
		{"below every tenant", "1:4", "the range's highest value, --active 4, met the SLO: search a higher range", nil},
		// The advice names the fleet's mode, pattern and data flags, so
		// that it adds to the same fleet (34's NIT: it named none).
		{"a schema fleet", "1:6", "load more (`stampede init bank --tenants N --tenant-mode schema --tenant-pattern acct_%d --rows 500`) to search higher",
			[]string{"--tenant-mode", "schema", "--tenant-pattern", "acct_%d", "--rows", "500", "--max-transfer", "7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"sweep", "bank", "--tenants", "6", "--active", tc.active, "--search", "--slo", "p99<=10s", "--repeat", "1",
				"--driver", "null", "--duration", "200ms", "--results-dir", t.TempDir()}, tc.more...)...)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("exit %d, want %q in:\n%s%s", r.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
}
