package hammerdb

import (
	"strconv"
	"strings"
)

// cond evaluates an if's condition: one operand (a boolean or a number,
// ! before it to negate it) or two compared (== != < <= > >= eq ne),
// operands being numbers, words, "strings", $variables or [commands]; as
// HammerDB's example scripts use (if { $warehouse >= 200 }). Anything
// more is refused.
func (in *interp) cond(w word, line int) (bool, error) {
	text := ""
	if w.braced {
		text, _ = w.literalText()
	} else {
		var err error
		if text, err = in.word(w, line); err != nil {
			return false, err
		}
	}
	toks, err := in.exprTokens(text, w.line)
	if err != nil {
		return false, err
	}
	bad := func() (bool, error) {
		return false, inputf("line %d: if {%s}: stampede evaluates a condition of one value or one comparison (== != < <= > >= eq ne), not more Tcl", line, strings.TrimSpace(text))
	}
	switch {
	case len(toks) == 1 && !toks[0].op:
		return truth(toks[0].text, line)
	case len(toks) == 2 && toks[0].op && toks[0].text == "!" && !toks[1].op:
		t, err := truth(toks[1].text, line)
		return !t, err
	case len(toks) == 3 && !toks[0].op && toks[1].op && !toks[2].op:
		return compare(toks[0].text, toks[1].text, toks[2].text, bad)
	}
	return bad()
}

// exprToken is an operand (its value) or an operator.
type exprToken struct {
	text string
	op   bool
}

// exprTokens splits a condition into operands, substituted, and
// operators.
func (in *interp) exprTokens(text string, line int) ([]exprToken, error) {
	p := &parser{src: []rune(text), line: line}
	var toks []exprToken
	for {
		p.space()
		for p.peek() == '\n' {
			p.next()
			p.space()
		}
		if p.pos >= len(p.src) {
			return toks, nil
		}
		r := p.peek()
		switch {
		case strings.ContainsRune("=!<>", r):
			op := string(p.next())
			if p.peek() == '=' {
				op += string(p.next())
			}
			toks = append(toks, exprToken{text: op, op: true})
			continue
		case r == '"' || r == '$' || r == '[':
			var parts []part
			var err error
			if r == '"' {
				p.next()
				parts, err = p.parts(func(r rune) bool { return r == '"' })
				if err == nil && p.pos < len(p.src) {
					p.next()
				}
			} else {
				parts, err = p.parts(func(r rune) bool { return isSpace(r) || r == '\n' || strings.ContainsRune("=!<>", r) })
			}
			if err != nil {
				return nil, asInput(err)
			}
			v, err := in.word(word{parts: parts}, line)
			if err != nil {
				return nil, err
			}
			toks = append(toks, exprToken{text: v})
			continue
		}
		start := p.pos
		for p.pos < len(p.src) && !isSpace(p.peek()) && p.peek() != '\n' && !strings.ContainsRune("=!<>\"$[", p.peek()) {
			p.next()
		}
		w := string(p.src[start:p.pos])
		toks = append(toks, exprToken{text: w, op: w == "eq" || w == "ne"})
	}
}

// truth is a Tcl boolean or number as a truth value.
func truth(v string, line int) (bool, error) {
	if b, ok := tclBool(v); ok {
		return b, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f != 0, nil
	}
	return false, inputf("line %d: if: expected a boolean value but got %q", line, v)
}

// compare compares a and b with op: as numbers when both are numbers
// (for == != < <= > >=), as strings otherwise.
func compare(a, op, b string, bad func() (bool, error)) (bool, error) {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	num := ea == nil && eb == nil && op != "eq" && op != "ne"
	c := strings.Compare(a, b)
	if num {
		switch {
		case fa < fb:
			c = -1
		case fa > fb:
			c = 1
		default:
			c = 0
		}
	}
	switch op {
	case "==", "eq":
		return c == 0, nil
	case "!=", "ne":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return bad()
}

// tclBool reads a Tcl boolean (true/false, yes/no, on/off, 1/0, any
// case).
func tclBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}
