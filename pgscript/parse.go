package pgscript

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stampede-bench/stampede/pgscript/expr"
)

// Kind is what a Command does.
type Kind uint8

const (
	// SQL sends a statement (or, with \;, several) to the server.
	SQL Kind = iota
	// Set is \set NAME EXPRESSION.
	Set
	// Sleep is \sleep N [us|ms|s].
	Sleep
	// If is \if EXPRESSION.
	If
	// Elif is \elif EXPRESSION.
	Elif
	// Else is \else.
	Else
	// Endif is \endif.
	Endif
)

// Store says where a query's results go.
type Store uint8

const (
	// NoStore keeps no result.
	NoStore Store = iota
	// Gset (\gset) stores the one row of the last result into variables
	// named after its columns.
	Gset
	// Aset (\aset) stores the last row of every result that has rows.
	Aset
)

// Command is one command of a script.
type Command struct {
	// Kind is what the command does.
	Kind Kind
	// Line is the script's line the command starts on, from 1.
	Line int
	// Name names an SQL command in reports: the `-- name: NAME` comment
	// above it, else FILE:LINE.
	Name string
	// NameLine is the line of the `-- name:` comment, 0 without one.
	NameLine int
	// Text is the command as written: an SQL command's text without its
	// final semicolon, a meta-command's line.
	Text string
	// Tail is what pgbench sends of an SQL command after Text: the
	// blanks that end it and its semicolon (a server error's LINE shows
	// them).
	Tail string
	// FirstLine is the command's first line as written, from where it
	// starts (pgbench's -r names commands by it).
	FirstLine string
	// Compound says that an SQL command holds several statements (\;).
	Compound bool
	// copies says that a statement of the command is a COPY.
	copies bool
	// Store and Prefix are the \gset or \aset that ends an SQL command.
	Store  Store
	Prefix string
	// Var and Expr are \set's; Expr is also \if's and \elif's condition.
	Var  string
	Expr *expr.Expr
	// SleepVar or SleepCount, times SleepUnit, is \sleep's duration.
	SleepVar   string
	SleepCount int64
	SleepUnit  time.Duration
	// Next is, for \if and \elif, the index of the next \elif, \else or
	// \endif of the same block; End, for \if, \elif and \else, the index
	// of the block's \endif.
	Next, End int
}

// Script is one parsed script file.
type Script struct {
	// Name is how the script is named in reports: its path as given, or
	// the name of a built-in script.
	Name string
	// Desc is how pgbench's report names the script: the file's path,
	// or a built-in's "<builtin: ...>".
	Desc string
	// Builtin says the script is one of pgbench's (Builtin).
	Builtin bool
	// Weight is the script's share of the transactions (FILE@WEIGHT).
	Weight int
	// Commands are the script's commands in order.
	Commands []Command
}

// SyntaxError is a script that cannot be parsed: it names the file and
// the line.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ParseFileArg splits pgbench's FILE[@WEIGHT] argument of -f and -b.
// A weight is a whole number from 1 to pgbench's 2147483647; an argument
// without @ weighs 1. pgbench also takes 0 beside a script that weighs
// more (a script it never runs): stampede refuses it, as a script given
// but never run is a mistake (issue 29), and says so.
func ParseFileArg(arg string) (name string, weight int, err error) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, 1, nil
	}
	name, ws := arg[:i], arg[i+1:]
	w, err := strconv.Atoi(ws)
	if err == nil && w == 0 {
		return "", 0, fmt.Errorf("%q: a weight of 0 never runs the script: give a whole number from 1 to %d, or leave the script out (pgbench takes 0 beside a heavier script; stampede refuses a script it would never run)", arg, math.MaxInt32)
	}
	if err != nil || w < 0 || w > math.MaxInt32 {
		// pgbench's weights are ints (its rule: 0 .. 2147483647).
		return "", 0, fmt.Errorf("%q: the weight after @ must be a whole number from 1 to %d (FILE@10)", arg, math.MaxInt32)
	}
	if name == "" {
		return "", 0, fmt.Errorf("%q: a file name comes before @WEIGHT", arg)
	}
	return name, w, nil
}

