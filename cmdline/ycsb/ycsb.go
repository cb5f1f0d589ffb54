// Package ycsb reads YCSB's command lines: a line typed for YCSB's
// bin/ycsb (or its Client class), with stampede in place of bin/ycsb,
//
//	stampede load jdbc -P workloads/workloada -p db.url=jdbc:postgresql://h1:26257,h2:26257/ycsb -threads 6
//	stampede run jdbc -P workloads/workloada -cp lib/postgresql-42.2.4.jar -p db.url=... -threads 6 -target 500 -s
//	stampede ycsb -t -db site.ycsb.db.JdbcDBClient -P workloads/workloada -threads 6
//	stampede site.ycsb.Client -load -db site.ycsb.db.JdbcDBClient -P workloads/workloada
//
// becomes stampede's own (`stampede init|run ycsb ...`). The verbs are
// YCSB's: load (stampede's init) and run, or -load and -t; the binding
// names the database: jdbc and postgrenosql are YCSB over PostgreSQL's
// wire protocol, as is ycsb itself, and other bindings are refused.
// YCSB's single-dash options map onto stampede's flags:
//
//	-threads N     --threads N, stampede's alias of --concurrency (init: N
//	               streams), so that errors name the flag typed; a run or load
//	               without it has one worker, YCSB's default
//	-target N      --max-rate N (YCSB's target, see below)
//	-s             YCSB's status lines on stderr every status.interval
//	               seconds (10 unless given): --display-every
//	-db CLASS      the binding, by its class name
//	-l LABEL       --tag label=LABEL, and the status lines' prefix
//	-P FILE, -p k=v  the workload's properties, as they are
//	-cp, -jvm-args accepted and ignored, with a warning
//
// and so do the client's properties, from -p or a -P file: threadcount,
// target, status, status.interval, maxexecutiontime (--duration), label,
// db, and the JDBC binding's connection: db.url (see jdbcURLs), db.user
// and db.passwd (postgrenosql.url, .user, .passwd alike), which become the
// URLs the run connects to. db.driver and jdbc.* (but jdbc.batchupdateapi,
// which with db.batchsize batches the workload's inserts) are accepted
// and ignored with one warning line. A line in YCSB's form prints YCSB's
// report (--output-style ycsb, what YCSB 0.17.0's report holds),
// and on run its status lines only with -s, as YCSB does. Its load
// inserts as YCSB's does, timing each insert (see
// workload.LoadOptions.Timer), for the report's [INSERT] latencies.
//
// YCSB's -target gives each of its threads an even share of the rate, a
// schedule of intended starts counted from the thread's start, which the
// thread sleeps to keep and, when late, catches up with back to back.
// stampede's --max-rate schedules its workers the same way; YCSB
// measures latency from each operation's actual start unless
// measurement.interval=intended, and so does --output-style ycsb.
package ycsb

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
	wycsb "github.com/stampede-bench/stampede/workload/ycsb"
)

// Line is a YCSB command line read as stampede's.
type Line struct {
	// Args are stampede's arguments: the verb, "ycsb", the flags and the
	// URLs.
	Args []string
	// Warnings are what was accepted and ignored, one line each.
	Warnings []string
	// Secrets are the passwords the line gave (db.passwd), to scrub from
	// what is printed and saved.
	Secrets []string
}

// bindings are YCSB's bindings (bin/ycsb's names) and stampede's ycsb,
// with the class -db names them by; those that speak PostgreSQL's wire
// protocol are runnable.
var bindings = map[string]struct {
	class    string
	runnable bool
}{
	"ycsb":         {"", true},
	"jdbc":         {"site.ycsb.db.JdbcDBClient", true},
	"postgrenosql": {"site.ycsb.postgrenosql.PostgreNoSQLDBClient", true},
	"basic":        {"site.ycsb.BasicDB", false},
	"basicts":      {"site.ycsb.BasicTSDB", false},
}

