package pgscript

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/stampede-bench/stampede/sqlx"
)

// Built-in variables every client has, as in pgbench.
const (
	VarClientID    = "client_id"
	VarScale       = "scale"
	VarDefaultSeed = "default_seed"
	VarRandomSeed  = "random_seed"
)

// Options are what a Program needs besides its scripts.
type Options struct {
	// Protocol is how statements are sent (pgbench's -M).
	Protocol sqlx.Protocol
	// Defines are variables every client starts with (pgbench's -D).
	Defines map[string]string
	// Scale is the :scale variable (pgbench's -s); 0 means 1.
	Scale int64
	// EveryCommand measures every command, meta-commands too, as
	// pgbench's -r reports them; otherwise only SQL commands are.
	EveryCommand bool
	// Debug receives what debug() prints, pgbench's
	// "debug(script=S,command=C): int 5" lines; nil is standard error.
	Debug io.Writer
	// NullUnset sends NULL for a variable a statement uses unset (an
	// \if branch or an \aset query that returned no row left it so)
	// in the prepared and extended protocols, as pgbench does (the
	// pgbench form); otherwise the statement fails with "variable NAME
	// is not set", sending nothing, so that no NULL reaches a table
	// unasked.
	NullUnset bool
	// SimpleFlag is how a refusal tells to send statements as text:
	// "-M simple" in the pgbench form; "" is run sql's "--protocol simple
	// (-M simple)".
	SimpleFlag string
}

// simpleFlag is how a refusal tells to send statements as text.
func (o Options) simpleFlag() string {
	if o.SimpleFlag == "" {
		return "--protocol simple (-M simple)"
	}
	return o.SimpleFlag
}

// Program is a set of weighted scripts compiled against one table of
// variables, shared by every client of a run.
type Program struct {
	// Scripts are the scripts, in the order given.
	Scripts []*Script
	opts    Options
	// vars numbers every variable name the scripts use.
	vars  map[string]int
	names []string
	// code is each script's compiled commands.
	code  [][]step
	stmts []string // the names of the measured commands, in op order
	total int64    // the sum of the weights
	// warnings are what the checks found that may fail at run time but
	// need not (see Warnings).
	warnings []string
	// failures counts, by measured command (its stmt), the scripts that
	// failed for good there (Client.Failed); retries the failures there
	// that were tried again (Client.Rewind): pgbench's -r columns.
	failures, retries []atomic.Int64
}

// step is one compiled command.
type step struct {
	*Command
	// stmt is the command's index among the program's measured
	// commands, -1 when it is not measured.
	stmt int
	// sql is the text sent in the prepared and extended protocols, with
	// $1, $2, ... for the variables params names (one per occurrence,
	// as pgbench numbers them).
	sql    string
	params []int
	// prep numbers the SQL commands of all the scripts from 0, in
	// order, as pgbench names its prepared statements (P_0, P_1, ...).
	prep int
	// segs is the text of the simple protocol: literal text and the
	// variables written into it.
	segs []segment
	// set is \set's variable, sleep \sleep's (or -1).
	set, sleep int
}

// segment is a piece of a statement's text: lit, then variable v (-1 for
// none; name is how it was written, kept when the variable is unset).
type segment struct {
	lit  string
	v    int
	name string
}

