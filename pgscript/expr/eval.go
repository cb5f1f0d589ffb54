package expr

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"

	"github.com/stampede-bench/stampede/pgscript/crmath"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

// Env is what an expression reads while it is evaluated: the client's
// variables and its random state.
type Env interface {
	// Var returns a variable's value; false when it is unset.
	Var(name string) (Value, bool)
	// Rand returns the client's random state (pgbench's cs_func_rs).
	Rand() *prng.State
}

// DebugEnv is an Env that receives what debug() prints. pgbench writes
// "debug(script=N,command=M): " and the value's DebugString to standard
// error; an Env that knows the script and command numbers implements Debug
// to do the same. Without it, debug() writes "debug: " and the value to
// standard error.
type DebugEnv interface {
	Env
	Debug(v Value)
}

// CheckedEnv is an Env whose variables may hold text that is not a value
// (pgbench's -D, \gset and \aset store text, converted when an expression
// reads it). When the Env implements it, Eval reads variables with
// LookupVar, and a conversion error (ParseVariable's, such as
// `malformed variable "x" value: "o"`) is the evaluation's error.
type CheckedEnv interface {
	Env
	LookupVar(name string) (v Value, ok bool, err error)
}

type function uint8

const (
	fnConst function = iota
	fnVar
	fnAdd
	fnSub
	fnMul
	fnDiv
	fnMod
	fnAbs
	fnLeast
	fnGreatest
	fnDebug
	fnPi
	fnSqrt
	fnLn
	fnExp
	fnInt
	fnDouble
	fnRandom
	fnRandomGaussian
	fnRandomExponential
	fnRandomZipfian
	fnPow
	fnAnd
	fnOr
	fnNot
	fnBitAnd
	fnBitOr
	fnBitXor
	fnLShift
	fnRShift
	fnEQ
	fnNE
	fnLE
	fnLT
	fnIs
	fnCase
	fnHashMurmur2
	fnHashFnv1a
	fnPermute
)

// Special argument counts, as exprparse.y's PGBENCH_NARGS_*.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsHash     = -3 // one, and an optional seed
	nargsPermute  = -4 // two, and an optional seed
)

type funcDef struct {
	fn    function
	nargs int
}

