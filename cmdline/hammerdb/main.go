package hammerdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/run"
)

// Usage is the help of `stampede hammerdbcli`.
const Usage = `Usage: stampede hammerdbcli auto SCRIPT.tcl [--clients N --client-index I] [--tag K=V] [--start-at T] [--results-dir DIR]
       stampede hammerdbcli [options] < SCRIPT.tcl

Runs a HammerDB CLI script of PostgreSQL's TPROC-C as hammerdbcli does:
buildschema runs stampede init tpcc --profile hammerdb, vurun stampede run
tpcc --profile hammerdb, with the settings of its diset lines; HammerDB's
lines (Vuser 1:TEST RESULT : System achieved N NOPM from M PostgreSQL TPM)
and stampede's run directory follow. Each command line is printed before
it runs ("stampede: running: ...").

Commands: dbset db pg, dbset bm TPC-C (TPROC-C), diset connection|tpcc KEY
VALUE (PostgreSQL's keys: print dict), print dict, loadscript, buildschema,
vuset vu N|vcpu, vuset logtotemp 0|1 (and unique, nobuff, timestamps,
showoutput; iterations, delay, repeat at their defaults), vucreate, vurun,
vudestroy, waittocomplete, runtimer, tcstart/tcstatus/tcstop,
numberOfCPUs, numberOfWHs, and Tcl's puts, set, if, foreach, open, close
and exit. Anything else is refused in one line naming it and its line.

Options after the script's name go to vurun's run: two HammerDB instances
against two nodes are two clients of one benchmark (see the examples);
--force-drop goes to buildschema, which then drops tables (and routines) of
HammerDB's names that stampede did not make, where it refuses them without.

Examples:
  stampede hammerdbcli auto pg_tprocc_buildschema.tcl
  stampede hammerdbcli < pg_tprocc_run.tcl
  # two nodes, each script naming its own node; report adds their NOPM
  stampede hammerdbcli auto run_node1.tcl --clients 2 --client-index 0 --tag job=two
  stampede hammerdbcli auto run_node2.tcl --clients 2 --client-index 1 --tag job=two
  stampede report --tag job=two
`

// Env is where a script runs.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Exec runs a stampede command line (the words after stampede),
	// printing to stdout and stderr.
	Exec func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	// Server does what HammerDB does on the server beside stampede's
	// commands (nil: PGServer).
	Server Server
	// LookupEnv reads the environment (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// NumCPU is numberOfCPUs and vuset vu vcpu (0: runtime.NumCPU()).
	NumCPU int
}

