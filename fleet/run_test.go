package fleet_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/bank"
	_ "github.com/stampede-bench/stampede/workload/churn"
	_ "github.com/stampede-bench/stampede/workload/sysbench"
)

// bankGen returns a NewGen for bank with args.
func bankGen(t testing.TB, args ...string) func(int) (workload.Generator, error) {
	t.Helper()
	m, ok := workload.Get("bank")
	if !ok {
		t.Fatal("bank is not registered")
	}
	return func(int) (workload.Generator, error) { return workload.FromFlags(m, args...) }
}

// nullConfig is a fleet of bank tenants on the null driver.
func nullConfig(t testing.TB, tenants, active int) fleet.RunConfig {
	return fleet.RunConfig{
		Spec:             fleet.Spec{Tenants: tenants, Mode: fleet.ModeDatabase, Pattern: "bank_%d"},
		Base:             sqlx.Options{Driver: sqlx.DriverNull},
		Active:           active,
		ConnsPerTenant:   1,
		WorkersPerTenant: 1,
		Seed:             1,
		NewGen:           bankGen(t, "--rows=100"),
	}
}

// TestOpenBadConfig checks that bad configurations fail in one line.
func TestOpenBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*fleet.RunConfig)
		want string
	}{
		{"active above tenants", func(c *fleet.RunConfig) { c.Active = 11 }, "--active 11 is more than --tenants 10"},
		{"no active", func(c *fleet.RunConfig) { c.Active = 0 }, "--active 0"},
		{"no connections", func(c *fleet.RunConfig) { c.ConnsPerTenant = 0 }, "--conns-per-tenant 0"},
		{"no workers", func(c *fleet.RunConfig) { c.WorkersPerTenant = 0 }, "workers per tenant"},
		{"bad pick", func(c *fleet.RunConfig) { c.Pick = "lottery" }, `unknown --pick "lottery"`},
		{"negative tenant duration", func(c *fleet.RunConfig) { c.TenantDuration = -time.Second }, "--tenant-duration -1s"},
		{"generator error", func(c *fleet.RunConfig) { c.NewGen = bankGen(t, "--rows=0") }, "tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := nullConfig(t, 10, 5)
			tc.edit(&cfg)
			r, err := fleet.Open(context.Background(), cfg)
			if err == nil {
				r.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tc.want)
			}
		})
	}
}

// run drives a fleet run through the engine for d and returns the
// engine's cumulative count and errors over every operation.
func run(t *testing.T, r *fleet.Run, d time.Duration, tolerate bool) (count, errs int64) {
	t.Helper()
	load := r.Load()
	reg := stats.NewRegistry(load.Ops, stats.ShardsFor(len(load.Workers), runtime.GOMAXPROCS(0)), time.Now())
	var last stats.Tick
	res := engine.Run(context.Background(), engine.Config{Duration: d, DisplayEvery: 100 * time.Millisecond, TolerateErrors: tolerate},
		load, reg, engine.Hooks{Tick: func(tk stats.Tick, _ bool) { last = tk }})
	if res.Err != nil && !tolerate {
		t.Fatalf("run: %v", res.Err)
	}
	if load.Close != nil {
		_ = load.Close(context.Background())
	}
	for _, s := range last.Series {
		count += s.Cumulative.TotalCount()
		errs += s.CumErrors
	}
	return count, errs
}

