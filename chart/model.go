package chart

import "fmt"

// The drawing model: what the layout produces and the backends render.
// Coordinates are pixels from the top left corner.

// rgb is an opaque colour.
type rgb struct{ r, g, b uint8 }

// hex returns the colour as "#rrggbb".
func (c rgb) hex() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

// drawing is a chart laid out: a canvas and the shapes on it, in painting
// order.
type drawing struct {
	w, h   int
	shapes []shape
}

// shape is one of rect, path and text.
type shape interface{ isShape() }

// rect is a filled rectangle.
type rect struct {
	x, y, w, h float64
	fill       rgb
	opacity    float64 // 0 means 1
	// title is a tooltip (SVG and HTML only).
	title string
	// hover marks an invisible rectangle that only carries a tooltip; only
	// interactive outputs (HTML) draw it.
	hover bool
}

// path is a polyline.
type path struct {
	pts    []pt
	stroke rgb
	width  float64
	dash   []float64 // on, off lengths; nil for a solid line
}

// pt is a point.
type pt struct{ x, y float64 }

// Text anchors.
const (
	anchorStart = iota
	anchorMiddle
	anchorEnd
)

// text is one line of text in the chart's font (7 pixels per character,
// 13 pixels high); y is its baseline.
type text struct {
	x, y   float64
	s      string
	anchor int
	bold   bool
	color  rgb
}

func (rect) isShape() {}
func (path) isShape() {}
func (text) isShape() {}

// Font metrics shared by the layout and the backends.
const (
	charW    = 7  // advance of a character
	lineH    = 16 // distance between baselines
	fontSize = 12 // SVG font size matching charW
)

// textWidth is the width of s in pixels.
func textWidth(s string) float64 { return float64(len(s) * charW) }
