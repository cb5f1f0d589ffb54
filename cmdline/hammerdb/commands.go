package hammerdb

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// prefixes are HammerDB's database prefixes (dbset db), in its order.
var prefixes = []string{"ora", "mssqls", "db2", "mysql", "pg", "maria"}

// dbset sets the database (pg only) or the benchmark (TPROC-C only).
func (in *interp) dbset(line int, args []string) (string, error) {
	if len(args) != 2 {
		return "", inputf("line %d: dbset takes an option and a value: Usage: dbset [db|bm] value", line)
	}
	switch args[0] {
	case "db":
		switch {
		case args[1] == "pg":
			in.pg = true
			in.printf("Database set to PostgreSQL")
			return "", nil
		case slices.Contains(prefixes, args[1]):
			return "", inputf("line %d: dbset db %s: stampede runs HammerDB's PostgreSQL scripts only (dbset db pg)", line, args[1])
		}
		return "", inputf("line %d: dbset db %s: Unknown prefix %s, choose one from %s (stampede runs pg)", line, args[1], args[1], strings.Join(prefixes, " "))
	case "bm":
		up := strings.ToUpper(args[1])
		switch up {
		case "TPC-C", "TPROC-C":
			in.bm = up
			in.printf("Benchmark set to %s for PostgreSQL", up)
			return "", nil
		case "TPC-H", "TPROC-H":
			return "", inputf("line %d: dbset bm %s: stampede runs HammerDB's TPROC-C only (dbset bm TPROC-C)", line, args[1])
		}
		return "", inputf("line %d: dbset bm %s: Unknown benchmark %s, choose one from TPROC-C TPROC-H (or compatible names TPC-C TPC-H); stampede runs TPROC-C", line, args[1], up)
	}
	return "", inputf("line %d: dbset %s: invalid option: Usage: dbset [db|bm] value", line, args[0])
}

// mustPG refuses HammerDB's settings before dbset db pg: stampede knows
// PostgreSQL's keys only.
func (in *interp) mustPG(line int, what string) error {
	if !in.pg {
		return inputf("line %d: %s before dbset db pg: stampede runs HammerDB's PostgreSQL scripts, which begin with dbset db pg", line, what)
	}
	return nil
}

// sslModes are libpq's sslmode values.
var sslModes = []string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}

// diset sets one of PostgreSQL's keys.
func (in *interp) diset(line int, args []string) (string, error) {
	if len(args) != 3 {
		return "", inputf("line %d: diset takes a dictionary, a key and a value: Usage: diset dict key value", line)
	}
	if err := in.mustPG(line, "diset"); err != nil {
		return "", err
	}
	dict, name, val := args[0], args[1], args[2]
	switch dict {
	case "connection", "tpcc":
	case "tpch":
		return "", inputf("line %d: diset tpch %s: stampede runs HammerDB's TPROC-C only (the tpcc dictionary)", line, name)
	default:
		return "", inputf("line %d: diset %s %s: Dictionary \"%s\" for PostgreSQL does not exist (its dictionaries: connection, tpcc)", line, dict, name, dict)
	}
	k, ok := lookupKey(name)
	if !ok || k.dict != dict {
		return "", inputf("line %d: %s", line, unknownKey(dict, name))
	}
	if err := checkValue(k, val); err != nil {
		return "", inputf("line %d: diset %s %s %s: %v", line, dict, name, shown(name, val), err)
	}
	prev := in.values[name]
	if prev == val {
		in.printf("Value %s for %s:%s is the same as existing value %s, no change made", shown(name, val), dict, name, shown(name, prev))
		return "", nil
	}
	if name == "pg_driver" {
		in.printf("Clearing Script, reload script to activate new setting")
		in.printf("Script cleared")
		in.loaded = nil
	}
	in.values[name] = val
	in.printf("Changed %s:%s from %s to %s for PostgreSQL", dict, name, shown(name, prev), shown(name, val))
	if in.loaded != nil && in.loaded[name] != val {
		fmt.Fprintf(in.env.Stderr, "note: line %d: the script loaded before keeps %s %s, as HammerDB's does: run loadscript again for vurun to use %s\n",
			line, name, shown(name, in.loaded[name]), shown(name, val))
	}
	return "", nil
}

// shown is a value as printed: a password as xxxxx.
func shown(name, v string) string {
	if strings.Contains(name, "pass") {
		return "xxxxx"
	}
	return v
}

