package pgscript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Recorder receives the latency of every statement a client runs, by op
// (see Program.Ops).
type Recorder interface {
	Record(op int, d time.Duration)
}

// PartErrorRecorder is a Recorder that can also count a failure in a
// statement's own series, and there only (the engine's recorders: see
// workload.PartErrorRecorder): Client.Failed counts a script's failure
// on the statement where it failed, whose row then shows it in the
// reports.
type PartErrorRecorder interface {
	RecordPartError(op int)
}

// Client runs a Program's scripts on one connection, as one pgbench
// client: its variables live from one script to the next.
type Client struct {
	prog *Program
	conn sqlx.ScriptQuerier
	rec  Recorder
	// rand draws \set's random values (pgbench's cs_func_rs); saved is
	// its state when the current script began, for a retry.
	rand, saved prng.State
	// choose picks scripts (pgbench's ts_choose_rs).
	choose prng.State
	vars   []value
	// known caches Var's lookups of names in the program's map: an
	// expression's variable is the same string at every evaluation, so
	// comparing it with a few names seen is cheaper than hashing it (its
	// map lookup was about 2% of the client's user CPU per pgbench
	// select-only transaction).
	known  [4]knownVar
	nknown int
	params [][]byte
	// varErr is a variable that could not be read as a number during an
	// expression (expr.Env has no error).
	varErr error
	sb     strings.Builder
	// storing is the \gset or \aset query running, rows the rows of its
	// last result (number last) so far; storeRow is c.store, bound once
	// so that a statement allocates nothing for it.
	storing    *step
	rows, last int
	// badName is the first column name of the query being stored that
	// is no variable name (pgbench's "invalid variable name").
	badName  string
	storeRow sqlx.ScriptRow
	// failed is the measured command (its stmt) where the last run of a
	// script failed, -1 when it did not: Rewind counts it retried there,
	// Failed failed there.
	failed int
	// script and command are the script running (its index) and its
	// command (from 0), for debug()'s line.
	script, command int
	// end is when the command run last ended, as workload.Now read it
	// for its latency; 0 when it was not measured (see End).
	end time.Duration
}

// value is a variable: a value from \set, or text from -D, \gset or
// \aset, each computed from the other when first needed.
type value struct {
	set         bool
	val         expr.Value
	hasVal      bool
	text        []byte
	hasText     bool
	parseFailed bool
}

// NewClient returns client number id (pgbench's :client_id) of p, on
// conn, with its random states. rec may be nil.
func (p *Program) NewClient(id int, conn sqlx.ScriptQuerier, rec Recorder, rand, choose prng.State, defaultSeed, randomSeed int64) *Client {
	c := &Client{prog: p, conn: conn, rec: rec, rand: rand, choose: choose, vars: make([]value, len(p.names)), failed: -1}
	c.storeRow = c.store
	c.setVal(p.vars[VarClientID], expr.Value{Kind: expr.Int, I: int64(id)})
	scale := p.opts.Scale
	if scale <= 0 {
		scale = 1
	}
	c.setVal(p.vars[VarScale], expr.Value{Kind: expr.Int, I: scale})
	c.setVal(p.vars[VarDefaultSeed], expr.Value{Kind: expr.Int, I: defaultSeed})
	c.setVal(p.vars[VarRandomSeed], expr.Value{Kind: expr.Int, I: randomSeed})
	for n, s := range p.opts.Defines {
		c.setText(p.vars[n], []byte(s))
	}
	return c
}

func (c *Client) setVal(i int, v expr.Value) {
	x := &c.vars[i]
	x.set, x.val, x.hasVal, x.parseFailed = true, v, true, false
	x.text, x.hasText = x.text[:0], false
}

func (c *Client) setText(i int, b []byte) {
	x := &c.vars[i]
	x.set, x.hasVal, x.parseFailed = true, false, false
	x.text, x.hasText = append(x.text[:0], b...), true
}

