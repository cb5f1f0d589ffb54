package ycsb

import (
	"strings"
	"testing"
)

// TestPartitionClients gives each of several clients its own range of
// keys, covering the table with no overlap, as YCSB's insertstart and
// insertcount split a load.
func TestPartitionClients(t *testing.T) {
	const n = 3
	next := int64(0)
	for i := range n {
		g, _ := newConfig(t, "-p", "recordcount=1000", "--workload", "d")
		if err := g.PartitionClients(i, n); err != nil {
			t.Fatal(err)
		}
		c, err := g.config()
		if err != nil {
			t.Fatal(err)
		}
		if c.insertStart != next || c.insertCount < 333 || c.insertCount > 334 {
			t.Errorf("client %d: insertstart %d insertcount %d, want from %d, a third", i, c.insertStart, c.insertCount, next)
		}
		next += c.insertCount
		if !strings.Contains(c.source["insertstart"], "--client-index") {
			t.Errorf("client %d: insertstart from %q", i, c.source["insertstart"])
		}
		// The keys it inserts are its own: the stripes of its range.
		if k := c.keyNumber(c.insertCount); k != 1000+c.insertStart {
			t.Errorf("client %d: first insert key %d, want %d", i, k, 1000+c.insertStart)
		}
	}
	if next != 1000 {
		t.Errorf("the clients cover %d keys, want 1000", next)
	}
	for _, args := range [][]string{{"-p", "insertstart=10"}, {"-p", "insertcount=10"}, {"--insert-start", "5"}} {
		g, _ := newConfig(t, append([]string{"-p", "recordcount=1000"}, args...)...)
		if err := g.PartitionClients(0, 2); err == nil || !strings.Contains(err.Error(), "--clients gives each client its own keys") {
			t.Errorf("%v: %v", args, err)
		}
	}
	g, _ := newConfig(t, "-p", "recordcount=1")
	if err := g.PartitionClients(0, 2); err == nil || !strings.Contains(err.Error(), "insertcount must be at least 1") {
		t.Errorf("more clients than keys: %v", err)
	}
}
