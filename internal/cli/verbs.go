package cli

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/cmdline/cockroach"
	"github.com/stampede-bench/stampede/cmdline/hammerdb"
	"github.com/stampede-bench/stampede/workload"
)

// workloadVerb builds a verb command with one subcommand per workload.
func (a *app) workloadVerb(v cmdline.Verb) *cobra.Command {
	cmd := &cobra.Command{
		Use:     v.Name + " WORKLOAD [flags] [URL...]",
		Aliases: v.Aliases,
		Short:   v.Short,
		Long:    v.Short + ".\n\n" + cmdline.VerbHelp(v.Name) + cmdline.URLHelp + "\n\nWorkloads: " + cmdline.WorkloadNames() + " (see `stampede workloads`).",
		Example: v.Examples,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name a workload: `%s` (workloads: %s)", strings.Replace(v.Example, "WORKLOAD", "NAME", 1), cmdline.WorkloadNames())
			}
			return cmdline.NotWorkload(v.Name, args[0])
		},
	}
	// A flag the verb alone does not know (`run URL ycsb --duration 2s`,
	// `run ycbs --clients 2`) means the word after the verb is not a
	// workload: that is the mistake to name, not the flag.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == cmd {
			if i := slices.IndexFunc(a.argv, func(w string) bool { return w == v.Name || slices.Contains(v.Aliases, w) }); i >= 0 && i+1 < len(a.argv) && !strings.HasPrefix(a.argv[i+1], "-") {
				return cmdline.NotWorkload(v.Name, a.argv[i+1])
			}
			// A workload's flag before the workload's name.
			if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok && slices.ContainsFunc(cmd.Commands(), func(w *cobra.Command) bool { return w.Flags().Lookup(name) != nil }) {
				return usagef("--%s is a workload's flag: name the workload first, as in `%s` (workloads: %s)", name, strings.Replace(v.Example, "WORKLOAD", "NAME", 1), cmdline.WorkloadNames())
			}
		}
		return flagError(c, err)
	})
	for _, m := range workload.Registered() {
		if a.only == "" || m.Name == a.only {
			cmd.AddCommand(a.workloadCmd(v, m))
		}
	}
	return cmd
}

