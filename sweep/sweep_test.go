package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
)

func TestParseValues(t *testing.T) {
	for _, tc := range []struct {
		flag   string // --max-rate when ""
		in     string
		bound  Bound
		want   []float64
		lo, hi float64
		bounds bool
		err    string
	}{
		{in: "1,2,4,8", bound: Workers, want: []float64{1, 2, 4, 8}, lo: 1, hi: 8},
		{in: "8, 2,4", want: []float64{8, 2, 4}, lo: 2, hi: 8},
		{in: "1000:4000:1000", want: []float64{1000, 2000, 3000, 4000}, lo: 1000, hi: 4000},
		{in: "1000:4500:1000", want: []float64{1000, 2000, 3000, 4000}, lo: 1000, hi: 4500},
		{in: "1000:2000:100", want: []float64{1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000}, lo: 1000, hi: 2000},
		{in: "1000:16000:x2", want: []float64{1000, 2000, 4000, 8000, 16000}, lo: 1000, hi: 16000},
		{in: "1000:1331:x1.1", want: []float64{1000, 1100, 1210, 1331}, lo: 1000, hi: 1331},
		{in: "1:64:x2", bound: Workers, want: []float64{1, 2, 4, 8, 16, 32, 64}, lo: 1, hi: 64},
		{in: "1:4:x1.2", bound: Workers, want: []float64{1, 2, 3, 4}, lo: 1, hi: 4},
		{in: "1000:64000", lo: 1000, hi: 64000, bounds: true},
		{in: "", err: "is empty"},
		{in: "1,x,3", err: `"x" is not a number`},
		{in: "0,1", err: "0 is not positive"},
		{in: "-5:10", err: "-5 is not positive"},
		{in: "1.5,2", bound: Workers, err: "1.5 is not a whole number"},
		{in: "nan", err: "is not a number"},
		{in: "1e999", err: "is not a number"},
		{in: "10:5", err: "end 5 is not above its start 10"},
		{in: "1:2:3:4", err: "a range is START:END"},
		{in: "1:100:x1", err: "not a number above 1"},
		{in: "1:100:xx", err: "not a number above 1"},
		{in: "1:1e9:1", err: "more than 1000 steps"},
		{in: "1:2:0", err: "0 is not positive"},
		{in: "1,1e19", bound: Workers, err: "1e19 is more workers than a client runs; give at most 2147483647"},
		{in: "1,2147483647", bound: Workers, want: []float64{1, 2147483647}, lo: 1, hi: 2147483647},
		{flag: "--concurrency", in: "1,2147483648", bound: Workers, err: "2147483648 is more workers than a client runs; give at most 2147483647"},
		{flag: "--conns", in: "4,3e9", bound: Bound{Whole: true, Max: 1<<31 - 1, Unit: "connections"}, err: "3e9 is more connections than a client runs; give at most 2147483647"},
		// Sizes and counts beyond an int32 are no workers: each flag has
		// its own range, named in its own unit.
		{flag: "--memory", in: "1G,2G", bound: Bound{Size: true, Max: math.MaxInt64}, want: []float64{1 << 30, 2 << 30}, lo: 1 << 30, hi: 2 << 30},
		{flag: "--memory", in: "512M:2G:x2", bound: Bound{Size: true, Max: math.MaxInt64}, want: []float64{512 << 20, 1 << 30, 2 << 30}, lo: 512 << 20, hi: 2 << 30},
		{flag: "--io-write-bps", in: "1M:3M:1M", bound: Bound{Size: true, Max: math.MaxInt64}, want: []float64{1 << 20, 2 << 20, 3 << 20}, lo: 1 << 20, hi: 3 << 20},
		{flag: "--io-write-bps", in: "1M,3G", bound: Bound{Size: true, Max: math.MaxInt64}, want: []float64{1 << 20, 3 << 30}, lo: 1 << 20, hi: 3 << 30},
		{flag: "--memory", in: "1G,lots", bound: Bound{Size: true, Max: math.MaxInt64}, err: `malformed size "lots"`},
		{flag: "--memory", in: "1G,4T", bound: Bound{Size: true, Max: 2 << 40}, err: "4T is more than --memory takes; give at most 2T"},
		{flag: "--max-ops", in: "10,3000000000", bound: Bound{Whole: true, Max: math.MaxInt64}, want: []float64{10, 3e9}, lo: 10, hi: 3e9},
		{flag: "--max-ops", in: "10,1e19", bound: Bound{Whole: true, Max: math.MaxInt64}, err: "1e19 is more than --max-ops takes; give at most 9223372036854775807"},
		{flag: "--small", in: "1,40000", bound: Bound{Whole: true, Max: math.MaxInt16}, err: "40000 is more than --small takes; give at most 32767"},
		{in: strings.Repeat("1,", 1001) + "1", err: `"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1..." has 1002 values`},
	} {
		flag := cmp.Or(tc.flag, "--max-rate")
		v, err := ParseValues(flag, tc.in, tc.bound)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), flag+" ") {
				t.Errorf("%s %q: error %v, want one naming %s with %q", flag, tc.in, err, flag, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(v.List, tc.want) || v.Lo != tc.lo || v.Hi != tc.hi || v.Bounds != tc.bounds {
			t.Errorf("%q: %+v, want list %v lo %g hi %g bounds %v", tc.in, v, tc.want, tc.lo, tc.hi, tc.bounds)
		}
	}
}

