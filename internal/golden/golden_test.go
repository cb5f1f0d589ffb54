package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct{ name, want, got, diff string }{
		{"changed line", "a\nb\nc\n", "a\nB\nc\n", "@@ line 1 @@\n a\n-b\n+B\n c\n"},
		{"added line", "a\nc\n", "a\nb\nc\n", "@@ line 1 @@\n a\n+b\n c\n"},
		{"removed at end", "a\nb\n", "a\n", "@@ line 1 @@\n a\n-b\n"},
		{"newline at end", "a\n", "a", "@@ line 1 @@\n-a\n+a (no newline at end)\n"},
		{"from nothing", "", "a\n", "@@ line 1 @@\n+a\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\ny\n",
			"@@ line 1 @@\n-1\n+x\n 2\n 3\n 4\n@@ line 7 @@\n 7\n 8\n 9\n-10\n+y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := diff(tc.want, tc.got); got != tc.diff {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tc.diff)
			}
		})
	}
}

func TestDiffLong(t *testing.T) {
	var want, got strings.Builder
	for i := range 500 {
		want.WriteString("same\n")
		got.WriteString("other " + string(rune('a'+i%26)) + "\n")
	}
	d := diff(want.String(), got.String())
	if n := strings.Count(d, "\n"); n != maxLines+2 || !strings.HasSuffix(d, "… 920 more lines of diff\n") {
		t.Errorf("%d lines, ending %q", n, d[len(d)-40:])
	}
}

// recorder is a testing.TB that keeps its first failure (and, unlike
// testing.T, goes on after Fatalf).
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestSomething/sub" }
func (r *recorder) Errorf(format string, args ...any) {
	if r.failed == "" {
		r.failed = fmt.Sprintf(format, args...)
	}
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func TestCheck(t *testing.T) {
	if *Update {
		t.Skip("-update: nothing to compare")
	}
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	if r.failed != "" {
		t.Errorf("same bytes failed: %s", r.failed)
	}
	Check(r, path, []byte("a\nc\n"))
	if want := "@@ line 1 @@\n a\n-b\n+c\n"; !strings.Contains(r.failed, "x.golden differs") || !strings.HasSuffix(r.failed, want) {
		t.Errorf("different bytes: %q, want one ending with the diff %q", r.failed, want)
	}
	r.failed = ""
	Check(r, path+".missing", []byte("a\n"))
	if !strings.Contains(r.failed, "no such file") || !strings.Contains(r.failed, "-update creates it") {
		t.Errorf("missing file: %q", r.failed)
	}
	if got := rerun(r); got != "go test ./internal/golden -run '^TestSomething$' -update" {
		t.Errorf("rerun: %s", got)
	}
}
