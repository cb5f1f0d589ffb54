package sysbench

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/run"
)

// Scripts are the sysbench 1.0.20 Lua scripts stampede runs, each as the
// workload of the same name.
var Scripts = []string{
	"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_insert", "oltp_delete",
	"oltp_update_index", "oltp_update_non_index", "bulk_insert", "select_random_points", "select_random_ranges",
}

// builtinTests are sysbench's compiled-in tests, which are not database
// workloads.
var builtinTests = map[string]string{
	"cpu":     "measures the CPU",
	"fileio":  "measures file I/O",
	"memory":  "measures memory bandwidth",
	"threads": "measures thread scheduling",
	"mutex":   "measures mutexes",
}

// Defaults are sysbench's pgsql driver's connection defaults, which a
// sysbench command line gets for each --pgsql-* option it leaves out
// (unless it gives a URL).
var Defaults = []struct{ Name, Value string }{
	{"pgsql-host", "localhost"},
	{"pgsql-port", "5432"},
	{"pgsql-user", "sbtest"},
	{"pgsql-db", "sbtest"},
}

// SyntaxFlag is the flag Parse gives `run`, `init` and `cleanup`: it
// tells stampede's flags that the command line is sysbench's (see
// cmdline.RunFlags and cmdline.Init), so that sysbench's defaults and
// meanings apply (--threads=1, --time=10, one --events count, --rate's
// queue, sysbench's output, prepare's and cleanup's lines).
const SyntaxFlag = "--sysbench-syntax"

// Line is a sysbench command line turned into stampede's.
type Line struct {
	// Script is the workload, the script's name without .lua; Name is
	// the script as the line names it (its base name).
	Script, Name string
	// Command is sysbench's command: prepare, run, cleanup, check or
	// help; version for --version.
	Command string
	// Args is stampede's command line for it (without the program
	// name): VERB WORKLOAD, then the flags and URLs. Empty for help and
	// version.
	Args []string
	// Warnings are to be printed before the command runs, one per line.
	Warnings []string
	// Secrets are passwords the line's config file holds, to scrub from
	// what is printed and saved.
	Secrets []string
}

// Flags returns the flags stampede's `run` and `init` of a workload take
// (the workload's own, the connection's, the run's), so that Parse can
// tell which of them take a value from the next argument.
type Flags func(workload string) *pflag.FlagSet

// verbs are sysbench's commands and stampede's verb for each.
var verbs = map[string]string{
	"prepare": "init", "run": "run", "cleanup": "cleanup", "help": "help",
	"check":   "check", // stampede's own
	"prewarm": "",      // oltp_common.lua's, MySQL only
}

// Recognize reports whether args are a sysbench command line: its first
// word that is not an option names a sysbench script (oltp_read_write,
// oltp_insert.lua, /usr/share/sysbench/bulk_insert.lua, or any other
// .lua path) or one of sysbench's compiled-in tests, and only sysbench's
// --name=value options come before it.
func Recognize(args []string) bool {
	args, _ = moveTest(args)
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			if !strings.Contains(a, "=") {
				return false // a flag whose value may be the next word
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			return false
		}
		base := path.Base(a)
		_, builtin := builtinTests[a]
		return strings.HasSuffix(base, ".lua") || slices.Contains(Scripts, base) || builtin
	}
	return false
}

// deprecatedTest is sysbench's warning for --test=SCRIPT, which it still
// takes (sysbench 0.5's form, in many published command lines).
const deprecatedTest = "the --test option is deprecated. You can pass a script name or path on the command line without any options."

// moveTest returns args with sysbench's deprecated --test=SCRIPT replaced
// by SCRIPT, put first, as sysbench takes it for the script whatever its
// place; moved says it was there.
func moveTest(args []string) (out []string, moved bool) {
	var script string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--test="); ok && v != "" {
			script, moved = v, true
			continue
		}
		out = append(out, a)
	}
	if !moved {
		return args, false
	}
	return append([]string{script}, out...), true
}

// opt is one option of the line: sysbench's (sb set) or one to pass
// through.
type opt struct {
	name, value string
	hasValue    bool
	sb          *option
	raw         []string // the arguments of a pass-through option
}

