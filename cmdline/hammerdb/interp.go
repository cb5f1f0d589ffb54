package hammerdb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// interp runs a script's commands: the Tcl it evaluates (set, puts, if,
// foreach, open/close of a file, exit) and HammerDB's CLI commands.
type interp struct {
	ctx  context.Context
	env  Env
	opts Options
	out  io.Writer

	vars map[string]string
	// pg says dbset db pg was run.
	pg bool
	bm string
	// values are the keys' values; set, the keys diset changed.
	values map[string]string
	// loaded is the driver script's settings at loadscript (nil when no
	// script is loaded): vurun runs with them, as HammerDB runs the
	// script it loaded.
	loaded map[string]string
	vu     int
	// vuopts are vuset's other options (logtotemp, unique, ...), as
	// print vuconf prints them.
	vuopts map[string]string
	// created says virtual users exist (vucreate, vurun or buildschema).
	created  bool
	files    map[string]*os.File
	nfile    int
	exitCode int
	exited   bool
}

// errExit ends a script at Tcl's exit.
var errExit = errors.New("exit")

func newInterp(ctx context.Context, env Env, opts Options) *interp {
	in := &interp{ctx: ctx, env: env, opts: opts, out: env.Stdout, vars: map[string]string{}, bm: "TPC-C",
		values: map[string]string{}, vu: 1, files: map[string]*os.File{},
		vuopts: map[string]string{"delay": "500", "repeat": "500", "iterations": "1", "showoutput": "1", "logtotemp": "0", "unique": "0", "nobuff": "0", "timestamps": "0"}}
	for _, k := range pgKeys {
		in.values[k.name] = k.def
	}
	return in
}

// printf prints a line of HammerDB's output.
func (in *interp) printf(format string, args ...any) {
	fmt.Fprintf(in.out, format+"\n", args...)
}

// eval runs a parsed script and returns the last command's result.
func (in *interp) eval(cmds []command) (string, error) {
	result := ""
	for _, c := range cmds {
		r, err := in.run(c)
		if err != nil {
			return "", err
		}
		result = r
	}
	return result, nil
}

// evalText parses and runs text, whose first line is line.
func (in *interp) evalText(text string, line int) (string, error) {
	cmds, err := parse(text, line)
	if err != nil {
		return "", asInput(err)
	}
	return in.eval(cmds)
}

