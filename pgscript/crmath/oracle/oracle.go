// Package oracle computes exp, log and pow in 320-bit floats and rounds
// them to the nearest double: the truth that crmath's tests, and the
// comparison of pgbench's values with stampede's, measure against. It is
// slow (tens of microseconds a value) and only for tests.
package oracle

import (
	"math"
	"math/big"
)

// prec is the precision of the oracle's big.Floats: far beyond the
// double-doubles', so that its value rounded to a double is the correctly
// rounded result.
const prec = 320

// bigExp returns e^x to about prec bits: x/2^20's series, squared 20
// times.
func bigExp(x *big.Float) *big.Float {
	y := new(big.Float).SetPrec(prec).SetMantExp(x, -20)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 60; n++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
	}
	for range 20 {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigLog returns log(x) to about prec bits for x > 0: Halley's iteration
// y += 2 (x - e^y) / (x + e^y) from the double log, which triples the
// correct bits each time.
func bigLog(x *big.Float) *big.Float {
	// The first guess from x's mantissa and exponent: Go's math.Log is
	// wrong for subnormals on amd64 (math.Log(5e-324) is -709.09, not
	// -744.44).
	mant := new(big.Float)
	e := x.MantExp(mant)
	m, _ := mant.Float64()
	y := new(big.Float).SetPrec(prec).SetFloat64(math.Log(m) + float64(e)*math.Ln2)
	for range 4 {
		e := bigExp(y)
		num := new(big.Float).SetPrec(prec).Sub(x, e)
		den := new(big.Float).SetPrec(prec).Add(x, e)
		num.Quo(num, den)
		y.Add(y, num.Mul(num, big.NewFloat(2)))
	}
	return y
}

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(x) }

// nearest returns v rounded to the nearest double (ties to even,
// subnormals included).
func nearest(v *big.Float) float64 {
	f, _ := v.Float64()
	return f
}

// Eval returns the correctly rounded value of the function named fn
// ("exp" or "log" of x, else "pow" of x and y), for finite arguments
// whose result is finite or zero.
func Eval(fn string, x, y float64) float64 {
	switch fn {
	case "exp":
		return nearest(bigExp(bigF(x)))
	case "log":
		return nearest(bigLog(bigF(x)))
	}
	v := bigExp(new(big.Float).SetPrec(prec).Mul(bigF(y), bigLog(bigF(math.Abs(x)))))
	if x < 0 && math.Mod(y, 2) != 0 {
		v.Neg(v)
	}
	return nearest(v)
}
