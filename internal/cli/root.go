package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	pgline "github.com/stampede-bench/stampede/cmdline/pgbench"
	sbline "github.com/stampede-bench/stampede/cmdline/sysbench"
	ycsbcmd "github.com/stampede-bench/stampede/cmdline/ycsb"
	"github.com/stampede-bench/stampede/internal/gcpace"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all" // register every workload
)

// app is one invocation of the command line.
type app struct {
	stdout, stderr io.Writer
	// args is the command line, for the run log (redacted there).
	args []string
	// secrets are scrubbed from every error message printed.
	secrets []string
	// root, argv (the arguments in stampede's word order) and curFlags
	// (the flags of the workload command being run) let messages suggest
	// complete commands (see completeHint).
	root     *cobra.Command
	argv     []string
	curFlags *pflag.FlagSet
	// pgbenchForm says the command line was pgbench's.
	pgbenchForm bool
	only        string // the one workload rootCmd builds VERB commands for, "" for all (see hinter)
	// form names the other tool whose command line this was ("pgbench",
	// "sysbench", "ycsb"; "" for stampede's own): its errors name that
	// tool's options.
	form string
}

// Main runs the command line with args (without the program name) and
// returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	gcpace.Hold(gcpace.DefaultHeadroom) // the set-up's collections (2-3 at a 4 MiB heap) cost a one-shot command ~10% of its CPU; a run's pacing takes over
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return MainContext(ctx, args, stdout, stderr)
}

// MainContext is Main with a caller-supplied context (cancel it to
// interrupt, as Ctrl-C does).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, args: append([]string{"stampede"}, args...)}
	a.secrets, args = cmdline.Secrets(args), cmdline.HelpAsFlag(args)
	var err error
	if len(args) > 0 && args[0] == "pgbench" { // `stampede pgbench -c 8 -T 60 bench`, or a binary named pgbench
		l, err := pgline.Parse(args[1:], pgline.Getenv)
		if err != nil {
			fmt.Fprintf(stderr, "pgbench: error: %s\n", redact.ScrubText(oneLine(err.Error()), a.secrets))
			return exitCode(err)
		}
		if l.Args == nil {
			out := stdout
			if l.ToStderr {
				out = stderr
			}
			fmt.Fprint(out, l.Output)
			return 0
		}
		for _, w := range l.Warnings {
			fmt.Fprintf(stderr, "pgbench: %s\n", w)
		}
		args, a.secrets = l.Args, append(a.secrets, l.Secrets...)
		a.pgbenchForm, a.form, a.only = true, "pgbench", args[1] // `run sql` or `init pgbench`: all 18 workloads x 5 verbs were ~8 of its ~90 ms of CPU
	} else if sbline.Recognize(args) { // `stampede /usr/share/sysbench/oltp_read_write.lua [options] run`
		l, done, err := sbline.Command(args, a.sysbenchFlags, stdout, stderr, run.VersionString())
		if err != nil || done {
			if err != nil {
				fmt.Fprintf(stderr, "stampede: error: %s\n", redact.ScrubText(oneLine(err.Error()), a.secrets))
			}
			return exitCode(err)
		}
		args, a.secrets = l.Args, append(a.secrets, l.Secrets...)
		a.form = "sysbench"
	} else if args, err = a.ycsbLine(args); err == nil {
		if name := cmdline.WorkloadHelpAsked(args); name != "" {
			return a.workloadHelp(ctx, name)
		}
		args, err = cmdline.SysbenchOrder(args)
	}
	if err != nil {
		fmt.Fprintf(stderr, "stampede: error: %s\n", err)
		return exitCode(err)
	}
	root := a.rootCmd()
	isCommand := func(name string) bool {
		for _, c := range root.Commands() {
			if c.Name() == name || c.HasAlias(name) {
				return true
			}
		}
		return false
	}
	if err := cmp.Or(sbline.UnknownScript(isCommand, args), cmdline.UnknownHelp(root, args)); err != nil {
		fmt.Fprintf(stderr, "stampede: error: %s\n", err)
		return exitCode(err)
	}
	a.root, a.argv = root, args
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err = root.ExecuteContext(ctx)
	var said interface{ Said() bool }
	if err != nil && !errors.Is(err, errInterrupted) && !errors.Is(err, run.ErrAborted) && !(errors.As(err, &said) && said.Said()) { // an abort was said by pgbench's report, an init's error in pgbench's lines
		msg := oneLine(err.Error())
		if a.pgbenchForm { // pgbench's line takes no --db, and stampede's init has no pgbench-form hint
			msg = strings.Replace(msg, sqlx.NoDatabaseHint, pgbenchNoDatabaseHint, 1)
		} else {
			msg = strings.Replace(msg, sqlx.NoDatabaseHint, cmdline.NoDatabaseHint(a.argv), 1)
		}
		if h, ok := cmdline.AnotherDatabaseHints[a.form]; ok {
			msg = strings.Replace(msg, workload.AnotherDatabaseHint, h, 1)
			msg = strings.Replace(msg, workload.OtherDatabaseHint, cmdline.OtherDatabaseHints[a.form], 1)
		}
		if h, ok := cmdline.RecreateHints[a.form]; ok {
			msg = strings.Replace(msg, workload.RecreateHint(h.Workload), h.Hint, 1)
		}
		tool := "stampede"
		if a.pgbenchForm {
			tool = "pgbench" // its own prefix throughout, as for its options
		}
		fmt.Fprintf(stderr, "%s: error: %s\n", tool, cmdline.ScrubError(err, a.hinter().Hints(msg), a.secrets))
	}
	return exitCode(err)
}

