package crmath

import (
	"math"
	"testing"
)

var sink float64

func BenchmarkExp(b *testing.B) {
	for i := range b.N {
		sink += Exp(float64(i%1000) * 0.01)
	}
}

func BenchmarkMathExp(b *testing.B) {
	for i := range b.N {
		sink += math.Exp(float64(i%1000) * 0.01)
	}
}

func BenchmarkLog(b *testing.B) {
	for i := range b.N {
		sink += Log(float64(i%1000) + 0.5)
	}
}

func BenchmarkPow(b *testing.B) {
	for i := range b.N {
		sink += Pow(float64(i%1000)+0.5, -1.1)
	}
}

func BenchmarkMathPow(b *testing.B) {
	for i := range b.N {
		sink += math.Pow(float64(i%1000)+0.5, -1.1)
	}
}

func BenchmarkMathLog(b *testing.B) {
	for i := range b.N {
		sink += math.Log(float64(i%1000) + 0.5)
	}
}
