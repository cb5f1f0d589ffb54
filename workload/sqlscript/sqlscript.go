// Package sqlscript is the `sql` workload: users' own scripts in
// pgbench's script language (package pgscript), chosen by weight as
// pgbench chooses them, with an optional init file that creates and
// loads their tables and a check file that verifies them.
package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/pgscript/prng"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

const details = `Your own SQL, in pgbench's script language, so the same files run in pgbench
and here. Each -f FILE[@WEIGHT] is a script: one operation (a transaction, if
it holds BEGIN ... COMMIT) chosen by weight as pgbench chooses. A script holds
SQL statements ended by semicolons and pgbench's meta-commands: \set NAME
EXPRESSION (pgbench's expressions: random, random_zipfian, hash, permute, ...),
:NAME in a statement for a variable's value, \gset or \aset after a query to
keep its values, \if / \elif / \else / \endif, \sleep N [us|ms|s]. The
variables :client_id and :scale are built in; -D NAME=VALUE sets others.
\shell and \setshell are refused.

Every statement's latency is reported under its name, the comment
"-- name: NAME" above it, else FILE:LINE (FILE:LINE:N for the Nth of
several statements on one line), beside each script's (a script is named
by its file's name, without its directory; the second script of one name,
or a file given twice, is NAME#2, its statements NAME#2:LINE).
Statements are prepared once per connection (--protocol prepared, pgbench's
-M prepared); --protocol extended or simple sends them as pgbench does.

init runs --init-file FILE (SQL statements, and COPY ... FROM STDIN with its
rows up to a line \.) and marks every object it creates (schemas, tables,
views, sequences, types, functions, and indexes and triggers on your tables)
as stampede's, so that cleanup drops them, dependents first and without
CASCADE, and nothing else (a file that fails on the server keeps what it
made before, marked: cleanup drops it). A file that drops, alters, empties or
changes the rows of (TRUNCATE, DELETE, UPDATE) a table of yours is refused
before it runs; --force-drop runs it.
cleanup --cleanup-file FILE runs your own drop.sql first. check runs
--check-file FILE in read-only transactions: a query passes when it returns
rows whose every column is true. -f - reads a script from the standard input.

Examples:
  stampede init sql --init-file schema.sql 'postgresql://postgres@localhost:5432/app'
  stampede run sql -f read.sql@10 -f write.sql@1 --duration 60s 'postgresql://postgres@localhost:5432/app'
  stampede run sql -f point.sql -D maxid=100000 --max-rate 5000 --duration 5m 'postgresql://postgres@localhost:5432/app'
  stampede check sql --check-file checks.sql 'postgresql://postgres@localhost:5432/app'
  stampede cleanup sql --cleanup-file drop.sql 'postgresql://postgres@localhost:5432/app'`

var meta = workload.Meta{
	Name:        "sql",
	Description: "your own SQL scripts in pgbench's script language, chosen by weight (-f FILE@W)",
	Details:     details,
	Version:     "1.0.0",
	New:         newGen,
}

func init() {
	workload.Register(meta)
}

// gen is the generator.
type gen struct {
	flags workload.Flags

	files       []string
	builtins    []string
	order       []scriptArg // -f and -b in command-line order
	vacuum      bool
	vacAll      bool
	defines     []string
	protocol    string
	scale       int64
	initFile    string
	checkFile   string
	cleanupFile string
	// dropped says init's --drop dropped what an earlier init sql made
	// (DropMade) before the file runs: an object that the file then
	// finds in its way is not init sql's, and --drop is no remedy.
	dropped bool
	// verb is the command (SetVerb): "" when not told, and then every
	// file given is read.
	verb     string
	every    bool
	maxTries int
	// truncHistory empties pgbench_history before the run even when
	// stampede did not make it (--truncate-history).
	truncHistory bool
	// copied is the database's refusal as a copy a user made of the
	// database stampede loaded, read before the run's workers hold the
	// pool's connections (nil when it is none): --vacuum-first would
	// empty its pgbench_history.
	copied *workload.CopiedDatabaseError
	// unlimited is --unlimited-tries (pgbench's --max-tries 0), and
	// triesWithin --tries-within (pgbench's -L, which bounds the tries'
	// time).
	unlimited   bool
	triesWithin time.Duration
	// deadline is when the run's duration ends (Unix ns; 0 without
	// one): as pgbench's, no transaction is tried again after it.
	deadline atomic.Int64
	// logPrefix, jobs and sampling are pgbench's -l, --log-prefix, -j
	// and --sampling-rate (see txLog).
	// reconnect is pgbench's -C: a new connection for every script.
	reconnect bool
	logPrefix string
	jobs      int
	sampling  float64
	aggregate int
	// logDetailed writes a failure's type in the log, as pgbench's
	// --failures-detailed does (--log-failures-detailed).
	logDetailed bool
	// verbose is pgbench's --verbose-errors: each serialization failure
	// or deadlock, and what followed it, said on errOut (stderr).
	verbose bool
	errOut  io.Writer
	// asPgbench (AsPgbench) leaves a statement the server refuses (a
	// missing table, a syntax error) to fail when it runs, aborting its
	// client, and prints every notice the run gets, as pgbench does.
	asPgbench bool
	// forceDrop is --force-drop: cleanup and --drop drop a table init
	// made that holds rows of a user's table it is attached to.
	forceDrop bool
	// judged is set once CheckInit judged the init file: init's load
	// does not judge it again after --drop.
	judged bool
	// retried and retries count by script, for pgbench's report, the
	// transactions retried and their retries (under --max-tries).
	retried, retries []atomic.Int64
	// skipped counts by script the transactions skipped under a rate
	// (--skip-late), for pgbench's report.
	skipped []atomic.Int64
	// keepMoments (KeepMoments) keeps moments, each worker's exact
	// latency and lag moments by script, for pgbench's report.
	keepMoments bool
	moments     []*scriptMoments
	// partMethod and partitions are how pgbench_accounts is partitioned
	// ("range" or "hash", "" when it is not), read as pgbench reads it
	// before a built-in script (readPartitions).
	partMethod string
	partitions int

	// Parsed by validate.
	scripts []*pgscript.Script
	// renamed says each statement whose `-- name:` was taken, and the
	// name it runs under (distinctStatements): run sql warns of them.
	renamed []string
	defs    map[string]string
	proto   sqlx.Protocol
	// loaded is the rows the init file wrote.
	loaded int64
	// prog is the program of the run, once Ops made it; db its DB.
	prog atomic.Pointer[pgscript.Program]
	db   atomic.Pointer[sqlx.DB]
	// part is this client's index and the clients' count (--clients).
	index, count int
}

