package cmdline

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/workload"
)

// Positional returns the argument check of a command that takes from min
// to max positional arguments (max < 0: no upper limit). A wrong count is
// a usage error (exit code 2) that says, in one line, what the command
// takes and how many it was given, with its usage line.
func Positional(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		n := len(args)
		if n >= min && (max < 0 || n <= max) {
			return nil
		}
		if max == 0 { // a word where none belongs: most often a misspelt subcommand
			return usagef("unknown command %q for %q: see `%s --help`", args[0], cmd.CommandPath(), cmd.CommandPath())
		}
		var need string
		switch {
		case min == max:
			need = fmt.Sprintf("exactly %s", plural(min, "argument"))
		case max < 0:
			need = fmt.Sprintf("at least %s", plural(min, "argument"))
		case min == 0:
			need = fmt.Sprintf("at most %s", plural(max, "argument"))
		default:
			need = fmt.Sprintf("%d to %d arguments", min, max)
		}
		return usagef("`%s` takes %s, not %d: usage: %s (see `%s --help`)", cmd.CommandPath(), need, n, cmd.UseLine(), cmd.CommandPath())
	}
}

// AnotherDatabaseHints replace workload.AnotherDatabaseHint in the errors
// of the other tools' forms: each names options its form takes.
var AnotherDatabaseHints = map[string]string{
	"pgbench":  "load into another database (pgbench's dbname, the last argument), or to drop it anyway, add " + workload.ForceDropFlag + " to -i",
	"sysbench": "load into another database (--pgsql-db=NAME), or to drop it anyway, add " + workload.ForceDropFlag,
	"ycsb":     "load into another database (db.url's database), or to drop it anyway, add " + workload.ForceDropFlag,
	// hammerdbcli takes --force-drop after the script's name.
	"hammerdbcli": "load into another database (diset tpcc pg_dbase NAME in the script), or to drop it anyway, add " + workload.ForceDropFlag,
}

// OtherDatabaseHints replace workload.OtherDatabaseHint as
// AnotherDatabaseHints do.
var OtherDatabaseHints = map[string]string{
	"pgbench":     "load into another database (pgbench's dbname, the last argument)",
	"sysbench":    "load into another database (--pgsql-db=NAME)",
	"ycsb":        "load into another database (db.url's database)",
	"hammerdbcli": "load into another database (diset tpcc pg_dbase NAME in the script)",
}

// RecreateHints replace workload.RecreateHint(Workload) in the errors
// of the other tools' forms that take no --drop: each names the option
// its form takes to drop and load again.
var RecreateHints = map[string]struct{ Workload, Hint string }{
	// hammerdbcli takes --force-drop after the script's name, and passes
	// it to buildschema's init.
	"hammerdbcli": {"tpcc", "to drop it and build the schema again, add " + workload.ForceDropFlag + " after the script's name"},
}

// verbs a workload takes, with sysbench's name for init.
var workloadVerbs = map[string]string{"prepare": "init", "init": "init", "run": "run", "check": "check", "cleanup": "cleanup"}

// SysbenchOrder accepts sysbench's word order, `stampede WORKLOAD [flags]
// VERB [flags]`, by moving the verb first: `stampede VERB WORKLOAD ...`.
// The last verb word after the workload's name is the verb, as sysbench
// takes its command last.
func SysbenchOrder(args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	if _, ok := workload.Get(args[0]); !ok {
		return args, nil
	}
	for i := len(args) - 1; i >= 1; i-- {
		if verb, ok := workloadVerbs[args[i]]; ok {
			out := []string{verb, args[0]}
			out = append(out, args[1:i]...)
			return append(out, args[i+1:]...), nil
		}
	}
	return nil, usagef("say what to do with %s: `stampede %s [flags] prepare|run|check|cleanup` (or `stampede run %s ...`)", args[0], args[0], args[0])
}

// WorkloadHelpAsked returns the workload of `stampede ycsb --help` (or -h,
// the workload's name alone, or `stampede help ycsb`), "" for any other line: help, not the
// missing verb's error.
func WorkloadHelpAsked(args []string) string {
	if len(args) == 2 && args[0] == "help" { // `stampede help ycsb`
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	if _, ok := workload.Get(args[0]); !ok {
		return ""
	}
	help := len(args) == 1
	for _, arg := range args[1:] {
		if _, ok := workloadVerbs[arg]; ok {
			return ""
		}
		help = help || arg == "--help" || arg == "-h"
	}
	if help {
		return args[0]
	}
	return ""
}
