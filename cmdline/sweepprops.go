package cmdline

import (
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sweep"
)

// propValue is a workload's property (YCSB's -p key=value) that a sweep
// varies: setting it rewrites the property's entries among -p's values,
// so the workload reads each step's value as it reads any -p.
type propValue struct {
	fl  *pflag.Flag
	key string
	val string
}

// String implements pflag.Value.
func (p *propValue) String() string { return p.val }

// Type implements pflag.Value.
func (p *propValue) Type() string { return "property" }

// Set implements pflag.Value.
func (p *propValue) Set(s string) error {
	sv := p.fl.Value.(pflag.SliceValue)
	vals := sv.GetSlice()
	for i, kv := range vals {
		if k, _, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == p.key {
			vals[i] = p.key + "=" + s
		}
	}
	p.val = s
	return sv.Replace(vals)
}

// propSweeps returns the properties given as -p key=values with several
// values (-p fieldlength=10,100 or 10:1000:x10): each is swept as a flag
// with a number is. A value that is not a list or range of numbers is
// the property's own (a path, a name).
func propSweeps(fs *pflag.FlagSet) ([]given, error) {
	fl := fs.Lookup("property")
	if fl == nil || !fl.Changed {
		return nil, nil
	}
	sv, ok := fl.Value.(pflag.SliceValue)
	if !ok {
		return nil, nil
	}
	var out []given
	for _, kv := range sv.GetSlice() {
		k, v, _ := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !strings.ContainsAny(v, ",:") || !anyNumber(v) {
			continue
		}
		whole := !strings.ContainsAny(v, ".eE")
		name := "p " + k
		vals, err := sweep.ParseValues("-p "+k+"=", v, sweep.Bound{Whole: whole, Max: math.MaxInt64})
		if err != nil {
			return nil, usagef("%v", err)
		}
		vf := &valuesFlag{text: v, orig: &propValue{fl: fl, key: k}, parsed: true}
		// Resolve validates the hardest value.
		if err := vf.orig.Set(sweep.Format(vals.Hi)); err != nil {
			return nil, usagef("-p %s=%s: %v", k, v, err)
		}
		out = append(out, given{name: name, param: sweep.Param(name), vals: vals, vf: vf, whole: whole, text: v})
	}
	return out, nil
}

// anyNumber reports whether one of the comma- or colon-separated parts of
// a property's value starts as a number does: then the value is a list
// to sweep (and "x,0.5" is refused for its "x"), else a property's own
// text (-p requestdistribution=zipfian stays as it is).
func anyNumber(v string) bool {
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ':' }) {
		if strings.IndexAny(strings.TrimSpace(part), "0123456789.") == 0 {
			return true
		}
	}
	return false
}

// flag is how the swept flag is written: --cpus, or -p fieldlength for
// a property.
func (g given) flag() string {
	if k, ok := strings.CutPrefix(g.name, "p "); ok {
		return "-p " + k
	}
	return "--" + g.name
}
