package sqlscript

import (
	"strings"

	"github.com/spf13/pflag"
)

// scriptArg is one -b or -f argument, in command-line order: pgbench
// numbers its scripts in that order, and so does the report.
type scriptArg struct {
	builtin bool
	value   string
}

// scriptFlag is the value of -f or -b: it keeps every argument, and their
// order with the other's in order.
type scriptFlag struct {
	builtin bool
	vals    *[]string
	order   *[]scriptArg
}

var _ pflag.SliceValue = scriptFlag{}

// Set implements pflag.Value.
func (f scriptFlag) Set(v string) error {
	*f.vals = append(*f.vals, v)
	*f.order = append(*f.order, scriptArg{f.builtin, v})
	return nil
}

// Type implements pflag.Value.
func (f scriptFlag) Type() string { return "stringArray" }

// String implements pflag.Value.
func (f scriptFlag) String() string { return "[" + strings.Join(*f.vals, ",") + "]" }

// Append implements pflag.SliceValue.
func (f scriptFlag) Append(v string) error { return f.Set(v) }

// Replace implements pflag.SliceValue.
func (f scriptFlag) Replace(vs []string) error {
	kept := (*f.order)[:0]
	for _, a := range *f.order {
		if a.builtin != f.builtin {
			kept = append(kept, a)
		}
	}
	*f.order, *f.vals = kept, nil
	for _, v := range vs {
		if err := f.Set(v); err != nil {
			return err
		}
	}
	return nil
}

// GetSlice implements pflag.SliceValue.
func (f scriptFlag) GetSlice() []string { return append([]string(nil), *f.vals...) }