func (e Env) lookupEnv(name string) (string, bool) {
	if e.LookupEnv != nil {
		return e.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

func (e Env) numCPU() int {
	if e.NumCPU > 0 {
		return e.NumCPU
	}
	return runtime.NumCPU()
}

func (e Env) server() Server {
	if e.Server != nil {
		return e.Server
	}
	return PGServer{}
}

// Options are the flags after the script's name, passed to vurun's run.
type Options struct {
	// Clients and ClientIndex are --clients and --client-index: this
	// script's runs are client ClientIndex of Clients of one benchmark.
	Clients, ClientIndex int
	// Tags are --tag's, StartAt --start-at, ResultsDir --results-dir.
	Tags                []string
	StartAt, ResultsDir string
	// ForceDrop is --force-drop, for buildschema's init: it drops the
	// tables (and routines) of HammerDB's names that stampede did not
	// make, where init refuses them without it.
	ForceDrop bool
	// given are the options as run's flags, in order.
	given []string
}

// runFlags are the options as run's flags.
func (o Options) runFlags() []string { return o.given }

// parseOptions parses the options after the script's name.
func parseOptions(args []string) (Options, error) {
	var o Options
	fs := pflag.NewFlagSet("hammerdbcli", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.Clients, "clients", 0, "")
	fs.IntVar(&o.ClientIndex, "client-index", 0, "")
	fs.StringArrayVar(&o.Tags, "tag", nil, "")
	fs.StringVar(&o.StartAt, "start-at", "", "")
	fs.StringVar(&o.ResultsDir, "results-dir", "", "")
	fs.BoolVar(&o.ForceDrop, "force-drop", false, "")
	if err := fs.Parse(args); err != nil {
		return o, inputf("hammerdbcli: %v (after the script's name it takes --clients, --client-index, --tag, --start-at and --results-dir, for vurun's run, and --force-drop, for buildschema)", err)
	}
	if fs.NArg() > 0 {
		return o, inputf("hammerdbcli: %q after the script: give one script (options after it: --clients, --client-index, --tag, --start-at, --results-dir, --force-drop)", fs.Arg(0))
	}
	fs.Visit(func(f *pflag.Flag) {
		if f.Name == "tag" || f.Name == "force-drop" {
			return
		}
		o.given = append(o.given, "--"+f.Name, f.Value.String())
	})
	for _, t := range o.Tags {
		o.given = append(o.given, "--tag", t)
	}
	if fs.Changed("client-index") && !fs.Changed("clients") {
		return o, inputf("hammerdbcli: --client-index without --clients: give both (--clients 2 --client-index 0 on one node's script, 1 on the other's)")
	}
	return o, nil
}

// Main runs `stampede hammerdbcli ARGS`: a script named after auto, or
// read from standard input.
func Main(ctx context.Context, args []string, env Env) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		fmt.Fprint(env.Stdout, Usage)
		return nil
	}
	if len(args) > 0 && args[0] == "tcl" { // hammerdbcli tcl auto SCRIPT.tcl: Tcl is the default
		args = args[1:]
	}
	var src []byte
	var err error
	from := "the standard input"
	switch {
	case len(args) == 0 || strings.HasPrefix(args[0], "-"):
		if src, err = io.ReadAll(env.Stdin); err != nil {
			return fmt.Errorf("hammerdbcli: reading the script from standard input: %w", err)
		}
	case args[0] == "auto":
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			return inputf("hammerdbcli auto: name the script to run: stampede hammerdbcli auto SCRIPT.tcl")
		}
		if src, err = os.ReadFile(args[1]); err != nil {
			return inputf("hammerdbcli auto %s: %v", args[1], errors.Unwrap(err))
		}
		from, args = args[1], args[2:]
	case args[0] == "py" || args[0] == "python":
		return inputf("hammerdbcli %s: stampede runs HammerDB's Tcl scripts (stampede hammerdbcli auto SCRIPT.tcl), not its Python ones", args[0])
	default:
		return inputf("hammerdbcli %s: give auto SCRIPT.tcl, or the script on standard input (stampede hammerdbcli < SCRIPT.tcl)", args[0])
	}
	if bytes.IndexByte(src, 0) >= 0 || !utf8.Valid(src) {
		return inputf("hammerdbcli: %s is not a Tcl script (it holds bytes that are not text): give HammerDB's script, such as `stampede hammerdbcli auto SCRIPT.tcl`", from)
	}
	opts, err := parseOptions(args)
	if err != nil {
		return err
	}
	return Run(ctx, string(src), opts, env)
}

// Run runs a script's text.
func Run(ctx context.Context, src string, opts Options, env Env) error {
	cmds, err := parse(src, 1)
	if err != nil {
		return asInput(err)
	}
	in := newInterp(ctx, env, opts)
	_, err = in.eval(cmds)
	if cerr := in.closeFiles(); err == nil && cerr != nil {
		err = cerr
	}
	if errors.Is(err, errExit) {
		if in.exitCode != 0 {
			return exitError(in.exitCode)
		}
		return nil
	}
	if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
		return oneLineError{err}
	}
	return err
}

// oneLineError is an error whose message quotes a script's words with
// line breaks in them (a braced command name) as \n, to keep it one line.
type oneLineError struct{ err error }

func (e oneLineError) Error() string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(e.err.Error())
}
func (e oneLineError) Unwrap() error { return e.err }

// exitError is a script's exit with a code other than 0.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("the script ran exit %d", int(e)) }

// ExitCode is the process's exit code.
func (e exitError) ExitCode() int { return int(e) }

// exec runs a stampede command line, printed first, with HammerDB's
// TEST RESULT line as its Vuser 1 prints it; it returns the run's ID
// when it saved one.
func (in *interp) exec(line int, what string, args []string) (string, error) {
	fmt.Fprintf(in.env.Stderr, "stampede: running: stampede %s\n", strings.Join(redacted(args), " "))
	if in.env.Exec == nil {
		return "", fmt.Errorf("line %d: %s: no way to run stampede here", line, what)
	}
	out := &vuserLines{w: in.out}
	log := &vuserLines{w: in.env.Stderr}
	if err := in.env.Exec(in.ctx, args, out, log); err != nil {
		return "", stepError{fmt.Sprintf("line %d: %s: %v", line, what, err), err}
	}
	if log.saved == "" {
		return out.saved, nil
	}
	return log.saved, nil
}

