package cmdline

import (
	"slices"
	"strings"
	"testing"
)

// TestNoneList: a limit flag's sweep takes none, a step without the
// limit (--io-write-bps none,5M was refused: "size 0 is not positive"),
// which a step sets as the flag's empty value; none in a range, a value
// twice and none for a flag that is not a limit are refused or left to
// the numbers' parser.
func TestNoneList(t *testing.T) {
	vals, ok, err := noneList("io-write-bps", "none,5M")
	if err != nil || !ok || !slices.Equal(vals.List, []float64{0, 5 << 20}) || vals.Hi != 5<<20 {
		t.Fatalf("none,5M: %v, %v, %v; want [0 5242880]", vals, ok, err)
	}
	vf := &valuesFlag{size: true}
	if got := stepValue(vf, "io-write-bps", 0); got != "" {
		t.Errorf("the none step sets --io-write-bps %q, want \"\" (no limit)", got)
	}
	if got := stepValue(vf, "io-write-bps", 5<<20); got != "5242880" {
		t.Errorf("the 5M step sets --io-write-bps %q, want 5242880", got)
	}
	for _, tc := range []struct{ name, text, err string }{
		{"io-write-bps", "none:5M", "not in a range"},
		{"io-write-bps", "none,5M,none", "a value twice"},
		{"io-read-bps", "none,5X", "--io-read-bps none,5X"},
	} {
		_, ok, err := noneList(tc.name, tc.text)
		if !ok || err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %s: %v, %v; want one line with %q", tc.name, tc.text, ok, err, tc.err)
		}
	}
	if _, ok, _ := noneList("cpus", "none,1"); ok {
		t.Error("--cpus none,1 taken as a limit's none list")
	}
	if _, ok, _ := noneList("io-write-bps", "1M,5M"); ok {
		t.Error("1M,5M taken as a none list")
	}
}
