package lambda_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/lambda"
)

// lines is a Reporter that keeps the lines.
type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

// lagWatch is a run.Observer that keeps each interval's largest schedule
// lag of the ingest and the serving answers' staleness.
type lagWatch struct {
	mu                 sync.Mutex
	lag, stale, ingest []time.Duration
}

func (*lagWatch) Start(run.Info)    {}
func (*lagWatch) Final(*run.Result) {}
func (o *lagWatch) Interval(iv run.Interval) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range iv.Series {
		switch s.Name {
		case "ingest.lag":
			o.lag = append(o.lag, time.Duration(s.Interval.Max()))
		case "serve/staleness":
			o.stale = append(o.stale, time.Duration(s.Interval.Max()))
		}
	}
}

// lambdaRun loads lambda into a fresh database, runs it with args for
// duration and returns the result, the generator and the database.
func lambdaRun(t *testing.T, duration time.Duration, workers int, obs run.Observer, args ...string) (*run.Result, workload.Generator, *sqlx.DB) {
	t.Helper()
	db := testdb.Fresh(t, "stampede_lambda_test", sqlx.Options{MaxConns: 2})
	meta, _ := workload.Get("lambda")
	gen, err := workload.FromFlags(meta, args...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}
	if err := run.Load(ctx, run.LoadSpec{Workload: gen, Conn: conn}); err != nil {
		t.Fatal(err)
	}
	// run.json records the workload's flags as the command line does:
	// report rebuilds the workload from them to recompute its figures.
	flags := map[string]string{}
	gen.(workload.Flagser).Flags().VisitAll(func(f *pflag.Flag) { flags[f.Name] = f.Value.String() })
	spec := run.Spec{Workload: gen, Conn: conn, Concurrency: workers, Duration: duration, DisplayEvery: 500 * time.Millisecond,
		ResultsDir: t.TempDir(), Flags: flags}
	if obs != nil {
		spec.Observers = []run.Observer{obs}
	}
	r, err := run.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return res, gen, db
}

// opCount returns operation name's count and errors in res.
func opCount(t *testing.T, res *run.Result, name string) (count, errors int64) {
	t.Helper()
	for _, op := range res.Summary.Ops {
		if op.Name == name {
			return op.Count, op.Errors
		}
	}
	t.Fatalf("no operation %s in the summary", name)
	return 0, 0
}