// otherBindings are the rest of bin/ycsb's bindings, refused by name.
var otherBindings = strings.Fields(`accumulo1.9 aerospike arangodb arangodb3 asynchbase azurecosmos azuretablestorage
	cassandra-cql cassandra2-cql cloudspanner couchbase couchbase2 crail dynamodb elasticsearch elasticsearch5
	elasticsearch5-rest foundationdb geode googlebigtable googlebigtable2 googledatastore griddb hbase1 hbase2 ignite
	ignite-sql infinispan-cs infinispan kudu memcached maprdb maprjsondb mongodb mongodb-async nosqldb orientdb rados
	redis rest riak rocksdb s3 seaweedfs scylla solr7 tarantool tablestore zookeeper`)

// verbs are the verbs a YCSB line may start with, and stampede's they
// become ("" for YCSB's shell, refused).
var verbs = map[string]string{
	"load": "init", "run": "run", "shell": "",
	"init": "init", "prepare": "init", "check": "check", "cleanup": "cleanup",
}

// bindingOf names the binding of a YCSB binding name or class (-db),
// and whether it is one at all.
func bindingOf(s string) (string, bool) {
	if _, ok := bindings[s]; ok {
		return s, true
	}
	for name, b := range bindings {
		if b.class != "" && (s == b.class || s == strings.Replace(b.class, "site.ycsb", "com.yahoo.ycsb", 1)) {
			return name, true
		}
	}
	for _, name := range otherBindings {
		if s == name {
			return name, true
		}
	}
	if strings.HasPrefix(s, "site.ycsb.") || strings.HasPrefix(s, "com.yahoo.ycsb.") {
		return s, true
	}
	return "", false
}

// checkBinding refuses a binding stampede cannot run.
func checkBinding(name string) error {
	b, ok := bindings[name]
	switch {
	case ok && b.runnable:
		return nil
	case name == "basic" || name == "basicts":
		return usagef("YCSB's %s binding measures YCSB alone: use `stampede run ycsb --driver null` to measure stampede alone, or jdbc for a database", name)
	}
	return usagef("YCSB binding %s is not supported: stampede runs YCSB over PostgreSQL's wire protocol: use jdbc or postgrenosql (`stampede run jdbc -P workloads/workloada -p db.url=jdbc:postgresql://HOST:PORT/DB`)", name)
}

// option is one of YCSB's single-dash options.
type option struct {
	// value says the option takes a value.
	value bool
	// property is the client property it sets ("" for none).
	property string
}

var options = map[string]option{
	"-threads": {true, "threadcount"},
	"-target":  {true, "target"},
	"-s":       {false, "status"},
	"-load":    {false, ""},
	"-t":       {false, ""},
	"-db":      {true, "db"},
	"-l":       {true, "label"},
	"-cp":      {true, ""},
	// bin/ycsb's python script takes -jvm-args ARGS.
	"-jvm-args": {true, ""},
}

// clientProperties are the properties the command line reads, not the
// workload: YCSB's Client's and the JDBC binding's connection.
var clientProperties = map[string]bool{
	"threadcount": true, "target": true, "status": true, "status.interval": true, "maxexecutiontime": true,
	"label": true, "db": true, "dotransactions": true,
	"db.url": true, "db.user": true, "db.passwd": true, "db.driver": true,
	"postgrenosql.url": true, "postgrenosql.user": true, "postgrenosql.passwd": true, "postgrenosql.autocommit": true,
}

// isClientProperty reports whether the command line reads key.
func isClientProperty(key string) bool {
	return clientProperties[key] || (strings.HasPrefix(key, "jdbc.") && key != "jdbc.batchupdateapi")
}

// prop is a client property's value and where it came from.
type prop struct{ value, from string }

// parser is the state of one Parse.
type parser struct {
	verb, binding string
	// ycsbForm says the line is in YCSB's form (a YCSB binding or
	// option), not only stampede's with YCSB's properties.
	ycsbForm bool
	// word is the verb as given; phase is -load or -t when given.
	word, phase string
	// files are the -P files; props the client properties of the command
	// line (over the files').
	files   []string
	props   map[string]prop
	ignored []string
	// pass are the arguments passed on as they are.
	pass []string
	// client says the line names YCSB's Client class, not a binding:
	// -db names it.
	client bool
	// fileProps are the client properties of the -P files, once read.
	fileProps map[string]prop
}

