package expr_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

func benchEval(b *testing.B, src string) {
	x, err := expr.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	var rs prng.State
	rs.Seed(1)
	e := &env{vars: map[string]expr.Value{"aid": expr.IntValue(123456), "scale": expr.IntValue(10)}, rs: &rs}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for i := 0; i < b.N; i++ {
		if _, err := x.Eval(e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time (user and system): on a machine shared
// with other work, ns/op (wall time) counts the time the benchmark waits
// for a CPU, cpu-ns/op does not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEvalRandom is pgbench's most common \set: a uniform draw.
func BenchmarkEvalRandom(b *testing.B) { benchEval(b, "random(1, 100000)") }

// BenchmarkEvalArithmetic is five operators over a variable and constants.
func BenchmarkEvalArithmetic(b *testing.B) { benchEval(b, "(:aid * 3 + 7) % 100000 - :scale / 2") }

// BenchmarkEvalTPCB is pgbench's tpcb-like \set for the account.
func BenchmarkEvalTPCB(b *testing.B) { benchEval(b, "random(1, 100000 * :scale)") }

// BenchmarkParse is parsing one \set expression (done once per script).
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := expr.Parse("random_zipfian(1, 100000 * :scale, 1.07) + permute(:aid, 1000)"); err != nil {
			b.Fatal(err)
		}
	}
}
