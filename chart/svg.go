package chart

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// svgFont lists monospace fonts whose advance at fontSize is close to
// charW, so that the layout's text widths hold.
const svgFont = "DejaVu Sans Mono,Menlo,Consolas,Liberation Mono,monospace"

// writeSVG writes d as an SVG document. With interactive set, it also
// writes the hover bands (tooltips for each interval), which only make
// sense in a browser page.
func writeSVG(w io.Writer, d *drawing, interactive bool) error {
	bw := bufio.NewWriter(w)
	p := func(ss ...string) {
		for _, s := range ss {
			bw.WriteString(s)
		}
	}
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="`, itoa(d.w), `" height="`, itoa(d.h),
		`" viewBox="0 0 `, itoa(d.w), " ", itoa(d.h), `" font-family="`, svgFont, `" font-size="`, itoa(fontSize), `">`+"\n")
	if interactive {
		p("<style>.hv{fill:#000;fill-opacity:0}.hv:hover{fill-opacity:.07}</style>\n")
	}
	for _, s := range d.shapes {
		switch s := s.(type) {
		case rect:
			if s.hover && !interactive {
				continue
			}
			p(`<rect x="`, num(s.x), `" y="`, num(s.y), `" width="`, num(s.w), `" height="`, num(s.h), `"`)
			if s.hover {
				p(` class="hv"`)
			} else {
				p(` fill="`, s.fill.hex(), `"`)
				if s.opacity > 0 && s.opacity < 1 {
					p(` fill-opacity="`, num(s.opacity), `"`)
				}
			}
			if s.title == "" {
				p("/>\n")
				continue
			}
			p("><title>", esc(s.title), "</title></rect>\n")
		case path:
			p(`<polyline fill="none" stroke="`, s.stroke.hex(), `" stroke-width="`, num(s.width), `"`)
			if s.dash != nil {
				var parts []string
				for _, v := range s.dash {
					parts = append(parts, num(v))
				}
				p(` stroke-dasharray="`, strings.Join(parts, " "), `"`)
			}
			if len(s.pts) > 2 {
				p(` stroke-linejoin="round"`)
			}
			p(` points="`)
			for i, q := range s.pts {
				if i > 0 {
					p(" ")
				}
				p(num(q.x), ",", num(q.y))
			}
			p(`"/>` + "\n")
		case text:
			p(`<text x="`, num(s.x), `" y="`, num(s.y), `"`)
			switch s.anchor {
			case anchorMiddle:
				p(` text-anchor="middle"`)
			case anchorEnd:
				p(` text-anchor="end"`)
			}
			if s.bold {
				p(` font-weight="bold"`)
			}
			p(` fill="`, s.color.hex(), `" xml:space="preserve">`, esc(s.s), "</text>\n")
		}
	}
	p("</svg>\n")
	return bw.Flush()
}

// esc escapes s for XML text.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // writing to a strings.Builder never fails
	// EscapeText escapes newlines as &#xA;, which tooltips show as line
	// breaks; keep them.
	return b.String()
}

// num renders a coordinate with at most two decimals.
func num(v float64) string {
	return trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
}

func itoa(n int) string { return strconv.Itoa(n) }
