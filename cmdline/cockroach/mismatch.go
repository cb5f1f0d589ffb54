package cockroach

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/workload"
)

// hinter completes the commands messages suggest from args, the words
// after `workload`: a hinted init gets the flags of args that cockroach's
// init takes (--db, the data's flags) and the URLs.
func (c *Command) hinter(args []string) cmdline.Hinter {
	return cmdline.Hinter{Argv: args, Current: c.fs, Flags: func(verb, name string) *pflag.FlagSet {
		def, ok := workloads[name]
		if !ok || (verb != "init" && verb != "run" && verb != "check") {
			return nil
		}
		flags := flagsFor(verb, def)
		if verb == "init" {
			// A run's own flags (tpcc's --wait, --workers) would make
			// the hinted init refuse them.
			// Nor does it carry a run's listeners (--prometheus-port,
			// --pprofport): they shape nothing init loads.
			flags = slices.DeleteFunc(slices.Clone(flags), func(f cflag) bool {
				return slices.ContainsFunc(def.flags, func(w cflag) bool { return w.name == f.name }) && !slices.Contains(dataFlags[name], f.name) ||
					f.name == "prometheus-port" || f.name == "pprofport"
			})
		}
		fs, _ := newFlagSet("workload "+verb+" "+name, flags)
		return fs
	}}
}

// dataFlags are the flags of each workload that shape what init loads
// (and where CockroachDB splits it): a hinted init carries them.
var dataFlags = map[string][]string{
	"ycsb": {"insert-start", "insert-count", "record-count", "insert-hash", "zero-padding", "json", "families", "splits"},
	"tpcc": {"warehouses", "fks", "families", "split", "scatter"},
	"bank": {"rows", "batch-size", "payload-bytes", "ranges", "tables"},
}

// ycsbProperty is a YCSB property as stampede's mismatch errors give it
// ("-p recordcount=2000").
var ycsbProperty = lazyre.New(`-p (\w+)=(\S+)`)

// crdbArgs returns a load setting as stampede's errors give it ("-p
// recordcount=2000", "-p insertstart=0 -p insertcount=100", "--rows 10")
// in cockroach's flags, or false when cockroach's workload has no flag
// for it (data loaded by stampede's own form with other settings).
func (c *Command) crdbArgs(arg string) (string, bool) {
	ok := true
	if c.Workload == "ycsb" {
		start, _ := strconv.Atoi(c.value("insert-start"))
		if m := regexp.MustCompile(`-p insertstart=(\d+)`).FindStringSubmatch(arg); m != nil {
			start, _ = strconv.Atoi(m[1])
		}
		out := ycsbProperty().ReplaceAllStringFunc(arg, func(m string) string {
			kv := ycsbProperty().FindStringSubmatch(m)
			key, v := kv[1], kv[2]
			switch key {
			case "recordcount":
				// cockroach's init loads --insert-count rows from key 0;
				// --record-count says more only with --insert-start.
				if !c.fs.Changed("record-count") && start == 0 {
					return "--insert-count=" + v
				}
				return "--record-count=" + v
			case "insertstart":
				return "--insert-start=" + v
			case "insertcount":
				return "--insert-count=" + v
			case "zeropadding":
				return "--zero-padding=" + v
			case "insertorder":
				return "--insert-hash=" + strconv.FormatBool(v != "ordered")
			}
			ok = false
			return m
		})
		return out, ok && !strings.Contains(out, "-p ")
	}
	// "--rows 10 --initial-balance 0": flag and value pairs.
	words := strings.Fields(arg)
	if len(words) == 0 || len(words)%2 != 0 {
		return arg, false
	}
	var out []string
	for i := 0; i < len(words); i += 2 {
		name, ok := strings.CutPrefix(words[i], "--")
		if !ok || c.fs.Lookup(name) == nil {
			return arg, false
		}
		out = append(out, "--"+name+"="+words[i+1])
	}
	return strings.Join(out, " "), true
}

// mismatch is a *workload.LoadMismatchError in cockroach's flags: the
// flag given, the value loaded, and the command that reloads (which
// reword completes with --db and the URLs). A setting cockroach's
// workload has no flag for (loaded by stampede's own form) gets a reload
// without it.
func (c *Command) mismatch(e *workload.LoadMismatchError) string {
	given, gok := c.crdbArgs(e.GivenArg)
	loaded, lok := c.crdbArgs(e.LoadedArg)
	if e.GivenArg == "" || e.LoadedArg == "" {
		gok, lok = false, false
	}
	if !gok || !lok {
		return fmt.Sprintf("database %q holds what init (of %s) loaded with %s, which cockroach's %s flags cannot give (stampede's own form loaded it): reload with `stampede init %s --drop`",
			e.Database, e.Workload, e.LoadedArg, c.Workload, c.Workload)
	}
	return fmt.Sprintf("%s differs from what init (of %s) loaded into database %q, %s: give %s or leave it out (a run without it uses what init loaded), or reload with `stampede init %s --drop %s`",
		given, e.Workload, e.Database, loaded, loaded, c.Workload, given)
}

// noteWriter writes to w, with run's note about the settings a run took
// from what init loaded ("note: using -p recordcount=2000, as init ...")
// in cockroach's flags (--insert-count=2000).
type noteWriter struct {
	c *Command
	w io.Writer
}

func (n noteWriter) Write(p []byte) (int, error) {
	s := string(p)
	if rest, ok := strings.CutPrefix(s, "note: using "); ok {
		if args, tail, ok := strings.Cut(rest, ", as init"); ok {
			if crdb, ok := n.c.crdbArgs(strings.ReplaceAll(args, ", ", " ")); ok {
				s = "note: using " + crdb + ", as init" + tail
			}
		}
	}
	if _, err := io.WriteString(n.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