// redacted is args with a URL's password as xxxxx.
func redacted(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.HasPrefix(a, "postgresql://") {
			if at := strings.LastIndex(a, "@"); at > 0 {
				if colon := strings.Index(a[len("postgresql://"):at], ":"); colon >= 0 {
					out[i] = a[:len("postgresql://")+colon+1] + "xxxxx" + a[at:]
				}
			}
		}
	}
	return out
}

// stepError is a failed stampede command of a script, naming the line.
type stepError struct {
	msg string
	err error
}

func (e stepError) Error() string { return e.msg }
func (e stepError) Unwrap() error { return e.err }

// resultFigure is the figure of run tpcc --profile hammerdb whose text is
// HammerDB's TEST RESULT line.
const resultFigure = "hammerdb_nopm"

// vuserLines passes on what it is written, with the result line that
// HammerDB's monitor virtual user prints (TEST RESULT : ...) as it
// prints it (Vuser 1:TEST RESULT : ...), and notes where the run was
// saved.
type vuserLines struct {
	w     io.Writer
	mid   bool // the last write ended inside a line
	saved string
}

// Write implements io.Writer.
func (v *vuserLines) Write(p []byte) (int, error) {
	var out []byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !v.mid {
			if bytes.HasPrefix(line, []byte("TEST RESULT : ")) {
				out = append(out, "Vuser 1:"...)
			}
			// run tpcc --profile hammerdb prints it as its figure
			// hammerdb_nopm: the figure's line, then HammerDB's.
			if res, ok := bytes.CutPrefix(bytes.TrimLeft(line, " "), []byte(resultFigure+": ")); ok && bytes.HasPrefix(res, []byte("TEST RESULT : ")) {
				out = append(append(append(out, line...), "Vuser 1:"...), res...)
				v.mid = res[len(res)-1] != '\n'
				continue
			}
			if dir, ok := bytes.CutPrefix(line, []byte("results saved in ")); ok {
				v.saved = savedID(string(bytes.TrimSpace(dir)))
			}
		}
		out = append(out, line...)
		v.mid = line[len(line)-1] != '\n'
	}
	if _, err := v.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// savedID is the run's ID from "results saved in DIR" or "... the
// results store (run ID)".
func savedID(s string) string {
	if id, ok := strings.CutPrefix(s, "the results store (run "); ok {
		return strings.TrimSuffix(id, ")")
	}
	if i := strings.Index(s, ", but"); i >= 0 {
		s = s[:i]
	}
	return filepath.Base(s)
}

// vurun runs the loaded script (loading it and creating the virtual
// users first if not done): stampede run tpcc --profile hammerdb.
func (in *interp) vurun(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: vurun takes no arguments", line)
	}
	if err := in.mustPG(line, "vurun"); err != nil {
		return "", err
	}
	if !in.created {
		if _, err := in.vucreate(line, nil); err != nil {
			return "", err
		}
	}
	v := in.loaded
	c := conn(v)
	srv := in.env.server()
	wh, err := srv.Warehouses(in.ctx, c)
	if err != nil {
		return "", stepError{fmt.Sprintf("line %d: vurun: %v", line, err), err}
	}
	if cw := v["pg_count_ware"]; cw != "1" && cw != strconv.Itoa(wh) {
		fmt.Fprintf(in.env.Stderr, "note: line %d: pg_count_ware %s is buildschema's: vurun runs the %d warehouses database %s holds, as HammerDB's driver does\n", line, cw, wh, c.DB)
	}
	timed := v["pg_driver"] == "timed"
	in.printf("Vuser 1:RUNNING")
	if timed {
		in.printf("Vuser 1:Beginning rampup time of %s minutes", v["pg_rampup"])
		in.printf("Vuser 1:%d Active Virtual Users configured", in.vu)
	}
	if on(v, "pg_timeprofile") {
		fmt.Fprintf(in.env.Stderr, "note: pg_timeprofile true: stampede measures every transaction's latency (its figures below, and stampede report)\n")
	}
	id, err := in.exec(line, "vurun", RunArgs(v, in.vu, wh, in.opts))
	if err != nil {
		return "", err
	}
	if timed && on(v, "pg_vacuum") {
		in.printf("Vuser 1:Checkpoint and Vacuum")
		if err := srv.Vacuum(in.ctx, c); err != nil {
			return "", stepError{fmt.Sprintf("line %d: vurun: pg_vacuum: %v", line, err), err}
		}
		in.printf("Vuser 1:Checkpoint and Vacuum Complete")
	}
	in.printf("Vuser 1:FINISHED SUCCESS")
	in.printf("ALL VIRTUAL USERS COMPLETE")
	if id == "" {
		return "Benchmark Run (No jobid)", nil
	}
	return "Benchmark Run jobid=" + id, nil
}

