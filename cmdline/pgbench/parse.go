// Package pgbench reads a pgbench command line, as pasted, and turns it
// into stampede's: `pgbench -i -s 10 db` into `stampede init pgbench`,
// and a benchmark (`pgbench -c 8 -j 2 -T 60 -M prepared -f a.sql@10 db`)
// into `stampede run sql` with pgbench's scripts, defaults and report
// (--output-style pgbench). What pgbench does that stampede does not is
// refused in one line.
package pgbench

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/run"
)

// Version is the pgbench whose command line and report stampede follows.
const Version = "15.18"

// Line is a pgbench command line turned into stampede's.
type Line struct {
	// Args is stampede's command line (without the program name); nil
	// when Output is all there is to do (--help, --version,
	// --show-script).
	Args []string
	// Output is what to print instead of running anything: on stdout,
	// or on stderr when ToStderr says so (pgbench prints -b list and
	// --show-script there).
	Output   string
	ToStderr bool
	// Warnings are printed on stderr before the command runs, as
	// pgbench's own ("pgbench: warning: ...").
	Warnings []string
	// Secrets are passwords to scrub from what is printed and saved.
	Secrets []string
	// Init says the line initialises (-i).
	Init bool
}

// inputError is a line stampede cannot run as given (exit 2).
type inputError struct{ msg string }

func (e inputError) Error() string        { return e.msg }
func (e inputError) Is(target error) bool { return target == run.ErrInput }

func inputf(format string, args ...any) error {
	return inputError{fmt.Sprintf(format, args...)}
}

// options are pgbench 15's, read with pflag (getopt's -c4, -c 4,
// --client=4 and --client 4 all work, and options may follow the
// database name, as with glibc's getopt).
type options struct {
	fs *pflag.FlagSet

	initialize, noVacuum, quiet, foreignKeys, unlogged      bool
	forceDrop                                               bool
	initSteps, tablespace, indexTablespace, partitionMethod string
	fillfactor, partitions, scale                           int
	builtins, files, defines                                []string
	// scripts are -b, -f, -N and -S in command-line order, as
	// stampede's arguments (-b NAME or -f FILE).
	scripts                                                   []string
	skipSome, selectOnly, connect, log, reportPerCommand      bool
	vacuumAll, failuresDetailed, progressTimestamp, verbose   bool
	debug, version, help                                      bool
	clients, jobs, progress, transactions, duration, maxTries int
	latencyLimit, rate, samplingRate                          float64
	protocol, randomSeed, logPrefix, showScript               string
	aggregateInterval                                         int
	host, port, username                                      string
}

