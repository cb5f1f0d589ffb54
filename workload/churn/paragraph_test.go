package churn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// TestParagraphOfSentences: a pooled paragraph, and one made anew, is
// 2 to 5 of the pool's sentences (gofakeit's) joined by spaces, as
// gofakeit's Paragraph makes it, written as a literal whose quotes are
// doubled, and the length of its text is counted right.
func TestParagraphOfSentences(t *testing.T) {
	p := newPool(randgen.New(1, poolStream))
	sentences := map[string]bool{}
	for i := range len(p.off[kSentence]) - 1 {
		lit := p.text[kSentence][p.off[kSentence][i]:p.off[kSentence][i+1]]
		sentences[string(bytes.ReplaceAll(lit[1:len(lit)-1], []byte("''"), []byte("'")))] = true
	}
	var list []string
	for s := range sentences {
		list = append(list, s)
	}
	check := func(what string, lit []byte, n int) {
		t.Helper()
		text := strings.ReplaceAll(string(lit[1:len(lit)-1]), "''", "'")
		if lit[0] != '\'' || lit[len(lit)-1] != '\'' || len(text) != n {
			t.Fatalf("%s %q: counted %d bytes of text, want %d in quotes", what, lit, n, len(text))
		}
		// Some sentences hold a "! " or ". " of their own: split the text
		// into pool sentences every way it goes.
		if k := split(text, list, 0); k < 2 || k > 5 {
			t.Fatalf("%s %q: not 2 to 5 of the pool's sentences joined by spaces", what, text)
		}
	}
	for i := range len(p.off[kParagraph]) - 1 {
		v := p.lit[kParagraph][i]
		check("pooled paragraph", p.text[kParagraph][p.off[kParagraph][i]:p.off[kParagraph][i+1]], int(litLen(v))-int(litExtra(v)))
	}
	fl := newFiller(randgen.New(1, dataStream), p)
	for range 1000 {
		b, n := fl.make(nil, kParagraph)
		check("paragraph made anew", b, n)
	}
}

// split returns the number of sentences of list, joined by single
// spaces, that make text in one way of splitting it, in no more than 5
// (0 if none).
func split(text string, list []string, depth int) int {
	if depth == 5 {
		return 0
	}
	for _, s := range list {
		if text == s {
			return 1
		}
		if strings.HasPrefix(text, s+" ") {
			if k := split(text[len(s)+1:], list, depth+1); k > 0 {
				return k + 1
			}
		}
	}
	return 0
}
