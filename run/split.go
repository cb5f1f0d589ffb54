package run

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
)

// Values of Split.By.
const (
	ByEndpoint = "endpoint"
	ByLocality = "locality"
)

// Split says how a run's interval lines and final block break each
// operation down besides its own line: by the endpoint that served it
// (read@10.0.0.5:26257) or by that endpoint's locality (read@region=east).
// The run records a part series per operation and endpoint either way
// (see engine.Split); localities are merges of their endpoints' parts. It
// is safe for concurrent use.
type Split struct {
	// By is ByEndpoint or ByLocality.
	By string

	mu         sync.Mutex
	localities map[string]string // endpoint name in part series -> locality
}

// Locality returns the locality of the endpoint named ep in part series.
func (s *Split) Locality(ep string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.localities[ep]
}

func (s *Split) setLocality(ep, loc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.localities == nil {
		s.localities = map[string]string{}
	}
	s.localities[ep] = loc
}

// splitter adds a run's part series as endpoints come (sqlx.DB.OnEndpoint)
// and tells the engine which part a worker's connection is in.
type splitter struct {
	split *Split
	reg   *stats.Registry
	ops   []string
	// offsets gives each operation's place among an endpoint's parts, or
	// -1 for the parts of operations (read/not_found, results.IsPart),
	// which are not split further.
	offsets []int32
	bases   atomic.Pointer[[]int32] // by endpoint slot: the part series of its first operation
	names   map[string]bool         // endpoint names used in part series

	mu      sync.Mutex
	rw      *runlog.Writer  // nil until the run directory exists
	pending []runlog.Event  // endpoint events before then
	counts  []*atomic.Int64 // reconnects by slot (sqlx's), for the run log
	eps     []string        // endpoint names by slot, as in part series
}

func newSplitter(s *Split, reg *stats.Registry, ops []string) *splitter {
	sp := &splitter{split: s, reg: reg, ops: ops, names: map[string]bool{}}
	n := int32(0)
	for _, op := range ops {
		off := int32(-1)
		if !results.IsPart(op) {
			off, n = n, n+1
		}
		sp.offsets = append(sp.offsets, off)
	}
	sp.bases.Store(&[]int32{})
	return sp
}

// endpoint is sqlx.DB.OnEndpoint's callback: an endpoint added gets a
// part of every operation series, before any worker can use it.
func (sp *splitter) endpoint(e sqlx.Endpoint, removed bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	code := results.EndpointAdded
	if removed {
		code = results.EndpointRemoved
	}
	if e.Slot >= len(sp.eps) {
		name := e.Name
		if sp.names[name] {
			name = fmt.Sprintf("%s#%d", e.Name, e.Slot) // the same host:port twice
		}
		sp.names[name] = true
		bases := append([]int32(nil), *sp.bases.Load()...)
		for len(bases) < e.Slot {
			bases = append(bases, -1)
		}
		base := -1
		for op, opName := range sp.ops {
			if sp.offsets[op] < 0 {
				continue
			}
			i := sp.reg.AddSeries(opName+results.SplitSep+name, op)
			if base < 0 {
				base = i
			}
		}
		bases = append(bases, int32(base))
		sp.bases.Store(&bases)
		for len(sp.eps) < e.Slot {
			sp.eps = append(sp.eps, "")
		}
		sp.eps = append(sp.eps, name)
		if e.Locality != "" {
			sp.split.setLocality(name, e.Locality)
		}
	}
	ev := runlog.Event{Time: time.Now(), Kind: results.EndpointEvent, Op: sp.eps[e.Slot], Code: code, Message: e.Locality}
	if sp.rw == nil {
		sp.pending = append(sp.pending, ev)
		return
	}
	sp.rw.Event(ev)
}

// attach writes the endpoint events so far to the run log, and the later
// ones as they come.
func (sp *splitter) attach(rw *runlog.Writer) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.rw = rw
	for _, ev := range sp.pending {
		rw.Event(ev)
	}
	sp.pending = nil
}

