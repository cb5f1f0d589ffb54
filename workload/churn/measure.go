package churn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// sizeEvery is how often a run reads the database's size and its live
// tables, for the records of the run log (a series over time).
const sizeEvery = 5 * time.Second

// measure is the measurement of one run: the totals at the start and the
// end of its measurement interval, the database's size and live tables
// read from the server then, and every sizeEvery between.
type measure struct {
	db  *sqlx.DB
	tot *totals

	mu                    sync.Mutex
	start, end            time.Time
	rows0, bytes0         int64
	rows1, bytes1         int64
	size0, size1          int64
	alive1                int64
	sizeOK, aliveOK, end1 bool
	// common says the figures are over several clients' common
	// measurement interval (SetMergeInterval).
	common  bool
	records []workload.Record
	stop    chan struct{}
	done    chan struct{}
}

// sample reads the database's size (pg_database_size) and the number of
// tables that carry churn's mark, then the rows and bytes inserted so far,
// and records all four at that time.
func (m *measure) sample(ctx context.Context) (size, alive, rows, bytes int64, err error) {
	if m.db.Null() {
		return 0, 0, 0, 0, nil
	}
	if err := m.db.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&size); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("reading the database's size: %w", err)
	}
	if err := m.db.QueryRow(ctx, "SELECT count(*) FROM ("+madeTablesQuery(m.db)+") t", workload.RunMark(churnMeta.Name)).Scan(&alive); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("counting churn's tables: %w", err)
	}
	now := time.Now()
	rows, bytes = m.tot.rows.Load(), m.tot.bytes.Load()
	m.mu.Lock()
	m.records = append(m.records,
		workload.Record{Name: "database_size_bytes", At: now, Value: float64(size)},
		workload.Record{Name: "tables_alive", At: now, Value: float64(alive)},
		workload.Record{Name: "rows_total", At: now, Value: float64(rows)},
		workload.Record{Name: "bytes_total", At: now, Value: float64(bytes)})
	m.mu.Unlock()
	return size, alive, rows, bytes, nil
}

// StartMeasurement implements the Measurer interface: the totals and the
// database's size at the start, then a reading of the size every
// sizeEvery until the end.
func (g *churn) StartMeasurement(ctx context.Context, at time.Time) (func(context.Context) error, error) {
	m := g.m
	if m == nil {
		return nil, nil
	}
	m.start = at
	m.rows0, m.bytes0 = m.tot.rows.Load(), m.tot.bytes.Load()
	if m.db.Null() {
		// No server: the rows and bytes only (sizeOK, aliveOK stay false).
		m.stop, m.done = make(chan struct{}), make(chan struct{})
		close(m.done)
		return func(context.Context) error {
			m.end, m.rows1, m.bytes1, m.end1 = time.Now(), m.tot.rows.Load(), m.tot.bytes.Load(), true
			return nil
		}, nil
	}
	size, _, rows, bytes, err := m.sample(ctx)
	m.size0, m.sizeOK = size, err == nil
	if err == nil {
		// The totals of the first reading: the rows_total records'
		// increase over the run is then rows_inserted exactly.
		m.rows0, m.bytes0 = rows, bytes
	}
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(sizeEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				c, cancel := context.WithTimeout(context.Background(), sizeEvery)
				_, _, _, _, _ = m.sample(c) // a reading missed is a gap in the series
				cancel()
			}
		}
	}()
	return m.endMeasurement, err
}

// endMeasurement reads the totals, the size and the live tables at the
// end of the measurement interval.
func (m *measure) endMeasurement(ctx context.Context) error {
	close(m.stop)
	<-m.done
	m.end = time.Now()
	m.rows1, m.bytes1 = m.tot.rows.Load(), m.tot.bytes.Load()
	m.end1 = true
	size, alive, rows, bytes, err := m.sample(ctx)
	if err != nil {
		m.sizeOK = false
		return err
	}
	m.size1, m.alive1, m.aliveOK = size, alive, true
	m.rows1, m.bytes1 = rows, bytes // those of the last records
	return nil
}

