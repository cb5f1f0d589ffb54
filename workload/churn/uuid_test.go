package churn

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/stampede-bench/stampede/randgen"
)

// TestUUIDLikeGofakeit: the UUIDs a filler makes have gofakeit's form (a
// random version 4 UUID, variant 10, lower-case 8-4-4-4-12), as SQL
// literals (in quotes), and 10,000 of them are distinct.
func TestUUIDLikeGofakeit(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if v := gofakeit.New(1).UUID(); !form.MatchString(v) {
		t.Fatalf("gofakeit's UUID %q does not have the form the test expects", v)
	}
	fl := newFiller(randgen.New(1, dataStream), nil)
	seen := map[string]bool{}
	for range 10000 {
		lit := string(fl.appendUUID(nil))
		v := lit[1 : len(lit)-1]
		if lit[0] != '\'' || lit[len(lit)-1] != '\'' || !form.MatchString(v) {
			t.Fatalf("UUID literal %s: not a version 4 UUID as gofakeit makes them, in quotes", lit)
		}
		seen[v] = true
	}
	if len(seen) != 10000 {
		t.Errorf("%d distinct UUIDs of 10,000", len(seen))
	}
}

// TestUUIDDigits: a filler's UUID is its stream's two draws, with the
// version and variant bits set, in hexadecimal (fmt's, the reference), in
// quotes.
func TestUUIDDigits(t *testing.T) {
	fl := newFiller(randgen.New(7, dataStream), nil)
	ref := newFiller(randgen.New(7, dataStream), nil)
	for range 1000 {
		hi := ref.src.Next()&^(0xf<<12) | 0x4<<12
		lo := ref.src.Next()&^(0x3<<62) | 0x2<<62
		h, l := fmt.Sprintf("%016x", hi), fmt.Sprintf("%016x", lo)
		want := h[:8] + "-" + h[8:12] + "-" + h[12:] + "-" + l[:4] + "-" + l[4:]
		if got := string(fl.appendUUID(nil)); got != "'"+want+"'" {
			t.Fatalf("UUID %s, want %s", got, want)
		}
	}
}
