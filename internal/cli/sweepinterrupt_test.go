package cli_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepRepeatInterrupted interrupts a repeated sweep against
// PostgreSQL (--concurrency 1,2 --repeat 3) in its fourth step, the
// second run of --concurrency 2: the medians table counts that value's
// one completed run, marks its interrupted one, and its "met in" and the
// conclusion agree on one run.
func TestSweepRepeatInterrupted(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_interrupted")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // Ctrl-C once the fourth step's run has started
		defer cancel()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if runs, _ := runlog.List(root); len(runs) == 4 {
				time.Sleep(300 * time.Millisecond)
				return
			}
		}
	}()
	r := stampedeCtx(t, ctx, "sweep", "ycsb", "-p", "recordcount=1000", "--workload", "c", "--concurrency", "1,2", "--repeat", "3",
		"--duration", "2s", "--slo", "errors<=0", "--db", db, "--results-dir", root, srv)
	if r.code != 130 {
		t.Fatalf("interrupted sweep: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 4 || runs[3].Status != "interrupted" {
		t.Fatalf("saved runs %+v %v: want 3 completed and the fourth interrupted", runs, err)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^ +1 +2 +[0-9.]+ .* 2/2 +met$`),
		regexp.MustCompile(`(?m)^ +2 +1 \(\+1 interrupted\) +[0-9.]+ .* 1/1 +met$`),
		regexp.MustCompile(`highest --concurrency meeting the SLO errors<=0: 2 \(step 2; step 4 interrupted, not counted\)`),
		regexp.MustCompile(`interrupted at step 4: the sweep did not finish`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("the sweep's output lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "of 2, judged") {
		t.Errorf("the conclusion counts the interrupted run:\n%s", r.stdout)
	}
}
