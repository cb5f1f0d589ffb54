package churn_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
)

// reading is the server's count of churn's rows at a time.
type reading struct {
	at   time.Time
	rows float64
}

// rowsAt returns the rows of readings (in time order) at t, linearly
// between the two readings around it.
func rowsAt(readings []reading, t time.Time) float64 {
	for i := 1; i < len(readings); i++ {
		if a, b := readings[i-1], readings[i]; !t.After(b.at) && !t.Before(a.at) {
			return a.rows + (b.rows-a.rows)*float64(t.Sub(a.at))/float64(b.at.Sub(a.at))
		}
	}
	return math.NaN()
}

// TestChurnClientsCommonInterval: two clients of one benchmark started 4 s
// apart, 10 s each. report --tag merges churn's figures over the clients'
// common measurement interval (results.CommonInterval, the rule of every
// merged figure), not over the union of their runs: rows_inserted is the
// rows the server's bookkeeping (churn_tables, written in each insert's
// transaction) gained in that interval, read by the test every 100 ms,
// and rows_per_s those rows over its length. Over the whole runs, the
// figure counted for 4 s at each end one client's rows only.
func TestChurnClientsCommonInterval(t *testing.T) {
	db := testdb.Fresh(t, "churn32_common", sqlx.Options{MaxConns: 2})
	if err := run.Load(context.Background(), run.LoadSpec{Workload: gen(t), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	dir := t.TempDir()

	var mu sync.Mutex
	var readings []reading
	stop := make(chan struct{})
	polled := make(chan error, 1)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var rows int64
			if err := db.QueryRow(context.Background(), "SELECT coalesce(sum(rows), 0) FROM churn_tables").Scan(&rows); err != nil {
				polled <- err
				return
			}
			mu.Lock()
			readings = append(readings, reading{time.Now(), float64(rows)})
			mu.Unlock()
			select {
			case <-stop:
				polled <- nil
				return
			case <-tick.C:
			}
		}
	}()
	done := make(chan error, 2)
	for i := range 2 {
		if i == 1 {
			time.Sleep(4 * time.Second)
		}
		go func() {
			code, stderr := cliRun(t, "run", "churn", "--conns", "3", "--clients", "2", "--client-index", fmt.Sprint(i),
				"--tag", "job=ci", "--duration", "10s", "--max-tables", "40", "--mix", "insert=90,create=5,drop=5",
				"--telemetry=false", "--results-dir", dir, u.String())
			if code != 0 {
				done <- fmt.Errorf("client %d: exit %d: %s", i, code, stderr)
				return
			}
			done <- nil
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	if err := <-polled; err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		return
	}

	// The clients' common interval, as report computes it.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var runs []*runlog.Run
	for _, e := range entries {
		if r, err := runlog.Open(filepath.Join(dir, e.Name())); err == nil {
			runs = append(runs, r)
		}
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs in %s, want 2", len(runs), dir)
	}
	view, _, err := results.Recompute(runs, results.Window{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok, err := results.CommonInterval(runs, view)
	if err != nil || !ok {
		t.Fatalf("no common interval: %v", err)
	}
	// The overlap of the two runs as run.json records their starts and
	// ends, within the intervals' second (the common interval is made of
	// whole intervals). Not the 6 s the commands' 4 s apart would give:
	// on a loaded machine the second client's start-up took 2.8 s longer
	// than the first's (CI: a common interval of 3.2 s).
	common := c.To.Sub(c.From)
	var from, to time.Time
	for _, r := range runs {
		if r.Info.End == nil {
			t.Fatalf("run %s has no end", r.Info.ID)
		}
		if from.IsZero() || r.Info.Start.After(from) {
			from = r.Info.Start
		}
		if to.IsZero() || r.Info.End.Before(to) {
			to = *r.Info.End
		}
	}
	overlap := to.Sub(from)
	if overlap < 2*time.Second || common < overlap-1500*time.Millisecond || common > overlap+500*time.Millisecond {
		t.Fatalf("common interval %s, want the runs' overlap %s (at least 2 s of the clients' 10 s started 4 s apart) less at most an interval's second", common, overlap)
	}

	var rep, errb bytes.Buffer
	if code := cliMain([]string{"report", "--tag", "job=ci", "--results-dir", dir}, &rep, &errb); code != 0 {
		t.Fatalf("report --tag job=ci: exit %d: %s%s", code, rep.String(), errb.String())
	}
	m := regexp.MustCompile(`rows_inserted: (\d+) rows in ([0-9.]+)s, the clients' common measurement interval`).FindStringSubmatch(rep.String())
	r := regexp.MustCompile(`rows_per_s: ([0-9.]+) rows/s`).FindStringSubmatch(rep.String())
	if m == nil || r == nil {
		t.Fatalf("report --tag job=ci gives no rows_inserted over the common interval or no rows_per_s:\n%s", rep.String())
	}
	rows, _ := strconv.ParseFloat(m[1], 64)
	secs, _ := strconv.ParseFloat(m[2], 64)
	perSec, _ := strconv.ParseFloat(r[1], 64)
	if math.Abs(secs-common.Seconds()) > 0.001 {
		t.Errorf("rows_inserted over %.3f s, the common interval is %.3f s (%s to %s)", secs, common.Seconds(), c.From.Format(time.RFC3339Nano), c.To.Format(time.RFC3339Nano))
	}
	if want := rows / common.Seconds(); math.Abs(perSec-want) > 0.05+1e-6*want {
		t.Errorf("rows_per_s %.1f, want rows_inserted %.0f over the common %.3f s: %.1f", perSec, rows, common.Seconds(), want)
	}
	mu.Lock()
	defer mu.Unlock()
	truth := rowsAt(readings, c.To) - rowsAt(readings, c.From)
	all := readings[len(readings)-1].rows
	t.Logf("common interval %.3f s: report %.0f rows (%.1f/s), the server's bookkeeping %.0f rows in it (%.1f/s), %.0f over the whole runs",
		common.Seconds(), rows, perSec, truth, truth/common.Seconds(), all)
	// The clients read their totals every 5 s: between readings the
	// rows are taken as inserted evenly, hence the tolerance (10% off
	// seen on a loaded machine; over the whole runs, the figure would
	// be 3 times the interval's).
	if math.IsNaN(truth) || truth <= 0 || math.Abs(rows-truth) > 0.25*truth {
		t.Errorf("merged rows_inserted %.0f, the server's bookkeeping gained %.0f rows in the common interval", rows, truth)
	}
	if all < 1.5*truth {
		t.Errorf("the whole runs inserted %.0f rows, the common interval %.0f: the clients did not run apart as the test meant", all, truth)
	}
}
