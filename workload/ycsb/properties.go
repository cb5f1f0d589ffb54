package ycsb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// propEntry is one key=value of a properties file.
type propEntry struct {
	key, value string
	// line is the 1-based line the entry starts on.
	line int
}

// readPropertyFile reads a Java properties file.
func readPropertyFile(name string) ([]propEntry, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read property file %s: %v", name, err)
	}
	return parseProperties(name, data)
}

// parseProperties parses data in the Java properties format: one
// `key=value`, `key: value` or `key value` per line, with `#` and `!`
// comment lines, blank lines, backslash escapes (\t, \n, \uXXXX, \=, ...)
// and lines continued by a trailing backslash. Values are trimmed of
// surrounding white space (Java keeps trailing blanks; YCSB's numbers
// would not parse with them). A line with a key and no separator nor value
// is an error, since it is almost always a mistake in a workload file.
// name is used in error messages only.
func parseProperties(name string, data []byte) ([]propEntry, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	lines := strings.Split(string(data), "\n")
	var out []propEntry
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimLeft(lines[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		raw := lines[i]
		for endsWithContinuation(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(lines[i], " \t\f")
			raw += "\n" + lines[i]
		}
		if endsWithContinuation(line) { // continued past the end of the file
			line = line[:len(line)-1]
		}
		key, value, hasSep, err := splitProperty(line)
		if err == nil && key == "" {
			err = errors.New("empty key")
		}
		if err == nil && !hasSep && value == "" {
			err = errors.New("expected key=value")
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: malformed line %q: %v", name, start, strings.TrimSpace(raw), err)
		}
		out = append(out, propEntry{key: key, value: value, line: start})
	}
	return out, nil
}

// endsWithContinuation reports whether line ends with an odd number of
// backslashes.
func endsWithContinuation(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line into its unescaped key and value.
// hasSep reports an explicit '=' or ':' separator.
func splitProperty(line string) (key, value string, hasSep bool, err error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		hasSep = true
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescapeProperty(line[:end]); err != nil {
		return "", "", false, err
	}
	if value, err = unescapeProperty(rest); err != nil {
		return "", "", false, err
	}
	return key, strings.TrimSpace(value), hasSep, nil
}

// unescapeProperty resolves the backslash escapes of the Java properties
// format.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\u escape")
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf("malformed \\u escape %q", s[i-1:i+5])
			}
			var buf [utf8.UTFMax]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], rune(r))])
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
