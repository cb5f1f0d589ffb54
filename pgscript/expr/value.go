package expr

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value, as pgbench's PgBenchValueType.
type Kind uint8

// The kinds of values pgbench's expressions compute.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// String returns the kind's name as pgbench's error messages spell it
// ("cannot coerce boolean to int").
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "none"
}

// Value is a pgbench expression value: NULL, a boolean (B), a 64-bit
// integer (I) or a double (F), as Kind says.
type Value struct {
	Kind Kind
	B    bool
	I    int64
	F    float64
}

// NullValue, BoolValue, IntValue and DoubleValue build values.
func NullValue() Value { return Value{} }

// BoolValue returns the boolean b.
func BoolValue(b bool) Value { return Value{Kind: Bool, B: b} }

// IntValue returns the integer i.
func IntValue(i int64) Value { return Value{Kind: Int, I: i} }

// DoubleValue returns the double f.
func DoubleValue(f float64) Value { return Value{Kind: Double, F: f} }

// String is the text pgbench substitutes for :name when the variable holds
// v (getVariable): NULL, true or false, the integer in decimal, or the
// double as C's "%.15g" (DBL_DIG digits) prints it through PostgreSQL's own
// snprintf, which spells the special values NaN, Infinity and -Infinity.
func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Bool:
		if v.B {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(v.I, 10)
	default:
		return formatG(v.F)
	}
}

// DebugString is what pgbench's debug() prints after its
// "debug(script=N,command=M): " prefix: "null", "boolean true", "int 5" or
// "double 1.5".
func (v Value) DebugString() string {
	switch v.Kind {
	case Null:
		return "null"
	case Bool:
		return "boolean " + v.String()
	case Int:
		return "int " + v.String()
	default:
		return "double " + v.String()
	}
}

// special spells the values PostgreSQL's snprintf prints by name; ok is
// false for finite values.
func special(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// formatG is C's "%.15g" as PostgreSQL's snprintf prints it. Go's 'g'
// format follows C's rules (exponent when it is < -4 or >= the precision,
// two exponent digits at least, trailing zeros dropped).
func formatG(f float64) string {
	if s, ok := special(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}

// formatF is C's "%f" as PostgreSQL's snprintf prints it (for pgbench's
// error messages).
func formatF(f float64) string {
	if s, ok := special(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// ParseValue turns a variable's text (from -D, \gset or \aset) into a value
// as pgbench's makeVariableValue does: "null" (any case) is NULL; a prefix
// of "true" or "yes", or "on", is true; a prefix of "false" or "no", or
// "off" or "of", is false (any case; "o" alone is neither); text that looks
// like an integer (optional leading spaces and sign, then digits) must be a
// bigint; anything else must be a double as C's strtod reads it. Its errors
// name the text; ParseVariable also names the variable, as pgbench does.
func ParseValue(s string) (Value, error) {
	v, err := parseValue(s)
	if err != nil {
		if err == errMalformed {
			return Value{}, fmt.Errorf("malformed variable value: %q", s)
		}
		if err == errEmpty {
			return Value{}, errors.New(`empty variable value: "" is neither a number, a boolean nor NULL`)
		}
	}
	return v, err
}

// ParseVariable is ParseValue with pgbench's messages naming the variable
// (`malformed variable "name" value: "text"`).
func ParseVariable(name, s string) (Value, error) {
	v, err := parseValue(s)
	if err != nil {
		if err == errMalformed {
			return Value{}, fmt.Errorf("malformed variable %q value: %q", name, s)
		}
		if err == errEmpty {
			return Value{}, fmt.Errorf("variable %q is empty: an empty value is neither a number, a boolean nor NULL", name)
		}
	}
	return v, err
}

var (
	errMalformed = errors.New("malformed")
	errEmpty     = errors.New("empty")
)

func parseValue(s string) (Value, error) {
	n := len(s)
	if n == 0 {
		return Value{}, errEmpty
	}
	if strings.EqualFold(s, "null") {
		return NullValue(), nil
	}
	prefixOf := func(word string) bool {
		return n <= len(word) && strings.EqualFold(s, word[:n])
	}
	if prefixOf("true") || prefixOf("yes") || strings.EqualFold(s, "on") {
		return BoolValue(true), nil
	}
	if prefixOf("false") || prefixOf("no") || strings.EqualFold(s, "off") || strings.EqualFold(s, "of") {
		return BoolValue(false), nil
	}
	if isAnInt(s) {
		i, err := strtoint64(s)
		if err != nil {
			return Value{}, err
		}
		return IntValue(i), nil
	}
	f, ok := strtod(s)
	if !ok {
		return Value{}, errMalformed
	}
	return DoubleValue(f), nil
}

// cSpace is C's isspace in the C locale.
func cSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAnInt is pgbench's is_an_int: optional leading spaces, an optional
// sign, then digits only (none is accepted here, and refused by
// strtoint64).
func isAnInt(s string) bool {
	i := 0
	for i < len(s) && cSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// strtoint64 is pgbench's strtoint64 for text isAnInt accepted, with its
// messages.
func strtoint64(s string) (int64, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	i, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return 0, fmt.Errorf("invalid input syntax for type bigint: %q", s)
	}
	return i, nil
}

// strtod reads the whole of s as C's strtod does in the C locale, and
// fails as pgbench's strtodouble does: on trailing text, and on ERANGE,
// which glibc sets on overflow and on underflow (a result that is zero or
// subnormal while the text is not zero).
func strtod(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" || strings.ContainsRune(t, '_') {
		return 0, false
	}
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, false
	}
	lower := strings.ToLower(body)
	if strings.HasPrefix(lower, "0x") && !strings.ContainsAny(lower, "p") {
		t += "p0" // C accepts hexadecimal without a binary exponent
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	if isSpecialWord(lower) {
		return f, true
	}
	if f == 0 {
		if nonZeroMantissa(lower) {
			return 0, false
		}
		return f, true
	}
	if math.Abs(f) < 0x1p-1022 {
		return 0, false
	}
	return f, true
}

func isSpecialWord(lower string) bool {
	return lower == "inf" || lower == "infinity" || lower == "nan"
}

// nonZeroMantissa reports whether the digits before the exponent of a
// numeric text (lower case, no sign) include a non-zero one.
func nonZeroMantissa(lower string) bool {
	hex := strings.HasPrefix(lower, "0x")
	if hex {
		lower = lower[2:]
	}
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if (!hex && c == 'e') || (hex && c == 'p') {
			break
		}
		if c >= '1' && c <= '9' || hex && c >= 'a' && c <= 'f' {
			return true
		}
	}
	return false
}