// RunRecords implements the RunRecorder interface: the database's size,
// the live tables and the rows and bytes inserted so far, over the run
// (database_size_bytes, tables_alive, rows_total, bytes_total).
func (g *churn) RunRecords() []workload.Record {
	if g.m == nil {
		return nil
	}
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	return append([]workload.Record(nil), g.m.records...)
}

// RecordSeries implements the SeriesRecorder interface: the database's
// size and churn's live tables over the run, and the rows and bytes
// inserted per second between readings (from the running totals
// rows_total and bytes_total).
func (g *churn) RecordSeries() []workload.SeriesSpec {
	return []workload.SeriesSpec{
		{Record: "database_size_bytes", Name: "database_size_bytes", Unit: "bytes"},
		{Record: "tables_alive", Name: "tables_alive", Unit: "tables"},
		{Record: "rows_total", Name: "rows_per_s", Unit: "rows/s", Rate: true},
		{Record: "bytes_total", Name: "bytes_per_s", Unit: "bytes/s", Rate: true},
	}
}

// Figures implements the Figurer interface: the rows and bytes inserted
// over the measurement interval and their rates, the tables alive at its
// end and the database's growth, read from the server (Observed, kept in
// the run log; `stampede report` prints them from there).
func (g *churn) Figures(_ map[string]int64, _ time.Duration) []workload.Figure {
	m := g.m
	if m == nil || !m.end1 {
		return nil
	}
	d := m.end.Sub(m.start)
	secs := d.Seconds()
	if secs <= 0 {
		return nil
	}
	rows, bytes := m.rows1-m.rows0, m.bytes1-m.bytes0
	common := ""
	if m.common {
		common = ", the clients' common measurement interval"
	}
	figs := []workload.Figure{
		{Name: "rows_inserted", Value: float64(rows), Observed: true,
			Text: fmt.Sprintf("%d rows in %s%s", rows, d.Round(time.Millisecond), common)},
		{Name: "rows_per_s", Value: float64(rows) / secs, Observed: true,
			Text: fmt.Sprintf("%.1f rows/s", float64(rows)/secs)},
		{Name: "bytes_per_s", Value: float64(bytes) / secs, Observed: true,
			Text: fmt.Sprintf("%.3f MB/s of values (%d bytes of their text)", float64(bytes)/secs/1e6, bytes)},
	}
	if m.aliveOK {
		figs = append(figs, workload.Figure{Name: "tables_alive", Value: float64(m.alive1), Observed: true,
			Text: fmt.Sprintf("%d of churn's tables at the end (read from the server)", m.alive1)})
	}
	if m.sizeOK {
		grow := m.size1 - m.size0
		figs = append(figs,
			workload.Figure{Name: "database_size_bytes", Value: float64(m.size1), Observed: true,
				Text: fmt.Sprintf("%.1f MB at the end, from %.1f MB (pg_database_size)", float64(m.size1)/1e6, float64(m.size0)/1e6)},
			workload.Figure{Name: "database_growth_bytes_per_s", Value: float64(grow) / secs, Observed: true,
				Text: fmt.Sprintf("%.3f MB/s", float64(grow)/secs/1e6)})
	}
	return figs
}

var (
	_ workload.ClientMerger   = (*churn)(nil)
	_ workload.IntervalMerger = (*churn)(nil)
)

