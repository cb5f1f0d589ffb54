package pgbench

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

// TestBadFlags: each bad option is refused in one line that names it, as
// pgbench refuses it (pgbench's own message in the comment).
func TestBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		// unrecognized initialization step "x"
		{[]string{"--init-steps", "dtx"}, `unknown step 'x'`},
		{[]string{"--init-steps", "dtgG"}, "g and G both"},
		{[]string{"--init-steps", "dtgg"}, "given twice"},
		{[]string{"--init-steps", "gdt"}, "g comes before t"},
		{[]string{"--init-steps", "d"}, "has no t"},
		{[]string{"--init-steps", "tdg"}, "d (drop) comes after t"},
		// -F/--fillfactor must be in range 10..100
		{[]string{"--fillfactor", "9"}, "--fillfactor must be in range 10..100, not 9"},
		{[]string{"--fillfactor", "101"}, "--fillfactor must be in range 10..100, not 101"},
		// --partitions must be in range 0..2147483647
		{[]string{"--partitions", "-1"}, "--partitions must be 0 (none) or more, not -1"},
		// Sizes no server holds, refused before anything is loaded (the
		// census's --scale 100000000 loaded until it ran out of memory).
		{[]string{"--scale", "100000000"}, "more than any server holds"},
		{[]string{"--partitions", "2147483648"}, "more than the accounts (100000) or pgbench's limit"},
		// --partition-method requires greater than zero --partitions
		{[]string{"--partition-method", "hash"}, "--partition-method hash needs --partitions greater than 0"},
		{[]string{"--partitions", "0", "--partition-method", "range"}, "--partition-method range needs --partitions greater than 0"},
		// invalid partition method, expecting "range" or "hash"
		{[]string{"--partitions", "2", "--partition-method", "foo"}, `--partition-method must be range or hash, not "foo"`},
		// -s/--scale must be in range 1..2147483647
		{[]string{"--scale", "0"}, "--scale must be at least 1, not 0"},
	}
	meta, _ := workload.Get("pgbench")
	for _, c := range cases {
		_, err := workload.FromFlags(meta, c.args...)
		if err == nil {
			t.Errorf("%v: accepted", c.args)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %q, want one line with %q", c.args, err, c.want)
		}
	}
	for _, ok := range [][]string{{}, {"--init-steps", "dtGvpf"}, {"--init-steps", "d t g v p"}, {"--init-steps", "tpgfv"},
		{"--partitions", "3", "--partition-method", "hash"}, {"--fillfactor", "10"}, {"--fillfactor", "100"}} {
		if _, err := workload.FromFlags(meta, ok...); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
}

// TestParseSteps: the steps split around the data step, and the flags
// that add or remove steps as pgbench's do.
func TestParseSteps(t *testing.T) {
	cases := []struct {
		args       []string
		steps      string
		drop       bool
		before     string
		data       byte
		after      string
		dropsFirst bool
	}{
		{nil, "dtgvp", true, "", 'g', "vp", true},
		{[]string{"--init-steps", "tpGv"}, "tpGv", false, "p", 'G', "v", false},
		{[]string{"--foreign-keys"}, "dtgvpf", true, "", 'g', "vpf", true},
		{[]string{"--foreign-keys", "--init-steps", "dtfgv"}, "dtfgv", true, "f", 'g', "v", true},
		{[]string{"--no-vacuum"}, "dtgp", true, "", 'g', "p", true},
		{[]string{"--init-steps", "dtvp"}, "dtvp", true, "vp", 0, "", true},
	}
	meta, _ := workload.Get("pgbench")
	for _, c := range cases {
		g := meta.New().(*generator)
		if err := g.flags.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if g.Steps() != c.steps || g.DropsFirst() != c.dropsFirst {
			t.Errorf("%v: steps %q drops first %v, want %q %v", c.args, g.Steps(), g.DropsFirst(), c.steps, c.dropsFirst)
		}
		p, err := ParseSteps(g.Steps())
		if err != nil || p.Drop != c.drop || p.Before != c.before || p.Data != c.data || p.After != c.after {
			t.Errorf("%v: %+v %v, want drop %v before %q data %c after %q", c.args, p, err, c.drop, c.before, c.data, c.after)
		}
	}
}

