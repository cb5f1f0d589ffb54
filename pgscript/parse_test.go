package pgscript

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestParseCommands(t *testing.T) {
	src := `-- a read and a write, as pgbench's tpcb-like
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
BEGIN;
-- name: read_balance
SELECT abalance FROM pgbench_accounts
  WHERE aid = :aid \gset acc_
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT 'a;b', $$x;y$$, "we;ird", E'it\'s;' /* c; /* nested; */ */ ; -- trailing
\if :acc_abalance > 0
  \sleep 10 ms
\elif :delta < 0
  \sleep :delta us
\else
  SELECT 1 \; SELECT 2;
\endif
END;
`
	s, err := Parse("tx.sql", 3, src)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		kind Kind
		line int
		name string
		text string
	}
	wants := []want{
		{Set, 2, "", `\set aid random(1, 100000 * :scale)`},
		{Set, 3, "", `\set delta random(-5000, 5000)`},
		{SQL, 4, "tx.sql:4", "BEGIN"},
		{SQL, 6, "read_balance", "SELECT abalance FROM pgbench_accounts\n  WHERE aid = :aid"},
		{SQL, 8, "tx.sql:8", "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid"},
		{SQL, 9, "tx.sql:9", `SELECT 'a;b', $$x;y$$, "we;ird", E'it\'s;' /* c; /* nested; */ */`},
		{If, 10, "", `\if :acc_abalance > 0`},
		{Sleep, 11, "", `\sleep 10 ms`},
		{Elif, 12, "", `\elif :delta < 0`},
		{Sleep, 13, "", `\sleep :delta us`},
		{Else, 14, "", `\else`},
		{SQL, 15, "tx.sql:15", "SELECT 1 ; SELECT 2"},
		{Endif, 16, "", `\endif`},
		{SQL, 17, "tx.sql:17", "END"},
	}
	if len(s.Commands) != len(wants) {
		for _, c := range s.Commands {
			t.Logf("%d %d %q", c.Kind, c.Line, c.Text)
		}
		t.Fatalf("%d commands, want %d", len(s.Commands), len(wants))
	}
	for i, w := range wants {
		c := s.Commands[i]
		if c.Kind != w.kind || c.Line != w.line || c.Name != w.name || c.Text != w.text {
			t.Errorf("command %d = {%d %d %q %q}, want %+v", i, c.Kind, c.Line, c.Name, c.Text, w)
		}
	}
	if c := s.Commands[3]; c.Store != Gset || c.Prefix != "acc_" {
		t.Errorf("\\gset acc_: store %d prefix %q", c.Store, c.Prefix)
	}
	if c := s.Commands[7]; c.SleepCount != 10 || c.SleepUnit != time.Millisecond {
		t.Errorf("\\sleep 10 ms = %d x %v", c.SleepCount, c.SleepUnit)
	}
	if c := s.Commands[9]; c.SleepVar != "delta" || c.SleepUnit != time.Microsecond {
		t.Errorf("\\sleep :delta us = %q x %v", c.SleepVar, c.SleepUnit)
	}
	if !s.Commands[11].Compound {
		t.Error(`SELECT 1 \; SELECT 2 is not compound`)
	}
	// The \if block: if -> elif -> else -> endif; every branch ends at endif.
	if c := s.Commands[6]; c.Next != 8 || c.End != 12 {
		t.Errorf("\\if Next %d End %d, want 8 12", c.Next, c.End)
	}
	if c := s.Commands[8]; c.Next != 10 || c.End != 12 {
		t.Errorf("\\elif Next %d End %d, want 10 12", c.Next, c.End)
	}
	if c := s.Commands[10]; c.End != 12 {
		t.Errorf("\\else End %d, want 12", c.End)
	}
	if s.Weight != 3 {
		t.Errorf("weight %d", s.Weight)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"setshell", "SELECT 1;\n\\setshell x echo 1\n", 2, `\setshell runs a program`},
		{"shell", "\\shell ls\n", 1, `\shell runs a program`},
		{"unknown meta", "\\frobnicate 1\n", 1, `unknown meta-command \frobnicate`},
		{"set without expr", "\\set x\n", 1, `\set needs a variable name and an expression`},
		{"set bad name", "\\set 1x 5\n", 1, `"1x" is not a variable name`},
		{"set bad expr", "SELECT 1;\n\n\\set x 1 +\n", 3, `\set x:`},
		{"unknown function", "\\set x nosuch(1)\n", 1, `\set x: unexpected function name (nosuch) at column 6: pgbench's functions are abs, debug, double,`},
		// chk29: pgbench's words, then what to do.
		{"argument count", "\\set x random(1)\n", 1, `\set x: unexpected number of arguments (random) at column 9: random takes 2 arguments`},
		{"hash arguments", "\\set x hash()\n", 1, `hash takes 1 argument and an optional seed`},
		{"if argument count", "\\if abs(1, 2)\n\\endif\n", 1, `\if: unexpected number of arguments (abs) at column 9: abs takes 1 argument`},
		{"least without arguments", "\\set x least()\n", 1, `least takes one argument or more`},
		{"if without endif", "\\if 1\nSELECT 1;\n", 1, `\if without a matching \endif`},
		{"endif without if", "SELECT 1;\n\\endif\n", 2, `\endif without a matching \if: open the block with \if EXPRESSION, or remove the \endif`},
		{"elif without if", "SELECT 1;\n\\elif 1\n", 2, `\elif without a matching \if: open the block with \if EXPRESSION before it`},
		{"else after else", "\\if 1\n\\else\n\\else\n\\endif\n", 3, `\else after \else (line 2)`},
		{"elif after else", "\\if 1\n\\else\n\\elif 0\n\\endif\n", 3, `\elif after \else`},
		{"gset alone", "\\gset\n", 1, `\gset must follow an SQL command`},
		{"gset after meta", "\\set x 1\n\\gset\n", 2, `\gset must follow an SQL command`},
		{"gset twice", "SELECT 1 \\gset\n\\gset\n", 2, `\gset must follow an SQL command`},
		{"unclosed string", "SELECT 'abc;\n", 1, "a string is not closed"},
		{"unclosed comment", "SELECT 1; /* x\n", 1, "a /* comment is not closed"},
		{"unclosed dollar", "SELECT $f$ x;\n", 1, "a dollar-quoted string is not closed"},
		{"sleep unit", "\\sleep 5 min\n", 1, `unknown unit "min"`},
		{"sleep value", "\\sleep five\n", 1, `"five" is not a whole number`},
		{"empty", "-- nothing\n\n", 3, "holds no command"},
		{"pipeline", "\\startpipeline\nSELECT 1;\n\\endpipeline\n", 1, "does not run pipelines"},
		{"empty name", "-- name:\nSELECT 1;\n", 1, "needs a name"},
		{"binary", "SELECT 1;\x00\n", 1, "NUL byte"},
		// pgbench refuses COPY in a script ("COPY is not supported in
		// pgbench"), at run time; stampede before the run.
		{"copy to stdout", "SELECT 1;\n\ncopy t TO STDOUT;\n", 3, "COPY is not supported in a script"},
		{"copy from stdin", "COPY t FROM STDIN;\n9\tnine\n\\.\n", 1, "COPY is not supported in a script"},
		{"copy query", "COPY (SELECT 1) TO STDOUT;\n", 1, "COPY is not supported in a script"},
		{"copy after \\;", "SELECT 1\\;\n  copy t TO STDOUT;\n", 1, "COPY is not supported in a script"},
		{"psql copy", "\\copy t from stdin\n", 1, `\copy is a psql command, not pgbench's`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.sql", 1, c.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, want a SyntaxError", err)
			}
			if se.Line != c.line || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "f.sql:") {
				t.Errorf("error %q (line %d), want line %d and %q", err, se.Line, c.line, c.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

func TestParseFileArg(t *testing.T) {
	cases := []struct {
		arg    string
		name   string
		weight int
		bad    bool
	}{
		{"read.sql", "read.sql", 1, false},
		{"read.sql@10", "read.sql", 10, false},
		{"dir@x/read.sql@2", "dir@x/read.sql", 2, false},
		{"read.sql@0", "", 0, true}, // pgbench takes it; stampede refuses it
		{"read.sql@-1", "", 0, true},
		{"read.sql@", "", 0, true},
		{"read.sql@ten", "", 0, true},
		{"@5", "", 0, true},
		// pgbench's weights are ints: up to 2147483647.
		{"read.sql@2147483647", "read.sql", 2147483647, false},
		{"read.sql@2147483648", "", 0, true},
		{"read.sql@99999999999999999999", "", 0, true},
	}
	for _, c := range cases {
		name, w, err := ParseFileArg(c.arg)
		if (err != nil) != c.bad || name != c.name || w != c.weight {
			t.Errorf("ParseFileArg(%q) = %q, %d, %v", c.arg, name, w, err)
		}
	}
}

func TestParseInit(t *testing.T) {
	src := `CREATE TABLE t (id int PRIMARY KEY, v text);
COPY t (id, v) FROM stdin;
1	one
2	with a \; and ; in it
\.
-- name: index
CREATE INDEX ON t (v);
`
	steps, err := ParseInit("init.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("%d steps: %+v", len(steps), steps)
	}
	if !steps[1].Copy || steps[1].Data != "1\tone\n2\twith a \\; and ; in it\n" || steps[1].Line != 2 || steps[1].DataLine != 3 {
		t.Errorf("COPY step = %+v", steps[1])
	}
	if steps[2].Line != 7 || steps[2].Name != "index" {
		t.Errorf("after the data: %+v", steps[2])
	}
	for _, bad := range []struct{ src, msg string }{
		{"COPY t FROM STDIN;\n1\n", `its data has no end`},
		{"\\set x 1\n", "an init file holds SQL statements and COPY data only"},
		{"\\copy t from stdin\n1\n\\.\n", `\copy is a psql command, not pgbench's: to load rows, put COPY TABLE FROM stdin;`},
	} {
		if _, err := ParseInit("i.sql", bad.src); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("ParseInit(%q) = %v, want %q", bad.src, err, bad.msg)
		}
	}
}

// TestText: a BOM is skipped (psql skips it), and a file that is not
// text is refused with the offset of its first byte that is not.
func TestText(t *testing.T) {
	cases := []struct {
		name, in, want, msg string
	}{
		{"plain", "SELECT 1;\n", "SELECT 1;\n", ""},
		{"bom", "\xef\xbb\xbfSELECT 1;\n", "SELECT 1;\n", ""},
		{"bom only once", "\xef\xbb\xbf\xef\xbb\xbfSELECT 1;\n", "\xef\xbb\xbfSELECT 1;\n", ""},
		{"nul", "SELECT 1;\x00", "", "is not a text SQL script (NUL byte at offset 9)"},
		{"nul after bom", "\xef\xbb\xbf\x00", "", "(NUL byte at offset 3)"},
		{"not utf-8", "SELECT 'caf\xe9';", "", "(byte 0xe9 at offset 11 is not UTF-8)"},
		{"utf-8", "SELECT 'café';", "SELECT 'café';", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Text([]byte(c.in))
			if c.msg != "" {
				if err == nil || !strings.Contains(err.Error(), c.msg) {
					t.Errorf("Text(%q) = %q, %v; want an error with %q", c.in, got, err, c.msg)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Text(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

// TestParseInitTransactions: an init file that ends inside the
// transaction a BEGIN opens is refused at that BEGIN's line, before
// anything runs; one that ends it is taken.
func TestParseInitTransactions(t *testing.T) {
	cases := []struct {
		name, src string
		line      int // 0: accepted
	}{
		{"no transaction", "CREATE TABLE a (x int);\n", 0},
		{"committed", "BEGIN;\nCREATE TABLE a (x int);\nCOMMIT;\n", 0},
		{"ended", "begin;\nCREATE TABLE a (x int);\nend;\n", 0},
		{"rolled back", "START TRANSACTION;\nCREATE TABLE a (x int);\nROLLBACK;\n", 0},
		{"prepared", "BEGIN;\nCREATE TABLE a (x int);\nPREPARE TRANSACTION 'x';\n", 0},
		{"open", "CREATE TABLE a (x int);\n\nBEGIN;\nCREATE TABLE b (x int);\n", 3},
		{"open start", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\n", 1},
		{"savepoint rollback keeps it open", "BEGIN;\nSAVEPOINT s;\nROLLBACK TO SAVEPOINT s;\n", 1},
		{"second one open", "BEGIN;\nCOMMIT;\nBEGIN;\nSELECT 1;\n", 3},
		{"commit prepared is another's", "BEGIN;\nCOMMIT PREPARED 'x';\n", 1},
		{"function body", "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN 1;\nEND\n$$;\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseInit("i.sql", c.src)
			if c.line == 0 {
				if err != nil {
					t.Errorf("ParseInit = %v, want it taken", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line != c.line || !strings.Contains(err.Error(), "ends inside the transaction this BEGIN opens") {
				t.Errorf("ParseInit = %v, want line %d refused", err, c.line)
			}
		})
	}
}

// TestCopyWordElsewhere: COPY is refused only as a statement, not as a
// word inside one.
func TestCopyWordElsewhere(t *testing.T) {
	for _, src := range []string{
		"SELECT 'copy t to stdout'\\; SELECT 2;\n",
		"SELECT copy FROM copies;\n",
		"-- copy t to stdout\nSELECT 1;\n",
		"UPDATE t SET v = 1\\; SELECT 'x; COPY t TO STDOUT';\n",
	} {
		if _, err := Parse("f.sql", 1, src); err != nil {
			t.Errorf("Parse(%q) = %v, want it taken", src, err)
		}
	}
}

// TestStatementsOnOneLine: several statements on one line are several
// commands, as pgbench runs them; each is FILE:LINE:N (N its place on
// the line), and a `-- name:` names the statement after it only.
func TestStatementsOnOneLine(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // the SQL commands' names, in order
		texts     []string
	}{
		{"three on a line", "BEGIN; SELECT 1; END;\n", []string{"f.sql:1:1", "f.sql:1:2", "f.sql:1:3"}, []string{"BEGIN", "SELECT 1", "END"}},
		{"two inserts", "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);\n", []string{"f.sql:1:1", "f.sql:1:2"}, []string{"INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)"}},
		{"named first", "-- name: a\nBEGIN; SELECT 1;\nEND;\n", []string{"a", "f.sql:2:2", "f.sql:3"}, []string{"BEGIN", "SELECT 1", "END"}},
		{"alone keeps FILE:LINE", "SELECT 1;\nBEGIN; SELECT 2;\nEND;\n", []string{"f.sql:1", "f.sql:2:1", "f.sql:2:2", "f.sql:3"}, []string{"SELECT 1", "BEGIN", "SELECT 2", "END"}},
		{"a statement ending on the next line", "SELECT 1; SELECT\n 2;\n", []string{"f.sql:1:1", "f.sql:1:2"}, []string{"SELECT 1", "SELECT\n 2"}},
		{"compound stays one", "SELECT 1 \\; SELECT 2; SELECT 3;\n", []string{"f.sql:1:1", "f.sql:1:2"}, []string{"SELECT 1 ; SELECT 2", "SELECT 3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.sql", 1, c.src)
			if err != nil {
				t.Fatal(err)
			}
			var names, texts []string
			for _, cmd := range s.Commands {
				names = append(names, cmd.Name)
				texts = append(texts, cmd.Text)
			}
			if strings.Join(names, "|") != strings.Join(c.want, "|") || strings.Join(texts, "|") != strings.Join(c.texts, "|") {
				t.Errorf("names %q texts %q, want %q %q", names, texts, c.want, c.texts)
			}
			if _, err := Compile([]*Script{s}, Options{Protocol: sqlx.Simple}, nil); err != nil {
				t.Errorf("Compile: %v", err)
			}
		})
	}
}

// TestEveryPathChecked: a variable that no path sets, and a transaction
// some path leaves open, are refused before the run (naming the line),
// whatever the protocol for the transaction; a variable that some paths
// only leave unset is a warning (want "warn: ..."), since linked
// conditions may never take them and pgbench runs such scripts; a branch
// whose condition is a constant is taken or not as every run takes it.
func TestEveryPathChecked(t *testing.T) {
	cases := []struct {
		name, src string
		simple    bool
		want      string // "" when accepted; "warn: TEXT" when accepted with a warning
	}{
		{"constant false", "\\if 0\n\\set x 1\n\\endif\nSELECT :x;\n", false, "f.sql:4: the statement uses :x before anything sets it"},
		{"constant true", "\\if 1\n\\set x 1\n\\endif\nSELECT :x;\n", false, ""},
		{"random branch", "\\set r random(0, 1)\n\\if :r\n\\set x 1\n\\endif\nSELECT :x;\n", false, "warn: f.sql:5: the statement uses :x, which the \\if at line 2 leaves unset on some of its branches"},
		{"every branch sets it", "\\set r random(0, 2)\n\\if :r = 0\n\\set x 1\n\\elif :r = 1\n\\set x 2\n\\else\n\\set x 3\n\\endif\nSELECT :x;\n", false, ""},
		{"elif leaves it", "\\set r random(0, 2)\n\\if :r = 0\n\\set x 1\n\\elif :r = 1\n\\sleep 1 us\n\\else\n\\set x 3\n\\endif\n\\sleep :x us\n", false, "warn: f.sql:9: \\sleep uses :x, which the \\if at line 2"},
		{"nested", "\\set r random(0, 1)\n\\if :r\n\\if 1\n\\set x 1\n\\endif\n\\else\n\\set x 2\n\\endif\nSELECT :x;\n", false, ""},
		{"nested random", "\\set r random(0, 1)\n\\if 1\n\\if :r\n\\set x 1\n\\endif\n\\endif\nSELECT :x;\n", false, "warn: f.sql:7: the statement uses :x, which the \\if at line 3"},
		{"after constant true, elif not taken", "\\if 1\n\\set x 1\n\\elif 1\n\\sleep 1 us\n\\endif\nSELECT :x;\n", false, ""},
		{"used in a condition", "\\set r random(0, 1)\n\\if :r\n\\set x 1\n\\endif\n\\if :x\n\\endif\n", false, "warn: f.sql:5: \\if uses :x, which the \\if at line 2"},
		{"simple takes unset variables", "\\if 0\n\\set x 1\n\\endif\nSELECT :x;\n", true, ""},
		{"open transaction", "BEGIN;\nSELECT 1;\n", false, "f.sql:1: the script can end inside the transaction this BEGIN opens"},
		{"open transaction simple", "SELECT 1;\nBEGIN; SELECT 2;\n", true, "f.sql:2: the script can end inside the transaction"},
		{"open on a branch", "\\set r random(0, 1)\nBEGIN;\n\\if :r\nCOMMIT;\n\\endif\n", false, "f.sql:2: the script can end inside the transaction"},
		{"closed on every branch", "\\set r random(0, 1)\nBEGIN;\n\\if :r\nCOMMIT;\n\\else\nROLLBACK;\n\\endif\n", false, ""},
		{"closed on one line", "BEGIN; SELECT 1; END;\n", false, ""},
		{"compound", "BEGIN \\; SELECT 1 \\; COMMIT;\n", true, ""},
		{"start transaction", "START TRANSACTION ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\nEND;\n", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.sql", 1, c.src)
			if err != nil {
				t.Fatal(err)
			}
			proto := sqlx.Prepared
			if c.simple {
				proto = sqlx.Simple
			}
			prog, err := Compile([]*Script{s}, Options{Protocol: proto}, nil)
			if warn, ok := strings.CutPrefix(c.want, "warn: "); ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if w := prog.Warnings(); len(w) != 1 || !strings.Contains(w[0], warn) {
					t.Errorf("warnings %q, want one with %q", w, warn)
				}
				return
			}
			if err == nil && len(prog.Warnings()) > 0 {
				t.Errorf("warned %q", prog.Warnings())
			}
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}