// Parse turns a sysbench command line (Recognize) into stampede's: the
// script as the workload, sysbench's command as stampede's verb, and each
// option as stampede's flag or refused with the reason, in one line.
// Options the workload or stampede itself has (--tables, --results-dir
// DIR, ...) pass through as they are; flags says which take a value.
// Errors match run.ErrInput.
func Parse(args []string, flags Flags) (*Line, error) {
	args, moved := moveTest(args)
	// The script first: it says which flags pass through with a value.
	var script, name string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			base := path.Base(a)
			if what, ok := builtinTests[a]; ok {
				return nil, inputf("sysbench's %s test %s, not a database: stampede runs sysbench's OLTP scripts (%s)", a, what, scriptList())
			}
			s := strings.TrimSuffix(base, ".lua")
			if !slices.Contains(Scripts, s) {
				if path.Ext(a) == ".lua" {
					return nil, inputf("unknown sysbench script %q: stampede runs only its own implementation of sysbench 1.0.20's bundled scripts (%s), never a script's Lua: run this one with sysbench", a, scriptList())
				}
				return nil, inputf("unknown sysbench script %q: stampede runs %s", a, scriptList())
			}
			if err := checkBundled(a, s); err != nil {
				return nil, err
			}
			script, name = s, base
			break
		}
	}
	if script == "" {
		return nil, inputf("name a sysbench script: `stampede oltp_read_write [options] prepare|run|cleanup|help`")
	}
	fs := pflag.NewFlagSet(script, pflag.ContinueOnError)
	if flags != nil {
		fs = flags(script)
	}
	l := &Line{Script: script, Name: name}
	if moved {
		l.Warnings = append(l.Warnings, deprecatedTest)
	}
	expanded, err := expandConfig(args, l, 0)
	if err != nil {
		return nil, err
	}
	opts, words, err := l.scan(expanded, fs)
	if err != nil {
		return nil, err
	}
	command, urls, err := commandOf(words)
	if err != nil {
		return nil, err
	}
	if command == "" {
		if slices.ContainsFunc(opts, func(o opt) bool { return o.sb != nil && (o.name == "help" || o.name == "version") }) {
			command = "run" // for --help or --version alone
		} else {
			return nil, inputf("say what to do with %s: `stampede %s [options] prepare|run|cleanup|help` (sysbench's commands, and check)", name, name)
		}
	}
	if command == "prewarm" {
		return nil, inputf("prewarm is MySQL only in sysbench 1.0.20's scripts (it loads InnoDB's buffer pool); PostgreSQL's equivalent is the pg_prewarm extension")
	}
	l.Command = command
	verb := verbs[command]

	out, given, help, version, err := l.stampedeFlags(opts, verb)
	if err != nil {
		return nil, err
	}
	switch {
	case version:
		l.Command = "version"
		return l, nil
	case help:
		l.Args = append([]string{verbOr(verb), script}, "--help")
		return l, nil
	case verb == "help":
		return l, nil
	}
	if len(urls) == 0 {
		for _, d := range Defaults {
			if !given[d.Name] && !(d.Name == "pgsql-db" && given["db"]) {
				out = append(out, "--"+d.Name+"="+d.Value)
			}
		}
	}
	l.Args = append([]string{verb, script}, out...)
	if verb == "run" || verb == "init" || verb == "cleanup" {
		l.Args = append(l.Args, SyntaxFlag)
	}
	l.Args = append(l.Args, urls...)
	return l, nil
}

