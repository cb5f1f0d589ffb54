package cacheline

import (
	"testing"
	"unsafe"
)

func TestPadElems(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{0, 1}, {1, 64}, {8, 8}, {16, 4}, {24, 3}, {63, 2}, {64, 1}, {65, 1}, {200, 1},
	} {
		got := padElems(tc.size)
		if got != tc.want {
			t.Errorf("padElems(%d) = %d, want %d", tc.size, got, tc.want)
		}
		if tc.size > 0 && got*tc.size < Size {
			t.Errorf("padElems(%d) = %d elements make %d bytes, less than a line", tc.size, got, got*tc.size)
		}
	}
}

func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, 3, 24} {
		b := Slice[byte](n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Slice[byte](%d): len %d, cap %d; want %d, %d", n, len(b), cap(b), n, n)
		}
		a := Slice[any](n)
		if len(a) != n || cap(a) != n {
			t.Fatalf("Slice[any](%d): len %d, cap %d; want %d, %d", n, len(a), cap(a), n, n)
		}
		for i := range a {
			if a[i] != nil {
				t.Fatalf("Slice[any](%d)[%d] = %v, want the zero value", n, i, a[i])
			}
		}
		// Appending must not write into the padding (which would put the
		// data back beside a neighbour's): capacity ends at the data.
		if n > 0 {
			c := append(b, 'x')
			if unsafe.SliceData(c) == unsafe.SliceData(b) {
				t.Fatalf("append to Slice[byte](%d) reused the padded array", n)
			}
		}
	}
}
