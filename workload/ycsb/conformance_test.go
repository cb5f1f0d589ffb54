package ycsb

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// TestConformanceWarnings: proportions that do not sum to 1 are rescaled
// as YCSB's DiscreteGenerator rescales them, and a -p a flag overrides is
// named; each in one warning line.
func TestConformanceWarnings(t *testing.T) {
	g, c := newConfig(t, "-p", "readproportion=0.6", "-p", "updateproportion=0.6",
		"-p", "recordcount=5000", "--record-count", "300", "-p", "fieldcount=4", "--field-count", "4")
	want := []string{
		"--record-count overrides -p recordcount=5000: using recordcount=300",
		"operation proportions sum to 1.2, not 1: rescaled as YCSB does, to read=0.5 update=0.5",
	}
	if got := Warnings(g); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.proportions != [numOps]float64{0.5, 0.5, 0, 0, 0} || c.recordCount != 300 {
		t.Errorf("proportions %v recordcount %d", c.proportions, c.recordCount)
	}
	// A sum below 1 is rescaled up: YCSB draws read 0.2/0.4 of the time.
	g, c = newConfig(t, "--workload", "c", "-p", "readproportion=0.2", "-p", "insertproportion=0.2")
	if c.proportions != [numOps]float64{0.5, 0, 0.5, 0, 0} {
		t.Errorf("proportions %v, want read and insert 0.5", c.proportions)
	}
	if w := Warnings(g); len(w) != 1 || !strings.Contains(w[0], "sum to 0.4, not 1") {
		t.Errorf("warnings %q", w)
	}
}

