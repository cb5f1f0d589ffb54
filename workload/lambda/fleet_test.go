package lambda_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestFleetPathRates runs lambda over a fleet of two schema tenants at
// the default workers per tenant (it once ran one worker per tenant and
// failed as "missing or incomplete"): each tenant's paths keep their own
// rates (the engine once split the fleet's rate evenly over the four
// paths: recomputes several a second, the ingest at 3x its rate), and
// the summary has the fleet's ingest_events_per_s and batch_view_rows,
// checked against the events and view rows the tenants' tables hold.
func TestFleetPathRates(t *testing.T) {
	db := testdb.Fresh(t, "stampede_lambda_fleet", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	meta, _ := workload.Get("lambda")
	const tenants, batch, rate = 2, 100, 1000 // 10 batches a second each
	args := []string{"--sensors", "10", "--ingest-rate", "1000", "--batch", "100", "--batch-every", "2s", "--hot-rate", "2", "--serve-rate", "5"}
	newGen := func() (workload.Generator, error) { return workload.FromFlags(meta, args...) }
	spec := fleet.Spec{Tenants: tenants, Mode: fleet.ModeSchema, Pattern: "lf_%d"}
	target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{testdb.URL(t)}, Database: db.Database()}, Concurrency: 1, Workload: "lambda"}
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	gen, _ := newGen()
	flags := map[string]string{}
	gen.(workload.Flagser).Flags().VisitAll(func(f *pflag.Flag) { flags[f.Name] = f.Value.String() })
	const duration = 4 * time.Second
	r, err := run.Start(ctx, run.Spec{Workload: gen, Conn: run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()},
		Duration: duration, DisplayEvery: 500 * time.Millisecond, ResultsDir: t.TempDir(), Flags: flags,
		Fleet: &run.Fleet{Spec: spec}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	secs := duration.Seconds()
	// Each path's operations: its rate x tenants x the duration, within
	// a few operations (the schedules' phases) or 25%.
	for _, c := range []struct {
		op   string
		rate float64
	}{{"ingest", rate / batch}, {"hot", 2}, {"serve", 5}, {"batch", 0.5}} {
		n, errs := opCount(t, res, c.op)
		want := c.rate * tenants * secs
		if errs != 0 || math.Abs(float64(n)-want) > max(3, 0.25*want) {
			t.Errorf("%s: %d operations (%d errors) in %s over %d tenants, want about %.0f (%g a second each)", c.op, n, errs, duration, tenants, want, c.rate)
		}
	}
	var events, viewRows int64
	for id := 1; id <= tenants; id++ {
		var e, v int64
		s := spec.Name(id)
		if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM "+s+".lambda_events), (SELECT count(*) FROM "+s+".lambda_batch_view)").Scan(&e, &v); err != nil {
			t.Fatal(err)
		}
		events, viewRows = events+e, viewRows+v
	}
	figs := res.Summary.Figures
	perSec, ok := figs["ingest_events_per_s"]
	if !ok {
		t.Fatalf("no ingest_events_per_s in the fleet's figures %v", figs)
	}
	// Each tenant's events over its own time: at least the events held
	// over the whole run's elapsed time, at most the asked rate's sum
	// (and some for the phases).
	if low := float64(events) / res.Summary.ElapsedSec; perSec < 0.95*low || perSec > 1.3*rate*tenants {
		t.Errorf("ingest_events_per_s %.0f: the tenants hold %d events (%.0f a second over the %.2f s elapsed), %d asked in all", perSec, events, low, res.Summary.ElapsedSec, rate*tenants)
	}
	if got, ok := figs["batch_view_rows"]; !ok || int64(got) != viewRows {
		t.Errorf("batch_view_rows %v (present %v), the tenants' batch views hold %d rows", got, ok, viewRows)
	}
}