// Command parses a sysbench command line (see Parse) and does what comes
// before stampede's command runs: it prints the line's warnings on stderr
// and, for sysbench's help command, the script's options on stdout (see
// WriteHelp), or for --version sysbench's version line, which is all
// there is to do (done).
func Command(args []string, flags Flags, stdout, stderr io.Writer, version string) (l *Line, done bool, err error) {
	if l, err = Parse(args, flags); err != nil {
		return nil, false, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	switch {
	case l.Command == "version":
		// sysbench prints its version alone; scripts read its second word.
		_, err := fmt.Fprintf(stdout, "sysbench %s (using stampede %s)\n", report.SysbenchVersion, version)
		return l, true, err
	case l.Command == "help" && l.Args == nil:
		return l, true, WriteHelp(stdout, l, version)
	}
	return l, false, nil
}

// stampedeFlags turns the line's options, in their order, into stampede's
// flags for verb: sysbench's checked, mapped or refused, the others as
// they are. given says which flags the line set (and "db" for --db); help
// and version say that --help or --version is on.
func (l *Line) stampedeFlags(opts []opt, verb string) (out []string, given map[string]bool, help, version bool, err error) {
	given = map[string]bool{}
	values := map[string]string{} // sysbench's options' last values
	defer func() {
		if err != nil || help || version {
			return
		}
		if values["histogram"] == "true" && values["percentile"] != "" && mustFloat(values["percentile"]) == 0 {
			err = inputf("--histogram cannot be used with --percentile=0 (nor can it in sysbench): drop one of them")
		}
	}()
	for _, o := range opts {
		if o.sb == nil {
			if canonical(strings.TrimLeft(strings.SplitN(o.raw[0], "=", 2)[0], "-")) == "db" {
				given["db"] = true
			}
			out = append(out, o.raw...)
			continue
		}
		s := *o.sb
		v, err := s.check(o.name, o.value, o.hasValue)
		if err != nil {
			return nil, nil, false, false, err
		}
		flag := o.name
		switch s.use {
		case useRefuse:
			return nil, nil, false, false, inputf("--%s is not supported: %s", o.name, s.why)
		case useOff:
			if v == "true" {
				return nil, nil, false, false, inputf("--%s is not supported: %s", o.name, s.why)
			}
			continue
		case useSpecial:
			switch o.name {
			case "help":
				help = help || v == "true"
				continue
			case "version":
				version = version || v == "true"
				continue
			case "db-driver":
				if v != "pgsql" {
					return nil, nil, false, false, inputf("unsupported --db-driver %q: stampede speaks PostgreSQL's protocol only (PostgreSQL, CockroachDB, YugabyteDB...): use --db-driver=pgsql", v)
				}
				continue // stampede's only driver
			default: // a deprecated alias
				l.Warnings = append(l.Warnings, s.why)
				flag = s.as
				s = options[flag]
			}
		}
		if flag == "forced-shutdown" {
			if err := forcedShutdown(v); err != nil {
				return nil, nil, false, false, err
			}
		}
		if flag == "verbosity" && mustFloat(v) > 3 {
			return nil, nil, false, false, inputf("--verbosity=%s is not supported: stampede has no debug log (sysbench's 4 and 5); it records every error in the run directory's events.ndjson: use 0 to 3", v)
		}
		if strings.HasPrefix(flag, "rand-") && flag != "rand-seed" && l.Script == "bulk_insert" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("--%s has no effect on bulk_insert, which draws no random numbers (nor does it in sysbench)", o.name))
			continue
		}
		given[flag] = true
		values[flag] = v
		switch s.use {
		case useRun:
			if verb != "run" {
				continue // taken and unused, as sysbench's prepare and cleanup do
			}
		case useLoad:
			if verb != "run" && verb != "init" && !(flag == "threads" && (verb == "cleanup" || verb == "check")) {
				continue
			}
		}
		out = append(out, "--"+flag+"="+v)
	}
	return out, given, help, version, nil
}

