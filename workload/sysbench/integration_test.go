package sysbench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// freshDB creates a database with a random name on the server of
// STAMPEDE_TEST_DATABASE (skipping the test when it is unset), opens it
// with maxConns connections, and drops it when the test ends.
func freshDB(t testing.TB, maxConns int) *sqlx.DB {
	t.Helper()
	return testdb.Fresh(t, "stampede_sysbench_test", sqlx.Options{MaxConns: maxConns})
}

// tableStats are the sums of pg_stat_user_tables' counters over the
// database's sbtest tables.
type tableStats struct {
	ins, upd, del, scans int64
}

func (s tableStats) minus(o tableStats) tableStats {
	return tableStats{s.ins - o.ins, s.upd - o.upd, s.del - o.del, s.scans - o.scans}
}

// readStats returns the table counters after flushing this backend's
// pending statistics. db must have one connection, the one the workers
// used, so that their counts are among this backend's: PostgreSQL 15
// and later flush on request (pg_stat_force_next_flush); older servers
// every half second or so, which readStats waits out.
func readStats(t testing.TB, db *sqlx.DB) tableStats {
	t.Helper()
	ctx := context.Background()
	var version int
	if err := db.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version >= 150000 {
		if _, err := db.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
	} else {
		time.Sleep(1500 * time.Millisecond)
	}
	var s tableStats
	if err := db.QueryRow(ctx, "SELECT coalesce(sum(n_tup_ins), 0), coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_del), 0),"+
		" coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0)"+
		" FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'").Scan(&s.ins, &s.upd, &s.del, &s.scans); err != nil {
		t.Fatal(err)
	}
	return s
}

