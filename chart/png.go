package chart

import (
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// writePNG rasterises d and writes it as a PNG image of d.w by d.h pixels.
// Hover bands and tooltips are left out.
func writePNG(w io.Writer, d *drawing) error {
	r := &raster{img: image.NewRGBA(image.Rect(0, 0, d.w, d.h))}
	r.cov = make([]float32, d.w*d.h)
	for _, s := range d.shapes {
		switch s := s.(type) {
		case rect:
			if s.hover {
				continue
			}
			op := s.opacity
			if op <= 0 {
				op = 1
			}
			r.fill(s.x, s.y, s.w, s.h, s.fill, op)
		case path:
			r.stroke(s.pts, s.width, s.dash, s.stroke)
		case text:
			r.text(s)
		}
	}
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, r.img)
}

// raster is an RGBA canvas on an opaque background with an anti-aliased
// rectangle filler and line stroker.
type raster struct {
	img *image.RGBA
	cov []float32 // coverage of the path being stroked, per pixel
}

// blend paints c with alpha a over the pixel (x, y).
func (r *raster) blend(x, y int, c rgb, a float64) {
	if a <= 0 {
		return
	}
	i := r.img.PixOffset(x, y)
	p := r.img.Pix[i : i+4 : i+4]
	p[0] = mix(p[0], c.r, a)
	p[1] = mix(p[1], c.g, a)
	p[2] = mix(p[2], c.b, a)
	p[3] = 0xff
}

func mix(dst, src uint8, a float64) uint8 {
	return uint8(math.Round(float64(dst)*(1-a) + float64(src)*a))
}

// fill paints a rectangle, anti-aliasing fractional edges.
func (r *raster) fill(x, y, w, h float64, c rgb, opacity float64) {
	b := r.img.Bounds()
	x0, x1 := max(int(math.Floor(x)), b.Min.X), min(int(math.Ceil(x+w)), b.Max.X)
	y0, y1 := max(int(math.Floor(y)), b.Min.Y), min(int(math.Ceil(y+h)), b.Max.Y)
	for py := y0; py < y1; py++ {
		cy := overlap(float64(py), y, y+h)
		for px := x0; px < x1; px++ {
			r.blend(px, py, c, opacity*cy*overlap(float64(px), x, x+w))
		}
	}
}

// overlap is how much of the pixel [p, p+1] lies in [lo, hi].
func overlap(p, lo, hi float64) float64 {
	return math.Max(0, math.Min(p+1, hi)-math.Max(p, lo))
}

// stroke draws a polyline of the given width, dashed if dash is not nil.
// Solid lines get round joins; dashes have butt ends, as in the SVG.
func (r *raster) stroke(pts []pt, width float64, dash []float64, c rgb) {
	type seg struct {
		a, b pt
		butt bool
	}
	var segs []seg
	if dash == nil {
		for i := 1; i < len(pts); i++ {
			segs = append(segs, seg{pts[i-1], pts[i], false})
		}
	} else {
		// Walk the polyline, cutting it into dashes.
		di, left, on := 0, dash[0], true
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			l := math.Hypot(b.x-a.x, b.y-a.y)
			pos := 0.0
			for pos < l {
				step := math.Min(left, l-pos)
				if on {
					p0 := lerp(a, b, pos/l)
					p1 := lerp(a, b, (pos+step)/l)
					segs = append(segs, seg{p0, p1, true})
				}
				pos += step
				left -= step
				if left <= 1e-9 {
					di = (di + 1) % len(dash)
					left, on = dash[di], !on
				}
			}
		}
	}
	half := width / 2
	bnd := r.img.Bounds()
	W := bnd.Dx()
	minX, minY, maxX, maxY := bnd.Max.X, bnd.Max.Y, -1, -1
	for _, s := range segs {
		x0 := max(int(math.Floor(math.Min(s.a.x, s.b.x)-half-1)), 0)
		x1 := min(int(math.Ceil(math.Max(s.a.x, s.b.x)+half+1)), bnd.Max.X-1)
		y0 := max(int(math.Floor(math.Min(s.a.y, s.b.y)-half-1)), 0)
		y1 := min(int(math.Ceil(math.Max(s.a.y, s.b.y)+half+1)), bnd.Max.Y-1)
		dx, dy := s.b.x-s.a.x, s.b.y-s.a.y
		l := math.Hypot(dx, dy)
		for py := y0; py <= y1; py++ {
			for px := x0; px <= x1; px++ {
				cx, cy := float64(px)+.5, float64(py)+.5
				var cov float64
				if l == 0 {
					cov = clamp01(half + .5 - math.Hypot(cx-s.a.x, cy-s.a.y))
				} else {
					along := ((cx-s.a.x)*dx + (cy-s.a.y)*dy) / l
					across := math.Abs((cx-s.a.x)*dy-(cy-s.a.y)*dx) / l
					if s.butt {
						cov = clamp01(half+.5-across) * clamp01(math.Min(along, l-along)+.5)
					} else {
						t := math.Max(0, math.Min(l, along))
						d := math.Hypot(cx-(s.a.x+dx*t/l), cy-(s.a.y+dy*t/l))
						cov = clamp01(half + .5 - d)
					}
				}
				if i := py*W + px; float32(cov) > r.cov[i] {
					r.cov[i] = float32(cov)
				}
			}
		}
		minX, minY = min(minX, x0), min(minY, y0)
		maxX, maxY = max(maxX, x1), max(maxY, y1)
	}
	// Paint the coverage once, so that overlapping segments do not darken
	// joins, and clear it.
	for py := minY; py <= maxY; py++ {
		for px := minX; px <= maxX; px++ {
			i := py*W + px
			if a := r.cov[i]; a > 0 {
				r.blend(px, py, c, float64(a))
				r.cov[i] = 0
			}
		}
	}
}

func lerp(a, b pt, t float64) pt { return pt{a.x + (b.x-a.x)*t, a.y + (b.y-a.y)*t} }

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// text draws one line of text with basicfont's 7x13 face; bold text is
// drawn twice, one pixel apart.
func (r *raster) text(t text) {
	face := basicfont.Face7x13
	x := t.x
	switch t.anchor {
	case anchorMiddle:
		x -= textWidth(t.s) / 2
	case anchorEnd:
		x -= textWidth(t.s)
	}
	dr := &font.Drawer{Dst: r.img, Src: image.NewUniform(color.RGBA{t.color.r, t.color.g, t.color.b, 0xff}), Face: face}
	passes := 1
	if t.bold {
		passes = 2
	}
	for i := range passes {
		dr.Dot = fixed.P(int(math.Round(x))+i, int(math.Round(t.y)))
		dr.DrawString(t.s)
	}
}
