package chart

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// SweepMark is a grid line's answer: at Flag's Value (Text as written),
// the highest value of Flag2 that met the SLO (or without one the peak),
// Value2, with its throughput.
type SweepMark struct {
	Value  float64 `json:"value"`
	Text   string  `json:"text"`
	Value2 float64 `json:"value2"`
	Rate   float64 `json:"ops_per_sec"`
}

// plots are the chart's two panels: a sweep's, or a grid's.
func (s Sweep) plots() (*plot.Plot, *plot.Plot, error) {
	if s.Flag2 != "" {
		return s.gridPlots()
	}
	tp, err := s.throughputPlot()
	if err != nil {
		return nil, nil, err
	}
	lat, err := s.latencyPlot()
	return tp, lat, err
}

// lines are a grid's points by value of Flag, in the order of Points
// (lowest first, none last), each line's points by their place on
// Flag2's axis (X).
func (s Sweep) lines() [][]SweepPoint {
	var out [][]SweepPoint
	for _, pt := range s.Points {
		i := slices.IndexFunc(out, func(l []SweepPoint) bool { return l[0].Value == pt.Value })
		if i < 0 {
			out = append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], pt)
	}
	for _, l := range out {
		slices.SortStableFunc(l, func(a, b SweepPoint) int { return cmpf(a.X, b.X) })
	}
	return out
}

// gridPlots are a grid's panels: throughput against Flag2 and p99
// against throughput, a line per value of Flag, each point coloured by
// its verdict, each line's answer ringed, the SLO's bounds as lines.
func (s Sweep) gridPlots() (*plot.Plot, *plot.Plot, error) {
	tp := newSweepPlot(fmt.Sprintf("throughput against %s, a line per %s", s.Flag2, s.Flag), s.Flag2, "ops/s")
	lat := newSweepPlot(fmt.Sprintf("p99 against throughput (ms, log scale), a line per %s", s.Flag), "ops/s (each pair's throughput)", "ms")
	hiX, hiRate, lo, hi := 0.0, 0.0, math.Inf(1), 0.0
	var tpAll, latAll plotter.XYs // every point drawn, for the legends' corners
	for i, line := range s.lines() {
		var xy, lxy plotter.XYs
		for _, pt := range line {
			xy = append(xy, plotter.XY{X: pt.X, Y: pt.Rate})
			tpAll = append(tpAll, plotter.XY{X: pt.X, Y: pt.Rate})
			if pt.P99 > 0 {
				latAll = append(latAll, plotter.XY{X: pt.Rate, Y: pt.P99})
			}
			hiX, hiRate = math.Max(hiX, pt.X), math.Max(hiRate, pt.Rate)
			if pt.P99 > 0 {
				lxy = append(lxy, plotter.XY{X: pt.Rate, Y: pt.P99})
				lo, hi = math.Min(lo, pt.P99), math.Max(hi, pt.P99)
			}
		}
		name := s.Flag + " " + line[0].Text
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, nil, fmt.Errorf("chart: %w", err)
		}
		l.LineStyle, sc.Color, sc.Radius = lineStyle(pal(i), bold), pal(i), 2
		tp.Add(l, sc)
		tp.Legend.Add(name, l, sc)
		if len(lxy) > 0 {
			slices.SortFunc(lxy, func(a, b plotter.XY) int { return cmpf(a.X, b.X) })
			l, sc, err := plotter.NewLinePoints(lxy)
			if err != nil {
				return nil, nil, fmt.Errorf("chart: %w", err)
			}
			l.LineStyle, sc.Color, sc.Radius = lineStyle(pal(i), solid), pal(i), 2
			lat.Add(l, sc)
			lat.Legend.Add(name+" p99", l, sc)
		}
	}
	if err := s.verdictPoints(tp, func(pt SweepPoint) plotter.XY { return plotter.XY{X: pt.X, Y: pt.Rate} }); err != nil {
		return nil, nil, err
	}
	if len(s.Marks) > 0 {
		var xy plotter.XYs
		for _, m := range s.Marks {
			// At its point's place on Flag2's axis (none's at NoneAt).
			x := m.Value2
			if i := slices.IndexFunc(s.Points, func(pt SweepPoint) bool { return pt.Value == m.Value && pt.Value2 == m.Value2 }); i >= 0 {
				x = s.Points[i].X
			}
			xy = append(xy, plotter.XY{X: x, Y: m.Rate})
		}
		ring, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, nil, fmt.Errorf("chart: %w", err)
		}
		ring.Color, ring.Radius, ring.Shape = ink, 6, draw.RingGlyph{}
		tp.Add(ring)
		label := "each line's answer (highest met)"
		if s.Lowest {
			label = "each line's answer (lowest met)"
		}
		if s.SLO == "" {
			label = "each line's peak"
		}
		tp.Legend.Add(label, ring)
	}
	xhi := math.Max(hiRate*1.03, 1)
	for _, m := range sortedKeys(s.Bounds) {
		b := s.Bounds[m]
		lo, hi = math.Min(lo, b), math.Max(hi, b)
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: b}, {X: xhi, Y: b}})
		if err != nil {
			return nil, nil, fmt.Errorf("chart: %w", err)
		}
		l.LineStyle = lineStyle(missC, style{width: 1.5, dash: []float64{8, 4}})
		lat.Add(l)
		lat.Legend.Add("SLO "+m+" <= "+fmtVal(b)+" ms", l)
	}
	logLatencyAxis(lat, lo, hi)
	lat.X.Min, lat.X.Max = 0, xhi
	tp.Y.Min, tp.Y.Max = 0, roundUp(math.Max(hiRate, 1)*1.05)
	// The axis ends just past its highest place (none's, at the right
	// end), as the chart of one flag's does, whatever its scale: a floor
	// of 1 left --cpus 0.3 and none left of centre, the axis empty after.
	tp.X.Min, tp.X.Max = 0, hiX*1.03
	if hiX <= 0 {
		tp.X.Max = 1
	}
	s.noneTicks(&tp.X)
	placeLegend(tp, nil, tpAll)
	placeLegend(lat, nil, latAll)
	return tp, lat, nil
}