// pgbenchNoDatabaseHint replaces sqlx.NoDatabaseHint in the pgbench
// form's errors.
const pgbenchNoDatabaseHint = "create it (createdb), then load pgbench's tables into it with pgbench -i (stampede pgbench -i), or name another database"

// sysbenchFlags returns the flags of `run` and `init` of a workload.
func (a *app) sysbenchFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	if m, ok := workload.Get(name); ok {
		fs.AddFlagSet(a.workloadCmd(cmdline.VerbRun, m).Flags())
		fs.AddFlagSet(a.workloadCmd(cmdline.VerbInit, m).Flags())
	}
	return fs
}

// ycsbLine reads a line typed for YCSB (`stampede run jdbc -P
// workloads/workloada -threads 6`) as stampede's, printing its warnings.
func (a *app) ycsbLine(args []string) ([]string, error) {
	line, err := ycsbcmd.Parse(args)
	if line == nil || err != nil {
		return args, err
	}
	a.form = "ycsb"
	a.secrets = append(a.secrets, line.Secrets...)
	for i := range a.args {
		a.args[i] = redact.Scrub(a.args[i], line.Secrets) // db.passwd
	}
	for _, w := range line.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", w)
	}
	return line.Args, nil
}

// workloadHelp prints the verbs that take workload name, then the flags
// of its run (`stampede run NAME --help`); exit code 0.
func (a *app) workloadHelp(ctx context.Context, name string) int {
	m, _ := workload.Get(name)
	fmt.Fprintf(a.stdout, "%s: %s\n\nThe verbs that take it (each has its own flags: `stampede VERB %s --help`):\n", name, m.Description, name)
	for _, v := range []cmdline.Verb{cmdline.VerbInit, cmdline.VerbRun, cmdline.VerbCheck, cmdline.VerbCleanup, cmdline.VerbSweep} {
		fmt.Fprintf(a.stdout, "  stampede %-8s %s [flags] [URL...]   %s\n", v.Name, name, v.Short)
	}
	fmt.Fprintf(a.stdout, "or in sysbench's order: `stampede %s [flags] prepare|run|check|cleanup`.\n\nThe help of `stampede run %s`:\n\n", name, name)
	root := a.rootCmd()
	a.root, a.argv = root, []string{"run", name, "--help"}
	root.SetArgs(a.argv)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(a.stderr, "stampede: error: %s\n", oneLine(err.Error()))
		return exitCode(err)
	}
	return exitOK
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "stampede",
		Short: "A load generator and benchmark lab for SQL databases",
		Long: `stampede runs the benchmarks performance engineers already trust (YCSB A-F, the eleven
sysbench OLTP scripts, TPC-C, bank) against PostgreSQL-compatible databases,
measures them honestly (HDR histograms, coordinated-omission-corrected latency under
a target rate), and keeps every run's raw measurements.`,
		Example: `  stampede demo                                    # throwaway local PostgreSQL, YCSB A
  stampede init ycsb 'postgresql://user@host:5432?sslmode=disable'
  stampede run ycsb --workload a --duration 60s --concurrency 16 'postgresql://user@host:5432'
  stampede runs                                    # the runs saved, oldest first`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q: see `stampede --help`", args[0])
			}
			return cmd.Help()
		},
		Args: cobra.ArbitraryArgs,
	}
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate(versionLine()) // --version prints what `stampede version` prints
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		a.workloadVerb(cmdline.VerbInit),
		a.workloadVerb(cmdline.VerbRun),
		a.workloadVerb(cmdline.VerbCheck),
		a.workloadVerb(cmdline.VerbCleanup),
		a.workloadVerb(cmdline.VerbSweep),
		a.workloadsCmd(),
		a.reportCmd(),
		a.runsCmd(),
		a.compareCmd(),
		a.serveCmd(),
		a.demoCmd(),
		a.fleetCmd(),
		a.versionCmd(),
		a.diffCmd(),
		a.limitCmd(),
		a.genCmd(),
		a.proxyCmd(),
		a.cockroachCmd(),
		a.hammerdbCmd(),
		&cobra.Command{Use: "pgbench [OPTION]... [DBNAME]", Short: "Run a pgbench command line as pgbench 15 does (paste it after stampede; its --help says more)",
			DisableFlagParsing: true, RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() }}, // listed: MainContext runs it
	)
	return root
}

// flagError turns pflag's errors into one-line usage errors.
func flagError(cmd *cobra.Command, err error) error {
	return usagef("%s: see `%s --help`", strings.TrimSpace(cmdline.FlagValueError(err).Error()), cmd.CommandPath())
}

func (a *app) workloadsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "workloads",
		Short: "List the available workloads",
		Example: `  stampede workloads
  stampede run ycsb --help     # a workload's flags`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, m := range workload.Registered() {
				fmt.Fprintf(a.stdout, "%-24s %s\n", m.Name, m.Description)
			}
			return nil
		},
	}
}
