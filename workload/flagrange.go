package workload

import "github.com/spf13/pflag"

// RangeAnnotation is the pflag annotation that holds a number flag's
// range as two strings, its lowest and highest values ("" for a bound
// not stated: none beyond the type's, or one the workload's Validate
// words itself), which the command line says of a value too large for
// the flag's type (cmdline.FlagValueError) instead of the type's range.
const RangeAnnotation = "stampede-range"

// SetFlagRange records the range of fs's number flag name, lo to hi, as
// they are written in the messages (see RangeAnnotation). A workload's
// Validate refuses the values outside it in the same words.
func SetFlagRange(fs *pflag.FlagSet, name, lo, hi string) {
	_ = fs.SetAnnotation(name, RangeAnnotation, []string{lo, hi})
}

// DependentDefaultAnnotation marks a flag whose default depends on other
// flags (YCSB's --read-proportion on --workload and -p): its pflag
// default (0) is not the value a run uses, so a run records the flag only
// when it was given (cmdline.FlagValues), not as 0 beside the property
// that set the value.
const DependentDefaultAnnotation = "stampede-dependent-default"

// SetDependentDefault marks fs's flag name with DependentDefaultAnnotation.
func SetDependentDefault(fs *pflag.FlagSet, name string) {
	_ = fs.SetAnnotation(name, DependentDefaultAnnotation, []string{"true"})
}

// HasDependentDefault reports whether f carries DependentDefaultAnnotation.
func HasDependentDefault(f *pflag.Flag) bool {
	return len(f.Annotations[DependentDefaultAnnotation]) > 0
}
