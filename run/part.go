package run

import (
	"context"
	"maps"
	"strconv"
	"time"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/workload"
)

// Part says that a run is one of several clients of one benchmark,
// started together on several machines or pods: it runs its share of the
// benchmark's rate and operations, its own operation sequence and, for
// workloads that insert (YCSB), its own keys; and it can wait for a common
// start so that the clients' intervals line up when `report` merges them.
type Part struct {
	// Index is this client's, from 0 (a Kubernetes indexed Job's
	// JOB_COMPLETION_INDEX); Count is the clients', 0 for a run on its
	// own.
	Index, Count int
	// StartAt, when not zero, is when the workers start: the run sets up
	// (connections, the workload) and then waits for it.
	StartAt time.Time
}

// PartTag is the tag a client's run gets: its index and the count
// ("0/4"), so that `stampede runs --tag` finds the clients' runs.
const PartTag = "client"

// applyPart makes spec the share of client p.Index of p.Count: the rate
// and operation budget divided, the workload partitioned, the run tagged.
// It is called before the spec is validated.
func applyPart(spec *Spec) error {
	p := spec.Part
	switch {
	case p.Count == 0 && p.Index == 0:
		return nil
	case p.Count < 1 || p.Count > maxClients:
		return inputf("Spec.Part.Count %d: give the number of clients, from 1 to %d", p.Count, maxClients)
	case p.Index < 0 || p.Index >= p.Count:
		return inputf("Spec.Part.Index %d: give this client's index, from 0 to %d (one less than the clients)", p.Index, p.Count-1)
	}
	if spec.Fleet != nil {
		f, err := FleetShare(*spec.Fleet, p.Index, p.Count)
		if err != nil {
			return err
		}
		spec.Fleet = &f
	}
	n := float64(p.Count)
	spec.MaxRate /= n
	spec.QueueRate /= n
	if spec.MaxOps > 0 {
		share := spec.MaxOps / int64(p.Count)
		if int64(p.Index) < spec.MaxOps%int64(p.Count) {
			share++
		}
		if share == 0 {
			return inputf("Spec.MaxOps %d is fewer than the %d clients: give each at least one operation", spec.MaxOps, p.Count)
		}
		spec.MaxOps = share
	}
	if cp, ok := spec.Workload.(workload.ClientPartitioner); ok && spec.Fleet == nil {
		// A fleet's clients split its tenants, each tenant's data whole.
		if err := cp.PartitionClients(p.Index, p.Count); err != nil {
			return asInput(err)
		}
	}
	spec.Tags = maps.Clone(spec.Tags)
	if spec.Tags == nil {
		spec.Tags = map[string]string{}
	}
	spec.Tags[PartTag] = strconv.Itoa(p.Index) + "/" + strconv.Itoa(p.Count)
	return nil
}

// FleetShare returns client index's share of fleet f of count clients:
// a contiguous range of its tenants (tenants index×T/count+1 to
// (index+1)×T/count, as TPC-C's clients split warehouses) and its share
// of f.Active, which must then be a multiple of count (each client runs
// Active/count tenant workloads at once; 0, every tenant, gives each
// client all of its own). More clients than tenants is refused.
func FleetShare(f Fleet, index, count int) (Fleet, error) {
	t := f.Spec.Tenants
	switch {
	case count > t:
		return f, inputf("--clients %d is more than --tenants %d: each client runs at least one tenant; use at most %d clients", count, t, t)
	case f.Active != 0 && f.Active != t && f.Active%count != 0:
		return f, inputf("--active %d is not a multiple of --clients %d: each client runs --active ÷ --clients tenant workloads at once; give %d or %d", f.Active, count, f.Active/count*count, (f.Active/count+1)*count)
	}
	f.First, f.Last = fleet.ShareRange(t, index, count)
	if f.Active == 0 || f.Active == t {
		f.Active = f.Last - f.First + 1
	} else {
		f.Active /= count
	}
	return f, nil
}

// maxClients bounds Part.Count: more clients than that is a typo.
const maxClients = 100000

// partSeed is client index's operation seed for a benchmark whose seed
// is seed: distinct per client (clients replaying one sequence would
// read and write the same keys in step), the same for the same seed and
// index, so a client's run can be repeated.
func partSeed(seed uint64, index int) uint64 {
	// splitmix64 of seed and index: well mixed, never 0 in practice.
	z := seed + uint64(index+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// waitForStart waits until at, the clients' common start, reporting it on
// log; a start already past is reported as late. It returns
// ErrInterrupted when ctx ends first.
func waitForStart(ctx context.Context, at time.Time, log func(format string, args ...any)) error {
	d := time.Until(at)
	if d <= 0 {
		log("warning: the clients' start (%s) was %s ago when this client was ready: it starts now, late", at.UTC().Format(time.RFC3339), (-d).Round(time.Millisecond))
		return nil
	}
	log("waiting %s for the clients' start at %s", d.Round(time.Millisecond), at.UTC().Format(time.RFC3339Nano))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ErrInterrupted
	case <-t.C:
		return nil
	}
}
