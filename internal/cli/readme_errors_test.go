package cli_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeExample is a command of the README's error examples and the
// error line it prints.
type readmeExample struct {
	cmd     string // the command, without "$ " and its comment
	comment string // what the command needs first, after "#"
	want    string // the line it prints
}

// readmeErrorExamples returns the examples of the README's first code
// block under "## Exit codes and errors": lines "$ stampede ...", each
// followed by the error line it prints.
func readmeErrorExamples(t *testing.T) []readmeExample {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "\n## Exit codes and errors\n")
	if i < 0 {
		t.Fatal(`README.md has no section "## Exit codes and errors"`)
	}
	sec := readme[i:]
	start := strings.Index(sec, "\n```\n")
	if start < 0 {
		t.Fatal("no code block in the README's section on errors")
	}
	block := sec[start+len("\n```\n"):]
	block = block[:strings.Index(block, "\n```")]
	var out []readmeExample
	lines := strings.Split(block, "\n")
	for k := 0; k < len(lines); k++ {
		cmd, ok := strings.CutPrefix(lines[k], "$ ")
		if !ok {
			t.Fatalf("README's errors block, line %q: want `$ stampede ...` lines, each followed by its error line", lines[k])
		}
		if k+1 == len(lines) || !strings.HasPrefix(lines[k+1], "stampede: error: ") {
			t.Fatalf("README's errors block: %q is not followed by a `stampede: error: ` line", lines[k])
		}
		ex := readmeExample{cmd: cmd, want: lines[k+1]}
		if c, comment, ok := strings.Cut(cmd, " #"); ok {
			ex.cmd, ex.comment = strings.TrimSpace(c), strings.TrimSpace(comment)
		}
		out = append(out, ex)
		k++
	}
	return out
}

// shellWords splits a command line as sh does, for the README's lines:
// words between blanks, single quotes kept together.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted = !quoted
			in = true
		case !quoted && (r == ' ' || r == '\t'):
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// readmeErrorCodes are the exit codes of the README's error examples, by
// command as the README writes it: 2 for bad input, 1 for a runtime
// failure (see the README's table of exit codes).
var readmeErrorCodes = map[string]int{
	"stampede run ycbs": 2,
	"stampede run ycsb 'postgresql://bench@10.0.0.5:5432/ycsb'":         1,
	"stampede run ycsb -P workloads/mine":                               2,
	"stampede run bank --rows 1000 'postgresql://root@host:26257/bank'": 2,
}

// TestREADMEErrors runs the README's error examples and checks that each
// prints, as its last line and only error line, the line the README
// shows, so that the README cannot drift from what stampede says. The
// README's servers stand for the test's: 10.0.0.5:5432 for a port nothing
// listens on, postgresql://root@host:26257/bank for a fresh database of
// the test server. A comment after a command says what it needs first:
// "line N of FILE: TEXT" (the file, with TEXT on line N) or "after
// COMMAND" (run against the example's URL).
func TestREADMEErrors(t *testing.T) {
	examples := readmeErrorExamples(t)
	if len(examples) < 4 {
		t.Fatalf("%d examples in the README's errors block", len(examples))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	db := freshDB(t, "readme_errors")
	subst := strings.NewReplacer("10.0.0.5:5432", closed,
		"postgresql://root@host:26257/bank", dbURL(t, db), `database "bank"`, fmt.Sprintf("database %q", db))
	t.Chdir(t.TempDir())
	fileLine := regexp.MustCompile(`^line (\d+) of (\S+): (.*)$`)
	for _, ex := range examples {
		t.Run(ex.cmd, func(t *testing.T) {
			args := shellWords(t, subst.Replace(ex.cmd))
			if len(args) < 2 || args[0] != "stampede" {
				t.Fatalf("%q is not a stampede command", ex.cmd)
			}
			args = args[1:]
			switch m := fileLine.FindStringSubmatch(ex.comment); {
			case ex.comment == "":
			case m != nil:
				n, _ := strconv.Atoi(m[1])
				var content strings.Builder
				for k := 1; k < n; k++ {
					fmt.Fprintf(&content, "# line %d\n", k)
				}
				content.WriteString(m[3] + "\n")
				if err := os.MkdirAll(filepath.Dir(m[2]), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(m[2], []byte(content.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(ex.comment, "after "):
				pre := shellWords(t, strings.TrimPrefix(ex.comment, "after "))
				for _, a := range args {
					if strings.Contains(a, "://") {
						pre = append(pre, a)
					}
				}
				if r := stampede(t, pre...); r.code != 0 {
					t.Fatalf("%q: exit %d: %s", pre, r.code, r.stderr)
				}
			default:
				t.Fatalf("comment %q: want `line N of FILE: TEXT` or `after COMMAND`", ex.comment)
			}
			r := stampede(t, args...)
			want := subst.Replace(ex.want)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code == 0 || lines[len(lines)-1] != want {
				t.Errorf("exit %d, stderr:\n%s\nthe README's line (its servers replaced):\n%s", r.code, r.stderr, want)
			}
			code, ok := readmeErrorCodes[ex.cmd]
			if !ok {
				t.Fatalf("%q: give its exit code in readmeErrorCodes", ex.cmd)
			}
			checkOneLineError(t, r, code, want)
		})
	}
}
