package expr_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

// valueCases are expressions whose values (type and text) pgbench 15
// computes; the -D variables of valueVars are set in both. The random
// functions among them draw from client 0's stream in order.
var valueCases = []string{
	// constants and lexing
	"1", "-1", "+ - 1", "- - 1", "9223372036854775807", "-9223372036854775808", "- 9223372036854775808",
	"1.5", ".5", "1.", "1e5", "1E-3", ".5e1", "1.e2", "0.0001", "0.00001", "100000000000000000000.0",
	"123456789012345678.0", "2.2250738585072014e-308", "1.7976931348623157e308", "1.0/3", "2.0/3",
	"true", "false", "TrUe", "null", "NULL",
	// arithmetic, int and double
	"1 + 2 * 3", "(1 + 2) * 3", "7 / 2", "-7 / 2", "7 % 3", "-7 % 3", "7 % -3", "7.5 % 2", "mod(7, 3)", "Mod(-7, 3)",
	"7 / 2.0", "7.0 / 2", "1 + 0.5", "3 - 0.25", "2 * 0.5", "10 - 2 - 3", "100 / 10 / 5", "2 * 3 % 4",
	"-9223372036854775808 % -1", "9223372036854775807 / -1", "5.0 / 0", "-5 / 0.0", "0.0 / 0", "0.0 * -1",
	"-0.0", "1e300 * 1e300", "-(1e300 * 1e300)", "1 - 2 + 3 * 4 / 5 % 6",
	// comparisons
	"1 < 2", "2 < 1", "1 <= 1", "2 > 1", "1 >= 2", "1 = 1", "1 = 1.0", "1 <> 2", "1 != 1", "0.1 + 0.2 = 0.3",
	"1 < 2.5", "(0.0/0) = (0.0/0)", "(0.0/0) <> (0.0/0)", "1 < 2 isnull", "1 + 1 = 2 AND 2 < 3",
	// logic and NULL
	"true AND false", "true OR false", "NOT true", "NOT false", "true AND NOT false", "NOT 1 = 2",
	"null AND true", "false AND null", "true AND null", "null OR false", "true OR null", "false OR null",
	"NOT null", "null + 1", "1 * null", "abs(null)", "least(1, null)", "random(null, 5)",
	"1 IS NULL", "null IS NULL", "null ISNULL", "1 NOTNULL", "null NOTNULL", "1 IS NOT NULL", "null IS NOT NULL",
	"true IS TRUE", "false IS TRUE", "1 IS TRUE", "true IS NOT FALSE", "false IS FALSE", "null IS FALSE",
	"1 ISNULL ISNULL", "NOT 1 ISNULL", "1 = 2 OR 3 = 3 AND 4 = 5", "(1 = 2 OR 3 = 3) AND 4 = 5",
	// bitwise
	"5 & 3", "5 | 3", "5 # 3", "~5", "~5 + 1", "~ -1", "1 << 3", "-16 >> 2", "1 << 63", "1 << 64", "1 << -1",
	"-8 >> 65", "1 & 3 | 4 # 7", "3 + 4 & 6", "1 << 2 + 1", "5.4 & 3", "6.5 | 0", "7.5 # 0",
	// CASE
	"case when true then 1 end", "case when false then 1 end", "case when false then 1 else 2 end",
	"case when 0 then 1 when 0.0 then 2 when null then 3 when 5 then 4 else 5 end",
	"CASE WHEN 1 > 2 THEN 1 = 1 ELSE 2.5 END", "true OR 2", "false AND 2", "case when 1 then case when 0 then 1 else 2 end end",
	// functions
	"abs(-5)", "abs(5)", "abs(-2.5)", "abs(-9223372036854775807)", "abs(-0.0 * 1)", "abs(true)", "abs(false)", "ABS(-2)",
	"pi()", "sqrt(2)", "sqrt(-1)", "sqrt(-0.0)", "ln(10)", "ln(0)", "ln(-1)", "exp(1)", "exp(1000)", "exp(-1000)",
	"pow(2, 10)", "power(2.5, 0.5)", "pow(-8, 1.0/3)", "pow(0, -1)", "pow(10, 300) * 10",
	"int(5.5)", "int(6.5)", "int(-5.5)", "int(5.49999)", "int(7)", "int(-0.5)", "double(3)", "double(-3.25)",
	"least(3, 1, 2)", "greatest(3, 1, 2)", "least(3, 1.5, 2)", "greatest(1, 2.5)", "least(0.0/0, 1)",
	"least(1, 0.0/0)", "greatest(0.0/0, 1)", "least(5)", "greatest(,7)", "abs(,-1)",
	"hash(1)", "hash(1, 2)", "hash(-5, 7)", "hash_murmur2(123456789, -3)", "hash_fnv1a(1, 2)",
	"hash_fnv1a(-1)", "hash_fnv1a(0, 0)", "hash_murmur2(9223372036854775807, 9223372036854775807)",
	"hash(:dv)", "hash(2.5, 1)", "permute(5, 10, 3)", "permute(5, 10)", "permute(0, 1)", "permute(-1, 100, 5)",
	"permute(12345, 1000000, 42)", "permute(3, 3, 3)", "permute(2, 2, 0)", "permute(1000, 7, -9)",
	"permute(9223372036854775807, 9223372036854775807, 1)", "permute(17, 1 << 40, 99)",
	// variables
	":dv", ":dv * 2", ":dd + 1", ":db AND true", ":dn IS NULL", ":client_id", ":scale", ":default_seed",
	":random_seed", ":yes", ":t", ":of", ":sp", ":hex", ":inf", ":ninf", ":nan", ":big", ":pexp",
	// random functions, in draw order
	"random(1, 10)", "random(1, 100000)", "random(-5, 5)", "random(1.5, 3.4)", "random(7, 7)",
	"random(-4611686018427387904, 4611686018427387902)", "random(0, 9223372036854775806)", "random(0, 1 << 62)",
	"random_exponential(1, 1000, 2.5)", "random_exponential(1, 10, 0.1)", "random_exponential(-50, 50, 20)",
	"random_gaussian(1, 1000, 2.0)", "random_gaussian(1, 10, 5)", "random_gaussian(-100, 100, 2.5)",
	"random_zipfian(1, 1000, 1.07)", "random_zipfian(1, 10, 1000)", "random_zipfian(1, 1000000, 1.001)",
	"random_zipfian(5, 5, 2)", "random(1, 100000) + random(1, 10) * 2",
}

