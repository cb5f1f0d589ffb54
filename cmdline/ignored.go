package cmdline

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/workload"
)

// WarnIgnored says, in one warning line per flag, which of the workload's
// flags given on the command line the verb does not use, so that none is
// ignored silently: a run-time flag (tpcc's --wait, ycsb's --workload) on
// init, check or cleanup (but a flag check uses, FlagMeta.Check, on
// check), on cleanup a flag that does not change which tables it drops,
// and on run or sweep a flag that only shapes what init creates (tpcc's
// --fks). The flags stay accepted, as sysbench and `cockroach workload`
// accept their options on every command.
func WarnIgnored(w io.Writer, verb string, m workload.Meta, gen workload.Generator) {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return
	}
	flags := f.Flags()
	var given []*pflag.Flag
	flags.VisitAll(func(fl *pflag.Flag) {
		if fl.Changed {
			given = append(given, fl)
		}
	})
	for _, fl := range given {
		if why := ignoredFlags(verb, m, flags.Meta, given)[fl.Name]; why != "" {
			fmt.Fprintf(w, "warning: %s\n", why)
		}
	}
}

// ignoredFlags returns, for each of the workload m's flags in given (set
// on a command line of verb; meta is the workload's FlagMeta) that verb
// does not use, why (WarnIgnored's warning, without its prefix).
func ignoredFlags(verb string, m workload.Meta, meta map[string]workload.FlagMeta, given []*pflag.Flag) map[string]string {
	why := map[string]string{}
	for _, fl := range given {
		if only := meta[fl.Name].Only; only != "" && only != verb {
			why[fl.Name] = fmt.Sprintf("--%s is used by `stampede %s %s` only: %s ignores it", fl.Name, only, m.Name, verb)
		}
	}
	if verb == "run" || verb == "sweep" {
		for _, fl := range given {
			if meta[fl.Name].LoadOnly && meta[fl.Name].Only == "" {
				why[fl.Name] = fmt.Sprintf("--%s only changes what `stampede init %s` creates: %s uses the tables as they were loaded and ignores it", fl.Name, m.Name, verb)
			}
		}
		return why
	}
	var tables []string
	data := map[string]bool{}
	if verb == "cleanup" {
		tables = tableNames(m, flagArgs(given, nil))
		// cleanup compares a data setting with what init recorded
		// (workload.AdoptLoad): it is not ignored even at its default.
		if gen, err := workload.FromFlags(m, flagArgs(given, nil)...); err == nil {
			if ds, ok := gen.(workload.DataSpecer); ok {
				for _, s := range ds.DataSettings() {
					data[s.Name] = true
				}
			}
		}
	}
	for _, fl := range given {
		switch {
		case meta[fl.Name].Only != "":
			// said above, or used by verb
		case meta[fl.Name].RuntimeOnly && !(verb == "check" && meta[fl.Name].Check):
			why[fl.Name] = fmt.Sprintf("--%s only changes what `stampede run %s` does: %s ignores it", fl.Name, m.Name, verb)
		case verb == "cleanup" && tables != nil && !data[fl.Name]:
			if without := tableNames(m, flagArgs(given, fl)); without != nil && slices.Equal(without, tables) {
				why[fl.Name] = fmt.Sprintf("--%s does not change which tables cleanup drops: ignored", fl.Name)
			}
		}
	}
	return why
}

// flagArgs renders the given flags as command-line arguments, leaving out
// skip.
func flagArgs(given []*pflag.Flag, skip *pflag.Flag) []string {
	var args []string
	for _, fl := range given {
		if fl == skip {
			continue
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			continue
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	}
	return args
}

// tableNames returns the names of the tables workload m has with the
// given flags, nil if the flags do not make a valid generator.
func tableNames(m workload.Meta, args []string) []string {
	gen, err := workload.FromFlags(m, args...)
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range gen.Tables() {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return append([]string{}, strings.Join(names, ","))
}
