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

// TestSweepUnsweepable: a list given to a flag a sweep does not vary is
// refused in one line naming the flag and those it can vary; limits with
// nothing to limit are refused before the sweep's header and first step.
func TestSweepUnsweepable(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--percentile", "95,99"}, "a sweep cannot vary --percentile (it takes one value); it varies a flag with a number: "},
		{[]string{"--report-interval", "1,2"}, "a sweep cannot vary --report-interval"},
		{[]string{"--prometheus-port", "1,2"}, "a sweep cannot vary --prometheus-port"},
		{[]string{"--clients", "1,2"}, "a sweep cannot vary --clients"},
		{[]string{"--tenant-mode", "schema,database", "--tenants", "2"}, "a sweep cannot vary --tenant-mode"},
		{[]string{"--cpus", "0.5,1"}, "limits apply to the system under test: say which processes with --limit-process REGEX"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			r := stampede(t, append([]string{"sweep", "ycsb", "--driver", "null", "--max-ops", "10,20", "--results-dir", t.TempDir()}, c.args...)...)
			checkOneLineError(t, r, 2, c.want)
			if strings.HasPrefix(c.want, "a sweep cannot") && !strings.Contains(r.stderr, "--max-rate") {
				t.Errorf("the refusal does not name the flags a sweep varies: %s", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("the sweep began before the refusal:\n%s", r.stdout)
			}
		})
	}
}
