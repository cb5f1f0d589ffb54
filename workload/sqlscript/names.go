package sqlscript

import (
	"fmt"
	"strconv"

	"github.com/stampede-bench/stampede/pgscript"
)

// distinctStatements names every SQL statement of scripts apart from the
// scripts and from the statements before it, as pgbench runs scripts
// whose `-- name:` comments repeat (to pgbench they are comments), so
// that the run log keeps one series per statement: a statement whose
// name is taken, by a script, by an earlier statement of any script or,
// with every (-r: every command measured), by a meta-command's FILE:LINE,
// gets the next free NAME#N (read, read#2, read#3), skipping the names
// other statements are given as written, which never change. It runs
// after distinctName, and returns one line for each statement it renamed
// (run sql's warnings) but those of scripts in repeats, the scripts
// distinctName renamed, whose names repeat another script's as given.
func distinctStatements(scripts []*pgscript.Script, repeats map[*pgscript.Script]bool, every bool) []string {
	holder := make(map[string]string) // a name taken, and by what
	for _, s := range scripts {
		holder[s.Name] = "the script " + s.Name
		if every {
			metaNames(s, holder)
		}
	}
	given := make(map[string]bool)
	for _, s := range scripts {
		for _, c := range s.Commands {
			if c.Kind == pgscript.SQL {
				given[c.Name] = true
			}
		}
	}
	var said []string
	for _, s := range scripts {
		for i := range s.Commands {
			c := &s.Commands[i]
			if c.Kind != pgscript.SQL {
				continue
			}
			line := c.Line
			if c.NameLine > 0 {
				line = c.NameLine
			}
			at := typed(s) + ":" + strconv.Itoa(line)
			by, taken := holder[c.Name]
			if !taken {
				holder[c.Name] = at
				continue
			}
			name := c.Name
			for n := 2; holder[name] != "" || given[name]; n++ {
				name = c.Name + "#" + strconv.Itoa(n)
			}
			if !repeats[s] {
				said = append(said, fmt.Sprintf("%s: the statement name %q is taken (%s): this statement is %s in the run log, report and compare; to choose its name, give it a `-- name:` of its own", at, c.Name, by, name))
			}
			c.Name = name
			holder[name] = at
		}
	}
	return said
}

// metaNames marks as taken the names of s's meta-commands, FILE:LINE (or
// FILE:LINE:N), as pgscript.Compile names them when it measures every
// command.
func metaNames(s *pgscript.Script, holder map[string]string) {
	perLine, nth := make(map[int]int), make(map[int]int)
	for _, c := range s.Commands {
		perLine[c.Line]++
	}
	for _, c := range s.Commands {
		nth[c.Line]++
		if c.Kind != pgscript.SQL {
			name := pgscript.LineName(s.Name, c.Line, nth[c.Line], perLine[c.Line])
			holder[name] = "the meta-command at " + typed(s) + ":" + strconv.Itoa(c.Line)
		}
	}
}