// functions are the names \set expressions may call (case-insensitive).
// arity says how many arguments the function takes ("2 arguments").
func (d funcDef) arity() string {
	switch d.nargs {
	case nargsVariable:
		return "one argument or more"
	case nargsHash:
		return "1 argument and an optional seed"
	case nargsPermute:
		return "2 arguments and an optional seed"
	case 1:
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", d.nargs)
}

var functions = map[string]funcDef{
	"mod":                {fnMod, 2},
	"abs":                {fnAbs, 1},
	"least":              {fnLeast, nargsVariable},
	"greatest":           {fnGreatest, nargsVariable},
	"debug":              {fnDebug, 1},
	"pi":                 {fnPi, 0},
	"sqrt":               {fnSqrt, 1},
	"ln":                 {fnLn, 1},
	"exp":                {fnExp, 1},
	"int":                {fnInt, 1},
	"double":             {fnDouble, 1},
	"random":             {fnRandom, 2},
	"random_gaussian":    {fnRandomGaussian, 3},
	"random_exponential": {fnRandomExponential, 3},
	"random_zipfian":     {fnRandomZipfian, 3},
	"pow":                {fnPow, 2},
	"power":              {fnPow, 2},
	"hash":               {fnHashMurmur2, nargsHash},
	"hash_murmur2":       {fnHashMurmur2, nargsHash},
	"hash_fnv1a":         {fnHashFnv1a, nargsHash},
	"permute":            {fnPermute, nargsPermute},
}

// node is a constant, a variable reference or a function call (operators
// are functions, as in pgbench).
type node struct {
	fn   function
	val  Value  // fnConst
	name string // fnVar
	args []*node
}

func constant(v Value) *node { return &node{fn: fnConst, val: v} }

func call(fn function, args ...*node) *node { return &node{fn: fn, args: args} }

// maxArgs is pgbench's MAX_FARGS: a function evaluated eagerly takes at
// most this many arguments (checked when it runs).
const maxArgs = 16

// Limits of the distributions' parameters (pgbench's MIN_GAUSSIAN_PARAM,
// MIN_ZIPFIAN_PARAM, MAX_ZIPFIAN_PARAM).
const (
	minGaussianParam = 2.0
	minZipfianParam  = 1.001
	maxZipfianParam  = 1000.0
)

// Eval evaluates the expression for a client. Its errors are pgbench's
// runtime errors, one line each ("division by zero", "bigint add out of
// range", "undefined variable \"x\"", "random range is too large", ...).
func (e *Expr) Eval(env Env) (Value, error) {
	ev := evaluator{env: env}
	ev.checked, _ = env.(CheckedEnv)
	return ev.eval(e.root)
}

// evaluator is an Eval's environment, its optional interface resolved once.
type evaluator struct {
	env     Env
	checked CheckedEnv
}

func (ev *evaluator) eval(n *node) (Value, error) {
	switch n.fn {
	case fnConst:
		return n.val, nil
	case fnVar:
		var v Value
		var ok bool
		if ev.checked != nil {
			var err error
			if v, ok, err = ev.checked.LookupVar(n.name); err != nil {
				return Value{}, err
			}
		} else {
			v, ok = ev.env.Var(n.name)
		}
		if !ok {
			return Value{}, fmt.Errorf("undefined variable %q", n.name)
		}
		return v, nil
	case fnAnd, fnOr:
		return ev.andOr(n)
	case fnCase:
		return ev.caseWhen(n)
	}
	if len(n.args) > maxArgs {
		// pgbench evaluates the first 16 before it notices.
		for _, a := range n.args[:maxArgs] {
			if _, err := ev.eval(a); err != nil {
				return Value{}, err
			}
		}
		return Value{}, fmt.Errorf("too many function arguments, maximum is %d", maxArgs)
	}
	if len(n.args) == 2 && n.fn >= fnAdd && n.fn <= fnMod {
		// The common case, integer arithmetic, without the general path.
		a, err := ev.eval(n.args[0])
		if err != nil {
			return Value{}, err
		}
		b, err := ev.eval(n.args[1])
		if err != nil {
			return Value{}, err
		}
		if a.Kind == Null || b.Kind == Null {
			return NullValue(), nil
		}
		return arith(n.fn, a, b)
	}
	// Most functions take at most three arguments: keep them on the stack.
	var buf [3]Value
	var args []Value
	if len(n.args) <= len(buf) {
		args = buf[:len(n.args)]
	} else {
		args = make([]Value, len(n.args))
	}
	hasNull := false
	for i, a := range n.args {
		v, err := ev.eval(a)
		if err != nil {
			return Value{}, err
		}
		args[i] = v
		hasNull = hasNull || v.Kind == Null
	}
	if hasNull && n.fn != fnIs && n.fn != fnDebug {
		return NullValue(), nil
	}
	return apply(n.fn, args, ev.env)
}

func (ev *evaluator) andOr(n *node) (Value, error) {
	a, err := ev.eval(n.args[0])
	if err != nil {
		return Value{}, err
	}
	if a.Kind == Null {
		return NullValue(), nil
	}
	b, err := toBool(a)
	if err != nil {
		return Value{}, err
	}
	if n.fn == fnAnd && !b || n.fn == fnOr && b {
		return BoolValue(b), nil
	}
	a, err = ev.eval(n.args[1])
	if err != nil {
		return Value{}, err
	}
	if a.Kind == Null {
		return NullValue(), nil
	}
	b, err = toBool(a)
	if err != nil {
		return Value{}, err
	}
	return BoolValue(b), nil
}

// caseWhen evaluates CASE's conditions in turn (a condition is true when it
// is a true boolean or a non-zero number; NULL is false) and the branch of
// the first true one, else the last argument.
func (ev *evaluator) caseWhen(n *node) (Value, error) {
	args := n.args
	for len(args) > 1 {
		c, err := ev.eval(args[0])
		if err != nil {
			return Value{}, err
		}
		if truth(c) {
			return ev.eval(args[1])
		}
		args = args[2:]
	}
	return ev.eval(args[0])
}

// Truth is how \if and \elif (and CASE WHEN) read a value, as pgbench's
// valueTruth: a boolean is itself, a number is true when it is not zero,
// NULL is false.
func (v Value) Truth() bool { return truth(v) }

func truth(v Value) bool {
	switch v.Kind {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

func toBool(v Value) (bool, error) {
	if v.Kind == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.Kind)
}

// toInt is pgbench's coerceToInt: doubles are rounded half to even and
// must fit in a bigint.
func toInt(v Value) (int64, error) {
	switch v.Kind {
	case Int:
		return v.I, nil
	case Double:
		d := math.RoundToEven(v.F)
		if math.IsNaN(d) || !(d >= math.MinInt64 && d < -float64(math.MinInt64)) {
			return 0, fmt.Errorf("double to int overflow for %s", formatF(d))
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.Kind)
}

func toDouble(v Value) (float64, error) {
	switch v.Kind {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.Kind)
}

var (
	errDivZero    = errors.New("division by zero")
	errAddRange   = errors.New("bigint add out of range")
	errSubRange   = errors.New("bigint sub out of range")
	errMulRange   = errors.New("bigint mul out of range")
	errDivRange   = errors.New("bigint div out of range")
	errEmptyRange = errors.New("empty range given to random")
	errBigRange   = errors.New("random range is too large")
	errPermSize   = errors.New("permute size parameter must be greater than zero")
)

func apply(fn function, args []Value, env Env) (Value, error) {
	if int(fn) < len(numeric) {
		if f := &numeric[fn]; f.ints != nil || f.doubles != nil {
			return f.call(args)
		}
	}
	switch fn {
	case fnAdd, fnSub, fnMul, fnDiv, fnMod, fnEQ, fnNE, fnLE, fnLT:
		return arith(fn, args[0], args[1])
	case fnNot:
		b, err := toBool(args[0])
		if err != nil {
			return Value{}, err
		}
		return BoolValue(!b), nil
	case fnPi:
		return DoubleValue(math.Pi), nil
	case fnAbs:
		switch a := args[0]; a.Kind {
		case Int:
			if a.I < 0 {
				return IntValue(-a.I), nil
			}
			return a, nil
		case Double:
			return DoubleValue(math.Abs(a.F)), nil
		default:
			// pgbench reads a boolean's storage as a double: true is the
			// smallest subnormal, false is zero.
			if a.B {
				return DoubleValue(math.Float64frombits(1)), nil
			}
			return DoubleValue(0), nil
		}
	case fnDebug:
		if d, ok := env.(DebugEnv); ok {
			d.Debug(args[0])
		} else {
			fmt.Fprintf(os.Stderr, "debug: %s\n", args[0].DebugString())
		}
		return args[0], nil
	case fnLeast, fnGreatest:
		return extremum(fn, args)
	case fnRandom, fnRandomGaussian, fnRandomExponential, fnRandomZipfian:
		return random(fn, args, env)
	case fnIs:
		a, b := args[0], args[1]
		return BoolValue(a.Kind == b.Kind && (a.Kind != Bool || a.B == b.B)), nil
	}
	return Value{}, fmt.Errorf("internal error: unknown function %d", fn)
}

// numericFunc is a function of numbers alone, of at most three arguments:
// they are converted, in order, to integers (toInt: ints) or to doubles
// (toDouble: doubles), the first that does not convert being the call's
// error, as pgbench's evalStandardFunc coerces them; the arguments a call
// does not have are 0.
type numericFunc struct {
	ints    func(a, b, c int64) (Value, error)
	doubles func(a, b, c float64) Value
}

// numeric holds the numericFuncs by function; the other functions (the
// overloaded arithmetic, abs, least and greatest, the random draws, the
// logic) are apply's own cases.
var numeric = [...]numericFunc{
	fnBitAnd: {ints: func(a, b, _ int64) (Value, error) { return IntValue(a & b), nil }},
	fnBitOr:  {ints: func(a, b, _ int64) (Value, error) { return IntValue(a | b), nil }},
	fnBitXor: {ints: func(a, b, _ int64) (Value, error) { return IntValue(a ^ b), nil }},
	// C's shift by the count in a register: x86-64 uses its low six
	// bits, which is what pgbench computes.
	fnLShift: {ints: func(a, b, _ int64) (Value, error) { return IntValue(a << (uint64(b) & 63)), nil }},
	fnRShift: {ints: func(a, b, _ int64) (Value, error) { return IntValue(a >> (uint64(b) & 63)), nil }},
	fnInt:    {ints: func(a, _, _ int64) (Value, error) { return IntValue(a), nil }},
	fnHashMurmur2: {ints: func(v, seed, _ int64) (Value, error) {
		return IntValue(HashMurmur2(v, uint64(seed))), nil
	}},
	fnHashFnv1a: {ints: func(v, seed, _ int64) (Value, error) {
		return IntValue(HashFNV1a(v, uint64(seed))), nil
	}},
	fnPermute: {ints: func(v, size, seed int64) (Value, error) {
		if size <= 0 {
			return Value{}, errPermSize
		}
		return IntValue(Permute(v, size, seed)), nil
	}},
	fnDouble: {doubles: func(a, _, _ float64) Value { return DoubleValue(a) }},
	fnSqrt:   {doubles: func(a, _, _ float64) Value { return DoubleValue(math.Sqrt(a)) }},
	fnLn:     {doubles: func(a, _, _ float64) Value { return DoubleValue(crmath.Log(a)) }},
	fnExp:    {doubles: func(a, _, _ float64) Value { return DoubleValue(crmath.Exp(a)) }},
	fnPow:    {doubles: func(a, b, _ float64) Value { return DoubleValue(crmath.Pow(a, b)) }},
}

// call converts args (at most three, as the parser's arities allow) and
// applies f.
func (f *numericFunc) call(args []Value) (Value, error) {
	if f.ints != nil {
		var x [3]int64
		for i, v := range args {
			n, err := toInt(v)
			if err != nil {
				return Value{}, err
			}
			x[i] = n
		}
		return f.ints(x[0], x[1], x[2])
	}
	var x [3]float64
	for i, v := range args {
		d, err := toDouble(v)
		if err != nil {
			return Value{}, err
		}
		x[i] = d
	}
	return f.doubles(x[0], x[1], x[2]), nil
}

// arith is pgbench's overloaded arithmetic and comparison: in doubles when
// either operand is a double (except %, always in integers), else in
// integers with overflow errors.
func arith(fn function, a, b Value) (Value, error) {
	if (a.Kind == Double || b.Kind == Double) && fn != fnMod {
		l, err := toDouble(a)
		if err != nil {
			return Value{}, err
		}
		r, err := toDouble(b)
		if err != nil {
			return Value{}, err
		}
		switch fn {
		case fnAdd:
			return DoubleValue(l + r), nil
		case fnSub:
			return DoubleValue(l - r), nil
		case fnMul:
			return DoubleValue(l * r), nil
		case fnDiv:
			return DoubleValue(l / r), nil
		case fnEQ:
			return BoolValue(l == r), nil
		case fnNE:
			return BoolValue(l != r), nil
		case fnLE:
			return BoolValue(l <= r), nil
		default:
			return BoolValue(l < r), nil
		}
	}
	l, err := toInt(a)
	if err != nil {
		return Value{}, err
	}
	r, err := toInt(b)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case fnAdd:
		s := l + r
		if (s > l) != (r > 0) {
			return Value{}, errAddRange
		}
		return IntValue(s), nil
	case fnSub:
		s := l - r
		if (s < l) != (r > 0) {
			return Value{}, errSubRange
		}
		return IntValue(s), nil
	case fnMul:
		p, ok := mul64(l, r)
		if !ok {
			return Value{}, errMulRange
		}
		return IntValue(p), nil
	case fnEQ:
		return BoolValue(l == r), nil
	case fnNE:
		return BoolValue(l != r), nil
	case fnLE:
		return BoolValue(l <= r), nil
	case fnLT:
		return BoolValue(l < r), nil
	}
	// division and modulo
	if r == 0 {
		return Value{}, errDivZero
	}
	if r == -1 {
		if fn == fnDiv {
			if l == math.MinInt64 {
				return Value{}, errDivRange
			}
			return IntValue(-l), nil
		}
		return IntValue(0), nil
	}
	if fn == fnDiv {
		return IntValue(l / r), nil
	}
	return IntValue(l % r), nil
}

// mul64 multiplies with an overflow check.
func mul64(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// extremum is least() and greatest(): in doubles when any argument is a
// double, with C's Min/Max (x < y ? x : y), whose NaN handling is kept.
func extremum(fn function, args []Value) (Value, error) {
	double := false
	for _, a := range args {
		if a.Kind == Double {
			double = true
			break
		}
	}
	if double {
		x, err := toDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		for _, a := range args[1:] {
			d, err := toDouble(a)
			if err != nil {
				return Value{}, err
			}
			if fn == fnLeast {
				if !(x < d) {
					x = d
				}
			} else if !(x > d) {
				x = d
			}
		}
		return DoubleValue(x), nil
	}
	x, err := toInt(args[0])
	if err != nil {
		return Value{}, err
	}
	for _, a := range args[1:] {
		i, err := toInt(a)
		if err != nil {
			return Value{}, err
		}
		if fn == fnLeast && i < x || fn == fnGreatest && i > x {
			x = i
		}
	}
	return IntValue(x), nil
}

func random(fn function, args []Value, env Env) (Value, error) {
	lo, hi, param, err := randomArgs(fn, args)
	if err != nil {
		return Value{}, err
	}
	rs := env.Rand()
	switch fn {
	case fnRandom:
		return IntValue(rs.Rand(lo, hi)), nil
	case fnRandomGaussian:
		return IntValue(GaussianRand(rs, lo, hi, param)), nil
	case fnRandomZipfian:
		return IntValue(ZipfianRand(rs, lo, hi, param)), nil
	default:
		return IntValue(ExponentialRand(rs, lo, hi, param)), nil
	}
}

// randomArgs checks a random function's arguments as pgbench does before
// it draws: the range, and the distribution's parameter.
func randomArgs(fn function, args []Value) (lo, hi int64, param float64, err error) {
	if lo, err = toInt(args[0]); err != nil {
		return
	}
	if hi, err = toInt(args[1]); err != nil {
		return
	}
	if lo > hi {
		return 0, 0, 0, errEmptyRange
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 {
		return 0, 0, 0, errBigRange
	}
	if fn == fnRandom {
		return
	}
	if param, err = toDouble(args[2]); err != nil {
		return
	}
	switch fn {
	case fnRandomGaussian:
		if param < minGaussianParam {
			err = fmt.Errorf("gaussian parameter must be at least %s (not %s)", formatF(minGaussianParam), formatF(param))
		}
	case fnRandomZipfian:
		if param < minZipfianParam || param > maxZipfianParam {
			err = fmt.Errorf("zipfian parameter must be in range [1.001, 1000] (not %s)", formatF(param))
		}
	default:
		if param <= 0 {
			err = fmt.Errorf("exponential parameter must be greater than zero (not %s)", formatF(param))
		}
	}
	return
}
