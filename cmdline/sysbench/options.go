package sysbench

import (
	"strconv"
	"strings"
)

// kind is the type of a sysbench option's value, as sysbench parses it.
type kind int

const (
	kInt    kind = iota // a whole number
	kNumber             // a number (sysbench: a whole number; stampede takes fractions too)
	kBool               // on|off, true|false, 1|0; bare means on
	kString
	kList // comma-separated
	kFile
	kSize
)

// use says what becomes of a sysbench option.
type use int

const (
	// useAll passes the option on as stampede's flag of the same name,
	// whatever the command.
	useAll use = iota
	// useRun passes it on for run; the other commands take it and leave
	// it unused, as sysbench's prepare and cleanup do.
	useRun
	// useLoad passes it on for run and prepare (it shapes the data or
	// the load), and leaves it unused for cleanup and check.
	useLoad
	// useRefuse refuses the option, with its option's reason.
	useRefuse
	// useOff refuses the option unless its value is off: sysbench's
	// debugging switches.
	useOff
	// useSpecial is handled by the parser itself (config-file, help,
	// version, db-driver, the deprecated aliases).
	useSpecial
)

// option is one of sysbench 1.0.20's general, random-number, log,
// database and driver options (src/sysbench.c, sb_rand.c, sb_logger.c,
// db_driver.c, drivers/*/drv_*.c).
type option struct {
	kind kind
	use  use
	// as is stampede's flag, when its name differs (a deprecated alias's
	// option).
	as string
	// why says why a refused option is refused, or what a deprecated
	// alias is.
	why string
}

// options are sysbench's options by name (dashes; sysbench takes
// underscores for dashes too).
var options = map[string]option{
	// General options.
	"threads":            {kind: kInt, use: useLoad},
	"events":             {kind: kInt, use: useRun},
	"time":               {kind: kInt, use: useRun},
	"forced-shutdown":    {kind: kString, use: useRun},
	"thread-stack-size":  {kind: kSize, use: useRefuse, why: "it sizes sysbench's thread stacks; stampede's workers are goroutines, whose stacks grow as they need: drop it"},
	"rate":               {kind: kNumber, use: useRun},
	"report-interval":    {kind: kInt, use: useRun},
	"report-checkpoints": {kind: kList, use: useRefuse, why: "stampede keeps every interval of a run in its run directory: `stampede report RUN --from 60s --to 120s` gives the figures of any window afterwards"},
	"debug":              {kind: kBool, use: useOff, why: "sysbench's debug output has no equivalent: stampede records every error, with its time and message, in the run directory's events.ndjson"},
	"validate":           {kind: kBool, use: useOff, why: "sysbench's OLTP scripts validate nothing with it: `stampede check WORKLOAD` runs the workload's consistency checks"},
	"help":               {kind: kBool, use: useSpecial},
	"version":            {kind: kBool, use: useSpecial},
	"config-file":        {kind: kFile, use: useSpecial},
	"tx-rate":            {kind: kNumber, use: useSpecial, as: "rate", why: "--tx-rate is deprecated, use --rate instead"},
	"max-requests":       {kind: kInt, use: useSpecial, as: "events", why: "--max-requests is deprecated, use --events instead"},
	"max-time":           {kind: kInt, use: useSpecial, as: "time", why: "--max-time is deprecated, use --time instead"},
	"num-threads":        {kind: kInt, use: useSpecial, as: "threads", why: "--num-threads is deprecated, use --threads instead"},
	// sysbench 1.1's, which 1.0.20 refuses too.
	"warmup-time": {kind: kInt, use: useRefuse, why: "it is sysbench 1.1's (1.0.20 refuses it too); stampede's --ramp=Ns starts the threads over N seconds and leaves that time out of the final report"},

	// Pseudo-random numbers (the workloads' own flags in stampede).
	"rand-type":      {kind: kString, use: useAll},
	"rand-spec-iter": {kind: kInt, use: useAll},
	"rand-spec-pct":  {kind: kInt, use: useAll},
	"rand-spec-res":  {kind: kInt, use: useAll},
	"rand-seed":      {kind: kInt, use: useLoad},
	"rand-pareto-h":  {kind: kNumber, use: useAll},

	// Log options.
	"verbosity":  {kind: kInt, use: useRun},
	"percentile": {kind: kNumber, use: useRun},
	"histogram":  {kind: kBool, use: useRun},

	// Database options.
	"db-driver":  {kind: kString, use: useSpecial},
	"db-ps-mode": {kind: kString, use: useAll},
	"db-debug":   {kind: kBool, use: useOff, why: "sysbench's driver debug output has no equivalent: stampede records every failed statement's error in the run directory's events.ndjson"},

	// The pgsql driver's, and sysbench 1.1's --pgsql-sslmode.
	"pgsql-host":     {kind: kString, use: useAll},
	"pgsql-port":     {kind: kInt, use: useAll},
	"pgsql-user":     {kind: kString, use: useAll},
	"pgsql-password": {kind: kString, use: useAll},
	"pgsql-db":       {kind: kString, use: useAll},
	"pgsql-sslmode":  {kind: kString, use: useAll},
}