func TestSLO(t *testing.T) {
	sum := stats.Summary{Count: 990, Errors: 10, Rate: 9500, P50: 0.5, P95: 2, P99: 6.1, P999: 9, Max: 30, Mean: 0.8}
	for _, tc := range []struct {
		slo    string
		target float64
		met    bool
		why    string
		err    string
	}{
		{slo: "p99<=10ms", met: true},
		{slo: "p99<=5ms", why: "p99 6.10 ms, want p99<=5ms"},
		{slo: "p99 <= 6.1ms", met: true},
		{slo: "p99<6.1ms", why: "p99 6.10 ms, want p99<6.1ms"},
		{slo: "P95<=2ms, p99.9<=9ms,max<=1s", met: true},
		{slo: "mean<=800us", met: true},
		{slo: "p50<=0.4ms", why: "p50 0.500 ms"},
		{slo: "errors<=1%", met: true},
		{slo: "errors<=0.5%", why: "errors 1.00%, want errors<=0.5%"},
		{slo: "errors<=10", met: true},
		{slo: "errors<9", why: "errors 10, want errors<9"},
		{slo: "rate>=95%", target: 10000, met: true},
		{slo: "rate>=96%", target: 10000, why: "rate 95.0% of 10000, want rate>=96%"},
		{slo: "rate>=9000", met: true},
		{slo: "rate>9500", why: "rate 9500 ops/s, want rate>9500"},
		{slo: "p99<=5ms,errors<=0.5%", why: "p99 6.10 ms, want p99<=5ms; errors 1.00%, want errors<=0.5%"},
		{slo: "", err: "has no terms"},
		{slo: "p99", err: "has no bound"},
		{slo: "p99=5ms", err: "compare with"},
		{slo: "p99>=5ms", err: "bounds latency from below"},
		{slo: "p99<=5", err: "not a positive duration with a unit"},
		{slo: "p99<=-5ms", err: "not a positive duration"},
		{slo: "p42<=5ms", err: `unknown figure "p42"`},
		{slo: "errors>=1%", err: "bounds errors from below"},
		{slo: "rate<=100", err: "caps the throughput"},
		{slo: "errors<=101%", err: "not a count or a percentage"},
		{slo: "rate>=abc", err: "not a count or a percentage"},
	} {
		slo, err := ParseSLO(tc.slo)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "--slo") {
				t.Errorf("%q: error %v, want one naming --slo with %q", tc.slo, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.slo, err)
			continue
		}
		met, why := slo.Check(Measure{Total: sum, Target: tc.target})
		if met != tc.met || !strings.Contains(why, tc.why) || (met && why != "") {
			t.Errorf("%q: met %v (%s), want %v (%s)", tc.slo, met, why, tc.met, tc.why)
		}
	}
	slo, _ := ParseSLO("p99<=5ms")
	if met, why := slo.Check(Measure{}); met || !strings.Contains(why, "no operations") {
		t.Errorf("a step with no operations: met %v (%s)", met, why)
	}
}

// server is a model of a system under test for the sweep's logic: its
// p99 grows with the rate or the workers beyond a knee, and it records
// the values it was run at.
type server struct {
	knee float64
	ran  []float64
	fail float64 // a value whose run fails
	intr float64 // a value whose run is interrupted
	// burst says the machine was busy during the n-th run (from 1): its
	// p99 reads 100 ms more.
	burst func(n int) bool
	// dip is a value that always misses (a server's pathology).
	dip float64
}

func (sv *server) exec(ctx context.Context, s run.Spec) (*run.Result, error) {
	v := s.MaxRate
	if v == 0 {
		v = float64(s.Concurrency)
	}
	sv.ran = append(sv.ran, v)
	r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", len(sv.ran)), MaxRate: s.MaxRate, Workers: s.Concurrency}}
	r.Summary.Status = "completed"
	r.Summary.Total = stats.Summary{Count: 1000, Rate: math.Max(v, 1), P99: 1 + math.Max(0, v-sv.knee)}
	if sv.burst != nil && sv.burst(len(sv.ran)) || v == sv.dip {
		r.Summary.Total.P99 += 100
	}
	if s.Tags["sweep"] != "S" || s.Tags["sweep_step"] != fmt.Sprint(len(sv.ran)) || s.Tags["sweep_rep"] == "" || s.Flags[string(MaxRate)] == "" && s.Flags[string(Concurrency)] == "" {
		return nil, fmt.Errorf("step's spec: tags %v flags %v", s.Tags, s.Flags)
	}
	if v == sv.intr {
		r.Summary.Status = "interrupted"
		return r, run.ErrInterrupted
	}
	if v == sv.fail {
		r.Summary.Status = "failed"
		return r, errors.New("operation failed")
	}
	return r, nil
}

func TestSearch(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms") // met up to knee+4
	for _, tc := range []struct {
		name    string
		param   Param
		lo, hi  float64
		knee    float64
		best    float64 // 0: none
		miss    float64
		stopped string
	}{
		{name: "rate", param: MaxRate, lo: 1000, hi: 64000, knee: 7496, best: 7500},
		{name: "low misses", param: MaxRate, lo: 1000, hi: 64000, knee: 100, stopped: "lowest value, --max-rate 1000, missed"},
		{name: "high meets", param: MaxRate, lo: 1000, hi: 64000, knee: 1e6, best: 64000, stopped: "highest value, --max-rate 64000, met"},
		{name: "workers", param: Concurrency, lo: 1, hi: 256, knee: 36, best: 40, miss: 41},
		{name: "workers high", param: Concurrency, lo: 1, hi: 8, knee: 36, best: 8, stopped: "highest value, --concurrency 8, met"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: tc.knee}
			res, err := Run(context.Background(), Spec{Base: run.Spec{Concurrency: 4}, Param: tc.param, Values: Values{Lo: tc.lo, Hi: tc.hi, Bounds: true},
				Search: true, SLO: p99, ID: "S", Exec: sv.exec})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Stopped, tc.stopped) || (tc.stopped == "") != (res.Stopped == "") {
				t.Errorf("stopped %q, want %q", res.Stopped, tc.stopped)
			}
			if tc.best == 0 {
				if res.Best != nil {
					t.Errorf("best %g, want none", res.Best.Value)
				}
				return
			}
			if res.Best == nil {
				t.Fatalf("no best; steps %v", sv.ran)
			}
			// The answer met and every higher probe missed; a miss within
			// the precision above it (or one worker).
			if b := res.Best.Value; b > tc.knee+4 || !res.Best.Met {
				t.Errorf("best %g does not meet the SLO (knee %g)", b, tc.knee)
			}
			if res.Miss != nil {
				if res.Miss.Met || res.Miss.Value <= res.Best.Value {
					t.Errorf("miss %+v above best %g", *res.Miss, res.Best.Value)
				}
				if tc.param == MaxRate && res.Miss.Value > res.Best.Value*(1+DefaultPrecision) {
					t.Errorf("miss %g not within 5%% of best %g", res.Miss.Value, res.Best.Value)
				}
				if tc.param == Concurrency && res.Miss.Value != tc.miss {
					t.Errorf("miss %g, want %g", res.Miss.Value, tc.miss)
				}
			} else if res.Best.Value != tc.hi {
				t.Errorf("no miss, best %g", res.Best.Value)
			}
			if tc.param == MaxRate && math.Abs(res.Best.Value-tc.best) > tc.best*DefaultPrecision {
				t.Errorf("best %g, want about %g", res.Best.Value, tc.best)
			}
			if len(sv.ran) > 12 {
				t.Errorf("%d probes: %v", len(sv.ran), sv.ran)
			}
			for i, st := range res.Steps {
				if st.N != i+1 || st.Value != sv.ran[i] || !st.Judged || st.RunID != fmt.Sprintf("run-%d", i+1) {
					t.Errorf("step %d: %+v (ran %g)", i, st, sv.ran[i])
				}
			}
			if c := res.Conclusion(); !strings.Contains(c, "highest "+tc.param.Flag()+" meeting the SLO p99<=5ms: "+Format(res.Best.Value)) {
				t.Errorf("conclusion %q", c)
			}
		})
	}
}

