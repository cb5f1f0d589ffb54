package dashboard

import (
	"encoding/csv"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// SeriesDoc is a run's time series in columns, as a chart draws them:
// From and To bound each point, in seconds since the run's start, and
// each operation has one value per point in each column. The points are
// results.TimeSeries's (a short last interval merged into the one before
// it, as `report --chart` draws it).
type SeriesDoc struct {
	ID      string    `json:"id"`
	Start   time.Time `json:"start"`
	RampEnd float64   `json:"ramp_end_s"`
	From    []float64 `json:"from_s"`
	To      []float64 `json:"to_s"`
	Ops     []OpCols  `json:"ops"`
	// Endpoints are the operations split by endpoint, when the run
	// recorded them.
	Endpoints []OpCols `json:"endpoints,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// OpCols is one operation's figures per point.
type OpCols struct {
	Name   string    `json:"name"`
	Count  []int64   `json:"count"`
	Errors []int64   `json:"errors"`
	Rate   []float64 `json:"ops_per_sec"`
	P50    []float64 `json:"p50_ms"`
	P95    []float64 `json:"p95_ms"`
	P99    []float64 `json:"p99_ms"`
	Max    []float64 `json:"max_ms"`
}

func columns(ops []results.OpSeries) []OpCols {
	out := make([]OpCols, 0, len(ops))
	for _, op := range ops {
		n := len(op.Points)
		c := OpCols{Name: op.Name, Count: make([]int64, n), Errors: make([]int64, n), Rate: make([]float64, n),
			P50: make([]float64, n), P95: make([]float64, n), P99: make([]float64, n), Max: make([]float64, n)}
		for i, p := range op.Points {
			c.Count[i], c.Errors[i], c.Rate[i] = p.Count, p.Errors, p.Rate
			c.P50[i], c.P95[i], c.P99[i], c.Max[i] = p.P50, p.P95, p.P99, p.Max
		}
		out = append(out, c)
	}
	return out
}

// seriesDoc returns run's time series in columns.
func seriesDoc(run *runlog.Run) (SeriesDoc, error) { return seriesDocBy(run, "") }

// seriesDocBy is seriesDoc with, by "endpoint" or "locality" (see
// results.TimeSeriesBy), the operations' parts drawn beside them, as
// `report --chart --by-endpoint` draws them.
func seriesDocBy(run *runlog.Run, by string) (SeriesDoc, error) {
	s, err := results.TimeSeriesBy(run, by)
	if err != nil {
		return SeriesDoc{}, err
	}
	if by != "" {
		s.Ops = append(s.Ops, s.Endpoints...)
	}
	doc := SeriesDoc{ID: s.ID, Start: s.Start, RampEnd: s.RampEnd, Ops: columns(s.Ops), Endpoints: columns(s.Endpoints), Warnings: s.Warnings}
	var pts []results.OpPoint
	switch {
	case len(s.Ops) > 0:
		pts = s.Ops[0].Points
	case len(s.Endpoints) > 0:
		pts = s.Endpoints[0].Points
	}
	doc.From, doc.To = make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		doc.From[i], doc.To[i] = p.From, p.To
	}
	return doc, nil
}

func (s *Server) handleSeries(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	s.writeComputed(w, run, "series", func() (any, error) { return seriesDoc(run) })
}

// TelemetryDoc is a run's telemetry in columns (see results.Telemetry):
// host CPU, each disk's throughput, each watched process group's CPU and
// I/O. It is empty for a run without telemetry.
type TelemetryDoc struct {
	CPU    *CPUCols `json:"cpu"`
	Memory *MemCols `json:"memory"`
	// Cgroup is the counters of the cgroup of the run's limits; null for
	// a run without limits.
	Cgroup *CgroupCols `json:"cgroup"`
	Disks  []DiskCols  `json:"disks"`
	Procs  []ProcCols  `json:"procs"`
	Warns  []string    `json:"warnings,omitempty"`
}

// CPUCols is the host's CPU use per sample, in percent of all CPUs.
type CPUCols struct {
	From   []float64 `json:"from_s"`
	To     []float64 `json:"to_s"`
	User   []float64 `json:"user_pct"`
	System []float64 `json:"system_pct"`
	IOWait []float64 `json:"iowait_pct"`
	Steal  []float64 `json:"steal_pct"`
	Busy   []float64 `json:"busy_pct"`
}

// MemCols is the host's memory use at the end of each sample, in bytes
// (as free(1) counts it).
type MemCols struct {
	From  []float64 `json:"from_s"`
	To    []float64 `json:"to_s"`
	Total []uint64  `json:"total_bytes"`
	Used  []uint64  `json:"used_bytes"`
	Cache []uint64  `json:"cache_bytes"`
	Swap  []uint64  `json:"swap_used_bytes"`
}

// CgroupCols is the change of the limits' cgroup counters per sample
// (see results.CgroupPoint).
type CgroupCols struct {
	From           []float64 `json:"from_s"`
	To             []float64 `json:"to_s"`
	Cores          []float64 `json:"cpu_cores"`
	ThrottledPct   []float64 `json:"throttled_pct"`
	ThrottledCores []float64 `json:"throttled_cores"`
	Memory         []uint64  `json:"memory_bytes"`
	MemoryLimit    []uint64  `json:"memory_limit_bytes"`
	MemoryFailcnt  []uint64  `json:"memory_failcnt"`
	OOMKills       []uint64  `json:"oom_kills"`
	Read           []float64 `json:"read_bytes_s"`
	Write          []float64 `json:"write_bytes_s"`
}

// DiskCols is one block device's throughput per sample, in kB/s.
type DiskCols struct {
	Name  string    `json:"name"`
	From  []float64 `json:"from_s"`
	To    []float64 `json:"to_s"`
	Read  []float64 `json:"rkB_s"`
	Write []float64 `json:"wkB_s"`
}

// ProcCols is one watched process group's figures per sample.
type ProcCols struct {
	Name  string    `json:"name"`
	From  []float64 `json:"from_s"`
	To    []float64 `json:"to_s"`
	Cores []float64 `json:"cpu_cores"`
	Read  []float64 `json:"read_bytes_s"`
	Write []float64 `json:"write_bytes_s"`
	// RSS and Processes are levels at each sample's end: the group's
	// resident memory in bytes, and how many processes it had.
	RSS       []uint64 `json:"rss_bytes"`
	Processes []int    `json:"processes"`
}

func telemetryDoc(t *results.Telemetry, warnings []string) TelemetryDoc {
	doc := TelemetryDoc{Disks: []DiskCols{}, Procs: []ProcCols{}, Warns: warnings}
	if t == nil {
		return doc
	}
	c := &CPUCols{}
	for _, p := range t.CPU {
		c.From, c.To = append(c.From, p.From), append(c.To, p.To)
		c.User, c.System, c.IOWait = append(c.User, p.User), append(c.System, p.System), append(c.IOWait, p.IOWait)
		c.Steal, c.Busy = append(c.Steal, p.Steal), append(c.Busy, p.Busy)
	}
	doc.CPU = c
	m := &MemCols{}
	for _, p := range t.Memory {
		m.From, m.To = append(m.From, p.From), append(m.To, p.To)
		m.Total, m.Used, m.Cache, m.Swap = append(m.Total, p.TotalBytes), append(m.Used, p.UsedBytes), append(m.Cache, p.CacheBytes), append(m.Swap, p.SwapUsedBytes)
	}
	doc.Memory = m
	if len(t.Cgroup) > 0 {
		g := &CgroupCols{}
		for _, p := range t.Cgroup {
			g.From, g.To = append(g.From, p.From), append(g.To, p.To)
			g.Cores, g.ThrottledPct, g.ThrottledCores = append(g.Cores, p.CPUCores), append(g.ThrottledPct, p.ThrottledPct), append(g.ThrottledCores, p.ThrottledCores)
			g.Memory, g.MemoryLimit = append(g.Memory, p.MemoryBytes), append(g.MemoryLimit, p.MemoryLimitBytes)
			g.MemoryFailcnt, g.OOMKills = append(g.MemoryFailcnt, p.MemoryFailcnt), append(g.OOMKills, p.OOMKills)
			g.Read, g.Write = append(g.Read, p.ReadBytesPerSec), append(g.Write, p.WriteBytesPerSec)
		}
		doc.Cgroup = g
	}
	for _, d := range t.Disks {
		dc := DiskCols{Name: d.Name}
		for _, p := range d.Points {
			dc.From, dc.To = append(dc.From, p.From), append(dc.To, p.To)
			dc.Read, dc.Write = append(dc.Read, p.ReadKBPerSec), append(dc.Write, p.WriteKBPerSec)
		}
		doc.Disks = append(doc.Disks, dc)
	}
	for _, g := range t.Procs {
		pc := ProcCols{Name: g.Name}
		for _, p := range g.Points {
			pc.From, pc.To = append(pc.From, p.From), append(pc.To, p.To)
			pc.Cores, pc.Read, pc.Write = append(pc.Cores, p.CPUCores), append(pc.Read, p.ReadBytesPerSec), append(pc.Write, p.WriteBytesPerSec)
			pc.RSS, pc.Processes = append(pc.RSS, p.RSSBytes), append(pc.Processes, p.Processes)
		}
		doc.Procs = append(doc.Procs, pc)
	}
	return doc
}

func (s *Server) handleTelemetry(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	tel, warnings := results.TelemetrySeries(run)
	writeJSON(w, telemetryDoc(tel, warnings))
}

// handleFile serves a run's downloads: its HDR interval log as written,
// its summary.json (redacted), and its series as CSV.
func (s *Server) handleFile(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	name := r.PathValue("name")
	attach := func(file string) {
		w.Header().Set("Content-Disposition", `attachment; filename="`+run.Info.ID+"-"+file+`"`)
	}
	switch name {
	case runlog.HlogFile:
		f, err := os.Open(filepath.Join(run.Dir, runlog.HlogFile))
		if err != nil {
			fail(w, notFound("run %s has no %s: %v", run.Info.ID, runlog.HlogFile, err))
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			fail(w, err)
			return
		}
		attach(name)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		http.ServeContent(w, r, "", fi.ModTime(), f)
	case runlog.SummaryFile:
		if run.Summary == nil {
			fail(w, notFound("run %s has no %s: it is still running, or was killed before its end", run.Info.ID, runlog.SummaryFile))
			return
		}
		attach(name)
		writeJSON(w, run.Summary)
	case "series.csv":
		doc, err := seriesDoc(run)
		if err != nil {
			fail(w, err)
			return
		}
		attach(name)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		writeCSV(w, doc, output.WorkloadSeriesOf([]*runlog.Run{run}))
	default:
		fail(w, notFound("no download %q: there are %s, %s and series.csv", name, runlog.HlogFile, runlog.SummaryFile))
	}
}

// writeCSV writes a run's series, one row per operation and point, in
// the units of the JSON (seconds, operations per second, milliseconds).
// A run with series of its workload's own (churn's database size, tables
// alive, rows/s and bytes/s: output.WorkloadSeriesOf, report --format
// json's workload_series) has four more columns, series, unit, at_s and
// value, and a row per reading after the operations' rows, whose
// operation columns are empty (and the operations' rows' those four).
func writeCSV(w http.ResponseWriter, doc SeriesDoc, ws []output.WorkloadSeries) {
	cw := csv.NewWriter(w)
	head := []string{"op", "from_s", "to_s", "count", "errors", "ops_per_sec", "p50_ms", "p95_ms", "p99_ms", "max_ms"}
	wcols := []string{"series", "unit", "at_s", "value"}
	if len(ws) > 0 {
		head = append(head, wcols...)
	}
	_ = cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, op := range doc.Ops {
		for i := range op.Count {
			row := []string{op.Name, f(doc.From[i]), f(doc.To[i]), strconv.FormatInt(op.Count[i], 10), strconv.FormatInt(op.Errors[i], 10),
				f(op.Rate[i]), f(op.P50[i]), f(op.P95[i]), f(op.P99[i]), f(op.Max[i])}
			if len(ws) > 0 {
				row = append(row, make([]string, len(wcols))...)
			}
			_ = cw.Write(row)
		}
	}
	for _, s := range ws {
		for i := range s.At {
			_ = cw.Write(append(make([]string, len(head)-len(wcols)), s.Name, s.Unit, f(s.At[i]), f(s.Values[i])))
		}
	}
	cw.Flush()
}