func newGen() workload.Generator {
	g := &gen{errOut: os.Stderr}
	fs := pflag.NewFlagSet("sql", pflag.ContinueOnError)
	fs.VarP(scriptFlag{false, &g.files, &g.order}, "file", "f", "a script to run, FILE or FILE@WEIGHT (repeat for several; pgbench's -f)")
	fs.VarP(scriptFlag{true, &g.builtins, &g.order}, "builtin", "b", "one of pgbench's built-in scripts, NAME or NAME@WEIGHT: tpcb-like, simple-update, select-only (pgbench's -b; they use pgbench's tables, which stampede init pgbench loads)")
	fs.BoolVar(&g.vacuum, "vacuum-first", false, "before the run, vacuum pgbench_branches and pgbench_tellers and empty pgbench_history, as pgbench does without -n (pgbench_history only when stampede made it)")
	fs.BoolVar(&g.truncHistory, "truncate-history", false, "with --vacuum-first, empty pgbench_history even when stampede did not make it, as pgbench does (stampede pgbench gives it)")
	fs.BoolVar(&g.vacAll, "vacuum-accounts", false, "with --vacuum-first, vacuum pgbench_accounts too, as pgbench -v does")
	fs.StringArrayVarP(&g.defines, "define", "D", nil, "set a variable every client starts with, NAME=VALUE (repeatable; pgbench's -D)")
	fs.StringVarP(&g.protocol, "protocol", "M", "prepared", "how statements are sent: prepared, extended or simple (pgbench's -M)")
	fs.Int64Var(&g.scale, "scale", 1, "the value of the :scale variable (pgbench's -s)")
	fs.IntVar(&g.maxTries, "max-tries", 0, "pgbench's --max-tries: run a script at most this many times when it fails with a serialization failure or deadlock, then count it failed and go on (0: stampede's retries, up to 100, counted as tolerated errors)")
	fs.BoolVar(&g.unlimited, "unlimited-tries", false, "pgbench's --max-tries 0: try a script that fails with a serialization failure or deadlock again until it succeeds, the run ends, or --tries-within has passed (give --duration or --tries-within)")
	fs.DurationVar(&g.triesWithin, "tries-within", 0, "with --max-tries or --unlimited-tries, try a script again only while less than this has passed since its start (its scheduled start under a rate), as pgbench's -L bounds its tries")
	fs.BoolVar(&g.verbose, "verbose-errors", false, "with --max-tries, say each serialization failure or deadlock on stderr, and whether the transaction is tried again or failed, as pgbench's --verbose-errors does")
	fs.BoolVar(&g.reconnect, "connect-each", false, "open a new connection for every script, its time inside the script's latency (pgbench's -C)")
	fs.StringVar(&g.logPrefix, "log-prefix", "", "write pgbench's per-transaction log (pgbench -l) to PREFIX.PID, and PREFIX.PID.N for --jobs threads after the first")
	fs.BoolVar(&g.logDetailed, "log-failures-detailed", false, "with --log-prefix, write a failed transaction's type (serialization or deadlock) where the log says failed, as pgbench's --failures-detailed does")
	fs.IntVar(&g.jobs, "jobs", 1, "pgbench's -j: the threads the clients are dealt to, which split the transaction log (stampede's workers are goroutines)")
	fs.IntVar(&g.aggregate, "aggregate-interval", 0, "with --log-prefix, log per interval of this many seconds instead of per transaction (pgbench's --aggregate-interval)")
	fs.Float64Var(&g.sampling, "sampling-rate", 1, "with --log-prefix, the fraction of transactions logged (pgbench's --sampling-rate)")
	fs.BoolVarP(&g.every, "report-per-command", "r", false, "measure every command, meta-commands too, as pgbench's -r reports them")
	fs.StringVar(&g.initFile, "init-file", "", "SQL that init runs to create and load the tables (COPY ... FROM STDIN allowed)")
	fs.StringVar(&g.checkFile, "check-file", "", "queries that check runs, read-only; each passes when it returns rows whose every column is true")
	fs.StringVar(&g.cleanupFile, "cleanup-file", "", "SQL that cleanup runs first (your own drop.sql), before it drops what init made (COPY refused)")
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{
		"file":                  {RuntimeOnly: true},
		"builtin":               {RuntimeOnly: true},
		"vacuum-first":          {RuntimeOnly: true},
		"truncate-history":      {RuntimeOnly: true},
		"define":                {RuntimeOnly: true},
		"protocol":              {RuntimeOnly: true},
		"scale":                 {RuntimeOnly: true},
		"report-per-command":    {RuntimeOnly: true},
		"max-tries":             {RuntimeOnly: true},
		"verbose-errors":        {RuntimeOnly: true},
		"unlimited-tries":       {RuntimeOnly: true},
		"tries-within":          {RuntimeOnly: true},
		"log-prefix":            {RuntimeOnly: true},
		"connect-each":          {RuntimeOnly: true},
		"jobs":                  {RuntimeOnly: true},
		"sampling-rate":         {RuntimeOnly: true},
		"log-failures-detailed": {RuntimeOnly: true},
		"aggregate-interval":    {RuntimeOnly: true},
		"init-file":             {LoadOnly: true, Only: "init"},
		"check-file":            {RuntimeOnly: true, Check: true, Only: "check"},
		"cleanup-file":          {RuntimeOnly: true, Only: "cleanup"},
	}}
	return g
}

