package cmdline

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/redact"
)

// URLArgs checks that every argument left after the flags (args) is a
// URL, as init, run, check and cleanup take them; argv is the whole
// command line and fs the command's parsed flags, by which a word left
// over is traced to its cause: a word after a boolean flag (`--wait
// false`, which a boolean flag does not take as its value) or the word
// after a flag that took the next flag as its value (`-p --driver null`).
// command is the command's path, for its help.
func URLArgs(fs *pflag.FlagSet, argv, args []string, command string) error {
	for _, arg := range args {
		if strings.Contains(arg, "://") || strings.Contains(arg, "=") {
			continue
		}
		for k, w := range argv {
			if w == "--" {
				break
			}
			if w != arg || k == 0 {
				continue
			}
			if f := flagOf(fs, argv[k-1]); f != nil && f.NoOptDefVal != "" {
				return usagef("unexpected argument %q after %s: a boolean flag takes its value after '=', as %s=false (see `%s --help`)", redact.Conn(arg), argv[k-1], argv[k-1], command)
			}
			if k < 2 || !strings.HasPrefix(argv[k-1], "-") {
				continue
			}
			if f := flagOf(fs, argv[k-2]); f != nil && f.NoOptDefVal == "" {
				value := "a value"
				if strings.Contains(f.Usage, "`") {
					value, _ = pflag.UnquoteUsage(f)
				}
				return usagef("%s took the flag %s as its value, leaving %q over: %s needs %s right after it (see `%s --help`)", argv[k-2], argv[k-1], redact.Conn(arg), argv[k-2], value, command)
			}
		}
		return usagef("unexpected argument %q: URLs look like postgresql://user@host:port/db (see `%s --help`)", redact.Conn(arg), command)
	}
	return nil
}

// flagOf is the flag of fs that the word w names as a whole (--name or
// -n, without a value after '='), or nil.
func flagOf(fs *pflag.FlagSet, w string) *pflag.Flag {
	if strings.Contains(w, "=") {
		return nil
	}
	if name, ok := strings.CutPrefix(w, "--"); ok {
		return fs.Lookup(name)
	}
	if short, ok := strings.CutPrefix(w, "-"); ok && len(short) == 1 {
		return fs.ShorthandLookup(short)
	}
	return nil
}

// ChangedFlags returns the flags set on the command line, as --NAME, but
// those named in except.
func ChangedFlags(fs *pflag.FlagSet, except ...string) []string {
	var out []string
	fs.Visit(func(fl *pflag.Flag) {
		if !slices.Contains(except, fl.Name) {
			out = append(out, "--"+fl.Name)
		}
	})
	return out
}
