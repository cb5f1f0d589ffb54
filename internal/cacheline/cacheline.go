// Package cacheline keeps data that one goroutine writes often off the
// cache lines of data that another goroutine uses.
//
// Two workers' small buffers made one after the other are neighbours in
// memory, and when both write theirs on every operation the line holding
// both moves between the cores' caches on every write (false sharing).
// With the null driver this made throughput swing between 6.5 and 14.7
// million operations a second from one run to the next, as the allocator's
// layout happened to put the two workers' buffers together or apart.
package cacheline

import "unsafe"

// Size is the size of a CPU cache line on the machines stampede runs on
// (x86-64, and most arm64), in bytes. Adjacent-line prefetching pairs lines
// on some x86 CPUs; one line of padding on each side is enough against the
// writes of a neighbour, which is what matters here.
const Size = 64

// Pad is padding to put before and after the fields of a struct that one
// worker writes often.
type Pad [Size]byte

// Slice returns a zeroed slice of n elements (length and capacity n) whose
// elements share no cache line with any other allocation.
func Slice[T any](n int) []T {
	var zero T
	pad := padElems(int(unsafe.Sizeof(zero)))
	s := make([]T, n+2*pad)
	return s[pad : pad+n : pad+n]
}

// padElems is how many elements of size bytes make at least a cache line.
func padElems(size int) int {
	if size == 0 {
		return 1
	}
	return (Size + size - 1) / size
}