// Parse reads src, the script called name, in pgbench's script language.
func Parse(name string, weight int, src string) (*Script, error) {
	p := &parser{file: name, src: src, line: 1}
	s := &Script{Name: name, Desc: name, Weight: weight}
	if !utf8.ValidString(src) {
		return nil, p.errorf(1, "is not text (not UTF-8): give a script of SQL and meta-commands")
	}
	if strings.IndexByte(src, 0) >= 0 {
		return nil, p.errorf(1, "holds a NUL byte: give a script of SQL and meta-commands")
	}
	for {
		cmd, meta, err := p.next()
		if err != nil {
			return nil, err
		}
		if cmd != nil {
			if cmd.copies {
				return nil, p.errorf(cmd.Line, "COPY is not supported in a script (pgbench refuses it too): load rows with an init file (stampede init sql --init-file FILE takes COPY ... FROM stdin and its rows)")
			}
			s.Commands = append(s.Commands, *cmd)
		}
		if meta != nil {
			if meta.Kind == SQL { // \gset or \aset: ends the previous query
				n := len(s.Commands)
				if n == 0 || s.Commands[n-1].Kind != SQL || s.Commands[n-1].Store != NoStore {
					return nil, p.errorf(meta.Line, "%s must follow an SQL command (write it where the query's semicolon would be)", storeName(meta.Store))
				}
				s.Commands[n-1].Store, s.Commands[n-1].Prefix = meta.Store, meta.Prefix
			} else {
				s.Commands = append(s.Commands, *meta)
			}
		}
		if p.pos >= len(p.src) {
			break
		}
	}
	if err := p.blocks(s); err != nil {
		return nil, err
	}
	p.names(s)
	if len(s.Commands) == 0 {
		return nil, p.errorf(p.line, "holds no command: a script needs at least one SQL statement or meta-command")
	}
	return s, nil
}

func storeName(s Store) string {
	if s == Aset {
		return `\aset`
	}
	return `\gset`
}

// parser reads one script.
type parser struct {
	file string
	src  string
	pos  int
	line int
	// name is a pending `-- name:` comment for the next SQL command.
	name     string
	nameLine int
}

// exprHint is ": " and what to do about an expression's error, where
// its message (pgbench's) does not say, or "".
func exprHint(err error) string {
	var se *expr.SyntaxError
	if errors.As(err, &se) && se.Hint != "" {
		return ": " + se.Hint
	}
	return ""
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &SyntaxError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// next reads up to the end of the next SQL command or meta-command. It
// returns the SQL command collected (nil if only blanks and comments came
// before), and the meta-command that ended it, if one did.
func (p *parser) next() (*Command, *Command, error) {
	var b strings.Builder
	start, startPos, depth, compound, nonblank := 0, 0, 0, false, false
	// firstPos is where pgbench's first line starts: after the blanks and
	// -- comments before the command, a /* comment kept (-1: not yet).
	firstPos := -1
	var parts []int // where each statement after a \; starts in b
	var seps []int  // where each \; is in p.src
	semicolon := "" // ";" when the command ends at one
	flush := func() *Command {
		raw := b.String()
		text := strings.TrimSpace(raw)
		tail := raw[len(strings.TrimRight(raw, " \t\n\r\f\v")):] + semicolon
		if text == "" {
			return nil
		}
		copies := isCopy(text)
		for _, at := range parts {
			copies = copies || isCopy(raw[at:])
		}
		// Its first line as written, up to where it ends: the semicolon,
		// or the \gset that ends it (which pgbench's -r leaves out, and
		// keeps the blanks before it, as every first line's trailing
		// blanks: only a CRLF file's \r goes).
		// Each \; in it reads ; as in pgbench's (its lexer sends ; for \;).
		if firstPos < 0 {
			firstPos = startPos
		}
		first := p.src[firstPos:p.pos]
		for i := len(seps) - 1; i >= 0; i-- {
			if at := seps[i] - firstPos; at < len(first) {
				first = first[:at] + first[at+1:]
			}
		}
		c := &Command{Kind: SQL, Line: start, Text: text, Tail: tail, Compound: compound, FirstLine: firstLine(first), copies: copies}
		if p.name != "" {
			c.Name, c.NameLine = p.name, p.nameLine
			p.name = ""
		}
		return c
	}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		empty := !nonblank
		switch {
		case c == '\n':
			p.line++
			b.WriteByte(c)
			p.pos++
		case c == '-' && strings.HasPrefix(p.src[p.pos:], "--"):
			end := strings.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				end = len(p.src) - p.pos
			}
			comment := p.src[p.pos : p.pos+end]
			if empty {
				if n, ok := nameComment(comment); ok {
					if n == "" {
						return nil, nil, p.errorf(p.line, "`-- name:` needs a name after it (-- name: read_order)")
					}
					p.name, p.nameLine = n, p.line
				}
			} else {
				b.WriteString(comment)
			}
			p.pos += end
		case c == '/' && strings.HasPrefix(p.src[p.pos:], "/*"):
			if empty && firstPos < 0 {
				firstPos = p.pos
			}
			if err := p.copyBlockComment(&b, !empty); err != nil {
				return nil, nil, err
			}
		case c == '\'' || c == '"':
			if empty {
				start, startPos, nonblank = p.line, p.pos, true
				if firstPos < 0 {
					firstPos = p.pos
				}
			}
			if err := p.copyQuoted(&b, c); err != nil {
				return nil, nil, err
			}
		case c == '$' && dollarTag(p.src[p.pos:]) != "":
			if empty {
				start, startPos, nonblank = p.line, p.pos, true
				if firstPos < 0 {
					firstPos = p.pos
				}
			}
			if err := p.copyDollar(&b); err != nil {
				return nil, nil, err
			}
		case c == '\\' && strings.HasPrefix(p.src[p.pos:], `\;`):
			if empty {
				start, startPos, nonblank = p.line, p.pos, true
				if firstPos < 0 {
					firstPos = p.pos
				}
			}
			b.WriteByte(';')
			compound = true
			parts = append(parts, b.Len())
			seps = append(seps, p.pos)
			p.pos += 2
		case c == '\\':
			sql := flush()
			meta, err := p.meta()
			return sql, meta, err
		case c == ';' && depth == 0:
			p.pos++
			semicolon = ";"
			if cmd := flush(); cmd != nil {
				return cmd, nil, nil
			}
			b.Reset()
			compound, parts, seps, semicolon, firstPos = false, nil, nil, "", -1
		default:
			if c == ' ' || c == '\t' || c == '\r' || c == '\f' {
				b.WriteByte(c)
				p.pos++
				continue
			}
			if empty {
				start, startPos, nonblank = p.line, p.pos, true
				if firstPos < 0 {
					firstPos = p.pos
				}
			}
			switch c {
			case '(':
				depth++
			case ')':
				if depth > 0 {
					depth--
				}
			}
			b.WriteByte(c)
			p.pos++
		}
	}
	// The end of the file ends the last command, as in pgbench.
	return flush(), nil, nil
}

