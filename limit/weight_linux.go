package limit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// The CPU weight of one nice-0 thread outside any group, and the bounds
// of a group's: cgroup v1's cpu.shares, cgroup v2's cpu.weight.
const (
	sharesPerThread, minShares, maxShares = 1024, 2, 262144
	weightPerThread, minWeight, maxWeight = 100, 1, 10000
)

// Reweigh gives the group the CPU weight its threads had before they were
// moved in (1024 cpu.shares each on v1, 100 cpu.weight on v2), and the
// stampede parent group the sum of its groups' weights. The scheduler
// weighs a group as one thread of its weight against the root group's
// threads: a server of twenty processes moved into a group of the default
// weight got on a busy machine the CPU of one process, whatever its
// quota, and a memory limit alone cut its CPU too. A limit must change
// what it limits, nothing else. Call it when processes join; a group
// without the CPU controller is left as it is.
func (g *Group) Reweigh() error {
	dir, file, per, lo, hi := filepath.Join(g.root, "cpu", Parent), "cpu.shares", sharesPerThread, minShares, maxShares
	threads := "tasks"
	if g.mode == V2 {
		dir, file, per, lo, hi = filepath.Join(g.root, Parent), "cpu.weight", weightPerThread, minWeight, maxWeight
		threads = "cgroup.threads"
	}
	own := filepath.Join(dir, g.name)
	if !exists(filepath.Join(own, file)) {
		return nil // not in the CPU controller
	}
	n, err := countLines(filepath.Join(own, threads))
	if err != nil {
		return err
	}
	w := per
	if n > 0 {
		w = min(max(per*n, lo), hi)
	}
	if err := os.WriteFile(filepath.Join(own, file), []byte(strconv.Itoa(w)), 0o644); err != nil {
		return err
	}
	return reweighParent(dir, file, lo, hi)
}

// reweighParent sets the parent group's weight (file in dir) to the sum
// of its groups', within lo..hi.
func reweighParent(dir, file string, lo, hi int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	sum := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), file))
		if err != nil {
			continue // gone meanwhile, or not in the controller
		}
		if w, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil {
			sum += w
		}
	}
	if sum == 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(min(max(sum, lo), hi))), 0o644)
}

// countLines counts the non-empty lines of a cgroup file.
func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n, nil
}