// Compile binds scripts into a Program. It checks that every script can
// be chosen and, for the prepared and extended protocols, that no
// statement uses a variable before something sets it (described tells,
// for a \gset or \aset command, the columns its query returns: ok false
// when they cannot be known before the run, and then every variable is
// taken as possibly set by it).
func Compile(scripts []*Script, opts Options, described func(c *Command) (cols []string, ok bool)) (*Program, error) {
	if len(scripts) == 0 {
		return nil, fmt.Errorf("no script: give one with -f FILE")
	}
	p := &Program{Scripts: scripts, opts: opts, vars: make(map[string]int)}
	for _, n := range []string{VarClientID, VarScale, VarDefaultSeed, VarRandomSeed} {
		p.slot(n)
	}
	for n := range opts.Defines {
		if !ValidName(n) {
			return nil, fmt.Errorf("-D %s=...: %q is not a variable name (letters, digits and _, not starting with a digit)", n, n)
		}
		p.slot(n)
	}
	sqlCommands := 0 // pgbench's prepared statements' numbers (step.prep)
	for _, s := range scripts {
		if s.Weight <= 0 {
			return nil, fmt.Errorf("%s@%d: a weight of %d never runs the script: give 1 or more, or leave the script out", s.Name, s.Weight, s.Weight)
		}
		p.total += int64(s.Weight)
		code := make([]step, len(s.Commands))
		perLine, nth := make(map[int]int), make(map[int]int)
		for _, c := range s.Commands {
			perLine[c.Line]++
		}
		for i := range s.Commands {
			c := &s.Commands[i]
			st := step{Command: c, stmt: -1, set: -1, sleep: -1}
			nth[c.Line]++
			if c.Kind == SQL || opts.EveryCommand {
				st.stmt = len(p.stmts)
				name := c.Name
				if name == "" {
					name = LineName(s.Name, c.Line, nth[c.Line], perLine[c.Line])
				}
				p.stmts = append(p.stmts, name)
			}
			switch c.Kind {
			case SQL:
				if c.Compound && opts.Protocol != sqlx.Simple {
					return nil, &SyntaxError{File: s.Name, Line: c.Line, Msg: fmt.Sprintf(`several statements in one command (\;) need %s: the %s protocol sends one statement at a time`, opts.simpleFlag(), opts.Protocol)}
				}
				if opts.Protocol != sqlx.Simple {
					if name, where := quotedVar(c.Text); name != "" {
						return nil, &SyntaxError{File: s.Name, Line: c.Line, Msg: fmt.Sprintf(`%s is inside %s, where the %s protocol does not substitute variables (the server would get a $N parameter there, and refuse the values sent; pgbench fails on it too): put the variable outside the quotes (e.g. 'a' || %s), or give %s`, name, where, opts.Protocol, name, opts.simpleFlag())}
					}
				}
				st.sql, st.params, st.segs = p.substitute(c.Text)
				st.prep, sqlCommands = sqlCommands, sqlCommands+1
			case Set, If, Elif:
				// An error every evaluation meets (random_zipfian(1, 10,
				// 1.0), 1/0) is refused before the run, not by every
				// client's first script.
				if err := c.Expr.CheckConstant(); err != nil {
					what := strings.Fields(c.Text)[0]
					if c.Kind == Set {
						what += " " + c.Var
					}
					return nil, &SyntaxError{File: s.Name, Line: c.Line, Msg: fmt.Sprintf("%s: %v, whatever the variables hold: fix the expression", what, err)}
				}
				for _, v := range c.Expr.Vars() {
					p.slot(v)
				}
				if c.Kind == Set {
					st.set = p.slot(c.Var)
				}
			case Sleep:
				if c.SleepVar != "" {
					st.sleep = p.slot(c.SleepVar)
				}
			}
			code[i] = st
		}
		p.code = append(p.code, code)
	}
	if err := p.checkNames(); err != nil {
		return nil, err
	}
	p.failures = make([]atomic.Int64, len(p.stmts))
	p.retries = make([]atomic.Int64, len(p.stmts))
	for _, s := range scripts {
		if err := p.checkSet(s, opts.Protocol != sqlx.Simple, described); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Warnings are what Compile found that may fail at run time but need
// not: a variable that an \if leaves unset on some of its branches only.
func (p *Program) Warnings() []string { return p.warnings }

// slot returns name's variable number, numbering it if new.
func (p *Program) slot(name string) int {
	if i, ok := p.vars[name]; ok {
		return i
	}
	p.vars[name] = len(p.names)
	p.names = append(p.names, name)
	return len(p.names) - 1
}

// checkNames refuses two statements with one name, of one script or of
// two, and a statement named as a script: the run log keeps one series
// per name. (The sql workload names such statements apart before it
// compiles them, as pgbench runs them.)
func (p *Program) checkNames() error {
	seen := make(map[string]string)
	for _, s := range p.Scripts {
		if other, ok := seen[s.Name]; ok {
			return fmt.Errorf("the script %s is given twice%s: give each script once, with its weight (-f FILE@WEIGHT)", s.Name, other)
		}
		seen[s.Name] = ""
	}
	for _, s := range p.Scripts {
		for _, c := range s.Commands {
			if c.Kind != SQL {
				continue
			}
			if where, ok := seen[c.Name]; ok {
				if where == "" {
					where = "a script"
				}
				return &SyntaxError{File: s.Name, Line: c.Line, Msg: fmt.Sprintf("the statement name %q is already %s: give it another `-- name:`", c.Name, where)}
			}
			seen[c.Name] = fmt.Sprintf("used at %s:%d", s.Name, c.Line)
		}
	}
	return nil
}

// substitute finds the :variables in sql as pgbench does (a name after a
// colon, see nameEnd, skipping ::casts, anywhere in the text) and
// returns the text of the prepared and extended protocols, their
// parameters, and the segments of the simple protocol.
func (p *Program) substitute(sql string) (string, []int, []segment) {
	var b strings.Builder
	var params []int
	var segs []segment
	lit := 0
	for i := 0; i < len(sql); {
		if sql[i] != ':' {
			i++
			continue
		}
		j := nameEnd(sql, i+1)
		if j == i+1 { // not a name: skip this run of colons
			for i < len(sql) && sql[i] == ':' {
				i++
			}
			continue
		}
		name := sql[i+1 : j]
		v := p.slot(name)
		b.WriteString(sql[lit:i])
		params = append(params, v)
		b.WriteString("$" + strconv.Itoa(len(params)))
		segs = append(segs, segment{lit: sql[lit:i], v: v, name: sql[i:j]})
		lit, i = j, j
	}
	b.WriteString(sql[lit:])
	segs = append(segs, segment{lit: sql[lit:], v: -1})
	return b.String(), params, segs
}

// nameEnd returns the end of the variable name that starts at s[i], or i
// when there is none: pgbench's parseVariable takes a letter, _ or a
// high-bit byte, then those or digits, so '10:30' and [1:2] name none.
func nameEnd(s string, i int) int {
	if i >= len(s) || !identStart(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && identChar(s[j]) {
		j++
	}
	return j
}

// quotedVar finds the first :name that substitute would take for a
// variable inside a string literal, a quoted name or a comment of sql,
// and says where it is; "" when there is none.
func quotedVar(sql string) (name, where string) {
	for i := 0; i < len(sql); i++ {
		var end int
		switch {
		case sql[i] == '\'' || sql[i] == '"':
			end = strings.IndexByte(sql[i+1:], sql[i])
			if end < 0 {
				end = len(sql)
			} else {
				end += i + 1
			}
			where = "a string literal"
			if sql[i] == '"' {
				where = "a quoted name"
			}
		case strings.HasPrefix(sql[i:], "--"):
			end = strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql)
			} else {
				end += i
			}
			where = "a comment"
		case strings.HasPrefix(sql[i:], "/*"):
			end = strings.Index(sql[i:], "*/")
			if end < 0 {
				end = len(sql)
			} else {
				end += i
			}
			where = "a comment"
		default:
			continue
		}
		in := sql[i+1 : end]
		for j := 0; j < len(in); j++ {
			if in[j] != ':' || j > 0 && in[j-1] == ':' || j+1 < len(in) && in[j+1] == ':' {
				continue
			}
			if k := nameEnd(in, j+1); k > j+1 {
				return in[j:k], where
			}
		}
		i = end
	}
	return "", ""
}

// checkSet refuses, along every path through the script's \if blocks, a
// variable used before anything sets it (the built-ins, -D, \set, the
// columns of a \gset or \aset query; vars false skips this, for the
// simple protocol, where an unset variable stays as written), and a
// script that may end inside a transaction it opened. A branch whose
// condition is a constant false is never taken, and none after a
// constant true one is. A variable that an \if leaves unset on some of
// its branches only is a warning (Warnings), not a refusal: the
// conditions may be linked (the same value tested twice), and pgbench
// runs such a script, failing only a client that meets the unset path.
func (p *Program) checkSet(s *Script, vars bool, described func(c *Command) ([]string, bool)) error {
	w := pathWalk{p: p, s: s, vars: vars, described: described, warned: map[string]bool{}}
	st := pathState{set: map[string]bool{VarClientID: true, VarScale: true, VarDefaultSeed: true, VarRandomSeed: true}}
	for n := range p.opts.Defines {
		st.set[n] = true
	}
	end, err := w.walk(0, len(s.Commands), st)
	if err != nil {
		return err
	}
	if end.open > 0 {
		return &SyntaxError{File: s.Name, Line: end.open, Msg: "the script can end inside the transaction this BEGIN opens, which would be rolled back: end it with COMMIT (or END) in the same script, on every \\if branch"}
	}
	return nil
}

// pathState is what holds at a point of a script along the paths that
// reach it.
type pathState struct {
	// dead says that no path reaches the point (a constant condition).
	dead bool
	// set holds the variables set on every path; any says that a \gset
	// or \aset whose columns cannot be known came first on every path,
	// so that any variable may be set.
	set map[string]bool
	any bool
	// lost is, for a variable set on some paths only, the line of the
	// \if whose branches differ.
	lost map[string]int
	// open is the line of a BEGIN whose transaction some path leaves
	// open, 0 when none does.
	open int
}

func (st pathState) clone() pathState {
	c := st
	c.set = make(map[string]bool, len(st.set))
	for k := range st.set {
		c.set[k] = true
	}
	c.lost = make(map[string]int, len(st.lost))
	for k, v := range st.lost {
		c.lost[k] = v
	}
	return c
}

// join is the state after an \if block (at line) whose branches end in a
// and b.
func join(a, b pathState, line int) pathState {
	switch {
	case a.dead:
		return b
	case b.dead:
		return a
	}
	out := a.clone()
	out.any = a.any && b.any
	out.set = map[string]bool{}
	for k := range a.set {
		if b.set[k] || b.any {
			out.set[k] = true
		} else if out.lost[k] == 0 {
			out.lost[k] = line
		}
	}
	for k := range b.set {
		if a.any {
			out.set[k] = true
		} else if !a.set[k] && out.lost[k] == 0 {
			out.lost[k] = line
		}
	}
	for k, v := range b.lost {
		if out.lost[k] == 0 {
			out.lost[k] = v
		}
	}
	if out.open == 0 {
		out.open = b.open
	}
	return out
}

// pathWalk walks one script's paths for checkSet.
type pathWalk struct {
	p         *Program
	s         *Script
	vars      bool
	described func(c *Command) ([]string, bool)
	// warned holds the variables already warned of, once each.
	warned map[string]bool
}

// walk goes through commands [from, to) from state st.
func (w *pathWalk) walk(from, to int, st pathState) (pathState, error) {
	cmds := w.s.Commands
	for i := from; i < to; i++ {
		c := &cmds[i]
		if c.Kind == If {
			var err error
			if st, err = w.block(i, st); err != nil {
				return st, err
			}
			i = c.End
			continue
		}
		if st.dead {
			continue
		}
		if err := w.step(c, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// block walks the \if block that starts at command i.
func (w *pathWalk) block(i int, st pathState) (pathState, error) {
	cmds := w.s.Commands
	out := pathState{dead: true}
	taken := st.dead // a branch before holds whenever the block runs
	for j := i; ; {
		c := &cmds[j]
		switch c.Kind {
		case If, Elif:
			if !taken {
				if err := w.uses(c, &st, c.Expr.Vars(), strings.Fields(c.Text)[0]); err != nil {
					return st, err
				}
			}
			v, constant := c.Expr.Constant()
			if !taken && !(constant && !truth(v)) {
				b, err := w.walk(j+1, c.Next, st.clone())
				if err != nil {
					return st, err
				}
				out = join(out, b, cmds[i].Line)
			}
			taken = taken || constant && truth(v)
			j = c.Next
		case Else:
			if !taken {
				b, err := w.walk(j+1, c.End, st.clone())
				if err != nil {
					return st, err
				}
				out = join(out, b, cmds[i].Line)
			}
			return out, nil
		default: // \endif: no branch held
			if !taken {
				out = join(out, st, cmds[i].Line)
			}
			return out, nil
		}
	}
}

// step applies one command that is not an \if block to st.
func (w *pathWalk) step(c *Command, st *pathState) error {
	switch c.Kind {
	case SQL:
		_, params, _ := w.p.substitute(c.Text)
		for _, v := range params {
			if err := w.uses(c, st, []string{w.p.names[v]}, "the statement"); err != nil {
				return err
			}
		}
		for _, part := range strings.Split(c.Text, ";") {
			switch txEffect(part) {
			case 1:
				if st.open == 0 {
					st.open = c.Line
				}
			case -1:
				st.open = 0
			}
		}
		if c.Store != NoStore {
			cols, ok := []string(nil), false
			if w.described != nil {
				cols, ok = w.described(c)
			}
			if !ok {
				st.any = true
			}
			for _, col := range cols {
				if w.vars && !ValidName(c.Prefix+col) {
					return &SyntaxError{File: w.s.Name, Line: c.Line, Msg: fmt.Sprintf("%s: column %q makes the variable name %q, which is not a variable name (letters, digits and _, not starting with a digit): name the column with AS", storeName(c.Store), col, c.Prefix+col)}
				}
				st.set[c.Prefix+col] = true
			}
		}
	case Set:
		if err := w.uses(c, st, c.Expr.Vars(), `\set`); err != nil {
			return err
		}
		st.set[c.Var] = true
	case Sleep:
		if c.SleepVar != "" {
			return w.uses(c, st, []string{c.SleepVar}, `\sleep`)
		}
	}
	return nil
}

// uses refuses a variable of names that st does not set.
func (w *pathWalk) uses(c *Command, st *pathState, names []string, how string) error {
	if !w.vars || st.any {
		return nil
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	for _, name := range names {
		if st.set[name] {
			continue
		}
		if line := st.lost[name]; line > 0 {
			if !w.warned[name] {
				w.warned[name] = true
				// A statement (prepared or extended: vars) sends NULL
				// for it as pgbench's do (NullUnset), or fails; \\set
				// and \\sleep fail, as pgbench's do.
				what := fmt.Sprintf("fails there (variable %s is not set), as pgbench fails there", name)
				switch {
				case c.Kind == SQL && w.p.opts.NullUnset:
					what = "sends NULL for it, as pgbench -M " + w.p.opts.Protocol.String() + " does"
				case c.Kind == SQL:
					what = fmt.Sprintf("fails there (variable %s is not set), sending nothing, where pgbench -M %s (and stampede pgbench) sends NULL for it", name, w.p.opts.Protocol)
				}
				w.p.warnings = append(w.p.warnings, fmt.Sprintf("%s:%d: %s uses :%s, which the \\if at line %d leaves unset on some of its branches: a transaction that reaches it unset %s (if the conditions are linked, ignore this; otherwise set it before the \\if, or on every branch)", w.s.Name, c.Line, how, name, line, what))
			}
			continue
		}
		return &SyntaxError{File: w.s.Name, Line: c.Line, Msg: fmt.Sprintf("%s uses :%s before anything sets it: set it with \\set, a query's \\gset, or -D %s=VALUE", how, name, name)}
	}
	return nil
}

// txEffect says whether a statement opens a transaction (1: BEGIN, START
// TRANSACTION), ends one (-1: COMMIT, END, ROLLBACK, ABORT, PREPARE
// TRANSACTION) or neither (0).
func txEffect(sql string) int {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) == 0 {
		return 0
	}
	second := ""
	if len(f) > 1 {
		second = f[1]
	}
	switch f[0] {
	case "BEGIN":
		return 1
	case "START":
		if second == "TRANSACTION" {
			return 1
		}
	case "COMMIT", "ROLLBACK", "ABORT", "END":
		if second != "PREPARED" && second != "TO" {
			return -1
		}
	case "PREPARE":
		if second == "TRANSACTION" {
			return -1
		}
	}
	return 0
}

// Ops are the names of the program's operations: the scripts, then the
// measured commands (the SQL ones, or every one with
// Options.EveryCommand) in the order of the scripts. A script's index is
// its op; measured command i's op is len(Scripts)+i.
func (p *Program) Ops() []string {
	ops := make([]string, 0, len(p.Scripts)+len(p.stmts))
	for _, s := range p.Scripts {
		ops = append(ops, s.Name)
	}
	return append(ops, p.stmts...)
}

// Statements lists every SQL command with the text the protocol sends, for
// checks before a run (preparing each once).
func (p *Program) Statements() []Statement {
	var out []Statement
	for si, code := range p.code {
		for i := range code {
			st := &code[i]
			if st.Kind != SQL {
				continue
			}
			out = append(out, Statement{Script: p.Scripts[si], Command: st.Command, SQL: st.sql})
		}
	}
	return out
}

// Statement is one SQL command of a Program.
type Statement struct {
	Script  *Script
	Command *Command
	// SQL is the text the prepared and extended protocols send.
	SQL string
}

// TotalWeight is the sum of the scripts' weights.
func (p *Program) TotalWeight() int64 { return p.total }

// Layout is a Program's operations as pgbench's report lists them.
type Layout struct {
	Scripts []ScriptLayout
}

// ScriptLayout is one script of a Layout.
type ScriptLayout struct {
	// Desc names the script as pgbench does; Weight is its weight; Op is
	// its operation.
	Desc   string
	Weight int
	Op     int
	// Commands are its commands, in order.
	Commands []CommandLayout
}

// CommandLayout is one command of a ScriptLayout.
type CommandLayout struct {
	// FirstLine is the command's first line as written.
	FirstLine string
	// Op is its operation, -1 when it is not measured.
	Op int
	// Failures is how many scripts failed for good at this command in
	// the run so far (after their tries), Retries how many of its
	// failures were tried again: pgbench's -r columns.
	Failures, Retries int64
}

// Layout returns the program's operations by script and command, with
// each command's failures so far.
func (p *Program) Layout() Layout {
	var l Layout
	for si, code := range p.code {
		s := p.Scripts[si]
		sl := ScriptLayout{Desc: s.Desc, Weight: s.Weight, Op: si}
		for i := range code {
			st := &code[i]
			cl := CommandLayout{FirstLine: st.FirstLine, Op: -1}
			if st.stmt >= 0 {
				cl.Op = len(p.Scripts) + st.stmt
				cl.Failures = p.failures[st.stmt].Load()
				cl.Retries = p.retries[st.stmt].Load()
			}
			sl.Commands = append(sl.Commands, cl)
		}
		l.Scripts = append(l.Scripts, sl)
	}
	return l
}

// Scale is the :scale the program's clients get.
func (p *Program) Scale() int64 {
	if p.opts.Scale <= 0 {
		return 1
	}
	return p.opts.Scale
}
