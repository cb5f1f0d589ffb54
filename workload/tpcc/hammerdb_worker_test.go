package tpcc

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// callRecorder is a worker's connection that records each statement
// sent: the fast path's (QueryRaw) and any other (Exec, Query, QueryRow,
// Begin), which a call of --profile hammerdb must not send.
type callRecorder struct {
	sqlx.Conn // nil: any other method panics
	raw       []rawCall
	other     []string
}

type rawCall struct {
	sql    string
	params []string
}

func (c *callRecorder) QueryRaw(_ context.Context, sql string, params [][]byte, _ func([][]byte)) (int64, error) {
	if c.raw != nil { // nil while allocations are counted

		ps := make([]string, len(params))
		for i, p := range params {
			ps[i] = string(p)
		}
		c.raw = append(c.raw, rawCall{sql, ps})
	}
	return 1, nil
}

func (c *callRecorder) Exec(_ context.Context, sql string, _ ...any) (int64, error) {
	c.other = append(c.other, sql)
	return 0, nil
}

func (c *callRecorder) Query(_ context.Context, sql string, _ ...any) (sqlx.Rows, error) {
	c.other = append(c.other, sql)
	return nil, context.Canceled
}

func (c *callRecorder) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	c.other = append(c.other, "BEGIN")
	return nil, context.Canceled
}

// TestHammerWorkerCalls: each transaction of --profile hammerdb is one
// prepared call on the worker's connection (no BEGIN, COMMIT or other
// statement from the client: the routine commits itself), its arguments
// written without an allocation per call; Payment and Order-Status by
// last name pass the name drawn (HammerDB's prepared calls pass the
// literal '$8'), in 60% of them.
func TestHammerWorkerCalls(t *testing.T) {
	for _, procs := range []bool{false, true} {
		rec := &callRecorder{raw: make([]rawCall, 0, 4096)}
		w := &hammerWorker{conn: rec, raw: rec, r: randgen.New(7, workerStream(0)), procs: procs, maxW: 5, wID: 3, slevD: 4}
		const n = 3000
		names := map[string]bool{}
		for i := range 1000 {
			names[lastName(int64(i))] = true
		}
		for range n {
			if res := w.run(context.Background()); res.Err != nil {
				t.Fatal(res.Err)
			}
		}
		if len(rec.raw) != n || len(rec.other) > 0 {
			t.Fatalf("procs %v: %d transactions sent %d prepared calls and %q, want one call each and nothing else", procs, n, len(rec.raw), rec.other)
		}
		var byName, named, calls int
		for _, c := range rec.raw {
			var flag, name string
			switch {
			case strings.Contains(c.sql, "payment(") && !procs:
				flag, name = c.params[5], c.params[7]
			case strings.Contains(c.sql, "payment(") && procs:
				flag, name = c.params[4], c.params[6]
			case strings.Contains(c.sql, "ostat("):
				flag, name = c.params[3], c.params[4]
			default:
				continue
			}
			calls++
			if flag == "1" {
				byName++
				if names[name] {
					named++
				} else {
					t.Errorf("procs %v: %s by name with name %q, not a last name of the specification's", procs, c.sql[:20], name)
				}
			} else if name != "" {
				t.Errorf("procs %v: %s by id with name %q", procs, c.sql[:20], name)
			}
		}
		if share := float64(byName) / float64(calls); calls < 1000 || share < 0.55 || share > 0.65 {
			t.Errorf("procs %v: %d of %d Payments and Order-Status by name, want about 60%%", procs, byName, calls)
		}
		rec.raw = nil
		ctx := context.Background()
		if a := testing.AllocsPerRun(2000, func() { _ = w.call(ctx, w.r.IntN(numTxs)) }); a > 0 {
			t.Errorf("procs %v: %.2f allocations per call, want none", procs, a)
		}
	}
}