// TestExpectedNewKeys: the zipfian's allowance of inserted keys comes from
// operationcount when it is given, 0 included, as in CoreWorkload.
func TestExpectedNewKeys(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"--workload", "e", "--record-count", "1000"}, 100},                                            // no operationcount: recordcount * 0.05 * 2
		{[]string{"--workload", "e", "--record-count", "1000", "-p", "operationcount=5000"}, 500},               // 5000 * 0.05 * 2
		{[]string{"--workload", "e", "--record-count", "1000", "-p", "operationcount=0"}, 0},                    // YCSB's 0
		{[]string{"--workload", "a", "--record-count", "1000", "-p", "operationcount=5000"}, 0},                 // no inserts
		{[]string{"-P", "testdata/workloada", "-p", "insertproportion=0.1", "-p", "updateproportion=0.4"}, 200}, // the file's 1000 ops
	} {
		_, c := newConfig(t, tc.args...)
		if got := c.expectedNewKeys(); got != tc.want {
			t.Errorf("%q: expectednewkeys %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestZipfianConstantEverywhere: zipfianconstant reaches every zipfian
// draw: request distributions zipfian and latest, scan lengths and value
// lengths. With constant 0 a zipfian is uniform, which a chi-square-free
// check tells apart from 0.99's skew: the top value's share.
func TestZipfianConstantEverywhere(t *testing.T) {
	const draws = 200000
	share := func(gen randgen.IntGenerator, top int64) float64 {
		r := randgen.New(1, 1)
		n := 0
		for i := 0; i < draws; i++ {
			if gen.Next(r) == top {
				n++
			}
		}
		return float64(n) / draws
	}
	for _, k := range []float64{0, 0.99} {
		args := []string{"--record-count", "100", "--zipfian-constant", fmt.Sprint(k),
			"--field-length-distribution", "zipfian", "--field-length", "100", "--scan-length-distribution", "zipfian",
			"--max-scan-length", "100", "--request-distribution", "latest"}
		_, c := newConfig(t, args...)
		db := nullDB(t)
		w := newWorker(c, c.statements(db.Dialect()), db.Conn(0, true), randgen.New(1, 1), randgen.NewAcknowledgedCounter(100), nil)
		uniform := 0.01
		for name, got := range map[string]float64{
			"value length": share(c.newFieldLengths().gen, 1),
			"scan length":  share(w.scanLengths, 1),
			"latest":       share(w.keys, 99),
		} {
			if k == 0 && math.Abs(got-uniform) > 0.003 {
				t.Errorf("zipfianconstant 0: %s's top value has share %.4f, want %.2f (uniform)", name, got, uniform)
			}
			if k == 0.99 && got < 0.1 {
				t.Errorf("zipfianconstant 0.99: %s's top value has share %.4f, want a skew", name, got)
			}
		}
	}
}

// TestLengthHistogram reads a histogram file and draws lengths as YCSB's
// HistogramGenerator does: n uniform in [0, area), bucket i (but the
// last) when n minus the counts of buckets 0..i is at most 0, giving
// (i+1)*blocksize.
func TestLengthHistogram(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "hist.txt", "BlockSize\t10\n0\t1\n1\t2\n2\t0\n3\t5\n\n")
	_, c := newConfig(t, "-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram="+f, "--field-count", "2")
	h := c.fieldHistogram
	if h == nil || h.blockSize != 10 || fmt.Sprint(h.buckets) != "[1 2 0 5]" || h.area != 8 || c.maxFieldLength() != 30 {
		t.Fatalf("histogram %+v, max %d", h, c.maxFieldLength())
	}
	// n = 0, 1 → 10 (bucket 0: 0-1 <= 0 and 1-1 <= 0); n = 2, 3 → 20; n =
	// 4..7 pass bucket 2 (count 0) only at i = 2 when n-3 <= 0: none, so
	// they fall to the last bucket, 3*10.
	want := map[int64]float64{10: 2.0 / 8, 20: 2.0 / 8, 30: 4.0 / 8}
	got := map[int64]int{}
	r := randgen.New(3, 3)
	const draws = 80000
	for i := 0; i < draws; i++ {
		got[h.Next(r)]++
	}
	for v, p := range want {
		if share := float64(got[v]) / draws; math.Abs(share-p) > 0.01 {
			t.Errorf("length %d: share %.4f, want %.4f (all: %v)", v, share, p, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("lengths drawn %v, want only %v", got, want)
	}
	// The rows loaded have those lengths.
	var lens []int64
	c.eachRow(0, func(_ []byte, _ []byte, l []int64) { lens = append(lens, l...) })
	for _, l := range lens {
		if l != 10 && l != 20 && l != 30 {
			t.Fatalf("loaded a value of length %d", l)
		}
	}

	for _, tc := range []struct{ content, want string }{
		{"", "is empty"},
		{"BlockSize\t0\n0\t1\n", `:1: the first line must be BlockSize<TAB>N with N a positive integer, not "BlockSize\t0"`},
		{"BlockSize\t4\n0\t1\n2\t1\n", ":3: bucket 2 out of order: expected bucket 1"},
		{"BlockSize\t4\n0\tmany\n", `:2: expected BUCKET<TAB>COUNT, two non-negative integers, not "0\tmany"`},
		{"BlockSize\t4\n0\t0\n", "has no bucket with a positive count"},
	} {
		f := writeFile(t, dir, "bad.txt", tc.content)
		err := resolveErr("-p", "fieldlengthdistribution=histogram", "-p", "fieldlengthhistogram="+f)
		if !strings.HasPrefix(err, "fieldlengthhistogram (from -p): ") || !strings.Contains(err, tc.want) || strings.Contains(err, "\n") {
			t.Errorf("%q: error %q, want one line with %q", tc.content, err, tc.want)
		}
	}
}

// TestKeyNumber: own indexes map to the loaded keys, then to stripes of
// insertcount keys placed as the load range is in recordcount: two
// clients that split the load never insert the same key, and a client
// that loads the whole table inserts recordcount, recordcount+1, ...
func TestKeyNumber(t *testing.T) {
	_, whole := newConfig(t, "--record-count", "100")
	for _, i := range []int64{0, 99, 100, 101, 250, 1 << 40} {
		if got := whole.keyNumber(i); got != i {
			t.Errorf("whole table: keyNumber(%d) = %d", i, got)
		}
	}
	_, a := newConfig(t, "--record-count", "100", "--insert-start", "0", "--insert-count", "50")
	_, b := newConfig(t, "--record-count", "100", "--insert-start", "50", "--insert-count", "50")
	for _, tc := range []struct {
		c    *config
		i    int64
		want int64
	}{
		{a, 0, 0}, {a, 49, 49}, {a, 50, 100}, {a, 99, 149}, {a, 100, 200},
		{b, 0, 50}, {b, 49, 99}, {b, 50, 150}, {b, 99, 199}, {b, 100, 250},
	} {
		if got := tc.c.keyNumber(tc.i); got != tc.want {
			t.Errorf("insertstart %d: keyNumber(%d) = %d, want %d", tc.c.insertStart, tc.i, got, tc.want)
		}
	}
	seen := map[int64]bool{}
	for _, c := range []*config{a, b} {
		for i := int64(0); i < 1000; i++ {
			k := c.keyNumber(i)
			if seen[k] {
				t.Fatalf("key %d twice", k)
			}
			seen[k] = true
		}
	}
}
