package pgscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/pgscript/prng"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// fakeConn records what a client sends and answers queries from rows.
type fakeConn struct {
	sent   []string
	status byte
	// answer returns a query's columns and rows.
	answer func(sql string, params []string) ([]string, [][]string, error)
}

func (f *fakeConn) QueryScript(_ context.Context, p sqlx.Protocol, sql string, params [][]byte, row sqlx.ScriptRow) (int64, error) {
	ps := make([]string, len(params))
	for i, b := range params {
		ps[i] = string(b)
	}
	f.sent = append(f.sent, fmt.Sprintf("%s %s %v", p, sql, ps))
	switch strings.ToUpper(strings.Fields(sql)[0]) {
	case "BEGIN":
		f.status = 'T'
	case "COMMIT", "END", "ROLLBACK":
		f.status = 'I'
	}
	if f.answer == nil {
		return 0, nil
	}
	cols, rows, err := f.answer(sql, ps)
	if err != nil {
		if f.status == 'T' {
			f.status = 'E'
		}
		return 0, err
	}
	fields := make([]pgconn.FieldDescription, len(cols))
	for i, c := range cols {
		fields[i].Name = c
	}
	for _, r := range rows {
		vals := make([][]byte, len(r))
		for i, v := range r {
			vals[i] = []byte(v)
		}
		if row != nil {
			row(0, fields, vals)
		}
	}
	return int64(len(rows)), nil
}

func (f *fakeConn) TxStatus() byte {
	if f.status == 0 {
		return 'I'
	}
	return f.status
}

func (f *fakeConn) CopyIn(context.Context, string, io.Reader) (int64, error) { return 0, nil }

func (f *fakeConn) Describe(context.Context, string) ([]string, error) { return nil, nil }

func (f *fakeConn) Connect(context.Context) error { return nil }

func (f *fakeConn) Disconnect(context.Context) {}

type recorded struct {
	ops []int
}

func (r *recorded) Record(op int, _ time.Duration) { r.ops = append(r.ops, op) }

