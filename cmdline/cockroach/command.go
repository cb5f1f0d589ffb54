package cockroach

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// usageError is an error of the command line; it matches run.ErrInput
// (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == run.ErrInput }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// DefaultURL is cockroach's URL when none is given (with --user root).
const DefaultURL = "postgresql://root@localhost:26257?sslmode=disable"

// Usage is the help of `stampede workload`.
const Usage = `Usage: stampede workload init|run|check WORKLOAD [flags] [URL...]

Runs a ` + "`cockroach workload`" + ` command line as cockroach runs it: paste the line
after ` + "`stampede`" + ` (keep the word workload). Workloads: bank, tpcc, ycsb.
With no URL, cockroach's postgresql://root@localhost:26257?sslmode=disable.
Output is cockroach's, byte for byte; stampede's own figures go to stderr.
` + "`stampede workload run WORKLOAD --help`" + ` lists the flags.

Examples:
` + examples

// examples are the help's command lines.
const examples = `  stampede workload init tpcc --warehouses 10 'postgresql://root@localhost:26257?sslmode=disable'
  stampede workload run tpcc --warehouses 10 --duration 10m 'postgresql://root@localhost:26257?sslmode=disable'
  stampede workload run ycsb --workload B --duration 1m
  stampede workload check bank 'postgresql://root@localhost:26257?sslmode=disable'
`

// Command is a parsed `workload` command line.
type Command struct {
	// Verb is init, run or check; Workload the workload's name.
	Verb, Workload string
	// URLs are the connection URLs (cockroach's default when none was
	// given), with the database and session variables set.
	URLs []string
	// Database is the database (the workload's name or --db).
	Database string

	gen      workload.Flagser
	def      *workloadDef
	fs       *pflag.FlagSet
	byName   map[string]cflag
	warnings []string
	given    []string // stampede workload flags set, as --name=value

	concurrency, conns int
	// families is --families given true; crdbFamilies whether the tables
	// get column families on CockroachDB (ycsb's default depends on its
	// workload, as cockroach's).
	families, crdbFamilies bool
	split, scatter         bool
	splitGiven             bool
	// loadKnown says that a run given no --warehouses has read the load
	// (adoptLoad): --partitions is then checked against --warehouses,
	// which until then is only the default.
	loadKnown bool
	// loaded is the warehouses init loaded, as adoptLoad read them for
	// a run given no --warehouses (0: not read).
	loaded int
}

// value returns flag name's value (its default when not given).
func (c *Command) value(name string) string {
	f := c.fs.Lookup(name)
	if f == nil {
		return ""
	}
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return strings.Join(sv.GetSlice(), ",")
	}
	return f.Value.String()
}

func (c *Command) warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// setGen sets stampede's workload flag name.
func (c *Command) setGen(name, v string) error { return c.setGenFrom(name, name, v) }

// setGenFrom sets stampede's workload flag to from cockroach's flag from.
func (c *Command) setGenFrom(from, to, v string) error {
	f := c.gen.Flags().Lookup(to)
	if f == nil {
		return usagef("--%s: stampede's %s has no such setting yet", from, c.Workload)
	}
	if err := f.Value.Set(v); err != nil {
		return usagef("invalid value %q for --%s: %v", v, from, err)
	}
	f.Changed = true
	c.given = append(c.given, "--"+to+"="+v)
	return nil
}

// Parse parses args, the words after `stampede workload`.
func Parse(args []string) (*Command, error) {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		return nil, helpError{Usage}
	}
	if len(args) == 0 {
		return nil, usagef("name what to do: `stampede workload init|run|check WORKLOAD [flags] [URL...]` (workloads: %s)", workloadNames())
	}
	verb := args[0]
	switch verb {
	case "init", "run", "check":
	case "fixtures", "debug", "csv-server":
		return nil, usagef("`workload %s` is cockroach's tooling around CockroachDB, not a load: stampede has init, run and check", verb)
	default:
		return nil, usagef("unknown `workload %s`: use init, run or check, as in `stampede workload run ycsb URL`", verb)
	}
	if len(args) > 1 && (args[1] == "--help" || args[1] == "-h") {
		return nil, helpError{Usage} // `workload init --help`
	}
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return nil, usagef("name the workload: `stampede workload %s WORKLOAD [flags] [URL...]` (workloads: %s)", verb, workloadNames())
	}
	name := args[1]
	def, ok := workloads[name]
	if !ok {
		return nil, usagef("cockroach's workload %q is not one stampede runs: use %s (or `stampede run` for stampede's own workloads)", name, workloadNames())
	}
	m, ok := workload.Get(name)
	if !ok {
		return nil, errorf("workload %s is not registered", name)
	}
	gen, ok := m.New().(workload.Flagser)
	if !ok {
		return nil, errorf("workload %s has no flags", name)
	}
	c := &Command{Verb: verb, Workload: name, gen: gen, def: def}
	c.fs, c.byName = newFlagSet("workload "+verb+" "+name, flagsFor(verb, def))
	c.fs.SetOutput(discard{})
	if err := c.fs.Parse(args[2:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, helpError{c.help()}
		}
		return nil, usagef("%v: see `stampede workload %s %s --help`", cmdline.FlagValueError(err), verb, name)
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return c, nil
}

