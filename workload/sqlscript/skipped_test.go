package sqlscript_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var skippedLine = regexp.MustCompile(`(?m)^\s*skipped: (\d+) operations whose turn came more than 2ms late \((\d+)% of those scheduled\)$`)

// TestSkippedSaid: run sql --skip-late at a rate the server cannot
// sustain (a script of 2 ms, two workers, 3,000 a second) says in its
// final block how many operations it skipped, the number summary.json
// keeps, and with those that ran they are the operations the rate
// scheduled; report, recomputing from the run log, says the same line.
func TestSkippedSaid(t *testing.T) {
	_, u, _ := freshDB(t, "skipsaid")
	dir := t.TempDir()
	write(t, dir, "slow.sql", "SELECT pg_sleep(0.002);\n")
	r := stampede(t, dir, "run", "sql", "-f", "slow.sql", "--max-rate", "3000", "--skip-late", "2ms", "--concurrency", "2", "--duration", "3s", u)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout + r.stderr
	m := skippedLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no skipped line in the final block:\n%s", out)
	}
	var skipped, pct int64
	fmt.Sscan(m[1]+" "+m[2], &skipped, &pct)
	ran, failed := finalOps(t, r.stdout, "slow.sql")
	ran += failed
	saved := regexp.MustCompile(`results saved in (\S+)`).FindStringSubmatch(out)
	if saved == nil {
		t.Fatalf("no run directory:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(saved[1], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Skipped int64 }
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	scheduled := skipped + ran
	if skipped == 0 || skipped != sum.Skipped {
		t.Errorf("the final block says %d skipped, summary.json %d", skipped, sum.Skipped)
	}
	if want := (100*skipped + scheduled/2) / scheduled; pct < want-1 || pct > want+1 {
		t.Errorf("%d%% of those scheduled, want %d%% (%d skipped, %d ran)", pct, want, skipped, ran)
	}
	if scheduled < 3000*3*85/100 || scheduled > 3000*3*115/100 {
		t.Errorf("%d skipped and %d ran: the rate scheduled about 9,000", skipped, ran)
	}
	// The interval lines say them too, as they come: the last says how
	// many so far, up to the final count (the run's last moments have no
	// interval line).
	var inAll, lines int64
	for _, l := range regexp.MustCompile(`(?m)^  skipped: (\d+) late operations in this interval, (\d+) in all$`).FindAllStringSubmatch(r.stdout, -1) {
		var n int64
		fmt.Sscan(l[1]+" "+l[2], &n, &inAll)
		lines += n
	}
	if lines == 0 || lines != inAll || inAll > skipped {
		t.Errorf("the interval lines say %d skipped (%d in all at the last), the final block %d:\n%s", lines, inAll, skipped, r.stdout)
	}
	rep := stampede(t, dir, "report", filepath.Base(saved[1]))
	if rep.code != 0 || !strings.Contains(rep.stdout, strings.TrimSpace(m[0])) {
		t.Errorf("report does not say %q:\n%s%s", strings.TrimSpace(m[0]), rep.stdout, rep.stderr)
	}
}
