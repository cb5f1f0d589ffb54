package sysbench

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/workload"
)

// WriteHelp writes what sysbench's `SCRIPT help` prints, for the
// workload of l's script: the version line, then the script's options in
// sysbench's layout (sorted, --name=N, --name=STRING or --name[=on|off],
// the description and the default in brackets). The random-number
// options, which sysbench lists among its general ones, are left out.
func WriteHelp(w io.Writer, l *Line, version string) error {
	m, ok := workload.Get(l.Script)
	if !ok {
		return inputf("unknown workload %s", l.Script)
	}
	var fs *pflag.FlagSet
	if f, ok := m.New().(workload.Flagser); ok {
		fs = f.Flags().FlagSet
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sysbench %s (using stampede %s)\n\n", report.SysbenchVersion, version)
	type entry struct{ name, format, usage, def string }
	var entries []entry
	if fs != nil {
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, "rand-") {
				return
			}
			e := entry{name: f.Name, format: "=STRING", usage: f.Usage, def: f.DefValue}
			switch f.Value.Type() {
			case "bool":
				e.format = "[=on|off]"
				e.def = map[string]string{"true": "on", "false": "off"}[f.DefValue]
			case "int", "int64", "uint64", "float64":
				e.format = "=N"
			}
			entries = append(entries, e)
		})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	width := 0
	for _, e := range entries {
		width = max(width, len(e.name)+len(e.format))
	}
	fmt.Fprintf(&b, "%s options:\n", l.Name)
	if len(entries) == 0 {
		b.WriteString("  (none of its own)\n")
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "  --%s%-*s%s [%s]\n", e.name, width-len(e.name)+1, e.format, upperFirst(strings.TrimSuffix(e.usage, " (on|off)")), e.def)
	}
	fmt.Fprintf(&b, "\nsysbench's general options (--threads, --time, --events, --rate, --report-interval, ...) and stampede's own: `stampede run %s --help`.\n", l.Script)
	_, err := io.WriteString(w, b.String())
	return err
}

// upperFirst capitalises a description, as sysbench's are.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