// word evaluates a word.
func (in *interp) word(w word, line int) (string, error) {
	var b strings.Builder
	for _, p := range w.parts {
		switch p.kind {
		case literal:
			b.WriteString(p.text)
		case variable:
			v, err := in.variable(p, line)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		case script:
			v, err := in.evalText(p.text, p.line)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

// variable reads a variable: a script's own, or ::env(NAME).
func (in *interp) variable(p part, line int) (string, error) {
	name := strings.TrimPrefix(p.text, "::")
	if name == "env" && p.index != "" {
		if v, ok := in.env.lookupEnv(p.index); ok {
			return v, nil
		}
		return "", inputf("line %d: can't read \"::env(%s)\": the environment has no %s (set it before running the script, as HammerDB's scripts expect)", line, p.index, p.index)
	}
	if p.index != "" {
		return "", inputf("line %d: $%s(%s): arrays other than ::env are Tcl that stampede's HammerDB scripts do not evaluate", line, p.text, p.index)
	}
	v, ok := in.vars[name]
	if !ok {
		return "", inputf("line %d: can't read \"%s\": no such variable (set it first)", line, p.text)
	}
	return v, nil
}

// run runs one command.
func (in *interp) run(c command) (string, error) {
	name, ok := c.words[0].literalText()
	if !ok {
		return "", inputf("line %d: a command name made by substitution is Tcl that stampede's HammerDB scripts do not evaluate", c.line)
	}
	// if, foreach and set take some words unevaluated.
	switch name {
	case "if":
		return in.ifCmd(c)
	case "foreach":
		return in.foreachCmd(c)
	}
	args := make([]string, 0, len(c.words)-1)
	for _, w := range c.words[1:] {
		v, err := in.word(w, c.line)
		if err != nil {
			return "", err
		}
		args = append(args, v)
	}
	if err := in.ctx.Err(); err != nil {
		return "", err
	}
	if f, ok := commands[name]; ok {
		return f(in, c.line, args)
	}
	if advice, ok := notRun[name]; ok {
		return "", inputf("line %d: %s: %s", c.line, name, advice)
	}
	return "", inputf("line %d: %s is not a command stampede's hammerdbcli runs (it runs %s)", c.line, name, commandNames())
}

// commands are the commands stampede runs, by name.
var commands map[string]func(in *interp, line int, args []string) (string, error)

func init() {
	commands = map[string]func(*interp, int, []string) (string, error){
		"puts":           (*interp).puts,
		"set":            (*interp).set,
		"open":           (*interp).open,
		"close":          (*interp).close,
		"exit":           (*interp).exit,
		"dbset":          (*interp).dbset,
		"diset":          (*interp).diset,
		"print":          (*interp).print,
		"loadscript":     (*interp).loadscript,
		"vuset":          (*interp).vuset,
		"vucreate":       (*interp).vucreate,
		"vurun":          (*interp).vurun,
		"vudestroy":      (*interp).vudestroy,
		"buildschema":    (*interp).buildschema,
		"waittocomplete": (*interp).waittocomplete,
		"numberOfCPUs":   (*interp).numberOfCPUs,
		"numberOfWHs":    (*interp).numberOfWHs,
		"tcstart":        (*interp).tc,
		"tcstatus":       (*interp).tc,
		"tcstop":         (*interp).tc,
		"runtimer":       (*interp).runtimer,
	}
}

// commandNames lists the commands stampede runs, in a fixed order.
func commandNames() string {
	return "dbset, diset, print dict, loadscript, buildschema, vuset, vucreate, vurun, vudestroy, waittocomplete, " +
		"tcstart/tcstatus/tcstop, runtimer, numberOfCPUs, numberOfWHs, and Tcl's puts, set, if, foreach, open, close and exit"
}

// notRun are HammerDB's commands stampede does not run, with what to do
// instead.
var notRun = map[string]string{
	"checkschema":      "stampede does not run it in a script: the twelve consistency checks run after every vurun's run; to check by hand: stampede check tpcc --profile hammerdb URL",
	"deleteschema":     "stampede does not drop a HammerDB schema from a script: drop the database yourself (dropdb), as deleteschema does",
	"metstart":         "stampede does not run HammerDB's CPU metrics agent: its runs take --telemetry (stampede run tpcc --help)",
	"metstop":          "stampede does not run HammerDB's CPU metrics agent: its runs take --telemetry (stampede run tpcc --help)",
	"metstatus":        "stampede does not run HammerDB's CPU metrics agent: its runs take --telemetry (stampede run tpcc --help)",
	"metset":           "stampede does not run HammerDB's CPU metrics agent: its runs take --telemetry (stampede run tpcc --help)",
	"jobs":             "stampede keeps no HammerDB jobs database: each vurun's results are a run directory (stampede runs, stampede report)",
	"job":              "stampede keeps no HammerDB jobs database: each vurun's results are a run directory (stampede runs, stampede report)",
	"giset":            "stampede has no HammerDB generic settings to change; remove the line",
	"customscript":     "stampede runs its own HammerDB profile of TPC-C, not a driver script; to measure your own routines, install them and run stampede run tpcc --profile hammerdb --use-installed-routines",
	"savescript":       "stampede has no HammerDB driver script to save",
	"clearscript":      "stampede has no HammerDB driver script to clear; remove the line",
	"custommonitor":    "stampede runs its own HammerDB profile of TPC-C, not a custom script",
	"datagenrun":       "stampede does not generate HammerDB's flat files",
	"dgset":            "stampede does not generate HammerDB's flat files",
	"distributescript": "stampede has no HammerDB primary and replica modes: run several clients with --clients N --client-index I after the script's name",
	"switchmode":       "stampede has no HammerDB primary and replica modes: run several clients with --clients N --client-index I after the script's name",
	"vustatus":         "stampede's virtual users are its run's workers: vurun prints how they ended",
	"vucomplete":       "stampede's vurun returns when its virtual users are complete",
	"librarycheck":     "stampede needs no database client library",
	"tcset":            "stampede's progress lines give the rate every interval (run's --display-every)",
	"source":           "stampede runs one script: give it to stampede hammerdbcli auto SCRIPT.tcl",
	"quit":             "use exit",
	"proc":             "defining procedures is Tcl that stampede's HammerDB scripts do not evaluate",
	"expr":             "expr is Tcl that stampede's HammerDB scripts do not evaluate (if takes a comparison)",
	"incr":             "incr is Tcl that stampede's HammerDB scripts do not evaluate",
	"for":              "for loops are Tcl that stampede's HammerDB scripts do not evaluate (foreach over a list is)",
	"while":            "while loops are Tcl that stampede's HammerDB scripts do not evaluate (foreach over a list is)",
	"after":            "after is Tcl that stampede's HammerDB scripts do not evaluate",
	"catch":            "catch is Tcl that stampede's HammerDB scripts do not evaluate: a failed command ends the script",
	"lappend":          "lappend is Tcl that stampede's HammerDB scripts do not evaluate",
	"file":             "file is Tcl that stampede's HammerDB scripts do not evaluate",
}

// puts prints a string, to standard output or a file open for writing.
func (in *interp) puts(line int, args []string) (string, error) {
	nl := true
	if len(args) > 0 && args[0] == "-nonewline" {
		nl, args = false, args[1:]
	}
	var w io.Writer = in.out
	switch len(args) {
	case 1:
	case 2:
		switch args[0] {
		case "stdout":
		case "stderr":
			w = in.env.Stderr
		default:
			f, ok := in.files[args[0]]
			if !ok {
				return "", inputf("line %d: puts %s: can not find channel named %q (open it first)", line, args[0], args[0])
			}
			w = f
		}
		args = args[1:]
	default:
		return "", inputf("line %d: puts takes one string (and optionally a channel before it): wrong # args, should be \"puts ?-nonewline? ?channelId? string\"", line)
	}
	s := args[0]
	if nl {
		s += "\n"
	}
	if _, err := io.WriteString(w, s); err != nil {
		return "", fmt.Errorf("line %d: puts: %w", line, err)
	}
	return "", nil
}

// set sets (or reads) a variable.
func (in *interp) set(line int, args []string) (string, error) {
	switch len(args) {
	case 1:
		return in.variable(part{kind: variable, text: args[0]}, line)
	case 2:
		name := strings.TrimPrefix(args[0], "::")
		if strings.ContainsAny(name, "()") {
			return "", inputf("line %d: set %s: arrays are Tcl that stampede's HammerDB scripts do not evaluate", line, args[0])
		}
		in.vars[name] = args[1]
		return args[1], nil
	}
	return "", inputf("line %d: set takes a name and a value: wrong # args, should be \"set varName ?newValue?\"", line)
}

// open opens a file for writing (w) or appending (a), as HammerDB's run
// scripts write the jobid to a file.
func (in *interp) open(line int, args []string) (string, error) {
	mode := "r"
	if len(args) == 2 {
		mode = args[1]
	}
	if len(args) < 1 || len(args) > 2 {
		return "", inputf("line %d: open takes a file name and a mode: wrong # args, should be \"open fileName ?access?\"", line)
	}
	flags := 0
	switch mode {
	case "w":
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case "a":
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	default:
		return "", inputf("line %d: open %s %s: stampede's scripts open files for writing only (w or a)", line, args[0], mode)
	}
	f, err := os.OpenFile(args[0], flags, 0o644)
	if err != nil {
		return "", inputf("line %d: couldn't open %q: %v", line, args[0], errors.Unwrap(err))
	}
	in.nfile++
	name := fmt.Sprintf("file%d", in.nfile)
	in.files[name] = f
	return name, nil
}

// close closes a file open opened.
func (in *interp) close(line int, args []string) (string, error) {
	if len(args) != 1 {
		return "", inputf("line %d: close takes a channel: wrong # args, should be \"close channelId\"", line)
	}
	f, ok := in.files[args[0]]
	if !ok {
		return "", inputf("line %d: close %s: can not find channel named %q", line, args[0], args[0])
	}
	delete(in.files, args[0])
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("line %d: close: %w", line, err)
	}
	return "", nil
}

// closeFiles closes the files a script left open.
func (in *interp) closeFiles() error {
	var errs []error
	for name, f := range in.files {
		errs = append(errs, f.Close())
		delete(in.files, name)
	}
	return errors.Join(errs...)
}

// exit ends the script with an exit code.
func (in *interp) exit(line int, args []string) (string, error) {
	code := 0
	if len(args) > 1 {
		return "", inputf("line %d: exit takes an exit code: wrong # args, should be \"exit ?returnCode?\"", line)
	}
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return "", inputf("line %d: exit %s: expected an integer exit code", line, args[0])
		}
		code = n
	}
	in.exitCode, in.exited = code, true
	return "", errExit
}

