package ycsb

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/randgen"
)

// lengthHistogram is YCSB's HistogramGenerator, the value lengths of
// fieldlengthdistribution=histogram: bucket i of blockSize-long lengths
// drawn in proportion to its count. It is read-only once built, so
// workers share it.
type lengthHistogram struct {
	blockSize int64
	buckets   []int64
	area      int64 // the sum of the counts
}

var _ randgen.IntGenerator = (*lengthHistogram)(nil)

// maxHistogramLength bounds the lengths a histogram may draw, so that a
// mistyped block size does not ask for gigabytes per value.
const maxHistogramLength = 1 << 24

// histogramAdvice ends the errors of a histogram file that cannot be read.
const histogramAdvice = "give the path of a histogram file (a BlockSize<TAB>N line, then BUCKET<TAB>COUNT lines, as YCSB's)"

// readLengthHistogram reads a histogram file as YCSB's HistogramGenerator
// does: a first line "BlockSize<TAB>N", then one "BUCKET<TAB>COUNT" line
// per bucket, buckets numbered from 0 in order. Blank lines are skipped
// and any run of blanks separates the two numbers.
func readLengthHistogram(name string) (*lengthHistogram, error) {
	f, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s: %v: %s", name, err, histogramAdvice)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory: %s", name, histogramAdvice)
	}
	h := &lengthHistogram{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if h.blockSize == 0 {
			n, err := strconv.ParseInt(safeIndex(fields, 1), 10, 64)
			if len(fields) != 2 || fields[0] != "BlockSize" || err != nil || n < 1 {
				return nil, fmt.Errorf("%s:%d: the first line must be BlockSize<TAB>N with N a positive integer, not %q", name, line, sc.Text())
			}
			h.blockSize = n
			continue
		}
		bucket, err1 := strconv.ParseInt(fields[0], 10, 64)
		count, err2 := strconv.ParseInt(safeIndex(fields, 1), 10, 64)
		if len(fields) != 2 || err1 != nil || err2 != nil || count < 0 {
			return nil, fmt.Errorf("%s:%d: expected BUCKET<TAB>COUNT, two non-negative integers, not %q", name, line, sc.Text())
		}
		if bucket != int64(len(h.buckets)) {
			return nil, fmt.Errorf("%s:%d: bucket %d out of order: expected bucket %d", name, line, bucket, len(h.buckets))
		}
		h.buckets = append(h.buckets, count)
		h.area += count
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", name, err)
	}
	switch {
	case h.blockSize == 0:
		return nil, fmt.Errorf("%s is empty: expected a BlockSize<TAB>N line and BUCKET<TAB>COUNT lines", name)
	case h.area == 0:
		return nil, fmt.Errorf("%s has no bucket with a positive count", name)
	case h.max() > maxHistogramLength:
		return nil, fmt.Errorf("%s draws lengths up to %d (%d buckets of %d), more than %d", name, h.max(), len(h.buckets), h.blockSize, maxHistogramLength)
	}
	return h, nil
}

func safeIndex(fields []string, i int) string {
	if i < len(fields) {
		return fields[i]
	}
	return ""
}

// Next draws a length as YCSB's HistogramGenerator.nextValue does: a
// uniform n in [0, area), then the first bucket i (of all but the last)
// at which the running n minus the counts so far is at most 0 gives
// (i+1)*blockSize, and the last bucket i gives i*blockSize. (So YCSB's
// bucket i stands for lengths up to (i+1)*blockSize, and a draw of 0
// falls in bucket 0 even when it is empty.) It is safe for concurrent use
// with distinct r.
func (h *lengthHistogram) Next(r *rand.Rand) int64 {
	n := r.Int64N(h.area)
	last := len(h.buckets) - 1
	for i := 0; i < last; i++ {
		n -= h.buckets[i]
		if n <= 0 {
			return int64(i+1) * h.blockSize
		}
	}
	return int64(last) * h.blockSize
}

// max is the longest length Next returns.
func (h *lengthHistogram) max() int64 {
	return max(h.blockSize, int64(len(h.buckets)-1)*h.blockSize)
}