func TestSteps(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	vals, _ := ParseValues("--max-rate", "1000:5000:1000", Bound{})
	for _, tc := range []struct {
		name      string
		slo       SLO
		keepGoing bool
		knee      float64
		fail      float64
		intr      float64
		// pauseCancel cancels the sweep after this step, in the pause
		// before the next.
		pauseCancel int
		ran         []float64
		best        float64
		stopped     string
		err         string
	}{
		{name: "no slo", knee: 0, ran: []float64{1000, 2000, 3000, 4000, 5000}},
		{name: "stops at the miss", slo: p99, knee: 2500, ran: []float64{1000, 2000, 3000}, best: 2000, stopped: "stopped after --max-rate 3000 missed the SLO (2 steps left"},
		{name: "interrupted in a pause", slo: p99, knee: 1e6, intr: -1, pauseCancel: 1, ran: []float64{1000}, best: 1000,
			stopped: "interrupted after step 1, before the next: the sweep did not finish; what it found is partial, from 1 completed run", err: "interrupted"},
		{name: "keep going", slo: p99, keepGoing: true, knee: 2500, ran: []float64{1000, 2000, 3000, 4000, 5000}, best: 2000},
		{name: "last misses", slo: p99, knee: 4500, ran: []float64{1000, 2000, 3000, 4000, 5000}, best: 4000},
		{name: "failed run", knee: 1e6, fail: 2000, ran: []float64{1000, 2000}, err: "step 2 (--max-rate 2000): operation failed",
			stopped: "the sweep ended at a failed step: step 2 (--max-rate 2000): operation failed"},
		{name: "interrupted", slo: p99, knee: 1e6, intr: 3000, ran: []float64{1000, 2000, 3000}, best: 2000,
			stopped: "interrupted at step 3: the sweep did not finish; what it found is partial, from 2 completed runs", err: "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: tc.knee, fail: tc.fail, intr: tc.intr}
			var seen []string
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			spec := Spec{Base: run.Spec{Concurrency: 4}, Param: MaxRate, Values: vals, SLO: tc.slo,
				KeepGoing: tc.keepGoing, ID: "S", Exec: sv.exec, Observer: recorder{seen: &seen}}
			if tc.pauseCancel > 0 {
				spec.Pause = time.Hour
				spec.Observer = recorder{seen: &seen, after: tc.pauseCancel, cancel: cancel}
			}
			res, err := Run(ctx, spec)
			if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if !reflect.DeepEqual(sv.ran, tc.ran) || len(res.Steps) != len(tc.ran) {
				t.Errorf("ran %v (%d steps), want %v", sv.ran, len(res.Steps), tc.ran)
			}
			if len(seen) != 2*len(tc.ran) {
				t.Errorf("observer saw %v", seen)
			}
			if !strings.Contains(res.Stopped, tc.stopped) || (tc.stopped == "") != (res.Stopped == "") {
				t.Errorf("stopped %q, want %q", res.Stopped, tc.stopped)
			}
			switch {
			case tc.best == 0 && res.Best != nil:
				t.Errorf("best %g, want none", res.Best.Value)
			case tc.best != 0 && (res.Best == nil || res.Best.Value != tc.best):
				t.Errorf("best %+v, want %g", res.Best, tc.best)
			}
			peak := len(tc.ran) // the last completed step: the model's throughput grows with the rate
			if tc.fail != 0 {
				peak--
			}
			if len(tc.slo.Terms) == 0 && !strings.HasPrefix(res.Conclusion(), fmt.Sprintf("peak throughput: %.1f ops/s at --max-rate %g (step %d)", tc.ran[peak-1], tc.ran[peak-1], peak)) {
				t.Errorf("conclusion without an SLO: %q", res.Conclusion())
			}
		})
	}
}

type recorder struct {
	seen   *[]string
	after  int // cancel after this step
	cancel func()
}

func (r recorder) Begin(st Step, s *run.Spec) {
	*r.seen = append(*r.seen, fmt.Sprintf("begin %d %g", st.N, s.MaxRate))
}
func (r recorder) End(st Step) {
	*r.seen = append(*r.seen, fmt.Sprintf("end %d", st.N))
	if st.N == r.after {
		r.cancel()
	}
}

func TestValidate(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	share, _ := ParseSLO("rate>=90%")
	list := Values{List: []float64{1, 2}, Lo: 1, Hi: 2}
	bounds := Values{Lo: 1, Hi: 2, Bounds: true}
	for _, tc := range []struct {
		spec Spec
		err  string
	}{
		{Spec{Param: MaxRate, Values: bounds, Search: true}, "give one, as --slo"},
		{Spec{Param: MaxRate, Values: list, Search: true, SLO: p99}, "--search takes a range, as --max-rate 1000:64000"},
		{Spec{Param: Concurrency, Values: bounds}, "--concurrency 1:2 has no step: add one (1:2:x2)"},
		{Spec{Param: Concurrency, Values: list, SLO: share}, "share of --max-rate"},
		{Spec{Param: MaxRate, Values: list, Precision: 1}, "--precision 1"},
		{Spec{Param: "ramp", Values: list}, "unknown setting"},
		{Spec{Param: MaxRate, Values: list, Precision: math.NaN()}, "--precision NaN"},
		{Spec{Param: MaxRate, Values: list, Pause: -time.Second}, "--pause -1s is negative"},
		{Spec{Param: MaxRate, Values: list, SLO: share}, ""},
		{Spec{Param: Concurrency, Values: list, SLO: share, Base: run.Spec{MaxRate: 100}}, ""},
	} {
		err := tc.spec.Validate()
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.err)
		}
	}
}