// checkValue checks a key's value.
func checkValue(k key, v string) error {
	if k.unsupported != "" {
		if v == k.def {
			return nil
		}
		if b, ok := tclBool(v); ok {
			if d, _ := tclBool(k.def); b == d {
				return nil
			}
		}
		return fmt.Errorf("%s (only its default %s runs)", k.unsupported, k.def)
	}
	ints := map[string][2]int{"pg_port": {1, 65535}, "pg_count_ware": {1, 1 << 20}, "pg_num_vu": {1, 100000},
		"pg_total_iterations": {1, 1 << 62}, "pg_rampup": {0, 1 << 20}, "pg_duration": {1, 1 << 20}}
	if r, ok := ints[k.name]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < r[0] || n > r[1] {
			return fmt.Errorf("%s must be an integer from %d to %d", k.name, r[0], r[1])
		}
		return nil
	}
	switch k.name {
	case "pg_vacuum", "pg_storedprocs", "pg_partition", "pg_raiseerror", "pg_keyandthink", "pg_allwarehouse", "pg_timeprofile":
		if _, ok := tclBool(v); !ok {
			return fmt.Errorf("%s must be true or false", k.name)
		}
	case "pg_driver":
		if v != "test" && v != "timed" {
			return fmt.Errorf("Driver script must be either \"test\" or \"timed\"")
		}
	case "pg_sslmode":
		if !slices.Contains(sslModes, v) {
			return fmt.Errorf("pg_sslmode must be one of %s", strings.Join(sslModes, " "))
		}
	case "pg_host", "pg_user", "pg_dbase", "pg_superuser", "pg_defaultdbase":
		if v == "" {
			return fmt.Errorf("%s is empty", k.name)
		}
	}
	return nil
}

// on reads a boolean key of values.
func on(values map[string]string, name string) bool {
	b, _ := tclBool(values[name])
	return b
}

// print prints HammerDB's settings (print dict) or the benchmark or
// database chosen.
func (in *interp) print(line int, args []string) (string, error) {
	if len(args) != 1 {
		return "", inputf("line %d: print takes one option: Usage: print [db|bm|dict|vuconf]", line)
	}
	switch args[0] {
	case "dict":
		if err := in.mustPG(line, "print dict"); err != nil {
			return "", err
		}
		in.printf("Dictionary Settings for PostgreSQL")
		for _, d := range []string{"connection", "tpcc"} {
			width := 0
			for _, k := range pgKeys {
				if k.dict == d {
					width = max(width, len(k.name))
				}
			}
			in.printf("%-10s {", d)
			for _, k := range pgKeys {
				if k.dict == d {
					in.printf(" %-*s = %s", width, k.name, shown(k.name, in.values[k.name]))
				}
			}
			in.printf("}")
		}
	case "bm":
		in.printf("Benchmark set to %s", in.bm)
	case "db":
		if err := in.mustPG(line, "print db"); err != nil {
			return "", err
		}
		in.printf("Database PostgreSQL set.")
	case "vuconf":
		in.printf("Virtual Users = %d", in.vu)
		for _, o := range []struct{ label, key string }{{"User Delay(ms)", "delay"}, {"Repeat Delay(ms)", "repeat"},
			{"Iterations", "iterations"}, {"Show Output", "showoutput"}, {"Log Output", "logtotemp"},
			{"Unique Log Name", "unique"}, {"No Log Buffer", "nobuff"}, {"Log Timestamps", "timestamps"}} {
			in.printf("%s = %s", o.label, in.vuopts[o.key])
		}
	default:
		return "", inputf("line %d: print %s: stampede prints dict, db, bm and vuconf", line, args[0])
	}
	return "", nil
}

// loadscript loads the driver script: its settings are the ones vurun
// runs with.
func (in *interp) loadscript(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: loadscript takes no arguments", line)
	}
	if err := in.mustPG(line, "loadscript"); err != nil {
		return "", err
	}
	in.loaded = maps.Clone(in.values)
	in.printf("Script loaded, Type \"print script\" to view")
	return "", nil
}

