package sqlscript

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/pgscript"
)

// TestDistinctStatementNames: a statement whose name is taken, by an
// earlier statement of its script or of another, or by a script, runs
// under the next free NAME#N; names given as written that are free keep
// them; one line says each renaming, with the file and line of the
// `-- name:` and of what holds the name, but in a script given again
// (distinctName's q.sql#2), whose names are taken by design.
func TestDistinctStatementNames(t *testing.T) {
	cases := []struct {
		name  string
		files []string // script i is s<i>.sql; "=N" gives s<N>.sql again
		every bool     // -r: meta-commands are measured too
		want  []string // every SQL statement's name, script by script
		said  []string // the start of each line returned
	}{
		{"none taken", []string{"-- name: read\nSELECT 1;\nSELECT 2;\n", "-- name: write\nSELECT 3;\n"}, false,
			[]string{"read", "s0.sql:3", "write"}, nil},
		{"two files", []string{"-- name: read\nSELECT 1;\n", "-- name: read\nSELECT 2;\n"}, false,
			[]string{"read", "read#2"}, []string{`s1.sql:1: the statement name "read" is taken (s0.sql:1): this statement is read#2 in the run log`}},
		{"one file", []string{"SELECT 0;\n-- name: read\nSELECT 1;\n-- name: read\nSELECT 2;\n-- name: read\nSELECT 3;\n"}, false,
			[]string{"s0.sql:1", "read", "read#2", "read#3"}, []string{`s0.sql:4: the statement name "read" is taken (s0.sql:2)`, `s0.sql:6: the statement name "read" is taken (s0.sql:2)`}},
		{"a name written keeps it", []string{"-- name: read\nSELECT 1;\n-- name: read\nSELECT 2;\n-- name: read#2\nSELECT 3;\n"}, false,
			[]string{"read", "read#3", "read#2"}, []string{`s0.sql:3: the statement name "read" is taken (s0.sql:1): this statement is read#3`}},
		{"a script's name", []string{"SELECT 1;\n", "-- name: s0.sql\nSELECT 2;\n"}, false,
			[]string{"s0.sql:1", "s0.sql#2"}, []string{`s1.sql:1: the statement name "s0.sql" is taken (the script s0.sql)`}},
		{"a file's line", []string{"-- name: s1.sql:1\nSELECT 1;\n", "SELECT 2;\n"}, false,
			[]string{"s1.sql:1", "s1.sql:1#2"}, []string{`s1.sql:1: the statement name "s1.sql:1" is taken (s0.sql:1)`}},
		{"a meta-command's line under -r", []string{"\\set x 1\n-- name: s0.sql:1\nSELECT :x;\n"}, true,
			[]string{"s0.sql:1#2"}, []string{`s0.sql:2: the statement name "s0.sql:1" is taken (the meta-command at s0.sql:1)`}},
		{"a meta-command's line without -r", []string{"\\set x 1\n-- name: s0.sql:1\nSELECT :x;\n"}, false,
			[]string{"s0.sql:1"}, nil},
		{"a file given twice", []string{"-- name: read\nSELECT 1;\n-- name: read\nSELECT 2;\n", "=0"}, false,
			[]string{"read", "read#2", "read#3", "read#4"}, []string{`s0.sql:3: the statement name "read" is taken (s0.sql:1)`}},
		{"a file given twice after another", []string{"-- name: read\nSELECT 0;\n", "-- name: read\nSELECT 1;\nSELECT 2;\n", "=1"}, false,
			[]string{"read", "read#2", "s1.sql:3", "read#3", "s1.sql#2:3"}, []string{`s1.sql:1: the statement name "read" is taken (s0.sql:1)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scripts []*pgscript.Script
			taken, repeats := map[string]bool{}, map[*pgscript.Script]bool{}
			for i, src := range c.files {
				name := fmt.Sprintf("s%d.sql", i)
				if n, ok := strings.CutPrefix(src, "="); ok {
					name, src = "s"+n+".sql", c.files[n[0]-'0']
				}
				s, err := pgscript.Parse(name, 1, src)
				if err != nil {
					t.Fatal(err)
				}
				repeats[s] = distinctName(s, taken)
				scripts = append(scripts, s)
			}
			said := distinctStatements(scripts, repeats, c.every)
			var got []string
			for _, s := range scripts {
				for _, cmd := range s.Commands {
					if cmd.Kind == pgscript.SQL {
						got = append(got, cmd.Name)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("names %q, want %q", got, c.want)
			}
			if len(said) != len(c.said) {
				t.Fatalf("said %q, want lines starting %q", said, c.said)
			}
			for i, l := range said {
				if !strings.HasPrefix(l, c.said[i]) || strings.Contains(l, "\n") {
					t.Errorf("line %q, want one line starting %q", l, c.said[i])
				}
			}
			prog, err := pgscript.Compile(scripts, pgscript.Options{EveryCommand: c.every}, nil)
			if err != nil {
				t.Fatalf("Compile refuses the names: %v", err)
			}
			ops := prog.Ops()
			if len(slices.Compact(slices.Sorted(slices.Values(ops)))) != len(ops) {
				t.Errorf("two operations share a name: %q", ops)
			}
		})
	}
}