// Parse reads args (the arguments after the program's name) as a YCSB
// command line: nil when they are not one (stampede's own, which it
// leaves alone). Its error is one line and matches run.ErrInput.
func Parse(args []string) (*Line, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if len(args) == 2 && args[0] == "load" && (args[1] == "--help" || args[1] == "-h") {
		return &Line{Args: []string{"init", "ycsb", "--help"}}, nil // YCSB's load is init
	}
	p := &parser{props: map[string]prop{}}
	rest, ok, err := p.head(args)
	if !ok || err != nil {
		return nil, err
	}
	if err := p.walk(rest); err != nil {
		return nil, p.scrub(err)
	}
	l, err := p.line()
	return l, p.scrub(err)
}

// scrub returns err without the passwords of the line's client
// properties (db.passwd, postgrenosql.passwd, and db.url's user
// information and password parameters, the command line's and the -P
// files'), which the error may quote: they are printed nowhere.
func (p *parser) scrub(err error) error {
	if err == nil {
		return nil
	}
	var secrets []string
	add := func(key, value string) {
		switch {
		case strings.HasSuffix(key, "passwd"):
			secrets = append(secrets, value)
		case strings.HasSuffix(key, ".url"):
			secrets = append(secrets, urlSecrets(value)...)
		}
	}
	for k, v := range p.props {
		add(k, v.value)
	}
	for k, v := range p.fileProps {
		add(k, v.value)
	}
	msg := err.Error()
	if scrubbed := redact.ScrubText(msg, secrets); scrubbed != msg {
		return usageError{errors.New(scrubbed)}
	}
	return err
}

// head finds the verb and the binding: `VERB BINDING ...`, or a binding
// first with -load, -t or a verb word after it (YCSB's Client, sysbench's
// word order). It returns the arguments after them.
func (p *parser) head(args []string) ([]string, bool, error) {
	if args[0] == "load" {
		// YCSB's verb, not a command of stampede's: say what it takes.
		if len(args) == 1 || strings.HasPrefix(args[1], "-") {
			return nil, false, usagef("load is YCSB's init: give a YCSB binding, `stampede load jdbc -P workloads/workloada -p db.url=jdbc:postgresql://HOST:PORT/DB`")
		}
		if _, ok := bindingOf(args[1]); !ok {
			return nil, false, usagef("load is YCSB's init, for YCSB's bindings (jdbc, postgrenosql, ycsb): for %s, use `stampede init %s`", args[1], args[1])
		}
	}
	if verb, ok := verbs[args[0]]; ok && len(args) > 1 {
		name, isBinding := bindingOf(args[1])
		if !isBinding || (name == "ycsb" && !p.hasYCSBOptions(args[2:]) && args[0] != "load") {
			// stampede's own line: only its properties may be YCSB's.
			if !isBinding || !hasClientProperties(args[2:]) {
				return nil, false, nil
			}
		}
		if verb == "" {
			return nil, false, usagef("YCSB's shell (interactive mode) is not supported: use `stampede load %s` and `stampede run %s`", args[1], args[1])
		}
		if err := checkBinding(name); err != nil {
			return nil, false, err
		}
		p.verb, p.word, p.binding = verb, args[0], name
		p.ycsbForm = name != "ycsb" || args[0] == "load" || p.hasYCSBOptions(args[2:])
		return args[2:], true, nil
	}
	name, isBinding := bindingOf(args[0])
	if args[0] == "site.ycsb.Client" || args[0] == "com.yahoo.ycsb.Client" {
		// java site.ycsb.Client -db CLASS ...: the binding is -db's.
		name, isBinding, p.client = "", true, true
	}
	if !isBinding {
		return nil, false, nil
	}
	var rest []string
	for i, a := range args[1:] {
		if v, ok := verbs[a]; ok && (i == 0 || !takesValue(args[i])) {
			if p.verb != "" {
				return nil, false, usagef("two verbs, %s and %s: give one", p.verb, a)
			}
			if v == "" {
				return nil, false, usagef("YCSB's shell (interactive mode) is not supported: use `stampede load %s` and `stampede run %s`", name, name)
			}
			p.verb, p.word = v, a
			continue
		}
		rest = append(rest, a)
	}
	native := name == "ycsb" && !hasPhase(rest) && !p.hasYCSBOptions(rest) && p.word != "load"
	switch {
	case native && (p.verb == "" || !hasClientProperties(rest)):
		// stampede's own line in sysbench's word order (which says
		// what is missing when there is no verb).
		return nil, false, nil
	case p.verb == "" && !hasPhase(rest) && !p.client: // the Client's default is -t
		return nil, false, usagef("say what to do with %s: `stampede run %s ...` or `stampede load %s ...` (YCSB's -t or -load)", name, name, name)
	}
	if err := checkBinding(name); err != nil && !p.client {
		return nil, false, err
	}
	p.binding, p.ycsbForm = name, !native
	return rest, true, nil
}