// buildschema builds HammerDB's schema: the user and database as
// HammerDB creates them, then stampede init tpcc --profile hammerdb.
func (in *interp) buildschema(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: buildschema takes no arguments", line)
	}
	if err := in.mustPG(line, "buildschema"); err != nil {
		return "", err
	}
	if in.created {
		return "", inputf("line %d: buildschema: Cannot build schema with Virtual Users active, destroy Virtual Users first (vudestroy)", line)
	}
	v := in.values
	cw, _ := strconv.Atoi(v["pg_count_ware"])
	vu, _ := strconv.Atoi(v["pg_num_vu"])
	if vu > cw {
		return "", inputf("line %d: buildschema: Build virtual users must be less than or equal to number of warehouses: you have %d virtual users building %d warehouses (diset tpcc pg_num_vu %d or less)", line, vu, cw, cw)
	}
	if in.opts.Clients > 0 {
		fmt.Fprintf(in.env.Stderr, "note: line %d: buildschema builds all %d warehouses on %s:%s; --clients applies to vurun\n", line, cw, v["pg_host"], v["pg_port"])
	}
	in.loaded = nil
	in.printf("Script cleared")
	if vu == 1 {
		in.vu = 1
		in.printf("Building %d Warehouses(s) with 1 Virtual User", cw)
	} else {
		in.vu = vu + 1
		in.printf("Building %d Warehouses with %d Virtual Users, %d active + 1 Monitor VU(dict value pg_num_vu is set to %d)", cw, vu+1, vu, vu)
	}
	// What the load would refuse, or fail over, is refused before the
	// user and the database are created.
	if bc, ok := in.env.server().(BuildChecker); ok {
		if err := bc.CheckBuild(in.ctx, conn(v), in.opts.ForceDrop); err != nil {
			return "", stepError{fmt.Sprintf("line %d: buildschema: %v", line, err), err}
		}
	}
	in.printf("Vuser 1:RUNNING")
	in.printf("Vuser 1:CREATING TPCC SCHEMA")
	lines, err := in.env.server().Prepare(in.ctx, conn(v))
	for _, l := range lines {
		in.printf("Vuser 1:%s", l)
	}
	if err != nil {
		return "", stepError{fmt.Sprintf("line %d: buildschema: %v", line, err), err}
	}
	in.created = true
	initArgs := InitArgs(v)
	if in.opts.ForceDrop {
		initArgs = append(initArgs[:len(initArgs)-1:len(initArgs)-1], "--force-drop", initArgs[len(initArgs)-1])
	}
	if _, err := in.exec(line, "buildschema", initArgs); err != nil {
		return "", err
	}
	in.printf("Vuser 1:TPCC SCHEMA COMPLETE")
	in.printf("Vuser 1:FINISHED SUCCESS")
	in.printf("ALL VIRTUAL USERS COMPLETE")
	return "Schema Build (No jobid)", nil
}

// inputError is an error of a script or its command line; it matches
// run.ErrInput (exit code 2).
type inputError struct{ err error }

func (e inputError) Error() string        { return e.err.Error() }
func (e inputError) Unwrap() error        { return e.err }
func (e inputError) Is(target error) bool { return target == run.ErrInput }

func inputf(format string, args ...any) error { return inputError{fmt.Errorf(format, args...)} }

// asInput marks a script's syntax error as bad input.
func asInput(err error) error {
	if err == nil || errors.Is(err, run.ErrInput) {
		return err
	}
	return inputError{err}
}