func TestWithRateFloor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"p99<=5ms", "p99<=5ms,rate>=95%"},
		{"p99<=5ms,rate>=80%", "p99<=5ms,rate>=80%"},
		{"rate>=1000", "rate>=1000"},
	} {
		slo, err := ParseSLO(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := slo.WithRateFloor().String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := (SLO{}).WithRateFloor(); len(got.Terms) != 0 {
		t.Errorf("no SLO gained terms: %v", got)
	}
}

// TestRepeatSearch: a search's probes meet bursts of load on the machine
// (a run's p99 100 ms higher). Answering from single runs lands below the
// knee; with Repeat 3 the search confirms its boundary on medians and
// lands within the precision of it, whichever runs the bursts hit.
func TestRepeatSearch(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	const knee = 7496
	for _, tc := range []struct {
		name   string
		repeat int
		burst  func(n int) bool
		right  bool // the answer within the precision of the knee
		notMon bool
	}{
		{name: "quiet once", repeat: 1, right: true},
		{name: "quiet x3", repeat: 3, right: true},
		{name: "burst once", repeat: 1, burst: func(n int) bool { return n == 2 || n == 4 }},
		{name: "burst x3", repeat: 3, burst: func(n int) bool { return n == 2 || n == 4 }, right: true},
		{name: "on and off x3", repeat: 3, burst: func(n int) bool { return n >= 3 && n <= 5 || n >= 10 && n <= 11 }, right: true},
		{name: "on and off once", repeat: 1, burst: func(n int) bool { return n >= 3 && n <= 5 || n >= 10 && n <= 11 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: knee, burst: tc.burst}
			res, err := Run(context.Background(), Spec{Base: run.Spec{Concurrency: 4}, Param: MaxRate, Values: Values{Lo: 1000, Hi: 64000, Bounds: true},
				Search: true, SLO: p99, ID: "S", Exec: sv.exec, Repeat: tc.repeat})
			if err != nil {
				t.Fatal(err)
			}
			right := res.Best != nil && res.Best.Value <= knee+4 && res.Best.Value >= knee*(1-2*DefaultPrecision)
			if right != tc.right {
				t.Errorf("answer %+v (knee %g), right %v, want %v; ran %v", res.Best, float64(knee), right, tc.right, sv.ran)
			}
			if tc.repeat == 1 {
				return
			}
			// The boundary's values each have 3 runs, not back to back.
			for _, b := range []*Step{res.Best, res.Miss} {
				if b == nil {
					t.Fatalf("no boundary: %+v", res)
				}
				var at []int
				for _, st := range res.Steps {
					if st.Value == b.Value {
						at = append(at, st.N)
						if st.Rep != len(at) {
							t.Errorf("step %d at %g: rep %d, want %d", st.N, st.Value, st.Rep, len(at))
						}
					}
				}
				if len(at) < 3 || len(at)%2 == 0 {
					t.Errorf("%g ran at steps %v, want 3 runs or more, an odd count", b.Value, at)
				}
				for i := 1; i < len(at); i++ {
					if at[i] == at[i-1]+1 {
						t.Errorf("%g ran back to back at steps %v", b.Value, at)
					}
				}
			}
			if res.NotMonotone != "" || res.Stopped != "" {
				t.Errorf("not monotone %q, stopped %q", res.NotMonotone, res.Stopped)
			}
			if c := res.Conclusion(); !strings.Contains(c, "median of ") {
				t.Errorf("conclusion %q does not say the miss is a median", c)
			}
			if len(res.Steps) > 48 { // a burst early costs a bisection over again
				t.Errorf("%d runs: %v", len(res.Steps), sv.ran)
			}
		})
	}
}

