package cli_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCompareGroupsSaysWhatDiffers: a compare of groups names the flags
// whose values differ among its runs (within a side and between sides)
// and marks a run that did not complete, as a compare of two runs names
// the flags that differ.
func TestCompareGroupsSaysWhatDiffers(t *testing.T) {
	dir := t.TempDir()
	run := func(ctx context.Context, side, conc string) {
		t.Helper()
		r := stampedeCtx(t, ctx, "run", "ycsb", "--driver", "null", "--duration", "2s", "--concurrency", conc, "--results-dir", dir, "--tag", "side="+side)
		if r.code != 0 && ctx.Err() == nil {
			t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
		}
	}
	run(context.Background(), "a", "2")
	run(context.Background(), "a", "2")
	run(context.Background(), "b", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	run(ctx, "b", "4") // interrupted
	r := stampede(t, "compare", "--results-dir", dir, "--a-tag", "side=a", "--b-tag", "side=b")
	if r.code != 0 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "flags that differ: --concurrency (A 2, B 2 and 4), --tag (A [side=a], B [side=b])\n") {
		t.Errorf("compare does not name the flags that differ:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, " (interrupted: its figures up to where it stopped)") {
		t.Errorf("compare does not mark the interrupted run:\n%s", r.stdout)
	}
	j := stampede(t, "compare", "--results-dir", dir, "--a-tag", "side=a", "--b-tag", "side=b", "--format", "json")
	var doc struct {
		Flags []struct {
			Name string   `json:"name"`
			A    []string `json:"a"`
			B    []string `json:"b"`
		} `json:"flags_differ"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &doc); j.code != 0 || err != nil || len(doc.Flags) == 0 || doc.Flags[0].Name != "concurrency" || !slices.Equal(doc.Flags[0].A, []string{"2"}) || !slices.Equal(doc.Flags[0].B, []string{"2", "4"}) {
		t.Errorf("compare's JSON has no flags_differ of --concurrency (%v):\n%s", err, j.stdout)
	}
}
