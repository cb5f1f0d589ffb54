package expr

import "github.com/stampede-bench/stampede/pgscript/prng"

// CheckConstant returns the error every evaluation of the expression
// would return, found without running it: a part that uses no variable,
// no random draw and no debug() always evaluates the same (1/0, an
// overflow), and a random function's constant arguments are checked as
// it checks them before drawing (random_zipfian(1, 10, 1.0)). Parts that
// may never be evaluated (past the first operand of CASE, AND, OR) are
// not checked, so only errors that every run meets are returned.
func (e *Expr) CheckConstant() error { return checkNode(e.root) }

// noEnv is the environment of a constant part: no variables, and a
// random state no constant part draws from.
type noEnv struct{}

func (noEnv) Var(string) (Value, bool) { return Value{}, false }
func (noEnv) Rand() *prng.State        { return new(prng.State) }

// pure reports whether n evaluates the same at every evaluation.
func pure(n *node) bool {
	switch n.fn {
	case fnVar, fnDebug, fnRandom, fnRandomGaussian, fnRandomExponential, fnRandomZipfian:
		return false
	}
	for _, a := range n.args {
		if !pure(a) {
			return false
		}
	}
	return true
}

func checkNode(n *node) error {
	ev := &evaluator{env: noEnv{}}
	if pure(n) {
		_, err := ev.eval(n)
		return err
	}
	eager := n.args
	switch n.fn {
	case fnCase, fnAnd, fnOr:
		eager = n.args[:min(1, len(n.args))]
	}
	for _, a := range eager {
		if err := checkNode(a); err != nil {
			return err
		}
	}
	switch n.fn {
	case fnRandom, fnRandomGaussian, fnRandomExponential, fnRandomZipfian:
		args := make([]Value, len(n.args))
		for i, a := range n.args {
			if !pure(a) {
				return nil
			}
			v, err := ev.eval(a)
			if err != nil {
				return err
			}
			args[i] = v
		}
		_, _, _, err := randomArgs(n.fn, args)
		return err
	case fnPermute:
		// A constant value and size fail (size 0) whatever the seed,
		// which is :default_seed when not given.
		if len(n.args) == 3 && pure(n.args[0]) && pure(n.args[1]) {
			_, err := ev.eval(call(fnPermute, n.args[0], n.args[1], constant(IntValue(0))))
			return err
		}
	}
	return nil
}

// Constant returns the value of an expression that uses no variable, no
// random draw and no debug(), which every evaluation gives; ok is false
// for any other expression, or one whose evaluation fails.
func (e *Expr) Constant() (v Value, ok bool) {
	if !pure(e.root) {
		return Value{}, false
	}
	v, err := (&evaluator{env: noEnv{}}).eval(e.root)
	return v, err == nil
}
