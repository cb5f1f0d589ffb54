// Package prng is PostgreSQL's pseudo-random number generator (pg_prng,
// src/common/pg_prng.c, PostgreSQL 15) reimplemented in Go, and pgbench 15's
// way of deriving every random stream of a run from --random-seed.
//
// The generator is xoroshiro128** 1.0 (Blackman and Vigna), seeded from a
// 64-bit value with two steps of splitmix64. Every method draws exactly the
// values the C function of the same name draws, in the same order, so that a
// stampede run given pgbench's --random-seed reproduces pgbench's random
// choices value for value. The reimplementation follows the published
// algorithms and the behaviour of pgbench; no PostgreSQL code is copied.
//
// A State is not safe for concurrent use: pgbench gives each client and each
// thread its own, and so should callers.
package prng

import (
	"math"
	"math/bits"

	"github.com/stampede-bench/stampede/pgscript/crmath"
)

// State is one xoroshiro128** generator. Its zero value is not seeded (a
// generator whose state is all zero returns only zeros): call Seed first.
type State struct {
	s0, s1 uint64
}

// next is one step of xoroshiro128**: it returns 64 random bits and advances
// the state.
func (s *State) next() uint64 {
	s0 := s.s0
	sx := s.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	s.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	s.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// splitmix64 advances *x by the golden-ratio increment and returns the
// mixed value, as pg_prng's seeding does.
func splitmix64(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Seed sets the state from a 64-bit seed as pg_prng_seed does: two
// splitmix64 outputs, with a fixed non-zero state in the (practically
// impossible) case both are zero.
func (s *State) Seed(seed uint64) {
	s.s0 = splitmix64(&seed)
	s.s1 = splitmix64(&seed)
	if s.s0 == 0 && s.s1 == 0 {
		s.s0, s.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

// Uint64 returns a uniformly distributed uint64 (pg_prng_uint64).
func (s *State) Uint64() uint64 { return s.next() }

// Uint64Range returns a uniformly distributed value in [lo, hi], or lo when
// hi <= lo (pg_prng_uint64_range). It rejects draws above the range after
// shifting them down to the range's bit length, so it may draw more than
// once.
func (s *State) Uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := s.next() >> shift
		if v <= r {
			return lo + v
		}
	}
}

// Int64 returns a uniformly distributed int64 (pg_prng_int64).
func (s *State) Int64() int64 { return int64(s.next()) }

// Int64p returns a uniformly distributed int64 in [0, 2^63-1]
// (pg_prng_int64p).
func (s *State) Int64p() int64 { return int64(s.next() & 0x7FFFFFFFFFFFFFFF) }

// Uint32 returns the upper 32 bits of a draw (pg_prng_uint32).
func (s *State) Uint32() uint32 { return uint32(s.next() >> 32) }

// Double returns a uniformly distributed float64 in [0, 1) built from the
// upper 52 bits of a draw (pg_prng_double).
func (s *State) Double() float64 {
	return math.Ldexp(float64(s.next()>>12), -52)
}

// Bool returns the top bit of a draw (pg_prng_bool).
func (s *State) Bool() bool { return s.next()>>63 != 0 }

// Rand returns a uniformly distributed value in [min, max], as pgbench's
// getrand does: min + Uint64Range(0, max-min). The difference max-min must
// not overflow int64 (pgbench checks this before calling it).
func (s *State) Rand(min, max int64) int64 {
	return min + int64(s.Uint64Range(0, uint64(max-min)))
}

// Poisson returns a value whose series approximates a Poisson process
// centred on center, as pgbench's getPoissonRand does for --rate's
// schedule (drawn from a thread's Throttle stream): int64(-ln(u)*center +
// 0.5) with u in (0, 1].
func (s *State) Poisson(center float64) int64 {
	u := 1.0 - s.Double()
	return int64(-crmath.Log(u)*center + 0.5)
}

// Streams are the random states pgbench 15 derives from --random-seed, in
// the order it derives them from its base sequence (a State seeded with the
// seed): first one value per client to seed that client's state, then one
// value for :default_seed, then, thread by thread, one value each for the
// thread's script-choice, throttle and log-sampling states.
type Streams struct {
	// DefaultSeed is the :default_seed variable (the seed hash() and
	// permute() use when given none), unless -D sets it.
	DefaultSeed int64
	// Clients holds each client's cs_func_rs: the state \set's random
	// functions draw from.
	Clients []State
	// Choose holds each thread's ts_choose_rs: the state pgbench draws the
	// next script from (Rand(0, total weight - 1)).
	Choose []State
	// Throttle holds each thread's ts_throttle_rs: the state --rate's
	// Poisson schedule draws from.
	Throttle []State
	// Sample holds each thread's ts_sample_rs: the state --sampling-rate
	// draws from.
	Sample []State
}

// PgbenchStreams returns the states pgbench 15 derives from --random-seed
// seed for the given numbers of clients and threads. When -D sets
// default_seed, pgbench does not draw DefaultSeed, and the threads' states
// are drawn one value earlier: callers that honour such a -D should use
// PgbenchStreamsWithoutDefaultSeed.
func PgbenchStreams(seed uint64, clients, threads int) Streams {
	return streams(seed, clients, threads, true)
}

// PgbenchStreamsWithoutDefaultSeed is PgbenchStreams for a run whose
// default_seed variable is set by -D: pgbench then draws no value for it,
// and DefaultSeed is left zero.
func PgbenchStreamsWithoutDefaultSeed(seed uint64, clients, threads int) Streams {
	return streams(seed, clients, threads, false)
}

func streams(seed uint64, clients, threads int, drawDefault bool) Streams {
	var base State
	base.Seed(seed)
	st := Streams{
		Clients:  make([]State, clients),
		Choose:   make([]State, threads),
		Throttle: make([]State, threads),
		Sample:   make([]State, threads),
	}
	for i := range st.Clients {
		st.Clients[i].Seed(base.Uint64())
	}
	if drawDefault {
		st.DefaultSeed = int64(base.Uint64())
	}
	for i := 0; i < threads; i++ {
		st.Choose[i].Seed(base.Uint64())
		st.Throttle[i].Seed(base.Uint64())
		st.Sample[i].Seed(base.Uint64())
	}
	return st
}
