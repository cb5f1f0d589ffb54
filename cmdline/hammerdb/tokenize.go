package hammerdb

import (
	"fmt"
	"strings"
)

// A command is one Tcl command of a script: its words, unevaluated, and
// the line it starts on.
type command struct {
	line  int
	words []word
}

// A word is one Tcl word: literal text and the substitutions in it
// ($var, [cmd]), evaluated when the command runs (a foreach body sees
// each value of its variable).
type word struct {
	line  int
	parts []part
	// braced is a word in braces: its text is taken as is.
	braced bool
}

// partKind is what a part of a word is.
type partKind int

const (
	literal  partKind = iota // text as is
	variable                 // $name, ${name} or $name(index)
	script                   // [commands]
)

// A part is literal text, a variable's name (with its array index) or
// a command substitution's script.
type part struct {
	kind  partKind
	text  string
	index string // $name(index)
	line  int    // the line a script part starts on
}

// literalText returns the word's text when it has no substitution.
func (w word) literalText() (string, bool) {
	var b strings.Builder
	for _, p := range w.parts {
		if p.kind != literal {
			return "", false
		}
		b.WriteString(p.text)
	}
	return b.String(), true
}

// parseError is an error of a script's syntax, at a line.
type parseError struct {
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// parser splits a Tcl script into commands and words, by Tcl's rules
// (the dodekalogue) for what HammerDB's scripts use: words separated by
// spaces and tabs, commands by newlines and semicolons, comments from a
// # where a command begins, braces (nested, taken as is), double quotes
// and bare words (with $var, [cmd] and backslash substitution), and a
// backslash-newline as a space. It evaluates nothing.
type parser struct {
	src  []rune
	pos  int
	line int
}

// parse parses src, whose first line is line.
func parse(src string, line int) ([]command, error) {
	p := &parser{src: []rune(src), line: line}
	var cmds []command
	for {
		c, err := p.command()
		if err != nil {
			return nil, err
		}
		if c == nil {
			return cmds, nil
		}
		if len(c.words) > 0 {
			cmds = append(cmds, *c)
		}
	}
}

func (p *parser) peek() rune {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) at(i int) rune {
	if p.pos+i < len(p.src) {
		return p.src[p.pos+i]
	}
	return 0
}

func (p *parser) next() rune {
	r := p.src[p.pos]
	p.pos++
	if r == '\n' {
		p.line++
	}
	return r
}

// space skips spaces, tabs and backslash-newlines (a word separator).
func (p *parser) space() {
	for p.pos < len(p.src) {
		switch {
		case p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r' || p.peek() == '\f' || p.peek() == '\v':
			p.next()
		case p.peek() == '\\' && p.at(1) == '\n':
			p.next()
			p.next()
		default:
			return
		}
	}
}

// command parses the next command; nil at the end of the script.
func (p *parser) command() (*command, error) {
	// Skip blank lines, separators and comments before the command.
	for {
		p.space()
		if p.pos >= len(p.src) {
			return nil, nil
		}
		switch p.peek() {
		case '\n', ';':
			p.next()
			continue
		case '#':
			for p.pos < len(p.src) && p.peek() != '\n' {
				if p.peek() == '\\' && p.at(1) != 0 {
					p.next()
				}
				p.next()
			}
			continue
		}
		break
	}
	c := &command{line: p.line}
	for {
		p.space()
		if p.pos >= len(p.src) {
			return c, nil
		}
		if r := p.peek(); r == '\n' || r == ';' {
			p.next()
			return c, nil
		}
		w, err := p.word()
		if err != nil {
			return nil, err
		}
		c.words = append(c.words, w)
	}
}

// word parses one word.
func (p *parser) word() (word, error) {
	start := p.line
	switch {
	case p.peek() == '{' && p.at(1) == '*' && p.at(2) == '}' && p.at(3) != 0 && !isSpace(p.at(3)):
		return word{}, &parseError{start, "{*} (argument expansion) is Tcl that stampede's HammerDB scripts do not evaluate"}
	case p.peek() == '{':
		text, err := p.braced()
		if err != nil {
			return word{}, err
		}
		if err := p.wordEnd("close-brace"); err != nil {
			return word{}, err
		}
		return word{line: start, parts: []part{{kind: literal, text: text}}, braced: true}, nil
	case p.peek() == '"':
		p.next()
		parts, err := p.parts(func(r rune) bool { return r == '"' })
		if err != nil {
			return word{}, err
		}
		if p.pos >= len(p.src) {
			return word{}, &parseError{start, "missing \" (a double-quoted word is not closed)"}
		}
		p.next()
		if err := p.wordEnd("close-quote"); err != nil {
			return word{}, err
		}
		return word{line: start, parts: parts}, nil
	}
	parts, err := p.parts(func(r rune) bool { return isSpace(r) || r == '\n' || r == ';' })
	if err != nil {
		return word{}, err
	}
	return word{line: start, parts: parts}, nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\f' || r == '\v' }

// wordEnd checks that a braced or quoted word ends where it closes.
func (p *parser) wordEnd(what string) error {
	if p.pos >= len(p.src) {
		return nil
	}
	r := p.peek()
	if isSpace(r) || r == '\n' || r == ';' || (r == '\\' && p.at(1) == '\n') {
		return nil
	}
	return &parseError{p.line, fmt.Sprintf("extra characters after %s", what)}
}

// braced parses a braced word (the opening brace next) and returns its
// text, with backslash-newlines (and the spaces after them) as one space.
func (p *parser) braced() (string, error) {
	start := p.line
	p.next()
	depth := 1
	var b strings.Builder
	for p.pos < len(p.src) {
		r := p.next()
		switch r {
		case '\\':
			if p.peek() == '\n' {
				p.next()
				for p.pos < len(p.src) && isSpace(p.peek()) {
					p.next()
				}
				b.WriteRune(' ')
				continue
			}
			b.WriteRune(r)
			if p.pos < len(p.src) {
				b.WriteRune(p.next())
			}
			continue
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return b.String(), nil
			}
		}
		b.WriteRune(r)
	}
	return "", &parseError{start, "missing close-brace (a braced word is not closed)"}
}

// parts parses the parts of a quoted or bare word up to end (not
// consumed).
func (p *parser) parts(end func(rune) bool) ([]part, error) {
	var parts []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, part{kind: literal, text: lit.String()})
			lit.Reset()
		}
	}
	for p.pos < len(p.src) && !end(p.peek()) {
		switch r := p.peek(); r {
		case '\\':
			p.next()
			if p.pos >= len(p.src) {
				lit.WriteRune('\\')
				break
			}
			lit.WriteString(p.backslash())
		case '$':
			v, ok, err := p.variable()
			if err != nil {
				return nil, err
			}
			if !ok {
				lit.WriteRune(p.next())
				continue
			}
			flush()
			parts = append(parts, v)
		case '[':
			start := p.line
			text, err := p.bracketed()
			if err != nil {
				return nil, err
			}
			flush()
			parts = append(parts, part{kind: script, text: text, line: start})
		default:
			lit.WriteRune(p.next())
		}
	}
	flush()
	return parts, nil
}

