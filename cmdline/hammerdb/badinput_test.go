package hammerdb

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// TestBadInput: each bad script is refused in one line that names its
// line and the problem, as bad input (exit 2), before any stampede
// command runs.
func TestBadInput(t *testing.T) {
	const pg = "dbset db pg\n"
	for _, tc := range []struct {
		name, src string
		want      []string // substrings of the one-line message
	}{
		{"mysql key", pg + "diset tpcc mysql_count_ware 10\n", []string{"line 2", "mysql_count_ware is MySQL's key", "diset tpcc pg_count_ware"}},
		{"oracle key", pg + "diset tpcc count_ware 10\n", []string{"count_ware is Oracle's key", "diset tpcc pg_count_ware"}},
		{"oracle system user", pg + "diset connection system_user sys\n", []string{"system_user is Oracle's key", "diset tpcc pg_superuser"}},
		{"mssql key", pg + "diset tpcc mssqls_rampup 1\n", []string{"MSSQLServer's key", "diset tpcc pg_rampup"}},
		{"mariadb key without pg twin", pg + "diset tpcc maria_purge true\n", []string{"MariaDB's key and PostgreSQL has none like it"}},
		{"key of the other dictionary", pg + "diset connection pg_superuser postgres\n", []string{"line 2", "is in the tpcc dictionary", "diset tpcc pg_superuser"}},
		{"unknown key", pg + "diset tpcc pg_warehouses 10\n", []string{"HammerDB's PostgreSQL has no key pg_warehouses"}},
		{"misspelt key", pg + "diset tpcc pg_count_warehouse 10\n", []string{"no key pg_count_warehouse"}},
		{"tpch key", pg + "diset tpcc pg_scale_fact 10\n", []string{"TPROC-H key"}},
		{"tpch dictionary", pg + "diset tpch pg_scale_fact 10\n", []string{"TPROC-C only"}},
		{"no such dictionary", pg + "diset conn pg_host h\n", []string{"Dictionary \"conn\" for PostgreSQL does not exist"}},
		{"diset before dbset", "diset tpcc pg_count_ware 10\n", []string{"line 1", "before dbset db pg"}},
		{"other database", "dbset db mysql\n", []string{"line 1", "PostgreSQL scripts only"}},
		{"unknown database", "dbset db sqlite\n", []string{"Unknown prefix sqlite"}},
		{"tproc-h", pg + "dbset bm TPROC-H\n", []string{"TPROC-C only"}},
		{"bad driver", pg + "diset tpcc pg_driver fast\n", []string{"\"test\" or \"timed\""}},
		{"bad count", pg + "diset tpcc pg_count_ware ten\n", []string{"pg_count_ware must be an integer"}},
		{"zero duration", pg + "diset tpcc pg_duration 0\n", []string{"pg_duration must be an integer from 1"}},
		{"bad boolean", pg + "diset tpcc pg_storedprocs maybe\n", []string{"pg_storedprocs must be true or false"}},
		{"bad sslmode", pg + "diset connection pg_sslmode always\n", []string{"pg_sslmode must be one of"}},
		{"tablespace", pg + "diset tpcc pg_tspace fast\n", []string{"default tablespace"}},
		{"async", pg + "diset tpcc pg_async_scale true\n", []string{"asynchronous clients"}},
		{"citus", pg + "diset tpcc pg_cituscompat true\n", []string{"Citus"}},
		{"diset arity", pg + "diset tpcc pg_count_ware\n", []string{"Usage: diset dict key value"}},
		{"unknown command", pg + "vurunn\n", []string{"line 2", "vurunn is not a command"}},
		{"known but not run", pg + "metstart\n", []string{"line 2", "metstart", "--telemetry"}},
		{"jobs", pg + "jobs\n", []string{"jobs database"}},
		{"checkschema", pg + "checkschema\n", []string{"line 2", "stampede check tpcc --profile hammerdb URL"}},
		{"customscript", pg + "customscript my.tcl\n", []string{"--use-installed-routines"}},
		{"proc", "proc f {} { puts x }\n", []string{"line 1", "procedures"}},
		{"vu zero", pg + "vuset vu 0\n", []string{"from 1 to 100000"}},
		{"vu word", pg + "vuset vu many\n", []string{"vuset vu many"}},
		{"vuset delay", pg + "vuset delay 100\n", []string{"default 500 only"}},
		{"vuset with users", pg + "vucreate\nvuset vu 2\n", []string{"line 3", "destroy with vudestroy"}},
		{"vucreate twice", pg + "vucreate\nvucreate\n", []string{"line 3", "Virtual Users exist"}},
		{"build more users than warehouses", pg + "diset tpcc pg_num_vu 4\nbuildschema\n", []string{"line 3", "4 virtual users building 1 warehouses"}},
		{"unset variable", "puts $nothing\n", []string{"line 1", "no such variable"}},
		{"unset env", "set d $::env(HCLI33_NO_SUCH)\n", []string{"::env(HCLI33_NO_SUCH)"}},
		{"open brace", "puts {a\n", []string{"line 1", "missing close-brace"}},
		{"open quote", "puts \"a\n\n", []string{"line 1", "missing \""}},
		{"open bracket", "set x [numberOfCPUs\n", []string{"close-bracket"}},
		{"extra after brace", "puts {a}b\n", []string{"extra characters after close-brace"}},
		{"expansion", "puts {*}$x\n", []string{"argument expansion"}},
		{"complex if", "if { 1 + 2 > 3 } { puts x }\n", []string{"one comparison"}},
		{"open for reading", "open /etc/hostname r\n", []string{"writing only"}},
		{"print script", pg + "print script\n", []string{"print script"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := &fakeRun{}
			env := Env{Stdout: io.Discard, Stderr: io.Discard, Exec: fr.exec, Server: &fakeServer{}, NumCPU: 4,
				LookupEnv: func(string) (string, bool) { return "", false }}
			err := Run(context.Background(), tc.src, Options{}, env)
			if err == nil {
				t.Fatalf("%q: no error", tc.src)
			}
			if !errors.Is(err, run.ErrInput) {
				t.Errorf("%q: %v is not bad input (exit 2)", tc.src, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("%q: message of several lines: %q", tc.src, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q: %q does not say %q", tc.src, msg, w)
				}
			}
			if len(fr.lines) > 0 {
				t.Errorf("%q: ran %v", tc.src, fr.lines)
			}
		})
	}
}

// TestMainArgs: the command line of hammerdbcli itself.
func TestMainArgs(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.tcl")
	if err := os.WriteFile(script, []byte("puts hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // "" for success
	}{
		{[]string{"auto", script}, ""},
		{[]string{"tcl", "auto", script}, ""},
		{[]string{"auto", script, "--clients", "2", "--client-index", "1", "--tag", "job=x"}, ""},
		{[]string{"auto"}, "name the script"},
		{[]string{"auto", "/nonexistent/s.tcl"}, "no such file"},
		{[]string{"py"}, "not its Python ones"},
		{[]string{"run.tcl"}, "give auto SCRIPT.tcl"},
		{[]string{"auto", script, "--clinets", "2"}, "unknown flag: --clinets"},
		{[]string{"auto", script, "--client-index", "1"}, "without --clients"},
		{[]string{"auto", script, "other.tcl"}, "give one script"},
	} {
		var out strings.Builder
		err := Main(context.Background(), tc.args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: io.Discard})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want == "" && out.String() != "hello\n":
			t.Errorf("%v: printed %q", tc.args, out.String())
		case tc.want != "" && (err == nil || !errors.Is(err, run.ErrInput) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want bad input saying %q", tc.args, err, tc.want)
		}
	}
	var out strings.Builder
	if err := Main(context.Background(), nil, Env{Stdin: strings.NewReader("puts {from stdin}\n"), Stdout: &out}); err != nil || out.String() != "from stdin\n" {
		t.Errorf("stdin: %q %v", out.String(), err)
	}
}

// TestWords: Tcl's word rules on HammerDB's scripts.
func TestWords(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"puts {a b}", "a b"},
		{"puts \"a  b\"", "a  b"},
		{"puts {a {b} c}", "a {b} c"},
		{"puts {a\\\n    b}", "a b"},
		{"puts \\\n  hello", "hello"},
		{"set x 3; puts $x", "3"},
		{"set x 3 ;# comment\nputs \"$x VU TEST\"", "3 VU TEST"},
		{"# a comment \\\n continued\nputs ok", "ok"},
		{"set w [ numberOfWHs ]\nputs $w", "40"},
		{"set v [numberOfCPUs]; puts ${v}x", "4x"},
		{"puts \"tab\\there\"", "tab\there"},
		{"puts {$notsubstituted [nor]}", "$notsubstituted [nor]"},
		{"puts a$", "a$"},
		{"if { [numberOfWHs] >= 200 } { puts big } else { puts small }", "small"},
		{"set w 200\nif { $w >= 200 } {\nputs big\n} else {\nputs small\n}", "big"},
		{"if {\"a\" eq \"a\"} then {puts same}", "same"},
		{"if {0} {puts a} elseif {1} {puts b}", "b"},
		{"if {!0} {puts not}", "not"},
		{"foreach z { 1 2 4 } {\nputs \"$z VU\"\n}", "1 VU\n2 VU\n4 VU"},
	} {
		var out strings.Builder
		err := Run(context.Background(), tc.src, Options{}, Env{Stdout: &out, Stderr: io.Discard, NumCPU: 4})
		if err != nil || strings.TrimSuffix(out.String(), "\n") != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.src, out.String(), err, tc.want)
		}
	}
}

// TestExit: exit ends a script with its code.
func TestExit(t *testing.T) {
	var out strings.Builder
	err := Run(context.Background(), "puts a\nexit 3\nputs b\n", Options{}, Env{Stdout: &out, Stderr: io.Discard})
	var ec interface{ ExitCode() int }
	if !errors.As(err, &ec) || ec.ExitCode() != 3 || out.String() != "a\n" {
		t.Errorf("exit 3: %q %v", out.String(), err)
	}
	if err := Run(context.Background(), "exit\nputs b\n", Options{}, Env{Stdout: &out, Stderr: io.Discard}); err != nil {
		t.Errorf("exit: %v", err)
	}
}
