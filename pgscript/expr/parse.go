// Package expr is pgbench 15's expression language, the language of \set:
// integer and double constants, booleans, NULL, :variable references,
// pgbench's operators with its precedence and int/double promotion, CASE,
// and every function pgbench has (abs, debug, double, exp, greatest, hash,
// hash_fnv1a, hash_murmur2, int, least, ln, mod, permute, pi, pow, power,
// random, random_exponential, random_gaussian, random_zipfian, sqrt), with
// pgbench's argument-count checks, its runtime errors and, for the random
// functions, its draws from the client's random state (package prng), so that
// a run given pgbench's --random-seed computes the values pgbench computes.
//
// The lexer and the parser are written by hand: the grammar (pgbench's
// exprparse.y) is a dozen rules of operator precedence, which a Pratt
// (precedence-climbing) parser states directly; it reproduces bison's
// resolution of that grammar, non-associative comparisons included, and
// reports errors at the token bison reports them at. A parser generator
// would add a build step and a dependency for no gain. Nothing of
// PostgreSQL's code is copied; the behaviour was read from its sources and
// checked against Debian's pgbench 15 (see the tests).
package expr

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SyntaxError is an expression that does not parse. Its text is pgbench's:
// the message, the detail in parentheses when there is one, and the column.
type SyntaxError struct {
	// Msg is pgbench's message: "syntax error", "unexpected function
	// name", "unexpected number of arguments", "at least one argument
	// expected", "unexpected character", "bigint constant overflow" or
	// "double constant overflow".
	Msg string
	// More is the detail pgbench prints in parentheses (the function name,
	// the character, the constant), or "".
	More string
	// Offset is the 0-based byte offset in the expression where pgbench
	// puts its "^ error found here" caret: the last byte of the offending
	// token, or the length of the expression at its end.
	Offset int
	// Hint says what to do, where pgbench's message does not ("random
	// takes 2 arguments"), or "". Error leaves it out: its text is
	// pgbench's.
	Hint string
}

// Error returns pgbench's text for the error as it prints it without the
// line: "syntax error at column 5", "unexpected function name (foo) at
// column 3". The column is Offset+1.
func (e *SyntaxError) Error() string {
	if e.More != "" {
		return fmt.Sprintf("%s (%s) at column %d", e.Msg, e.More, e.Offset+1)
	}
	return fmt.Sprintf("%s at column %d", e.Msg, e.Offset+1)
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tError
	tInt
	tMaxInt // 9223372036854775808, valid only after a unary minus
	tDouble
	tTrue
	tFalse
	tNull
	tVar
	tIdent
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
	tLParen
	tRParen
	tComma
	tPlus
	tMinus
	tStar
	tSlash
	tPercent
	tLT
	tGT
	tEQ
	tNE
	tLE
	tGE
	tBitAnd
	tBitOr
	tHash
	tTilde
	tLShift
	tRShift
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the source
	i          int64
	f          float64
	text       string // identifier, variable name, or error detail
	msg        string // tError: the message
}

var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull,
	"notnull": tNotNull, "null": tNull, "true": tTrue, "false": tFalse,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEnd,
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

type lexer struct {
	src string
	pos int
}

