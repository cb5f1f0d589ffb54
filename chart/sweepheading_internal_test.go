package chart

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// textBoxes is a vg.Canvas that records the box of each text drawn
// unrotated (from its font's width, ascent and descent) and draws
// nothing else.
type textBoxes struct {
	texts   []string
	boxes   []vg.Rectangle
	rotated []bool // a stack: Push, Pop
}

func (c *textBoxes) SetLineWidth(vg.Length)             {}
func (c *textBoxes) SetLineDash([]vg.Length, vg.Length) {}
func (c *textBoxes) SetColor(color.Color)               {}
func (c *textBoxes) Rotate(float64) {
	if n := len(c.rotated); n > 0 {
		c.rotated[n-1] = true
	}
}
func (c *textBoxes) Translate(vg.Point)                  {}
func (c *textBoxes) Scale(float64, float64)              {}
func (c *textBoxes) Push()                               { c.rotated = append(c.rotated, false) }
func (c *textBoxes) Pop()                                { c.rotated = c.rotated[:len(c.rotated)-1] }
func (c *textBoxes) Stroke(vg.Path)                      {}
func (c *textBoxes) Fill(vg.Path)                        {}
func (c *textBoxes) DrawImage(vg.Rectangle, image.Image) {}
func (c *textBoxes) Size() (vg.Length, vg.Length)        { return width, sweepHeight }
func (c *textBoxes) FillString(f font.Face, pt vg.Point, s string) {
	if n := len(c.rotated); n > 0 && c.rotated[n-1] {
		return // an axis's label, beside its panel
	}
	e := f.Extents()
	c.texts = append(c.texts, s)
	c.boxes = append(c.boxes, vg.Rectangle{Min: vg.Point{X: pt.X, Y: pt.Y - e.Descent}, Max: vg.Point{X: pt.X + f.Width(s), Y: pt.Y + e.Ascent}})
}

// TestSweepHeadingApart: a sweep chart's heading (its title and the SLO's
// line, wrapped when long: TPC-C's six terms and more) and its panels'
// titles each lie within the chart's width, and no two texts' boxes
// overlap (the SLO's line once ran into "throughput against
// --active-warehouses", and the legends' rows into each other).
func TestSweepHeadingApart(t *testing.T) {
	points := []SweepPoint{{Value: 1, X: 1, Rate: 20, P50: 10, P95: 30, P99: 60, P999: 90, Judged: true, Met: true},
		{Value: 2, X: 2, Rate: 38, P50: 12, P95: 40, P99: 80, P999: 120, Judged: true, Met: false}}
	tpcc := "efficiency>=85%,newOrder.p90<=5s,payment.p90<=5s,orderStatus.p90<=5s,delivery.p90<=5s,stockLevel.p90<=20s"
	for _, tc := range []struct {
		name  string
		slo   string
		lines int // the SLO's heading lines, at least
	}{
		{"TPC-C's default", tpcc, 1},
		{"longer than a line", tpcc + ",p99<=300ms,p99.9<=2s,errors<=0.1%,mean<=100ms,p50<=40ms", 2},
		{"no SLO", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Sweep{Title: "sweep 20261130-220537-854a: tpcc", Flag: "--active-warehouses", SLO: tc.slo, Answer: 1, Miss: 2, Points: points}
			if strings.Contains(tc.slo, "p99<=") {
				s.Bounds = map[string]float64{"p99": 300} // a line in the legend
			}
			c := &textBoxes{}
			if err := s.draw(draw.New(c)); err != nil {
				t.Fatal(err)
			}
			// Drawn first: the title, then the SLO's lines, whole.
			sub := "no SLO: the peak marked"
			if tc.slo != "" {
				sub = "SLO " + tc.slo + ": green met, red missed"
			}
			sloLines := 0
			for k := 1; k < len(c.texts) && sloLines == 0; k++ {
				if strings.ReplaceAll(strings.Join(c.texts[1:k+1], ""), " ", "") == strings.ReplaceAll(sub, " ", "") {
					sloLines = k
				}
			}
			if c.texts[0] != s.Title || sloLines < tc.lines {
				t.Fatalf("the heading is not the title then the SLO's %d+ lines: %q", tc.lines, c.texts)
			}
			heads := []int{0}
			for i, txt := range c.texts {
				if i > 0 && i <= sloLines || strings.HasPrefix(txt, "throughput against") || strings.HasPrefix(txt, "latency against") {
					heads = append(heads, i)
				}
			}
			if len(heads) != 3+sloLines {
				t.Fatalf("not 2 panel titles: %q", c.texts)
			}
			for _, i := range heads {
				if b := c.boxes[i]; b.Min.X < 0 || b.Max.X > width {
					t.Errorf("%q from x %.1f to %.1f: outside the chart's width %.1f", c.texts[i], b.Min.X, b.Max.X, width)
				}
			}
			for i := range c.texts {
				for j := i + 1; j < len(c.texts); j++ {
					if overlap(c.boxes[i], c.boxes[j]) {
						t.Errorf("%q %v overlaps %q %v", c.texts[i], c.boxes[i], c.texts[j], c.boxes[j])
					}
				}
			}
		})
	}
}

// overlap reports whether boxes a and b share more than an edge.
func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
