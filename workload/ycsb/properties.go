package ycsb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// readPropertyFile reads a Java properties file. A file that does not
// exist but is named as one of YCSB's core workload files, by a relative
// path ending in workloads/workloada .. workloadf (a line pasted from
// YCSB's documentation, where there is no YCSB checkout), is read as
// YCSB distributes it, and builtin says so; an absolute path names a file
// of the user's.
func readPropertyFile(name string) (entries []propEntry, builtin bool, err error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(name) && filepath.Base(filepath.Dir(name)) == "workloads" {
		if text, ok := distributedWorkloads[filepath.Base(name)]; ok {
			entries, err := parseProperties(name, []byte(text))
			return entries, true, err
		}
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, false, fmt.Errorf("cannot read property file %s: %v", name, err)
	}
	if i := bytes.IndexFunc(data, binaryRune); i >= 0 {
		return nil, false, fmt.Errorf("property file %s is not text (byte %#02x at offset %d): give a file of YCSB's key=value lines, such as workloads/workloada", name, data[i], i)
	}
	entries, err = parseProperties(name, data)
	return entries, false, err
}

// binaryRune reports whether r is a control character no text file holds
// (tab, line ends and form feed aside): a binary file given as -P, whose
// bytes would otherwise each become a property. Bytes of other encodings
// (Java reads properties as ISO 8859-1) are text.
func binaryRune(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f
}

// distributedWorkloads are the properties of YCSB's workloads/workloada ..
// workloadf as YCSB distributes them (comments left out), in their order.
var distributedWorkloads = map[string]string{
	"workloada": coreFile("readproportion=0.5\nupdateproportion=0.5\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian"),
	"workloadb": coreFile("readproportion=0.95\nupdateproportion=0.05\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian"),
	"workloadc": coreFile("readproportion=1\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nrequestdistribution=zipfian"),
	"workloadd": coreFile("readproportion=0.95\nupdateproportion=0\nscanproportion=0\ninsertproportion=0.05\nrequestdistribution=latest"),
	"workloade": coreFile("readproportion=0\nupdateproportion=0\nscanproportion=0.95\ninsertproportion=0.05\nrequestdistribution=zipfian\n" +
		"maxscanlength=100\nscanlengthdistribution=uniform"),
	"workloadf": coreFile("readproportion=0.5\nupdateproportion=0\nscanproportion=0\ninsertproportion=0\nreadmodifywriteproportion=0.5\n" +
		"requestdistribution=zipfian"),
}

// coreFile is a core workload file of YCSB's with the given mix.
func coreFile(mix string) string {
	return "recordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\nreadallfields=true\n" + mix + "\n"
}

// parseProperties parses data as java.util.Properties.load does, which
// is how YCSB reads -P files: one `key=value`, `key: value` or `key value`
// per line (the key ends at the first unescaped '=', ':' or white space;
// white space around the separator is skipped), lines ending in \n, \r\n
// or \r, `#` and `!` comment lines (which a trailing backslash does not
// continue), blank lines, backslash escapes (\t, \n, \uXXXX, \=, ...)
// and lines continued by an odd number of trailing backslashes (the next
// line's leading white space dropped). As in Java, a value keeps its
// trailing white space, a key alone has the empty value and the key may
// be empty. name is used in error messages only; the only errors are
// malformed \u escapes, as Java's.
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
		key, value, err := splitProperty(line)
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
func splitProperty(line string) (key, value string, err error) {
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
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescapeProperty(line[:end]); err != nil {
		return "", "", err
	}
	if value, err = unescapeProperty(rest); err != nil {
		return "", "", err
	}
	return key, value, nil
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