// maxFirstLine is the longest first line pgbench's -r prints of an SQL
// command, in bytes (its postprocess_sql_command copies the command into
// a buffer of 128).
const maxFirstLine = 127

// firstLine is how pgbench's -r names an SQL command: its text up to the
// first line's end, at most maxFirstLine bytes of it.
func firstLine(text string) string {
	if len(text) > maxFirstLine {
		text = text[:maxFirstLine]
	}
	if i := strings.IndexAny(text, "\n\r"); i >= 0 {
		text = text[:i]
	}
	return text
}

// lineAt returns the source from pos to the end of its line, its
// trailing blanks kept (pgbench's -r prints a meta-command as written).
func (p *parser) lineAt(pos int) string {
	end := strings.IndexByte(p.src[pos:], '\n')
	if end < 0 {
		end = len(p.src) - pos
	}
	return strings.TrimRight(p.src[pos:pos+end], "\r")
}

// nameComment reads a `-- name: NAME` comment.
func nameComment(comment string) (string, bool) {
	s := strings.TrimSpace(strings.TrimPrefix(comment, "--"))
	rest, ok := strings.CutPrefix(s, "name:")
	if !ok {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// copyBlockComment skips (or, with keep, copies) a /* comment */, which
// nests as in PostgreSQL.
func (p *parser) copyBlockComment(b *strings.Builder, keep bool) error {
	line, depth, i := p.line, 0, p.pos
	for i < len(p.src) {
		switch {
		case strings.HasPrefix(p.src[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(p.src[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				p.take(b, i, keep)
				return nil
			}
		default:
			i++
		}
	}
	return p.errorf(line, "a /* comment is not closed: add */")
}

// take moves p.pos to i, copying the text passed (with keep) and counting
// its lines.
func (p *parser) take(b *strings.Builder, i int, keep bool) {
	s := p.src[p.pos:i]
	p.line += strings.Count(s, "\n")
	if keep {
		b.WriteString(s)
	}
	p.pos = i
}

// copyQuoted copies a quoted string or identifier; a string after E is
// an escape string, in which a backslash escapes the next character.
func (p *parser) copyQuoted(b *strings.Builder, q byte) error {
	line := p.line
	escape := q == '\'' && p.pos > 0 && (p.src[p.pos-1] == 'E' || p.src[p.pos-1] == 'e') &&
		(p.pos < 2 || !identChar(p.src[p.pos-2]))
	for i := p.pos + 1; i < len(p.src); i++ {
		switch p.src[i] {
		case '\\':
			if escape {
				i++
			}
		case q:
			if i+1 < len(p.src) && p.src[i+1] == q {
				i++
				continue
			}
			p.take(b, i+1, true)
			return nil
		}
	}
	what := "string"
	if q == '"' {
		what = "quoted identifier"
	}
	return p.errorf(line, "a %s is not closed: add the closing %c", what, q)
}

// dollarTag returns the $tag$ that s begins with, or "".
func dollarTag(s string) string {
	if len(s) < 2 || s[0] != '$' {
		return ""
	}
	if s[1] == '$' {
		return "$$"
	}
	if !identStart(s[1]) {
		return ""
	}
	for i := 2; i < len(s); i++ {
		if s[i] == '$' {
			return s[:i+1]
		}
		if !identChar(s[i]) {
			return ""
		}
	}
	return ""
}

// copyDollar copies a dollar-quoted string.
func (p *parser) copyDollar(b *strings.Builder) error {
	tag := dollarTag(p.src[p.pos:])
	end := strings.Index(p.src[p.pos+len(tag):], tag)
	if end < 0 {
		return p.errorf(p.line, "a dollar-quoted string is not closed: add %s", tag)
	}
	p.take(b, p.pos+len(tag)+end+len(tag), true)
	return nil
}

func identStart(c byte) bool {
	return c == '_' || c >= 0x80 || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

// meta reads the meta-command at p.pos, to the end of its line (a line
// ending in a backslash goes on on the next).
func (p *parser) meta() (*Command, error) {
	line, first := p.line, p.lineAt(p.pos)
	var b strings.Builder
	for p.pos < len(p.src) {
		end := strings.IndexByte(p.src[p.pos:], '\n')
		if end < 0 {
			end = len(p.src) - p.pos
		}
		l := strings.TrimRight(p.src[p.pos:p.pos+end], "\r")
		p.pos += end
		if p.pos < len(p.src) {
			p.pos++ // the newline
			p.line++
		}
		if b.Len() == 0 && strings.TrimSpace(l) == `\` {
			// pgbench reads a backslash alone as nothing; taken as a
			// continuation it would make the next line's SQL a
			// meta-command.
			return nil, p.errorf(line, `a lone backslash on a line: remove it, or write a meta-command (\set, \sleep, \if, \gset, ...) after it`)
		}
		if strings.HasSuffix(l, `\`) && !strings.HasSuffix(l, `\\`) {
			b.WriteString(l[:len(l)-1])
			b.WriteByte(' ')
			continue
		}
		b.WriteString(l)
		break
	}
	text := strings.TrimSpace(b.String())
	word, rest, _ := strings.Cut(text, " ")
	if i := strings.IndexAny(word, "\t"); i >= 0 {
		word, rest = word[:i], word[i:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	args := strings.Fields(rest)
	c := &Command{Line: line, Text: text, FirstLine: first}
	switch strings.ToLower(word) {
	case `\set`:
		if len(args) < 2 {
			return nil, p.errorf(line, `\set needs a variable name and an expression: \set NAME EXPRESSION`)
		}
		c.Kind, c.Var = Set, args[0]
		if !ValidName(c.Var) {
			return nil, p.errorf(line, `\set: %q is not a variable name (letters, digits and _, not starting with a digit)`, c.Var)
		}
		e, err := expr.Parse(strings.TrimSpace(rest[len(args[0]):]))
		if err != nil {
			return nil, p.errorf(line, `\set %s: %v%s`, c.Var, err, exprHint(err))
		}
		c.Expr = e
	case `\sleep`:
		if len(args) < 1 {
			return nil, p.errorf(line, `\sleep needs a duration: \sleep N [us|ms|s], N a number or :variable`)
		}
		if len(args) > 2 {
			return nil, p.errorf(line, `\sleep: too many arguments (%s): \sleep N [us|ms|s], N a number or :variable`, strings.Join(args[2:], " "))
		}
		c.Kind, c.SleepUnit = Sleep, time.Second
		if len(args) == 2 {
			switch strings.ToLower(args[1]) {
			case "us":
				c.SleepUnit = time.Microsecond
			case "ms":
				c.SleepUnit = time.Millisecond
			case "s":
			default:
				return nil, p.errorf(line, `\sleep: unknown unit %q: use us, ms or s`, args[1])
			}
		}
		if v, ok := strings.CutPrefix(args[0], ":"); ok {
			if !ValidName(v) {
				return nil, p.errorf(line, `\sleep: %q is not a variable`, args[0])
			}
			c.SleepVar = v
		} else {
			n, err := strconv.ParseInt(args[0], 10, 64)
			if errors.Is(err, strconv.ErrRange) && n > 0 || err == nil && n > MaxSleep(c.SleepUnit) {
				return nil, p.errorf(line, `\sleep: %s %s is too large: the longest sleep is %s`, args[0], unitName(c.SleepUnit), maxSleepText(c.SleepUnit))
			}
			if err != nil || n < 0 {
				return nil, p.errorf(line, `\sleep: %q is not a whole number of 0 or more, nor a :variable`, args[0])
			}
			c.SleepCount = n
		}
	case `\if`, `\elif`:
		c.Kind = If
		if strings.ToLower(word) == `\elif` {
			c.Kind = Elif
		}
		if rest == "" {
			return nil, p.errorf(line, `%s needs a condition: %s EXPRESSION`, word, word)
		}
		e, err := expr.Parse(rest)
		if err != nil {
			return nil, p.errorf(line, `%s: %v%s`, word, err, exprHint(err))
		}
		c.Expr = e
	case `\else`, `\endif`:
		c.Kind = Else
		if strings.ToLower(word) == `\endif` {
			c.Kind = Endif
		}
		if len(args) > 0 {
			return nil, p.errorf(line, `%s takes no argument (found %q)`, word, rest)
		}
	case `\gset`, `\aset`:
		c.Kind, c.Store = SQL, Gset
		if strings.ToLower(word) == `\aset` {
			c.Store = Aset
		}
		if len(args) > 1 {
			return nil, p.errorf(line, `%s takes at most one argument, a prefix for the variables' names`, word)
		}
		if len(args) == 1 {
			c.Prefix = args[0]
			if strings.HasPrefix(c.Prefix, `\`) {
				return nil, p.errorf(line, `%s %s: one \gset or \aset ends a query, and its argument is a prefix for the variables' names: keep one`, word, c.Prefix)
			}
			if !ValidName(c.Prefix) {
				return nil, p.errorf(line, `%s: the prefix %q makes invalid variable names: a prefix holds letters, digits and _, and does not start with a digit`, word, c.Prefix)
			}
		}
	case `\copy`:
		return nil, p.errorf(line, `\copy is a psql command, not pgbench's: to load rows, put COPY TABLE FROM stdin; with the rows after it and a line \. in an --init-file (stampede init sql --init-file FILE)`)
	case `\shell`, `\setshell`:
		return nil, p.errorf(line, `%s runs a program, which stampede does not do: compute the value with \set or a query and \gset`, word)
	case `\startpipeline`, `\endpipeline`, `\syncpipeline`:
		return nil, p.errorf(line, `%s: stampede does not run pipelines yet: remove \startpipeline and \endpipeline to send the statements one by one`, word)
	case `\`:
		return nil, p.errorf(line, `a lone backslash: write a meta-command (\set, \sleep, \if, \gset, ...) or \; between statements`)
	default:
		return nil, p.errorf(line, `unknown meta-command %s: stampede runs pgbench's \set, \sleep, \if, \elif, \else, \endif, \gset and \aset`, word)
	}
	return c, nil
}

// isCopy reports whether an SQL command is a COPY.
func isCopy(sql string) bool {
	f := strings.Fields(sql)
	return len(f) > 0 && strings.EqualFold(strings.TrimRight(f[0], ";("), "COPY")
}

// ValidName is pgbench's rule for variable names: letters, digits, _ and
// non-ASCII bytes, not starting with a digit.
func ValidName(s string) bool {
	if s == "" || !identStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !identChar(s[i]) {
			return false
		}
	}
	return true
}

// MaxSleep is the largest \sleep count in unit: a sleep is at most
// math.MaxInt64 nanoseconds (about 292 years).
func MaxSleep(unit time.Duration) int64 { return math.MaxInt64 / int64(unit) }

// maxSleepText says MaxSleep in unit, for a refusal.
func maxSleepText(unit time.Duration) string {
	return fmt.Sprintf("%d %s (about 292 years)", MaxSleep(unit), unitName(unit))
}

// unitName is \sleep's word for unit.
func unitName(unit time.Duration) string {
	switch unit {
	case time.Microsecond:
		return "us"
	case time.Millisecond:
		return "ms"
	}
	return "s"
}

// blocks links the \if blocks and checks that they nest.
func (p *parser) blocks(s *Script) error {
	type open struct{ last, hasElse int }
	var stack []open
	var ifs [][]int // the branches of each open block
	for i := range s.Commands {
		c := &s.Commands[i]
		switch c.Kind {
		case If:
			stack = append(stack, open{last: i, hasElse: -1})
			ifs = append(ifs, []int{i})
		case Elif, Else:
			if len(stack) == 0 {
				return p.errorf(c.Line, `%s without a matching \if: open the block with \if EXPRESSION before it`, strings.Fields(c.Text)[0])
			}
			top := &stack[len(stack)-1]
			if top.hasElse >= 0 {
				return p.errorf(c.Line, `%s after \else (line %d): \else is the last branch of an \if`, strings.Fields(c.Text)[0], s.Commands[top.hasElse].Line)
			}
			s.Commands[top.last].Next = i
			top.last = i
			if c.Kind == Else {
				top.hasElse = i
			}
			ifs[len(ifs)-1] = append(ifs[len(ifs)-1], i)
		case Endif:
			if len(stack) == 0 {
				return p.errorf(c.Line, `\endif without a matching \if: open the block with \if EXPRESSION, or remove the \endif`)
			}
			top := stack[len(stack)-1]
			s.Commands[top.last].Next = i
			for _, j := range ifs[len(ifs)-1] {
				s.Commands[j].End = i
			}
			stack, ifs = stack[:len(stack)-1], ifs[:len(ifs)-1]
		}
	}
	if len(stack) > 0 {
		return p.errorf(s.Commands[ifs[len(ifs)-1][0]].Line, `\if without a matching \endif: add \endif at the end of the block`)
	}
	return nil
}

// names gives every SQL command its name. A command without a `-- name:`
// is FILE:LINE, the line it starts on; when a line starts several
// commands (BEGIN; SELECT 1; END;, which pgbench runs as three), each is
// FILE:LINE:N, N its place on the line from 1. Two commands may share a
// `-- name:` here, as pgbench, to which it is a comment, runs them:
// Compile refuses them, and the sql workload names them apart first.
func (p *parser) names(s *Script) {
	perLine := make(map[int]int)
	for _, c := range s.Commands {
		perLine[c.Line]++
	}
	nth := make(map[int]int)
	for i := range s.Commands {
		c := &s.Commands[i]
		nth[c.Line]++
		if c.Kind == SQL && c.Name == "" {
			c.Name = LineName(s.Name, c.Line, nth[c.Line], perLine[c.Line])
		}
	}
}

// LineName is the name of a command without a `-- name:`: FILE:LINE, or
// FILE:LINE:N for the nth of several commands that start on the line.
func LineName(file string, line, nth, onLine int) string {
	if onLine <= 1 {
		return file + ":" + strconv.Itoa(line)
	}
	return file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(nth)
}

// DisplayName is how a script file is named when none is given: its
// path as the user wrote it, cleaned.
func DisplayName(path string) string { return filepath.Clean(path) }

// bom is the UTF-8 byte order mark some editors write at a file's start.
const bom = "\xef\xbb\xbf"

// Text checks that b, the contents of a script, init or check file, is
// text, and returns it without a leading UTF-8 byte order mark, which
// psql skips (pgbench sends it to the server, which fails on it). A file
// with a NUL byte, or bytes that are not UTF-8, is not a script: the
// error says where the first such byte is.
func Text(b []byte) (string, error) {
	s := strings.TrimPrefix(string(b), bom)
	skipped := len(b) - len(s)
	if i := strings.IndexByte(s, 0); i >= 0 {
		return "", fmt.Errorf("is not a text SQL script (NUL byte at offset %d)", skipped+i)
	}
	if !utf8.ValidString(s) {
		for i, r := range s {
			if r == utf8.RuneError {
				if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
					return "", fmt.Errorf("is not a text SQL script (byte 0x%02x at offset %d is not UTF-8)", s[i], skipped+i)
				}
			}
		}
	}
	return s, nil
}