type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func countRows(t testing.TB, db *sqlx.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresWorkloads loads each workload into a fresh database, runs
// events through its worker and checks, through PostgreSQL's own table
// statistics, that each event ran sysbench's statements: the rows it
// inserted, updated and deleted and the table scans (one per SELECT,
// UPDATE and DELETE; inserts scan nothing).
func TestPostgresWorkloads(t *testing.T) {
	const events = 40
	for _, tc := range []struct {
		name string
		args []string
		// per event, exactly
		want tableStats
		// ops recorded per event
		ops map[string]int
		// check checks the counters of the whole run instead of want.
		check func(t *testing.T, d tableStats, db *sqlx.DB)
	}{
		{name: "oltp_read_write", args: []string{"--tables=2"}, want: tableStats{ins: 1, upd: 2, del: 1, scans: 17},
			ops: map[string]int{"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1,
				"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "begin": 1, "commit": 1}},
		{name: "oltp_read_write", args: []string{"--skip_trx", "--delete_inserts=3", "--secondary", "--rand-type=uniform"},
			want: tableStats{ins: 3, upd: 2, del: 3, scans: 19},
			ops: map[string]int{"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1,
				"index_update": 1, "non_index_update": 1, "delete": 3, "insert": 3}},
		{name: "oltp_read_only", want: tableStats{scans: 14},
			ops: map[string]int{"point_select": 10, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1, "begin": 1, "commit": 1}},
		{name: "oltp_write_only", args: []string{"--auto_inc=off"}, want: tableStats{ins: 1, upd: 2, del: 1, scans: 3},
			ops: map[string]int{"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1, "begin": 1, "commit": 1}},
		{name: "oltp_point_select", want: tableStats{scans: 1}, ops: map[string]int{"point_select": 1}},
		{name: "oltp_insert", args: []string{"--tables=3"}, want: tableStats{ins: 1}, ops: map[string]int{"insert": 1}},
		{name: "oltp_insert", args: []string{"--auto_inc=off"}, want: tableStats{ins: 1}, ops: map[string]int{"insert": 1}},
		{name: "oltp_delete", ops: nil, check: func(t *testing.T, d tableStats, db *sqlx.DB) {
			left := countRows(t, db, "sbtest1")
			if d.scans != events || d.ins != 0 || d.upd != 0 || d.del < events/2 || d.del != 10000-left {
				t.Errorf("%+v over %d deletes, %d rows left", d, events, left)
			}
		}},
		{name: "oltp_update_index", want: tableStats{upd: 1, scans: 1}, ops: map[string]int{"index_update": 1}},
		{name: "oltp_update_non_index", args: []string{"--non_index_updates=2"}, want: tableStats{upd: 2, scans: 2},
			ops: map[string]int{"non_index_update": 2}},
		{name: "bulk_insert", ops: map[string]int{}, check: func(t *testing.T, d tableStats, db *sqlx.DB) {
			// The run creates the table: building its primary key scans it.
			if d.ins != events || d.scans > 1 || countRows(t, db, "sbtest1") != events {
				t.Errorf("%+v after %d rows", d, events)
			}
		}},
		{name: "select_random_points", ops: map[string]int{"random_points": 1}, check: func(t *testing.T, d tableStats, db *sqlx.DB) {
			// k IN (...) is one scan, or one per value on btree before
			// PostgreSQL 17.
			if d.ins != 0 || d.upd != 0 || d.del != 0 || d.scans < events || d.scans > 10*events {
				t.Errorf("%+v after %d events", d, events)
			}
		}},
		{name: "select_random_ranges", ops: map[string]int{"random_ranges": 1}, check: func(t *testing.T, d tableStats, db *sqlx.DB) {
			// A BitmapOr scans the index once per range.
			if d.ins != 0 || d.upd != 0 || d.del != 0 || d.scans < events || d.scans > 10*events {
				t.Errorf("%+v after %d events", d, events)
			}
		}},
	} {
		t.Run(strings.Join(append([]string{tc.name}, tc.args...), " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db := freshDB(t, 1)
			g := newGen(t, tc.name, tc.args...)
			g.SetSeed(7)
			if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
				t.Fatal(err)
			}
			if h := g.Hooks(); h.PreRun != nil {
				if err := h.PreRun(ctx, db); err != nil {
					t.Fatalf("PreRun: %v", err)
				}
				var rep lines
				if err := h.CheckConsistency(ctx, db, &rep); err != nil {
					t.Fatalf("CheckConsistency after the load: %v\n%s", err, strings.Join(rep, "\n"))
				}
			}
			before := readStats(t, db)
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			rec := newCountRecorder(len(ql.Ops))
			ql.Attach(0, rec)
			for i := range events {
				if res := ql.Workers[0](ctx); res.Err != nil || res.Op != 0 {
					t.Fatalf("event %d: %+v", i, res)
				}
			}
			if ql.Detach != nil {
				ql.Detach(0) // bulk_insert sends its rows
			}
			if err := ql.Close(ctx); err != nil { // releases the connection
				t.Fatal(err)
			}
			d := readStats(t, db).minus(before)
			if tc.check != nil {
				tc.check(t, d, db)
			} else {
				// The planner may add index scans of its own, to find the
				// actual end of an index when a range's bound lies beyond
				// the histogram (get_actual_variable_range).
				want := tableStats{tc.want.ins * events, tc.want.upd * events, tc.want.del * events, tc.want.scans * events}
				probes := d.scans - want.scans
				if d.ins != want.ins || d.upd != want.upd || d.del != want.del || probes < 0 || probes > want.scans/20 {
					t.Errorf("%d events: %+v\nwant         %+v (up to %d more scans)", events, d, want, want.scans/20)
				}
			}
			want := map[string]int{}
			for op, n := range tc.ops {
				want[op] = n * events
			}
			switch tc.name {
			case "bulk_insert": // one INSERT of all rows, sent by Detach after the last event
				want = map[string]int{"insert": 1}
			case "oltp_delete":
				// The server's count of deleted rows tells the deletes
				// that found their row from those that did not.
				want = map[string]int{"delete": int(d.del), "delete/no_rows": events - int(d.del)}
			}
			if got := byName(ql.Ops, rec.ops); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("recorded %v\nwant     %v", got, want)
			}
			if got := byName(ql.Ops, rec.errs); len(got) != 0 {
				t.Errorf("errors %v", got)
			}
			if h := g.Hooks(); h.CheckConsistency != nil {
				var rep lines
				if err := h.CheckConsistency(ctx, db, &rep); err != nil {
					t.Errorf("CheckConsistency after the run: %v\n%s", err, strings.Join(rep, "\n"))
				}
			}
		})
	}
}

func TestPostgresData(t *testing.T) {
	ctx := context.Background()
	db := freshDB(t, 2)
	g := newGen(t, "oltp_insert", "--tables=2", "--table_size=2500")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	var c, pad string
	var clen, padlen, id, k int
	if err := db.QueryRow(ctx, "SELECT id, k, c, pad, octet_length(c::text), octet_length(pad::text) FROM sbtest2 WHERE id = 1234").
		Scan(&id, &k, &c, &pad, &clen, &padlen); err != nil {
		t.Fatal(err)
	}
	if id != 1234 || k < 1 || k > 2500 || !cPattern.MatchString(strings.TrimRight(c, " ")) || !padPattern.MatchString(strings.TrimRight(pad, " ")) {
		t.Errorf("row %d: k %d, c %q, pad %q", id, k, c, pad)
	}
	if clen != 119 || padlen != 59 {
		t.Errorf("c and pad of %d and %d characters", clen, padlen)
	}
	var indexes string
	if err := db.QueryRow(ctx, "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'sbtest2'").Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != "k_2,sbtest2_pkey" {
		t.Errorf("indexes of sbtest2: %s", indexes)
	}
	// The SERIAL sequence continues after the loaded ids.
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if res := ql.Workers[0](ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	_ = ql.Close(ctx)
	var maxID, n int64
	if err := db.QueryRow(ctx, "SELECT max(id), count(*) FROM (SELECT id FROM sbtest1 UNION ALL SELECT id FROM sbtest2) t").Scan(&maxID, &n); err != nil {
		t.Fatal(err)
	}
	if n != 5020 || maxID <= 2500 || maxID > 2520 {
		t.Errorf("after 20 inserts: %d rows, largest id %d", n, maxID)
	}
}

func TestPostgresPreRun(t *testing.T) {
	ctx := context.Background()
	db := freshDB(t, 2)
	g := newGen(t, "oltp_read_write", "--tables=2", "--table_size=100")
	want := fmt.Sprintf("table sbtest1 does not exist in database %q: run `stampede prepare oltp_read_write --table_size=100 --tables=2`"+
		" (or `stampede init oltp_read_write --table_size=100 --tables=2`) first", db.Database())
	if err := g.Hooks().PreRun(ctx, db); err == nil || err.Error() != want {
		t.Errorf("PreRun before the load: %v\nwant %s", err, want)
	}
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if err := g.Hooks().PreRun(ctx, db); err != nil {
		t.Errorf("PreRun after the load: %v", err)
	}
	more := newGen(t, "oltp_read_write", "--tables=3")
	want = fmt.Sprintf("table sbtest3 does not exist in database %q: run `stampede prepare oltp_read_write --tables=3` (or `stampede init oltp_read_write --tables=3`) first", db.Database())
	if err := more.Hooks().PreRun(ctx, db); err == nil || err.Error() != want {
		t.Errorf("PreRun with --tables=3: %v\nwant %s", err, want)
	}
	var rep lines
	if err := more.Hooks().CheckConsistency(ctx, db, &rep); err == nil || err.Error() != want {
		t.Errorf("CheckConsistency with --tables=3: %v", err)
	}

	// A table count that does not match fails the check, table by table.
	big := newGen(t, "oltp_read_write", "--tables=2", "--table_size=101")
	rep = nil
	if err := big.Hooks().CheckConsistency(ctx, db, &rep); err == nil || err.Error() != "2 of 2 tables failed the consistency check" {
		t.Errorf("CheckConsistency with --table_size=101: %v", err)
	}
	if want := "sbtest1: 100 rows, 100 distinct ids in 1..100 (expected 101, ids 1..101) FAIL"; len(rep) != 2 || rep[0] != want {
		t.Errorf("check output %q, want first %q", rep, want)
	}

	// bulk_insert refuses the OLTP tables.
	bulk := newGen(t, "bulk_insert")
	if _, err := bulk.Ops(ctx, db, workload.OpsConfig{Concurrency: 1}); err == nil ||
		!strings.Contains(err.Error(), "table sbtest1 in database") || !strings.Contains(err.Error(), "is not bulk_insert's (id, k) but has 4 columns") {
		t.Errorf("bulk_insert over OLTP tables: %v", err)
	}
}

// TestPostgresConcurrent runs oltp_read_write with many workers on a
// small table: deadlocks and duplicate keys (two workers deleting and
// re-inserting one id) are rolled back and restarted, and the table keeps
// its ids.
func TestPostgresConcurrent(t *testing.T) {
	const workers, events = 8, 150
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := freshDB(t, workers+1)
	g := newGen(t, "oltp_read_write", "--table_size=50", "--rand-type=uniform")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*countRecorder, workers)
	var wg sync.WaitGroup
	for w := range workers {
		recs[w] = newCountRecorder(len(ql.Ops))
		wg.Add(1)
		go func() {
			defer wg.Done()
			ql.Attach(w, recs[w])
			for i := range events {
				if res := ql.Workers[w](ctx); res.Err != nil {
					t.Errorf("worker %d event %d: %v", w, i, res.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var ignored, commits int
	for _, r := range recs {
		ignored += r.errs[0]
		commits += r.ops[slices.Index(ql.Ops, "commit")]
	}
	if commits != workers*events {
		t.Errorf("%d commits, want %d", commits, workers*events)
	}
	t.Logf("%d events, %d restarted after ignorable errors", workers*events, ignored)
	var rep lines
	if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
		t.Errorf("%v\n%s", err, strings.Join(rep, "\n"))
	}
}

// TestPostgresLostConnection terminates the worker's backend between
// events: the next event fails on the dead connection, counts an error and
// restarts on a new one.
func TestPostgresLostConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := freshDB(t, 2)
	g := newGen(t, "oltp_read_write", "--table_size=1000")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	layout, ws := g.workers(db.Dialect(), workload.OpsConfig{Concurrency: 1, Seed: 5}, false, func(int) sqlx.Conn { return conn })
	w := ws[0]
	rec := newCountRecorder(len(layout.names))
	w.rec = rec
	for round := range 3 {
		for range 5 {
			if res := w.run(ctx); res.Err != nil {
				t.Fatalf("round %d: %v", round, res.Err)
			}
		}
		var pid int
		if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		var ok bool
		if err := db.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
			t.Fatalf("terminating backend %d: %v %v", pid, ok, err)
		}
		time.Sleep(100 * time.Millisecond) // let the backend go
	}
	if res := w.run(ctx); res.Err != nil {
		t.Fatalf("after the last termination: %v", res.Err)
	}
	if rec.errs[0] != 3 || db.Reconnects() != 3 {
		t.Errorf("%d errors counted, %d reconnects; want 3 and 3", rec.errs[0], db.Reconnects())
	}
	if got := rec.ops[layout.index[kCommit]]; got != 16 {
		t.Errorf("%d commits, want 16", got)
	}
}

// TestPostgresLoadStreams loads one table through several parallel COPY
// streams, as `prepare --threads=4` does, and checks that the streams
// together wrote every row once: ids 1..n, each row's k in range, the
// indexes built, and the workload's own consistency check passing. How fast
// prepare loads (the target is 3 times sysbench's speed) is measured by
// `scripts/bench sysbench`, beside sysbench and the server alone.
func TestPostgresLoadStreams(t *testing.T) {
	const n, streams = 50_000, 4
	ctx := context.Background()
	db := freshDB(t, streams+1)
	g := newGen(t, "oltp_read_write", "--table_size="+strconv.Itoa(n))
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: streams}); err != nil {
		t.Fatal(err)
	}
	var count, distinct, lo, hi, badK int64
	if err := db.QueryRow(ctx, "SELECT count(*), count(DISTINCT id), min(id), max(id), count(*) FILTER (WHERE k < 1 OR k > $1) FROM sbtest1", n).
		Scan(&count, &distinct, &lo, &hi, &badK); err != nil {
		t.Fatal(err)
	}
	if count != n || distinct != n || lo != 1 || hi != n || badK != 0 {
		t.Errorf("%d streams loaded %d rows, %d distinct ids in %d..%d, %d with k outside 1..%d; want %d rows, ids 1..%d",
			streams, count, distinct, lo, hi, badK, n, n, n)
	}
	var indexes string
	if err := db.QueryRow(ctx, "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'sbtest1'").Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != "k_1,sbtest1_pkey" {
		t.Errorf("indexes of sbtest1: %s", indexes)
	}
	var rep lines
	if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
		t.Errorf("consistency check after the load: %v (%q)", err, rep)
	}
}

// BenchmarkEventPostgres measures events against the server of
// STAMPEDE_TEST_DATABASE, one worker, with the client's allocations.
func BenchmarkEventPostgres(b *testing.B) {
	ctx := context.Background()
	db := freshDB(b, 2)
	g := newGen(b, "oltp_read_write", "--table_size=10000")
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_update_non_index", "select_random_points"} {
		b.Run(name, func(b *testing.B) {
			ql, err := newGen(b, name).Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = ql.Close(ctx) }()
			ql.Attach(0, newCountRecorder(len(ql.Ops)))
			w := ql.Workers[0]
			w(ctx) // prepares the statements
			b.ReportAllocs()
			for b.Loop() {
				if res := w(ctx); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// fillOnly hides a generator's EncodeBatch, so that the loader copies its
// rows through FillBatch and pgx.
type fillOnly struct{ workload.Generator }

func (f fillOnly) Tables() []workload.Table {
	tables := f.Generator.Tables()
	for i := range tables {
		tables[i].InitialRows.EncodeBatch = nil
	}
	return tables
}

// TestPostgresEncodeMatchesFill loads the same tables twice, through the
// loader's fast path (EncodeBatch) and through FillBatch and pgx, and
// checks that the server holds the same rows: EncodeBatch must write
// exactly FillBatch's values, in tenant column mode too.
func TestPostgresEncodeMatchesFill(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tenant int
		args   []string
	}{
		{"special", 0, nil},
		{"uniform", 0, []string{"--rand-type=uniform"}},
		{"tenant column", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--tables=2", "--table_size=2345"}, tc.args...)
			var sums [2]string
			for i, wrap := range []func(*generator) workload.Generator{
				func(g *generator) workload.Generator { return g },
				func(g *generator) workload.Generator { return fillOnly{g} },
			} {
				g := newGen(t, "oltp_read_write", args...)
				g.SetSeed(11)
				if tc.tenant != 0 {
					g.SetTenant(tc.tenant)
				}
				if g.Tables()[0].InitialRows.EncodeBatch == nil {
					t.Fatal("sysbench's tables have no EncodeBatch")
				}
				db := freshDB(t, 3)
				if err := workload.Setup(ctx, db, wrap(g), workload.LoadOptions{Concurrency: 2, BatchesPerCopy: 1}); err != nil {
					t.Fatal(err)
				}
				cols := "id, k, c, pad"
				if tc.tenant != 0 {
					cols = "tenant_id, " + cols
				}
				if err := db.QueryRow(ctx, "SELECT count(*) || ' ' || md5(string_agg(concat_ws('|', "+cols+"), ';' ORDER BY id)) || ' ' ||"+
					" (SELECT count(*) || ' ' || md5(string_agg(concat_ws('|', "+cols+"), ';' ORDER BY id)) FROM sbtest2) FROM sbtest1").Scan(&sums[i]); err != nil {
					t.Fatal(err)
				}
			}
			if sums[0] != sums[1] || !strings.HasPrefix(sums[0], "2345 ") {
				t.Errorf("rows (count, md5) of sbtest1 and sbtest2 loaded through EncodeBatch: %s; through FillBatch: %s", sums[0], sums[1])
			}
		})
	}
}

// TestPostgresTextStatements runs oltp_read_write with statements sent as
// text (--db-ps-mode=disable), on the fast path (a connection per worker)
// and off it (workers sharing one): the same statements are recorded,
// nothing is prepared on the server, and c and pad are written as text.
func TestPostgresTextStatements(t *testing.T) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("shared=%v", shared), func(t *testing.T) {
			ctx := context.Background()
			workers := 1
			if shared {
				workers = 2
			}
			db := testdb.Fresh(t, "stampede_sysbench_text", sqlx.Options{MaxConns: 1, Workers: workers, TextStatements: true})
			g := newGen(t, "oltp_read_write", "--table_size=100", "--auto_inc=off")
			if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
				t.Fatal(err)
			}
			ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			rec := newCountRecorder(len(ql.Ops))
			ql.Attach(0, rec)
			const events = 20
			for i := range events {
				if res := ql.Workers[0](ctx); res.Err != nil {
					t.Fatalf("event %d: %v", i, res.Err)
				}
			}
			if err := ql.Close(ctx); err != nil {
				t.Fatal(err)
			}
			got := byName(ql.Ops, rec.ops)
			if got["point_select"] != 10*events || got["commit"] != events || got["insert"] != events ||
				got["delete"]+got["delete/no_rows"] != events {
				t.Errorf("recorded %v", got)
			}
			var prepared, hex int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements").Scan(&prepared); err != nil {
				t.Fatal(err)
			}
			if prepared != 0 {
				t.Errorf("%d statements prepared, want none", prepared)
			}
			if err := db.QueryRow(ctx, `SELECT count(*) FROM sbtest1 WHERE c !~ '^[0-9-]+ *$' OR pad !~ '^[0-9-]+ *$'`).Scan(&hex); err != nil {
				t.Fatal(err)
			}
			if hex != 0 {
				t.Errorf("%d rows with a c or pad that is not sysbench's digits", hex)
			}
		})
	}
}
