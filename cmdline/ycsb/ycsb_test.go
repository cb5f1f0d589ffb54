package ycsb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/cmdline/ycsb"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
)

// TestLines reads each pasted command line of testdata/lines.txt and
// compares what it becomes (stampede's arguments, warnings, or the one
// error line) with testdata/lines.golden.
func TestLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(raw + "\n")
			continue
		}
		words, err := split(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if words[0] != "stampede" {
			t.Fatalf("%s: lines start with stampede", line)
		}
		out.WriteString("$ " + line + "\n")
		l, err := ycsb.Parse(words[1:])
		switch {
		case err != nil:
			if !errors.Is(err, run.ErrInput) {
				t.Errorf("%s: error %v does not match run.ErrInput", line, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: error is not one line: %q", line, err)
			}
			out.WriteString("error: " + err.Error() + "\n")
		case l == nil:
			out.WriteString("(stampede's own line, left as it is)\n")
		default:
			out.WriteString("stampede " + join(l.Args) + "\n")
			for _, w := range l.Warnings {
				if strings.Contains(w, "\n") {
					t.Errorf("%s: warning is not one line: %q", line, w)
				}
				out.WriteString("warning: " + w + "\n")
			}
			if len(l.Secrets) > 0 {
				out.WriteString("secrets: " + strings.Join(l.Secrets, " ") + "\n")
			}
		}
		out.WriteString("\n")
	}
	golden.Check(t, filepath.Join("testdata", "lines.golden"), []byte(out.String()))
}

// split splits a shell command line into words: single quotes keep
// everything, double quotes and backslashes as the shell does.
func split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated '")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errors.New("unterminated \"")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// join quotes the words that need it, for the golden file.
func join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if strings.ContainsAny(w, " &?;'\"") {
			w = "'" + w + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}