// workloadCmd builds `VERB NAME`.
func (a *app) workloadCmd(v cmdline.Verb, m workload.Meta) *cobra.Command {
	gen := m.New()
	cf := &cmdline.Conn{}
	rf := &cmdline.RunFlags{}
	inf := &cmdline.Init{}
	tf := &cmdline.Tenants{}
	fif := &cmdline.FleetInit{}
	frf := &cmdline.FleetRun{}
	sf := &cmdline.SweepFlags{}
	forceDrop := false
	cmd := &cobra.Command{
		Use:   m.Name + " [flags] [URL...]",
		Short: m.Description,
		Long:  m.Description + "\n\n" + cmdline.URLHelp,
		Args:  cobra.ArbitraryArgs,
	}
	if m.Details != "" {
		cmd.Long = m.Details + "\n\n" + cmdline.URLHelp
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	if f, ok := gen.(workload.Flagser); ok {
		fs.AddFlagSet(f.Flags().FlagSet)
		cmdline.AcceptDashes(fs)
	}
	cf.Register(fs)
	switch v.Name {
	case "init":
		inf.Register(fs)
	case "check", "cleanup":
		// sysbench passes its general options to every command.
		fs.Int("threads", 0, "sysbench's option, accepted and unused here")
		_ = fs.MarkHidden("threads")
		if v.Name == "cleanup" {
			fs.BoolVar(&forceDrop, "force-drop", false, "drop the tables (or tenant databases, schemas) even where stampede did not make them; without it cleanup drops only what stampede made and refuses the rest")
			fs.Bool("sysbench-syntax", false, "the command line is sysbench's cleanup: sysbench's lines (set by stampede for 'stampede SCRIPT [options] cleanup')")
			_ = fs.MarkHidden("sysbench-syntax")
		}
	case "run", "sweep":
		rf.Register(fs)
		tf.Register(fs)
		frf.Register(fs)
		if v.Name == "sweep" {
			sf.Register(fs) // after every flag it may sweep (--active)
		} else {
			rf.RegisterForceDrop(fs)
		}
	}
	if v.Name != "run" && v.Name != "sweep" {
		tf.Register(fs)
		if v.Name == "init" {
			fif.Register(fs)
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		a.setCommand(cmd)
		if err := cmdline.URLArgs(fs, a.argv, args, "stampede "+v.Name+" "+m.Name); err != nil {
			return err
		}
		if vs, ok := gen.(workload.VerbSetter); ok {
			vs.SetVerb(v.Name)
		}
		if h, ok := gen.(workload.Hookser); ok && h.Hooks().Validate != nil && v.Name != "sweep" { // a sweep's at each value
			if err := h.Hooks().Validate(); err != nil {
				return asUsage(err)
			}
		}
		// sysbench's prepare and cleanup take every option silently.
		if sb, _ := fs.GetBool("sysbench-syntax"); !sb || v.Name == "run" {
			cmdline.WarnIgnored(a.stderr, v.Name, m, gen)
		}
		if v.Name != "run" && v.Name != "sweep" {
			spec, on, err := tf.Fleet(m.Name)
			if err == nil && v.Name == "init" {
				err = fif.Validate(fs, on)
			}
			if err != nil {
				return err
			}
			if on {
				switch v.Name {
				case "init":
					return a.initFleet(ctx, gen, spec, cf, inf, fif, args)
				case "check":
					return a.checkFleet(ctx, gen, spec, cf, args)
				default:
					return a.cleanupFleet(ctx, gen, spec, cf, forceDrop, args)
				}
			}
		}
		switch v.Name {
		case "init":
			return inf.Load(ctx, gen, cf, args, a.stdout, a.stderr)
		case "run":
			if err := rf.Resolve(fs); err != nil {
				return err
			}
			_, err := cmdline.Run(ctx, cmdline.RunArgs{Gen: gen, Conn: cf, Flags: rf, FS: fs, URLs: args, Tenants: tf, Fleet: frf}, a.env())
			return err
		case "sweep":
			_, err := cmdline.Sweep(ctx, cmdline.RunArgs{Gen: gen, Conn: cf, Flags: rf, FS: fs, URLs: args, Tenants: tf, Fleet: frf}, sf, a.env())
			return err
		case "check":
			return cmdline.Check(ctx, gen, cf, args, a.stdout, a.stderr)
		default:
			return cmdline.Cleanup(ctx, gen, cf, args, forceDrop, fs, a.stdout, a.stderr)
		}
	}
	return cmdline.RespellErrors(cmd, fs)
}

// cockroachCmd is `stampede workload init|run|check W ...`: a pasted
// `cockroach workload` command line (see package cmdline/cockroach).
func (a *app) cockroachCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "workload init|run|check WORKLOAD [flags] [URL...]",
		Short:              "Run a cockroach workload command line as cockroach does (paste it after stampede)",
		Long:               cockroach.Usage,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.setCommand(cmd)
			return cockroach.Main(cmd.Context(), args, a.env())
		},
	}
}

// hammerdbCmd is `stampede hammerdbcli auto SCRIPT.tcl` (package
// cmdline/hammerdb), whose steps run as stampede command lines.
func (a *app) hammerdbCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "hammerdbcli [auto SCRIPT.tcl] [--clients N --client-index I] [--tag K=V]",
		Short:              "Run a HammerDB CLI script of PostgreSQL's TPROC-C (or one on standard input)",
		Long:               hammerdb.Usage,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.setCommand(cmd)
			a.form = "hammerdbcli"
			exec := func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
				sub := &app{stdout: stdout, stderr: stderr, args: append([]string{"stampede"}, args...), secrets: append(a.secrets, cmdline.Secrets(args)...)}
				sub.root, sub.argv = sub.rootCmd(), args
				sub.root.SetArgs(args)
				return sub.root.ExecuteContext(ctx)
			}
			return hammerdb.Main(cmd.Context(), args, hammerdb.Env{Stdin: cmd.InOrStdin(), Stdout: a.stdout, Stderr: a.stderr, Exec: exec})
		},
	}
}
