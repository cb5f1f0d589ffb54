package cmdline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/k8s"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/workload"
)

// passwordArg finds a password in a YCSB property or key=value argument
// (db.passwd=, postgrenosql.passwd=, password=) that redact.Conn does not
// know as a connection string.
var passwordArg = lazyre.New(`(?i)(passwd|password|secret)\s*=`)

// genK8sHelp is `stampede gen k8s`'s description.
const genK8sHelp = `gen k8s writes the Kubernetes manifests that run one benchmark from several
client pods: an indexed Job of --clients pods, each running the stampede command
line given after -- as one client of the benchmark (run --clients N --client-index
$(JOB_COMPLETION_INDEX), see ` + "`stampede run --help`" + `): --max-rate and --max-ops are the
benchmark's totals, which the clients share. The pods start together (--start-at,
default next:1m: the next whole minute after each pod reads its clock, so pods that
start within the same minute start together; an RFC 3339 time, once all pods are
scheduled, is surer; report warns of clients that did not line up), spread over the
nodes, are never retried (a late client would measure something else), and write
their run directories to one ReadWriteMany volume (a claim NAME-results of
--results-size, or --results-claim NAME, an existing one), where ` + "`stampede report`" + `
merges them. The command line is checked as run (or, with --init, init) checks it,
with --dry-run, before anything is written. No password is written: give URLs without one and
--password-secret, a Secret whose key "password" the pods get as PGPASSWORD.
--results-url-secret NAME, a Secret whose key "url" holds a postgresql:// results
store, makes no volume: the pods get the URL as STAMPEDE_RESULTS_URL (never written
in the manifest) and write their runs into the store (run --results-dir none), where
` + "`stampede report --results-url URL --tag job=NAME`" + ` merges them from any machine.
The files the command line names (-f, --init-file, --check-file, -P) are carried in a
ConfigMap NAME-files (1 MiB at most), mounted read-only at /scripts in the pods,
whose arguments name them there. The clients' command line is stampede's run form (run WORKLOAD [flags] URL...), not a
pasted sysbench or YCSB line. The file is --out (default NAME.yaml; - for stdout); an
existing file is replaced only with --force.`