// takesValue reports whether flag (a stampede flag) is followed by its
// value, so that the next argument is not a verb.
func takesValue(flag string) bool {
	if o, ok := options[flag]; ok {
		return o.value
	}
	return flag == "-p" || flag == "-P" || flag == "--property" || flag == "--property-file"
}

// hasPhase reports whether args hold -load or -t.
func hasPhase(args []string) bool {
	for _, a := range args {
		if a == "-load" || a == "-t" {
			return true
		}
	}
	return false
}

// hasYCSBOptions reports whether args hold one of YCSB's single-dash
// options.
func (p *parser) hasYCSBOptions(args []string) bool {
	for _, a := range args {
		if _, ok := options[a]; ok {
			return true
		}
	}
	return false
}

// hasClientProperties reports whether args give a client property with
// -p (the JDBC binding's db.url in a line of stampede's form, say) or a
// -P file (which the walk reads).
func hasClientProperties(args []string) bool {
	for i, a := range args {
		switch {
		case a == "-P" || a == "--property-file" || strings.HasPrefix(a, "--property-file="):
			return true
		case (a == "-p" || a == "--property") && i+1 < len(args):
			k, _, _ := strings.Cut(args[i+1], "=")
			if isClientProperty(strings.TrimSpace(k)) {
				return true
			}
		case strings.HasPrefix(a, "--property="):
			k, _, _ := strings.Cut(strings.TrimPrefix(a, "--property="), "=")
			if isClientProperty(strings.TrimSpace(k)) {
				return true
			}
		}
	}
	return false
}

// walk reads the arguments after the verb and binding.
func (p *parser) walk(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", usagef("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "-P" || a == "--property-file" || strings.HasPrefix(a, "--property-file="):
			file, ok := strings.CutPrefix(a, "--property-file=")
			if !ok {
				v, err := value()
				if err != nil {
					return err
				}
				file = v
			}
			p.files = append(p.files, file)
			p.pass = append(p.pass, "-P", file)
		case a == "-p" || a == "--property" || strings.HasPrefix(a, "--property="):
			kv, ok := strings.CutPrefix(a, "--property=")
			if !ok {
				v, err := value()
				if err != nil {
					return err
				}
				kv = v
			}
			k, v, found := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !found && strings.HasPrefix(kv, "-") {
				// `-p -p db.url=...`: the second -p is not a property,
				// and the first must not take the next one's place.
				return usagef("%s is followed by %s, not by a property: give %s name=value, or leave out the empty %s", a, kv, a, a)
			}
			if found && isClientProperty(k) {
				p.props[k] = prop{v, "-p"}
				continue
			}
			p.pass = append(p.pass, "-p", kv)
		case a == "-load" || a == "-t":
			if p.phase != "" && p.phase != a {
				return usagef("-load and -t both given: give one (YCSB's load phase or its transactions)")
			}
			p.phase = a
		default:
			o, ok := options[a]
			if !ok {
				if p.ycsbForm && len(a) > 2 && a[0] == '-' && a[1] != '-' && !isNumber(a) {
					return usagef("unknown YCSB option %s: YCSB's are -P, -p, -threads, -target, -s, -load, -t, -db, -l and bin/ycsb's -cp and -jvm-args; stampede's flags start with -- (see `stampede run ycsb --help`)", a)
				}
				p.pass = append(p.pass, a)
				continue
			}
			v := "true"
			if o.value {
				var err error
				if v, err = value(); err != nil {
					return err
				}
			}
			if o.property == "" {
				p.ignored = append(p.ignored, a+" "+v)
				continue
			}
			p.props[o.property] = prop{v, a}
		}
	}
	return nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// get returns a client property: the command line's, else the last -P
// file's that gives it.
func (p *parser) get(key string, files map[string]prop) (prop, bool) {
	if v, ok := p.props[key]; ok {
		return v, true
	}
	v, ok := files[key]
	return v, ok
}

