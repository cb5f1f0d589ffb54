package lambda

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// valueRecorder keeps what a worker records, by operation.
type valueRecorder struct {
	mu   sync.Mutex
	vals map[int][]time.Duration
}

func (r *valueRecorder) Record(op int, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.vals == nil {
		r.vals = map[int][]time.Duration{}
	}
	r.vals[op] = append(r.vals[op], d)
}
func (r *valueRecorder) RecordError(int, error) {}

// lines is a Reporter that keeps the lines.
type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func newGen(t *testing.T, args ...string) *lambda {
	t.Helper()
	g, err := workload.FromFlags(lambdaMeta, args...)
	if err != nil {
		t.Fatal(err)
	}
	return g.(*lambda)
}

// event is one raw event of a test.
type event struct {
	device int32
	ts     time.Time
	temp   int32
}

// insertEvents writes events straight into the raw table.
func insertEvents(t *testing.T, ctx context.Context, db *sqlx.DB, evs []event) {
	t.Helper()
	for _, e := range evs {
		if _, err := db.Exec(ctx, "INSERT INTO "+eventsTable+" (device, ts, temp, humidity, pressure) VALUES ($1, $2, $3, 500, 100000)", e.device, e.ts, e.temp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPathsAgainstData checks each path's answer, and the staleness it
// records, against events of known timestamps: the hot path's window
// aggregates and staleness (now minus the newest event in the window),
// the batch recompute up to a horizon (and check lambda's comparison,
// which must find a tampered row), and the serving query's answer, which
// must equal the raw events' aggregate over its span whatever part comes
// from the batch view, with its staleness.
func TestPathsAgainstData(t *testing.T) {
	db := testdb.Fresh(t, "stampede_lambda_test", sqlx.Options{MaxConns: 10, Workers: 5})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := newGen(t, "--sensors", "1", "--window", "1m")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	var out lines
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil || !strings.Contains(out[0], "no batch view computed yet") {
		t.Fatalf("check before any recompute: %v %q", err, out)
	}
	now := time.Now().Truncate(time.Microsecond)
	evs := []event{
		{0, now.Add(-30 * time.Hour), 99999}, // before the serving span: in no answer
		{0, now.Add(-20 * time.Hour), 15000},
		{0, now.Add(-5 * time.Hour), 25000},
		{0, now.Add(-2 * time.Hour), 21000},
		{1, now.Add(-90 * time.Minute), 30000}, // another device's
		{0, now.Add(-30 * time.Minute), 17000},
		{0, now.Add(-40 * time.Second), 22000},
		{1, now.Add(-20 * time.Second), 23000},
		{0, now.Add(-7 * time.Second), 18000}, // device 0's newest
	}
	insertEvents(t, ctx, db, evs)
	r, err := g.newRun(db, workload.OpsConfig{Concurrency: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	rec := &valueRecorder{}
	for w := range r.recs {
		r.recs[w] = rec
	}

	// The hot path: the last minute holds 3 events, the newest 7 s old.
	before := time.Now()
	if res := r.hot.run(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	after := time.Now()
	if got, want := r.hot.last, (hotAnswer{devices: 2, global: aggregate{events: 3, min: 18000, max: 23000, sum: 63000, newest: evs[8].ts}}); got.devices != want.devices ||
		got.global.events != want.global.events || got.global.min != want.global.min || got.global.max != want.global.max ||
		got.global.sum != want.global.sum || !got.global.newest.Equal(want.global.newest) {
		t.Errorf("hot answer %+v, want %+v", got, want)
	}
	checkStaleness(t, "hot", rec.vals[opHotStaleness], before.Sub(evs[8].ts), after.Sub(evs[8].ts))

	// The batch view up to an hour ago, then the serving query: the view
	// holds the hours up to the horizon, the raw events the rest.
	r.committed[0].Store(now.Add(-time.Hour).UnixMicro())
	rows, events, horizon, err := r.batch.recompute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 5 || events != 5 || !horizon.Equal(now.Add(-time.Hour)) {
		t.Errorf("recompute: %d rows counting %d events up to %s, want 5 rows (one per device and hour) counting 5 events up to %s",
			rows, events, horizon, now.Add(-time.Hour))
	}
	out = nil
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil || !strings.HasSuffix(out[0], " PASS") {
		t.Fatalf("check after a recompute: %v %q", err, out)
	}
	t.Log(out[0])

	before = time.Now()
	if res := r.serve.run(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	after = time.Now()
	var want aggregate
	from := since(before)
	for _, e := range evs {
		if e.device == 0 && !e.ts.Before(from) {
			want.add(aggregate{events: 1, min: e.temp, max: e.temp, sum: int64(e.temp), newest: e.ts})
		}
	}
	if got := r.serve.last; got.events != want.events || got.min != want.min || got.max != want.max || got.sum != want.sum || !got.newest.Equal(want.newest) {
		t.Errorf("serving answer %+v, want %+v (the raw events since %s)", got, want, from)
	}
	if want.events != 6 {
		t.Errorf("the test's events: %d of device 0 in the serving span, want 6", want.events)
	}
	checkStaleness(t, "serve", rec.vals[opServeStaleness], before.Sub(evs[8].ts), after.Sub(evs[8].ts))

	// A view row that differs from the raw events fails the check.
	if _, err := db.Exec(ctx, "UPDATE "+viewTable+" SET sum_temp = sum_temp + 1 WHERE device = 1"); err != nil {
		t.Fatal(err)
	}
	out = nil
	err = g.Hooks().CheckConsistency(ctx, db, &out)
	if err == nil || !strings.Contains(err.Error(), "1 row missing, 1 extra") || !strings.HasSuffix(out[0], " FAIL") {
		t.Errorf("check of a tampered view: %v %q", err, out)
	}
}

// checkStaleness checks that one staleness was recorded, within [lo, hi].
func checkStaleness(t *testing.T, path string, got []time.Duration, lo, hi time.Duration) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("%s: %d staleness values recorded, want 1", path, len(got))
	}
	if got[0] < lo || got[0] > hi {
		t.Errorf("%s staleness %s, want between %s and %s (now minus the newest event's timestamp)", path, got[0], lo, hi)
	}
}

// TestIngestBatchCost sends batches of 2,000 events through an ingest
// worker's COPY into the test server: the rows stored are those fill
// made (device, time to the microsecond, readings), and a batch costs the
// client a few allocations, not some per event: pgx's CopyFrom boxed and
// encoded each value through its type map (2 or more allocations an
// event, 62% of the client's CPU at 120,000 events/s, pprof).
func TestIngestBatchCost(t *testing.T) {
	db := testdb.Fresh(t, "stampede_lambda_ingest", sqlx.Options{MaxConns: 4, Workers: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const batch = 2000
	g := newGen(t, "--batch", fmt.Sprint(batch), "--hot-rate", "0", "--serve-rate", "0", "--batch-every", "0")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	r, err := g.newRun(db, workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	in := r.ingesters[0]
	if res := in.run(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	// The first batch as fill made it, against the server's rows.
	var sent strings.Builder
	for i := range in.ts {
		fmt.Fprintf(&sent, "%d|%d|%d|%d|%d;", in.devices[i], in.ts[i].UnixMicro(), in.temps[i], in.humidity[i], in.pressures[i])
	}
	var stored string
	if err := db.QueryRow(ctx, "SELECT string_agg(concat_ws('|', device, (extract(epoch FROM ts) * 1000000)::bigint, temp, humidity, pressure) || ';', '' ORDER BY ts, device) FROM "+eventsTable).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != sent.String() {
		t.Errorf("the server holds\n%.300s...\nthe batch sent was\n%.300s...", stored, sent.String())
	}
	allocs := testing.AllocsPerRun(5, func() {
		if res := in.run(ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
	})
	if allocs > batch/20 {
		t.Errorf("%.0f allocations a batch of %d events, want at most %d: the events are encoded one by one", allocs, batch, batch/20)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+eventsTable).Scan(&n); err != nil || n != 7*batch {
		t.Errorf("%d events stored (%v), want %d (7 batches)", n, err, 7*batch)
	}
	t.Logf("%.0f allocations a batch of %d events", allocs, batch)
}