// Meta implements the Generator interface.
func (g *gen) Meta() workload.Meta { return meta }

// RunDefaults implements workload.RunDefaulter: each worker holds its
// connection through a script, so that a fleet's tenants get one per
// worker.
func (g *gen) RunDefaults() workload.RunDefaults {
	return workload.RunDefaults{ConnPerWorker: true}
}

// Tables implements the Generator interface: the tables are the init
// file's, found by their mark (RunTables).
func (g *gen) Tables() []workload.Table { return nil }

// UsesLoadOf implements workload.LoadUser: pgbench's built-in scripts
// (-b) use the tables of pgbench's load (stampede init pgbench, or the
// pgbench form's -i), so a run looks for that load; nil without them, or
// when pgbench's workload is not registered.
func (g *gen) UsesLoadOf() workload.Generator {
	if len(g.builtins) == 0 {
		return nil
	}
	m, ok := workload.Get("pgbench")
	if !ok {
		return nil
	}
	return m.New()
}

// Flags implements the Flagser interface.
func (g *gen) Flags() workload.Flags { return g.flags }

// PartitionClients implements workload.ClientPartitioner: client
// numbers (:client_id) go on from the clients before this one.
func (g *gen) PartitionClients(index, count int) error {
	g.index, g.count = index, count
	return nil
}

// Hooks implements the Hookser interface.
func (g *gen) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PreLoad:          g.runInitFile,
		CheckConsistency: g.check,
	}
}

// validate reads the scripts and the flags about them.
func (g *gen) validate() error {
	p, err := sqlx.ParseProtocol(g.protocol)
	if err != nil {
		return fmt.Errorf("--protocol: %w", err)
	}
	g.proto = p
	if g.jobs < 1 {
		return fmt.Errorf("--jobs %d: give 1 or more threads", g.jobs)
	}
	if g.sampling <= 0 || g.sampling > 1 {
		return fmt.Errorf("--sampling-rate %g: give a fraction above 0 and up to 1", g.sampling)
	}
	if g.aggregate < 0 || g.aggregate > 0 && (g.logPrefix == "" || g.flags.Changed("sampling-rate")) {
		return fmt.Errorf("--aggregate-interval %d: give a number of seconds above 0, with --log-prefix and without --sampling-rate (as pgbench)", g.aggregate)
	}
	if g.flags.Changed("sampling-rate") && g.logPrefix == "" {
		return fmt.Errorf("--sampling-rate samples the transaction log: give --log-prefix too")
	}
	if g.logDetailed && g.logPrefix == "" {
		return fmt.Errorf("--log-failures-detailed details the transaction log's failures: give --log-prefix too")
	}
	if g.maxTries < 0 {
		return fmt.Errorf("--max-tries %d: give 1 or more tries, or 0 for stampede's retries", g.maxTries)
	}
	if g.unlimited && g.flags.Changed("max-tries") {
		return fmt.Errorf("--unlimited-tries and --max-tries %d both bound the tries: give one", g.maxTries)
	}
	if g.triesWithin < 0 || g.triesWithin > 0 && g.maxTries == 0 && !g.unlimited {
		return fmt.Errorf("--tries-within %v bounds the time of pgbench's tries: give a duration above 0, with --max-tries N or --unlimited-tries", g.triesWithin)
	}
	if g.scale < 1 || g.scale > math.MaxInt32 {
		return fmt.Errorf("--scale %d: the scale is 1 to %d (pgbench's range)", g.scale, math.MaxInt32)
	}
	if g.truncHistory && !g.vacuum {
		return fmt.Errorf("--truncate-history empties pgbench_history with what --vacuum-first does before the run: add --vacuum-first, or leave --truncate-history out")
	}
	if g.vacAll && !g.vacuum {
		return fmt.Errorf("--vacuum-accounts vacuums pgbench_accounts with the tables --vacuum-first vacuums: add --vacuum-first, or leave --vacuum-accounts out")
	}
	g.defs = make(map[string]string, len(g.defines))
	for _, d := range g.defines {
		name, value, ok := strings.Cut(d, "=")
		if !ok {
			return fmt.Errorf("-D %q: write NAME=VALUE", d)
		}
		if !pgscript.ValidName(name) {
			return fmt.Errorf("-D %q: %q is not a variable name (letters, digits and _, not starting with a digit)", d, name)
		}
		g.defs[name] = value
	}
	g.scripts = g.scripts[:0]
	switch {
	case g.verb == "init" && g.initFile == "":
		return fmt.Errorf("init sql runs your init file: give --init-file FILE (SQL, and COPY ... FROM STDIN with its rows)")
	case g.verb == "check" && g.checkFile == "":
		return fmt.Errorf("check sql runs your checks: give --check-file FILE, queries whose every column of every row is true")
	}
	if g.verb != "" && g.verb != "run" && g.verb != "sweep" {
		return g.readFiles() // the scripts are run's (warned as ignored)
	}
	taken := map[string]bool{}
	repeats := map[*pgscript.Script]bool{}
	stdinTaken := false
	for _, a := range g.order {
		s, err := g.script(a)
		if err != nil {
			return err
		}
		path, _, _ := pgscript.ParseFileArg(a.value)
		if path == "-" && !a.builtin {
			if stdinTaken { // pgbench reads the standard input again, and finds it empty
				return fmt.Errorf("empty command list for script \"-\": the standard input is read once, by the first -f -: give -f - once")
			}
			stdinTaken = true
		}
		if err := seriesNames(s, path); err != nil {
			return err
		}
		repeats[s] = distinctName(s, taken)
		g.scripts = append(g.scripts, s)
	}
	g.renamed = distinctStatements(g.scripts, repeats, g.every)
	return g.readFiles()
}