// TestNullFleet runs 100 tenant workloads on the null driver and checks
// that every one ran and that their counts add up to the engine's.
func TestNullFleet(t *testing.T) {
	for _, pick := range []string{fleet.PickRandom, fleet.PickRoundRobin} {
		t.Run(pick, func(t *testing.T) {
			cfg := nullConfig(t, 200, 100)
			cfg.Pick = pick
			cfg.WorkersPerTenant = 2
			cfg.NewGen = func(id int) (workload.Generator, error) { return sleepGen{id: id}, nil }
			r, err := fleet.Open(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if n := len(r.Load().Workers); n != 200 {
				t.Fatalf("%d workers, want 200", n)
			}
			count, _ := run(t, r, 300*time.Millisecond, false)
			ts := r.Tenants()
			if len(ts) != 100 {
				t.Fatalf("%d tenant results, want 100", len(ts))
			}
			var sum int64
			ids := map[int]bool{}
			for _, tr := range ts {
				ids[tr.ID] = true
				if tr.Total == 0 || tr.ElapsedSec <= 0 || tr.Name != "bank_"+itoa(tr.ID) || tr.Ended != "run" {
					t.Errorf("tenant %+v", tr)
				}
				for _, n := range tr.Ops {
					sum += n
				}
				if pick == fleet.PickRoundRobin && tr.ID > 100 {
					t.Errorf("round-robin picked tenant %d", tr.ID)
				}
			}
			if len(ids) != 100 {
				t.Errorf("%d distinct tenants, want 100", len(ids))
			}
			if sum != count {
				t.Errorf("tenants' counts add up to %d, the engine counted %d", sum, count)
			}
			s := fleet.Summarize(100, ts)
			if s.OpsMin == 0 || s.OpsMin > s.OpsMedian || s.OpsMedian > s.OpsMax || len(s.Starved) != 0 {
				t.Errorf("summary %+v", s)
			}
		})
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestNullRotate rotates 3 slots over 10 tenants every 50ms and checks
// that replacements ran and every tenant workload is reported.
func TestNullRotate(t *testing.T) {
	cfg := nullConfig(t, 10, 3)
	cfg.Pick = fleet.PickRoundRobin
	cfg.Rotate = true
	cfg.TenantDuration = 50 * time.Millisecond
	cfg.NewGen = func(id int) (workload.Generator, error) { return sleepGen{id: id}, nil }
	r, err := fleet.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count, _ := run(t, r, 600*time.Millisecond, true)
	ts := r.Tenants()
	if len(ts) <= 3 {
		t.Fatalf("%d tenant workloads ran, want more than 3", len(ts))
	}
	var sum int64
	durations := 0
	for _, tr := range ts {
		sum += tr.Total
		if tr.Ended == "duration" {
			durations++
		}
	}
	if durations == 0 {
		t.Errorf("no tenant workload ended by --tenant-duration: %+v", ts)
	}
	if sum != count {
		t.Errorf("tenants' counts add up to %d, the engine counted %d", sum, count)
	}
}

// sleepGen is a workload whose operations sleep a millisecond (so that
// hundreds of workers share two CPUs as they would waiting for a server),
// and fail for tenant fail.
// TestRampLeftOut runs one tenant whose calls take 100 ms during the
// first 150 ms and 1 ms afterwards, under a 1 s ramp (the last slow call
// ends 750 ms before it, room for a busy machine's scheduling delays): its
// latencies, like its counts, leave the ramp out.
func TestRampLeftOut(t *testing.T) {
	cfg := nullConfig(t, 1, 1)
	start := time.Now()
	cfg.NewGen = func(id int) (workload.Generator, error) {
		// One slow call of 400 ms in the ramp: far above what a loaded
		// machine's scheduling adds to a 1 ms call (CI read a max of 159
		// ms at load 28 when the slow calls were of 100 ms).
		return sleepGen{id: id, slow: 400 * time.Millisecond, slowUntil: start.Add(150 * time.Millisecond)}, nil
	}
	r, err := fleet.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	load := r.Load()
	reg := stats.NewRegistry(load.Ops, 1, time.Now())
	var last stats.Tick
	res := engine.Run(context.Background(), engine.Config{Duration: 1300 * time.Millisecond, Ramp: time.Second,
		DisplayEvery: 100 * time.Millisecond}, load, reg, engine.Hooks{
		Tick:     func(tk stats.Tick, _ bool) { last = tk },
		RampDone: func(time.Time) { r.MarkRampEnd() },
	})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	_ = load.Close(context.Background())
	ts := r.Tenants()
	if len(ts) != 1 {
		t.Fatalf("%d tenant results", len(ts))
	}
	if ts[0].Max >= 400 || ts[0].P99 >= 400 {
		t.Errorf("tenant latencies p99 %.1f ms, max %.1f ms: the ramp's 400 ms call is in", ts[0].P99, ts[0].Max)
	}
	// The engine's restart and MarkRampEnd are a few calls apart.
	if count := last.Series[0].Cumulative.TotalCount(); count == 0 || abs(ts[0].Total-count) > count/50 {
		t.Errorf("tenant counted %d calls, the engine %d after the ramp", ts[0].Total, count)
	}
}

func abs(n int64) int64 { return max(n, -n) }

// sleepGen is a workload whose calls sleep 1 ms (slow until slowUntil),
// and fail in tenant fail.
type sleepGen struct {
	id, fail  int
	slow      time.Duration
	slowUntil time.Time
}

func (sleepGen) Meta() workload.Meta      { return workload.Meta{Name: "sleep"} }
func (sleepGen) Tables() []workload.Table { return nil }
func (g sleepGen) Ops(_ context.Context, _ *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	ql := workload.QueryLoad{Ops: []string{"op"}}
	for range oc.Concurrency {
		ql.Workers = append(ql.Workers, func(context.Context) workload.Result {
			if time.Now().Before(g.slowUntil) {
				time.Sleep(g.slow)
			} else {
				time.Sleep(time.Millisecond)
			}
			if g.id == g.fail {
				return workload.Result{Err: errors.New("boom")}
			}
			return workload.Result{}
		})
	}
	return ql, nil
}

// TestRotateOnError checks that a failing tenant is replaced while its
// errors still reach the engine.
func TestRotateOnError(t *testing.T) {
	cfg := nullConfig(t, 3, 1)
	cfg.Pick = fleet.PickRoundRobin
	cfg.Rotate = true
	cfg.NewGen = func(id int) (workload.Generator, error) { return sleepGen{id: id, fail: 1}, nil }
	r, err := fleet.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, errs := run(t, r, 300*time.Millisecond, true)
	ts := r.Tenants()
	if len(ts) < 2 || ts[0].ID != 1 || ts[0].Ended != "error" || ts[0].Errors == 0 || ts[1].ID != 2 || ts[1].Total == 0 {
		t.Fatalf("tenant workloads %+v: want tenant 1 failing, then tenant 2", ts)
	}
	var sum int64
	for _, tr := range ts {
		sum += tr.Errors
	}
	if errs == 0 || sum != errs {
		t.Errorf("tenants' errors add up to %d, the engine counted %d", sum, errs)
	}
}

// sleepFleet opens a fleet of one sleepGen tenant on the null driver, with
// its load and a registry for the engine.
func sleepFleet(t *testing.T) (*fleet.Run, workload.QueryLoad, *stats.Registry) {
	t.Helper()
	cfg := nullConfig(t, 1, 1)
	cfg.NewGen = func(id int) (workload.Generator, error) { return sleepGen{id: id}, nil }
	r, err := fleet.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := r.Load()
	return r, load, stats.NewRegistry(load.Ops, 1, time.Now())
}

// TestMarkEndFixesElapsed checks that the tenants' figures end where the
// engine's did when MarkEnd says so, however late Tenants is called (a
// busy server can take seconds between the two).
func TestMarkEndFixesElapsed(t *testing.T) {
	r, load, reg := sleepFleet(t)
	defer r.Close()
	res := engine.Run(context.Background(), engine.Config{Duration: 300 * time.Millisecond, DisplayEvery: 100 * time.Millisecond},
		load, reg, engine.Hooks{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	r.MarkEnd(res.End)
	time.Sleep(500 * time.Millisecond) // the run's closing
	_ = load.Close(context.Background())
	ts := r.Tenants()
	if len(ts) != 1 || ts[0].ElapsedSec <= 0 || ts[0].ElapsedSec > res.End.Sub(res.Start).Seconds()+0.01 {
		t.Errorf("tenant elapsed %v s, the engine's run %v", ts[0].ElapsedSec, res.End.Sub(res.Start))
	}
}

// TestRampEndAtTheTick checks that the tenants leave out the ramp as the
// engine does when the engine's Tick hook is slow (it writes the run log):
// with the counts snapshotted at the tick, the tenants count the calls that
// complete during the hook, as the engine's cumulative view does.
func TestRampEndAtTheTick(t *testing.T) {
	r, load, reg := sleepFleet(t)
	defer r.Close()
	var last stats.Tick
	ramping := true
	res := engine.Run(context.Background(), engine.Config{Duration: 400 * time.Millisecond, Ramp: 300 * time.Millisecond,
		DisplayEvery: 100 * time.Millisecond}, load, reg, engine.Hooks{
		Tick: func(tk stats.Tick, _ bool) {
			if ramping {
				r.SnapshotCounts()
				time.Sleep(60 * time.Millisecond) // a slow run log
			}
			last = tk
		},
		RampDone: func(time.Time) { ramping = false; r.MarkRampEnd() },
	})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	_ = load.Close(context.Background())
	ts := r.Tenants()
	// The calls take 1 ms: the hook's 60 ms hold about 60 of them.
	if count := last.Series[0].Cumulative.TotalCount(); len(ts) != 1 || count == 0 || abs(ts[0].Total-count) > 10 {
		t.Errorf("tenant counted %d calls after the ramp, the engine %d", ts[0].Total, count)
	}
}