// TestNotMonotone: a value that misses on every run below values that
// meet is said, not answered from as if it were the knee.
func TestNotMonotone(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	for _, tc := range []struct {
		name   string
		search bool
		repeat int
		dip    float64
		want   string
	}{
		{name: "list", repeat: 1, dip: 2000, want: "not monotone: --max-rate 3000 met the SLO above 2000, which missed it"},
		{name: "list x3", repeat: 3, dip: 2000, want: "not monotone: --max-rate 3000 met the SLO in 3 of 3 runs above 2000, which missed it (median of 3 runs)"},
		{name: "list quiet", repeat: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: 1e6, dip: tc.dip}
			vals, _ := ParseValues("--max-rate", "1000:4000:1000", Bound{})
			res, err := Run(context.Background(), Spec{Param: MaxRate, Values: vals, SLO: p99, ID: "S", Exec: sv.exec, Repeat: tc.repeat, KeepGoing: true})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.NotMonotone, tc.want) || (tc.want == "") != (res.NotMonotone == "") {
				t.Errorf("not monotone %q, want %q", res.NotMonotone, tc.want)
			}
			if tc.want != "" && (res.Best == nil || res.Best.Value != 1000 || !strings.Contains(res.Conclusion(), tc.want)) {
				t.Errorf("best %+v, conclusion %q", res.Best, res.Conclusion())
			}
		})
	}
	// A search on a server that slows down during it (another process
	// starts, say): its boundary's re-runs miss where its first runs met.
	sv := &server{knee: 7496}
	sv.burst = func(n int) bool { return n > 8 && sv.ran[n-1] > 3000 }
	res, err := Run(context.Background(), Spec{Param: MaxRate, Values: Values{Lo: 1000, Hi: 64000, Bounds: true}, Search: true, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Every value above the answer missed by its median (those that met
	// once, before the slowdown, missed when re-run): monotone by the
	// medians' verdicts, which are what a value is judged on.
	if res.NotMonotone != "" || res.Best == nil || res.Best.Value > 3000 {
		t.Errorf("a server that slowed down: not monotone %q, best %+v; ran %v\n%s", res.NotMonotone, res.Best, sv.ran, res.Conclusion())
	}
}

// TestRepeatRounds: a list with Repeat runs in rounds and each value is
// judged on its median, with the spread of its runs.
func TestRepeatRounds(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	sv := &server{knee: 1e6}
	sv.burst = func(n int) bool { return n == 2 } // 2000's first run
	vals, _ := ParseValues("--max-rate", "1000:3000:1000", Bound{})
	res, err := Run(context.Background(), Spec{Param: MaxRate, Values: vals, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1000, 2000, 3000, 1000, 2000, 3000, 1000, 2000, 3000}; !reflect.DeepEqual(sv.ran, want) {
		t.Errorf("ran %v, want %v", sv.ran, want)
	}
	if len(res.Points) != 3 {
		t.Fatalf("points %+v", res.Points)
	}
	p := res.Points[1]
	if p.Value != 2000 || !reflect.DeepEqual(p.Runs, []int{2, 5, 8}) || !p.Met || p.MetRuns != 2 || p.P99Min != 1 || p.P99Max != 101 || p.Median.Total.P99 != 1 {
		t.Errorf("2000's point %+v", p)
	}
	if res.Best == nil || res.Best.Value != 3000 || res.Miss != nil || res.Stopped != "" {
		t.Errorf("best %+v miss %+v stopped %q", res.Best, res.Miss, res.Stopped)
	}
	if err := (Spec{Param: MaxRate, Values: vals, Repeat: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "--repeat -1") {
		t.Errorf("repeat -1: %v", err)
	}
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median %g", got)
	}
	if got := Median([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Errorf("median %g", got)
	}
}

// TestSLOOpsAndEfficiency: an operation's latency term reads that
// operation's figures, efficiency the workload's figure, and TPC-C's
// objective keeps a user's bound on a figure it also bounds.
func TestSLOOpsAndEfficiency(t *testing.T) {
	m := Measure{Total: stats.Summary{Count: 100, P90: 1}, Ops: map[string]stats.Summary{"newOrder": {Count: 50, P90: 6000}, "payment": {Count: 50, P90: 100}},
		Figures: map[string]float64{"efficiency": 90}}
	// 5,000 New-Orders: 90% is 95%'s within chance no longer (the
	// interval's high end is 90 x 5140.5/5000 = 92.5%).
	many := Measure{Total: m.Total, Ops: map[string]stats.Summary{"newOrder": {Count: 5000}}, Figures: m.Figures}
	for _, tc := range []struct {
		slo string
		m   Measure
		met bool
		why string
		err string
		// undecided: not judged, neither met nor missed.
		undecided bool
	}{
		{slo: "payment.p90<=5s", m: m, met: true},
		{slo: "newOrder.p90<=5s", m: m, why: "newOrder.p90 6000 ms, want newOrder.p90<=5s"},
		// No Delivery in a short probe: the term the user wrote cannot
		// be judged, nor can the step; another term's miss decides.
		{slo: "delivery.p90<=5s", m: m, undecided: true, why: "delivery.p90<=5s not judged: no delivery operations"},
		{slo: "newOrder.p90<=5s,delivery.p90<=5s", m: m, why: "newOrder.p90 6000 ms, want newOrder.p90<=5s; delivery.p90<=5s not judged: no delivery operations"},
		{slo: "delivery.p90<=5s", m: Measure{}, undecided: true, why: "no delivery operations"},
		{slo: "p99<=5ms,errors<=0", m: Measure{Total: stats.Summary{Errors: 3}}, why: "errors 3, want errors<=0; p99<=5ms not judged: no operations"},
		{slo: "p99<=5ms", m: Measure{Total: stats.Summary{Errors: 3}}, undecided: true, why: "p99<=5ms not judged: no operations"},
		{slo: "efficiency>=85%", m: m, met: true},
		{slo: "efficiency>=95%", m: many, why: "efficiency 90.0%, want efficiency>=95%"},
		// 50 New-Orders: 90% is within chance of 95% (the interval
		// reaches 90 x 65.92/50 = 118.7%): met, and why says so.
		{slo: "efficiency>=95%", m: m, met: true, why: "efficiency 90.0% is below efficiency>=95% within chance: its 95% interval from 50 New-Orders reaches 119%"},
		{slo: "efficiency>=85%,newOrder.p90<=5s", m: m, why: "newOrder.p90 6000 ms, want newOrder.p90<=5s"},
		{slo: "efficiency>=85%", m: Measure{Total: m.Total}, why: "reports no efficiency"},
		// No New-Orders: the efficiency, 0, has no basis: not judged,
		// as newOrder.p90 is not, and so the step is not (payment.p90
		// alone does not judge it).
		{slo: "efficiency>=85%,newOrder.p90<=5s,payment.p90<=5s", m: Measure{Total: m.Total, Ops: map[string]stats.Summary{"payment": {Count: 50, P90: 100}}, Figures: map[string]float64{"efficiency": 0}},
			undecided: true, why: "efficiency>=85% not judged: no newOrder operations; newOrder.p90<=5s not judged: no newOrder operations"},
		{slo: "efficiency>=85%", m: Measure{Total: m.Total, Ops: map[string]stats.Summary{"newOrder": {Count: 0}, "payment": {Count: 50}}, Figures: map[string]float64{"efficiency": 0}},
			undecided: true, why: "efficiency>=85% not judged: no newOrder operations"},
		// A run of no operations at all (no per-operation figures), or
		// of a tpmC of 0: no New-Orders either.
		{slo: "efficiency>=85%", m: Measure{Figures: map[string]float64{"efficiency": 0, "tpmC": 0}}, undecided: true, why: "efficiency>=85% not judged: no newOrder operations"},
		{slo: "efficiency>=85%", m: Measure{Total: m.Total, Figures: map[string]float64{"efficiency": 0, "tpmC": 0}}, undecided: true, why: "efficiency>=85% not judged: no newOrder operations"},
		{slo: "p99.9<=5ms", m: Measure{Total: stats.Summary{Count: 1, P999: 1}}, met: true},
		{slo: "efficiency<=85%", err: "give the least efficiency as a percentage"},
		{slo: "efficiency>=85", err: "give the least efficiency as a percentage"},
		{slo: "newOrder.p90>=5s", err: "bounds latency from below"},
	} {
		slo, err := ParseSLO(tc.slo)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.slo, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.slo, err)
		}
		judged, met, why := slo.Verdict(tc.m)
		if judged == tc.undecided || met != tc.met || !strings.Contains(why, tc.why) {
			t.Errorf("%s: judged %v, met %v (%s), want %v, %v (%s)", tc.slo, judged, met, why, !tc.undecided, tc.met, tc.why)
		}
	}
	// The terms the sweep adds (TPC-C's response times) judge a step
	// without their operations on the others: met, naming them.
	eff, _ := ParseSLO(TPCCEfficiency)
	times, _ := ParseSLO(TPCCResponseTimes)
	noDelivery := Measure{Total: m.Total, Ops: map[string]stats.Summary{"newOrder": {Count: 5000, P90: 100}}, Figures: map[string]float64{"efficiency": 90}}
	if judged, met, why := eff.With(times).Verdict(noDelivery); !judged || !met || !strings.Contains(why, "delivery.p90<=5s not judged: no delivery operations") {
		t.Errorf("TPC-C's SLO without Deliveries: judged %v, met %v (%s)", judged, met, why)
	}
	if judged, met, why := times.With(SLO{}).Verdict(Measure{Total: m.Total, Ops: map[string]stats.Summary{"payment": {Count: 5}}}); judged || met {
		t.Errorf("response times on no operations they bound but one, all given: judged %v, met %v (%s)", judged, met, why)
	}
	added := SLO{}.With(times)
	if judged, met, why := added.Verdict(Measure{Total: m.Total, Ops: map[string]stats.Summary{"other": {Count: 5}}}); judged || met {
		t.Errorf("added terms only, none judged: judged %v, met %v (%s)", judged, met, why)
	}
	user, _ := ParseSLO("efficiency>=80%,newOrder.p90<=2s")
	def, _ := ParseSLO(TPCCSLO)
	if got, want := user.With(def).String(), "efficiency>=80%,newOrder.p90<=2s,payment.p90<=5s,orderStatus.p90<=5s,delivery.p90<=5s,stockLevel.p90<=20s"; got != want {
		t.Errorf("TPC-C's objective with the user's: %s, want %s", got, want)
	}
}

// TestGrid sweeps two settings at once: every value of the second at
// each of the first, in order, each step's spec carrying both; a row
// stops at its first miss (the next row goes on); each row has its own
// answer; Between runs before every step, and its error ends the sweep.
func TestGrid(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	var log []string
	exec := func(ctx context.Context, s run.Spec) (*run.Result, error) {
		log = append(log, fmt.Sprintf("run %g/%d", s.MaxRate, s.Concurrency))
		if s.Flags["max-rate"] != Format(s.MaxRate) || s.Flags["concurrency"] != strconv.Itoa(s.Concurrency) {
			return nil, fmt.Errorf("flags %v", s.Flags)
		}
		r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", len(log)), MaxRate: s.MaxRate, Workers: s.Concurrency}}
		r.Summary.Status = "completed"
		// p99 grows with rate and workers: 1 ms per 1000 ops/s per worker.
		r.Summary.Total = stats.Summary{Count: 1000, Rate: s.MaxRate, P99: s.MaxRate / 1000 * float64(s.Concurrency)}
		return r, nil
	}
	between := func(ctx context.Context) error { log = append(log, "checkpoint"); return nil }
	rates, _ := ParseValues("--max-rate", "1000,2000", Bound{})
	workers, _ := ParseValues("--concurrency", "1,2,4,8", Workers)
	spec := Spec{Param: MaxRate, Values: rates, Param2: Concurrency, Values2: workers, SLO: p99, ID: "G", Exec: exec, Between: between}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"1000/1", "1000/2", "1000/4", "1000/8", "2000/1", "2000/2", "2000/4"} {
		want = append(want, "checkpoint", "run "+p)
	}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("ran %q, want %q", log, want)
	}
	for i, st := range res.Steps {
		var v, w float64
		fmt.Sscanf(want[2*i+1], "run %g/%g", &v, &w)
		if st.N != i+1 || st.Value != v || st.Value2 != w || st.Rep != 1 {
			t.Errorf("step %d: %+v, want %g/%g", i+1, st, v, w)
		}
	}
	if len(res.Rows) != 2 {
		t.Fatalf("rows %+v", res.Rows)
	}
	for i, want := range []struct{ v, best, miss float64 }{{1000, 4, 8}, {2000, 2, 4}} {
		r := res.Rows[i]
		if r.Value != want.v || r.Sweep.Best == nil || r.Sweep.Best.Value != want.best || r.Sweep.Miss == nil || r.Sweep.Miss.Value != want.miss {
			t.Errorf("row %d: %+v, want best %g miss %g at %g", i, r, want.best, want.miss, want.v)
		}
	}
	if res.Best != nil || res.Miss != nil || res.Peak == nil || res.Peak.Value != 2000 || res.Peak.Value2 != 1 {
		t.Errorf("best %+v miss %+v peak %+v", res.Best, res.Miss, res.Peak)
	}
	c := res.Conclusion()
	for _, line := range []string{
		"at --max-rate 1000: highest --concurrency meeting the SLO p99<=5ms: 4 (step 3)",
		"at --max-rate 1000: --concurrency 8 (step 4) missed: p99 8.00 ms, want p99<=5ms",
		"at --max-rate 2000: highest --concurrency meeting the SLO p99<=5ms: 2 (step 6)",
		"at --max-rate 2000, stopped after --concurrency 4 missed the SLO (1 step left; --keep-going runs them)",
	} {
		if !strings.Contains(c, line) {
			t.Errorf("conclusion lacks %q:\n%s", line, c)
		}
	}

	// Between's error ends the sweep before the step runs.
	log = nil
	spec.Between = func(ctx context.Context) error {
		if len(log) == 2 {
			return errors.New("permission denied to checkpoint")
		}
		log = append(log, "checkpoint")
		return nil
	}
	res, err = Run(context.Background(), spec)
	if err == nil || !strings.Contains(err.Error(), "before step 2 (--max-rate 1000, --concurrency 2): permission denied") || len(res.Steps) != 1 {
		t.Errorf("error %v, steps %d", err, len(res.Steps))
	}

	// A grid is not searched, and two different settings make it.
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Param: MaxRate, Values: Values{Lo: 1, Hi: 9, Bounds: true}, Param2: Concurrency, Values2: workers, Search: true, SLO: p99}, "--search varies one flag"},
		{Spec{Param: Concurrency, Values: workers, Param2: Concurrency, Values2: workers}, "--concurrency given twice"},
		{Spec{Param: MaxRate, Values: rates, Param2: Concurrency, Values2: Values{Lo: 1, Hi: 8, Bounds: true}}, "--concurrency 1:8 has no step"},
	} {
		if err := tc.spec.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// TestRepeatSearchLowestInterleaved: a search with --repeat whose range's
// lowest value misses re-runs it, never twice in a row (the next probe
// between), and answers "search a lower range" only on its median; a
// burst on its first run does not end the search.
func TestRepeatSearchLowestInterleaved(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	for _, tc := range []struct {
		name   string
		knee   float64
		burst  func(n int) bool
		lower  bool // the search ends "search a lower range"
		lowRun int  // the lowest value's runs
		only   bool // nothing but the lowest value ran
	}{
		{name: "lowest misses", knee: 500, lower: true, lowRun: 3, only: true},
		{name: "burst on the first", knee: 7496, burst: func(n int) bool { return n == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: tc.knee, burst: tc.burst}
			res, err := Run(context.Background(), Spec{Base: run.Spec{Concurrency: 4}, Param: MaxRate, Values: Values{Lo: 1000, Hi: 64000, Bounds: true},
				Search: true, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(sv.ran); i++ {
				// The lowest value's runs alone are back to back: if its
				// median misses there is nothing to find.
				if sv.ran[i] == sv.ran[i-1] && sv.ran[i] != 1000 {
					t.Errorf("%g ran back to back at steps %d and %d: %v", sv.ran[i], i, i+1, sv.ran)
				}
			}
			if tc.only && slices.ContainsFunc(sv.ran, func(v float64) bool { return v != 1000 }) {
				t.Errorf("ran %v: a probe above the lowest value, whose median missed", sv.ran)
			}
			lower := strings.Contains(res.Stopped, "search a lower range")
			if lower != tc.lower {
				t.Errorf("stopped %q, want a lower range %v; ran %v", res.Stopped, tc.lower, sv.ran)
			}
			if tc.lower && slices.Index(sv.ran, 1000) >= 0 && len(slices.DeleteFunc(slices.Clone(sv.ran), func(v float64) bool { return v != 1000 })) != tc.lowRun {
				t.Errorf("the lowest value ran %v, want %d runs", sv.ran, tc.lowRun)
			}
			if !tc.lower && (res.Best == nil || res.Best.Value > tc.knee+4 || res.Best.Value < tc.knee*(1-2*DefaultPrecision)) {
				t.Errorf("answer %+v, knee %g; ran %v", res.Best, tc.knee, sv.ran)
			}
		})
	}
}

// TestSearchEnds: a search that misses at the range's lowest value says
// "search a lower range" only when there is one (not at 1 worker), and
// one whose every probe met says Top (TPC-C's: every warehouse loaded)
// instead of "search a higher range" when set.
func TestSearchEnds(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	for _, tc := range []struct {
		name      string
		lo, hi    float64
		knee      float64
		top       string
		want, not string
	}{
		{"lowest of 1 worker", 1, 8, -10, "", "there is no lower one", "search a lower range"},
		{"lowest of 2 workers", 2, 8, -10, "", "search a lower range", "no lower one"},
		{"all met, a higher range", 1, 8, 100, "", "search a higher range", ""},
		{"all met, the top", 1, 8, 100, "that is every warehouse loaded", "met the SLO: that is every warehouse loaded", "search a higher range"},
		// --conns up to --concurrency: a higher range is refused, so the
		// advice is to raise both (chk34f F5).
		{"conns all met at the workers", 1, 8, 100, "", "met the SLO: that is one connection per worker (--concurrency 8): raise --concurrency with the --conns range", "search a higher range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: tc.knee}
			param, base := Concurrency, run.Spec{}
			var build func(v, w float64) (run.Spec, error)
			if strings.HasPrefix(tc.name, "conns") {
				param, base = Conns, run.Spec{Concurrency: 8}
				build = func(v, w float64) (run.Spec, error) {
					s := run.Spec{Concurrency: 8, Flags: map[string]string{"concurrency": "8"}}
					s.Conn.Conns = int(v)
					return s, nil
				}
			}
			res, err := Run(context.Background(), Spec{Param: param, Values: Values{Lo: tc.lo, Hi: tc.hi, Bounds: true}, Base: base, Build: build,
				Search: true, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 1, Top: tc.top})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Stopped, tc.want) || tc.not != "" && strings.Contains(res.Stopped, tc.not) {
				t.Errorf("stopped %q, want %q and not %q; ran %v", res.Stopped, tc.want, tc.not, sv.ran)
			}
		})
	}
}