// line builds the stampede line.
func (p *parser) line() (*Line, error) {
	files := map[string]prop{}
	p.fileProps = files
	for _, f := range p.files {
		entries, err := wycsb.ReadPropertyFile(f)
		if err != nil {
			return nil, usagef("%v", err)
		}
		for _, e := range entries {
			if isClientProperty(e.Key) || e.Key == "exporter" || e.Key == "exportfile" {
				files[e.Key] = prop{strings.TrimSpace(e.Value), fmt.Sprintf("%s:%d", f, e.Line)}
			}
		}
	}
	// Precedence as YCSB's: the command line's over the files'.
	keys := map[string]bool{}
	for k := range files {
		keys[k] = true
	}
	for k := range p.props {
		keys[k] = true
	}

	verb := p.verb
	switch {
	case verb == "" && p.phase == "-load":
		verb = "init"
	case verb == "":
		verb = "run"
	case p.phase == "-load" && verb != "init", p.phase == "-t" && verb != "run":
		return nil, usagef("%s contradicts the verb %s: give one (YCSB's load is -load, its run -t)", p.phase, p.word)
	}
	if v, ok := p.get("dotransactions", files); ok {
		want := map[string]string{"true": "run", "false": "init"}[strings.ToLower(v.value)]
		if want == "" || want != verb {
			return nil, usagef("dotransactions=%s (from %s) contradicts the verb: leave it out (load is dotransactions=false, run true)", v.value, v.from)
		}
	}
	if v, ok := p.get("db", files); ok {
		name, _ := bindingOf(v.value)
		if name == "" {
			name = v.value
		}
		if err := checkBinding(name); err != nil {
			return nil, err
		}
		if p.binding != "ycsb" && !p.client && name != p.binding {
			return nil, usagef("db %s (from %s) contradicts the binding %s: give one", v.value, v.from, p.binding)
		}
	} else if p.client {
		return nil, usagef("give the binding with -db site.ycsb.db.JdbcDBClient (YCSB's default, site.ycsb.BasicDB, measures YCSB alone)")
	}

	out := &Line{Args: []string{verb, "ycsb"}}
	var flags []string
	given := stampedeFlags(p.pass)
	add := func(ycsb, flag, value string) error {
		if g, ok := given[flag]; ok {
			if g != value {
				return usagef("%s %s and %s %s disagree: give one of them", ycsb, value, flag, g)
			}
			return nil
		}
		flags = append(flags, flag, value)
		return nil
	}
	var ignoredForVerb []string
	intProp := func(key string, min int64) (int64, bool, error) {
		v, ok := p.get(key, files)
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.value), 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return 0, false, usagef("invalid %s %q (from %s): out of range: use an integer from %d to %d", key, v.value, v.from, min, int64(math.MaxInt64))
		}
		if err != nil || n < min {
			return 0, false, usagef("invalid %s %q (from %s): use an integer of at least %d", key, v.value, v.from, min)
		}
		return n, true, nil
	}
	if n, ok, err := intProp("threadcount", 1); err != nil {
		return nil, err
	} else if ok {
		switch verb {
		case "run", "init":
			name := srcName(p.props, "threadcount", "-threads")
			if g, ok := given["--threads"]; ok && g != strconv.FormatInt(n, 10) {
				return nil, usagef("%s %d and --threads %s disagree: give one of them", name, n, g)
			}
			if err := add(name, "--concurrency", strconv.FormatInt(n, 10)); err != nil {
				return nil, err
			}
			if name == "-threads" && len(flags) >= 2 && flags[len(flags)-2] == "--concurrency" {
				// stampede's alias, so that an error about the
				// workers names the flag typed.
				flags[len(flags)-2] = "--threads"
			}
		default:
			ignoredForVerb = append(ignoredForVerb, srcName(p.props, "threadcount", "-threads"))
		}
	} else if _, given := given["--concurrency"]; !given && (verb == "run" || verb == "init") && p.ycsbForm {
		// YCSB's Client runs one thread unless told otherwise (its
		// threadcount defaults to 1), for its load too, whose report
		// counts a [CLEANUP] per thread.
		flags = append(flags, "--concurrency", "1")
	}
	if n, ok, err := intProp("target", 0); err != nil {
		return nil, err
	} else if ok && n > int64(engine.MaxRateLimit) {
		return nil, usagef("%s %d is more than any client reaches (%g operations a second): use a lower target, or 0 for no limit",
			srcName(p.props, "target", "-target"), n, engine.MaxRateLimit)
	} else if ok && n > 0 {
		if verb == "run" {
			if err := add(srcName(p.props, "target", "-target"), "--max-rate", strconv.FormatInt(n, 10)); err != nil {
				return nil, err
			}
		} else {
			ignoredForVerb = append(ignoredForVerb, srcName(p.props, "target", "-target"))
		}
	}
	if n, ok, err := intProp("maxexecutiontime", 0); err != nil {
		return nil, err
	} else if ok && n > 0 {
		if verb == "run" {
			if err := add("maxexecutiontime", "--duration", strconv.FormatInt(n, 10)+"s"); err != nil {
				return nil, err
			}
		} else {
			ignoredForVerb = append(ignoredForVerb, "maxexecutiontime")
		}
	}
	status := false
	if v, ok := p.get("status", files); ok {
		status = strings.EqualFold(strings.TrimSpace(v.value), "true")
	}
	interval, intervalGiven, err := intProp("status.interval", 1)
	if err != nil {
		return nil, err
	}
	if !intervalGiven {
		interval = 10
	}
	if v, ok := p.get("label", files); ok && v.value != "" {
		if verb == "run" {
			// The workload's label property prefixes YCSB's status lines.
			flags = append(flags, "--tag", "label="+v.value, "-p", "label="+v.value)
		} else {
			ignoredForVerb = append(ignoredForVerb, srcName(p.props, "label", "-l"))
		}
	}
	exporting := p.exporting(files)
	if style, ok := given["--output-style"]; ok && exporting != "" && style != "ycsb" {
		return nil, usagef("%s writes YCSB's report: drop --output-style %s, or give --output-style ycsb", exporting, style)
	}
	if exporting != "" && verb != "run" && verb != "init" {
		ignoredForVerb = append(ignoredForVerb, "exporter and exportfile")
	}
	if verb == "init" && (p.ycsbForm || exporting != "") {
		// YCSB's load report, [OVERALL] and [INSERT].
		if _, ok := given["--output-style"]; !ok {
			flags = append(flags, "--output-style", "ycsb")
		}
	}
	if verb == "run" && (p.ycsbForm || exporting != "") {
		if _, ok := given["--output-style"]; !ok {
			flags = append(flags, "--output-style", "ycsb")
		}
		if status {
			if err := add(srcName(p.props, "status", "-s"), "--display-every", strconv.FormatInt(interval, 10)+"s"); err != nil {
				return nil, err
			}
		} else if _, ok := given["--display-every"]; !ok {
			if _, ok := given["--report-interval"]; !ok {
				flags = append(flags, "--report-interval", "0") // YCSB prints no status lines without -s
			}
		}
	} else if status && verb != "run" {
		ignoredForVerb = append(ignoredForVerb, srcName(p.props, "status", "-s"))
	} else if status {
		if err := add(srcName(p.props, "status", "-s"), "--display-every", strconv.FormatInt(interval, 10)+"s"); err != nil {
			return nil, err
		}
	}
	if len(ignoredForVerb) > 0 {
		what := map[string]string{"init": "init loads as fast as the server takes them, without status lines",
			"check": "check only reads", "cleanup": "cleanup only drops"}[verb]
		out.Warnings = append(out.Warnings, fmt.Sprintf("ignoring %s for %s: they apply to run; %s", strings.Join(ignoredForVerb, ", "), verb, what))
	}

	if p.binding == "postgrenosql" && (verb == "init" || verb == "run") {
		out.Warnings = append(out.Warnings, "postgrenosql runs on the JDBC binding's usertable (ycsb_key and a TEXT column per field), "+
			"not PostgreNoSQL's one JSONB column: load it with `stampede load postgrenosql`, not YCSB's")
	}

	// The connection.
	urls, ignored, err := p.connection(files)
	if err != nil {
		return nil, err
	}
	if len(urls) > 0 && hasURL(p.pass) {
		return nil, usagef("both db.url and a URL argument name the database: give one of them")
	}
	var all []string
	all = append(all, p.ignored...)
	if len(ignored) > 0 {
		all = append(all, "db.url's "+strings.Join(ignored, ", "))
	}
	autocommit := false
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if k == "db.driver" || (strings.HasPrefix(k, "jdbc.") && k != "jdbc.batchupdateapi") || k == "postgrenosql.autocommit" {
			v, _ := p.get(k, files)
			all = append(all, "-p "+k+"="+v.value)
			autocommit = autocommit || strings.HasSuffix(k, ".autocommit")
		}
	}
	if len(all) > 0 {
		w := "ignoring " + strings.Join(all, ", ") + ": settings of JDBC or the JVM, which stampede, speaking PostgreSQL's wire protocol itself, has no use for"
		if autocommit {
			w += " (each statement commits on its own, as with autocommit=true)"
		}
		out.Warnings = append(out.Warnings, w)
	}
	out.Args = append(out.Args, flags...)
	out.Args = append(out.Args, p.pass...)
	out.Args = append(out.Args, urls...)
	out.Secrets = slices.Compact(slices.Sorted(slices.Values(redact.Secrets(urls, nil))))
	return out, nil
}