// TestHammerHeaderNamesDeviations: the run's header names HammerDB's
// deviations, the names passed by Payment and Order-Status among them.
func TestHammerHeaderNamesDeviations(t *testing.T) {
	h := strings.Join(newGen(t, "--profile", "hammerdb").hammerHeader(4), "\n")
	for _, want := range []string{"uniform, not NURand", "fixed at 123", "whole 1-5000",
		"Payment and Order-Status by last name get the name drawn (HammerDB's prepared calls pass the literal '$8'", "item 100001"} {
		if !strings.Contains(h, want) {
			t.Errorf("the header does not say %q:\n%s", want, h)
		}
	}
	// stampede's differences from HammerDB's: all of them, from the one
	// list, in one line, which the README quotes.
	if !strings.Contains(h, "stampede's run differs from HammerDB's in 4 ways: ") {
		t.Errorf("the header does not count stampede's differences from HammerDB's:\n%s", h)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(readme)), " ")
	for _, d := range hammerDeviations {
		if !strings.Contains(h, d.text) {
			t.Errorf("the header does not name %q:\n%s", d.text, h)
		}
		if !strings.Contains(flat, strings.Join(strings.Fields(d.text), " ")) {
			t.Errorf("README.md does not name %q", d.text)
		}
	}
	for _, want := range []string{"S_YTD, S_ORDER_CNT and S_REMOTE_CNT", "C_YTD_PAYMENT and C_PAYMENT_CNT", "C_DELIVERY_CNT", "locks its lines' stock rows", "O_ALL_LOCAL 0"} {
		if !strings.Contains(h, want) {
			t.Errorf("the header does not name %q:\n%s", want, h)
		}
	}
	// With the user's routines, the routine's own deviations are said to
	// be stampede's routines', not stated of the user's as fact.
	h = strings.Join(newGen(t, "--profile", "hammerdb", "--use-installed-routines").hammerHeader(4), "\n")
	if !strings.Contains(h, "the installed routines are yours, so what NEWORD draws inside it and how its unused item ends are those of stampede's routines, and yours may differ") {
		t.Errorf("with --use-installed-routines, the header states stampede's routines' deviations as the user's:\n%s", h)
	}
	if !strings.Contains(h, "stampede's run differs from HammerDB's in its calls (the routines are yours) in one way: Payment and Order-Status by last name") || strings.Contains(h, "S_YTD") {
		t.Errorf("with --use-installed-routines, the header names stampede's routines' differences as the user's:\n%s", h)
	}
}

// TestHammerHeaderSomeRoutinesYours (chk33 N2, N4): with
// --use-installed-routines and only NEWORD the user's, the header names
// NEWORD, keeps the deviations of stampede's PAYMENT and DELIVERY, and
// says NEWORD's draws and unused item are said of stampede's; on
// HammerDB's build it says the routines are the build's, whose PAYMENT
// fails 3.3.2.10 and 3.3.2.12.
func TestHammerHeaderSomeRoutinesYours(t *testing.T) {
	g := newGen(t, "--profile", "hammerdb", "--use-installed-routines")
	g.hdb.replaced = "function neword(integer,integer,integer,integer,integer,integer) in database d is not the one stampede's init made (yours, or replaced since): the run calls the routines installed, as HammerDB does"
	g.hdb.yours = []string{"NEWORD"}
	h := strings.Join(g.hammerHeader(4), "\n")
	for _, want := range []string{"whatever their bodies (NEWORD is not stampede's, the others are)",
		"(NEWORD is yours: the items it draws and how its unused item ends are said here of stampede's NEWORD, and yours may differ",
		"in 4 ways: ", "C_YTD_PAYMENT and C_PAYMENT_CNT, Delivery C_DELIVERY_CNT", "3.3.2.10 and 3.3.2.12 fail"} {
		if !strings.Contains(h, want) {
			t.Errorf("NEWORD yours: the header does not say %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "routines not stampede's installed") || strings.Contains(h, "the installed routines are yours") {
		t.Errorf("NEWORD yours: the header says all five are:\n%s", h)
	}
	b := newGen(t, "--profile", "hammerdb")
	b.hdb.useInstalled, b.hdb.notLoaded = true, "database d is HammerDB's build"
	h = strings.Join(b.hammerHeader(4), "\n")
	if !strings.Contains(h, "(HammerDB's build: the installed routines are its build's") ||
		!strings.Contains(h, "HammerDB's own PAYMENT and DELIVERY leave C_YTD_PAYMENT, C_PAYMENT_CNT and C_DELIVERY_CNT unchanged, so that 3.3.2.10 and 3.3.2.12 fail") ||
		strings.Contains(h, "are yours") {
		t.Errorf("HammerDB's build: the header:\n%s", h)
	}
}

// BenchmarkHammerCall runs HammerDB's virtual user on one warehouse of
// --profile hammerdb: each iteration draws a transaction and its inputs
// and makes its one prepared call of a function, as a run does.
// Allocations are the client's per transaction (-benchmem): 0 (5 through
// pgconn's ExecStatement); the time is mostly the server's.
func BenchmarkHammerCall(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background()) // as a run's
	defer cancel()
	g, db := loadHammer(b, ctx, 1)
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 3, Duration: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ql.Close(ctx) }()
	run := ql.Workers[0]
	for range numTxs * 4 { // prepares each call
		if res := run(ctx); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if res := run(ctx); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
}