// next returns the next token, as pgbench's exprscan.l in its EXPR state
// lexes it: the longest match, keywords before identifiers, errors as
// tokens that the parser reports when it reaches them.
func (l *lexer) next() token {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			l.pos++
			continue
		}
		if c == '\\' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '\n' {
			l.pos += 2 // line continuation
			continue
		}
		break
	}
	start := l.pos
	if start >= len(l.src) || l.src[start] == '\n' {
		return token{kind: tEOF, start: start, end: start}
	}
	c := l.src[start]
	two := ""
	if start+1 < len(l.src) {
		two = l.src[start : start+2]
	}
	tok := func(k tokKind, n int) token {
		l.pos = start + n
		return token{kind: k, start: start, end: start + n}
	}
	switch two {
	case "!=", "<>":
		return tok(tNE, 2)
	case "<=":
		return tok(tLE, 2)
	case ">=":
		return tok(tGE, 2)
	case "<<":
		return tok(tLShift, 2)
	case ">>":
		return tok(tRShift, 2)
	}
	switch c {
	case '+':
		return tok(tPlus, 1)
	case '-':
		return tok(tMinus, 1)
	case '*':
		return tok(tStar, 1)
	case '/':
		return tok(tSlash, 1)
	case '%':
		return tok(tPercent, 1)
	case '(':
		return tok(tLParen, 1)
	case ')':
		return tok(tRParen, 1)
	case ',':
		return tok(tComma, 1)
	case '<':
		return tok(tLT, 1)
	case '>':
		return tok(tGT, 1)
	case '=':
		return tok(tEQ, 1)
	case '&':
		return tok(tBitAnd, 1)
	case '|':
		return tok(tBitOr, 1)
	case '#':
		return tok(tHash, 1)
	case '~':
		return tok(tTilde, 1)
	case ':':
		e := start + 1
		for e < len(l.src) && isAlnum(l.src[e]) {
			e++
		}
		if e > start+1 {
			t := tok(tVar, e-start)
			t.text = l.src[start+1 : e]
			return t
		}
	}
	if isDigit(c) || c == '.' && start+1 < len(l.src) && isDigit(l.src[start+1]) {
		return l.number(start)
	}
	if isAlpha(c) {
		e := start + 1
		for e < len(l.src) && isAlnum(l.src[e]) {
			e++
		}
		word := l.src[start:e]
		if k, ok := keywords[strings.ToLower(word)]; ok {
			return tok(k, e-start)
		}
		t := tok(tIdent, e-start)
		t.text = word
		return t
	}
	t := tok(tError, 1)
	t.msg, t.text = "unexpected character", l.src[start:start+1]
	return t
}

// number lexes {digit}+ as an integer, {digit}+(.{digit}*)?(e[+-]?{digit}+)?
// or .{digit}+(e[+-]?{digit}+)? as a double.
func (l *lexer) number(start int) token {
	s := l.src
	e := start
	for e < len(s) && isDigit(s[e]) {
		e++
	}
	double := false
	if e < len(s) && s[e] == '.' {
		double = true
		e++
		for e < len(s) && isDigit(s[e]) {
			e++
		}
	}
	if e < len(s) && (s[e] == 'e' || s[e] == 'E') {
		x := e + 1
		if x < len(s) && (s[x] == '+' || s[x] == '-') {
			x++
		}
		if x < len(s) && isDigit(s[x]) {
			for x < len(s) && isDigit(s[x]) {
				x++
			}
			e, double = x, true
		}
	}
	l.pos = e
	text := s[start:e]
	t := token{start: start, end: e}
	if double {
		f, ok := strtod(text)
		if !ok {
			t.kind, t.msg, t.text = tError, "double constant overflow", text
			return t
		}
		t.kind, t.f = tDouble, f
		return t
	}
	if text == "9223372036854775808" {
		t.kind = tMaxInt
		return t
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		t.kind, t.msg, t.text = tError, "bigint constant overflow", text
		return t
	}
	t.kind, t.i = tInt, i
	return t
}