// textOf returns variable i's text, as pgbench writes it into a
// statement; ok is false when it is not set.
func (c *Client) textOf(i int) ([]byte, bool) {
	x := &c.vars[i]
	if !x.set {
		return nil, false
	}
	if !x.hasText {
		if x.val.Kind == expr.Int {
			x.text = strconv.AppendInt(x.text[:0], x.val.I, 10)
		} else {
			x.text = append(x.text[:0], x.val.String()...)
		}
		x.hasText = true
	}
	return x.text, true
}

// knownVar is a variable name Var found and its number.
type knownVar struct {
	name string
	i    int
}

// varIndex returns the number of variable name, ok false when no command
// uses it.
func (c *Client) varIndex(name string) (int, bool) {
	for _, k := range c.known[:c.nknown] {
		if k.name == name { // equal strings' bytes are not compared
			return k.i, true
		}
	}
	i, ok := c.prog.vars[name]
	if ok && c.nknown < len(c.known) {
		c.known[c.nknown] = knownVar{name, i}
		c.nknown++
	}
	return i, ok
}

// Var implements expr.Env.
func (c *Client) Var(name string) (expr.Value, bool) {
	i, ok := c.varIndex(name)
	if !ok {
		return expr.Value{}, false
	}
	x := &c.vars[i]
	if !x.set {
		return expr.Value{}, false
	}
	if !x.hasVal {
		v, err := expr.ParseVariable(name, string(x.text))
		if err != nil {
			c.varErr = fmt.Errorf("%w: a variable used in an expression holds a number, a boolean or NULL", err)
			return expr.Value{}, false
		}
		x.val, x.hasVal = v, true
	}
	return x.val, true
}

// Debug implements expr.DebugEnv: pgbench's line, with the script's
// index and the command's number from 1, on Options.Debug.
func (c *Client) Debug(v expr.Value) {
	w := c.prog.opts.Debug
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "debug(script=%d,command=%d): %s\n", c.script, c.command+1, v.DebugString())
}

// Rand implements expr.Env.
func (c *Client) Rand() *prng.State { return &c.rand }

