package cmdline

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestSysbenchConn checks sysbench's --pgsql-* options, each working on
// its own (what one leaves out, libpq's environment and defaults give),
// an empty password meaning none, and --db-ps-mode.
func TestSysbenchConn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		dsn  string // "" for none: the URLs, or libpq's environment
		db   string
		text bool
		err  string
	}{
		{args: nil},
		{args: []string{"--pgsql-password=s3cret"}, dsn: "password='s3cret'"},
		{args: []string{"--pgsql-password="}},
		{args: []string{"--pgsql-user=bob"}, dsn: "user='bob'"},
		{args: []string{"--pgsql-host=node1", "--pgsql-port=26257", "--pgsql-user=tester", "--pgsql-password=", "--pgsql-db=testdb"},
			dsn: "host='node1' port='26257' user='tester'", db: "testdb"},
		{args: []string{"--pgsql-host=a,b", "--pgsql-password=it's\\"}, dsn: `host='a,b' password='it\'s\\'`},
		{args: []string{"--pgsql-sslmode=require"}, dsn: "sslmode='require'"},
		{args: []string{"--pgsql-sslmode=maybe"}, err: "unknown --pgsql-sslmode"},
		{args: []string{"--pgsql-port=70000"}, err: "not a port number"},
		{args: []string{"--db-ps-mode=disable"}, text: true},
		{args: []string{"--db-ps-mode=auto"}},
		{args: []string{"--db-ps-mode=off"}, err: "unknown --db-ps-mode"},
		{args: []string{"--pgsql-db=a", "--db=b"}, err: "disagree"},
	} {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		var c Conn
		c.Register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		rc, err := c.Spec(nil)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		dsn := ""
		if len(rc.URLs) == 1 {
			dsn = rc.URLs[0]
		}
		if dsn != tc.dsn || rc.Database != tc.db || rc.TextStatements != tc.text {
			t.Errorf("%q: DSN %q, database %q, text %v; want %q, %q, %v", tc.args, dsn, rc.Database, rc.TextStatements, tc.dsn, tc.db, tc.text)
		}
		if tc.dsn != "" {
			if _, err := rc.Options("sbtest", 1); err != nil {
				t.Errorf("%q: DSN %q does not parse: %v", tc.args, dsn, err)
			}
		}
	}
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var c Conn
	c.Register(fs)
	_ = fs.Parse([]string{"--pgsql-host=h"})
	if _, err := c.Spec([]string{"postgresql://x@y/z"}); err == nil {
		t.Error("--pgsql-host with a URL: no error")
	}
}