// GenK8sCommand is `stampede gen k8s`. main runs a stampede command line
// (the clients', with --dry-run), writing its errors to stderr, and
// returns its exit code.
func GenK8sCommand(env Env, main func(args []string, stderr io.Writer) int) *cobra.Command {
	var s k8s.Spec
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "k8s --clients N --image IMAGE [flags] -- run WORKLOAD [run flags] URL...",
		Short: "Write Kubernetes manifests that run a benchmark from several client pods",
		Long:  genK8sHelp,
		Example: `  kubectl create secret generic bench-password --from-literal=password=...
  stampede gen k8s --name ycsb-a --clients 8 --image registry.example.com/stampede:0.1 --password-secret bench-password \
      -- run ycsb --workload a --max-rate 80000 --duration 10m 'postgresql://bench@pg-lb:5432/ycsb'
  kubectl apply -f ycsb-a.yaml
  kubectl wait --for=condition=complete job/ycsb-a --timeout=20m
  # then, in a pod that mounts the claim ycsb-a-results at /results:
  stampede runs --results-dir /results --tag job=ycsb-a
  stampede report --results-dir /results --tag job=ycsb-a`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 {
				return usagef("gen k8s: give each client's command line after --, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`")
			}
			if dash > 0 {
				return usagef("gen k8s: unexpected argument %q before --: gen k8s takes flags, then -- and the clients' command line", redact.Conn(args[0]))
			}
			if err := emptyK8sFlag(cmd.Flags()); err != nil {
				return err
			}
			verb := "run"
			if s.Init {
				verb = "init"
				if cmd.Flags().Changed("start-at") || cmd.Flags().Changed("results-claim") || cmd.Flags().Changed("results-size") {
					return usagef("gen k8s: --init writes a load's Job, which has no common start and no run directories: drop --start-at, --results-claim and --results-size")
				}
				s.StartAt = ""
			}
			if len(args) < 2 || args[0] != verb || strings.HasPrefix(args[1], "-") {
				if s.Init {
					return usagef("gen k8s: with --init, the clients' command line after -- is `init WORKLOAD [flags] URL...`, as `stampede gen k8s --init --clients 4 --image IMAGE -- init ycsb -p recordcount=100000000 URL`")
				}
				return usagef("gen k8s: the clients' command line after -- is `run WORKLOAD [flags] URL...`, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`")
			}
			if _, ok := workload.Get(args[1]); !ok { // before --clients and the rest: the first mistake of the line
				var names []string
				for _, m := range workload.Registered() {
					names = append(names, m.Name)
				}
				return usagef("gen k8s: unknown workload %q in the clients' command line after --: see `stampede workloads` (available: %s)", args[1], strings.Join(names, ", "))
			}
			s.Args = args
			if cmd.Flags().Changed("results-claim") && cmd.Flags().Changed("results-size") {
				return usagef("gen k8s: --results-size sizes the claim gen k8s creates, and --results-claim %s is an existing claim, which keeps its own size: give one of them", s.ResultsClaim)
			}
			if s.ResultsURLSecret != "" && !cmd.Flags().Changed("results-size") {
				s.ResultsSize = "" // the default's: no claim is made
			}
			if s.Name == "" {
				s.Name = strings.ReplaceAll(strings.ToLower(args[1]), "_", "-")
			}
			if err := s.Validate(); err != nil {
				return usagef("gen k8s: %v", err)
			}
			if s.Init {
				// no start time
			} else if at, err := ParseStartAt(s.StartAt, time.Now()); err != nil {
				return usagef("gen k8s: %v", err)
			} else if !strings.HasPrefix(s.StartAt, "next:") && time.Until(at) < 0 {
				return usagef("gen k8s: --start-at %s is past: give a time the pods will not have reached, or next:1m", s.StartAt)
			}
			for k, a := range args {
				if redact.Conn(a) != a || strings.HasPrefix(a, "--pgsql-password") || passwordArg().MatchString(a) {
					return ownUsage("gen k8s: the clients' command line holds a password, which is never written into a manifest: give the URL without it, store it in a Secret and give --password-secret NAME; the Secret is made with kubectl create secret generic NAME --from-literal=password=PASSWORD")
				}
				name, value, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
				if !eq && k+1 < len(args) {
					value = args[k+1] // --tag job=x
				}
				switch {
				case !strings.HasPrefix(a, "--"):
				case s.Init && (name == "start-at" || name == "results-dir" || name == "results-url"):
					// As `stampede init` itself says: its flags have none.
					return usagef("gen k8s: the init Job's command line would not run: init takes no --%s (unknown flag: --%s): drop it", name, name)
				case s.Init && (name == "clients" || name == "client-index"):
					return usagef("gen k8s: %s is gen k8s's to set in each client's command line: drop it (gen k8s --init sets --clients and --client-index)", a)
				case name == "clients" || name == "client-index" || name == "start-at" || name == "results-dir" || name == "results-url":
					return usagef("gen k8s: %s is gen k8s's to set in each client's command line: drop it (gen k8s sets --clients, --client-index, --start-at, --results-dir and --results-url)", a)
				case s.Init && name == "drop":
					return usagef("gen k8s: %s in a split load's command line: its pods would drop each other's shares; run `stampede cleanup` once before applying the Job", a)
				case name == "dry-run":
					return usagef("gen k8s: %s in the clients' command line would make every pod run nothing: drop it", a)
				case name == "tag" && (strings.HasPrefix(value, "job=") || strings.HasPrefix(value, "client=")):
					return usagef("gen k8s: --tag %s: gen k8s tags each client's run job=NAME and client=I/N itself: give your tag another name", value)
				}
			}
			files, err := k8s.Files(args, os.ReadFile)
			if err != nil {
				return usagef("gen k8s: %v", err)
			}
			s.Files = files
			// Every client's line is checked (a share of the operations
			// or of YCSB's keys can be empty for some indexes only): the
			// first and the last, which get the largest and smallest,
			// with --dry-run (init's and run's), connecting to nothing.
			for _, index := range []int{0, s.Clients - 1} {
				dry := append(append([]string(nil), s.ClientArgs()...), "--dry-run")
				for i, a := range dry {
					dry[i] = strings.ReplaceAll(a, "$("+k8s.IndexVar+")", strconv.Itoa(index))
				}
				var errb bytes.Buffer
				if main(dry, &errb) != 0 {
					msg := strings.TrimPrefix(strings.TrimSpace(errb.String()), "stampede: error: ")
					return usagef("gen k8s: the command line of client %d would not run: %s", index, msg)
				}
			}
			b, err := s.Manifest()
			if err != nil {
				return err
			}
			if out == "" {
				out = s.Name + ".yaml"
			}
			if out == "-" {
				_, err := env.Stdout.Write(b)
				return err
			}
			if st, err := os.Stat(out); err == nil && st.IsDir() {
				return usagef("gen k8s: --out %s is a directory: give a file name, such as %s", out, filepath.Join(out, s.Name+".yaml"))
			}
			if err := writeNew(out, b, force); err != nil {
				return OutFileError("gen k8s", out, err)
			}
			for _, f := range s.Files {
				fmt.Fprintf(env.Stdout, "%s: carried in ConfigMap %s-files, at %s/%s in the pods\n", f.Path, s.Name, k8s.ScriptsDir, f.Key)
			}
			if s.Init {
				fmt.Fprintf(env.Stdout, "wrote %s: job %s, %d pods of %s, each loading its share\napply it with: kubectl apply -f %s\n",
					out, s.Name, s.Clients, s.Image, out)
				return nil
			}
			where := "on claim " + s.Claim()
			if s.ResultsURLSecret != "" {
				where = "in the results store of Secret " + s.ResultsURLSecret
			}
			fmt.Fprintf(env.Stdout, "wrote %s: job %s, %d client pods of %s, results %s\napply it with: kubectl apply -f %s\n",
				out, s.Name, s.Clients, s.Image, where, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&s.Name, "name", "", "name of the Job and of its runs' tag job=NAME (default: the workload's name)")
	f.StringVar(&s.Namespace, "namespace", "", "namespace of the objects (default: kubectl's)")
	f.StringVar(&s.Image, "image", "", "container image whose entrypoint is stampede (required)")
	f.IntVar(&s.Clients, "clients", 0, "number of client pods (required)")
	SetRange(f, "clients", 1, 10000)
	f.StringVar(&s.StartAt, "start-at", "next:1m", "the clients' common start, as run's --start-at")
	f.StringVar(&s.PasswordSecret, "password-secret", "", "Secret whose key \"password\" the pods get as PGPASSWORD")
	f.StringVar(&s.ResultsURLSecret, "results-url-secret", "", "Secret whose key \"url\" (a postgresql:// results store) the pods get as STAMPEDE_RESULTS_URL: each client writes its run into the store, and no volume is made")
	f.StringVar(&s.ResultsClaim, "results-claim", "", "existing ReadWriteMany volume claim for the run directories (default: create NAME-results)")
	f.StringVar(&s.ResultsSize, "results-size", "1Gi", "size of the volume claim created for the run directories")
	f.StringVar(&s.CPU, "cpu", "", "each client pod's CPU request and limit, such as 2")
	f.StringVar(&s.Memory, "memory", "", "each client pod's memory request and limit, such as 2Gi")
	f.StringVarP(&out, "out", "o", "", "file to write (default NAME.yaml; - for stdout)")
	f.BoolVar(&force, "force", false, "replace --out if it exists")
	f.BoolVar(&s.Init, "init", false, "write the Job of a split load instead: the command line after -- is init WORKLOAD [flags] URL..., and each pod loads its share (init --clients N --client-index I), with no start time or results volume")
	return cmd
}