func newOptions() *options {
	o := &options{}
	fs := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	// Initialization.
	fs.BoolVarP(&o.initialize, "initialize", "i", false, "")
	fs.StringVarP(&o.initSteps, "init-steps", "I", "dtgvp", "")
	fs.IntVarP(&o.fillfactor, "fillfactor", "F", 100, "")
	fs.BoolVarP(&o.noVacuum, "no-vacuum", "n", false, "")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "")
	fs.IntVarP(&o.scale, "scale", "s", 1, "")
	fs.BoolVar(&o.foreignKeys, "foreign-keys", false, "")
	fs.StringVar(&o.indexTablespace, "index-tablespace", "", "")
	fs.StringVar(&o.partitionMethod, "partition-method", "range", "")
	fs.IntVar(&o.partitions, "partitions", 0, "")
	fs.StringVar(&o.tablespace, "tablespace", "", "")
	fs.BoolVar(&o.unlogged, "unlogged-tables", false, "")
	// stampede's own: -i drops pgbench's tables that stampede did not make.
	fs.BoolVar(&o.forceDrop, "force-drop", false, "")
	// What to run.
	fs.VarP(&ordered{vals: &o.builtins, order: &o.scripts, flag: "-b"}, "builtin", "b", "")
	fs.VarP(&ordered{vals: &o.files, order: &o.scripts, flag: "-f"}, "file", "f", "")
	fs.VarP(&ordered{order: &o.scripts, flag: "-b", fixed: "simple-update", on: &o.skipSome}, "skip-some-updates", "N", "")
	fs.VarP(&ordered{order: &o.scripts, flag: "-b", fixed: "select-only", on: &o.selectOnly}, "select-only", "S", "")
	fs.Lookup("skip-some-updates").NoOptDefVal = "true"
	fs.Lookup("select-only").NoOptDefVal = "true"
	// Benchmarking.
	fs.IntVarP(&o.clients, "client", "c", 1, "")
	fs.BoolVarP(&o.connect, "connect", "C", false, "")
	fs.StringArrayVarP(&o.defines, "define", "D", nil, "")
	fs.IntVarP(&o.jobs, "jobs", "j", 1, "")
	fs.BoolVarP(&o.log, "log", "l", false, "")
	fs.Float64VarP(&o.latencyLimit, "latency-limit", "L", 0, "")
	fs.StringVarP(&o.protocol, "protocol", "M", "simple", "")
	fs.IntVarP(&o.progress, "progress", "P", 0, "")
	fs.BoolVarP(&o.reportPerCommand, "report-per-command", "r", false, "")
	fs.Float64VarP(&o.rate, "rate", "R", 0, "")
	fs.IntVarP(&o.transactions, "transactions", "t", 0, "")
	fs.IntVarP(&o.duration, "time", "T", 0, "")
	fs.BoolVarP(&o.vacuumAll, "vacuum-all", "v", false, "")
	fs.IntVar(&o.aggregateInterval, "aggregate-interval", 0, "")
	fs.BoolVar(&o.failuresDetailed, "failures-detailed", false, "")
	fs.StringVar(&o.logPrefix, "log-prefix", "", "")
	fs.IntVar(&o.maxTries, "max-tries", 1, "")
	fs.BoolVar(&o.progressTimestamp, "progress-timestamp", false, "")
	fs.StringVar(&o.randomSeed, "random-seed", "", "")
	fs.Float64Var(&o.samplingRate, "sampling-rate", 0, "")
	fs.StringVar(&o.showScript, "show-script", "", "")
	fs.BoolVar(&o.verbose, "verbose-errors", false, "")
	// Common.
	fs.BoolVarP(&o.debug, "debug", "d", false, "")
	fs.StringVarP(&o.host, "host", "h", "", "")
	fs.StringVarP(&o.port, "port", "p", "", "")
	fs.StringVarP(&o.username, "username", "U", "", "")
	fs.BoolVarP(&o.version, "version", "V", false, "")
	fs.BoolVarP(&o.help, "help", "?", false, "")
	// pgbench 15 still takes -r's old name.
	fs.BoolVar(&o.reportPerCommand, "report-latencies", false, "")
	o.fs = fs
	return o
}

// notYet are pgbench's options stampede does not take yet, with what to
// do instead.
var notYet = map[string]string{
	"debug": "pgbench 15's -d is --debug, not the database: give the database name as the last argument (stampede pgbench -c 4 -T 60 bench); to see each statement sent, have the server log it (PGOPTIONS='-c log_statement=all', as a superuser), and -r reports each statement's latency and failures",
}