// engineSplit is the engine's view of the split: the workers' cells are
// db's.
func (sp *splitter) engineSplit(db *sqlx.DB) *engine.Split {
	return &engine.Split{Cell: db.WorkerCell, Bases: &sp.bases, Offsets: sp.offsets}
}

// reconnectExtras adds each endpoint's reconnects so far to an interval's
// extras, as reconnects@ENDPOINT.
func (sp *splitter) reconnectExtras(db *sqlx.DB, extra map[string]float64) {
	sp.mu.Lock()
	eps := append([]string(nil), sp.eps...)
	sp.mu.Unlock()
	for _, st := range db.EndpointStats() {
		if st.Slot < len(eps) && eps[st.Slot] != "" {
			extra[results.ReconnectsExtra+results.SplitSep+eps[st.Slot]] = float64(st.Reconnects)
		}
	}
}

// SplitOps returns the lines that break the displayed operations down as
// d.Split says, for an interval (final false: interval and cumulative
// figures) or the final block: OP@ENDPOINT or OP@LOCALITY, in the order
// the endpoints came, for the parts that saw an operation or an error;
// none without a Split.
func (d Display) SplitOps(t stats.Tick, final bool) []report.Op {
	if d.Split == nil {
		return nil
	}
	shown := map[int]string{} // operation series -> its displayed name
	for k, i := range d.Series {
		if i < d.Ops {
			shown[i] = d.Names[k]
		}
	}
	type group struct {
		name              string
		iv, cum           *stats.Hist
		ivErrs, cumErrs   int64
		merged, mergedCum bool
	}
	var groups []*group
	index := map[string]*group{}
	opIndex := map[string]int{}
	for i := 0; i < d.Ops && i < len(t.Series); i++ {
		opIndex[t.Series[i].Name] = i
	}
	for _, s := range t.Series {
		op, ep, ok := results.SplitName(s.Name)
		if !ok {
			continue
		}
		i, ok := opIndex[op]
		if _, shownOp := shown[i]; !ok || !shownOp {
			continue
		}
		key := shown[i] + results.SplitSep + ep
		if d.Split.By == ByLocality {
			loc := d.Split.Locality(ep)
			if loc == "" {
				loc = "none"
			}
			key = shown[i] + results.SplitSep + loc
		}
		g := index[key]
		if g == nil {
			g = &group{name: key, iv: s.Interval, cum: s.Cumulative}
			index[key] = g
			groups = append(groups, g)
		} else {
			// A second endpoint of the locality: merge into copies.
			if !g.merged {
				g.iv, g.merged = merged(g.iv), true
			}
			if !g.mergedCum {
				g.cum, g.mergedCum = merged(g.cum), true
			}
			stats.Merge(g.iv.Dense(), s.Interval)
			stats.Merge(g.cum.Dense(), s.Cumulative)
		}
		g.ivErrs += s.Errors
		g.cumErrs += s.CumErrors
	}
	var out []report.Op
	iv, cum := t.End.Sub(t.Start), t.End.Sub(t.CumStart)
	for _, g := range groups {
		if g.cum.TotalCount() == 0 && g.iv.TotalCount() == 0 && g.cumErrs == 0 && g.ivErrs == 0 {
			continue
		}
		op := report.Op{Name: g.name, Cumulative: stats.Summarize(g.cum, g.cumErrs, cum)}
		if !final {
			op.Interval = stats.Summarize(g.iv, g.ivErrs, iv)
		} else if g.cum.TotalCount() == 0 && g.cumErrs == 0 {
			continue
		}
		out = append(out, op)
	}
	return out
}

// merged returns a dense copy of h to merge into.
func merged(h *stats.Hist) *stats.Hist {
	c := stats.NewHistogram()
	stats.Merge(c, h)
	return stats.HistOf(c)
}
