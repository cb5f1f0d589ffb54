package chart

import (
	"testing"
)

// TestSweepLegendAndNone: the legend goes to a corner the data leaves
// free (the answer's line and none's point sit at the swept axis's right
// end, where it was drawn over them), and a grid's axis of values below 1
// ends just past none, at its right end, as a chart of one flag's does.
func TestSweepLegendAndNone(t *testing.T) {
	pts := []SweepPoint{{Value: 0.1, X: 0.1, Text: "0.1", Rate: 500, P50: 1, P95: 2, P99: 7, P999: 14, Judged: true},
		{Value: 0.5, X: 0.5, Text: "0.5", Rate: 600, P50: 1, P95: 2, P99: 6, P999: 14, Judged: true},
		{Value: 0, X: 0.625, Text: "none", Rate: 50, P50: 1, P95: 2, P99: 4, P999: 14, Judged: true, Met: true}}
	s := Sweep{Flag: "--cpus", Points: pts, NoneAt: 0.625, SLO: "p99<=5ms", Bounds: map[string]float64{"p99": 5},
		Answer: 0, AnswerText: "none", AnswerLabel: "answer", Miss: 0.5, MissText: "0.5"}
	tp, err := s.throughputPlot()
	if err != nil {
		t.Fatal(err)
	}
	if !tp.Legend.Left {
		t.Errorf("the throughput legend at the right (top %v), over none's point and the answer's line", tp.Legend.Top)
	}
	g := Sweep{Flag: "--threads", Flag2: "--cpus", NoneAt: 0.375, SLO: "p99<=5ms", Bounds: map[string]float64{"p99": 5},
		Points: []SweepPoint{{Value: 2, X: 0.3, Value2: 0.3, Text: "2", Text2: "0.3", Rate: 200, P99: 4, Judged: true, Met: true},
			{Value: 2, X: 0.375, Value2: 0, Text: "2", Text2: "none", Rate: 20, P99: 2, Judged: true, Met: true}}}
	gtp, _, err := g.gridPlots()
	if err != nil {
		t.Fatal(err)
	}
	if gtp.X.Max < 0.375 || gtp.X.Max > 0.375*1.05 {
		t.Errorf("the grid's --cpus axis ends at %g, want just past none at 0.375", gtp.X.Max)
	}
	if !gtp.Legend.Left && !gtp.Legend.Top {
		t.Errorf("the grid's legend at the bottom right, over none's point")
	}
}