// Parse turns args, a pgbench command line without the program name, into
// stampede's. env looks up the environment (os.Getenv, PGHOST...).
func Parse(args []string, env func(string) string) (*Line, error) {
	o := newOptions()
	if err := o.fs.Parse(args); err != nil {
		return nil, inputf("%s", pflagError(o.fs, err))
	}
	l := &Line{}
	switch {
	case o.help:
		l.Output = usage
		return l, nil
	case o.version:
		// pgbench's shape, "pgbench (PostgreSQL) 15.18 (Debian
		// 15.18-0+deb12u1)", with stampede where a packager's name goes:
		// scripts that take the third word for the version read 15.18.
		l.Output = fmt.Sprintf("pgbench (PostgreSQL) %s (stampede %s)\n", Version, run.VersionString())
		return l, nil
	case len(o.builtins) > 0 && o.builtins[0] == "list":
		l.Output, l.ToStderr = builtinList, true
		return l, nil
	case o.fs.Changed("show-script"):
		name, desc, src, err := pgscript.BuiltinSource(o.showScript)
		if err != nil {
			return nil, inputf("--show-script: %v", err)
		}
		l.Output, l.ToStderr = fmt.Sprintf("-- %s: %s\n%s\n", name, desc, src), true
		return l, nil
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	var refused []string
	o.fs.Visit(func(f *pflag.Flag) {
		if why, ok := notYet[f.Name]; ok {
			refused = append(refused, fmt.Sprintf("pgbench's --%s is not taken by stampede: %s", f.Name, why))
		}
	})
	if len(refused) > 0 {
		return nil, inputf("%s", refused[0])
	}
	rest := o.fs.Args()
	if len(rest) > 1 {
		return nil, inputf("pgbench takes one database name, and %q follow the options: give one", strings.Join(rest, " "))
	}
	conn, secrets, err := connURL(o, rest, env)
	if err != nil {
		return nil, err
	}
	l.Secrets = secrets
	if o.initialize {
		l.Init = true
		l.Args, err = o.initArgs(conn)
		return l, err
	}
	l.Args, l.Warnings, err = o.runArgs(conn)
	return l, err
}

// ranged are pgbench's integer options that its option_parse_int
// checks to lie in 1..2147483647, with its names for them.
var ranged = []struct{ name, short string }{
	{"client", "-c/--clients"}, {"jobs", "-j/--jobs"}, {"progress", "-P/--progress"},
	{"scale", "-s/--scale"}, {"transactions", "-t/--transactions"}, {"time", "-T/--time"},
}

// maxScripts is pgbench's MAX_SCRIPTS.
const maxScripts = 128

// check refuses, as pgbench does while it reads its options, integers
// out of its ranges, -D without NAME=VALUE, an empty --random-seed,
// weights past pgbench's, and a benchmark's options with -i.
func (o *options) check() error {
	for _, r := range ranged {
		f := o.fs.Lookup(r.name)
		if !f.Changed {
			continue
		}
		if n, _ := strconv.ParseInt(f.Value.String(), 10, 64); n < 1 || n > math.MaxInt32 {
			return inputf("%s must be in range 1..%d, not %d", r.short, math.MaxInt32, n)
		}
	}
	for _, d := range o.defines {
		// pgbench: no '=', nothing before it, or nothing after it.
		if i := strings.IndexByte(d, '='); i <= 0 || i == len(d)-1 {
			return inputf("invalid variable definition: %q (give -D NAME=VALUE)", d)
		}
	}
	for _, f := range []struct{ name, msg string }{
		{"rate", "invalid rate limit: %q (not a rate: give -R a number of transactions per second above 0)"},
		{"latency-limit", "invalid latency limit: %q (give -L a number of milliseconds above 0)"},
		{"sampling-rate", "invalid sampling rate: %q (give --sampling-rate a fraction above 0, at most 1)"},
	} {
		if v, _ := o.fs.GetFloat64(f.name); math.IsNaN(v) || math.IsInf(v, 0) {
			return inputf(f.msg, o.fs.Lookup(f.name).Value.String())
		}
	}
	for _, name := range []string{"tablespace", "index-tablespace"} {
		if f := o.fs.Lookup(name); f.Changed && f.Value.String() == "" {
			return inputf("--%s is empty, and the server refuses an empty name (pgbench fails on it after dropping the tables): give a tablespace's name, or leave --%s out", name, name)
		}
	}
	for _, name := range benchmarkOnly {
		if o.initialize && o.fs.Changed(name) {
			return inputf("some of the specified options cannot be used in initialization (-i) mode: --%s runs a benchmark, and -i initialises: give them in two command lines, as pgbench takes them", name)
		}
	}
	if o.progressTimestamp && o.progress == 0 {
		return inputf("--progress-timestamp is allowed only under --progress: add -P SECONDS, or leave --progress-timestamp out")
	}
	if o.fs.Changed("aggregate-interval") && o.aggregateInterval > 0 && o.duration > 0 {
		switch {
		case o.aggregateInterval > o.duration:
			return inputf("number of seconds for aggregation (%d) must not be higher than test duration (%d): give a smaller --aggregate-interval or a longer -T", o.aggregateInterval, o.duration)
		case o.duration%o.aggregateInterval != 0:
			return inputf("duration (%d) must be a multiple of aggregation interval (%d): give -T a multiple of --aggregate-interval", o.duration, o.aggregateInterval)
		}
	}
	if o.fs.Changed("random-seed") && o.randomSeed == "" {
		return inputf("unrecognized random seed option \"\": give \"time\", \"rand\" or an unsigned integer")
	}
	if n := len(o.scripts) / 2; n > maxScripts {
		return inputf("at most %d SQL scripts are allowed (%d given): give fewer -b, -f, -N and -S", maxScripts, n)
	}
	for i := 0; i+1 < len(o.scripts); i += 2 {
		if _, _, err := pgscript.ParseFileArg(o.scripts[i+1]); err != nil {
			return inputf("%s %v", o.scripts[i], err)
		}
	}
	return nil
}

// badValue is pflag's error for a value its type cannot parse.
var badValue = lazyre.New(`^invalid argument "(.*)" for "(?:-(.), )?--([a-z-]+)" flag: `)

// pgbenchNames are pgbench's own names for the options whose names
// stampede's flag set spells otherwise, or whose refusal pgbench words
// in its own way.
var pgbenchNames = map[string]string{
	"client":        "-c/--clients",
	"rate":          "invalid rate limit: %q (give -R a number of transactions per second above 0)",
	"latency-limit": "invalid latency limit: %q (give -L a number of milliseconds above 0)",
	"sampling-rate": "invalid sampling rate: %q (give --sampling-rate a fraction above 0, at most 1)",
}

// pflagError rewords pflag's errors as pgbench's options, as pgbench
// says them (`invalid value "2x" for option -c/--clients`).
func pflagError(fs *pflag.FlagSet, err error) string {
	msg := err.Error()
	if m := badValue().FindStringSubmatch(msg); m != nil {
		val, short, name := m[1], m[2], m[3]
		if w, ok := pgbenchNames[name]; ok && strings.Contains(w, "%q") {
			return fmt.Sprintf(w, val)
		}
		opt := "--" + name
		if short != "" {
			opt = "-" + short + "/" + opt
		}
		if w, ok := pgbenchNames[name]; ok {
			opt = w
		}
		what := "a value"
		if f := fs.Lookup(name); f != nil && f.Value.Type() == "int" {
			what = "a whole number"
		} else if f != nil && f.Value.Type() == "bool" {
			// pgbench's switches take no value ("option '--foreign-keys'
			// doesn't allow an argument").
			return fmt.Sprintf("option %s takes no value (%s=%s): give %s alone, see `stampede pgbench --help`", opt, opt, val, opt)
		}
		return fmt.Sprintf("invalid value %q for option %s: give %s, see `stampede pgbench --help`", val, opt, what)
	}
	if name, ok := strings.CutPrefix(msg, "unknown flag: "); ok {
		return fmt.Sprintf("pgbench has no option %s: see `stampede pgbench --help`", name)
	}
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		// pflag says "'Z' in -Z": name the option as written.
		if i := strings.Index(rest, "' in "); i > 1 {
			return fmt.Sprintf("pgbench has no option -%s: see `stampede pgbench --help`", rest[1:i])
		}
		return fmt.Sprintf("pgbench has no option %s: see `stampede pgbench --help`", rest)
	}
	return msg + ": see `stampede pgbench --help`"
}

