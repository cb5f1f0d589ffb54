package chart_test

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/chart"
)

// TestSweepChartLabels: a sweep chart's tick labels sit outside the data
// area, so that the two axes' labels at the origin do not overlap; and
// the answer's and the miss's labels are drawn after both their lines,
// each on a white ground, so that no line is drawn over a label.
func TestSweepChartLabels(t *testing.T) {
	s := chart.Sweep{Title: "sweep X: ycsb", Flag: "--max-rate", SLO: "p99<=5ms,rate>=95%", Bounds: map[string]float64{"p99": 5}, Answer: 1040, Miss: 1100,
		Points: []chart.SweepPoint{{Value: 50, Rate: 50, P50: 1, P95: 2, P99: 3, P999: 4, Judged: true, Met: true},
			{Value: 500, Rate: 500, P50: 1, P95: 2, P99: 3, P999: 4, Judged: true, Met: true},
			{Value: 1040, Rate: 1030, P50: 1, P95: 2, P99: 4, P999: 6, Judged: true, Met: true},
			{Value: 1100, Rate: 1050, P50: 2, P95: 4, P99: 9, P999: 12, Judged: true, Met: false}}}
	var buf bytes.Buffer
	if err := chart.WriteSweep(&buf, chart.SVG, s); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	// The labels "0" of both axes at the origin: apart.
	var zeros [][2]float64
	for _, m := range regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)"[^>]*>0</text>`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		zeros = append(zeros, [2]float64{x, y})
	}
	if len(zeros) < 2 {
		t.Fatalf("%d labels 0", len(zeros))
	}
	for i := range zeros {
		for j := i + 1; j < len(zeros); j++ {
			if math.Hypot(zeros[i][0]-zeros[j][0], zeros[i][1]-zeros[j][1]) < 8 {
				t.Errorf("labels 0 at %v and %v overlap", zeros[i], zeros[j])
			}
		}
	}
	// Per panel: the marks' dashed lines (5,4), then their labels.
	elems := regexp.MustCompile(`(?s)<path [^>]*stroke-dasharray:5,4[^>]*>|<path [^>]*fill:#FFFFFF[^>]*>|<text[^>]*>(answer|missed): [^<]*</text>`).FindAllString(svg, -1)
	var seq []string
	for _, e := range elems {
		switch {
		case strings.Contains(e, "stroke-dasharray"):
			seq = append(seq, "line")
		case strings.Contains(e, "#FFFFFF"):
			seq = append(seq, "ground")
		default:
			seq = append(seq, "label")
		}
	}
	got := strings.Join(seq, " ")
	if want := "line line ground label ground label"; strings.Count(got, want) != 2 {
		t.Errorf("the marks drawn as %q, want %q in each panel", got, want)
	}
}