// exporting returns the first of exporter and exportfile given ("-p
// exportfile=F"), or "".
func (p *parser) exporting(files map[string]prop) string {
	for i, a := range p.pass {
		if a == "-p" && i+1 < len(p.pass) {
			k, _, _ := strings.Cut(p.pass[i+1], "=")
			if k = strings.TrimSpace(k); k == "exporter" || k == "exportfile" {
				return "-p " + p.pass[i+1]
			}
		}
	}
	for _, k := range []string{"exporter", "exportfile"} {
		if v, ok := files[k]; ok {
			return fmt.Sprintf("%s=%s (from %s)", k, v.value, v.from)
		}
	}
	return ""
}

// srcName is how a client property was given: by its option, when the
// command line gave it so, else as a property.
func srcName(props map[string]prop, key, opt string) string {
	if v, ok := props[key]; ok && v.from == opt {
		return opt
	}
	return key
}

// connection returns the URLs of db.url (or postgrenosql.url), with
// db.user and db.passwd, and the URL's parameters ignored.
func (p *parser) connection(files map[string]prop) ([]string, []string, error) {
	pick := func(suffix string) (prop, error) {
		a, okA := p.get("db."+suffix, files)
		b, okB := p.get("postgrenosql."+suffix, files)
		if suffix == "passwd" && okB && !okA {
			return b, nil
		}
		if okA && okB && a.value != b.value {
			return prop{}, usagef("db.%s (from %s) and postgrenosql.%s (from %s) disagree: give one of them", suffix, a.from, suffix, b.from)
		}
		if okB {
			return b, nil
		}
		return a, nil
	}
	u, err := pick("url")
	if err != nil {
		return nil, nil, err
	}
	user, err := pick("user")
	if err != nil {
		return nil, nil, err
	}
	passwd, err := pick("passwd")
	if err != nil {
		return nil, nil, err
	}
	if u.value == "" {
		if user.value != "" || passwd.value != "" {
			return nil, nil, usagef("db.user and db.passwd need db.url (jdbc:postgresql://HOST:PORT/DB), or put the user in the URL argument")
		}
		return nil, nil, nil
	}
	urls, ignored, err := jdbcURLs(u.value, user.value, passwd.value)
	if err != nil {
		return nil, nil, usagef("%v (from %s)", err, u.from)
	}
	return urls, ignored, nil
}

// stampedeFlags returns stampede's long flags among args, with their
// values.
func stampedeFlags(args []string) map[string]string {
	out := map[string]string{}
	for i, a := range args {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		if k, v, ok := strings.Cut(a, "="); ok {
			out[k] = v
		} else if i+1 < len(args) {
			out[a] = args[i+1]
		} else {
			out[a] = ""
		}
	}
	return out
}

// hasURL reports whether args hold a URL argument (not a flag's value).
func hasURL(args []string) bool {
	for i, a := range args {
		if !strings.Contains(a, "://") {
			continue
		}
		if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
			continue // --results-url postgresql://...
		}
		return true
	}
	return false
}

// usageError is an error of the command line: it matches run.ErrInput.
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == run.ErrInput }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }
