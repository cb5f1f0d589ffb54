package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
)

// hinter completes suggested commands from this invocation (see
// cmdline.Hinter).
func (a *app) hinter() cmdline.Hinter {
	if a.only != "" && a.root != nil { // a hint may name any verb's flags: the whole tree
		a.only = ""
		a.root = a.rootCmd()
	}
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
