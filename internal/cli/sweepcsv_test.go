package cli_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSweepCSVNumbers: a sweep's CSV holds numbers in its figure cells,
// the watched processes' cores included (their names in the header);
// with --repeat the medians table it judged on goes to stderr, each
// value's median ops/s that of its CSV rows; --help names csv.
func TestSweepCSVNumbers(t *testing.T) {
	root := t.TempDir()
	r := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-ops", "100,200", "--repeat", "3", "--concurrency", "2",
		"--watch-pid", strconv.Itoa(os.Getpid()), "--format", "csv", "--results-dir", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 7 {
		t.Fatalf("%v: %d records:\n%s", err, len(recs), r.stdout)
	}
	head := recs[0]
	w := slices.IndexFunc(head, func(h string) bool {
		return strings.HasPrefix(h, "watched ") && strings.Contains(h, fmt.Sprintf("(pid %d)", os.Getpid())) && strings.HasSuffix(h, "(cores)")
	})
	if w < 0 {
		t.Fatalf("no watched column naming pid %d: %q", os.Getpid(), head)
	}
	ops := slices.Index(head, "ops/s")
	rates := map[string][]float64{}
	for _, rec := range recs[1:] {
		if _, err := strconv.ParseFloat(rec[w], 64); err != nil {
			t.Errorf("watched cell %q is not a number", rec[w])
		}
		v, err := strconv.ParseFloat(rec[ops], 64)
		if err != nil {
			t.Fatalf("ops/s %q", rec[ops])
		}
		rates[rec[slices.Index(head, "max-ops")]] = append(rates[rec[slices.Index(head, "max-ops")]], v)
	}
	if !strings.Contains(r.stderr, "medians over each value's runs") {
		t.Fatalf("no medians table on stderr:\n%s", r.stderr)
	}
	for value, rs := range rates {
		slices.Sort(rs)
		want := fmt.Sprintf(`(?m)^\s*%s\s+3\s+%.1f\s`, value, rs[1])
		if !regexp.MustCompile(want).MatchString(r.stderr) {
			t.Errorf("the medians table lacks %s's median %.1f of %v:\n%s", value, rs[1], rs, r.stderr)
		}
	}
	help := stampede(t, "sweep", "ycsb", "--help")
	if !strings.Contains(help.stdout, "text, json (newline-delimited JSON) or csv") ||
		!strings.Contains(help.stdout, "--concurrency, --conns, --active, --active-warehouses) for the highest value meeting --slo") {
		t.Errorf("--help does not name csv or the searchable flags:\n%s", help.stdout)
	}
}