// scan sorts the arguments (the script's word first) into options, in
// their order, and the other words; it refuses the MySQL driver's options
// and the script options stampede lacks, and warns about those it
// ignores. fs tells which pass-through flags take the next argument.
func (l *Line) scan(args []string, fs *pflag.FlagSet) (opts []opt, words []string, err error) {
	seenScript := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !strings.HasPrefix(a, "-") || a == "-":
			if seenScript {
				words = append(words, a)
			}
			seenScript = true
			continue
		case a == "--":
			return opts, append(words, args[i+1:]...), nil
		case !strings.HasPrefix(a, "--"):
			opts = append(opts, opt{raw: []string{a}}) // a short flag (-h)
			continue
		}
		n, v, hasValue := strings.Cut(a[2:], "=")
		c := canonical(n)
		if o, ok := options[c]; ok {
			opts = append(opts, opt{name: c, value: v, hasValue: hasValue, sb: &o})
			continue
		}
		if slices.Contains(mysqlOptions, c) {
			return nil, nil, inputf("--%s is the MySQL driver's: stampede speaks PostgreSQL's protocol only (--db-driver=pgsql, with --pgsql-host, --pgsql-port, --pgsql-user, --pgsql-password, --pgsql-db)", n)
		}
		if so, ok := scriptOptions[strings.ReplaceAll(n, "-", "_")]; ok {
			if so.refuse {
				return nil, nil, inputf("--%s: %s", n, so.why)
			}
			l.Warnings = append(l.Warnings, fmt.Sprintf("--%s is %s", n, so.why))
			continue
		}
		if l.Script == "bulk_insert" && slices.Contains(oltpCommon, strings.ReplaceAll(n, "-", "_")) {
			l.Warnings = append(l.Warnings, fmt.Sprintf("--%s has no effect on bulk_insert, which has no options of its own (sysbench's takes it and ignores it)", n))
			continue
		}
		o := opt{raw: []string{a}}
		if f := lookup(fs, n); f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
			o.raw = append(o.raw, args[i+1])
			i++
		}
		opts = append(opts, o)
	}
	return opts, words, nil
}

// commandOf finds sysbench's command among the words after the script,
// and the connection URLs (stampede's), refusing any other word.
func commandOf(words []string) (command string, urls []string, err error) {
	for _, w := range words {
		switch {
		case strings.Contains(w, "://") || strings.Contains(w, "="):
			urls = append(urls, w)
		case command == "":
			if _, ok := verbs[w]; !ok {
				return "", nil, inputf("unknown command %q: sysbench's scripts take prepare, run, cleanup or help (and stampede's check)", w)
			}
			command = w
		default:
			return "", nil, inputf("unexpected argument %q: a sysbench command line is SCRIPT [options] COMMAND, with one command (here %s)", w, command)
		}
	}
	return command, urls, nil
}

// verbOr is verb, or run for sysbench's help.
func verbOr(verb string) string {
	if verb == "help" {
		return "run"
	}
	return verb
}

// expandConfig replaces each --config-file=PATH of args by the options
// the file holds (see readConfig), recording their passwords.
func expandConfig(args []string, l *Line, depth int) ([]string, error) {
	var out []string
	for _, a := range args {
		n, v, ok := strings.Cut(a, "=")
		if !strings.HasPrefix(n, "--") || canonical(n[2:]) != "config-file" {
			out = append(out, a)
			continue
		}
		if !ok || v == "" {
			return nil, inputf("--config-file needs a file: --config-file=FILENAME")
		}
		if depth >= maxConfigDepth {
			return nil, inputf("--config-file %s: config files nested more than %d deep", v, maxConfigDepth)
		}
		opts, err := readConfig(v)
		if err != nil {
			return nil, err
		}
		for _, o := range opts {
			if strings.HasPrefix(o, "--pgsql-password=") {
				if p := strings.TrimPrefix(o, "--pgsql-password="); p != "" {
					l.Secrets = append(l.Secrets, p)
				}
			}
		}
		opts, err = expandConfig(opts, l, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, opts...)
	}
	return out, nil
}

// lookup finds a flag of fs by the name given, or with underscores for
// dashes or dashes for underscores.
func lookup(fs *pflag.FlagSet, name string) *pflag.Flag {
	for _, n := range []string{name, strings.ReplaceAll(name, "-", "_"), strings.ReplaceAll(name, "_", "-")} {
		if f := fs.Lookup(n); f != nil {
			return f
		}
	}
	return nil
}

// mustFloat is a checked number's value.
func mustFloat(s string) float64 {
	var f float64
	_, _ = fmt.Sscan(s, &f)
	return f
}

// scriptList names the scripts stampede runs.
func scriptList() string {
	names := make([]string, len(Scripts))
	for i, s := range Scripts {
		names[i] = s + ".lua"
	}
	return strings.Join(names, ", ")
}

// inputError is an error of the command line: it matches run.ErrInput
// (exit code 2).
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == run.ErrInput }

func inputf(format string, args ...any) error {
	return inputError{fmt.Sprintf(format, args...)}
}