// valueVars are -D variables, as pgbench reads them (makeVariableValue).
var valueVars = map[string]string{
	"dv": "42", "dd": "2.5", "db": "TRUE", "dn": "null", "yes": "ye", "t": "t", "of": "OF",
	"sp": "  12", "hex": "0x1A", "inf": "inf", "ninf": "-Infinity", "nan": "nan", "big": "-9223372036854775808",
	"pexp": "1e3",
}

// TestValuesMatchPgbench evaluates every case in pgbench 15 (debug(), which
// prints the type and the value, then the text substituted for the
// variable) and in package expr, and compares type and text exactly.
func TestValuesMatchPgbench(t *testing.T) {
	const seed = 20260529
	url := dbURL(t, "")
	var script strings.Builder
	for i, c := range valueCases {
		fmt.Fprintf(&script, "\\set v%d debug(%s)\n", i, c)
	}
	// The substituted text, through the server: a DO block raises a notice
	// pgbench prints on standard error.
	script.WriteString("DO $$BEGIN RAISE NOTICE '%', '")
	for i := range valueCases {
		if i > 0 {
			script.WriteString("|")
		}
		fmt.Fprintf(&script, ":v%d", i)
	}
	script.WriteString("'; END$$;\n")
	args := []string{"-t", "1", "--random-seed=" + strconv.Itoa(seed)}
	for k, v := range valueVars {
		args = append(args, "-D", k+"="+v)
	}
	stderr, ok := runPgbench(t, []string{script.String()}, append(args, url)...)
	if !ok {
		t.Fatalf("pgbench failed:\n%s", stderr)
	}
	debugLine := regexp.MustCompile(`^debug\(script=0,command=(\d+)\): (.*)$`)
	want := make([]string, len(valueCases))
	var substituted []string
	for _, line := range strings.Split(stderr, "\n") {
		if m := debugLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			want[n-1] = m[2]
		}
		if i := strings.Index(line, "NOTICE:  "); i >= 0 {
			substituted = strings.Split(line[i+len("NOTICE:  "):], "|")
		}
	}
	if len(substituted) != len(valueCases) {
		t.Fatalf("pgbench's notice has %d values, want %d:\n%s", len(substituted), len(valueCases), stderr)
	}

	st := prng.PgbenchStreams(seed, 1, 1)
	e := &env{vars: map[string]expr.Value{
		"client_id": expr.IntValue(0), "scale": expr.IntValue(1),
		"default_seed": expr.IntValue(st.DefaultSeed), "random_seed": expr.IntValue(seed),
	}, text: valueVars, rs: &st.Clients[0]}
	for i, c := range valueCases {
		x, err := expr.Parse("debug(" + c + ")")
		if err != nil {
			t.Errorf("%s: %v (pgbench: %s)", c, err, want[i])
			continue
		}
		e.debug = e.debug[:0]
		v, err := x.Eval(e)
		if err != nil {
			t.Errorf("%s: %v (pgbench: %s)", c, err, want[i])
			continue
		}
		if len(e.debug) != 1 || e.debug[0].DebugString() != v.DebugString() {
			t.Errorf("%s: debug() received %v, want the value %v", c, e.debug, v)
		}
		if got := v.DebugString(); got != want[i] {
			t.Errorf("%s = %s, pgbench: %s", c, got, want[i])
		}
		if got := v.String(); got != substituted[i] {
			t.Errorf("%s substitutes %q, pgbench: %q", c, got, substituted[i])
		}
	}
}