// MergeClients implements the ClientMerger interface: several clients'
// figures from their records. Until SetMergeInterval says the clients'
// common interval, they are over the clients' whole runs: the rows and
// bytes are each client's increase of rows_total and bytes_total, added
// up, over the time from the earliest client's first reading to the
// latest's last; the tables alive and the database's size are the
// server's, read by whichever client read last (and first, for the
// growth).
func (g *churn) MergeClients(runs []workload.ClientRun) error {
	m := &measure{end1: true}
	var first, last [2]workload.Record // database_size_bytes's, tables_alive's
	for _, r := range runs {
		var lo, hi = map[string]workload.Record{}, map[string]workload.Record{}
		for _, rec := range r.Records {
			if x, ok := lo[rec.Name]; !ok || rec.At.Before(x.At) {
				lo[rec.Name] = rec
			}
			if x, ok := hi[rec.Name]; !ok || !rec.At.Before(x.At) {
				hi[rec.Name] = rec
			}
		}
		r0, ok0 := lo["rows_total"]
		r1, ok1 := hi["rows_total"]
		if !ok0 || !ok1 {
			return fmt.Errorf("run %s holds no records of churn's rows (rows_total)", r.ID)
		}
		m.rows1 += int64(r1.Value - r0.Value)
		m.bytes1 += int64(hi["bytes_total"].Value - lo["bytes_total"].Value)
		if m.start.IsZero() || r0.At.Before(m.start) {
			m.start = r0.At
		}
		if r1.At.After(m.end) {
			m.end = r1.At
		}
		for i, name := range []string{"database_size_bytes", "tables_alive"} {
			if x, ok := lo[name]; ok && (first[i].At.IsZero() || x.At.Before(first[i].At)) {
				first[i] = x
			}
			if x, ok := hi[name]; ok && x.At.After(last[i].At) {
				last[i] = x
			}
		}
	}
	if !first[0].At.IsZero() {
		m.size0, m.size1, m.sizeOK = int64(first[0].Value), int64(last[0].Value), true
	}
	if !last[1].At.IsZero() {
		m.alive1, m.aliveOK = int64(last[1].Value), true
	}
	g.m, g.merged = m, runs
	return nil
}

// SetMergeInterval implements the IntervalMerger interface: the merged
// figures over from to to, the clients' common measurement interval.
// The records are readings every sizeEvery, so a value between two
// readings is taken as changing evenly from one to the next (as
// results.CommonInterval takes an interval's operations as spread evenly
// over it), and one outside a client's readings as its first or last:
// the rows and bytes are the sum of each client's increase of rows_total
// and bytes_total from from to to; the database's size at both ends and
// the tables alive at to are the server's, from every client's readings
// together.
func (g *churn) SetMergeInterval(from, to time.Time) {
	if len(g.merged) == 0 || !to.After(from) {
		return
	}
	m := &measure{end1: true, start: from, end: to, common: true}
	var rows, bytes float64
	pooled := map[string][]workload.Record{}
	for _, r := range g.merged {
		own := map[string][]workload.Record{}
		for _, rec := range r.Records {
			own[rec.Name] = append(own[rec.Name], rec)
			pooled[rec.Name] = append(pooled[rec.Name], rec)
		}
		rows += increase(own["rows_total"], from, to)
		bytes += increase(own["bytes_total"], from, to)
	}
	m.rows1, m.bytes1 = int64(math.Round(rows)), int64(math.Round(bytes))
	if s0, ok := valueAt(pooled["database_size_bytes"], from); ok {
		s1, _ := valueAt(pooled["database_size_bytes"], to)
		m.size0, m.size1, m.sizeOK = int64(math.Round(s0)), int64(math.Round(s1)), true
	}
	if a, ok := valueAt(pooled["tables_alive"], to); ok {
		m.alive1, m.aliveOK = int64(math.Round(a)), true
	}
	g.m = m
}

// increase is how much the running total of recs grew from from to to
// (see valueAt).
func increase(recs []workload.Record, from, to time.Time) float64 {
	a, ok := valueAt(recs, from)
	b, _ := valueAt(recs, to)
	if !ok {
		return 0
	}
	return b - a
}

// valueAt returns the value at t of recs, readings of one figure: between
// two readings taken as changing evenly from one to the next, before the
// first or after the last that reading's; ok is false without readings.
func valueAt(recs []workload.Record, t time.Time) (v float64, ok bool) {
	if len(recs) == 0 {
		return 0, false
	}
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b workload.Record) int { return a.At.Compare(b.At) })
	if !t.After(recs[0].At) {
		return recs[0].Value, true
	}
	for i := 1; i < len(recs); i++ {
		if a, b := recs[i-1], recs[i]; !t.After(b.At) {
			span := b.At.Sub(a.At)
			if span <= 0 {
				return b.Value, true
			}
			return a.Value + (b.Value-a.Value)*float64(t.Sub(a.At))/float64(span), true
		}
	}
	return recs[len(recs)-1].Value, true
}
