package prng

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
)

// TestSeedIsSplitmix64 checks the seeding against splitmix64's published
// reference output for seed 0 (Vigna's splitmix64.c: 0xe220a8397b1dcdaf,
// 0x6e789e6aa1b965f4).
func TestSeedIsSplitmix64(t *testing.T) {
	var s State
	s.Seed(0)
	if s.s0 != 0xe220a8397b1dcdaf || s.s1 != 0x6e789e6aa1b965f4 {
		t.Fatalf("Seed(0) = %#x, %#x; splitmix64's first outputs are 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4", s.s0, s.s1)
	}
}

// TestRanges checks the properties the callers rely on: Uint64Range stays
// in [lo, hi] and reaches both ends, returns lo for an empty range, Rand
// stays in [min, max], and Double in [0, 1).
func TestRanges(t *testing.T) {
	var s State
	s.Seed(42)
	cases := []struct{ lo, hi uint64 }{{0, 1}, {5, 9}, {0, 6}, {1 << 62, 1<<62 + 2}, {0, 1<<64 - 1}, {10, 10}, {10, 3}}
	for _, c := range cases {
		seenLo, seenHi := false, false
		for i := 0; i < 2000; i++ {
			v := s.Uint64Range(c.lo, c.hi)
			if c.hi <= c.lo {
				if v != c.lo {
					t.Fatalf("Uint64Range(%d, %d) = %d, want %d", c.lo, c.hi, v, c.lo)
				}
				continue
			}
			if v < c.lo || v > c.hi {
				t.Fatalf("Uint64Range(%d, %d) = %d", c.lo, c.hi, v)
			}
			seenLo = seenLo || v == c.lo
			seenHi = seenHi || v == c.hi
		}
		if c.hi > c.lo && c.hi-c.lo < 10 && !(seenLo && seenHi) {
			t.Errorf("Uint64Range(%d, %d) never drew one of its ends in 2000 draws", c.lo, c.hi)
		}
	}
	for i := 0; i < 10000; i++ {
		if d := s.Double(); d < 0 || d >= 1 {
			t.Fatalf("Double() = %v", d)
		}
		if r := s.Rand(-3, 3); r < -3 || r > 3 {
			t.Fatalf("Rand(-3, 3) = %d", r)
		}
		if p := s.Poisson(1000); p < 0 {
			t.Fatalf("Poisson(1000) = %d", p)
		}
	}
	// The mean of Poisson(c) is c (within 2% over 100,000 draws).
	sum := 0.0
	for i := 0; i < 100000; i++ {
		sum += float64(s.Poisson(1000))
	}
	if mean := sum / 100000; math.Abs(mean-1000) > 20 {
		t.Errorf("Poisson(1000)'s mean over 100,000 draws is %.1f", mean)
	}
}

// TestDefaultSeedMatchesPgbench compares :default_seed, which pgbench
// draws from its base sequence after one value per client, with
// PgbenchStreams' for several seeds and numbers of clients, and the first
// random() of every client (its own stream). One thread: pgbench's threads
// interleave their debug() lines on standard error.
func TestDefaultSeedMatchesPgbench(t *testing.T) {
	url := testdb.URL(t)
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench in PATH: this test compares with PostgreSQL 15's pgbench")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.sql")
	script := "\\set r random(1, 1000000000)\n\\set d debug(:default_seed + 0 * :r)\n\\set c debug(:client_id * 1000000000 + :r)\n"
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`debug\(script=0,command=(\d)\): int (-?\d+)`)
	for _, c := range []struct {
		seed             uint64
		clients, threads int
	}{{0, 1, 1}, {1, 1, 1}, {5, 4, 1}, {1<<64 - 1, 7, 1}, {123456789, 2, 1}} {
		cmd := exec.Command(bin, "-n", "-t", "1", "-c", fmt.Sprint(c.clients), "-j", fmt.Sprint(c.threads),
			fmt.Sprintf("--random-seed=%d", c.seed), "-f", file, url)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("pgbench: %v\n%s", err, stderr.String())
		}
		st := PgbenchStreams(c.seed, c.clients, c.threads)
		firsts := map[string]bool{}
		for i := range st.Clients {
			firsts[fmt.Sprint(int64(i)*1000000000+st.Clients[i].Rand(1, 1000000000))] = true
		}
		n := 0
		for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
			switch m[1] {
			case "2":
				if m[2] != fmt.Sprint(st.DefaultSeed) {
					t.Errorf("seed %d, %d clients: pgbench's :default_seed is %s, PgbenchStreams' %d", c.seed, c.clients, m[2], st.DefaultSeed)
				}
			case "3":
				if !firsts[m[2]] {
					t.Errorf("seed %d: pgbench's client drew %s, not one of %v", c.seed, m[2], firsts)
				}
				n++
			}
		}
		if n != c.clients {
			t.Fatalf("seed %d: %d clients' values in pgbench's output, want %d:\n%s", c.seed, n, c.clients, strings.TrimSpace(stderr.String()))
		}
	}
}
