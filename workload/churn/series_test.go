package churn_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
)

// sizeReading is one pg_database_size the test read itself, and when.
type sizeReading struct {
	at   time.Time
	size float64
}

// TestChurnSeries checks churn's series over time (report --format json's
// workload_series) against independent truths: each point of the
// database's size lies between the sizes the test itself read from
// pg_database_size just before and just after it (every 250 ms, on its
// own connection); the last points of the size and the live tables are
// the run's final figures, and the live tables the server's at the end;
// rows/s and bytes/s, times each reading's interval, add up to the rows
// and bytes churn_tables says were inserted.
func TestChurnSeries(t *testing.T) {
	db := testdb.Fresh(t, "churnviz_series", sqlx.Options{MaxConns: 2})
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		readings []sizeReading
		wg       sync.WaitGroup
	)
	read := func() {
		var size int64
		if err := db.QueryRow(context.Background(), "SELECT pg_database_size(current_database())").Scan(&size); err != nil {
			t.Errorf("the test's own size reading: %v", err)
			return
		}
		mu.Lock()
		readings = append(readings, sizeReading{time.Now(), float64(size)})
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				read()
			}
		}
	}()
	res := churnRun(t, db, 4, 16*time.Second, 7, "--max-tables", "40", "--mix", "insert=80,create=10,alter=5,drop=5")
	cancel()
	wg.Wait()
	read() // after the run's last reading
	fig := res.Summary.Figures

	rl, err := runlog.Open(res.Info.Dir)
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]output.WorkloadSeries{}
	for _, s := range output.WorkloadSeriesOf([]*runlog.Run{rl}) {
		if s.Run != res.Info.ID || len(s.At) != len(s.Values) {
			t.Errorf("series %s of run %s: %d times, %d values", s.Name, s.Run, len(s.At), len(s.Values))
		}
		series[s.Name] = s
	}
	size, alive, rows, bytes := series["database_size_bytes"], series["tables_alive"], series["rows_per_s"], series["bytes_per_s"]
	// 16 s: the start, 5 s, 10 s, 15 s and the end.
	if len(size.At) < 4 || len(alive.At) != len(size.At) || len(rows.At) != len(size.At)-1 || len(bytes.At) != len(size.At)-1 {
		t.Fatalf("series over 16 s: %d sizes, %d tables alive, %d rows/s, %d bytes/s: want a reading every 5 s and a rate between each two",
			len(size.At), len(alive.At), len(rows.At), len(bytes.At))
	}
	if size.Unit != "bytes" || alive.Unit != "tables" || rows.Unit != "rows/s" || bytes.Unit != "bytes/s" {
		t.Errorf("units %q %q %q %q", size.Unit, alive.Unit, rows.Unit, bytes.Unit)
	}
	last := len(size.At) - 1
	if size.Values[last] != fig["database_size_bytes"] || alive.Values[last] != fig["tables_alive"] {
		t.Errorf("last points: size %.0f, tables alive %.0f; the run's figures %.0f, %.0f",
			size.Values[last], alive.Values[last], fig["database_size_bytes"], fig["tables_alive"])
	}
	if n := markedTables(t, db); float64(n) != alive.Values[last] {
		t.Errorf("tables alive at the end %.0f, the server holds %d of churn's", alive.Values[last], n)
	}
	for _, v := range alive.Values {
		if v < 0 || v > 40 || v != math.Trunc(v) {
			t.Errorf("tables alive %v: want a count within --max-tables 40", alive.Values)
			break
		}
	}

	// Each size point within the test's own readings around it.
	start := rl.Info.Start
	checked := 0
	for i, at := range size.At {
		when := start.Add(time.Duration(at * float64(time.Second)))
		var before, after *sizeReading
		for j := range readings {
			r := &readings[j]
			if !r.at.After(when) {
				before = r
			} else if after == nil {
				after = r
			}
		}
		if before == nil || after == nil {
			continue // before the test's first reading
		}
		// Tables are dropped as well as filled, so the size goes down as
		// well as up between two readings: the point lies within what
		// the test read in the second around it.
		lo, hi := math.Min(before.size, after.size), math.Max(before.size, after.size)
		for _, r := range readings {
			if d := r.at.Sub(when); d > -time.Second && d < time.Second {
				lo, hi = math.Min(lo, r.size), math.Max(hi, r.size)
			}
		}
		if v := size.Values[i]; v < lo*0.97 || v > hi*1.03 {
			t.Errorf("size at +%.3fs %.0f bytes; pg_database_size read %.0f at %s before and %.0f at %s after",
				at, v, before.size, when.Sub(before.at), after.size, after.at.Sub(when))
		}
		checked++
	}
	if checked < len(size.At)-1 {
		t.Errorf("%d of %d size points had the test's readings around them", checked, len(size.At))
	}
	if size.Values[last] <= size.Values[0] {
		t.Errorf("sizes %v: churn inserted rows, the database did not grow", size.Values)
	}

	// The rates, times their intervals, are the totals inserted.
	sum := func(s output.WorkloadSeries) float64 {
		total, prev := 0.0, size.At[0]
		for i, at := range s.At {
			if at != size.At[i+1] {
				t.Errorf("%s at %v, the readings at %v", s.Name, s.At, size.At)
			}
			total += s.Values[i] * (at - prev)
			prev = at
		}
		return total
	}
	for _, c := range []struct {
		s    output.WorkloadSeries
		want float64
	}{
		{rows, float64(one(t, db, "SELECT sum(rows) FROM churn_tables"))},
		{bytes, float64(one(t, db, "SELECT sum(bytes) FROM churn_tables"))},
	} {
		if got := sum(c.s); c.want == 0 || math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s over the run adds up to %.3f, churn_tables says %.0f were inserted", c.s.Name, got, c.want)
		}
	}
	if got := sum(rows); math.Abs(got-fig["rows_inserted"]) > 1e-6*fig["rows_inserted"] {
		t.Errorf("rows/s over the run adds up to %.3f, the rows_inserted figure is %.0f", got, fig["rows_inserted"])
	}
}