// distinctName names script s apart from the scripts before it (taken),
// as pgbench runs two scripts of one file name, or one script given
// twice, as two: the second script named q.sql is q.sql#2 (the third
// q.sql#3), and so are its statements without a `-- name:`, q.sql#2:4
// (distinctStatements names a `-- name: x` taken x#2). pgbench's report
// names them by their paths as given (Desc). It says whether it renamed
// s.
func distinctName(s *pgscript.Script, taken map[string]bool) bool {
	name, suffix := s.Name, ""
	for n := 2; taken[name]; n++ {
		suffix = "#" + strconv.Itoa(n)
		name = s.Name + suffix
	}
	taken[name] = true
	if suffix == "" {
		return false
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Kind == pgscript.SQL && c.NameLine == 0 && strings.HasPrefix(c.Name, s.Name+":") { // FILE:LINE
			c.Name = name + strings.TrimPrefix(c.Name, s.Name)
		}
	}
	s.Name = name
	return true
}

// readFiles reads and parses the init, check and cleanup files the
// command uses (every one given, when the command is not known).
func (g *gen) readFiles() error {
	uses := func(verb string) bool { return g.verb == "" || g.verb == verb }
	if g.initFile != "" && uses("init") {
		src, err := readFile(g.initFile, "--init-file")
		if err != nil {
			return err
		}
		if _, err := pgscript.ParseInit(g.initFile, src); err != nil {
			return err
		}
	}
	if g.checkFile != "" && uses("check") {
		src, err := readFile(g.checkFile, "--check-file")
		if err != nil {
			return err
		}
		if _, err := pgscript.ParseCheck(g.checkFile, src); err != nil {
			return err
		}
	}
	if g.cleanupFile != "" && uses("cleanup") {
		if _, err := g.cleanupSteps(); err != nil {
			return err
		}
	}
	return nil
}

// SetVerb implements workload.VerbSetter.
func (g *gen) SetVerb(verb string) { g.verb = verb }

// script reads one -b or -f argument.
func (g *gen) script(a scriptArg) (*pgscript.Script, error) {
	flag := "-f"
	if a.builtin {
		flag = "-b"
	}
	name, weight, err := pgscript.ParseFileArg(a.value)
	if err != nil {
		return nil, fmt.Errorf("%s %w", flag, err)
	}
	if a.builtin {
		s, err := pgscript.Builtin(name, weight)
		if err != nil {
			return nil, fmt.Errorf("-b %w", err)
		}
		return s, nil
	}
	src, err := readFile(name, "-f")
	if err != nil {
		return nil, err
	}
	return pgscript.Parse(name, weight, src)
}

// seriesNames names script s, read from path, and its statements for the
// run log, whose series names keep "/" for the parts of an operation
// (results.IsPart: never counted in the total): a script in another
// directory is named by its file's name (its statements FILE:LINE with
// that name), and a `-- name:` with a "/" is refused.
func seriesNames(s *pgscript.Script, path string) error {
	if !strings.Contains(s.Name, "/") {
		return checkStatementNames(s, path)
	}
	base := filepath.Base(s.Name)
	for i := range s.Commands {
		c := &s.Commands[i]
		// FILE:LINE or FILE:LINE:N (pgscript.LineName), not a `-- name:`.
		if c.Kind == pgscript.SQL && c.NameLine == 0 && strings.HasPrefix(c.Name, s.Name+":") {
			c.Name = base + strings.TrimPrefix(c.Name, s.Name)
		}
	}
	s.Name = base
	return checkStatementNames(s, path)
}

// checkStatementNames refuses, before the run, a script or statement
// name the run log cannot keep as a series name (white space, a comma,
// =, a control character, or a /).
func checkStatementNames(s *pgscript.Script, path string) error {
	if err := workload.CheckOpName(s.Name); err != nil {
		return fmt.Errorf("-f %s: a script is named by its file's name, and %q holds white space, a comma, = or a control character, which the run log cannot keep: rename the file (or copy it to a name without them)", path, s.Name)
	}
	if err := workload.CheckReservedOpName(s.Name); err != nil {
		return fmt.Errorf("-f %s: a script is named by its file's name, and %v: rename the file (or copy it to another name)", path, err)
	}
	for _, c := range s.Commands {
		if c.Kind != pgscript.SQL {
			continue
		}
		if strings.Contains(c.Name, "/") {
			return fmt.Errorf("%s:%d: the statement name %q holds a /, which the run log keeps for the parts of an operation: name it without one", path, c.Line, c.Name)
		}
		line := c.Line
		if c.NameLine > 0 {
			line = c.NameLine
		}
		if workload.CheckOpName(c.Name) != nil {
			return fmt.Errorf("%s:%d: the statement name %q holds white space, a comma, = or a control character, which the run log cannot keep: a name holds none of them, nor a / (-- name: read_order)", path, line, c.Name)
		}
		if err := workload.CheckReservedOpName(c.Name); err != nil {
			return fmt.Errorf("%s:%d: the statement name %v: give it another `-- name:`", path, line, err)
		}
	}
	return nil
}

// maxScriptBytes bounds a script file: more is not a script.
const maxScriptBytes = 64 << 20

// stdin is the script read from standard input (-f -, as pgbench reads
// it), read once however many times the flags are validated.
var stdin struct {
	once sync.Once
	done chan struct{} // closed when b and err are set
	b    []byte
	err  error
}