// TestRunKnownEvents runs lambda for a known time and checks, against the
// database, that every event the run counted is in the raw table, that
// the ingest kept its rate, and that check lambda finds the batch view
// equal to its recomputation from the raw events.
func TestRunKnownEvents(t *testing.T) {
	const batch, rate = 50, 2000
	res, gen, db := lambdaRun(t, 3*time.Second, 6, nil, "--sensors", "20", "--ingest-rate", fmt.Sprint(rate), "--batch", fmt.Sprint(batch),
		"--batch-every", "500ms", "--window", "2s", "--hot-rate", "4", "--serve-rate", "20")
	ctx := context.Background()
	ingests, errs := opCount(t, res, "ingest")
	if errs != 0 {
		t.Fatalf("%d ingest errors", errs)
	}
	var events, devices int64
	if err := db.QueryRow(ctx, "SELECT count(*), count(DISTINCT device) FROM lambda_events").Scan(&events, &devices); err != nil {
		t.Fatal(err)
	}
	if events != ingests*batch || devices != 20 {
		t.Errorf("the raw table holds %d events of %d devices; the run counted %d batches of %d (%d events) of 20 devices", events, devices, ingests, batch, ingests*batch)
	}
	// The events the server holds over the measured time: the elapsed
	// time without the end's wait for the batches in flight (the
	// engine's Stop to End), which the run must have had.
	perSec := res.Summary.Figures["ingest_events_per_s"]
	measured := res.Summary.ElapsedSec - res.Summary.EndWaitSec
	if res.Summary.EndWaitSec <= 0 || measured <= 0 {
		t.Fatalf("end wait %g s of %g s elapsed: the duration's end should have waited for the operations in flight", res.Summary.EndWaitSec, res.Summary.ElapsedSec)
	}
	if want := float64(events) / measured; math.Abs(perSec-want) > 1e-7*want {
		t.Errorf("ingest_events_per_s %g, want %g (the table's %d events over %.6f s measured: %.6f s elapsed less the end's %.6f s wait)",
			perSec, want, events, measured, res.Summary.ElapsedSec, res.Summary.EndWaitSec)
	}
	t.Logf("ingest_events_per_s %.1f: %d events over %.6f s measured (elapsed %.6f s, end wait %.6f s)", perSec, events, measured, res.Summary.ElapsedSec, res.Summary.EndWaitSec)
	// At the rate asked, or behind it by no more than the ingest's
	// schedule lag says (a busy machine: the lag then tells it).
	if perSec > 1.05*rate {
		t.Errorf("ingested %.0f events/s, more than --ingest-rate %d", perSec, rate)
	}
	if perSec < 0.9*rate {
		short := time.Duration((1 - perSec/rate) * measured * float64(time.Second))
		var lag float64
		for _, s := range res.Summary.Series {
			if s.Name == "ingest.lag" {
				lag = s.Max
			}
		}
		if got := time.Duration(lag * float64(time.Millisecond)); got < short/2 {
			t.Errorf("ingested %.0f events/s of --ingest-rate %d, %s behind, but the ingest's largest schedule lag is %s", perSec, rate, short, got)
		}
		t.Logf("ingested %.0f events/s of --ingest-rate %d (a busy machine); largest schedule lag %.0f ms", perSec, rate, lag)
	}
	batches, _ := opCount(t, res, "batch")
	var recomputes, viewEvents, viewRows, rows int64
	if err := db.QueryRow(ctx, "SELECT recomputes, events, view_rows, (SELECT count(*) FROM lambda_batch_view) FROM lambda_batch_meta").Scan(&recomputes, &viewEvents, &viewRows, &rows); err != nil {
		t.Fatal(err)
	}
	if got := res.Summary.Figures["batch_view_rows"]; got != float64(rows) || viewRows != rows {
		t.Errorf("batch_view_rows %g, the metadata says %d, the view holds %d rows", got, viewRows, rows)
	}
	if recomputes != batches || batches < 4 {
		t.Errorf("%d recomputes recorded in the table, the run counted %d; want 4 or more in 3 s at --batch-every 500ms", recomputes, batches)
	}
	if viewEvents <= 0 || viewEvents > events {
		t.Errorf("the batch view counts %d events of %d", viewEvents, events)
	}
	var out lines
	if err := gen.(workload.Hookser).Hooks().CheckConsistency(ctx, db, &out); err != nil || len(out) != 1 || !strings.HasSuffix(out[0], " PASS") {
		t.Fatalf("check lambda: %v %q", err, out)
	}
	t.Log(out[0])
	if hot, _ := opCount(t, res, "hot/staleness"); hot == 0 {
		t.Error("no hot-path staleness recorded")
	}

	// The run's bottleneck line, and report's from the run log, the same.
	if res.Summary.Bottleneck == "" {
		t.Fatal("the run's summary has no bottleneck line")
	}
	rl, err := runlog.Open(res.Info.Dir)
	if err != nil {
		t.Fatal(err)
	}
	view, _, err := results.Recompute([]*runlog.Run{rl}, results.Window{})
	if err != nil {
		t.Fatal(err)
	}
	var rep strings.Builder
	if err := output.Report(&rep, []*runlog.Run{rl}, view); err != nil {
		t.Fatal(err)
	}
	if want := "\nbottleneck: " + res.Summary.Bottleneck + "\n"; !strings.Contains(rep.String(), want) {
		t.Errorf("report has no line %q:\n%s", want, rep.String())
	}
	// report recomputes the figure from the run log over the same
	// measured time.
	if got := output.WorkloadFigures([]*runlog.Run{rl}, view)["ingest_events_per_s"]; math.Abs(got-perSec) > 1e-7*perSec {
		t.Errorf("report's ingest_events_per_s %g, the run's %g", got, perSec)
	}
	for _, fig := range []string{"ingest_events_per_s: ", "batch_view_rows: ", " hot/staleness\n", " serve/staleness\n"} {
		if !strings.Contains(rep.String(), fig) {
			t.Errorf("report has no %q:\n%s", fig, rep.String())
		}
	}
}

