package cli

import (
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// hinter completes suggested commands from this invocation (see
// cmdline.Hinter).
func (a *app) hinter() cmdline.Hinter {
	h := cmdline.Hinter{Argv: a.argv, Current: a.curFlags}
	if a.root != nil {
		h.Flags = func(verb, workload string) *pflag.FlagSet {
			target, rest, err := a.root.Find([]string{verb, workload})
			if err != nil || len(rest) > 0 || target == nil || !target.HasParent() || target.Parent().Parent() != a.root {
				return nil
			}
			return target.Flags()
		}
	}
	return h
}

// completeHint completes one suggested command (see cmdline.Hinter).
func (a *app) completeHint(hint string) string { return a.hinter().Complete(hint) }

// setCommand records the command being run, for completeHint.
func (a *app) setCommand(cmd *cobra.Command) { a.curFlags = cmd.Flags() }

// env is the cmdline.Env of this invocation.
func (a *app) env() cmdline.Env {
	return cmdline.Env{Args: a.args, Secrets: a.secrets, Stdout: a.stdout, Stderr: a.stderr, Hint: a.completeHint}
}

// noDatabaseHint is sqlx.NoDatabaseHint for this invocation: a workload's
// run, check, cleanup or sweep names the init that loads that workload
// (completed by hinter with the URL and flags), not a bare `stampede init`.
func (a *app) noDatabaseHint() string {
	if len(a.argv) < 2 || !slices.Contains([]string{"run", "check", "cleanup", "sweep"}, a.argv[0]) {
		return sqlx.NoDatabaseHint
	}
	if _, ok := workload.Get(a.argv[1]); !ok {
		return sqlx.NoDatabaseHint
	}
	if slices.Contains(a.argv, "--sysbench-syntax") { // sysbench's line: its prepare, its flag
		return "create it (createdb) and load it with the same command line ending in prepare, or name another database with --pgsql-db"
	}
	return "load it with `stampede init " + a.argv[1] + "` (which creates the database), or name another database with --db"
}