// Choose picks the next script by weight, as pgbench's chooseScript does.
func (c *Client) Choose() int {
	if len(c.prog.Scripts) == 1 {
		return 0
	}
	w := int64(c.choose.Uint64Range(0, uint64(c.prog.total-1)))
	i := 0
	for {
		w -= int64(c.prog.Scripts[i].Weight)
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// Rewind restores the random state the last script began with, so that
// a retried script draws the same values (as pgbench retries), and counts
// the failure of its last run as a retry of the command where it failed.
func (c *Client) Rewind() {
	c.rand = c.saved
	if c.failed >= 0 {
		c.prog.retries[c.failed].Add(1)
		c.failed = -1
	}
}

// Failed says that the failure of the last script run is final (not
// tried again): it counts it on the command where it failed, as
// pgbench's -r counts failures, and in that command's own series when
// the recorder takes it (PartErrorRecorder).
func (c *Client) Failed() {
	if c.failed < 0 {
		return
	}
	c.prog.failures[c.failed].Add(1)
	if r, ok := c.rec.(PartErrorRecorder); ok {
		r.RecordPartError(len(c.prog.Scripts) + c.failed)
	}
	c.failed = -1
}

// ScriptError is the failure of one command of a script; it wraps the
// server's or the expression's error.
type ScriptError struct {
	Script string
	Line   int
	Name   string // the statement's name; "" for a meta-command
	// Command is the failed command's index in the script, from 0 (SQL
	// commands and meta-commands, as pgbench numbers them).
	Command int
	// Query is the failed SQL command's text as it was sent (its
	// variables' values written in, or $1, $2, ...) and as pgbench sends
	// it (with its Tail), which a server error's position points into;
	// "" for a meta-command.
	Query string
	// PrepName is pgbench's name of the failed SQL command's prepared
	// statement under -M prepared (P_0, P_1, ... over all the scripts'
	// SQL commands), "" otherwise.
	PrepName string
	Err      error
}

func (e *ScriptError) Error() string {
	if e.Name != "" && e.Name != e.Script+":"+strconv.Itoa(e.Line) {
		return fmt.Sprintf("%s:%d (%s): %v", e.Script, e.Line, e.Name, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.Script, e.Line, e.Err)
}

func (e *ScriptError) Unwrap() error { return e.Err }

// MetaError is the failure of a meta-command (\set, \if, \elif,
// \sleep) during a run, as a ScriptError's Err: pgbench says Said, then
// that the client aborted in command Cmd ("set", "if", "elif" or
// "sleep"; see PgbenchLines).
type MetaError struct {
	Cmd  string
	Said string
	Err  error
}

func (e *MetaError) Error() string { return e.Err.Error() }
func (e *MetaError) Unwrap() error { return e.Err }

// PgbenchLines are pgbench's two lines (without its "pgbench: error: "
// prefix) for client's failure in command (from 0) of script.
func (e *MetaError) PgbenchLines(client, script, command int) [2]string {
	how := "evaluation"
	if e.Cmd == "sleep" {
		how = "execution"
	}
	return [2]string{e.Said, fmt.Sprintf("client %d aborted in command %d (%s) of script %d; %s of meta-command failed", client, command, e.Cmd, script, how)}
}

// metaError wraps err, a meta-command's (cmd's) failure, said as words
// of stampede's (stampede's prefix, then err) and of pgbench's (said).
func metaError(cmd, prefix string, err error, said string) *MetaError {
	return &MetaError{Cmd: cmd, Said: said, Err: fmt.Errorf("%s: %w", prefix, err)}
}

// Run runs script number i once. A failure leaves no transaction open on
// the connection (it is rolled back), and a script that ends inside a
// transaction fails.
func (c *Client) Run(ctx context.Context, i int) error {
	c.saved = c.rand
	c.failed = -1
	err := c.run(ctx, i)
	if err != nil {
		c.end = 0
	}
	if st := c.conn.TxStatus(); err == nil && st != 'I' && st != 0 {
		s := c.prog.Scripts[i]
		err = &ScriptError{Script: s.Name, Line: s.Commands[len(s.Commands)-1].Line,
			Err: errors.New("the script ended inside a transaction: end it with COMMIT (or END) in the same script")}
	}
	if err != nil {
		if st := c.conn.TxStatus(); st == 'T' || st == 'E' {
			_, _ = c.conn.QueryScript(context.WithoutCancel(ctx), sqlx.Simple, "ROLLBACK", nil, nil)
		}
	}
	return err
}

func (c *Client) run(ctx context.Context, si int) error {
	code := c.prog.code[si]
	name := c.prog.Scripts[si].Name
	c.script = si
	for pc := 0; pc < len(code); {
		st := &code[pc]
		c.command = pc
		c.end = 0 // a command not measured leaves it 0
		if st.Kind == SQL {
			if sql, err := c.query(ctx, st); err != nil {
				c.failed = st.stmt
				se := &ScriptError{Script: name, Line: st.lineOf(err), Name: st.Name, Command: pc, Query: sql + st.Tail, Err: err}
				if c.prog.opts.Protocol == sqlx.Prepared {
					se.PrepName = "P_" + strconv.Itoa(st.prep)
				}
				return se
			}
			pc++
			continue
		}
		var err error
		if st.stmt >= 0 {
			pc, err = c.meta(ctx, code, pc, name)
		} else {
			pc, err = c.step(ctx, code, pc, name)
		}
		if err != nil {
			if se := (*ScriptError)(nil); errors.As(err, &se) {
				se.Command = c.command // an \elif's own, where it failed
			}
			return err
		}
	}
	return nil
}

// meta runs meta-command pc, measured (Options.EveryCommand), and returns
// the command to go on with.
func (c *Client) meta(ctx context.Context, code []step, pc int, name string) (int, error) {
	st := &code[pc]
	start := workload.Now()
	next, err := c.step(ctx, code, pc, name)
	if c.rec != nil {
		c.end = workload.Now()
		c.rec.Record(len(c.prog.Scripts)+st.stmt, c.end-start)
	}
	if err != nil {
		c.failed = st.stmt
	}
	return next, err
}

// step runs meta-command pc (not measured) and returns the next.
func (c *Client) step(ctx context.Context, code []step, pc int, name string) (int, error) {
	st := &code[pc]
	switch st.Kind {
	case Set:
		v, err := c.eval(st)
		if err != nil {
			return 0, &ScriptError{Script: name, Line: st.Line, Err: metaError("set", `\set `+st.Var, err, c.said(err))}
		}
		c.setVal(st.set, v)
	case Sleep:
		d, err := c.sleepFor(st)
		if err != nil {
			said := err.Error()
			if _, ok := c.textOf(st.sleep); st.sleep >= 0 && !ok {
				said = fmt.Sprintf("sleep: undefined variable %q", st.SleepVar) // pgbench's words
			}
			return 0, &ScriptError{Script: name, Line: st.Line, Err: &MetaError{Cmd: "sleep", Said: said, Err: err}}
		}
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return 0, ctx.Err()
			}
		}
	case If:
		return c.branch(code, pc, name)
	case Elif, Else:
		return st.End + 1, nil
	}
	return pc + 1, nil
}

// branch evaluates the \if at pc and the \elifs after it until one holds,
// and returns the command to go on with.
func (c *Client) branch(code []step, pc int, script string) (int, error) {
	for {
		st := &code[pc]
		c.command = pc // an \elif's debug() says its own number
		switch st.Kind {
		case Else, Endif:
			return pc + 1, nil
		}
		v, err := c.eval(st)
		if err != nil {
			cmd := strings.Fields(st.Text)[0]
			return 0, &ScriptError{Script: script, Line: st.Line, Err: metaError(strings.TrimPrefix(cmd, `\`), cmd, err, c.said(err))}
		}
		if truth(v) {
			return pc + 1, nil
		}
		pc = st.Next
	}
}

// truth is pgbench's valueTruth: NULL and zero are false.
func truth(v expr.Value) bool {
	switch v.Kind {
	case expr.Bool:
		return v.B
	case expr.Int:
		return v.I != 0
	case expr.Double:
		return v.F != 0
	}
	return false
}

// said is pgbench's words for an expression's error: a variable's value
// that is no number is said without stampede's advice.
func (c *Client) said(err error) string {
	if err == c.varErr && errors.Unwrap(err) != nil {
		return errors.Unwrap(err).Error()
	}
	return err.Error()
}

func (c *Client) eval(st *step) (expr.Value, error) {
	c.varErr = nil
	v, err := st.Expr.Eval(c)
	if c.varErr != nil {
		return v, c.varErr
	}
	return v, err
}

func (c *Client) sleepFor(st *step) (time.Duration, error) {
	n := st.SleepCount
	if st.sleep >= 0 {
		t, ok := c.textOf(st.sleep)
		if !ok {
			return 0, fmt.Errorf(`\sleep: variable %s is not set`, st.SleepVar)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(t)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf(`\sleep: variable %s holds %q, not a whole number`, st.SleepVar, t)
		}
		n = v
	}
	if n < 0 {
		n = 0
	}
	if n > MaxSleep(st.SleepUnit) {
		return 0, fmt.Errorf(`\sleep: variable %s holds %d, too large: the longest sleep is %s`, st.SleepVar, n, maxSleepText(st.SleepUnit))
	}
	return time.Duration(n) * st.SleepUnit, nil
}

// End returns when the last script Run ended, as workload.Now read it
// for the latency of its last command: the engine takes it as the
// transaction's end (workload.Result.End) instead of reading the clock
// again. It is 0 when the run failed or its last command was not
// measured (a meta-command without Options.EveryCommand).
func (c *Client) End() time.Duration { return c.end }

// query runs an SQL command and stores its results as \gset or \aset
// say; its error comes with the statement's text as it was sent.
func (c *Client) query(ctx context.Context, st *step) (string, error) {
	var sql string
	var params [][]byte
	if c.prog.opts.Protocol == sqlx.Simple {
		c.sb.Reset()
		for _, s := range st.segs {
			c.sb.WriteString(s.lit)
			if s.v < 0 {
				continue
			}
			if t, ok := c.textOf(s.v); ok {
				c.sb.Write(t)
			} else {
				c.sb.WriteString(s.name) // pgbench leaves an unset :name as written
			}
		}
		sql = c.sb.String()
	} else {
		sql = st.sql
		c.params = c.params[:0]
		for _, v := range st.params {
			// A variable not set (an \\if branch or an \\aset query
			// that returned no row left it so) is NULL, as pgbench
			// sends it, under Options.NullUnset.
			t, ok := c.textOf(v)
			if !ok && !c.prog.opts.NullUnset {
				return sql, fmt.Errorf("variable %s is not set", c.prog.names[v])
			}
			c.params = append(c.params, t)
		}
		params = c.params
	}
	var row sqlx.ScriptRow
	c.rows, c.last = 0, -1
	if st.Store != NoStore {
		c.storing, row = st, c.storeRow
	}
	start := workload.Now()
	_, err := c.conn.QueryScript(ctx, c.prog.opts.Protocol, sql, params, row)
	if err != nil {
		// A failed statement's time is no latency of it: the script's
		// failure counts it, as a built-in workload counts a failed
		// query in its transaction's errors.
		return sql, err
	}
	if c.rec != nil {
		c.end = workload.Now()
		c.rec.Record(len(c.prog.Scripts)+st.stmt, c.end-start)
	}
	if c.badName != "" {
		name := c.badName
		c.badName = ""
		return sql, fmt.Errorf(`%s: invalid variable name: %q (a column's name, after the prefix, must be a variable name: name the column with AS)`, storeName(st.Store), name)
	}
	if st.Store == Gset && c.rows != 1 {
		return sql, fmt.Errorf(`\gset expects the query to return one row, and it returned %d`, c.rows)
	}
	return sql, nil
}

// store keeps a row of the \gset or \aset query c.storing in the
// variables a command uses (Client.storeRow is it, bound once).
func (c *Client) store(result int, fields []pgconn.FieldDescription, values [][]byte) {
	st := c.storing
	if result != c.last {
		c.last, c.rows = result, 0
	}
	c.rows++
	for i, f := range fields {
		name := f.Name
		if st.Prefix != "" {
			name = st.Prefix + name
		}
		v, ok := c.prog.vars[name]
		if !ok && c.badName == "" && !ValidName(name) {
			c.badName = name // no command can use it: pgbench refuses it
		}
		if !ok {
			continue // no command uses it
		}
		c.setText(v, values[i])
	}
}

// lineOf is the script line a server error points at (its position in
// the statement), else the command's first line.
func (st *step) lineOf(err error) int {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Position <= 0 {
		return st.Line
	}
	text := st.Text
	if st.sql != "" && len(st.params) > 0 {
		text = st.sql
	}
	pos := int(pe.Position) // in characters
	n := 0
	for i := range text {
		if n == pos-1 {
			return st.Line + strings.Count(text[:i], "\n")
		}
		n++
	}
	return st.Line + strings.Count(text, "\n")
}

// ErrorLine is the script line a server error about command c points at
// (its position in sql, the text sent), else c's first line.
func ErrorLine(c *Command, sql string, err error) int {
	st := step{Command: c, sql: sql, params: []int{0}}
	return st.lineOf(err)
}
