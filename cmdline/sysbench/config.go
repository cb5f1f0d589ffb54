package sysbench

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// maxConfigDepth bounds config files that name config files.
const maxConfigDepth = 8

// readConfig reads a sysbench --config-file and returns its options as
// command-line arguments (--name=value), in its order, as sysbench reads
// it (sb_options.c): each line is NAME=VALUE, without the dashes; a
// blank line or a comment (#) without '=' is skipped, and any other line
// without '=', which sysbench skips without a word, is refused, as is a
// file that is not text; in the value, blanks are skipped, '#' starts a
// comment, a value may be quoted with ' or ", and several values are
// separated by commas (a list: --name=a,b). A NAME without a value sets
// the option to no value, which for a boolean means on.
func readConfig(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputf("cannot read --config-file: %v", err)
	}
	defer f.Close()
	var args []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.IndexByte(line, 0) >= 0 || !utf8.ValidString(line) {
			return nil, inputf("--config-file %s is not a text file (line %d holds bytes that are not text): give a file of NAME=VALUE lines", path, n)
		}
		name, rest, ok := strings.Cut(line, "=")
		if !ok {
			// sysbench skips the line without a word: a typo would be
			// lost. Blank lines and comments are skipped.
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				return nil, inputf("--config-file %s, line %d: %q is not NAME=VALUE (sysbench 1.0.20 skips such a line without a word): write it as NAME=VALUE, or start it with # to keep it as a comment", path, n, t)
			}
			continue
		}
		name = strings.TrimSpace(name)
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		values, err := configValues(rest)
		if err != nil {
			return nil, inputf("--config-file %s, line %d: %v", path, n, err)
		}
		if len(values) == 0 {
			args = append(args, "--"+name)
			continue
		}
		args = append(args, "--"+name+"="+strings.Join(values, ","))
	}
	if err := sc.Err(); err != nil {
		return nil, inputf("cannot read --config-file: %v", err)
	}
	return args, nil
}

// configValues splits a config line's value part as sysbench does.
func configValues(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			i++
		case c == '#':
			return out, nil
		case c == '\'' || c == '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated %c quote", c)
			}
			out = append(out, s[i+1:i+1+end])
			i += end + 2
			// The rest, to the next comma, is dropped, as sysbench does.
			if comma := strings.IndexByte(s[i:], ','); comma >= 0 {
				i += comma + 1
			} else {
				i = len(s)
			}
		default:
			j := i
			for j < len(s) && s[j] != ',' && !strings.ContainsRune(" \t\r\n\v\f", rune(s[j])) {
				j++
			}
			out = append(out, s[i:j])
			if j < len(s) {
				j++ // past the comma or blank
			}
			i = j
		}
	}
	return out, nil
}