// Operator precedence levels, lowest first, as exprparse.y declares them.
const (
	precNone = iota
	precOr
	precAnd
	precNot
	precIs // IS, ISNULL, NOTNULL: postfix
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

// binary returns the function and precedence of a binary operator token,
// and whether its operands are swapped (a > b is b < a).
func binary(k tokKind) (fn function, prec int, swap bool) {
	switch k {
	case tOr:
		return fnOr, precOr, false
	case tAnd:
		return fnAnd, precAnd, false
	case tLT:
		return fnLT, precCmp, false
	case tGT:
		return fnLT, precCmp, true
	case tLE:
		return fnLE, precCmp, false
	case tGE:
		return fnLE, precCmp, true
	case tEQ:
		return fnEQ, precCmp, false
	case tNE:
		return fnNE, precCmp, false
	case tBitAnd:
		return fnBitAnd, precBit, false
	case tBitOr:
		return fnBitOr, precBit, false
	case tHash:
		return fnBitXor, precBit, false
	case tLShift:
		return fnLShift, precBit, false
	case tRShift:
		return fnRShift, precBit, false
	case tPlus:
		return fnAdd, precAdd, false
	case tMinus:
		return fnSub, precAdd, false
	case tStar:
		return fnMul, precMul, false
	case tSlash:
		return fnDiv, precMul, false
	case tPercent:
		return fnMod, precMul, false
	}
	return 0, precNone, false
}

type parser struct {
	lex    lexer
	tok    token
	peeked bool
	vars   []string
}

// bail carries a SyntaxError up to Parse.
type bail struct{ err *SyntaxError }

func (p *parser) peek() token {
	if !p.peeked {
		p.tok = p.lex.next()
		p.peeked = true
	}
	if p.tok.kind == tError {
		p.fail(p.tok, p.tok.msg, p.tok.text)
	}
	return p.tok
}

func (p *parser) take() token {
	t := p.peek()
	p.peeked = false
	return t
}

// fail stops parsing with pgbench's message at tok's last byte (or at the
// end of the expression).
func (p *parser) fail(tok token, msg, more string) {
	p.failHint(tok, msg, more, "")
}

// failHint is fail with a SyntaxError.Hint.
func (p *parser) failHint(tok token, msg, more, hint string) {
	off := tok.end - 1
	if tok.kind == tEOF {
		off = tok.start
	}
	panic(bail{&SyntaxError{Msg: msg, More: more, Offset: off, Hint: hint}})
}

func (p *parser) expect(k tokKind) token {
	t := p.peek()
	if t.kind != k {
		p.fail(t, "syntax error", "")
	}
	return p.take()
}

// Expr is a parsed \set expression.
type Expr struct {
	root *node
	vars []string
}

// Parse parses one \set expression (the text after the variable name). Its
// errors are *SyntaxError, with pgbench's messages.
func Parse(src string) (e *Expr, err error) {
	p := &parser{lex: lexer{src: src}}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			e, err = nil, b.err
		}
	}()
	root := p.expr(precNone)
	if t := p.peek(); t.kind != tEOF {
		p.fail(t, "syntax error", "")
	}
	if t := p.tok; t.start < len(src) {
		// A newline ends a \set command: text after one is not part of it.
		rest := strings.TrimLeft(src[t.start+1:], " \t\r\f\v\n")
		if rest != "" {
			p.fail(token{kind: tEOF, start: t.start}, "syntax error", "")
		}
	}
	return &Expr{root: root, vars: p.vars}, nil
}

// Vars returns the variables the expression references, each once, in the
// order they first appear. hash(), hash_fnv1a(), hash_murmur2() and
// permute() without a seed reference default_seed.
func (e *Expr) Vars() []string { return append([]string(nil), e.vars...) }

func (p *parser) addVar(name string) {
	for _, v := range p.vars {
		if v == name {
			return
		}
	}
	p.vars = append(p.vars, name)
}

// expr parses an expression whose operators bind tighter than minPrec, as
// bison resolves exprparse.y's conflicts: a binary operator of the same
// level as the one to its left reduces (they are left-associative), and
// two comparisons in a row are a syntax error (non-associative).
func (p *parser) expr(minPrec int) *node {
	left := p.prefix()
	lastNonassoc := precNone
	for {
		t := p.peek()
		switch t.kind {
		case tIsNull, tNotNull, tIs:
			if precIs <= minPrec {
				return left
			}
			p.take()
			var rhs *node
			negate := t.kind == tNotNull
			if t.kind == tIs {
				n := p.take()
				if n.kind == tNot {
					negate = true
					n = p.take()
				}
				switch n.kind {
				case tNull:
					rhs = constant(NullValue())
				case tTrue:
					rhs = constant(BoolValue(true))
				case tFalse:
					rhs = constant(BoolValue(false))
				default:
					p.fail(n, "syntax error", "")
				}
			} else {
				rhs = constant(NullValue())
			}
			left = call(fnIs, left, rhs)
			if negate {
				left = call(fnNot, left)
			}
			lastNonassoc = precNone
			continue
		}
		fn, prec, swap := binary(t.kind)
		if prec == precNone || prec <= minPrec {
			return left
		}
		if prec == precCmp && lastNonassoc == precCmp {
			p.fail(t, "syntax error", "")
		}
		p.take()
		right := p.expr(prec)
		if swap {
			left = call(fn, right, left)
		} else {
			left = call(fn, left, right)
		}
		lastNonassoc = precNone
		if prec == precCmp {
			lastNonassoc = precCmp
		}
	}
}

