package randgen_test

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/randgen"
)

func TestAcknowledgedCounterSequential(t *testing.T) {
	c := randgen.NewAcknowledgedCounter(100)
	if got := c.Last(); got != 99 {
		t.Fatalf("Last() = %d before any acknowledgement, want 99", got)
	}
	for want := int64(100); want < 110; want++ {
		if got := c.Next(); got != want {
			t.Fatalf("Next() = %d, want %d", got, want)
		}
	}
	for _, step := range []struct{ ack, last int64 }{
		{101, 99}, {103, 99}, {100, 101}, {102, 103}, {109, 103}, {105, 103}, {104, 105},
		{106, 106}, {108, 106}, {107, 109},
	} {
		c.Acknowledge(step.ack)
		if got := c.Last(); got != step.last {
			t.Fatalf("after Acknowledge(%d): Last() = %d, want %d", step.ack, got, step.last)
		}
	}
}

// TestAcknowledgedCounterWordBoundaries acknowledges runs that cross the
// bitmap's 64-bit words and wrap around a small window.
func TestAcknowledgedCounterWordBoundaries(t *testing.T) {
	for _, start := range []int64{0, 1, 63, 64, -5, math.MaxInt64 / 2} {
		c := randgen.NewAcknowledgedCounterWindow(start, 128)
		for i := range int64(1000) {
			if v := c.Next(); v != start+i {
				t.Fatalf("Next() = %d, want %d", v, start+i)
			}
		}
		// Acknowledge in blocks of 100, each block backwards, so every
		// block is released at once by its first value.
		for b := int64(0); b < 1000; b += 100 {
			for v := b + 99; v >= b; v-- {
				c.Acknowledge(start + v)
				want := start + b - 1
				if v == b {
					want = start + b + 99
				}
				if got := c.Last(); got != want {
					t.Fatalf("start %d: after Acknowledge(%d): Last() = %d, want %d", start, start+v, got, want)
				}
			}
		}
	}
}

func TestAcknowledgedCounterConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window int
		// ascending makes each worker acknowledge its own values in
		// increasing order (across workers the order stays arbitrary).
		// With a window smaller than the values in flight, a worker that
		// held back a value while acknowledging ones a window beyond it
		// would wait for itself forever.
		ascending bool
	}{
		{"shuffled", randgen.DefaultAckWindow, false},
		{"small-window", 256, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testAckConcurrent(t, tc.window, tc.ascending)
		})
	}
}

func testAckConcurrent(t *testing.T, window int, ascending bool) {
	const (
		start   = 1000
		workers = 8
		perG    = 20_000
		total   = workers * perG
	)
	c := randgen.NewAcknowledgedCounterWindow(start, window)
	acked := make([]atomic.Bool, total)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := randgen.New(20, uint64(w))
			var pending []int64
			for range perG {
				pending = append(pending, c.Next())
				// Acknowledge a random batch, shuffled unless ascending, and
				// now and then hold the oldest value back for another batch
				// (a slow insert) or pause.
				if len(pending) >= 1+r.IntN(50) {
					if !ascending {
						r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
					}
					keep := 0
					if !ascending && r.IntN(10) == 0 {
						keep = 1
					}
					for _, v := range pending[keep:] {
						acked[v-start].Store(true)
						c.Acknowledge(v)
					}
					pending = pending[:keep]
					if r.IntN(100) == 0 {
						time.Sleep(10 * time.Microsecond)
					}
				}
			}
			for _, v := range pending {
				acked[v-start].Store(true)
				c.Acknowledge(v)
			}
		})
	}
	// A reader checks that Last only grows and covers acknowledged values
	// only.
	done := make(chan struct{})
	readerErr := make(chan string, 1)
	go func() {
		defer close(readerErr)
		prev := int64(start - 1)
		for {
			select {
			case <-done:
				return
			default:
			}
			last := c.Last()
			if last < prev {
				readerErr <- "Last went backwards"
				return
			}
			for v := prev + 1; v <= last; v++ {
				if !acked[v-start].Load() {
					readerErr <- "Last covers a value not yet acknowledged"
					return
				}
			}
			prev = last
			runtime.Gosched()
		}
	}()
	wg.Wait()
	close(done)
	if msg, ok := <-readerErr; ok {
		t.Fatal(msg)
	}
	if got, want := c.Last(), int64(start+total-1); got != want {
		t.Fatalf("Last() = %d after all acknowledgements, want %d", got, want)
	}
}

func TestAcknowledgedCounterWindowWaits(t *testing.T) {
	c := randgen.NewAcknowledgedCounterWindow(10, 64) // window of 64 values
	for range 200 {
		c.Next()
	}
	c.Acknowledge(10 + 63) // within the window: returns at once
	done := make(chan struct{})
	go func() {
		c.Acknowledge(10 + 100) // 101 values past Last: must wait
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("Acknowledge beyond the window returned before Last caught up")
	case <-time.After(50 * time.Millisecond):
	}
	for v := int64(10); v < 10+40; v++ {
		c.Acknowledge(v)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Acknowledge still waiting after Last caught up")
	}
	for v := int64(10 + 40); v < 10+200; v++ {
		if v != 10+63 && v != 10+100 {
			c.Acknowledge(v)
		}
	}
	if got := c.Last(); got != 10+199 {
		t.Fatalf("Last() = %d, want %d", got, 10+199)
	}
}

