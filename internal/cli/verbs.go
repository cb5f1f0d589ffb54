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

// verb is a command that takes a workload: init, run, check, cleanup.
type verb struct {
	name  string
	short string
	// example is a usage line; WORKLOAD is replaced by the workload's name.
	example string
	// aliases are other names of the verb (sysbench's "prepare").
	aliases []string
	// examples are the command lines of its help's Examples section.
	examples string
}

var (
	verbInit = verb{"init", "Create a workload's schema and load its initial data (sysbench's prepare)",
		"stampede init WORKLOAD [flags] [URL...]", []string{"prepare"},
		`  stampede init ycsb --workload a 'postgresql://postgres@localhost:5432/ycsb'
  stampede init tpcc --warehouses 10 --drop 'postgresql://postgres@localhost:5432/tpcc'
  stampede oltp_read_write --tables=4 --table_size=1000000 --pgsql-host=db1 prepare   # sysbench's form`}
	verbRun = verb{"run", "Run a workload and report throughput and latency",
		"stampede run WORKLOAD [flags] [URL...]", nil,
		`  stampede run ycsb --workload a --duration 60s --concurrency 16 'postgresql://postgres@localhost:5432/ycsb'
  stampede run tpcc --warehouses 10 --duration 10m --ramp 1m 'postgresql://postgres@localhost:5432/tpcc'
  stampede run bank --max-rate 2000 --duration 5m 'postgresql://postgres@localhost:5432/bank'`}
	verbCheck = verb{"check", "Run a workload's consistency checks",
		"stampede check WORKLOAD [flags] [URL...]", nil,
		`  stampede check tpcc --warehouses 10 'postgresql://postgres@localhost:5432/tpcc'
  stampede check bank 'postgresql://postgres@localhost:5432/bank'`}
	verbCleanup = verb{"cleanup", "Drop a workload's tables",
		"stampede cleanup WORKLOAD [flags] [URL...]", nil,
		`  stampede cleanup ycsb 'postgresql://postgres@localhost:5432/ycsb'
  stampede cleanup oltp_read_write --tables=4 'postgresql://postgres@localhost:5432/sbtest'`}
	verbSweep = verb{"sweep", "Run a workload at several rates or worker counts, or search for the most that meets an SLO",
		"stampede sweep WORKLOAD --max-rate 1000:16000:x2 [--slo p99<=5ms] [flags] [URL...]", nil,
		`  stampede sweep ycsb --workload a --max-rate 1000:16000:x2 --duration 1m 'postgresql://postgres@localhost:5432/ycsb'
  stampede sweep ycsb --workload b --max-rate 1000:64000 --search --slo 'p99<=5ms' --duration 1m 'postgresql://postgres@localhost:5432/ycsb'
  stampede sweep oltp_point_select --concurrency 1,2,4,8,16 --duration 30s 'postgresql://postgres@localhost:5432/sbtest'`}
)

const urlHelp = `URLs are libpq connection strings: postgresql://user:password@host:port/db?sslmode=...
or key=value pairs. With no URL, the libpq environment variables apply (PGHOST, PGPORT,
PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...). With several URLs, connections are
spread round-robin over them.`

