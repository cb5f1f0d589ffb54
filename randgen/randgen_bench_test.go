package randgen_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

var (
	sinkInt   int64
	sinkFloat float64
)

func benchGen(b *testing.B, g randgen.IntGenerator) {
	r := randgen.New(1, 2)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += g.Next(r)
	}
	sinkInt = s
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		sinkInt += int64(randgen.New(1, i).Uint64())
	}
}

func BenchmarkRandUint64(b *testing.B) {
	r := randgen.New(1, 2)
	var s uint64
	for b.Loop() {
		s += r.Uint64()
	}
	sinkInt = int64(s)
}

func BenchmarkFNV64(b *testing.B) {
	var s, i int64
	for b.Loop() {
		i++
		s += randgen.FNV64(i)
	}
	sinkInt = s
}

func BenchmarkUniform(b *testing.B) { benchGen(b, randgen.NewUniform(0, 999_999)) }

func BenchmarkZipfian(b *testing.B) {
	benchGen(b, randgen.NewZipfian(0, 999_999, randgen.ZipfianConstant))
}

// BenchmarkZipfianConcrete calls Next on the concrete type (no interface
// dispatch), as a workload holding a *Zipfian would.
func BenchmarkZipfianConcrete(b *testing.B) {
	z := randgen.NewZipfian(0, 999_999, randgen.ZipfianConstant)
	r := randgen.New(1, 2)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += z.Next(r)
	}
	sinkInt = s
}

func BenchmarkScrambledZipfian(b *testing.B) {
	benchGen(b, randgen.NewScrambledZipfian(0, 999_999, randgen.ZipfianConstant))
}

func BenchmarkScrambledZipfianConcrete(b *testing.B) {
	z := randgen.NewScrambledZipfian(0, 999_999, randgen.ZipfianConstant)
	r := randgen.New(1, 2)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += z.Next(r)
	}
	sinkInt = s
}

func BenchmarkSkewedLatest(b *testing.B) {
	c := randgen.NewAcknowledgedCounter(0)
	for range 1_000_000 {
		c.Acknowledge(c.Next())
	}
	benchGen(b, randgen.NewSkewedLatest(c))
}

// BenchmarkSkewedLatestGrowing inserts one key every 20 draws (YCSB
// workload D's 5% inserts), so the Zipfian's zeta keeps being extended.
func BenchmarkSkewedLatestGrowing(b *testing.B) {
	c := randgen.NewAcknowledgedCounter(0)
	for range 1_000_000 {
		c.Acknowledge(c.Next())
	}
	g := randgen.NewSkewedLatest(c)
	r := randgen.New(1, 2)
	b.ReportAllocs()
	var s int64
	i := 0
	for b.Loop() {
		if i++; i%20 == 0 {
			c.Acknowledge(c.Next())
		}
		s += g.Next(r)
	}
	sinkInt = s
}

func BenchmarkHotspot(b *testing.B) { benchGen(b, randgen.NewHotspot(0, 999_999, 0.2, 0.8)) }

func BenchmarkExponential(b *testing.B) { benchGen(b, randgen.NewExponential(95, 857_142)) }

func BenchmarkSysbench(b *testing.B) {
	for _, kind := range randgen.SysbenchKinds() {
		b.Run(kind, func(b *testing.B) {
			g, err := randgen.NewSysbench(kind, 1, 10_000_000, randgen.DefaultSysbenchParams())
			if err != nil {
				b.Fatal(err)
			}
			benchGen(b, g)
		})
	}
}

func BenchmarkNURand(b *testing.B) {
	r := randgen.New(1, 2)
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		s += randgen.NURand(r, 8191, 1234, 1, 100_000)
	}
	sinkInt = s
}

func BenchmarkAcknowledgedCounter(b *testing.B) {
	c := randgen.NewAcknowledgedCounter(0)
	b.ReportAllocs()
	for b.Loop() {
		c.Acknowledge(c.Next())
	}
	sinkInt = c.Last()
}

func BenchmarkAcknowledgedCounterParallel(b *testing.B) {
	c := randgen.NewAcknowledgedCounter(0)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Acknowledge(c.Next())
		}
	})
	sinkInt = c.Last()
}

func benchFill(b *testing.B, fill func(r *rand.Rand, buf []byte)) {
	r := randgen.New(1, 2)
	buf := make([]byte, 100)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		fill(r, buf)
	}
}

func BenchmarkRandASCII100(b *testing.B)  { benchFill(b, randgen.RandASCII) }
func BenchmarkRandAlnum100(b *testing.B)  { benchFill(b, randgen.RandAlnum) }
func BenchmarkRandDigits100(b *testing.B) { benchFill(b, randgen.RandDigits) }