// TestSearchRefusalSizes: the refusal of a search over a flag that is
// not a load suggests a list in the flag's own terms: sizes with units
// for the size limits, not 1,2,4 (bytes).
func TestSearchRefusalSizes(t *testing.T) {
	slo, _ := ParseSLO("p99<=5ms")
	for _, c := range []struct {
		p    Param
		want string
	}{
		{"memory", "sweep a list (--memory 256M,512M,1G)"},
		{"io-write-bps", "sweep a list (--io-write-bps 1M,5M,20M)"},
		{"cpus", "sweep a list (--cpus 1,2,4)"},
	} {
		err := Spec{Param: c.p, Values: Values{Lo: 1 << 20, Hi: 1 << 30, Bounds: true}, Search: true, SLO: slo, Exec: (&server{}).exec,
			Build: func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }}.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.p, err, c.want)
		}
	}
}

// TestConclusionFix34c: the conclusion says what met when no value below
// the lowest missed did (not "no step met"), cites a value judged on
// several runs by its runs' tally (not one run, which may have missed),
// and "not monotone" is judged on the medians' verdicts.
func TestConclusionFix34c(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	// 50 misses, 100 and 150 meet: a list with --keep-going.
	sv := &server{knee: 1e6, dip: 50}
	res, err := Run(context.Background(), Spec{Param: MaxRate, Values: Values{List: []float64{50, 100, 150}}, SLO: p99, ID: "S", Exec: sv.exec, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Conclusion()
	if strings.Contains(c, "no step met") || !strings.Contains(c, "--max-rate 150 (step 3) met the SLO") || !strings.Contains(c, "not monotone") || !strings.Contains(c, "there is no answer") {
		t.Errorf("50 missed, 100 and 150 met:\n%s", c)
	}
	// --repeat 3: 1040's second run misses (a burst), its median meets;
	// the conclusion cites its runs' tally, not the run that missed.
	sv = &server{knee: 1040}
	sv.burst = func(n int) bool { return n == 5 }
	res, err = Run(context.Background(), Spec{Param: MaxRate, Values: Values{List: []float64{1000, 1040, 2000}}, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	c = res.Conclusion()
	if !strings.Contains(c, ": 1040 (steps 2, 5, 8: met in 2 of 3, judged on their median)") || strings.Contains(c, "(step 2)") {
		t.Errorf("1040 met by its median:\n%s", c)
	}
	// 104 met in 1 of 3 runs above 50 (which always misses), its
	// median missed: not "not monotone".
	sv = &server{knee: 100, dip: 50}
	sv.burst = func(n int) bool { return n == 4 || n == 6 } // 104's 2nd and 3rd runs
	res, err = Run(context.Background(), Spec{Param: MaxRate, Values: Values{List: []float64{50, 104}}, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Points[1]; p.MetRuns != 1 || p.Met {
		t.Fatalf("104: met in %d runs, median met %v; ran %v", p.MetRuns, p.Met, sv.ran)
	}
	if res.NotMonotone != "" || strings.Contains(res.Conclusion(), "not monotone") {
		t.Errorf("104 met in 1 of 3 runs, its median missed: %q\n%s", res.NotMonotone, res.Conclusion())
	}
}

// TestSearchFix34c: a search over workers at a fixed rate is refused
// (more workers are not a heavier load there); a search whose every
// probe meets tries the range's top once the midpoint is within a factor
// of 2 of it, rather than creeping up; a search over a proportion is
// refused suggesting proportions.
func TestSearchFix34c(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	err := Spec{Base: run.Spec{MaxRate: 100}, Param: Concurrency, Values: Values{Lo: 1, Hi: 32, Bounds: true}, Search: true, SLO: p99}.Validate()
	if err == nil || !strings.Contains(err.Error(), "assumes a higher value is a heavier load") || !strings.Contains(err.Error(), "drop --max-rate") || !strings.Contains(err.Error(), "search --max-rate") || strings.Contains(err.Error(), "\n") {
		t.Errorf("--concurrency search at --max-rate 100: %v", err)
	}
	sv := &server{knee: 1e6}
	res, err := Run(context.Background(), Spec{Param: Concurrency, Values: Values{Lo: 1, Hi: 32, Bounds: true}, Search: true, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.ran) > 5 || res.Best == nil || res.Best.Value != 32 {
		t.Errorf("every probe met over 1:32: ran %v, best %+v", sv.ran, res.Best)
	}
	// Each step's run records the SLO it is judged under (run.json's
	// flags.slo): the terms given, to which the dashboard adds what the
	// sweep added (the rate floor here), marked so.
	var recorded []string
	slo, _ := ParseSLO("p99<=5ms")
	_, err = Run(context.Background(), Spec{Param: MaxRate, Values: Values{List: []float64{100}}, SLO: slo.WithRateFloor(), ID: "S",
		Exec: func(ctx context.Context, s run.Spec) (*run.Result, error) {
			recorded = append(recorded, s.Flags["slo"])
			return (&server{knee: 1e6}).exec(ctx, s)
		}})
	if err != nil || !reflect.DeepEqual(recorded, []string{"p99<=5ms"}) {
		t.Errorf("the steps' flags.slo %q (%v), want the SLO judged", recorded, err)
	}
	for _, p := range []Param{"read-proportion", "p readproportion"} {
		err := Spec{Param: p, Values: Values{Lo: 0.5, Hi: 1, Bounds: true}, Search: true, SLO: p99, Exec: sv.exec,
			Build: func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }}.Validate()
		if err == nil || !strings.Contains(err.Error(), p.Flag()+map[bool]string{true: "=", false: " "}[p != "read-proportion"]+"0.5,0.9,0.95)") || strings.Contains(err.Error(), "1,2,4") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestConnsAboveWorkers: a sweep or search whose --conns go above
// --concurrency is refused before any step, in one line naming both and
// what to do (it failed on c2f33ed0: a search answered --conns 32 at 8
// workers, a value that never ran); up to --concurrency it runs.
func TestConnsAboveWorkers(t *testing.T) {
	p99, _ := ParseSLO("p99<=60ms")
	build := func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }
	for _, tc := range []struct {
		name string
		spec Spec
		want string // "" for no refusal
	}{
		{"search above", Spec{Base: run.Spec{Concurrency: 8}, Param: Conns, Values: Values{Lo: 1, Hi: 32, Bounds: true}, Search: true, SLO: p99, Build: build},
			"--conns up to 32 with --concurrency 8: a run opens at most one connection per worker, so above 8 more --conns is not a heavier load (and never runs): raise --concurrency to at least 32, or end the --conns range at 8"},
		{"list above", Spec{Base: run.Spec{Concurrency: 4}, Param: Conns, Values: Values{List: []float64{2, 16}, Lo: 2, Hi: 16}, Build: build},
			"raise --concurrency to at least 16, or give --conns values up to 4"},
		{"grid, conns second", Spec{Base: run.Spec{Concurrency: 4}, Param: "cpus", Values: Values{List: []float64{1, 2}, Lo: 1, Hi: 2}, Param2: Conns, Values2: Values{List: []float64{4, 8}, Lo: 4, Hi: 8}, Build: build},
			"--conns up to 8 with --concurrency 4"},
		{"grid of conns by concurrency", Spec{Base: run.Spec{Concurrency: 16}, Param: Conns, Values: Values{List: []float64{4, 16}, Lo: 4, Hi: 16}, Param2: Concurrency, Values2: Values{List: []float64{4, 16}, Lo: 4, Hi: 16}, Build: build},
			"--conns 16 with --concurrency 4 is a step of the grid"},
		{"grid of concurrency by conns", Spec{Base: run.Spec{Concurrency: 16}, Param: Concurrency, Values: Values{List: []float64{4, 16}, Lo: 4, Hi: 16}, Param2: Conns, Values2: Values{List: []float64{2, 8}, Lo: 2, Hi: 8}, Build: build},
			"--conns 8 with --concurrency 4 is a step of the grid"},
		{"grid within the fewest workers", Spec{Base: run.Spec{Concurrency: 16}, Param: Conns, Values: Values{List: []float64{2, 4}, Lo: 2, Hi: 4}, Param2: Concurrency, Values2: Values{List: []float64{4, 16}, Lo: 4, Hi: 16}, Build: build}, ""},
		{"search to concurrency", Spec{Base: run.Spec{Concurrency: 8}, Param: Conns, Values: Values{Lo: 1, Hi: 8, Bounds: true}, Search: true, SLO: p99, Build: build}, ""},
		{"list to concurrency", Spec{Base: run.Spec{Concurrency: 16}, Param: Conns, Values: Values{List: []float64{2, 16}, Lo: 2, Hi: 16}, Build: build}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("got %v, want one line with %q", err, tc.want)
			}
		})
	}
	// Run refuses it too, before any step.
	ran := 0
	_, err := Run(context.Background(), Spec{Base: run.Spec{Concurrency: 8}, Param: Conns, Values: Values{Lo: 1, Hi: 32, Bounds: true}, Search: true, SLO: p99, Build: build, Repeat: 1,
		Exec: func(ctx context.Context, s run.Spec) (*run.Result, error) { ran++; return nil, errors.New("ran") }})
	if err == nil || ran != 0 {
		t.Errorf("Run: %v after %d steps, want a refusal before any", err, ran)
	}
}

// TestParseValuesProperty: a property's values are named as given
// (-p readproportion=0.5,x), not with a stray space and quotes (it failed
// on c2f33ed0: `-p readproportion= "0.5,x"`); a flag's keep theirs.
func TestParseValuesProperty(t *testing.T) {
	for _, tc := range []struct {
		flag, in, want string
	}{
		{"-p readproportion=", "0.5,x", `-p readproportion=0.5,x: "x" is not a number`},
		{"-p recordcount=", "10:5", "-p recordcount=10:5: the range's end 5 is not above its start 10"},
		{"--conns", "1,x", `--conns "1,x": "x" is not a number`},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			_, err := ParseValues(tc.flag, tc.in, Bound{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestListTop: a list whose every value met up to Spec.Top's bound (every
// tenant or warehouse loaded) says Top, not "the limit is higher", which
// no value can test (chk34f nit: --active 2,4 with --tenants 4).
func TestListTop(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	const top = "that is every tenant (--tenants 4)"
	for _, tc := range []struct {
		top, want, not string
	}{
		{top, "every step met it: " + top, "the limit is higher"},
		{"", "every step met it: the limit is higher", top},
	} {
		sv := &server{knee: 100}
		res, err := Run(context.Background(), Spec{Param: Concurrency, Values: Values{List: []float64{2, 4}, Lo: 2, Hi: 4},
			SLO: p99, ID: "S", Exec: sv.exec, Repeat: 1, Top: tc.top})
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Conclusion(); !strings.Contains(c, tc.want) || strings.Contains(c, tc.not) {
			t.Errorf("top %q: conclusion %q, want %q", tc.top, c, tc.want)
		}
	}
}
