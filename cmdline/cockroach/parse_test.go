package cockroach

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/workload"
)

// pastedLines are cockroach workload command lines, pasted from
// cockroach's documentation, roachtest and users' scripts, and the
// issue's, with what stampede makes of them (testdata/lines.golden).
var pastedLines = []string{
	// CockroachDB docs: "Run a sample workload", performance benchmarking.
	`workload init ycsb`,
	`workload init ycsb 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload run ycsb --duration=5m --concurrency=64 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload init tpcc --warehouses=10 --drop 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload run tpcc --warehouses=10 --ramp=30s --duration=300s --split --scatter 'postgresql://root@localhost:26260?sslmode=disable'`,
	`workload init bank --rows=10000 --ranges=20 --payload-bytes=50 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload run bank --duration=1m --concurrency=8 --tolerate-errors 'postgresql://root@localhost:26257/bank?sslmode=disable'`,
	// A long-running TPC-C script (cockroach's scripts/drt).
	`workload run tpcc --warehouses 3000 --active-warehouses 1500 --concurrency 128 --max-rate 7000 --db cct_tpcc --secure --ramp 10m --display-every 5s --duration 12h --user cct_tpcc_user --tolerate-errors --password tpcc 'postgresql://cct_tpcc_user:tpcc@10.0.0.1:26257?sslmode=require'`,
	// roachtest's histogram exports.
	`workload run kv --histograms=perf/stats.json 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload run ycsb --workload=A --histograms=perf/stats.json --duration=10m 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload run tpcc --warehouses=1 --histogram-export-format=openmetrics --histograms=perf/stats.om --openmetrics-labels='cloud=gce, workload=tpcc' --duration=1m`,
	`workload run ycsb --display-format=incremental-json --display-every=10s --max-ops=100000`,
	// The defaults and meanings.
	`workload run tpcc --warehouses=2 --wait=0.5`,
	`workload run tpcc --warehouses=2 --wait=false --workers=7`,
	`workload run tpcc --warehouses=2 --workers=7`,
	`workload run tpcc --warehouses=4 --active-warehouses=2 --active-workers=20 --idle-conns=3 --txn-retries=false --isolation-level=snapshot`,
	`workload run ycsb --workload=CUSTOM --read-freq=0.7 --update-freq=0.2 --insert-freq=0.1`,
	`workload run ycsb --workload=CUSTOM --read-freq=0.7 --update-freq=0.2`,
	`workload run ycsb --workload=CUSTOM --read-freq=0.8 --delete-freq=0.2`,
	`workload run ycsb --workload=F --read-modify-write-in-txn --select-for-update=false`,
	`workload run ycsb --workload=C --read-freq=1`,
	`workload init ycsb --json --insert-count=100000 --splits=10`,
	`workload run ycsb --json --workload=A --families=false --duration=5m`,
	`workload run ycsb --insert-count=5000 --record-count=8000 --insert-hash=false --zero-padding=8`,
	`workload run ycsb --insert-start=100 --insert-count=5000 --record-count=4000`,
	`workload run ycsb --workload=E --request-distribution=uniform --scan-length-distribution=zipfian --max-scan-length=50`,
	`workload run ycsb --request-distribution=hotspot`,
	`workload run ycsb --max-rate=500 --duration=1m`,
	`workload run ycsb --max-rate=500 --latency=intended --duration=1m`,
	`workload run ycsb --latency=intended`,
	`workload run ycsb --db=other 'postgresql://root@localhost:26257/ycsb?sslmode=disable'`,
	`workload run ycsb --db=other 'postgresql://root@localhost:26257/other?sslmode=disable'`,
	`workload run bank --drop --rows=500 --batch-size=100 --data-loader=insert --init-conns=4`,
	`workload init ycsb --data-loader=import`,
	`workload init ycsb --data-loader=fixtures`,
	`workload run ycsb --isolation-level=read_committed --conn-vars=statement_timeout=5s,application_name=crdb 'postgresql://root@h:26257?sslmode=disable'`,
	`workload check tpcc --warehouses=2 --expensive-checks 'postgresql://root@localhost:26257?sslmode=disable'`,
	`workload check bank --rows=10000`,
	`workload run tpcc --warehouses=4 --partitions=2 --partition-affinity=1`,
	`workload run tpcc --warehouses=20 --partitions=3 --partition-affinity=1 --wait=false --workers=4`,
	// Refused, each in one line.
	`workload init tpcc --warehouses=4 --partitions=2`,
	`workload run tpcc --warehouses=4 --partitions=2 --partition-affinity=2`,
	`workload run tpcc --warehouses=4 --partitions=2 --partition-affinity=1 --active-warehouses=2`,
	`workload run tpcc --partitions=3`,
	`workload run tpcc --partition-affinity=0,1`,
	`workload run tpcc --zones=us-east1-b,us-west1-a`,
	`workload run tpcc --aost="'-1m'"`,
	`workload run tpcc --local-warehouses`,
	`workload run ycsb --method=simple_protocol`,
	`workload run ycsb --max-conn-lifetime=5m`,
	`workload run ycsb --time-string`,
	`workload run ycsb --with-changefeed`,
	`workload run ycsb --operation-receiver=10.0.0.1:9000`,
	`workload run ycsb --histograms=perf/stats.txt`,
	`workload run ycsb --display-format=csv`,
	`workload run ycsb --workload=G`,
	`workload run bank --tables=4`,
	`workload run ycsb --no-such-flag`,
	// Bad values, refused naming the flag at fault.
	`workload run ycsb --max-rate=-3`,
	`workload run ycsb --duration=-5s`,
	`workload run ycsb --display-every=1ns`,
	`workload run ycsb --max-ops=18446744073709551615`,
	`workload init bank --rows=-5`,
	`workload init bank --rows=5 --ranges=6`,
	`workload init tpcc --warehouses=0`,
	`workload run tpcc --warehouses=2 --active-warehouses=3`,
	`workload fixtures import tpcc`,
	`workload run`,
	`workload`,
}