// readFile reads a script named by flag: a text file, or - for the
// standard input. A leading UTF-8 byte order mark is skipped; a file
// that is not text is refused.
func readFile(path, flag string) (string, error) {
	var b []byte
	if path == "-" {
		// The read blocks until the writer ends (or forever, on a
		// terminal or a FIFO nobody writes): Ctrl-C or SIGTERM must
		// still end stampede then, so the read runs apart and a signal
		// ends the wait.
		stdin.once.Do(func() {
			stdin.done = make(chan struct{})
			go func() {
				stdin.b, stdin.err = io.ReadAll(io.LimitReader(os.Stdin, maxScriptBytes+1))
				close(stdin.done)
			}()
		})
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		select {
		case <-stdin.done:
		case sig := <-sigs:
			return "", fmt.Errorf("%s -: stopped by %v while reading the script from the standard input: give a script file, or pipe one in", flag, sig)
		}
		if stdin.err != nil {
			return "", fmt.Errorf("%s -: reading the standard input: %w: give a script file", flag, stdin.err)
		}
		b = stdin.b
	} else {
		// Stat before opening: opening a FIFO for reading blocks until a
		// writer comes, in a system call no signal ends; a device
		// (/dev/zero) never ends. A script is a regular file.
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s %s: %w: give a readable script file", flag, path, unwrapPath(err))
		case st.IsDir():
			return "", fmt.Errorf("%s %s is a directory: give a script file", flag, path)
		case !st.Mode().IsRegular():
			return "", fmt.Errorf("%s %s is %s, not a regular file: give a script file (or - to read the standard input)", flag, path, fileKind(st.Mode()))
		case st.Size() > maxScriptBytes:
			return "", fmt.Errorf("%s %s is %d bytes, more than a script's %d: give a script file", flag, path, st.Size(), maxScriptBytes)
		}
		// O_NONBLOCK: should the path have become a FIFO since the stat,
		// the open returns at once and the check below refuses it.
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w: give a readable script file", flag, path, unwrapPath(err))
		}
		defer f.Close()
		if st, err = f.Stat(); err == nil && !st.Mode().IsRegular() {
			return "", fmt.Errorf("%s %s is %s, not a regular file: give a script file (or - to read the standard input)", flag, path, fileKind(st.Mode()))
		}
		// Read at most one byte past the limit: the file may grow.
		if b, err = io.ReadAll(io.LimitReader(f, maxScriptBytes+1)); err != nil {
			return "", fmt.Errorf("%s %s: %w: give a readable script file", flag, path, unwrapPath(err))
		}
	}
	if len(b) > maxScriptBytes {
		return "", fmt.Errorf("%s %s holds more than a script's %d bytes: give a script file", flag, path, maxScriptBytes)
	}
	text, err := pgscript.Text(b)
	if err != nil {
		return "", fmt.Errorf("%s %s %v: give a file of SQL statements and pgbench's meta-commands", flag, path, err)
	}
	return text, nil
}

