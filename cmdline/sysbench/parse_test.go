package sysbench_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/cmdline/sysbench"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/sysbench" // the scripts' workloads
)

// flags returns what stampede's run and init of a workload take, as the
// command line's (internal/cli) do.
func flags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	add := func(register func(*pflag.FlagSet)) {
		f := pflag.NewFlagSet("", pflag.ContinueOnError)
		register(f)
		fs.AddFlagSet(f)
	}
	if m, ok := workload.Get(name); ok {
		if f, ok := m.New().(workload.Flagser); ok {
			fs.AddFlagSet(f.Flags().FlagSet)
		}
	}
	add((&cmdline.Conn{}).Register)
	add((&cmdline.RunFlags{}).Register)
	add((&cmdline.Init{}).Register)
	return fs
}

// TestLines parses the pasted command lines of testdata/lines.txt and
// compares stampede's arguments, warnings and errors with the golden
// file (-update rewrites it). Each case is a command line, `stampede`
// and words separated by spaces (with $TESTDATA for the testdata
// directory), followed by its results.
func TestLines(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	testdata, _ := filepath.Abs("testdata")
	var out bytes.Buffer
	for _, block := range strings.Split(strings.TrimSpace(string(in)), "\n\n") {
		var line string
		for _, l := range strings.Split(block, "\n") {
			if strings.HasPrefix(l, "stampede ") {
				line = l
				break
			}
			out.WriteString(l + "\n") // comments
		}
		if line == "" {
			out.WriteString("\n")
			continue
		}
		fmt.Fprintln(&out, line)
		args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(line, "stampede "), "$TESTDATA", testdata))
		if !sysbench.Recognize(args) {
			fmt.Fprintln(&out, "=> not a sysbench command line")
			out.WriteString("\n")
			continue
		}
		l, err := sysbench.Parse(args, flags)
		switch {
		case err != nil:
			if !errors.Is(err, run.ErrInput) {
				t.Errorf("%s: error %q does not match run.ErrInput", line, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: error on several lines: %q", line, err)
			}
			fmt.Fprintf(&out, "=> error: %s\n", err)
		case l.Args == nil:
			fmt.Fprintf(&out, "=> %s: %s\n", l.Command, l.Name)
		default:
			fmt.Fprintf(&out, "=> %s\n", strings.ReplaceAll(strings.Join(l.Args, " "), testdata, "$TESTDATA"))
		}
		if l != nil {
			for _, w := range l.Warnings {
				fmt.Fprintf(&out, "=> warning: %s\n", w)
			}
			if len(l.Secrets) > 0 {
				fmt.Fprintf(&out, "=> secrets: %q\n", l.Secrets)
			}
		}
		out.WriteString("\n")
	}
	golden.Check(t, filepath.Join("testdata", "lines.golden"), out.Bytes())
}

// TestOptionsCovered checks that every option `sysbench --help` lists
// (testdata/sysbench-help.txt, sysbench 1.0.20's), and the pgsql
// driver's, is either turned into stampede's flag or refused with a
// reason: none is passed on unknown or dropped without a word.
func TestOptionsCovered(t *testing.T) {
	help, err := os.ReadFile(filepath.Join("testdata", "sysbench-help.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(help), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(f[0], "--") {
			continue
		}
		name := strings.TrimPrefix(f[0], "--")
		name, _, _ = strings.Cut(name, "=")
		name, _, _ = strings.Cut(name, "[")
		n++
		value := map[bool]string{true: "on", false: "1"}[strings.Contains(f[0], "[=on|off]")]
		switch name {
		case "config-file":
			value = filepath.Join("testdata", "empty.cfg")
		case "db-driver":
			value = "pgsql"
		case "db-ps-mode":
			value = "disable"
		case "forced-shutdown":
			value = "5"
		case "rand-type":
			value = "uniform"
		case "pgsql-host", "pgsql-user", "pgsql-db", "pgsql-password":
			value = "x"
		case "report-checkpoints":
			value = "10,20"
		case "thread-stack-size":
			value = "64K"
		}
		arg := "--" + name + "=" + value
		l, err := sysbench.Parse([]string{"oltp_read_write", arg, "run"}, flags)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%s: refused without naming it: %v", arg, err)
			}
			continue
		}
		joined := strings.Join(l.Args, " ") + " " + strings.Join(l.Warnings, " ")
		known := map[string]bool{"help": true, "version": true, "config-file": true, "db-driver": true}
		if !strings.Contains(joined, "--"+name+"=") && !known[name] && len(l.Warnings) == 0 {
			t.Errorf("%s: neither passed on nor refused: %q", arg, l.Args)
		}
		if len(l.Args) < 2 {
			continue // version
		}
		fs := flags("oltp_read_write")
		fs.Bool("help", false, "cobra's")
		for _, a := range l.Args[2:] {
			fn, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if strings.HasPrefix(a, "--") && fs.Lookup(fn) == nil {
				t.Errorf("%s: passed on as %s, which stampede's run does not take", arg, a)
			}
		}
	}
	if n < 45 {
		t.Errorf("only %d options in sysbench's help", n)
	}
}

// TestReadmeLines parses every sysbench command line of the README's
// section on sysbench's workloads: each is recognized and becomes
// stampede's command (its --config-file is testdata's).
func TestReadmeLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "### sysbench's OLTP workloads")
	end := strings.Index(text[start:], "\n### ")
	if start < 0 || end < 0 {
		t.Fatal("no section on sysbench's workloads in README.md")
	}
	section := strings.ReplaceAll(text[start:start+end], "\\\n", " ")
	n := 0
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "stampede ") {
			continue
		}
		l, _, _ = strings.Cut(l, "#")
		args := strings.Fields(strings.ReplaceAll(l, "bench.cfg", filepath.Join("testdata", "bench.cfg")))[1:]
		if !sysbench.Recognize(args) {
			if args[0] != "run" && args[0] != "cleanup" && args[0] != "init" {
				t.Errorf("README line not recognized: %s", l)
			}
			continue
		}
		n++
		line, err := sysbench.Parse(args, flags)
		if err != nil {
			t.Errorf("README line %s: %v", l, err)
			continue
		}
		if line.Command != args[len(args)-1] {
			t.Errorf("README line %s: command %s", l, line.Command)
		}
	}
	if n < 4 {
		t.Errorf("only %d sysbench lines in the README's section", n)
	}
}

// TestWriteHelp compares what `SCRIPT help` prints with golden files:
// sysbench's layout (its version line, "NAME options:", the options
// sorted, --name=N, --name=STRING or --name[=on|off], the description
// and the default in brackets).
func TestWriteHelp(t *testing.T) {
	for _, tc := range []struct{ arg, golden string }{
		{"oltp_read_write", "help_oltp_read_write.golden"},
		{"/usr/share/sysbench/oltp_insert.lua", "help_oltp_insert.golden"},
		{"select_random_ranges", "help_select_random_ranges.golden"},
		{"bulk_insert", "help_bulk_insert.golden"},
	} {
		var stdout, stderr bytes.Buffer
		l, done, err := sysbench.Command([]string{tc.arg, "help"}, flags, &stdout, &stderr, "0.1.0")
		if err != nil || !done || stderr.Len() > 0 {
			t.Fatalf("%s help: %v, done %v, stderr %q", tc.arg, err, done, stderr.String())
		}
		if l.Command != "help" {
			t.Errorf("%s help: command %q", tc.arg, l.Command)
		}
		golden.Check(t, filepath.Join("testdata", tc.golden), stdout.Bytes())
	}
}
