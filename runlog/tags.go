package runlog

import (
	"fmt"
	"strings"
	"unicode"
)

// ParseTags reads --tag arguments, each key=value, into a map: the tags a
// run records (run --tag) or the tags runs must have to be selected (runs
// --tag, report --tag; see MatchTags). A key must not be empty; a value
// may be (key= is the empty value, not "any value"); a key holds no
// space or control character. A key given twice with two values is
// refused: a run has one value per key, so a run could record only one of
// them, and no run could match both. The same pair given twice counts
// once.
func ParseTags(args []string) (map[string]string, error) {
	return ParseTagsOf("--tag", args)
}

// ParseTagsOf is ParseTags for tags given with another flag than --tag
// (compare's --a-tag), which its errors name.
func ParseTagsOf(flag string, args []string) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(args))
	for _, t := range args {
		k, v, ok := strings.Cut(t, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("malformed %s %q: use key=value", flag, t)
		}
		if strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return nil, fmt.Errorf("malformed %s %q: the key %q holds a space; use key=value with a key without spaces, such as %s=%s", flag, t, k, strings.Join(strings.Fields(k), "_"), v)
		}
		if prev, dup := m[k]; dup && prev != v {
			return nil, fmt.Errorf("%s %s=%s and %s %s give the key %s two values, and a run has one value per key: give %s once", flag, k, prev, flag, t, k, k)
		}
		m[k] = v
	}
	return m, nil
}

// MatchTags reports whether a run whose tags are have is selected by want:
// whether it has every key of want, each with exactly want's value. An
// empty value selects the runs that recorded that key with an empty value
// (run --tag key=), never runs without the key. It is the one selection by
// tags of every verb (runs reads it through the results store, report
// from the run directories), so that both select the same runs.
func MatchTags(have, want map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}