// connURL builds the connection's URL as libpq would from -h, -p, -U, the
// database name and the PG* environment variables.
func connURL(o *options, rest []string, env func(string) string) (string, []string, error) {
	pick := func(flag, name string) string {
		if flag != "" {
			return flag
		}
		return env(name)
	}
	host := pick(o.host, "PGHOST")
	port := pick(o.port, "PGPORT")
	usr := pick(o.username, "PGUSER")
	osUser := ""
	if u, err := user.Current(); err == nil {
		osUser = u.Username
	}
	// With PGSERVICE, the host, port and user not given come from the
	// service's section (read where the connection is made, as libpq
	// reads it), not from libpq's defaults.
	service := env("PGSERVICE") != ""
	if usr == "" && !service {
		usr = osUser
	}
	// pgbench names the database itself: the argument, else PGDATABASE,
	// else PGUSER, else the OS user (not -U's user, nor the service's).
	db := env("PGDATABASE")
	if len(rest) == 1 {
		db = rest[0]
	}
	if strings.Contains(db, "://") || strings.Contains(db, "=") {
		return db, nil, nil // a connection string, as libpq takes for dbname
	}
	if db == "" {
		db = env("PGUSER")
	}
	if db == "" {
		db = osUser
	}
	if port != "" {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return "", nil, inputf("port %q is not a port number (1-65535)", port)
		}
	}
	u := url.URL{Scheme: "postgresql", Path: "/" + db}
	q := url.Values{}
	switch {
	case host == "" && !service:
		host = "localhost"
	case strings.HasPrefix(host, "/"):
		q.Set("host", host) // a Unix socket directory
		host = ""
	}
	u.Host = host
	if port != "" {
		if host == "" {
			q.Set("port", port)
		} else {
			u.Host = host + ":" + port
		}
	}
	var secrets []string
	switch pw := env("PGPASSWORD"); {
	case pw != "":
		u.User = url.UserPassword(usr, pw)
		secrets = append(secrets, pw)
	case usr != "":
		u.User = url.User(usr)
	}
	// The other PG* variables (PGSSLMODE, PGOPTIONS, PGSERVICE...) are
	// read where the connection is made, as libpq reads them.
	u.RawQuery = q.Encode()
	return u.String(), secrets, nil
}