// errorCases are expressions pgbench refuses, when it parses them (syntax
// errors, with the column) or when it evaluates them.
var errorCases = []string{
	// syntax
	"", "1 +", "1 2", "(1", "1)", "1 < 2 < 3", "1 = 1 = 1", "1 < 2 + 3 >= 4", "1.5.3", "1e", "0x10",
	"-(9223372036854775808)", "9223372036854775808", "99999999999999999999", "1e400", "1e-400", "4e-320",
	"1 $ 2", "1 ! 2", ":", "a", "x1 + 1", "foo(1)", "abs", "abs(1, 2)", "abs()", "pi(1)", "least()",
	"greatest()", "hash()", "hash(1, 2, 3)", "permute(1)", "permute(1, 2, 3, 4)", "random(1)",
	"random_gaussian(1, 2)", "abs(-1,)", "least(,,1)", "case when true then 1", "case 1 end", "case end",
	"1 IS 3", "1 IS NOT 3", "true IS", "NOT", "abs(1", "1 +* 2", "CASE WHEN 1 THEN 2 ELSE END",
	"random(1, 2) random(3, 4)", "~", "hash(1,)",
	// evaluation
	"9223372036854775807 + 1", "-9223372036854775807 - 2", "4611686018427387904 * 2", "-9223372036854775808 * -1",
	"-9223372036854775808 / -1", "5 / 0", "5 % 0", "5.5 % 0", "int(1e30)", "int(0.0/0)", "int(-1e19)",
	"int(true)", "true + 1", "1 + true", "true = true", "double(false)", "not 1", "not 1.5", "1 AND true",
	"~true", "1 << true", "random(1, 0)", "random(-9223372036854775808, 9223372036854775807)",
	"random(0, 9223372036854775807)", "random(-4611686018427387904, 4611686018427387903)", "random_gaussian(1, 10, 1.5)", "random_exponential(1, 10, 0)",
	"random_exponential(1, 10, -1)", "random_zipfian(1, 10, 1)", "random_zipfian(1, 10, 1000.5)",
	"random_gaussian(1, 0, 1.0)", "random(1.5, true)", "random_zipfian(1, 10, true)", "permute(1, 0)",
	"permute(1, -5, 3)", "hash(true)", "hash(1, 1e30)", ":undefined", "1 + :nope",
	"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "least(1, true)", "greatest(1.5, false)",
	"sqrt(true)", "abs(1/0)", "case when 1/0 then 1 end", "pow(true, 2)", ":malformed", ":toobig", ":bad",
}

var errorVars = map[string]string{"malformed": "o", "toobig": "9223372036854775808", "bad": "12 "}

// TestErrorsMatchPgbench runs pgbench 15 on each bad expression and checks
// that package expr refuses it with the same message: at parse time with
// the same column for pgbench's syntax errors, at evaluation for its
// runtime errors.
func TestErrorsMatchPgbench(t *testing.T) {
	url := dbURL(t, "")
	parseErr := regexp.MustCompile(`^pgbench: error: [^:]+:1: (.*) in command "set"$`)
	const prefix = `\set v `
	// pgbench's runs are mostly waiting (start, connection): run four at
	// a time.
	type result struct {
		stderr string
		ok     bool
		err    error
	}
	bin := pgbench(t)
	results := make([]result, len(errorCases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range errorCases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			stderr, ok, err := execPgbench(bin, t.TempDir(), []string{prefix + c + "\n"}, "-t", "1",
				"-D", "malformed="+errorVars["malformed"], "-D", "toobig="+errorVars["toobig"], "-D", "bad="+errorVars["bad"], url)
			results[i] = result{stderr, ok, err}
		}()
	}
	wg.Wait()
	for i, c := range errorCases {
		stderr, ok := results[i].stderr, results[i].ok
		if results[i].err != nil {
			t.Fatal(results[i].err)
		}
		if ok {
			t.Errorf("%q: pgbench accepted it:\n%s", c, stderr)
			continue
		}
		lines := strings.Split(stderr, "\n")
		x, err := expr.Parse(c)
		if m := parseErr.FindStringSubmatch(lines[0]); m != nil {
			caret := strings.Index(lines[2], "^")
			var se *expr.SyntaxError
			if err == nil {
				t.Errorf("%q parses; pgbench: %s at %d", c, m[1], caret-len(prefix))
				continue
			}
			se = err.(*expr.SyntaxError)
			got := se.Msg
			if se.More != "" {
				got += " (" + se.More + ")"
			}
			if got != m[1] || se.Offset+len(prefix) != caret {
				t.Errorf("%q: %v; pgbench: %s at column %d", c, err, m[1], caret-len(prefix)+1)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v; pgbench parses it and says %s", c, err, lines[0])
			continue
		}
		st := prng.PgbenchStreams(1, 1, 1)
		e := &env{vars: map[string]expr.Value{"default_seed": expr.IntValue(st.DefaultSeed)}, rs: &st.Clients[0]}
		e.text = errorVars
		_, err = x.Eval(e)
		want := strings.TrimPrefix(lines[0], "pgbench: error: ")
		if err == nil || err.Error() != want {
			t.Errorf("%q evaluates with error %v; pgbench: %s", c, err, want)
		}
	}
}