// TestSysbenchRunFlags checks what a sysbench command line's run gets
// (--sysbench-syntax, which package cmdline/sysbench adds): sysbench's
// defaults, --events as one count, --rate as the queue's,
// --forced-shutdown as the grace after --time, --verbosity.
func TestSysbenchRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		check    func(r *RunFlags) bool
		want     string
		err      string
		warnings int
	}{
		{args: nil, want: "1 thread, 10 s, sysbench's output, no limit on in-flight events",
			check: func(r *RunFlags) bool {
				return r.concurrency == 1 && r.duration == 10*time.Second && r.outputStyle == "sysbench" && r.grace < 0 && r.forcedAt == 0
			}},
		{args: []string{"--threads=8", "--time=0", "--events=1000"}, want: "8 threads, no time limit, 1000 events shared",
			check: func(r *RunFlags) bool {
				return r.concurrency == 8 && r.duration == 0 && r.maxOps == 1000 && r.sharedOps
			}},
		{args: []string{"--rate=100"}, want: "the queue's rate, no schedule",
			check: func(r *RunFlags) bool { return r.queueRate == 100 && r.maxRate == 0 }},
		{args: []string{"--forced-shutdown=5", "--time=60"}, want: "5 s grace, forced at 65 s",
			check: func(r *RunFlags) bool { return r.grace == 5*time.Second && r.forcedAt == 65 }},
		{args: []string{"--forced-shutdown=10%", "--time=60"}, want: "6 s grace, forced at 66 s",
			check: func(r *RunFlags) bool { return r.grace == 6*time.Second && r.forcedAt == 66 }},
		{args: []string{"--forced-shutdown=0"}, want: "no grace",
			check: func(r *RunFlags) bool { return r.grace > 0 && r.grace < time.Millisecond && r.forcedAt == 10 }},
		{args: []string{"--output-style=stampede", "--concurrency=3", "--duration=5s"}, want: "stampede's output, 3 workers, 5 s",
			check: func(r *RunFlags) bool {
				return r.outputStyle == "stampede" && r.concurrency == 3 && r.duration == 5*time.Second
			}},
		{args: []string{"--percentile=0"}, want: "percentile disabled", check: func(r *RunFlags) bool { return r.percentile == 0 }},
		{args: []string{"--percentile=0", "--output-style=stampede"}, err: "--percentile=0"},
		{args: []string{"--verbosity=1"}, want: "verbosity 1", check: func(r *RunFlags) bool { return r.verbosity == 1 }},
		{args: []string{"--verbosity=4"}, err: "--verbosity=4"},
		{args: []string{"--forced-shutdown=later"}, err: "--forced-shutdown"},
		{args: []string{"--forced-shutdown=5", "--time=0", "--events=10"}, want: "no --time: no forced shutdown, as in sysbench",
			check: func(r *RunFlags) bool { return r.grace < 0 && r.forcedAt == 0 }},
		{args: []string{"--time=0"}, want: "an endless run, with sysbench's warning", warnings: 1,
			check: func(r *RunFlags) bool { return r.duration == 0 }},
	} {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		var r RunFlags
		r.Register(fs)
		if err := fs.Parse(append([]string{"--sysbench-syntax"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		err := r.Resolve(fs)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case !tc.check(&r):
			t.Errorf("%q: want %s; got %d workers, %s, %d ops (shared %v), rate %g/%g, grace %s, output %s",
				tc.args, tc.want, r.concurrency, r.duration, r.maxOps, r.sharedOps, r.maxRate, r.queueRate, r.grace, r.outputStyle)
		case len(r.warnings) != tc.warnings:
			t.Errorf("%q: warnings %q", tc.args, r.warnings)
		}
	}
	// Without --sysbench-syntax, stampede's meanings stay.
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var r RunFlags
	r.Register(fs)
	_ = fs.Parse([]string{"--events=100", "--rate=50", "--threads=4"})
	if err := r.Resolve(fs); err != nil {
		t.Fatal(err)
	}
	if r.sharedOps || r.queueRate != 0 || r.maxRate != 50 || r.duration != 0 || r.outputStyle != "stampede" || r.grace != 0 {
		t.Errorf("stampede's syntax: shared %v, queue rate %g, max rate %g, %s, %s, grace %s", r.sharedOps, r.queueRate, r.maxRate, r.duration, r.outputStyle, r.grace)
	}
}

// TestWarningsOnly checks what sysbench's --verbosity=2 lets through of
// the run's log: its warnings, not its notices.
func TestWarningsOnly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"stampede 1.0: oltp_read_write on h (database \"d\"), 1 worker, seed 1\n", ""},
		{"warning: --latency service overrides the workload's own\n", "warning: --latency service overrides the workload's own\n"},
		{"results saved in /r\nwarning: a\nnote: b\nwarning: c\n", "warning: a\nwarning: c\n"},
	} {
		var b strings.Builder
		if n, err := (warningsOnly{&b}).Write([]byte(tc.in)); err != nil || n != len(tc.in) {
			t.Errorf("Write(%q) = %d, %v", tc.in, n, err)
		}
		if b.String() != tc.want {
			t.Errorf("Write(%q) passed %q, want %q", tc.in, b.String(), tc.want)
		}
	}
}