// benchmarkOnly are the options that pgbench 15 refuses in -i mode (its
// benchmarking_option_set), and --random-seed, which it takes there and
// ignores.
var benchmarkOnly = []string{"client", "jobs", "connect", "report-per-command", "report-latencies", "select-only",
	"skip-some-updates", "builtin", "file", "define", "protocol", "progress", "rate", "latency-limit", "time",
	"transactions", "vacuum-all", "log", "sampling-rate", "aggregate-interval", "progress-timestamp", "log-prefix",
	"failures-detailed", "max-tries", "verbose-errors", "random-seed"}

// initArgs is `stampede init pgbench` for -i.
func (o *options) initArgs(conn string) ([]string, error) {
	steps := o.initSteps
	if o.noVacuum {
		steps = strings.ReplaceAll(steps, "v", "")
	}
	args := []string{"init", "pgbench", "--scale", strconv.Itoa(o.scale), "--init-steps", steps}
	if o.fs.Changed("fillfactor") {
		args = append(args, "--fillfactor", strconv.Itoa(o.fillfactor))
	}
	if o.foreignKeys {
		args = append(args, "--foreign-keys")
	}
	if o.unlogged {
		args = append(args, "--unlogged-tables")
	}
	if o.fs.Changed("partitions") {
		args = append(args, "--partitions", strconv.Itoa(o.partitions))
	}
	if o.fs.Changed("partition-method") {
		args = append(args, "--partition-method", o.partitionMethod)
	}
	if o.tablespace != "" {
		args = append(args, "--tablespace", o.tablespace)
	}
	if o.indexTablespace != "" {
		args = append(args, "--index-tablespace", o.indexTablespace)
	}
	if o.quiet {
		args = append(args, "--pgbench-quiet")
	}
	if o.forceDrop {
		args = append(args, "--force-drop")
	}
	// pgbench's own init: its steps as pgbench takes them, its tables
	// dropped where stampede made them (all with --force-drop), nothing
	// of stampede's left in the database but their mark.
	return append(args, "--as-pgbench", "--output-style", "pgbench", conn), nil
}

