package cockroach

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// kind is a flag's type, as cockroach declares it.
type kind int

const (
	kBool kind = iota
	kInt
	kUint
	kFloat
	kString
	kDuration
	kStrings // a comma-separated list
	kInts    // a comma-separated list of ints
)

// cflag is one flag of a cockroach command line and what stampede does
// with it: sets a stampede workload flag (to), refuses it when given
// (refuse), or leaves it to the command's code (neither; read through
// Command.value).
type cflag struct {
	name  string
	kind  kind
	def   string
	usage string
	// to is the stampede workload flag the value goes to when given (or
	// always, with always), through conv when set.
	to     string
	conv   func(string) (string, error)
	always bool
	// refuse is why the flag cannot be honoured; giving it is an error.
	refuse string
	// noOpt is the value of the flag given without one (bools: "true").
	noOpt string
}

// define adds f to fs.
func (f cflag) define(fs *pflag.FlagSet) {
	var fl *pflag.Flag
	if f.refuse != "" && f.usage == "" {
		f.usage = "not available: " + f.refuse
	}
	switch f.kind {
	case kBool:
		fs.Bool(f.name, f.def == "true", f.usage)
	case kInt:
		v, _ := strconv.Atoi(f.def)
		fs.Int(f.name, v, f.usage)
	case kUint:
		v, _ := strconv.ParseUint(f.def, 10, 64)
		fs.Uint64(f.name, v, f.usage)
	case kFloat:
		v, _ := strconv.ParseFloat(f.def, 64)
		fs.Float64(f.name, v, f.usage)
	case kDuration:
		v, _ := time.ParseDuration(f.def)
		fs.Duration(f.name, v, f.usage)
	case kStrings:
		fs.StringSlice(f.name, nil, f.usage)
	case kInts:
		fs.IntSlice(f.name, nil, f.usage)
	default:
		fs.String(f.name, f.def, f.usage)
	}
	fl = fs.Lookup(f.name)
	if f.noOpt != "" {
		fl.NoOptDefVal = f.noOpt
	}
}

