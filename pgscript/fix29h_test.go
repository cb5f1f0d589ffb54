package pgscript

import (
	"strings"
	"testing"
)

// TestNameCommentTwice: a `-- name:` that repeats, in one script or in
// two, or that names a script, parses (pgbench runs such scripts: to it
// the line is a comment) and keeps the name as written; Compile refuses
// it in one line naming the file and line, as the run log keeps one
// series per name (the sql workload names the statements apart first).
func TestNameCommentTwice(t *testing.T) {
	cases := []struct {
		name  string
		srcs  []string // s0.sql, s1.sql, ...
		wants string   // Compile's error
	}{
		{"twice in a script", []string{"-- name: read\nSELECT 1;\n-- name: read\nSELECT 2;\n"},
			"s0.sql:4: the statement name \"read\" is already used at s0.sql:2: give it another `-- name:`"},
		{"in two scripts", []string{"-- name: read\nSELECT 1;\n", "SELECT 0;\n-- name: read\nSELECT 2;\n"},
			"s1.sql:3: the statement name \"read\" is already used at s0.sql:2"},
		{"a script's name", []string{"SELECT 0;\n", "-- name: s0.sql\nSELECT 2;\n"},
			"s1.sql:2: the statement name \"s0.sql\" is already a script"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scripts []*Script
			for i, src := range c.srcs {
				s, err := Parse("s"+string(rune('0'+i))+".sql", 1, src)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				scripts = append(scripts, s)
			}
			last := scripts[len(scripts)-1].Commands
			if got := last[len(last)-1].Name; !strings.Contains(c.wants, `"`+got+`"`) {
				t.Errorf("the last statement is named %q, want the name as written", got)
			}
			_, err := Compile(scripts, Options{}, nil)
			if err == nil || !strings.HasPrefix(err.Error(), c.wants) {
				t.Errorf("Compile = %v, want %q", err, c.wants)
			}
		})
	}
}
