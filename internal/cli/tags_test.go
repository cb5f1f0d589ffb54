package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTagSelection checks that `runs --tag` and `report --tag` select the
// same runs, through the results store and the run directories: every tag
// given must match (a key given twice with two values is refused, since a
// run has one value per key), and key= selects the runs tagged key with an
// empty value, never the runs without key (issue 28: report merged five
// unrelated runs for job= and the job=pair runs for job=mix job=pair).
func TestTagSelection(t *testing.T) {
	root := t.TempDir()
	for i, tc := range []struct {
		id   string
		tags map[string]string
	}{
		{"20261122-103512-ycsb-aaaa", map[string]string{"job": "mix", "db": "pg17"}},
		{"20261122-113512-ycsb-bbbb", map[string]string{"job": "pair"}},
		{"20261122-123512-ycsb-cccc", map[string]string{"job": "pair", "db": "pg17"}},
		{"20261122-133512-ycsb-dddd", map[string]string{"job": ""}},
		{"20261122-143512-ycsb-eeee", map[string]string{"db": "pg17"}},
		{"20261122-153512-ycsb-ffff", nil},
	} {
		dir := compareWriteRun(t, root, tc.id, compareT0.Add(time.Duration(i)*time.Hour), 4, 1000, 200, 0)
		if tc.tags != nil {
			setTags(t, dir, tc.tags)
		}
	}
	for _, tc := range []struct {
		name string
		tags []string
		want string // the runs selected, "" none
		err  string // with want "", the error of both verbs
	}{
		{"one tag", []string{"job=mix"}, "aaaa", ""},
		{"two tags", []string{"job=pair", "db=pg17"}, "cccc", ""},
		{"two tags, other order", []string{"db=pg17", "job=pair"}, "cccc", ""},
		{"same pair twice", []string{"job=pair", "job=pair"}, "bbbb,cccc", ""},
		{"empty value", []string{"job="}, "dddd", ""},
		{"empty value of a key no run has", []string{"zone="}, "", "no run under"},
		{"empty value and a tag", []string{"job=", "db=pg17"}, "", "no run under"},
		{"no such value", []string{"job=solo"}, "", "no run under"},
		{"key twice", []string{"job=mix", "job=pair"}, "",
			"--tag job=mix and --tag job=pair give the key job two values, and a run has one value per key: give job once"},
		{"key twice, one empty", []string{"job=", "job=pair"}, "", "--tag job= and --tag job=pair give the key job two values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			for _, tag := range tc.tags {
				args = append(args, "--tag", tag)
			}
			runs := stampede(t, append([]string{"runs", "--results-dir", root}, args...)...)
			rep := stampede(t, append([]string{"report", "--results-dir", root, "--format", "json"}, args...)...)
			if tc.want == "" && strings.HasPrefix(tc.err, "--tag") {
				checkOneLineError(t, runs, 2, tc.err)
				checkOneLineError(t, rep, 2, tc.err)
				return
			}
			if runs.code != 0 {
				t.Fatalf("runs: exit %d: %s", runs.code, runs.stderr)
			}
			if got := runIDs(t, runs.stdout); got != tc.want {
				t.Errorf("runs selects %q, want %q\n%s", got, tc.want, runs.stdout)
			}
			if tc.want == "" {
				checkOneLineError(t, rep, 2, tc.err)
				return
			}
			if rep.code != 0 {
				t.Fatalf("report: exit %d: %s", rep.code, rep.stderr)
			}
			var view struct{ Runs []string }
			if err := json.Unmarshal([]byte(rep.stdout), &view); err != nil {
				t.Fatalf("report: %v\n%s", err, rep.stdout)
			}
			var got []string
			for _, id := range view.Runs {
				got = append(got, id[len(id)-4:])
			}
			slices.Sort(got)
			if strings.Join(got, ",") != tc.want {
				t.Errorf("report merges %q, want %q (as runs)", got, tc.want)
			}
		})
	}
}
