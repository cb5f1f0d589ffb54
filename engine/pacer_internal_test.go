package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const us = time.Microsecond

// TestScheduleAccount checks the split of each operation's schedule lag
// into queueing and pacer lag, against a punctual client worked out by
// hand, for one worker with a 100 µs interval.
func TestScheduleAccount(t *testing.T) {
	type op struct {
		start, service, wait time.Duration // start is an offset from the intended start
		queue, pacer         time.Duration // want
	}
	for _, tc := range []struct {
		name string
		ops  []op
	}{
		{"on time", []op{{0, 10 * us, 0, 0, 0}, {0, 10 * us, 0, 0, 0}}},
		{"woke late", []op{{30 * us, 10 * us, 0, 0, 30 * us}, {5 * us, 10 * us, 0, 0, 5 * us}}},
		// A 250 µs operation: the next two queue behind it (150 µs,
		// then 60 µs); a punctual client would have been as late.
		{"slow operation", []op{
			{0, 250 * us, 0, 0, 0},
			{150 * us, 10 * us, 0, 150 * us, 0},
			{60 * us, 10 * us, 0, 60 * us, 0},
			{0, 10 * us, 0, 0, 0},
		}},
		// The pacer wakes 180 µs late for a 90 µs operation: the next
		// operation is 170 µs late, all of it the pacer's fault (the
		// punctual client would have been free at 90 µs), and the one
		// after that 80 µs late, still the pacer's.
		{"late wake delays the next ones", []op{
			{180 * us, 90 * us, 0, 0, 180 * us},
			{170 * us, 90 * us, 0, 0, 170 * us},
			{160 * us, 10 * us, 0, 0, 160 * us},
			{0, 10 * us, 0, 0, 0},
		}},
		// Both: a slow operation and a late wake-up after it.
		{"queueing and late wake", []op{
			{0, 150 * us, 0, 0, 0},
			{70 * us, 10 * us, 0, 50 * us, 20 * us},
			{0, 10 * us, 0, 0, 0},
		}},
		// Think time counts like service time for the punctual client.
		{"think time", []op{
			{0, 10 * us, 120 * us, 0, 0},
			{30 * us, 10 * us, 0, 30 * us, 0},
			{0, 10 * us, 0, 0, 0},
		}},
		// The worker's own bookkeeping between back-to-back operations
		// is the client's delay, not the server's.
		{"bookkeeping while behind", []op{
			{0, 300 * us, 0, 0, 0},
			{201 * us, 10 * us, 0, 200 * us, 1 * us},
			{112 * us, 10 * us, 0, 110 * us, 2 * us},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := schedule{interval: 100 * us, next: 1000 * us}
			for i, o := range tc.ops {
				intended := s.intend()
				start := intended + o.start
				queue, pacer := s.account(intended, start, start+o.service, o.wait)
				if queue != o.queue || pacer != o.pacer {
					t.Errorf("op %d: queue %v pacer %v, want %v and %v", i, queue, pacer, o.queue, o.pacer)
				}
				if queue+pacer != start-intended {
					t.Errorf("op %d: queue %v + pacer %v != schedule lag %v", i, queue, pacer, start-intended)
				}
			}
		})
	}
}

// TestSpinWindowAdapts checks that the spin window settles near the 95th
// percentile of the overshoots it sees, and stays within its bounds.
func TestSpinWindowAdapts(t *testing.T) {
	p := pacer{maxSpin: maxSpin}
	// Overshoots 1..100 µs, evenly: the 95th percentile is 95 µs.
	for i := 0; i < 20000; i++ {
		p.adapt(time.Duration(1+(i*37)%100) * us)
	}
	if p.spin < 90*us || p.spin > 99*us {
		t.Errorf("spin window %v after overshoots spread over 1-100 µs, want about 95 µs", p.spin)
	}
	for i := 0; i < 1000; i++ {
		p.adapt(time.Second)
	}
	if p.spin != maxSpin {
		t.Errorf("spin window %v after huge overshoots, want the cap %v", p.spin, maxSpin)
	}
	for i := 0; i < 5000; i++ {
		p.adapt(0)
	}
	if p.spin != 0 {
		t.Errorf("spin window %v after punctual wake-ups, want 0", p.spin)
	}
	q := newPacer(&runner{}, 40*us)
	if q.maxSpin != 10*us {
		t.Errorf("spin cap %v for a 40 µs interval, want a quarter of it", q.maxSpin)
	}
}

func TestParsePacer(t *testing.T) {
	for _, p := range []Pacer{PacerPrecise, PacerCoarse} {
		got, err := ParsePacer(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePacer(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePacer("exact"); err == nil {
		t.Error("ParsePacer accepted an unknown name")
	}
}

// TestScheduleGaps: an even schedule's intended starts are one interval
// apart; a Poisson one's gaps have the interval as their mean and a
// coefficient of variation near 1 (exponential gaps).
func TestScheduleGaps(t *testing.T) {
	const interval = time.Millisecond
	for _, poisson := range []bool{false, true} {
		s := schedule{interval: interval}
		if poisson {
			s.rng = rand.New(rand.NewPCG(1, 2))
		}
		const n = 20000
		var sum, sq float64
		prev := s.intend()
		for range n {
			next := s.intend()
			g := float64(next - prev)
			sum, sq, prev = sum+g, sq+g*g, next
		}
		mean := sum / n
		cv := math.Sqrt(max(0, sq/n-mean*mean)) / mean
		switch {
		case mean < 0.97*float64(interval) || mean > 1.03*float64(interval):
			t.Errorf("poisson=%v: mean gap %v, want %v", poisson, time.Duration(mean), interval)
		case poisson && (cv < 0.95 || cv > 1.05):
			t.Errorf("Poisson: coefficient of variation %.3f, want about 1", cv)
		case !poisson && cv > 1e-9:
			t.Errorf("even: coefficient of variation %.3f, want 0", cv)
		}
	}
}