func compile(t *testing.T, opts Options, srcs ...string) *Program {
	t.Helper()
	var scripts []*Script
	for i, src := range srcs {
		s, err := Parse(fmt.Sprintf("s%d.sql", i), 1, src)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, s)
	}
	p, err := Compile(scripts, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newTestClient(p *Program, conn *fakeConn, rec Recorder) *Client {
	st := prng.PgbenchStreams(42, 1, 1)
	return p.NewClient(7, conn, rec, st.Clients[0], st.Choose[0], st.DefaultSeed, 42)
}

func TestClientSubstitutesAndBranches(t *testing.T) {
	src := `\set a 10 + :client_id
\set b :a * 2
SELECT :a, :b, 'x'::text, :scale;
SELECT v FROM t \gset p_
\if :p_v = 3
  SELECT 'three', :p_v;
\elif :p_v > 3
  SELECT 'more', :p_v;
\else
  SELECT 'less';
\endif
SELECT :undefined_in_simple;
`
	for _, proto := range []sqlx.Protocol{sqlx.Prepared, sqlx.Simple} {
		t.Run(proto.String(), func(t *testing.T) {
			src := src
			if proto == sqlx.Prepared {
				src = strings.Replace(src, "SELECT :undefined_in_simple;\n", "", 1)
			}
			p := compile(t, Options{Protocol: proto, Scale: 5}, src)
			for _, v := range []string{"2", "3", "9"} {
				conn := &fakeConn{answer: func(sql string, _ []string) ([]string, [][]string, error) {
					if strings.HasPrefix(sql, "SELECT v FROM t") {
						return []string{"v"}, [][]string{{v}}, nil
					}
					return nil, nil, nil
				}}
				rec := &recorded{}
				c := newTestClient(p, conn, rec)
				if err := c.Run(context.Background(), 0); err != nil {
					t.Fatal(err)
				}
				want := map[string][]string{
					"prepared": {
						"prepared SELECT $1, $2, 'x'::text, $3 [17 34 5]",
						"prepared SELECT v FROM t []",
					},
					"simple": {
						"simple SELECT 17, 34, 'x'::text, 5 []",
						"simple SELECT v FROM t []",
					},
				}[proto.String()]
				switch v {
				case "2":
					want = append(want, proto.String()+" SELECT 'less' []")
				case "3":
					if proto == sqlx.Simple {
						want = append(want, "simple SELECT 'three', 3 []")
					} else {
						want = append(want, "prepared SELECT 'three', $1 [3]")
					}
				case "9":
					if proto == sqlx.Simple {
						want = append(want, "simple SELECT 'more', 9 []")
					} else {
						want = append(want, "prepared SELECT 'more', $1 [9]")
					}
				}
				if proto == sqlx.Simple {
					// pgbench leaves a variable that is not set as written.
					want = append(want, "simple SELECT :undefined_in_simple []")
				}
				if strings.Join(conn.sent, "\n") != strings.Join(want, "\n") {
					t.Errorf("v=%s sent\n%s\nwant\n%s", v, strings.Join(conn.sent, "\n"), strings.Join(want, "\n"))
				}
				if len(rec.ops) != len(want) {
					t.Errorf("recorded %d statements, want %d", len(rec.ops), len(want))
				}
			}
		})
	}
}

func TestClientErrors(t *testing.T) {
	t.Run("gset without a row", func(t *testing.T) {
		p := compile(t, Options{}, "SELECT v FROM t \\gset\n")
		conn := &fakeConn{answer: func(string, []string) ([]string, [][]string, error) { return []string{"v"}, nil, nil }}
		err := newTestClient(p, conn, nil).Run(context.Background(), 0)
		if err == nil || !strings.Contains(err.Error(), "s0.sql:1: \\gset expects the query to return one row, and it returned 0") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("failure rolls back", func(t *testing.T) {
		p := compile(t, Options{}, "BEGIN;\nUPDATE t SET v = 1;\nCOMMIT;\n")
		boom := &pgconn.PgError{Code: "40001", Message: "could not serialize"}
		conn := &fakeConn{answer: func(sql string, _ []string) ([]string, [][]string, error) {
			if strings.HasPrefix(sql, "UPDATE") {
				return nil, nil, boom
			}
			return nil, nil, nil
		}}
		err := newTestClient(p, conn, nil).Run(context.Background(), 0)
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "s0.sql:2: ") {
			t.Errorf("err = %v", err)
		}
		if last := conn.sent[len(conn.sent)-1]; last != "simple ROLLBACK []" || conn.TxStatus() != 'I' {
			t.Errorf("last sent %q, status %c", last, conn.TxStatus())
		}
	})
	t.Run("open transaction at the end", func(t *testing.T) {
		// Compile refuses a script that ends inside its BEGIN's
		// transaction (TestEveryPathChecked); the check as it runs stays
		// for what Compile cannot see: a statement that opens one unseen.
		p := compile(t, Options{}, "SELECT 0;\nSELECT 1;\n")
		p.code[0][0].sql = "BEGIN"
		conn := &fakeConn{}
		err := newTestClient(p, conn, nil).Run(context.Background(), 0)
		if err == nil || !strings.Contains(err.Error(), "ended inside a transaction") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("variable from the server is not a number", func(t *testing.T) {
		p := compile(t, Options{}, "SELECT v FROM t \\gset\n\\set x :v + 1\n")
		conn := &fakeConn{answer: func(string, []string) ([]string, [][]string, error) {
			return []string{"v"}, [][]string{{"abc"}}, nil
		}}
		err := newTestClient(p, conn, nil).Run(context.Background(), 0)
		if err == nil || !strings.Contains(err.Error(), `s0.sql:2: \set x: malformed variable "v" value: "abc"`) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCompileRefuses(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		srcs  []string
		wants string
	}{
		{"used before set", Options{}, []string{"SELECT :aid;\n\\set aid 1\n"}, "s0.sql:1: the statement uses :aid before anything sets it"},
		{"set uses unset", Options{}, []string{"\\set x :y + 1\n"}, `s0.sql:1: \set uses :y before anything sets it`},
		{"sleep unset", Options{}, []string{"\\sleep :t ms\n"}, `s0.sql:1: \sleep uses :t before anything sets it`},
		{"compound prepared", Options{}, []string{"SELECT 1 \\; SELECT 2;\n"}, `need --protocol simple (-M simple): the prepared protocol`},
		{"compound prepared, pgbench form", Options{SimpleFlag: "-M simple"}, []string{"SELECT 1 \\; SELECT 2;\n"}, `need -M simple: the prepared protocol`},
		{"quoted variable, pgbench form", Options{SimpleFlag: "-M simple"}, []string{"\\set x 1\nSELECT ':x';\n"}, `or give -M simple`},
		{"define is a name", Options{Defines: map[string]string{"1a": "x"}}, []string{"SELECT 1;\n"}, `"1a" is not a variable name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var scripts []*Script
			for i, src := range c.srcs {
				s, err := Parse(fmt.Sprintf("s%d.sql", i), 1, src)
				if err != nil {
					t.Fatal(err)
				}
				scripts = append(scripts, s)
			}
			_, err := Compile(scripts, c.opts, nil)
			if err == nil || !strings.Contains(err.Error(), c.wants) {
				t.Errorf("Compile = %v, want %q", err, c.wants)
			}
		})
	}
	// Defined by -D, or by a \gset whose columns are known: accepted.
	s, _ := Parse("d.sql", 1, "SELECT :maxid;\nSELECT 1 AS one \\gset\nSELECT :one;\n")
	if _, err := Compile([]*Script{s}, Options{Defines: map[string]string{"maxid": "5"}}, func(*Command) ([]string, bool) { return []string{"one"}, true }); err != nil {
		t.Error(err)
	}
	// A \gset whose columns are known and do not include the name: refused.
	if _, err := Compile([]*Script{s}, Options{Defines: map[string]string{"maxid": "5"}}, func(*Command) ([]string, bool) { return []string{"two"}, true }); err == nil {
		t.Error("accepted :one after a \\gset of column two")
	}
}

// TestChooseFollowsWeights draws 10,000 scripts of weights 10 and 1 and
// checks the shares within 2%.
func TestChooseFollowsWeights(t *testing.T) {
	a, _ := Parse("a.sql", 10, "SELECT 1;\n")
	b, _ := Parse("b.sql", 1, "SELECT 2;\n")
	p, err := Compile([]*Script{a, b}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(p, &fakeConn{}, nil)
	n := [2]int{}
	const draws = 10000
	for range draws {
		n[c.Choose()]++
	}
	share := float64(n[0]) / draws
	if want := 10.0 / 11; share < want-0.02 || share > want+0.02 {
		t.Errorf("a.sql chosen %.3f of the time, want %.3f within 0.02", share, want)
	}
}

// TestFailedStatementNotRecorded: a statement that fails records no
// latency (the script's failure counts it); the ones before it do.
func TestFailedStatementNotRecorded(t *testing.T) {
	p := compile(t, Options{Protocol: sqlx.Prepared}, "SELECT 1;\nSELECT 2;\nSELECT 3;\n")
	conn := &fakeConn{answer: func(sql string, _ []string) ([]string, [][]string, error) {
		if strings.Contains(sql, "2") {
			return nil, nil, &pgconn.PgError{Code: "22012", Message: "division by zero"}
		}
		return nil, nil, nil
	}}
	rec := &recorded{}
	c := newTestClient(p, conn, rec)
	if err := c.Run(context.Background(), 0); err == nil {
		t.Fatal("the script did not fail")
	}
	// Op 0 is the script; statements are ops 1, 2, 3.
	if fmt.Sprint(rec.ops) != "[1]" {
		t.Errorf("recorded ops %v, want [1]: the first statement only", rec.ops)
	}
}

// TestClientVariablesBeyondKnown evaluates expressions over more variables
// than Client.Var keeps found (its known names), each name written anew in
// every expression, twice on one client: every value is the one its name
// holds, whichever lookup found it.
func TestClientVariablesBeyondKnown(t *testing.T) {
	src := `\set a 1 + :client_id + :g
\set b :a + 1
\set c :b + :a
\set d :c + :b
\set e :d + :c
\set f :e + :d + :a + :scale
SELECT :a, :b, :c, :d, :e, :f;
\set g :f
`
	p := compile(t, Options{Protocol: sqlx.Prepared, Scale: 5, Defines: map[string]string{"g": "0"}}, src)
	conn := &fakeConn{}
	c := newTestClient(p, conn, &recorded{})
	for range 2 {
		if err := c.Run(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
	}
	// client_id 7, g 0: a=8 b=9 c=17 d=26 e=43 f=43+26+8+5=82; then
	// g=82: a=90 b=91 c=181 d=272 e=453 f=453+272+90+5=820.
	want := "prepared SELECT $1, $2, $3, $4, $5, $6 [8 9 17 26 43 82]\n" +
		"prepared SELECT $1, $2, $3, $4, $5, $6 [90 91 181 272 453 820]"
	if got := strings.Join(conn.sent, "\n"); got != want {
		t.Errorf("sent\n%s\nwant\n%s", got, want)
	}
}

// TestClientEnd checks Client.End, the end of a script's run the engine
// takes as the transaction's: the end of the last command, read for its
// latency, when that command was measured and the run succeeded; 0
// otherwise.
func TestClientEnd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		src   string
		every bool // Options.EveryCommand: meta-commands are measured too
		fail  bool // the statement fails
		want  bool // End is the run's end, not 0
	}{
		{"last command a statement", "\\set id random(1, 10)\nSELECT :id;\n", false, false, true},
		{"last command a meta-command", "SELECT 1;\n\\set id random(1, 10)\n", false, false, false},
		{"last meta-command measured", "SELECT 1;\n\\set id random(1, 10)\n", true, false, true},
		{"statement failed", "\\set id random(1, 10)\nSELECT :id;\n", false, true, false},
		{"\\gset failed after the statement", "SELECT 1 AS one \\gset\n", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, Options{Protocol: sqlx.Prepared, EveryCommand: tc.every}, tc.src)
			conn := &fakeConn{answer: func(string, []string) ([]string, [][]string, error) {
				if tc.fail {
					return nil, nil, &pgconn.PgError{Code: "22012", Message: "division by zero"}
				}
				return []string{"one"}, nil, nil // no row: \gset fails
			}}
			c := newTestClient(p, conn, &recorded{})
			before := workload.Now()
			err := c.Run(context.Background(), 0)
			after := workload.Now()
			if (err != nil) != (tc.fail || strings.Contains(tc.src, "gset")) {
				t.Fatalf("Run: %v", err)
			}
			end := c.End()
			switch {
			case tc.want && (end < before || end > after):
				t.Errorf("End %s, want between %s and %s (the run's)", end, before, after)
			case !tc.want && end != 0:
				t.Errorf("End %s, want 0", end)
			}
		})
	}
}