// helpError carries the help text, which the caller prints.
type helpError struct{ text string }

func (e helpError) Error() string { return e.text }

// IsHelp reports whether err is a request for help, and returns the text.
func IsHelp(err error) (string, bool) {
	var h helpError
	if errors.As(err, &h) {
		return h.text, true
	}
	return "", false
}

// help is the command's flag listing.
func (c *Command) help() string {
	return fmt.Sprintf("Usage: stampede workload %s %s [flags] [URL...]\n\nExamples:\n  stampede workload %s %s 'postgresql://root@localhost:26257?sslmode=disable'\n\nFlags (cockroach's, with its defaults):\n%s",
		c.Verb, c.Workload, c.Verb, c.Workload, c.fs.FlagUsages())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// resolve checks the flags and applies them.
func (c *Command) resolve() error {
	// Refused flags first, in the order given is not kept by pflag: in
	// the table's order.
	var refusal error
	c.fs.Visit(func(f *pflag.Flag) {
		if cf := c.byName[f.Name]; cf.refuse != "" && refusal == nil {
			refusal = usagef("--%s: %s", f.Name, cf.refuse)
		}
	})
	if refusal != nil {
		return refusal
	}
	var err error
	c.fs.VisitAll(func(f *pflag.Flag) {
		cf := c.byName[f.Name]
		if err != nil || cf.to == "" || !(f.Changed || cf.always) {
			return
		}
		v := c.value(f.Name)
		if cf.conv != nil {
			if v, err = cf.conv(v); err != nil {
				err = usagef("%v", err)
				return
			}
		}
		err = c.setGenFrom(f.Name, cf.to, v)
	})
	if err != nil {
		return err
	}
	if c.def.resolve != nil {
		if err := c.def.resolve(c); err != nil {
			return err
		}
	}
	if err := c.resolveConn(); err != nil {
		return err
	}
	if err := c.validateGen(); err != nil {
		return err
	}
	return c.resolveRun()
}

// validateGen is the workload's own check of its settings (its Validate
// hook), whose errors name the flags cockroach's workload shares with
// stampede's (--rows, --warehouses).
func (c *Command) validateGen() error {
	if h, ok := c.gen.(workload.Hookser); ok && h.Hooks().Validate != nil {
		if err := h.Hooks().Validate(); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// resolveConn builds the URLs: the ones given, else cockroach's default
// of --user, --password and --secure; each names the database
// (--db or the workload's) and carries application_name (the workload's
// name, as cockroach's), --isolation-level and --conn-vars as session
// variables.
func (c *Command) resolveConn() error {
	urls := c.fs.Args()
	for _, u := range urls {
		if strings.HasPrefix(u, "-") {
			return usagef("unexpected argument %q", u)
		}
	}
	if len(urls) == 0 {
		urls = []string{c.defaultURL()}
	} else {
		for _, f := range []string{"user", "password", "secure"} {
			if c.fs.Changed(f) {
				c.warnf("--%s shapes cockroach's default URL only: the URLs given say how to connect (as in cockroach, it changes nothing)", f)
			}
		}
	}
	db := c.Workload
	if c.def.conn && c.value("db") != "" {
		db = c.value("db")
	}
	// cockroach names its connections after the workload (--conn-vars
	// may rename them).
	vars := url.Values{"application_name": {c.Workload}}
	if c.def.conn {
		if iso := c.value("isolation-level"); iso != "" {
			level, err := isolation(iso)
			if err != nil {
				return err
			}
			if c.Workload == "tpcc" {
				if err := c.setGenFrom("isolation-level", "isolation", strings.ReplaceAll(level, " ", "-")); err != nil {
					return err
				}
			}
			vars.Set("default_transaction_isolation", level)
		}
		for _, kv := range strings.Split(c.value("conn-vars"), ",") {
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return usagef(`expected "key=value" format for --conn-vars, got %q`, kv)
			}
			vars.Set(k, v)
		}
		switch m := c.value("method"); m {
		case "cache_statement", "prepare":
		default:
			return usagef("--method=%s: stampede prepares each statement once per connection and binds its arguments, as cache_statement (prepare) does; other issue methods are not available", m)
		}
	}
	for i, raw := range urls {
		if err := sqlx.CheckUserinfo(raw); err != nil {
			return usagef("malformed connection URL %s: %v", sqlx.HideUserinfo(raw), err)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return usagef("%q is not a postgresql:// URL (cockroach workload takes URLs only)", redact(raw))
		}
		if d := strings.TrimPrefix(u.Path, "/"); d != "" && d != db {
			return usagef("%s specifies database %q, but database %q is expected (the workload's, or --db)", redact(raw), d, db)
		}
		u.Path = "/" + db
		q := u.Query()
		for k := range vars {
			q.Set(k, vars.Get(k))
		}
		// pgx decodes URLs as libpq does: "+" is a plus, not a space
		// (url.Values encodes "read committed" as read+committed).
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
		urls[i] = u.String()
	}
	c.URLs, c.Database = urls, db
	return nil
}

// defaultURL is cockroach's URL without one given.
func (c *Command) defaultURL() string {
	user, pw := c.value("user"), c.value("password")
	u := &url.URL{Scheme: "postgresql", User: url.User(user), Host: "localhost:26257"}
	q := url.Values{}
	switch {
	case c.value("secure") != "true":
		q.Set("sslmode", "disable")
	case pw != "":
		u.User = url.UserPassword(user, pw)
		q.Set("sslmode", "require")
		q.Set("sslrootcert", "certs/ca.crt")
	default:
		q.Set("sslcert", "certs/client."+user+".crt")
		q.Set("sslkey", "certs/client."+user+".key")
		q.Set("sslrootcert", "certs/ca.crt")
		q.Set("sslmode", "require")
	}
	if pw != "" && c.value("secure") != "true" {
		u.User = url.UserPassword(user, pw)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// isolation maps --isolation-level to PostgreSQL's level.
func isolation(s string) (string, error) {
	switch strings.ReplaceAll(strings.ToLower(s), "-", "_") {
	case "serializable":
		return "serializable", nil
	case "snapshot", "repeatable_read":
		return "repeatable read", nil
	case "read_committed":
		return "read committed", nil
	}
	return "", usagef("unknown --isolation-level %q: use serializable, snapshot, repeatable_read or read_committed", s)
}

// resolveRun checks the run's and init's flags.
func (c *Command) resolveRun() error {
	if c.concurrency == 0 && c.def.conn {
		n, _ := strconv.Atoi(c.value("concurrency"))
		if n < 1 {
			return usagef("--concurrency %d: need at least 1 worker", n)
		}
		c.concurrency = n
	}
	if c.Verb == "check" {
		return nil
	}
	switch strings.ToLower(c.value("data-loader")) {
	case "auto", "insert", "inserts", "copy", "import", "imports":
	default:
		return usagef("unknown --data-loader %q: use insert, copy, import or auto", c.value("data-loader"))
	}
	if n, _ := strconv.Atoi(c.value("init-conns")); n < 1 {
		return usagef("--init-conns %d: need at least 1 connection", n)
	}
	if c.Verb != "run" {
		return nil
	}
	switch c.value("display-format") {
	case "simple", "incremental-json":
	default:
		return usagef("unknown --display-format %q: use simple or incremental-json", c.value("display-format"))
	}
	if err := c.checkRunFlags(); err != nil {
		return err
	}
	switch c.value("latency") {
	case "", run.LatencyService, run.LatencyIntended, run.LatencyBoth:
	default:
		return usagef("unknown --latency %q: use service, intended or both", c.value("latency"))
	}
	if c.fs.Changed("latency") && c.value("max-rate") == "0" {
		return usagef("--latency only applies with --max-rate: without a rate, latency is each operation's service time")
	}
	if h := c.value("histograms"); h != "" {
		if err := checkHistograms(h, c.value("histogram-export-format")); err != nil {
			return err
		}
	} else if c.fs.Changed("histogram-export-format") || c.fs.Changed("openmetrics-labels") || c.fs.Changed("histograms-max-latency") {
		return usagef("--histogram-export-format, --histograms-max-latency and --openmetrics-labels shape the --histograms file: give --histograms FILE")
	}
	if c.value("openmetrics-labels") != "" && c.value("histogram-export-format") != "openmetrics" {
		return usagef("--openmetrics-labels label the openmetrics export: give --histogram-export-format=openmetrics")
	}
	if c.fs.Changed("max-ops") && c.value("count-errors") != "true" && c.value("tolerate-errors") == "true" {
		c.warnf("--max-ops counts failed operations too in stampede (cockroach's --count-errors): with --tolerate-errors the run may end with fewer successful ones")
	}
	return nil
}

// checkRunFlags checks run's limits, naming the flag at fault (run.Spec's
// own checks name its fields).
func (c *Command) checkRunFlags() error {
	for _, f := range []struct{ name, zero string }{{"duration", "to run until interrupted"}, {"ramp", "for no ramp"}} {
		if d := c.durationValue(f.name); d < 0 {
			return usagef("--%s %s is negative: use 0 %s", f.name, d, f.zero)
		}
	}
	if d := c.durationValue("display-every"); d < engine.MinDisplayEvery {
		return usagef("--display-every %s is shorter than %s: use %s or more", d, engine.MinDisplayEvery, engine.MinDisplayEvery)
	}
	if r, _ := strconv.ParseFloat(c.value("max-rate"), 64); r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return usagef("--max-rate %s is not a rate: use a positive number of operations per second, or 0 for no limit", c.value("max-rate"))
	} else if r > engine.MaxRateLimit {
		return usagef("--max-rate %s is more than any client reaches (%g operations a second): use a lower rate, or 0 for no limit", c.value("max-rate"), engine.MaxRateLimit)
	}
	if n, _ := strconv.ParseUint(c.value("max-ops"), 10, 64); n > math.MaxInt64 {
		return usagef("--max-ops %d is more than stampede counts to: use at most %d, or 0 for no limit", n, int64(math.MaxInt64))
	}
	name := "--concurrency"
	if c.Workload == "tpcc" {
		name = "--workers"
		if !c.fs.Changed("workers") {
			name = fmt.Sprintf("--active-warehouses %d × 10 workers =", c.concurrency/10)
		}
	}
	return run.CheckWorkers(name, c.concurrency, false)
}

// redact hides a URL's password.
func redact(u string) string { return cmdline.RedactArgs([]string{u})[0] }

// Plan describes what the command does, one setting per line: the
// golden tests compare it.
func (c *Command) Plan() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", c.Verb, c.Workload)
	fmt.Fprintf(&b, "urls: %s\n", strings.Join(c.URLs, " "))
	given := append([]string(nil), c.given...)
	sort.Strings(given)
	fmt.Fprintf(&b, "workload flags: %s\n", strings.Join(dedupe(given), " "))
	if c.Verb != "check" {
		load := c.loadSpec(run.Conn{})
		if c.Verb == "init" || load != nil {
			fmt.Fprintf(&b, "load: drop-database=%v loaders=%d insert=%v\n", c.value("drop") == "true", load.Concurrency, load.Insert)
			if points := c.splitPoints(); len(points) > 0 {
				var tables []string
				for t, p := range points {
					tables = append(tables, fmt.Sprintf("%s=%d", t, len(p)))
				}
				sort.Strings(tables)
				fmt.Fprintf(&b, "split points (CockroachDB): %s\n", strings.Join(tables, " "))
			}
		}
	}
	if c.Verb == "run" {
		s := c.runSpec(run.Conn{})
		fmt.Fprintf(&b, "run: concurrency=%d conns=%d duration=%s ramp=%s max-ops=%d max-rate=%g latency=%s display-every=%s tolerate-errors=%v seed=%d\n",
			s.Concurrency, c.conns, s.Duration, s.Ramp, s.MaxOps, s.MaxRate, s.Latency, s.DisplayEvery, s.TolerateErrors, s.Seed)
		fmt.Fprintf(&b, "output: format=%s result=%q histograms=%q\n", c.value("display-format"), c.resultSeries(), c.value("histograms"))
	}
	if idle := c.value("idle-conns"); idle != "" && idle != "0" {
		fmt.Fprintf(&b, "idle-conns: %s per URL\n", idle)
	}
	if c.split || c.scatter || c.families || c.crdbFamilies {
		fmt.Fprintf(&b, "cockroachdb: split=%v scatter=%v families=%v\n", c.split, c.scatter, c.families || c.crdbFamilies)
	}
	for _, w := range c.warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// durationValue reads a duration flag.
func (c *Command) durationValue(name string) time.Duration {
	d, _ := time.ParseDuration(c.value(name))
	return d
}