// fileKind names a file that is not a regular file, for a refusal.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Ops implements the Opser interface.
func (g *gen) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if len(g.scripts) == 0 {
		return workload.QueryLoad{}, sqlx.ConfigErrorf("run sql needs a script: give -f FILE (or FILE@WEIGHT, repeated for several)")
	}
	if g.aggregate > 0 && oc.Duration > 0 {
		// pgbench's rules for -T and --aggregate-interval.
		iv := time.Duration(g.aggregate) * time.Second
		switch {
		case iv > oc.Duration:
			return workload.QueryLoad{}, sqlx.ConfigErrorf("--aggregate-interval %d is longer than --duration %v, so the log would hold no whole interval: give a shorter interval or a longer run (pgbench refuses it too)", g.aggregate, oc.Duration)
		case oc.Duration%iv != 0:
			return workload.QueryLoad{}, sqlx.ConfigErrorf("--duration %v is not a multiple of --aggregate-interval %d, so the log's last interval would be cut short: give a multiple (pgbench refuses it too)", oc.Duration, g.aggregate)
		}
	}
	if err := g.pgbenchTables(ctx, db, oc.Warn); err != nil {
		return workload.QueryLoad{}, err
	}
	ns := newNotices(g.errOut, g.asPgbench, oc.Concurrency)
	db.OnNotice(ns.add)
	conns := make([]sqlx.Conn, oc.Concurrency)
	queriers := make([]sqlx.ScriptQuerier, oc.Concurrency)
	release := func() {
		for _, c := range conns {
			if c != nil {
				c.Release()
			}
		}
	}
	for i := range conns {
		conns[i] = db.Conn(i, true)
		q, ok := conns[i].(sqlx.ScriptQuerier)
		if !ok {
			release()
			return workload.QueryLoad{}, sqlx.ConfigErrorf("run sql keeps one connection per worker (a script's transaction spans its statements): give --conns at least --concurrency (%d)", oc.Concurrency)
		}
		queriers[i] = q
	}
	prog, err := g.compile(ctx, queriers[0], db.Null())
	if err != nil {
		release()
		return workload.QueryLoad{}, err
	}
	warnings := prog.Warnings()
	if !g.asPgbench {
		// pgbench's form is silent, as pgbench: a `-- name:` is a
		// comment to it.
		warnings = append(slices.Clip(g.renamed), warnings...)
	}
	for _, w := range warnings {
		if oc.Warn != nil {
			oc.Warn("%s", w)
		}
	}
	if err := g.vacuumFirst(ctx, db, conns[0], oc.Warn); err != nil {
		release()
		return workload.QueryLoad{}, err
	}
	// The check and the vacuum ran on worker 0's connection, and the
	// statements before them on pooled ones, which pgx's cache left
	// prepared: the run's sessions hold only the run's own statements,
	// as pgbench's clients do.
	if err := sqlx.DeallocateAll(ctx, conns[0]); err != nil {
		release()
		return workload.QueryLoad{}, err
	}
	db.CloseIdle()
	first := g.index * oc.Concurrency
	streams := prng.PgbenchStreams(oc.Seed, first+oc.Concurrency, first+oc.Concurrency)
	clients := make([]*pgscript.Client, oc.Concurrency)
	ops := prog.Ops()
	ql := workload.QueryLoad{
		Ops:     ops,
		Classes: classes(prog),
		Workers: make([]workload.Worker, oc.Concurrency),
		Header:  []string{header(prog, g.proto)},
		Close: func(context.Context) error {
			release()
			return nil
		},
	}
	recs := make([]workload.Recorder, oc.Concurrency)
	g.retried, g.retries = make([]atomic.Int64, len(prog.Scripts)), make([]atomic.Int64, len(prog.Scripts))
	g.skipped = make([]atomic.Int64, len(prog.Scripts))
	if g.keepMoments {
		g.moments = newMoments(oc.Concurrency, len(prog.Scripts))
	}
	g.prog.Store(prog)
	g.db.Store(db)
	ql.Attach = func(w int, rec workload.Recorder) {
		recs[w] = rec
		// Connect before the first script, as pgbench does (with -C,
		// every script connects itself).
		if g.reconnect {
			queriers[w].Disconnect(ctx)
		} else {
			_ = queriers[w].Connect(ctx)
		}
		clients[w] = prog.NewClient(first+w, queriers[w], rec, streams.Clients[first+w], streams.Choose[first+w],
			streams.DefaultSeed, int64(oc.Seed))
	}
	var txl *txLog
	if g.logPrefix != "" {
		if txl, err = newTxLog(g.logPrefix, first, oc.Concurrency, g.jobs, g.maxTries != 1 || g.unlimited, g.logDetailed, g.sampling, time.Duration(g.aggregate)*time.Second, streams); err != nil {
			release()
			return workload.QueryLoad{}, sqlx.ConfigErrorf("%v", err)
		}
		ql.Close = func(context.Context) error {
			release()
			return txl.close()
		}
	}
	closeLoad := ql.Close
	ql.Close = func(ctx context.Context) error {
		ns.summary()
		return closeLoad(ctx)
	}
	// Under a rate, each worker's next intended start, and the script
	// its skipped transactions and the next one run: pgbench chooses a
	// script, then skips the transactions already too late with it, and
	// runs the next with it too.
	sched := make([]struct {
		intended time.Time
		script   int
	}, oc.Concurrency)
	for i := range sched {
		sched[i].script = -1
	}
	ql.Scheduled = func(w int, intended time.Time, skipped bool) {
		sc := &sched[w]
		sc.intended = intended
		if !skipped {
			return
		}
		if sc.script < 0 {
			sc.script = clients[w].Choose()
		}
		g.skipped[sc.script].Add(1)
		if txl != nil {
			txl.skipped(w, first+w, sc.script, time.Now())
		}
	}
	for i := range ql.Workers {
		ql.Workers[i] = func(ctx context.Context) workload.Result {
			c := clients[i]
			// Only read, unless a skip left a script: the workers'
			// entries share cache lines.
			s := sched[i].script
			if s < 0 {
				s = c.Choose()
			} else {
				sched[i].script = -1
			}
			// The script's start is read only when something uses it
			// (time.Now reads two clocks, about 0.2 µs of CPU on the
			// machine of scripts/bench pgbench): the run's deadline,
			// --tries-within and the transaction log on the wall
			// clock; pgbench's report's exact moments alone on the
			// monotonic one (workload.Now, one clock read; their end
			// is the last statement's, read for its latency).
			var start time.Time
			var mono time.Duration
			opening := oc.Duration > 0 && g.deadline.Load() == 0
			switch {
			case opening || g.triesWithin > 0 || txl != nil:
				start = time.Now()
				mono = workload.Offset(start)
			case g.keepMoments:
				mono = workload.Now()
			}
			if opening {
				// The first call is the run's start (the engine's
				// clock starts before it): the duration's end, after
				// which pgbench tries no transaction again.
				g.deadline.CompareAndSwap(0, start.Add(oc.Ramp+oc.Duration).UnixNano())
			}
			var res workload.Result
			tries := 0
			var retried []error
			if g.maxTries > 0 || g.unlimited {
				from := start
				if in := sched[i].intended; !in.IsZero() {
					from = in
				}
				res, tries, retried = g.tries(ctx, c, first+i, s, from)
			} else {
				err := workload.RetryTx(ctx, recs[i], s, prog.Scripts[s].Name, func() error {
					if tries > 0 {
						c.Rewind()
					}
					tries++
					return c.Run(ctx, s)
				})
				res = workload.Result{Op: s, Err: err}
			}
			cut := errors.Is(res.Err, context.Canceled) // by the run's end: not counted
			if (res.Err == nil || res.Tolerated) && !cut {
				g.countRetries(s, tries)
				if rr, ok := recs[i].(workload.RetryRecorder); ok {
					for _, err := range retried {
						rr.RecordRetry(err)
					}
				}
			}
			if res.Err != nil && ctx.Err() == nil && !cut {
				c.Failed() // on its statement's row too, and in -r's table
			}
			if g.reconnect {
				queriers[i].Disconnect(ctx) // the next script connects anew
			} else if res.Err == nil {
				// The end of the script's last statement is the
				// transaction's: the engine does not read the clock
				// again (with -C, the disconnect is the transaction's).
				res.End = c.End()
			}
			if (txl != nil || g.keepMoments) && (res.Err == nil || res.Tolerated) && !cut {
				// Under a rate, pgbench's latency counts from the
				// intended start, and its lag is the wait for the turn.
				from, lag := mono, time.Duration(-1)
				if in := sched[i].intended; !in.IsZero() {
					from = workload.Offset(in)
					lag = max(mono-from, 0)
				}
				if txl != nil {
					// The log's latency and the report's moments are
					// the same figure, to the µs.
					end := time.Now()
					d := workload.Offset(end) - from
					txl.log(i, first+i, s, end, d, lag, res.Err != nil, sqlx.SQLState(res.Err), max(tries-1, 0))
					if g.keepMoments && res.Err == nil {
						g.moments[i].add(s, d, lag)
					}
				} else if res.Err == nil {
					end := res.End // the last statement's end, as the engine's
					if end <= 0 {
						end = workload.Now()
					}
					g.moments[i].add(s, end-from, lag)
				}
			}
			return res
		}
	}
	return ql, nil
}

