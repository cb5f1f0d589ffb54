package cmdline

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stampede-bench/stampede/workload"
)

// HelpAsFlag turns `stampede help WORDS...` into `stampede WORDS... --help`,
// so that help of a topic is what --help gives for it, the other tools'
// forms included (`help load` is YCSB's load's, `help oltp_read_write`
// sysbench's script's), and a topic stampede does not have is refused as
// its command is (UnknownHelp). Other lines are returned as they are.
func HelpAsFlag(args []string) []string {
	if len(args) < 2 || args[0] != "help" || strings.HasPrefix(args[1], "-") {
		return args
	}
	return append(slices.Clone(args[1:]), "--help")
}

// UnknownHelp returns the usage error of a line asking for help (--help or
// -h) whose first words name a command, a workload or a subcommand that
// root does not have, which cobra would answer with a parent's help and
// exit code 0: `stampede nosuch --help`, `stampede run nosuch --help`,
// `stampede gen nosuch --help`. It returns nil for any other line. Words
// after a command that takes arguments (a run's URL, a report's runs) are
// the command's, and not checked here.
func UnknownHelp(root *cobra.Command, args []string) error {
	if !slices.Contains(args, "--help") && !slices.Contains(args, "-h") {
		return nil
	}
	cmd := root
	for _, w := range args {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, ":=/.") || len(cmd.Commands()) == 0 {
			return nil // a flag, a URL or a path: the command's own
		}
		sub, _, err := cmd.Find([]string{w})
		if err == nil && sub != cmd {
			cmd = sub
			continue
		}
		isVerb := slices.Contains([]string{"init", "run", "check", "cleanup", "sweep"}, cmd.Name())
		switch {
		case cmd == root && w == "help": // cobra's, added as it executes
			return nil
		case cmd == root:
			return usagef("unknown command %q: see `stampede --help`", w)
		case isVerb && cmd.Parent() == root:
			if _, ok := workload.Get(w); ok {
				return nil
			}
			return usagef("unknown workload %q for `stampede %s`: see `stampede workloads`", w, cmd.Name())
		case !cmd.Runnable():
			return usagef("unknown command %q for %q: see `%s --help`", w, cmd.CommandPath(), cmd.CommandPath())
		}
		return nil
	}
	return nil
}