// k8sNames says what each of gen k8s's flags that name something takes;
// given empty, each would be silently left out (chk31 B8: an empty
// --results-url-secret wrote a claim instead).
var k8sNames = []struct{ flag, what, without string }{
	{"name", "the Job's name", "the workload's name"},
	{"namespace", "the objects' namespace", "kubectl's"},
	{"password-secret", "the Secret whose key \"password\" holds the password", "no PGPASSWORD"},
	{"results-url-secret", "the Secret whose key \"url\" holds the results store's URL", "a volume claim for the run directories"},
	{"results-claim", "an existing ReadWriteMany claim", "the claim NAME-results gen k8s creates"},
	{"results-size", "the size of the claim gen k8s creates, such as 1Gi", "1Gi"},
	{"cpu", "each pod's CPUs, such as 2", "no limit"},
	{"memory", "each pod's memory, such as 2Gi", "no limit"},
	{"out", "the file to write, or - for stdout", "NAME.yaml"},
}

// emptyK8sFlag refuses a flag of k8sNames given an empty value, naming
// what it takes and what leaving it out gives.
func emptyK8sFlag(flags *pflag.FlagSet) error {
	for _, n := range k8sNames {
		if f := flags.Lookup(n.flag); f != nil && f.Changed && strings.TrimSpace(f.Value.String()) == "" {
			return usagef("gen k8s: --%s '' is empty: give %s, or leave it out (%s)", n.flag, n.what, n.without)
		}
	}
	return nil
}

// OutFileError is the error of a generator (gen haproxy, gen k8s) that
// could not write its --out file: a usage error when the file exists (not
// replaced without --force) or its directory does not.
func OutFileError(gen, out string, err error) error {
	switch {
	case errors.Is(err, fs.ErrExist):
		return usagef("%s: %s exists: not overwritten (add --force to replace it, or give another --out)", gen, out)
	case errors.Is(err, fs.ErrNotExist):
		return usagef("%s: --out %s: directory %s does not exist (create it first)", gen, out, filepath.Dir(out))
	}
	return fmt.Errorf("%s: %w", gen, err)
}

// writeNew writes b to path, refusing to replace a file unless force.
func writeNew(path string, b []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		if _, serr := os.Stat(filepath.Dir(path)); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("%w", fs.ErrNotExist)
		}
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
