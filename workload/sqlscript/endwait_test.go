package sqlscript_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEndWaitSaid: a run's end waits for the operations in flight, up to
// the grace (5 s), and says so: summary.json's end_wait_s is the elapsed
// time past the duration (elapsed_s less the 1 s duration), unfinished
// the operations still running when the grace ran out (two of 6.5 s:
// abandoned; before, said nowhere but in the sysbench form under
// --forced-shutdown), and the final block's end line says both; a run
// whose operations end at once says nothing. report says the same.
func TestEndWaitSaid(t *testing.T) {
	_, u, _ := freshDB(t, "endwait")
	for _, tc := range []struct {
		name, sql  string
		unfinished int
		wait       float64 // about, in s
		line       string  // in the final block; "" for none
	}{
		{"abandoned", "SELECT pg_sleep(6.5);\n", 2, 5, "2 still running after the grace were abandoned with their connections, not counted"},
		{"finished in the grace", "SELECT pg_sleep(1.6);\n", 0, 0.6, "none abandoned"},
		{"quick", "SELECT 1;\n", 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "s.sql", tc.sql)
			r := stampede(t, dir, "run", "sql", "-f", "s.sql", "--concurrency", "2", "--duration", "1s", "--telemetry=false", u)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			out := r.stdout + r.stderr
			saved := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(out)
			if saved == nil {
				t.Fatalf("no run directory:\n%s", out)
			}
			b, err := os.ReadFile(filepath.Join(saved[1], "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Elapsed    float64  `json:"elapsed_s"`
				EndWait    *float64 `json:"end_wait_s"`
				Unfinished *int     `json:"unfinished"`
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			if sum.EndWait == nil || sum.Unfinished == nil {
				t.Fatalf("summary.json without end_wait_s or unfinished:\n%s", b)
			}
			if *sum.Unfinished != tc.unfinished {
				t.Errorf("unfinished %d, want %d", *sum.Unfinished, tc.unfinished)
			}
			if past := sum.Elapsed - 1; *sum.EndWait < past-0.15 || *sum.EndWait > past+0.05 {
				t.Errorf("end_wait_s %.3f, the elapsed time past the 1 s duration %.3f", *sum.EndWait, past)
			}
			if *sum.EndWait < tc.wait-0.15 || *sum.EndWait > tc.wait+0.5 {
				t.Errorf("end_wait_s %.3f, want about %.1f", *sum.EndWait, tc.wait)
			}
			end := regexp.MustCompile(`(?m)^\s*end: waited ([0-9.]+) s after the run's end for operations in flight .*$`).FindString(r.stdout)
			switch {
			case tc.line == "" && end != "":
				t.Errorf("an end line for a run that did not wait: %s", end)
			case tc.line != "" && !strings.Contains(end, tc.line):
				t.Errorf("end line %q, want it to say %q:\n%s", end, tc.line, r.stdout)
			}
			// report, from the run log, says the same line.
			rep := stampede(t, dir, "report", filepath.Base(saved[1]))
			if rep.code != 0 || (end != "" && !strings.Contains(rep.stdout, end+"\n")) || (end == "" && strings.Contains(rep.stdout, "  end: ")) {
				t.Errorf("report does not say the run's end line %q: exit %d\n%s%s", end, rep.code, rep.stdout, rep.stderr)
			}
		})
	}
}
