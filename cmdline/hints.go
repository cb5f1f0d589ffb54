package cmdline

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/workload"
)

// Hinter completes the commands that messages suggest from the command
// line being run.
type Hinter struct {
	// Argv is the command line in stampede's word order (verb,
	// workload, flags, URLs); Current the flags of the command being
	// run.
	Argv    []string
	Current *pflag.FlagSet
	// Flags returns the flags of `stampede VERB WORKLOAD`, nil for a
	// command that does not exist.
	Flags func(verb, workload string) *pflag.FlagSet
}

// hintPattern finds the commands that messages suggest, in backticks:
// `stampede init tpcc --drop`.
var hintPattern = lazyre.New("`(stampede (?:init|prepare|run|check|cleanup) [a-z_]+[^`]*)`")

// notCarried are the flags a hint never takes from the current command
// line: their meaning differs between verbs (init's --concurrency is COPY
// streams, run's workers; init's --seed seeds the data, run's the
// operations), or they would do what the hint did not suggest (--drop;
// --force-drop, given to drop a user's objects in one command, not to
// drop them in another: a hint that needs it writes it).
var notCarried = map[string]bool{"concurrency": true, "threads": true, "seed": true, "rand-seed": true, "drop": true, "force-drop": true, "conns": true}

// splitFlags split a load or a run between clients: a hint that reloads
// with --drop does not carry them.
var splitFlags = map[string]bool{"clients": true, "client-index": true}

// Hints completes every command suggested in msg, in backticks (see
// Hinter.Complete).
func (h Hinter) Hints(msg string) string {
	return hintPattern().ReplaceAllStringFunc(msg, func(m string) string {
		return "`" + h.Complete(strings.Trim(m, "`")) + "`"
	})
}

// Complete returns hint, a command line such as "stampede check tpcc
// --tenants 3", completed from the current command line: the flags given
// there that the hinted command takes and does not set itself (its
// database, tenants, data-shaping flags), with their values as typed, and
// its URLs (passwords redacted), so that the hint runs as it is.
func (h Hinter) Complete(hint string) string {
	words := strings.Fields(hint)
	if h.Flags == nil || len(h.Argv) < 2 || len(words) < 3 || slices.Contains(words, "--help") || slices.Contains(words, "-h") {
		return hint
	}
	targetFlags := h.Flags(words[1], words[2])
	if targetFlags == nil {
		return hint
	}
	given := map[string]bool{}
	for _, w := range words[3:] {
		if f := lookupFlag(targetFlags, w); f != nil {
			given[f.Name] = true
		}
	}
	// The workload's flags the hinted verb does not use (a run's own
	// flags on check, a flag that does not change which tables cleanup
	// drops, an init's on run) stay behind: the hint must run without a
	// warning (see WarnIgnored).
	var ignored map[string]string
	var meta map[string]workload.FlagMeta
	if m, ok := workload.Get(words[2]); ok && h.Current != nil {
		if f, ok := m.New().(workload.Flagser); ok {
			wflags := f.Flags()
			meta = wflags.Meta
			var carried []*pflag.Flag
			h.Current.VisitAll(func(fl *pflag.Flag) {
				if fl.Changed && wflags.Lookup(fl.Name) != nil && !given[fl.Name] && !notCarried[fl.Name] {
					carried = append(carried, fl)
				}
			})
			ignored = ignoredFlags(words[1], m, wflags.Meta, carried)
		}
	}
	// A reload (--drop) is one process's: init refuses --drop with
	// --clients (the clients would drop each other's shares), and a
	// whole load serves a run of any clients; and it makes everything,
	// so it leaves out a flag that keeps the data (FlagMeta.KeepsData:
	// tpcc's --routines-only), which init refuses with --drop.
	drop := slices.Contains(words, "--drop")
	var add []string
	for i := 2; i < len(h.Argv); i++ { // after the verb and the workload
		arg := h.Argv[i]
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "-") {
			if strings.Contains(arg, "://") || strings.Contains(arg, "=") {
				add = append(add, shellQuote(redact.Text(redact.Conn(arg))))
			}
			continue
		}
		f := lookupFlag(targetFlags, arg)
		takesNext := f != nil && !strings.Contains(arg, "=") && f.NoOptDefVal == ""
		if f == nil {
			// A flag the hinted command does not take: skip its value
			// too, when it has one in the next word.
			if cf := lookupFlag(h.Current, arg); cf != nil && !strings.Contains(arg, "=") && cf.NoOptDefVal == "" {
				i++
			}
			continue
		}
		keep := !given[f.Name] && !notCarried[f.Name] && ignored[f.Name] == "" && !(drop && (splitFlags[f.Name] || meta[f.Name].KeepsData))
		if h.Argv[0] == "sweep" && keep {
			v, inline := strings.CutPrefix(arg, "--"+f.Name+"=")
			if !inline && takesNext && i+1 < len(h.Argv) {
				v = h.Argv[i+1]
			}
			keep = !sweptValues(f, v) // a sweep's 1,2 or 1:8 is no value of the hinted command
		}
		if keep {
			add = append(add, shellQuote(redact.Text(arg)))
		}
		if takesNext && i+1 < len(h.Argv) {
			i++
			if keep {
				add = append(add, shellQuote(redact.Text(h.Argv[i])))
			}
		}
	}
	if len(add) == 0 {
		return hint
	}
	return hint + " " + strings.Join(add, " ")
}

// sweptValues reports whether v is a sweep's values (a list or a range)
// given to a flag f whose own value is one number, duration or size.
func sweptValues(f *pflag.Flag, v string) bool {
	switch f.Value.Type() {
	case "string", "stringSlice", "stringArray", "stringToString":
		return false
	}
	return strings.ContainsAny(v, ",:")
}

// lookupFlag finds the flag of fs that a command-line word names: --name,
// --name=value, -p or -pvalue; nil if none (or fs is nil).
func lookupFlag(fs *pflag.FlagSet, word string) *pflag.Flag {
	if fs == nil || !strings.HasPrefix(word, "-") || word == "-" {
		return nil
	}
	if name, ok := strings.CutPrefix(word, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		if fs.GetNormalizeFunc() != nil {
			name = string(fs.GetNormalizeFunc()(fs, name))
		}
		return fs.Lookup(name)
	}
	return fs.ShorthandLookup(word[1:2])
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