// Flags common to cockroach's commands (pkg/workload/cli/run.go and
// pkg/workload/connection.go), by the flag sets cockroach adds them in.
var (
	// runFlags are `workload run`'s.
	runFlags = []cflag{
		{name: "tolerate-errors", kind: kBool, usage: "keep running on error"},
		{name: "max-rate", kind: kFloat, def: "0", usage: "maximum frequency of operations, in total (0: no limit); latency is then service time (see --latency)"},
		{name: "max-ops", kind: kUint, def: "0", usage: "maximum number of operations to run"},
		{name: "count-errors", kind: kBool, usage: "unsuccessful operations count towards --max-ops (stampede's always do)"},
		{name: "duration", kind: kDuration, def: "0s", usage: "the duration to run, in addition to --ramp (0: forever)"},
		{name: "init", kind: kBool, usage: "run init first (deprecated in cockroach: use workload init)"},
		{name: "ramp", kind: kDuration, def: "0s", usage: "the duration over which to ramp up load"},
		{name: "display-every", kind: kDuration, def: "1s", usage: "time between every one-line activity report"},
		{name: "display-format", kind: kString, def: "simple", usage: "output display format: simple or incremental-json"},
		{name: "histograms", kind: kString, usage: "file to write per-op incremental histogram data to"},
		{name: "histogram-export-format", kind: kString, def: "json", usage: "format of --histograms: json or openmetrics"},
		{name: "histograms-max-latency", kind: kDuration, def: "100s", usage: "expected maximum latency of an operation (the exported histograms' range)"},
		{name: "openmetrics-labels", kind: kString, usage: "comma-separated key=value labels of the openmetrics export"},
		{name: "with-changefeed", kind: kBool, refuse: "changefeeds are CockroachDB's (CREATE CHANGEFEED); stampede does not run one beside the workload"},
		{name: "drop", kind: kBool, usage: "drop the existing database first (implies --init); stampede: only a database holding nothing but what stampede made"},
		{name: "force-drop", kind: kBool, usage: "stampede: --drop, even when the database holds objects stampede did not make"},
		// stampede's own, for what cockroach has no flag for.
		{name: "latency", kind: kString, usage: "stampede: under --max-rate, the latency shown: service (cockroach's, the default), intended (stampede's open loop: from each operation's scheduled start, coordinated omission corrected) or both"},
	}
	// initFlags are `workload init`'s.
	initFlags = []cflag{
		{name: "drop", kind: kBool, usage: "drop the existing database, if it exists; stampede: only a database holding nothing but what stampede made"},
		{name: "force-drop", kind: kBool, usage: "stampede: --drop, even when the database holds objects stampede did not make"},
	}
	// sharedFlags are init's and run's.
	sharedFlags = []cflag{
		{name: "pprofport", kind: kString, def: "33333", usage: "port of the Go pprof endpoint, on every interface (served only when given); stampede: or host:port, such as 127.0.0.1:33333"},
		{name: "data-loader", kind: kString, def: "AUTO", usage: "how to load the initial data: insert, copy, import (COPY FROM STDIN on PostgreSQL) or auto"},
		{name: "init-conns", kind: kInt, def: "16", usage: "the number of connections (and loaders) init uses"},
		{name: "prometheus-port", kind: kString, def: "2112", usage: "port to serve live metrics on, on every interface (served only when given); stampede: or host:port, such as 127.0.0.1:2112"},
		{name: "operation-receiver", kind: kString, refuse: "stampede does not send each operation's latency over UDP; --histograms exports them per tick"},
		{name: "results-dir", kind: kString, usage: "stampede: where the run directory is written (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)"},
	}
	// securityFlags are every command's.
	securityFlags = []cflag{
		{name: "secure", kind: kBool, usage: "the default URL uses sslmode=require with the certificates in certs/"},
		{name: "user", kind: kString, def: "root", usage: "the default URL's user"},
		{name: "password", kind: kString, usage: "the default URL's password"},
	}
	// connFlags are those of the workloads with cockroach's ConnFlags.
	connFlags = []cflag{
		{name: "db", kind: kString, usage: "the database (default: the workload's name); a URL naming another one is an error"},
		{name: "isolation-level", kind: kString, usage: "isolation level of the transactions: serializable, snapshot (repeatable read on PostgreSQL), repeatable_read or read_committed"},
		{name: "conn-vars", kind: kStrings, usage: "session variables as key=value, set on every connection"},
		{name: "concurrency", kind: kInt, def: strconv.Itoa(2 * runtime.GOMAXPROCS(0)), usage: "number of concurrent workers (2 per CPU)"},
		{name: "method", kind: kString, def: "cache_statement", usage: "SQL issue method: cache_statement (prepare, as stampede does)"},
		{name: "dns-refresh", kind: kDuration, def: "0s", refuse: poolRefusal},
		{name: "conn-healthcheck-period", kind: kDuration, def: "0s", refuse: poolRefusal},
		{name: "min-conns", kind: kInt, def: "0", refuse: poolRefusal},
		{name: "max-conn-idle-time", kind: kDuration, def: "0s", refuse: poolRefusal},
		{name: "max-conn-lifetime", kind: kDuration, def: "0s", refuse: poolRefusal},
		{name: "max-conn-lifetime-jitter", kind: kDuration, def: "0s", refuse: poolRefusal},
		{name: "warmup-conns", kind: kInt, def: "0", refuse: poolRefusal},
	}
)

// poolRefusal says why cockroach's connection-pool tuning is refused.
const poolRefusal = "stampede's workers keep their connections for the whole run (connected before the first operation, re-established only when lost): there is no pool to tune"

// scaleOut says why the partitioning flags are refused.
const scaleOut = "stampede places no partition (zones, regions, leases are CockroachDB's): run --partitions N --partition-affinity I runs the terminals of partition I's warehouses, as --clients N --client-index I does; leave the flag out"

// flagsFor returns the common flags of verb, then the workload's.
func flagsFor(verb string, w *workloadDef) []cflag {
	var out []cflag
	switch verb {
	case "run":
		out = append(out, runFlags...)
		out = append(out, sharedFlags...)
	case "init":
		out = append(out, initFlags...)
		out = append(out, sharedFlags...)
	}
	out = append(out, securityFlags...)
	if w.conn {
		out = append(out, connFlags...)
	}
	out = append(out, w.flags...)
	return out
}

// newFlagSet defines flags on a new FlagSet; a name defined twice keeps
// its first definition (run's --drop is init's).
func newFlagSet(name string, flags []cflag) (*pflag.FlagSet, map[string]cflag) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	byName := map[string]cflag{}
	for _, f := range flags {
		if _, ok := byName[f.name]; ok {
			continue
		}
		byName[f.name] = f
		f.define(fs)
	}
	return fs, byName
}

// lowerChoice returns a conv that lower-cases a value and checks it is
// one of choices.
func lowerChoice(flag string, choices ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(v)
		for _, c := range choices {
			if l == c {
				return l, nil
			}
		}
		return "", fmt.Errorf("unknown --%s %q: use %s", flag, v, strings.Join(choices, ", "))
	}
}