// ifCmd runs if EXPR ?then? BODY ?elseif EXPR ?then? BODY ...? ?else? BODY.
func (in *interp) ifCmd(c command) (string, error) {
	ws := c.words[1:]
	for {
		if len(ws) < 2 {
			return "", inputf("line %d: if: wrong # args: no expression or script after if/elseif", c.line)
		}
		cond, err := in.cond(ws[0], c.line)
		if err != nil {
			return "", err
		}
		ws = ws[1:]
		if t, _ := ws[0].literalText(); t == "then" {
			ws = ws[1:]
			if len(ws) == 0 {
				return "", inputf("line %d: if: no script after then", c.line)
			}
		}
		body := ws[0]
		ws = ws[1:]
		if cond {
			return in.body(body, c.line)
		}
		if len(ws) == 0 {
			return "", nil
		}
		t, _ := ws[0].literalText()
		switch t {
		case "elseif":
			ws = ws[1:]
			continue
		case "else":
			if len(ws) != 2 {
				return "", inputf("line %d: if: wrong # args: one script after else", c.line)
			}
			return in.body(ws[1], c.line)
		}
		if len(ws) == 1 { // if {c} {a} {b}: the else body without the word else
			return in.body(ws[0], c.line)
		}
		return "", inputf("line %d: if: %q is not elseif or else", c.line, t)
	}
}

// body runs a word as a script (a braced body keeps its lines).
func (in *interp) body(w word, line int) (string, error) {
	if w.braced {
		t, _ := w.literalText()
		return in.evalText(t, w.line)
	}
	t, err := in.word(w, line)
	if err != nil {
		return "", err
	}
	return in.evalText(t, line)
}

// foreachCmd runs foreach VAR LIST BODY.
func (in *interp) foreachCmd(c command) (string, error) {
	if len(c.words) != 4 {
		return "", inputf("line %d: foreach takes one variable, a list and a body: wrong # args (several lists or variables are Tcl that stampede's HammerDB scripts do not evaluate)", c.line)
	}
	name, err := in.word(c.words[1], c.line)
	if err != nil {
		return "", err
	}
	list, err := in.word(c.words[2], c.line)
	if err != nil {
		return "", err
	}
	if strings.ContainsAny(list, "{}\"") || len(strings.Fields(name)) != 1 {
		return "", inputf("line %d: foreach: a list of plain words and one variable are what stampede evaluates", c.line)
	}
	for _, v := range strings.Fields(list) {
		in.vars[strings.TrimPrefix(name, "::")] = v
		if _, err := in.body(c.words[3], c.line); err != nil {
			return "", err
		}
	}
	return "", nil
}