func (p *parser) prefix() *node {
	t := p.take()
	switch t.kind {
	case tLParen:
		n := p.expr(precNone)
		p.expect(tRParen)
		return n
	case tPlus:
		return p.expr(precUnary)
	case tMinus:
		if p.peek().kind == tMaxInt {
			p.take()
			return constant(IntValue(math.MinInt64))
		}
		return call(fnSub, constant(IntValue(0)), p.expr(precUnary))
	case tTilde:
		// "~x" is "-1 # x"; it binds as the bitwise operators do.
		return call(fnBitXor, constant(IntValue(-1)), p.expr(precBit))
	case tNot:
		return call(fnNot, p.expr(precNot))
	case tNull:
		return constant(NullValue())
	case tTrue:
		return constant(BoolValue(true))
	case tFalse:
		return constant(BoolValue(false))
	case tInt:
		return constant(IntValue(t.i))
	case tDouble:
		return constant(DoubleValue(t.f))
	case tVar:
		p.addVar(t.text)
		return &node{fn: fnVar, name: t.text}
	case tIdent:
		return p.call(t)
	case tCase:
		return p.caseExpr()
	}
	p.fail(t, "syntax error", "")
	return nil
}

// call parses a function call whose name is t: pgbench looks the name up
// before it reads the parenthesis, and checks the number of arguments
// when it reaches the closing one.
func (p *parser) call(t token) *node {
	def, ok := functions[strings.ToLower(t.text)]
	if !ok {
		p.failHint(t, "unexpected function name", t.text, "pgbench's functions are "+strings.Join(slices.Sorted(maps.Keys(functions)), ", "))
	}
	p.expect(tLParen)
	var args []*node
	// exprparse.y's elist may start empty, so "f(, x)" is f(x).
	if p.peek().kind != tRParen {
		if p.peek().kind == tComma {
			p.take()
		}
		args = append(args, p.expr(precNone))
		for p.peek().kind == tComma {
			p.take()
			args = append(args, p.expr(precNone))
		}
	}
	closing := p.expect(tRParen)
	name := strings.ToLower(t.text)
	arity := name + " takes " + def.arity()
	switch def.nargs {
	case nargsVariable:
		if len(args) == 0 {
			p.failHint(closing, "at least one argument expected", name, arity)
		}
	case nargsHash:
		if len(args) < 1 || len(args) > 2 {
			p.failHint(closing, "unexpected number of arguments", name, arity)
		}
		if len(args) == 1 {
			p.addVar("default_seed")
			args = append(args, &node{fn: fnVar, name: "default_seed"})
		}
	case nargsPermute:
		if len(args) < 2 || len(args) > 3 {
			p.failHint(closing, "unexpected number of arguments", name, arity)
		}
		if len(args) == 2 {
			p.addVar("default_seed")
			args = append(args, &node{fn: fnVar, name: "default_seed"})
		}
	default:
		if len(args) != def.nargs {
			p.failHint(closing, "unexpected number of arguments", name, arity)
		}
	}
	return &node{fn: def.fn, args: args}
}

// caseExpr parses CASE WHEN c THEN v [WHEN ...] [ELSE e] END into the
// argument list c1, v1, c2, v2, ..., e (e is NULL without ELSE).
func (p *parser) caseExpr() *node {
	var args []*node
	p.expect(tWhen)
	for {
		args = append(args, p.expr(precNone))
		p.expect(tThen)
		args = append(args, p.expr(precNone))
		if p.peek().kind != tWhen {
			break
		}
		p.take()
	}
	if p.peek().kind == tElse {
		p.take()
		args = append(args, p.expr(precNone))
		p.expect(tEnd)
	} else {
		p.expect(tEnd)
		args = append(args, constant(NullValue()))
	}
	return &node{fn: fnCase, args: args}
}