// mysqlOptions are the mysql driver's options, which stampede refuses.
var mysqlOptions = []string{"mysql-host", "mysql-port", "mysql-socket", "mysql-user", "mysql-password", "mysql-db",
	"mysql-ssl", "mysql-ssl-cipher", "mysql-compression", "mysql-debug", "mysql-ignore-errors", "mysql-dry-run"}

// scriptOptions are options of oltp_common.lua that stampede's workloads
// lack: what becomes of them.
var scriptOptions = map[string]struct {
	refuse bool
	why    string
}{
	"mysql_storage_engine": {why: "MySQL's storage engine: sysbench ignores it with --db-driver=pgsql, and so does stampede"},
	"pgsql_variant":        {refuse: true, why: "its only variant is Amazon Redshift, which stampede does not run: drop it"},
}

// oltpCommon are the options of sysbench 1.0.20's oltp_common.lua, which
// its bulk_insert.lua, a script without options, takes and ignores (as
// sysbench takes any option for such a script): stampede ignores them
// there with a warning, so that a line giving every script the same
// options runs.
var oltpCommon = []string{"auto_inc", "create_secondary", "delete_inserts", "distinct_ranges", "index_updates",
	"non_index_updates", "order_ranges", "point_selects", "range_selects", "range_size", "secondary",
	"simple_ranges", "skip_trx", "sum_ranges", "table_size", "tables"}

// canonical returns the name sysbench would look an option up by: dashes
// for underscores (sysbench 1.0 takes --report_interval for
// --report-interval).
func canonical(name string) string { return strings.ReplaceAll(name, "_", "-") }

// check validates an option's value, as sysbench parses it, returning
// the value stampede's flag takes (booleans as true or false).
func (o option) check(name, value string, hasValue bool) (string, error) {
	if o.kind == kBool {
		if !hasValue {
			return "true", nil
		}
		switch strings.ToLower(value) {
		case "on", "true", "1", "yes":
			return "true", nil
		case "off", "false", "0", "no":
			return "false", nil
		}
		return "", inputf("invalid value for --%s: %q (use on or off)", name, value)
	}
	if !hasValue {
		what := map[kind]string{kInt: "N", kNumber: "N", kString: "STRING", kList: "LIST", kFile: "FILENAME", kSize: "SIZE"}[o.kind]
		return "", inputf("--%s needs a value: give --%s=%s (sysbench takes its options as --name=value)", name, name, what)
	}
	switch o.kind {
	case kInt: // the range is stampede's flags' to check
		if _, err := strconv.ParseInt(value, 10, 32); err != nil {
			return "", inputf("invalid value for --%s: %q (a whole number)", name, value)
		}
	case kNumber:
		if f, err := strconv.ParseFloat(value, 64); err != nil || f != f {
			return "", inputf("invalid value for --%s: %q (a number)", name, value)
		}
	}
	return value, nil
}

// forcedShutdown checks a --forced-shutdown value: off, seconds, or a
// percentage of --time (N%).
func forcedShutdown(value string) error {
	if strings.EqualFold(value, "off") {
		return nil
	}
	n := strings.TrimSuffix(value, "%")
	if v, err := strconv.Atoi(n); err != nil || v < 0 {
		return inputf("invalid value for --forced-shutdown: %q (use off, seconds after --time, or a percentage of --time such as 5%%)", value)
	}
	return nil
}