// TestPartitionBounds: pgbench's bounds, ceil(accounts/partitions) aids a
// range, open at both ends, and every aid in exactly one partition.
func TestPartitionBounds(t *testing.T) {
	meta, _ := workload.Get("pgbench")
	g, err := workload.FromFlags(meta, "--scale", "1", "--partitions", "3")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"create table pgbench_accounts_1 partition of pgbench_accounts for values from (minvalue) to (33335) with (fillfactor=100)",
		"create table pgbench_accounts_2 partition of pgbench_accounts for values from (33335) to (66669) with (fillfactor=100)",
		"create table pgbench_accounts_3 partition of pgbench_accounts for values from (66669) to (maxvalue) with (fillfactor=100)",
	}
	for p := 1; p <= 3; p++ {
		if got := g.(*generator).partitionDDL(p); got != want[p-1] {
			t.Errorf("partition %d: %s\nwant %s", p, got, want[p-1])
		}
	}
	g, _ = workload.FromFlags(meta, "--partitions", "2", "--partition-method", "hash", "--unlogged-tables", "--fillfactor", "80", "--tablespace", `my"ts`)
	if got, want := g.(*generator).partitionDDL(2), `create unlogged table pgbench_accounts_2 partition of pgbench_accounts for values with (modulus 2, remainder 1) with (fillfactor=80) tablespace "my""ts"`; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

// TestBigintFromScale20000: aid is a bigint from pgbench's threshold on,
// in accounts and history, and the accounts' batches cover every aid.
func TestBigintFromScale20000(t *testing.T) {
	meta, _ := workload.Get("pgbench")
	for _, c := range []struct {
		scale string
		aid   string
	}{{"19999", "aid    int not null"}, {"20000", "aid bigint not null"}} {
		g, err := workload.FromFlags(meta, "--scale", c.scale)
		if err != nil {
			t.Fatal(err)
		}
		tables := g.Tables()
		if !strings.Contains(tables[1].Schema, c.aid) || !strings.Contains(tables[3].Schema, strings.TrimSuffix(c.aid, " not null")+",") {
			t.Errorf("scale %s: %s / %s, want %s", c.scale, tables[1].Schema, tables[3].Schema, c.aid)
		}
	}
	// The accounts' text rows: every aid once, in order, with its bid.
	text, err := io.ReadAll(&accountText{next: 1, last: 300000})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	for i, l := range lines {
		aid := int64(i + 1)
		if want := fmt.Sprintf("%d\t%d\t0\t", aid, (aid-1)/100000+1); l != want {
			t.Fatalf("line %d: %q, want %q", i+1, l, want)
		}
	}
	if len(lines) != 300000 {
		t.Errorf("%d accounts, want 300000", len(lines))
	}
}

// TestInitLogLines: pgbench 15's lines, with a clock that advances 0.25 s
// a reading: the progress line every 100,000 accounts, and the "done in"
// line with each step's time.
func TestInitLogLines(t *testing.T) {
	var buf bytes.Buffer
	l := NewInitLog(&buf)
	now := time.Unix(0, 0)
	l.Now = func() time.Time { now = now.Add(250 * time.Millisecond); return now }
	l.Start("dtgvp")
	l.LoadOptions().Step(workload.LoadStep{Kind: workload.StepDrop})
	l.LoadOptions().Step(workload.LoadStep{Kind: workload.StepCreate})
	l.LoadOptions().Step(workload.LoadStep{Kind: workload.StepCreate}) // a new LoadOptions: the same log, t started once
	l.begin('g', 200000)
	for range 20 {
		l.tuples(10000)
	}
	l.begin('v', 0)
	l.begin('p', 0)
	l.end()
	want := `dropping old tables...
creating tables...
generating data (client-side)...
100000 of 200000 tuples (50%) done (elapsed 2.50 s, remaining 2.50 s)
200000 of 200000 tuples (100%) done (elapsed 5.00 s, remaining 0.00 s)
vacuuming...
creating primary keys...
done in 6.25 s (drop tables 0.25 s, create tables 0.25 s, client-side generate 5.25 s, vacuum 0.25 s, primary keys 0.25 s).
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	var nilLog *InitLog
	nilLog.begin('t', 0) // writes nothing, no panic
	nilLog.tuples(5)
	nilLog.end()
}
