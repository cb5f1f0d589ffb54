// Package golden compares what a test makes with a golden file, or
// rewrites the file when the test binary runs with -update:
//
//	go test ./report -run '^TestText$' -update
//
// The -update flag is registered here, once, for every test binary that
// imports the package; tests never define their own. A test that
// compares a normalised form (figures masked, paths replaced) normalises
// before calling [Check].
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update is the -update flag, set once the test binary has parsed its
// flags (in a test, not at init). Tests call [Check] rather than read it;
// a test that writes its own files with -update may read it.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Check compares got with the file at path (testdata/NAME, relative to
// the package's directory, where go test runs) and fails t, with a line
// diff and the go test command that rewrites the file, where they
// differ. With -update it writes got to path instead, creating its
// directory if needed.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, rerun(t))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test made; if the change is intended, %s rewrites it (then look at git diff)\n--- %s\n+++ the test's\n%s",
			path, rerun(t), path, diff(string(want), string(got)))
	}
}

// rerun returns the go test command that runs t's top-level test with
// -update, from the module's root.
func rerun(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test %s -run '^%s$' -update", pkgDir(), name)
}

// pkgDir returns the working directory (the package's, under go test)
// relative to the module's root, as go test takes it ("./report"), or
// "." if no go.mod is found above it.
func pkgDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			if rel, err := filepath.Rel(root, wd); err == nil && rel != "." {
				return "./" + filepath.ToSlash(rel)
			}
			return "."
		}
		up := filepath.Dir(root)
		if up == root {
			return "."
		}
		root = up
	}
}

const (
	contextLines = 3   // unchanged lines shown around a change
	maxLines     = 80  // lines of diff shown at the most
	maxCells     = 4e6 // the largest table the longest common subsequence is computed with
)

// diff returns a line diff of want and got: lines only in want marked
// "-", only in got "+", with context lines around each change and a
// "@@ line N @@" header (want's line number) before each hunk. It shows
// maxLines lines at the most.
func diff(want, got string) string {
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	if a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	if b[len(b)-1] == "" {
		b = b[:len(b)-1]
	}
	type line struct {
		op   byte // ' ', '-' or '+'
		text string
		n    int // want's line number (1-based) at this place
	}
	var ops []line
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, line{' ', a[pre], pre + 1})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	i, j := pre, pre
	for _, op := range edits(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		switch op {
		case ' ':
			ops = append(ops, line{' ', a[i], i + 1})
			i, j = i+1, j+1
		case '-':
			ops = append(ops, line{'-', a[i], i + 1})
			i++
		case '+':
			ops = append(ops, line{'+', b[j], i + 1})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, line{' ', a[i], i + 1})
	}
	// Show the lines within contextLines of a change.
	show := make([]bool, len(ops))
	for k, l := range ops {
		if l.op != ' ' {
			for c := max(0, k-contextLines); c <= min(len(ops)-1, k+contextLines); c++ {
				show[c] = true
			}
		}
	}
	var out strings.Builder
	shown, total := 0, 0
	for k, l := range ops {
		if !show[k] {
			continue
		}
		total++
		if shown == maxLines {
			continue
		}
		if k == 0 || !show[k-1] {
			fmt.Fprintf(&out, "@@ line %d @@\n", l.n)
		}
		text, nl := strings.CutSuffix(l.text, "\n")
		if !nl {
			text += " (no newline at end)"
		}
		fmt.Fprintf(&out, "%c%s\n", l.op, text)
		shown++
	}
	if total > shown {
		fmt.Fprintf(&out, "… %d more lines of diff\n", total-shown)
	}
	return out.String()
}

// edits returns the shortest edit script from a to b, one byte per line:
// ' ' kept, '-' only in a, '+' only in b. Past maxCells it gives up on
// finding common lines and replaces all of a with all of b.
func edits(a, b []string) []byte {
	if float64(len(a)+1)*float64(len(b)+1) > maxCells {
		return append(bytes.Repeat([]byte{'-'}, len(a)), bytes.Repeat([]byte{'+'}, len(b))...)
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []byte
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, ' ')
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	ops = append(ops, bytes.Repeat([]byte{'-'}, len(a)-i)...)
	return append(ops, bytes.Repeat([]byte{'+'}, len(b)-j)...)
}
