package pgbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// savedRun runs `stampede report --format json` over the one run saved
// in dir's ~/.stampede and returns its total count and its operations'
// counts and errors by name.
func savedRun(t *testing.T, dir string) (total int64, ops map[string][2]int64) {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, ".stampede", "runs", "2*"))
	if len(runs) != 1 {
		t.Fatalf("%d saved runs in %s, want 1", len(runs), dir)
	}
	cmd := exec.Command(bin, "report", "--format", "json", runs[0])
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("report: %v\n%s", err, errb.String())
	}
	var rep struct {
		Total struct{ Count int64 } `json:"total"`
		Ops   []struct {
			Name          string
			Count, Errors int64
		} `json:"ops"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	ops = map[string][2]int64{}
	for _, o := range rep.Ops {
		ops[o.Name] = [2]int64{o.Count, o.Errors}
	}
	return rep.Total.Count, ops
}

// processed is the pgbench report's "number of transactions actually
// processed" (without the /TOTAL of -t).
func processed(t *testing.T, report string) int64 {
	t.Helper()
	for _, l := range strings.Split(report, "\n") {
		if v, ok := strings.CutPrefix(l, "number of transactions actually processed: "); ok {
			var n int64
			fmt.Sscan(strings.SplitN(v, "/", 2)[0], &n)
			return n
		}
	}
	t.Fatalf("no processed line in\n%s", report)
	return 0
}

// TestSavedTotalCountsTransactions: the saved run's total (report's, from
// the run log) is pgbench's processed count, with -r too, where every
// command, \set lines among them, is an operation of its own under its
// script: they are parts, never transactions.
func TestSavedTotalCountsTransactions(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, args := range [][]string{
		{"-n", "-c", "4", "-j", "2", "-T", "2", "-M", "extended"},
		{"-n", "-c", "4", "-j", "2", "-T", "2", "-M", "extended", "-r"},
		{"-n", "-c", "2", "-t", "30", "-r", "-b", "tpcb-like@2", "-b", "select-only@1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			out, _ := tool(t, false, dir, append(append(append([]string{}, srv...), args...), db)...)
			want := processed(t, out)
			total, ops := savedRun(t, dir)
			if total != want || want == 0 {
				t.Errorf("report's total %d, pgbench's report processed %d (ops %v)", total, want, ops)
			}
			var scripts int64
			for name, c := range ops {
				if !strings.Contains(name, ":") {
					scripts += c[0]
				}
			}
			if scripts != want {
				t.Errorf("the scripts' counts add up to %d, processed %d (ops %v)", scripts, want, ops)
			}
		})
	}
}

// conflictScript updates one of two branches in repeatable read: eight
// clients make it fail often with serialization failures, on its UPDATE.
const conflictScript = `BEGIN ISOLATION LEVEL REPEATABLE READ;
\set id random(1, 2)
SELECT bbalance FROM pgbench_branches WHERE bid = :id;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = :id;
END;
`

// TestFailuresAndRetriesAsPgbench: -r's table under --max-tries has
// pgbench's three columns (failures and retries apart), with one try its
// two, line for line with the real pgbench's; stampede's failures add up
// to its report's failed transactions, its retries to at least the
// report's (those of transactions cut by -T's end too), and the saved run's
// row of the UPDATE counts the failures the table shows on it.
func TestFailuresAndRetriesAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, tries := range []string{"3", "1"} {
		t.Run("max-tries "+tries, func(t *testing.T) {
			args := append(append([]string{}, srv...), "-n", "-c", "8", "-T", "3", "--max-tries", tries, "--failures-detailed", "-r", "-f", "conflict.sql", db)
			var outs [2]string
			var dir string
			for k, real := range []bool{true, false} {
				dir = t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "conflict.sql"), []byte(conflictScript), 0o600); err != nil {
					t.Fatal(err)
				}
				outs[k], _ = tool(t, real, dir, args...)
			}
			want, got := blank(outs[0]), blank(outs[1])
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Fatalf("report differs\npgbench:\n%s\nstampede:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			// stampede's table against its own report's counts.
			var failed, retries, colFailed, colRetries, updateFailed int64
			for _, l := range strings.Split(outs[1], "\n") {
				if v, ok := strings.CutPrefix(l, "number of failed transactions: "); ok {
					fmt.Sscan(v, &failed)
				}
				if v, ok := strings.CutPrefix(l, "total number of retries: "); ok {
					fmt.Sscan(v, &retries)
				}
				fs := strings.Fields(l)
				if len(fs) < 4 || !strings.HasPrefix(l, "   ") {
					continue
				}
				var lat float64
				var f, r int64
				if tries == "1" {
					fmt.Sscan(fs[0]+" "+fs[1], &lat, &f)
				} else {
					fmt.Sscan(fs[0]+" "+fs[1]+" "+fs[2], &lat, &f, &r)
				}
				colFailed, colRetries = colFailed+f, colRetries+r
				if strings.Contains(l, "UPDATE") {
					updateFailed = f
				}
			}
			// The table counts a retry as it happens, the report a
			// transaction's once it ends: the transactions the run's end
			// cut keep their retries in the table only, as pgbench's.
			if failed == 0 || colFailed != failed || colRetries < retries {
				t.Errorf("the table's failures %d and retries %d, the report's failed %d and retries %d\n%s", colFailed, colRetries, failed, retries, outs[1])
			}
			_, ops := savedRun(t, dir)
			if ops["conflict.sql:4"][1] != updateFailed || ops["conflict.sql"][1] != failed {
				t.Errorf("the saved run's UPDATE row has %d errors and the script's %d; the table says %d, the report %d failed", ops["conflict.sql:4"][1], ops["conflict.sql"][1], updateFailed, failed)
			}
		})
	}
}

// TestProgressOnMultiplesOfP: -P's progress lines fall on multiples of
// the interval since the start, as pgbench's (1.0, 2.0, 3.0 s for -P 1,
// not 1.1, 2.2, 3.2), for either tool, many clients too. pgbench's own
// may read late by its thread's wake-up, not cumulatively.
func TestProgressOnMultiplesOfP(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, c := range []struct {
		p    float64
		args []string
	}{
		{1, []string{"-n", "-T", "3", "-P", "1", "-c", "2", "-S"}},
		{2, []string{"-n", "-T", "4", "-P", "2", "-c", "2", "-S"}},
		{1, []string{"-n", "-T", "3", "-P", "1", "-c", "64", "-j", "4", "-S"}},
	} {
		for _, real := range []bool{true, false} {
			t.Run(fmt.Sprintf("real=%v %s", real, strings.Join(c.args, " ")), func(t *testing.T) {
				_, errOut := tool(t, real, t.TempDir(), append(append(append([]string{}, srv...), c.args...), db)...)
				var n int
				for _, l := range strings.Split(errOut, "\n") {
					v, ok := strings.CutPrefix(l, "progress: ")
					if !ok {
						continue
					}
					var at float64
					if _, err := fmt.Sscanf(v, "%f s,", &at); err != nil {
						t.Fatalf("progress line %q: %v", l, err)
					}
					n++
					// pgbench's thread 0 prints when it next wakes, so under
					// load its line may read a little late (3.1 s for 3.0),
					// never early and never drifting; stampede's is exact.
					late := 0.05
					if real {
						late = 0.35
					}
					if want := float64(n) * c.p; at < want-0.05 || at > want+late {
						t.Errorf("progress line %d at %.1f s, want %.1f s (-P %g):\n%s", n, at, want, c.p, errOut)
					}
				}
				if n == 0 {
					t.Errorf("no progress lines:\n%s", errOut)
				}
			})
		}
	}
}

// TestAggregateIntervalsOnWholeSeconds: --aggregate-interval's intervals
// begin on whole Unix seconds, as pgbench 15's (its first interval is
// partial): each transaction writes the whole second the server's clock
// read while it ran, and each line counts, within the few that ended
// across a second's boundary, the transactions of its second. Intervals
// counted from the run's start, a fraction of a second off, would count a
// fraction of the next second's instead.
func TestAggregateIntervalsOnWholeSeconds(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	ctx := context.Background()
	conn := connect(t, db)
	defer conn.Close(ctx)
	const script = "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, floor(extract(epoch FROM clock_timestamp()))::int, now());\n"
	for _, real := range []bool{true, false} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "hist.sql"), []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "TRUNCATE pgbench_history"); err != nil {
			t.Fatal(err)
		}
		tool(t, real, dir, append(append([]string{}, srv...), "-n", "-T", "3", "-c", "2", "-f", "hist.sql", "-l", "--aggregate-interval", "1", db)...)
		bySecond := map[int64]int64{}
		rows, err := conn.Query(ctx, "SELECT delta, count(*) FROM pgbench_history GROUP BY delta")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s, n int64
			if err := rows.Scan(&s, &n); err != nil {
				t.Fatal(err)
			}
			bySecond[s] = n
		}
		files, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
		if len(files) != 1 {
			t.Fatalf("real=%v: %d log files", real, len(files))
		}
		b, _ := os.ReadFile(files[0])
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i, l := range lines {
			var start, n int64
			fmt.Sscan(l, &start, &n)
			if i == 0 {
				continue // partial: the run began within it
			}
			want := bySecond[start]
			if d := n - want; d > 3+want/50 || -d > 3+want/50 {
				t.Errorf("real=%v: the interval from %d counts %d transactions; the server's clock put %d in that second (log %q, by second %v)", real, start, n, want, lines, bySecond)
			}
		}
		if len(lines) < 2 {
			t.Errorf("real=%v: %d lines", real, len(lines))
		}
	}
}

// TestSkippedInReport: a pgbench form's run under -R with -L, at a rate
// the server cannot sustain, prints pgbench's skipped line; stampede's
// report of the saved run says the same count (from the run log), with
// the limit as the form gave it.
func TestSkippedInReport(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "slow.sql"), []byte("SELECT pg_sleep(0.002);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := tool(t, false, dir, append(append([]string{}, srv...), "-n", "-c", "2", "-T", "2", "-R", "3000", "-L", "1", "-f", "slow.sql", db)...)
	var skipped int64 = -1
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "number of transactions skipped: "); ok {
			fmt.Sscan(v, &skipped)
		}
	}
	if skipped <= 0 {
		t.Fatalf("no transaction skipped:\n%s", out)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".stampede", "runs", "2*"))
	if len(runs) != 1 {
		t.Fatalf("%d saved runs", len(runs))
	}
	cmd := exec.Command(bin, "report", runs[0])
	cmd.Env = append(os.Environ(), "HOME="+dir)
	rep, err := cmd.CombinedOutput()
	want := fmt.Sprintf("  skipped: %d operations whose turn came more than 1ms late (", skipped)
	if err != nil || !strings.Contains(string(rep), want) {
		t.Errorf("report (%v) does not say %q:\n%s", err, want, rep)
	}
}