func TestAcknowledgedCounterPanics(t *testing.T) {
	for name, f := range map[string]func(c *randgen.AcknowledgedCounter){
		"twice":         func(c *randgen.AcknowledgedCounter) { c.Acknowledge(6); c.Acknowledge(6) },
		"twice-done":    func(c *randgen.AcknowledgedCounter) { c.Acknowledge(5); c.Acknowledge(5) },
		"below-start":   func(c *randgen.AcknowledgedCounter) { c.Acknowledge(4) },
		"never-handed":  func(c *randgen.AcknowledgedCounter) { c.Acknowledge(8) },
		"never-handed2": func(c *randgen.AcknowledgedCounter) { c.Acknowledge(1 << 40) },
	} {
		t.Run(name, func(t *testing.T) {
			c := randgen.NewAcknowledgedCounter(5)
			c.Next()
			c.Next()
			c.Next() // 5, 6, 7 handed out
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			f(c)
		})
	}
}

func TestSkewedLatest(t *testing.T) {
	c := randgen.NewAcknowledgedCounter(0)
	insert := func(n int) {
		for range n {
			c.Acknowledge(c.Next())
		}
	}
	insert(1000)
	g := randgen.NewSkewedLatest(c)
	r := randgen.New(21, 21)
	for _, round := range []int{1000, 2000, 2001, 50_000} {
		insert(round - int(c.Last()+1))
		last := c.Last()
		const draws = 300_000
		counts := map[int64]int{}
		for range draws {
			v := g.Next(r)
			if v > last || v < 1 {
				t.Fatalf("Last()=%d: value %d outside [1, Last()]", last, v)
			}
			counts[v]++
		}
		// The newest key is the hottest, at the Zipfian's rank-0 frequency
		// 1/ζ(Last()), and popularity falls with age.
		p := 1 / harmonic(last, randgen.ZipfianConstant)
		within(t, "frequency of Last()", float64(counts[last])/draws, p, binomialTol(p, draws))
		p1 := math.Pow(2, -randgen.ZipfianConstant) / harmonic(last, randgen.ZipfianConstant)
		within(t, "frequency of Last()-1", float64(counts[last-1])/draws, p1, binomialTol(p1, draws))
		newest, older := 0, 0
		for v, n := range counts {
			if v > last-10 {
				newest += n
			} else if v <= 10 {
				older += n
			}
		}
		if newest < 10*older {
			t.Errorf("Last()=%d: the 10 newest keys drawn %d times, the 10 oldest %d", last, newest, older)
		}
	}
}

func TestSkewedLatestEmptyBasis(t *testing.T) {
	c := randgen.NewAcknowledgedCounter(0)
	g := randgen.NewSkewedLatest(c) // Last() = -1
	r := randgen.New(1, 1)
	if v := g.Next(r); v != -1 {
		t.Errorf("Next() = %d with Last() = -1, want -1", v)
	}
	c.Acknowledge(c.Next()) // Last() = 0
	if v := g.Next(r); v != 0 {
		t.Errorf("Next() = %d with Last() = 0, want 0", v)
	}
	c.Acknowledge(c.Next()) // Last() = 1: the one choice is 1
	if v := g.Next(r); v != 1 {
		t.Errorf("Next() = %d with Last() = 1, want 1", v)
	}
	for range 100 {
		c.Acknowledge(c.Next())
	}
	for range 1000 {
		if v := g.Next(r); v < 1 || v > 101 {
			t.Fatalf("Next() = %d with Last() = 101", v)
		}
	}
}

// TestSkewedLatestConcurrentInserts runs per-worker generators while another
// goroutine inserts: no value may exceed the Last() read after drawing it.
func TestSkewedLatestConcurrentInserts(t *testing.T) {
	c := randgen.NewAcknowledgedCounter(0)
	for range 100 {
		c.Acknowledge(c.Next())
	}
	stop := make(chan struct{})
	var inserter sync.WaitGroup
	inserter.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				c.Acknowledge(c.Next())
			}
		}
	})
	var readers sync.WaitGroup
	errs := make(chan int64, 4)
	for w := range 4 {
		readers.Go(func() {
			g := randgen.NewSkewedLatest(c)
			r := randgen.New(22, uint64(w))
			for range 50_000 {
				v := g.Next(r)
				if v < 1 || v > c.Last() {
					errs <- v
					return
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	inserter.Wait()
	close(errs)
	for v := range errs {
		t.Errorf("value %d outside [1, Last()]", v)
	}
}
