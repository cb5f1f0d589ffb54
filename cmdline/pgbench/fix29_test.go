package pgbench_test

import (
	"bytes"
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
