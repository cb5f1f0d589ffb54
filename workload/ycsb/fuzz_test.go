package ycsb

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// propErrorRE is the shape of parseProperties' errors: the file name and a
// line number, then what is wrong.
var propErrorRE = regexp.MustCompile(`^w\.properties:([0-9]+): malformed line `)

func FuzzPropertyFile(f *testing.F) {
	for _, seed := range []string{
		"recordcount=1000\noperationcount: 10\nworkload com.yahoo.ycsb.workloads.CoreWorkload\n",
		"# comment\n! comment\n\n  readproportion = 0.5  \n",
		"fieldcount\n",
		"=value\n",
		"key=multi \\\n   line \\\n",
		"key=\\u00e9\\t\\=\\:\n",
		"key=\\u12\n",
		"a=1\r\nb=2\rc=3",
		"key\\ with\\ spaces = v\\",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseProperties("w.properties", data)
		lines := strings.Count(strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n"), "\n") + 1
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q is not one line", err)
			}
			if !strings.Contains(err.Error(), `\u escape`) {
				t.Fatalf("error %q: only malformed \\u escapes are errors, as in Java", err)
			}
			m := propErrorRE.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("error %q does not name w.properties:LINE", err)
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
				t.Fatalf("error %q names line %s of a %d-line file", err, m[1], lines)
			}
			if entries != nil {
				t.Fatalf("entries %v returned with error %v", entries, err)
			}
			return
		}
		prev := 0
		for _, e := range entries {
			if e.line <= prev || e.line > lines {
				t.Fatalf("entry %+v: line out of order or range (previous %d, %d lines)", e, prev, lines)
			}
			prev = e.line
		}
	})
}