// tries runs script s as pgbench does with --max-tries: again, with the
// same random values, after a serialization failure or deadlock, up to
// the limit (none with --unlimited-tries), while less than --tries-within
// has passed since from (the script's start, or its scheduled start under
// a rate) and the run's duration is not over, as pgbench's; a script that
// still fails so is a failed transaction, and the run goes on; any other
// error ends it (unless --tolerate-errors). It returns the tries made and
// the failures that were tried again.
func (g *gen) tries(ctx context.Context, c *pgscript.Client, client, s int, from time.Time) (workload.Result, int, []error) {
	var err error
	var retried []error
	try := 1
	for ; ; try++ {
		if try > 1 {
			// -r's table counts a retry on its command as it happens,
			// as pgbench's does (a transaction the run's end cuts keeps
			// its retries there); the report's counts are the
			// transaction's, once it ends (countRetries).
			c.Rewind()
		}
		if err = c.Run(ctx, s); err == nil || !sqlx.IsRetryable(err) {
			break
		}
		if d := g.deadline.Load(); errors.Is(ctx.Err(), context.Canceled) || d != 0 && time.Now().UnixNano() > d {
			// The run's time is over: pgbench says the error and
			// finishes the client, the transaction not counted
			// processed, failed or retried (the engine drops an
			// operation cancelled by the run's end).
			if g.verbose {
				g.sayError(client, s, err)
			}
			return workload.Result{Op: s, Err: fmt.Errorf("%w: the run's time ended during the transaction's tries: %w", context.Canceled, err), Tolerated: true}, try, nil
		}
		if ctx.Err() != nil {
			break // the operation's own time (--op-timeout) is over: failed
		}
		again := g.unlimited || try < g.maxTries
		var used time.Duration // from is zero without --tries-within
		if g.triesWithin > 0 {
			if used = time.Since(from); used > g.triesWithin {
				again = false
			}
		}
		if g.verbose {
			g.sayError(client, s, err)
			g.sayNext(client, try, used, again)
		}
		if !again {
			break
		}
		retried = append(retried, err)
	}
	return workload.Result{Op: s, Err: err, Tolerated: err != nil && sqlx.IsRetryable(err)}, try, retried
}

// countRetries counts, for pgbench's report and progress lines, script
// s's transaction that ended (processed or failed, not cut by the run's
// end, as the transaction log writes it) after tries tries under
// --max-tries, as pgbench's accumStats counts it.
func (g *gen) countRetries(s, tries int) {
	if tries > 1 && (g.maxTries > 0 || g.unlimited) {
		g.retried[s].Add(1)
		g.retries[s].Add(int64(tries - 1))
	}
}

// sayError says, as pgbench's --verbose-errors does, client's
// serialization failure or deadlock in script s, in one write, so that
// clients' lines do not mix.
func (g *gen) sayError(client, s int, err error) {
	command, query := 0, ""
	if se := (*pgscript.ScriptError)(nil); errors.As(err, &se) {
		command, query = se.Command, se.Query
	}
	text, ok := sqlx.LibpqQueryText(err, query)
	if !ok {
		text = err.Error()
	}
	fmt.Fprintf(g.errOut, "pgbench: client %d got an error in command %d (SQL) of script %d; %s\n", client, command, s, text)
}

// sayNext says, as pgbench's --verbose-errors does, whether client's
// transaction is tried again (again) after try, with the time the tries
// used against --tries-within.
func (g *gen) sayNext(client, try int, used time.Duration, again bool) {
	next := "repeats the transaction after the error"
	if !again {
		next = "ends the failed transaction"
	}
	of := ""
	if !g.unlimited {
		of = fmt.Sprintf("/%d", g.maxTries)
	}
	if g.triesWithin > 0 {
		of += fmt.Sprintf(", %.3f%% of the maximum time of tries was used", 100*float64(used)/float64(g.triesWithin))
	}
	fmt.Fprintf(g.errOut, "pgbench: client %d %s (try %d%s)\n", client, next, try, of)
}

// SetForceDrop implements workload.ForceDropSetter.
func (g *gen) SetForceDrop(force bool) { g.forceDrop = force }

// AsPgbench makes the run behave as pgbench's where run sql's own form
// does otherwise (the pgbench form calls it): a statement the server
// refuses (a missing table, a syntax error) fails when it runs, aborting
// the client that sends it, where run sql refuses it before the run in
// one line; and every notice the server sends is printed as it comes,
// where run sql prints each distinct one once per client (notices).
func (g *gen) AsPgbench() { g.asPgbench = true }

// SetErrorOutput sets where --verbose-errors says the failures (stderr
// by default): the pgbench form gives its own.
func (g *gen) SetErrorOutput(w io.Writer) { g.errOut = w }

// Retries is how many transactions of script s were retried under
// --max-tries, and how many retries there were.
func (g *gen) Retries(s int) (retried, retries int64) {
	if s >= len(g.retried) {
		return 0, 0
	}
	return g.retried[s].Load(), g.retries[s].Load()
}

// Skipped is how many transactions of script s were skipped under a
// rate (--skip-late).
func (g *gen) Skipped(s int) int64 {
	if s >= len(g.skipped) {
		return 0
	}
	return g.skipped[s].Load()
}

// ConnectEach is --connect-each (pgbench's -C).
func (g *gen) ConnectEach() bool { return g.reconnect }

// MaxTries is --max-tries (0: stampede's own retries; -1 with
// --unlimited-tries).
func (g *gen) MaxTries() int {
	if g.unlimited {
		return -1
	}
	return g.maxTries
}