// runArgs is `stampede run sql` for a benchmark.
func (o *options) runArgs(conn string) ([]string, []string, error) {
	var warnings []string
	for _, name := range []string{"init-steps", "fillfactor", "foreign-keys", "unlogged-tables", "partitions", "partition-method", "tablespace", "index-tablespace", "quiet"} {
		if o.fs.Changed(name) {
			return nil, nil, inputf("--%s shapes what -i creates, and this line runs a benchmark: add -i to initialise, or leave it out", name)
		}
	}
	if o.forceDrop && o.noVacuum {
		return nil, nil, inputf("--force-drop lets -i drop pgbench's tables that stampede did not make, and a run empty pgbench_history in a copy of a database stampede loaded, and this line does neither (-n): leave it out")
	}
	switch {
	case o.fs.Changed("time") && o.fs.Changed("transactions"):
		return nil, nil, inputf("specify either a number of transactions (-t) or a duration (-T), not both")
	case o.rate < 0 || o.fs.Changed("rate") && o.rate == 0:
		return nil, nil, inputf("invalid rate limit: %g (give -R a rate above 0)", o.rate)
	case o.rate > engine.MaxRateLimit:
		return nil, nil, inputf("invalid rate limit: %g is more than any client reaches (%g transactions a second): give -R a lower rate", o.rate, engine.MaxRateLimit)
	}
	// The run's own bound on its workers, in the name of pgbench's flag.
	if err := run.CheckWorkers("-c", o.clients, false); err != nil {
		return nil, nil, err
	}
	switch o.protocol {
	case "simple", "extended", "prepared":
	default:
		return nil, nil, inputf("invalid query mode (-M): %q (give simple, extended or prepared)", o.protocol)
	}
	jobs := o.jobs
	if jobs > o.clients {
		jobs = o.clients // pgbench runs no thread without a client
	}
	args := []string{"run", "sql"}
	scripts := o.scripts
	if len(scripts) == 0 {
		scripts = []string{"-b", "tpcb-like"}
	}
	args = append(args, scripts...)
	c := strconv.Itoa(o.clients)
	args = append(args, "--concurrency", c, "--conns", c, "--protocol", o.protocol, "--pgbench-jobs", strconv.Itoa(jobs))
	if jobs > 1 {
		args = append(args, "--jobs", strconv.Itoa(jobs))
	}
	switch {
	case o.duration > 0:
		args = append(args, "--duration", strconv.Itoa(o.duration)+"s")
	default:
		t := o.transactions
		if t == 0 {
			t = 10 // pgbench's default
		}
		args = append(args, "--max-ops", strconv.FormatInt(int64(t)*int64(o.clients), 10), "--pgbench-transactions", strconv.Itoa(t))
	}
	if o.rate > 0 {
		// pgbench's latency under -R counts from the scheduled start.
		args = append(args, "--latency", "intended")
	}
	if o.progress > 0 {
		args = append(args, "--display-every", strconv.Itoa(o.progress)+"s", "--pgbench-progress", strconv.Itoa(o.progress))
	}
	if o.rate > 0 {
		// pgbench's throttle is one Poisson process per thread (-j) at
		// R/threads, whose next start any free client of the thread
		// takes.
		args = append(args, "--max-rate", strconv.FormatFloat(o.rate, 'g', -1, 64), "--arrivals", "poisson", "--schedule-groups", strconv.Itoa(jobs))
	}
	if o.fs.Changed("latency-limit") {
		if o.latencyLimit <= 0 {
			return nil, nil, inputf("invalid latency limit: %g (give -L a number of milliseconds above 0)", o.latencyLimit)
		}
		if o.rate > 0 {
			args = append(args, "--skip-late", strconv.FormatFloat(o.latencyLimit*1000, 'f', -1, 64)+"us")
		}
		args = append(args, "--pgbench-latency-limit", strconv.FormatFloat(o.latencyLimit, 'g', -1, 64))
	}
	if !o.noVacuum {
		// pgbench empties pgbench_history before the run: the user
		// asked pgbench to, whoever made the table.
		args = append(args, "--vacuum-first", "--truncate-history")
		if o.forceDrop {
			args = append(args, "--force-drop")
		}
		if o.vacuumAll {
			args = append(args, "--vacuum-accounts")
		}
	}
	if o.connect {
		args = append(args, "--connect-each")
	}
	if o.failuresDetailed {
		args = append(args, "--pgbench-failures-detailed")
	}
	if o.verbose {
		args = append(args, "--verbose-errors")
	}
	if o.progressTimestamp {
		args = append(args, "--pgbench-progress-timestamp")
	}
	if o.reportPerCommand {
		args = append(args, "--report-per-command")
	}
	switch {
	case o.log:
		prefix := "pgbench_log"
		if o.logPrefix != "" {
			prefix = o.logPrefix
		}
		args = append(args, "--log-prefix", prefix)
		if o.failuresDetailed {
			args = append(args, "--log-failures-detailed")
		}
		if o.fs.Changed("sampling-rate") {
			args = append(args, "--sampling-rate", strconv.FormatFloat(o.samplingRate, 'g', -1, 64))
		}
		if o.fs.Changed("aggregate-interval") {
			if o.aggregateInterval <= 0 {
				return nil, nil, inputf("invalid number of seconds for aggregation: %d (give --aggregate-interval 1 or more)", o.aggregateInterval)
			}
			if o.fs.Changed("sampling-rate") {
				return nil, nil, inputf("sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
			}
			args = append(args, "--aggregate-interval", strconv.Itoa(o.aggregateInterval))
		}
	case o.fs.Changed("aggregate-interval"):
		return nil, nil, inputf("log aggregation is allowed only when actually logging transactions: add -l, or leave --aggregate-interval out")
	case o.fs.Changed("sampling-rate"):
		return nil, nil, inputf("log sampling (--sampling-rate) is allowed only when logging transactions (-l): add -l, or leave --sampling-rate out")
	case o.logPrefix != "":
		return nil, nil, inputf("log file prefix (--log-prefix) is allowed only when logging transactions (-l): add -l, or leave --log-prefix out")
	}
	if o.fs.Changed("scale") {
		args = append(args, "--scale", strconv.Itoa(o.scale))
	}
	for _, d := range o.defines {
		args = append(args, "-D", d)
	}
	if o.randomSeed != "" {
		seed, err := randomSeed(o.randomSeed)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, "--seed", strconv.FormatUint(seed, 10))
		warnings = append(warnings, "setting random seed to "+strconv.FormatUint(seed, 10))
	}
	// Serialization failures and deadlocks are tried again up to
	// --max-tries, then counted failed; other errors end the run, as
	// they abort pgbench's clients.
	// --max-tries 0 is pgbench's unlimited tries, bounded by -T's end
	// or -L's time (pgbench refuses it without either).
	switch {
	case o.maxTries < 0:
		return nil, nil, inputf("invalid number of maximum tries: \"%d\" (give --max-tries 1 or more, or 0 for unlimited tries)", o.maxTries)
	case o.maxTries == 0 && o.latencyLimit == 0 && o.duration == 0:
		return nil, nil, inputf("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	case o.maxTries == 0:
		args = append(args, "--unlimited-tries")
	default:
		args = append(args, "--max-tries", strconv.Itoa(o.maxTries))
	}
	if o.maxTries != 1 && o.latencyLimit > 0 {
		// pgbench tries a transaction again only within -L of its
		// (scheduled) start.
		args = append(args, "--tries-within", strconv.FormatFloat(o.latencyLimit*1000, 'f', -1, 64)+"us")
	}
	args = append(args, "--output-style", "pgbench", conn)
	return args, warnings, nil
}

// Getenv is os.Getenv, for Parse.
var Getenv = os.Getenv

// ordered is the value of -b, -f, -N and -S: each adds a script to order,
// in the order given (-N and -S a fixed built-in, as pgbench's do).
type ordered struct {
	vals  *[]string
	order *[]string
	flag  string
	fixed string
	on    *bool
}

// Set implements pflag.Value.
func (v *ordered) Set(s string) error {
	if v.fixed != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		if b {
			*v.on = true
			*v.order = append(*v.order, v.flag, v.fixed)
		}
		return nil
	}
	*v.vals = append(*v.vals, s)
	*v.order = append(*v.order, v.flag, s)
	return nil
}

// String implements pflag.Value.
func (v *ordered) String() string {
	if v.fixed != "" {
		return strconv.FormatBool(v.on != nil && *v.on)
	}
	if v.vals == nil {
		return "[]"
	}
	return "[" + strings.Join(*v.vals, ",") + "]"
}

// Type implements pflag.Value.
func (v *ordered) Type() string {
	if v.fixed != "" {
		return "bool"
	}
	return "stringArray"
}

// randomSeed is the seed --random-seed gives, as pgbench's
// set_random_seed takes it: "time" the clock in µs (pgbench reads its
// monotonic clock), "rand" a strong random number, else an unsigned
// integer.
func randomSeed(arg string) (uint64, error) {
	switch arg {
	case "time":
		return uint64(time.Now().UnixMicro()), nil
	case "rand":
		var b [8]byte
		if _, err := cryptorand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("--random-seed rand: %w", err)
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	seed, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return 0, inputf("unrecognized random seed option \"%s\": give \"time\", \"rand\" or an unsigned integer", arg)
	}
	return seed, nil
}