// splitLine splits a pasted line as a POSIX shell would, for the quoting
// the lines above use ('...', "...").
func splitLine(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// TestPastedLines turns every pasted line into its plan (or its one-line
// refusal) and compares them with testdata/lines.golden.
func TestPastedLines(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	var b strings.Builder
	for _, line := range pastedLines {
		args := splitLine(line)[1:] // the words after `workload`
		b.WriteString("$ stampede " + line + "\n")
		c, err := Parse(args)
		if err != nil {
			if !errors.Is(err, run.ErrInput) {
				t.Errorf("%s: error %v does not match run.ErrInput (exit code 2)", line, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: error is not one line: %q", line, err)
			}
			b.WriteString("error: " + err.Error() + "\n\n")
			continue
		}
		b.WriteString(strings.ReplaceAll(c.Plan(), "concurrency="+c.value("concurrency")+" ", "concurrency=2xCPU ") + "\n")
	}
	golden.Check(t, filepath.Join("testdata", "lines.golden"), []byte(b.String()))
}

// TestEveryFlagHasAMeaning checks that every flag of every workload and
// verb is honoured (it sets a stampede flag or is read by the command)
// or refused with a reason: none is silently ignored.
func TestEveryFlagHasAMeaning(t *testing.T) {
	read := map[string]bool{}
	for _, n := range []string{
		"tolerate-errors", "max-rate", "max-ops", "count-errors", "duration", "init", "ramp", "display-every", "display-format",
		"histograms", "histogram-export-format", "histograms-max-latency", "openmetrics-labels", "drop", "force-drop", "latency",
		"pprofport", "data-loader", "init-conns", "prometheus-port", "results-dir", "secure", "user", "password",
		"db", "isolation-level", "conn-vars", "concurrency", "method", "seed",
		// ycsb
		"workload", "read-freq", "insert-freq", "update-freq", "scan-freq", "read-modify-write-freq", "delete-freq",
		"insert-start", "insert-count", "record-count", "families", "splits",
		// tpcc
		"workers", "conns", "idle-conns", "partitions", "partition-affinity", "scatter", "split", "serializable",
		// bank
		"ranges", "tables",
	} {
		read[n] = true
	}
	for name, def := range workloads {
		for _, verb := range []string{"init", "run", "check"} {
			for _, f := range flagsFor(verb, def) {
				if f.refuse == "" && f.to == "" && !read[f.name] {
					t.Errorf("%s %s: --%s is neither honoured nor refused", verb, name, f.name)
				}
				if f.refuse == "" && f.usage == "" {
					t.Errorf("%s %s: --%s has no help", verb, name, f.name)
				}
			}
		}
	}
}

func TestDefaultURL(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"run ycsb", "postgresql://root@localhost:26257/ycsb?application_name=ycsb&sslmode=disable"},
		{"run ycsb --user=bob", "postgresql://bob@localhost:26257/ycsb?application_name=ycsb&sslmode=disable"},
		{"run ycsb --secure --user=bob --password=pw", "postgresql://bob:pw@localhost:26257/ycsb?application_name=ycsb&sslmode=require&sslrootcert=certs%2Fca.crt"},
		{"run ycsb --secure", "postgresql://root@localhost:26257/ycsb?application_name=ycsb&sslcert=certs%2Fclient.root.crt&sslkey=certs%2Fclient.root.key&sslmode=require&sslrootcert=certs%2Fca.crt"},
	} {
		c, err := Parse(strings.Fields(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if c.URLs[0] != tc.want {
			t.Errorf("%s: %s, want %s", tc.line, c.URLs[0], tc.want)
		}
	}
}

func TestSplitPoints(t *testing.T) {
	c, err := Parse(strings.Fields("init bank --rows=1000 --ranges=4"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.splitPoints()["bank"]; len(got) != 3 || got[0][0] != "250" || got[2][0] != "750" {
		t.Errorf("bank splits %v, want 250, 500, 750", got)
	}
	c, err = Parse(strings.Fields("init tpcc --warehouses=25 --split"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.splitPoints()
	if len(p["warehouse"]) != 2 || p["warehouse"][1][0] != "20" || len(p["item"]) != 999 || p["district"][0][1] != "0" {
		t.Errorf("tpcc splits: %d warehouse points %v, %d item points", len(p["warehouse"]), p["warehouse"], len(p["item"]))
	}
	c, err = Parse(strings.Fields("init ycsb --splits=3"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.splitPoints()["usertable"]; len(got) != 3 || got[0][0] != "'user4611686018427387903'" {
		t.Errorf("ycsb splits %v", got)
	}
}

// TestREADMELines parses the `stampede workload` lines of the README:
// every example there must be a line stampede takes.
func TestREADMELines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "stampede workload ")
		if !ok {
			continue
		}
		n++
		if _, err := Parse(splitLine(rest)); err != nil {
			t.Errorf("README: stampede workload %s: %v", rest, err)
		}
	}
	if n < 5 {
		t.Errorf("%d `stampede workload` lines in the README, want its examples", n)
	}
}

// TestColumnFamilies checks what --families makes of the tables on each
// server: on CockroachDB ycsb's columns get families by --families or by
// cockroach's default for the workload (none with --json), tpcc's by
// --families; on PostgreSQL nothing changes.
func TestColumnFamilies(t *testing.T) {
	for _, tc := range []struct {
		line     string
		d        dialect.Dialect
		families bool
		err      string
	}{
		{"init ycsb", dialect.Cockroach{}, true, ""},
		{"init ycsb --workload=A", dialect.Cockroach{}, true, ""},
		{"init ycsb --workload=C", dialect.Cockroach{}, false, ""},
		{"init ycsb --workload=E --families", dialect.Cockroach{}, true, ""},
		{"init ycsb --families=false", dialect.Cockroach{}, false, ""},
		{"init ycsb --json", dialect.Cockroach{}, false, ""},
		{"init ycsb --families", dialect.Postgres{}, false, ""},
		{"init ycsb", dialect.Postgres{}, false, ""},
		{"init tpcc --families", dialect.Cockroach{}, true, ""},
		{"init tpcc", dialect.Cockroach{}, false, ""},
		{"init tpcc --families", dialect.Postgres{}, false, ""},
	} {
		c, err := Parse(strings.Fields(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		err = c.columnFamilies(tc.d)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, run.ErrInput) {
				t.Errorf("%s on %s: %v, want %q", tc.line, tc.d.Name(), err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s on %s: %v", tc.line, tc.d.Name(), err)
			continue
		}
		var schema string
		for _, tab := range c.gen.Tables() {
			schema += tab.Schema
		}
		if got := strings.Contains(schema, "FAMILY "); got != tc.families {
			t.Errorf("%s on %s: families %v in %s", tc.line, tc.d.Name(), got, schema)
		}
	}
}

// TestTooManyWorkers checks that a number of workers the client's memory
// cannot hold is refused naming the flag that asked for them (the figure
// depends on the machine: no golden line).
func TestTooManyWorkers(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"run ycsb --concurrency=100000000", "--concurrency 100000000 would need about"},
		{"run bank --concurrency=100000000", "--concurrency 100000000 would need about"},
		{"run tpcc --warehouses=1000000", "--active-warehouses 1000000 × 10 workers = 10000000 would need about"},
		{"run tpcc --warehouses=2 --wait=false --workers=100000000", "--workers 100000000 would need about"},
	} {
		_, err := Parse(strings.Fields(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, run.ErrInput) {
			t.Errorf("%s: %v, want an input error with %q", tc.line, err, tc.want)
		}
	}
}

// TestMismatchInCockroachFlags checks that a run's mismatch with what
// init loaded is told in cockroach's flags (stampede's -p properties are
// not flags of this form), and that a setting loaded by stampede's own
// form, which cockroach's flags cannot give, gets a plain reload.
func TestMismatchInCockroachFlags(t *testing.T) {
	for _, tc := range []struct {
		line string
		err  workload.LoadMismatchError
		want string
	}{
		{"run ycsb --insert-count=700", workload.LoadMismatchError{Workload: "ycsb", Database: "db", GivenArg: "-p recordcount=700", LoadedArg: "-p recordcount=300"},
			"--insert-count=700 differs from what init (of ycsb) loaded into database \"db\", --insert-count=300: give --insert-count=300 or leave it out (a run without it uses what init loaded), or reload with `stampede init ycsb --drop --insert-count=700`"},
		{"run ycsb --insert-count=100 --record-count=700", workload.LoadMismatchError{Workload: "ycsb", Database: "db", GivenArg: "-p recordcount=700", LoadedArg: "-p recordcount=300"},
			"--record-count=700 differs from what init (of ycsb) loaded into database \"db\", --record-count=300: give --record-count=300"},
		{"run ycsb --insert-start=5 --insert-count=10", workload.LoadMismatchError{Workload: "ycsb", Database: "db", GivenArg: "-p insertstart=5 -p insertcount=10", LoadedArg: "-p insertstart=100 -p insertcount=200"},
			"--insert-start=5 --insert-count=10 differs from what init (of ycsb) loaded into database \"db\", --insert-start=100 --insert-count=200: give"},
		{"run ycsb --insert-hash=false", workload.LoadMismatchError{Workload: "ycsb", Database: "db", GivenArg: "-p insertorder=ordered", LoadedArg: "-p insertorder=hashed"},
			"--insert-hash=false differs from what init (of ycsb) loaded into database \"db\", --insert-hash=true"},
		{"run ycsb", workload.LoadMismatchError{Workload: "ycsb", Database: "db", GivenArg: "-p fieldcount=10", LoadedArg: "-p fieldcount=3"},
			"database \"db\" holds what init (of ycsb) loaded with -p fieldcount=3, which cockroach's ycsb flags cannot give (stampede's own form loaded it): reload with `stampede init ycsb --drop`"},
		{"run bank --rows=400", workload.LoadMismatchError{Workload: "bank", Database: "db", GivenArg: "--rows 400", LoadedArg: "--rows 200"},
			"--rows=400 differs from what init (of bank) loaded into database \"db\", --rows=200: give --rows=200 or leave it out"},
	} {
		c, err := Parse(strings.Fields(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.mismatch(&tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to contain %q", tc.line, got, tc.want)
		}
	}
}