// vuset sets the virtual users (vu) or logging to a file (logtotemp).
func (in *interp) vuset(line int, args []string) (string, error) {
	if len(args) != 2 {
		return "", inputf("line %d: vuset takes an option and a value: Usage: vuset [vu|logtotemp] value", line)
	}
	if in.created {
		return "", inputf("line %d: vuset %s: Virtual Users exist, destroy with vudestroy before changing settings", line, args[0])
	}
	switch args[0] {
	case "vu":
		v := args[1]
		if v == "vcpu" {
			v = strconv.Itoa(in.env.numCPU())
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			return "", inputf("line %d: vuset vu %s: the number of virtual users must be an integer from 1 to 100000, or vcpu", line, args[1])
		}
		in.vu = n
	case "logtotemp":
		if args[1] != "0" && args[1] != "1" {
			return "", inputf("line %d: vuset logtotemp %s: Log Output must be 0 or 1", line, args[1])
		}
	case "showoutput", "unique", "nobuff", "timestamps":
		if args[1] != "0" && args[1] != "1" {
			return "", inputf("line %d: vuset %s %s: must be 0 or 1", line, args[0], args[1])
		}
		fmt.Fprintf(in.env.Stderr, "note: line %d: vuset %s shapes HammerDB's log file; stampede's log is the run's directory, the same whatever its value\n", line, args[0])
	case "iterations", "delay", "repeat":
		def := map[string]string{"iterations": "1", "delay": "500", "repeat": "500"}[args[0]]
		if args[1] != def {
			return "", inputf("line %d: vuset %s %s: stampede runs HammerDB's default %s only (each virtual user runs the script once; --ramp starts them gradually)", line, args[0], args[1], def)
		}
	default:
		return "", inputf("line %d: vuset %s: invalid option: Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value", line, args[0])
	}
	if args[0] != "vu" {
		in.vuopts[args[0]] = args[1]
	}
	return "", nil
}

// vucreate creates the virtual users (loading the script first if none
// is), as HammerDB prints them: stampede's workers start at vurun.
func (in *interp) vucreate(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: vucreate takes no arguments", line)
	}
	if err := in.mustPG(line, "vucreate"); err != nil {
		return "", err
	}
	if in.created {
		return "", inputf("line %d: vucreate: Virtual Users exist, destroy with vudestroy before creating", line)
	}
	if in.loaded == nil {
		if _, err := in.loadscript(line, nil); err != nil {
			return "", err
		}
	}
	timed := in.loaded["pg_driver"] == "timed"
	if timed {
		in.printf("Vuser 1 created MONITOR - WAIT IDLE")
	}
	first := 1
	if timed {
		first = 2
	}
	for i := first; i < first+in.vu; i++ {
		in.printf("Vuser %d created - WAIT IDLE", i)
	}
	if in.vuopts["logtotemp"] == "1" {
		in.printf("Logging activated")
		in.printf("to the run's directory (stampede saves every run's log there: results saved in ... below)")
	}
	if timed {
		in.printf("%d Virtual Users Created with Monitor VU", in.vu+1)
	} else {
		in.printf("%d Virtual Users Created", in.vu)
	}
	in.created = true
	return "", nil
}

// vudestroy destroys the virtual users.
func (in *interp) vudestroy(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: vudestroy takes no arguments", line)
	}
	if !in.created {
		in.printf("No Virtual Users found to destroy")
		return "", nil
	}
	in.created = false
	in.printf("vudestroy success")
	return "", nil
}

// waittocomplete waits for the virtual users to complete: stampede's
// vurun and buildschema return when they are.
func (in *interp) waittocomplete(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: waittocomplete takes no arguments", line)
	}
	return "", nil
}

// runtimer waited for a run in HammerDB before version 4 (it is
// deprecated there): stampede's vurun returns at the run's end.
func (in *interp) runtimer(line int, args []string) (string, error) {
	if len(args) != 1 {
		return "", inputf("line %d: runtimer takes seconds: Usage: runtimer seconds", line)
	}
	if n, err := strconv.Atoi(args[0]); err != nil || n < 1 {
		return "", inputf("line %d: runtimer %s: seconds must be a positive integer", line, args[0])
	}
	fmt.Fprintf(in.env.Stderr, "note: line %d: runtimer is deprecated in HammerDB; stampede's vurun has already waited for its run's end\n", line)
	return "", nil
}

// numberOfCPUs is HammerDB's: the CPUs of this machine.
func (in *interp) numberOfCPUs(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: numberOfCPUs takes no arguments", line)
	}
	return strconv.Itoa(in.env.numCPU()), nil
}

