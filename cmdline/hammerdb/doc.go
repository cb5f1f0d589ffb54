// Package hammerdb runs HammerDB's CLI scripts of PostgreSQL's TPROC-C
// (`hammerdbcli auto SCRIPT.tcl`) as stampede command lines: buildschema
// becomes `stampede init tpcc --profile hammerdb`, vurun `stampede run
// tpcc --profile hammerdb`, with the flags the script's diset settings
// give (config/postgresql.xml's keys and defaults), and HammerDB's lines
// around them.
//
// It reads Tcl's words as Tcl does (braces, double quotes, backslash-
// newlines, comments, semicolons, $variables and [commands]) and
// evaluates no more of Tcl than HammerDB's example scripts use: set,
// puts, if over one comparison, foreach over a list, open and close of a
// file to write, exit. Any other command, a diset key that PostgreSQL's
// HammerDB does not have (another database's, named with PostgreSQL's
// counterpart) and a value stampede cannot run are refused in one line
// naming the script's line (run.ErrInput, exit 2).
package hammerdb