// TestOverloadLagGrows asks for an ingest rate the server cannot take
// (one event per INSERT, 50,000 a second, from one worker): the run must
// say so honestly, its schedule lag growing interval after interval and
// the serving answers growing staler, with every event it counted in the
// table.
func TestOverloadLagGrows(t *testing.T) {
	obs := &lagWatch{}
	res, _, db := lambdaRun(t, 3*time.Second, 4, obs, "--sensors", "1", "--ingest-rate", "50000", "--batch", "1", "--ingest", "insert",
		"--batch-every", "1h", "--serve-rate", "20", "--hot-rate", "1")
	perSec := res.Summary.Figures["ingest_events_per_s"]
	if perSec > 25000 {
		t.Skipf("the server took %.0f events/s from one worker, one INSERT each: not overloaded", perSec)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.lag) < 5 {
		t.Fatalf("%d intervals, want 5 or more", len(obs.lag))
	}
	t.Logf("ingest lag by interval %v; serving staleness %v; %.0f events/s", obs.lag, obs.stale, perSec)
	for i := 1; i < len(obs.lag)-1; i++ { // the last, short interval may have few operations
		if obs.lag[i] <= obs.lag[i-1] {
			t.Errorf("the ingest's lag did not grow from interval %d to %d: %s then %s", i, i+1, obs.lag[i-1], obs.lag[i])
		}
	}
	// The lag of the last batch started: the schedule's shortfall, about
	// elapsed x (1 - achieved/asked).
	want := time.Duration(res.Summary.ElapsedSec * (1 - perSec/50000) * float64(time.Second))
	var lag float64
	for _, s := range res.Summary.Series {
		if s.Name == "ingest.lag" {
			lag = s.Max
		}
	}
	if got := time.Duration(lag * float64(time.Millisecond)); got < want*7/10 {
		t.Errorf("ingest.lag max %s, want about %s (the schedule's shortfall)", got, want)
	}
	if n := len(obs.stale); n < 3 || obs.stale[n-2] <= obs.stale[0] {
		t.Errorf("the serving answers' staleness did not grow with the lag: %v", obs.stale)
	}
	ingests, _ := opCount(t, res, "ingest")
	var events int64
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM lambda_events").Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != ingests {
		t.Errorf("the table holds %d events, the run counted %d", events, ingests)
	}
}

// TestCleanupOnlyItsOwn checks that cleanup lambda drops the three tables
// init made and nothing else: a user's table in the same database keeps
// its rows, and a user's own table named lambda_events (made after a
// cleanup, so without stampede's mark) is refused, not dropped.
func TestCleanupOnlyItsOwn(t *testing.T) {
	db := testdb.Fresh(t, "stampede_lambda_test", sqlx.Options{MaxConns: 2})
	meta, _ := workload.Get("lambda")
	gen, err := workload.FromFlags(meta)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}
	if err := run.Load(ctx, run.LoadSpec{Workload: gen, Conn: conn}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE readings (x INT); INSERT INTO readings VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := run.Cleanup(ctx, run.CleanupSpec{Workload: gen, Conn: conn, Log: &log}); err != nil {
		t.Fatal(err)
	}
	tables := func() []string {
		rows, err := db.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	if got := strings.Join(tables(), ","); got != "readings" {
		t.Errorf("tables after cleanup lambda: %s, want the user's readings only (cleanup said %q)", got, log.String())
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM readings").Scan(&n); err != nil || n != 2 {
		t.Errorf("the user's table holds %d rows (%v), want 2", n, err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE lambda_events (x INT)"); err != nil {
		t.Fatal(err)
	}
	err = run.Cleanup(ctx, run.CleanupSpec{Workload: gen, Conn: conn, Log: &log})
	if err == nil || !strings.Contains(err.Error(), "lambda_events") {
		t.Errorf("cleanup of a user's lambda_events: %v, want it refused by name", err)
	}
	if got := strings.Join(tables(), ","); got != "lambda_events,readings" {
		t.Errorf("tables after the refused cleanup: %s, want lambda_events,readings", got)
	}
}