// numberOfWHs is HammerDB's: 8 warehouses per CPU, up to 100 rounded up
// to a multiple of 10, at most 4000.
func (in *interp) numberOfWHs(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: numberOfWHs takes no arguments", line)
	}
	wh := in.env.numCPU() * 8
	if wh <= 100 {
		wh = (wh + 9) / 10 * 10
	}
	return strconv.Itoa(min(wh, 4000)), nil
}

// tc is tcstart, tcstatus and tcstop: HammerDB's transaction counter,
// whose rate stampede's progress lines give every interval of a run.
func (in *interp) tc(line int, args []string) (string, error) {
	if len(args) != 0 {
		return "", inputf("line %d: the transaction counter's commands take no arguments", line)
	}
	fmt.Fprintf(in.env.Stderr, "note: line %d: stampede runs no separate transaction counter: vurun's progress lines give the transaction rate every interval\n", line)
	return "", nil
}

// conn is the script's connection settings.
func conn(v map[string]string) Conn {
	return Conn{Host: v["pg_host"], Port: v["pg_port"], SSLMode: v["pg_sslmode"], Superuser: v["pg_superuser"],
		SuperPass: v["pg_superuserpass"], DefaultDB: v["pg_defaultdbase"], User: v["pg_user"], Pass: v["pg_pass"], DB: v["pg_dbase"]}
}

// Conn is where a script connects: pg_host, pg_port and pg_sslmode; the
// superuser that creates the user and database (pg_superuser,
// pg_superuserpass, pg_defaultdbase), and the user and database of the
// schema (pg_user, pg_pass, pg_dbase).
type Conn struct {
	Host, Port, SSLMode             string
	Superuser, SuperPass, DefaultDB string
	User, Pass, DB                  string
}

// URL returns the URL of user with password on database db.
func (c Conn) URL(user, password, db string) string {
	u := url.URL{Scheme: "postgresql", User: url.UserPassword(user, password), Host: c.Host + ":" + c.Port, Path: "/" + db,
		RawQuery: "sslmode=" + url.QueryEscape(c.SSLMode)}
	if strings.Contains(c.Host, ":") && !strings.HasPrefix(c.Host, "[") {
		u.Host = "[" + c.Host + "]:" + c.Port
	}
	return u.String()
}

// UserURL is the URL of the schema's user and database.
func (c Conn) UserURL() string { return c.URL(c.User, c.Pass, c.DB) }

// InitArgs are the stampede command line buildschema runs with the
// settings v.
func InitArgs(v map[string]string) []string {
	args := []string{"init", "tpcc", "--profile", "hammerdb", "--warehouses", v["pg_count_ware"], "--concurrency", v["pg_num_vu"]}
	if on(v, "pg_storedprocs") {
		args = append(args, "--stored-procs")
	}
	if on(v, "pg_partition") {
		args = append(args, "--partition")
	}
	return append(args, conn(v).UserURL())
}

// RunArgs are the stampede command line vurun runs with the settings v
// of the loaded script, vu virtual users, the warehouses the database
// holds, and the options after the script's name.
func RunArgs(v map[string]string, vu, warehouses int, o Options) []string {
	args := []string{"run", "tpcc", "--profile", "hammerdb", "--warehouses", strconv.Itoa(warehouses), "--concurrency", strconv.Itoa(vu)}
	iterations, _ := strconv.ParseInt(v["pg_total_iterations"], 10, 64)
	if v["pg_driver"] == "test" {
		args = append(args, "--duration", "0", "--max-ops", strconv.FormatInt(iterations*int64(vu), 10))
	} else {
		args = append(args, "--ramp", v["pg_rampup"]+"m", "--duration", v["pg_duration"]+"m")
		if v["pg_total_iterations"] != "10000000" {
			args = append(args, "--max-ops", strconv.FormatInt(iterations*int64(vu), 10))
		}
	}
	for _, f := range []struct{ key, flag string }{{"pg_storedprocs", "--stored-procs"}, {"pg_allwarehouse", "--all-warehouses"},
		{"pg_keyandthink", "--key-and-think"}, {"pg_raiseerror", "--raise-error"}} {
		if on(v, f.key) {
			args = append(args, f.flag)
		}
	}
	args = append(args, o.runFlags()...)
	return append(args, conn(v).UserURL())
}
