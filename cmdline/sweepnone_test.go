package cmdline

import (
	"slices"
	"strings"
	"testing"
)

// TestNoneList: every limit flag's sweep takes none, a step without the
// limit (--io-write-bps none,5M was refused: "size 0 is not positive";
// --cpus 0.5,1,none: "none is not a number"), which a step sets as the
// flag's default (no limit); none in a range, a value twice, a bad value
// beside none are refused in one line, and a flag that is no limit leaves
// none to the numbers' parser.
func TestNoneList(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []float64
		def        string
		steps      []string // the flag's text at each step
	}{
		{"io-write-bps", "none,5M", []float64{0, 5 << 20}, "", []string{"", "5242880"}},
		{"memory", "512M,none,1.5G", []float64{512 << 20, 0, 1536 << 20}, "", []string{"536870912", "", "1610612736"}},
		{"cpus", "0.5,1,none", []float64{0.5, 1, 0}, "0", []string{"0.5", "1", "0"}},
		{"io-read-iops", "none,200", []float64{0, 200}, "0", []string{"0", "200"}},
	} {
		vals, ok, err := noneList(tc.name, tc.text)
		if err != nil || !ok || !slices.Equal(vals.List, tc.want) || vals.Hi != slices.Max(tc.want) || vals.Lo != 0 {
			t.Errorf("--%s %s: %+v, %v, %v; want %v", tc.name, tc.text, vals, ok, err, tc.want)
			continue
		}
		vf := &valuesFlag{def: tc.def, none: true}
		for i, v := range vals.List {
			if got := stepValue(vf, v); got != tc.steps[i] {
				t.Errorf("--%s %s: step %d sets the flag to %q, want %q", tc.name, tc.text, i+1, got, tc.steps[i])
			}
		}
	}
	for _, tc := range []struct{ name, text, err string }{
		{"io-write-bps", "none:5M", "not in a range"},
		{"io-write-bps", "none,5M,none", "none twice"},
		{"memory", "none,1G,1024M", "1G twice"},
		{"io-read-bps", "none,5X", "--io-read-bps none,5X"},
		{"cpus", "none,0,1", "0 is not positive"},
		{"cpus", "none,fast", `"fast" is not a number or none`},
		{"io-write-iops", "none,2.5", "not a whole number"},
	} {
		_, ok, err := noneList(tc.name, tc.text)
		if !ok || err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %s: %v, %v; want one line with %q", tc.name, tc.text, ok, err, tc.err)
		}
	}
	if _, ok, _ := noneList("conns", "none,1"); ok {
		t.Error("--conns none,1 taken as a limit's none list")
	}
	if _, ok, _ := noneList("io-write-bps", "1M,5M"); ok {
		t.Error("1M,5M taken as a none list")
	}
}
