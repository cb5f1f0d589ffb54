package results

import (
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

func TestClientWarnings(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	run := func(id, client, job string) *runlog.Run {
		tags := map[string]string{}
		if client != "" {
			tags["client"] = client
		}
		if job != "" {
			tags["job"] = job
		}
		return &runlog.Run{Info: runlog.RunInfo{ID: id, Tags: tags}}
	}
	taken := func(offsets ...time.Duration) []Taken {
		var out []Taken
		for _, o := range offsets {
			out = append(out, Taken{From: t0.Add(o)})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		runs  []*runlog.Run
		taken []Taken
		want  []string
	}{
		{"one benchmark", []*runlog.Run{run("a", "0/2", "j"), run("b", "1/2", "j")}, taken(0, time.Millisecond), nil},
		{"untagged together", []*runlog.Run{run("a", "", ""), run("b", "", "")}, taken(0, 0), nil},
		{"missing", []*runlog.Run{run("a", "0/3", "j"), run("b", "2/3", "j")}, taken(0, 0), []string{"2 of the benchmark's 3 clients (missing: 1)"}},
		{"twice", []*runlog.Run{run("a", "0/2", "j"), run("b", "0/2", "j")}, taken(0, 0), []string{"runs a and b are both client 0", "(missing: 1)"}},
		{"sizes", []*runlog.Run{run("a", "0/2", "j"), run("b", "1/3", "j")}, taken(0, 0), []string{"different sizes"}},
		{"jobs", []*runlog.Run{run("a", "0/2", "j"), run("b", "1/2", "k")}, taken(0, 0), []string{"different jobs"}},
		{"one client alone", []*runlog.Run{run("a", "1/2", "j")}, taken(0), []string{"1 of the benchmark's 2 clients (missing: 0)"}},
		{"sizes and jobs", []*runlog.Run{run("a", "0/2", "j"), run("b", "1/3", "k")}, taken(0, 0), []string{"different sizes", "different jobs"}},
		{"apart", []*runlog.Run{run("a", "0/2", "j"), run("b", "1/2", "j")}, taken(0, 2200*time.Millisecond), []string{"start up to 2.2s apart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := clientWarnings(tc.runs, tc.taken)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			all := strings.Join(got, "\n")
			if len(tc.want) == 0 && len(errs) != 0 || len(errs) != len(tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q, want one with %q", got, w)
				}
			}
		})
	}
}
