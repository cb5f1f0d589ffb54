package run_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestSpecErrors checks that a Spec that cannot run returns an error that
// names the field at fault and matches run.ErrInput (or, for a server
// that cannot be reached, names it), never a panic.
func TestSpecErrors(t *testing.T) {
	meta, _ := workload.Get("ycsb")
	gen := func() workload.Generator {
		g, err := workload.FromFlags(meta)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	null := run.Conn{Driver: sqlx.DriverNull}
	for _, tc := range []struct {
		name  string
		spec  run.Spec
		input bool
		want  string
	}{
		{"no workload", run.Spec{Concurrency: 1, Conn: null}, true, "Spec.Workload is nil"},
		{"no workers", run.Spec{Workload: gen(), Conn: null}, true, "Spec.Concurrency 0: need at least 1 worker"},
		{"negative duration", run.Spec{Workload: gen(), Conn: null, Concurrency: 1, Duration: -time.Second}, true, "Spec.Duration -1s is negative"},
		{"negative rate", run.Spec{Workload: gen(), Conn: null, Concurrency: 1, MaxRate: -5}, true, "Spec.MaxRate -5 is negative"},
		{"interval too short", run.Spec{Workload: gen(), Conn: null, Concurrency: 1, DisplayEvery: time.Nanosecond}, true, "Spec.DisplayEvery 1ns is shorter than 10ms"},
		{"unknown latency", run.Spec{Workload: gen(), Conn: null, Concurrency: 1, Latency: "sometimes"}, true, `Spec.Latency "sometimes"`},
		{"unknown driver", run.Spec{Workload: gen(), Conn: run.Conn{Driver: "mysql"}, Concurrency: 1}, true, `unknown driver "mysql"`},
		{"too many workers", run.Spec{Workload: gen(), Conn: null, Concurrency: 100_000_000}, true, "Spec.Concurrency 100000000 would need about"},
		{"unreachable endpoint", run.Spec{Workload: gen(), Concurrency: 1, Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir(),
			Conn: run.Conn{URLs: []string{"postgresql://nobody@127.0.0.1:1/db?connect_timeout=2"}}}, false, "cannot connect to 127.0.0.1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := run.Start(context.Background(), tc.spec)
			if err == nil {
				_, _ = r.Wait()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if errors.Is(err, run.ErrInput) != tc.input {
				t.Errorf("errors.Is(%q, ErrInput) = %v, want %v", err, !tc.input, tc.input)
			}
		})
	}
}

// TestObserverSeesTheRun checks that an observer sees the run start, each
// interval as it closes and the final figures, and that those are the
// figures of the Result and of summary.json.
func TestObserverSeesTheRun(t *testing.T) {
	meta, _ := workload.Get("ycsb")
	gen, err := workload.FromFlags(meta)
	if err != nil {
		t.Fatal(err)
	}
	obs := &recorder{}
	r, err := run.Start(context.Background(), run.Spec{Workload: gen, Conn: run.Conn{Driver: sqlx.DriverNull}, Concurrency: 2,
		MaxOps: 200_000, DisplayEvery: 50 * time.Millisecond, Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir(),
		Observers: []run.Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if obs.started != 1 || obs.final != 1 {
		t.Errorf("Start seen %d times, Final %d times", obs.started, obs.final)
	}
	if res.Summary.Total.Count != 200_000 || obs.ops != 200_000 {
		t.Errorf("result counts %d operations, the intervals %d, want 200000", res.Summary.Total.Count, obs.ops)
	}
	if res.Info.Dir == "" || res.Info.ID == "" || res.Summary.Status != "completed" {
		t.Errorf("result info %+v status %q", res.Info, res.Summary.Status)
	}
}

// recorder counts what an Observer is shown.
type recorder struct {
	started, final int
	ops            int64
}

func (o *recorder) Start(run.Info) { o.started++ }
func (o *recorder) Interval(iv run.Interval) {
	for _, s := range iv.Series[:2] { // read and update
		o.ops += s.Interval.TotalCount()
	}
}
func (o *recorder) Final(*run.Result) { o.final++ }