// compile binds the scripts and checks every statement on the server
// before the run: a syntax error, or (when no script creates anything) a
// table, column or function that does not exist, refuses the run with
// the script's line (unless AsPgbench).
func (g *gen) compile(ctx context.Context, q sqlx.ScriptQuerier, null bool) (*pgscript.Program, error) {
	ddl := false
	for _, s := range g.scripts {
		for _, c := range s.Commands {
			if c.Kind == pgscript.SQL && isDDL(c.Text) {
				ddl = true
			}
		}
	}
	opts := pgscript.Options{Protocol: g.proto, Defines: g.defs, Scale: g.scale, EveryCommand: g.every, Debug: g.errOut, NullUnset: g.asPgbench}
	if g.asPgbench {
		opts.SimpleFlag = "-M simple"
	}
	// First without the columns of \gset and \aset queries (every
	// variable after one may be set by it), for the statements' text.
	prog, err := pgscript.Compile(g.scripts, opts, nil)
	if err != nil {
		return nil, sqlx.ConfigErrorf("%v", g.asTyped(err))
	}
	if null {
		return prog, nil
	}
	cols := make(map[*pgscript.Command][]string)
	for _, st := range prog.Statements() {
		if st.Command.Compound {
			continue // several statements: the server prepares one at a time
		}
		if g.proto == sqlx.Simple && st.SQL != st.Command.Text {
			// Variables (substitute wrote $N for each): the simple
			// protocol writes their values into the text, as pgbench
			// does, where the server may read them otherwise than as a
			// parameter (pgbench_accounts_:p, :a + :b). Checked when
			// it runs.
			continue
		}
		// The statement as it runs: with $1, $2, ... for its variables
		// in the prepared and extended protocols, as pgbench sends it.
		c, err := q.Describe(ctx, st.SQL)
		if err != nil {
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				return nil, err // the server, not the script
			}
			if !g.asPgbench && (pe.Code == "42601" || !ddl && strings.HasPrefix(pe.Code, "42")) {
				return nil, sqlx.ConfigErrorf("%s:%d: %s (SQLSTATE %s): fix the statement, or run it with pgbench or psql to see it fail the same way",
					typed(st.Script), pgscript.ErrorLine(st.Command, st.SQL, err), pe.Message, pe.Code)
			}
			continue // checked when it runs: an earlier statement may create what it uses
		}
		cols[st.Command] = c
	}
	if g.proto == sqlx.Simple {
		return prog, nil // a variable not set stays as written, as in pgbench
	}
	// Again, now that the columns of \gset and \aset queries are known,
	// for the variables they set.
	prog, err = pgscript.Compile(g.scripts, opts, func(c *pgscript.Command) ([]string, bool) {
		cc, ok := cols[c]
		return cc, ok
	})
	if err != nil {
		return nil, sqlx.ConfigErrorf("%v", g.asTyped(err))
	}
	return prog, nil
}

// typed names script s as its file's path was given (its Desc), not by
// the base name its reports use (seriesNames); a built-in by its name.
func typed(s *pgscript.Script) string {
	if s.Builtin {
		return s.Name
	}
	return s.Desc
}

// asTyped names the script of a compile error as typed.
func (g *gen) asTyped(err error) error {
	var se *pgscript.SyntaxError
	if errors.As(err, &se) {
		for _, s := range g.scripts {
			if se.File == s.Name {
				se.File = typed(s)
				break
			}
		}
	}
	return err
}

// isDDL reports whether a statement changes the schema.
func isDDL(sql string) bool {
	w := strings.ToUpper(firstWord(sql))
	switch w {
	case "CREATE", "ALTER", "DROP", "TRUNCATE", "DO", "CALL", "SELECT":
		// A function (SELECT f()) or procedure may create what the next
		// statement uses: only a plain statement is checked strictly.
		return w != "SELECT" || strings.Contains(strings.ToUpper(sql), "CREATE")
	}
	return false
}

func firstWord(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], ";(")
}

// classes classifies the program's operations for sysbench-style counts.
func classes(p *pgscript.Program) []workload.OpClass {
	// Every operation after the scripts' is one of their commands: its
	// SQL statements, and under -r (Options.EveryCommand) its
	// meta-commands too, which are parts of a script as its statements
	// are, never transactions of their own.
	out := make([]workload.OpClass, len(p.Ops()))
	for si, sl := range p.Layout().Scripts {
		out[sl.Op] = workload.ClassTransaction
		for ci, cl := range sl.Commands {
			if cl.Op < 0 {
				continue
			}
			c := &p.Scripts[si].Commands[ci]
			out[cl.Op] = workload.ClassOther
			if c.Kind != pgscript.SQL {
				continue
			}
			switch strings.ToUpper(firstWord(c.Text)) {
			case "SELECT", "WITH", "TABLE", "VALUES", "SHOW":
				out[cl.Op] = workload.ClassRead
			case "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "COPY":
				out[cl.Op] = workload.ClassWrite
			}
		}
	}
	return out
}

// header says how the scripts run.
func header(p *pgscript.Program, proto sqlx.Protocol) string {
	parts := make([]string, len(p.Scripts))
	for i, s := range p.Scripts {
		parts[i] = fmt.Sprintf("%s (weight %d)", s.Name, s.Weight)
	}
	return fmt.Sprintf("scripts: %s; statements sent %s", strings.Join(parts, ", "), protocolWords(proto))
}

func protocolWords(p sqlx.Protocol) string {
	switch p {
	case sqlx.Simple:
		return "as text (--protocol simple)"
	case sqlx.Extended:
		return "parsed each time (--protocol extended)"
	}
	return "prepared once per connection (--protocol prepared)"
}

// Program returns the program of the run once Ops has made it (nil
// before), for reports that follow the scripts (pgbench's).
func (g *gen) Program() *pgscript.Program { return g.prog.Load() }

// ConnectTime is the mean time the run's connections took to open;
// false before any did.
func (g *gen) ConnectTime() (time.Duration, bool) {
	db := g.db.Load()
	if db == nil {
		return 0, false
	}
	d, n := db.ConnectTime()
	return d, n > 0
}