// workloadVerb builds a verb command with one subcommand per workload.
func (a *app) workloadVerb(v verb) *cobra.Command {
	cmd := &cobra.Command{
		Use:     v.name + " WORKLOAD [flags] [URL...]",
		Aliases: v.aliases,
		Short:   v.short,
		Long:    v.short + ".\n\n" + cmdline.VerbHelp(v.name) + urlHelp + "\n\nWorkloads: " + cmdline.WorkloadNames() + " (see `stampede workloads`).",
		Example: v.examples,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name a workload: `%s` (workloads: %s)", strings.Replace(v.example, "WORKLOAD", "NAME", 1), cmdline.WorkloadNames())
			}
			return cmdline.NotWorkload(v.name, args[0])
		},
	}
	// A flag the verb alone does not know (`run URL ycsb --duration 2s`,
	// `run ycbs --clients 2`) means the word after the verb is not a
	// workload: that is the mistake to name, not the flag.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == cmd {
			if i := slices.IndexFunc(a.argv, func(w string) bool { return w == v.name || slices.Contains(v.aliases, w) }); i >= 0 && i+1 < len(a.argv) && !strings.HasPrefix(a.argv[i+1], "-") {
				return cmdline.NotWorkload(v.name, a.argv[i+1])
			}
			// A workload's flag before the workload's name.
			if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok && slices.ContainsFunc(cmd.Commands(), func(w *cobra.Command) bool { return w.Flags().Lookup(name) != nil }) {
				return usagef("--%s is a workload's flag: name the workload first, as in `%s` (workloads: %s)", name, strings.Replace(v.example, "WORKLOAD", "NAME", 1), cmdline.WorkloadNames())
			}
		}
		return flagError(c, err)
	})
	for _, m := range workload.Registered() {
		cmd.AddCommand(a.workloadCmd(v, m))
	}
	return cmd
}

// workloadCmd builds `VERB NAME`.
func (a *app) workloadCmd(v verb, m workload.Meta) *cobra.Command {
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
		Long:  m.Description + "\n\n" + urlHelp,
		Args:  cobra.ArbitraryArgs,
	}
	if m.Details != "" {
		cmd.Long = m.Details + "\n\n" + urlHelp
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	if f, ok := gen.(workload.Flagser); ok {
		fs.AddFlagSet(f.Flags().FlagSet)
		cmdline.AcceptDashes(fs)
	}
	cf.Register(fs)
	switch v.name {
	case "init":
		inf.Register(fs)
	case "check", "cleanup":
		// sysbench passes its general options to every command.
		fs.Int("threads", 0, "sysbench's option, accepted and unused here")
		_ = fs.MarkHidden("threads")
		if v.name == "cleanup" {
			fs.BoolVar(&forceDrop, "force-drop", false, "drop the tables (or tenant databases, schemas) even where stampede did not make them; without it cleanup drops only what stampede made and refuses the rest")
			fs.Bool("sysbench-syntax", false, "the command line is sysbench's cleanup: sysbench's lines (set by stampede for 'stampede SCRIPT [options] cleanup')")
			_ = fs.MarkHidden("sysbench-syntax")
		}
	case "run", "sweep":
		rf.Register(fs)
		tf.Register(fs)
		frf.Register(fs)
		if v.name == "sweep" {
			sf.Register(fs) // after every flag it may sweep (--active)
		}
	}
	if v.name != "run" && v.name != "sweep" {
		tf.Register(fs)
		if v.name == "init" {
			fif.Register(fs)
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		a.setCommand(cmd)
		if err := cmdline.URLArgs(fs, a.argv, args, "stampede "+v.name+" "+m.Name); err != nil {
			return err
		}
		if vs, ok := gen.(workload.VerbSetter); ok {
			vs.SetVerb(v.name)
		}
		if h, ok := gen.(workload.Hookser); ok && h.Hooks().Validate != nil {
			if err := h.Hooks().Validate(); err != nil {
				return asUsage(err)
			}
		}
		// sysbench's prepare and cleanup take every option silently.
		if sb, _ := fs.GetBool("sysbench-syntax"); !sb || v.name == "run" {
			cmdline.WarnIgnored(a.stderr, v.name, m, gen)
		}
		if v.name != "run" && v.name != "sweep" {
			spec, on, err := tf.Fleet(m.Name)
			if err == nil && v.name == "init" {
				err = fif.Validate(fs, on)
			}
			if err != nil {
				return err
			}
			if on {
				switch v.name {
				case "init":
					return a.initFleet(ctx, gen, spec, cf, inf, fif, args)
				case "check":
					return a.checkFleet(ctx, gen, spec, cf, args)
				default:
					return a.cleanupFleet(ctx, gen, spec, cf, forceDrop, args)
				}
			}
		}
		switch v.name {
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
	return cmd
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