// backslash returns what the backslash sequence next (the backslash
// read) stands for.
func (p *parser) backslash() string {
	r := p.next()
	switch r {
	case '\n':
		for p.pos < len(p.src) && isSpace(p.peek()) {
			p.next()
		}
		return " "
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'v':
		return "\v"
	}
	return string(r)
}

// variable parses $name, ${name}, $name(index) or $::name; ok is false
// for a $ that starts no variable (taken as is, as Tcl does).
func (p *parser) variable() (part, bool, error) {
	start := p.line
	if p.at(1) == '{' {
		p.next()
		p.next()
		var b strings.Builder
		for p.pos < len(p.src) && p.peek() != '}' {
			b.WriteRune(p.next())
		}
		if p.pos >= len(p.src) {
			return part{}, false, &parseError{start, "missing close-brace for a variable name"}
		}
		p.next()
		return part{kind: variable, text: b.String()}, true, nil
	}
	i := 1
	for {
		r := p.at(i)
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
			i++
		case r == ':' && p.at(i+1) == ':':
			i += 2
		default:
			goto done
		}
	}
done:
	if i == 1 {
		return part{}, false, nil
	}
	p.next()
	name := string(p.src[p.pos : p.pos+i-1])
	for range i - 1 {
		p.next()
	}
	v := part{kind: variable, text: name}
	if p.peek() == '(' {
		p.next()
		var b strings.Builder
		for p.pos < len(p.src) && p.peek() != ')' {
			if p.peek() == '$' || p.peek() == '[' {
				return part{}, false, &parseError{start, fmt.Sprintf("$%s(...): an array index with a substitution is Tcl that stampede's HammerDB scripts do not evaluate", name)}
			}
			b.WriteRune(p.next())
		}
		if p.pos >= len(p.src) {
			return part{}, false, &parseError{start, fmt.Sprintf("missing ) in $%s(", name)}
		}
		p.next()
		v.index = b.String()
	}
	return v, true, nil
}

// bracketed parses [script] (the bracket next) and returns the script.
func (p *parser) bracketed() (string, error) {
	start := p.line
	p.next()
	depth := 1
	var b strings.Builder
	for p.pos < len(p.src) {
		r := p.next()
		switch r {
		case '\\':
			b.WriteRune(r)
			if p.pos < len(p.src) {
				b.WriteRune(p.next())
			}
			continue
		case '{':
			// A braced word inside: copy it whole (its brackets do not count).
			b.WriteRune(r)
			d := 1
			for p.pos < len(p.src) && d > 0 {
				c := p.next()
				if c == '{' {
					d++
				} else if c == '}' {
					d--
				}
				b.WriteRune(c)
			}
			continue
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return b.String(), nil
			}
		}
		b.WriteRune(r)
	}
	return "", &parseError{start, "missing close-bracket (a [command] is not closed)"}
}
