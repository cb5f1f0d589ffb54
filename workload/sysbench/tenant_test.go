package sysbench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// newTenantGen returns script name's generator for tenant id.
func newTenantGen(t testing.TB, id int, name string, args ...string) *generator {
	t.Helper()
	g := newGen(t, name, args...)
	g.SetTenant(id)
	return g
}

// placeholders returns the highest $n in sql.
func placeholders(sql string) int {
	high := 0
	for i := 1; i <= 64; i++ {
		if strings.Contains(sql, fmt.Sprintf("$%d", i)) {
			high = i
		}
	}
	return high
}

func TestTenantTablesAndStatements(t *testing.T) {
	d := dialect.Postgres{}
	g := newTenantGen(t, 2, "oltp_read_write", "--tables", "2", "--table_size", "5")
	tabs := g.Tables()
	if len(tabs) != 2 {
		t.Fatalf("%d tables", len(tabs))
	}
	for i, tb := range tabs {
		n := i + 1
		if want := "(tenant_id INT NOT NULL, id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)"; tb.Schema != want {
			t.Errorf("schema %s", tb.Schema)
		}
		if fmt.Sprint(tb.Columns) != "[tenant_id id k c pad]" {
			t.Errorf("columns %v", tb.Columns)
		}
		want := fmt.Sprintf("[ALTER TABLE sbtest%d ADD PRIMARY KEY (tenant_id, id) CREATE INDEX k_%d ON sbtest%d(tenant_id, k)]", n, n, n)
		if got := fmt.Sprint(tb.Indexes); got != want {
			t.Errorf("indexes %s, want %s", got, want)
		}
		rows := tb.InitialRows.FillBatch(0, nil)
		if len(rows) != 5 {
			t.Fatalf("%d rows", len(rows))
		}
		for j, r := range rows {
			if len(r) != 5 || r[0] != int32(2) || r[1] != int32(j+1) {
				t.Errorf("row %d: %v", j, r[:2])
			}
		}
	}
	if idx := secondaryIndexes(d, &g.cfg, 3); len(idx) != 2 {
		t.Errorf("indexes %v", idx)
	}
	sec := newTenantGen(t, 2, "oltp_read_write", "--secondary")
	if idx := secondaryIndexes(d, &sec.cfg, 1); idx[0] != "CREATE INDEX xid_1 ON sbtest1(tenant_id, id)" {
		t.Errorf("--secondary: %v", idx)
	}
	if s := newTenantGen(t, 2, "oltp_insert", "--auto_inc=off").Tables()[0].Schema; !strings.HasPrefix(s, "(tenant_id INT NOT NULL, id INTEGER NOT NULL,") {
		t.Errorf("--auto_inc=off schema %s", s)
	}

	s := newTableStatements(d, &g.cfg, 3)
	w := newWorker(g, []tableStatements{s}, new([numKinds]int), nil, randgen.New(1, 1))
	for _, tc := range []struct {
		name, sql, want string
		args            []any
	}{
		{"point select", s.pointSelect, "SELECT c FROM sbtest3 WHERE tenant_id=$1 AND id=$2", w.args1},
		{"simple range", s.simpleRange, "SELECT c FROM sbtest3 WHERE tenant_id=$1 AND id BETWEEN $2 AND $3", w.args2},
		{"sum range", s.sumRange, "SELECT SUM(k) FROM sbtest3 WHERE tenant_id=$1 AND id BETWEEN $2 AND $3", w.args2},
		{"order range", s.orderRange, "SELECT c FROM sbtest3 WHERE tenant_id=$1 AND id BETWEEN $2 AND $3 ORDER BY c", w.args2},
		{"distinct range", s.distinctRange, "SELECT DISTINCT c FROM sbtest3 WHERE tenant_id=$1 AND id BETWEEN $2 AND $3 ORDER BY c", w.args2},
		{"index update", s.indexUpdate, "UPDATE sbtest3 SET k=k+1 WHERE tenant_id=$1 AND id=$2", w.args1},
		{"non-index update", s.nonIndexUpdate, "UPDATE sbtest3 SET c=$1 WHERE tenant_id=$2 AND id=$3", w.updateArgs},
		{"delete", s.delete, "DELETE FROM sbtest3 WHERE tenant_id=$1 AND id=$2", w.args1},
		{"insert", s.insert, "INSERT INTO sbtest3 (tenant_id, id, k, c, pad) VALUES ($1, $2, $3, $4, $5)", w.insertArgs},
		{"insert auto", s.insertAuto, "INSERT INTO sbtest3 (tenant_id, k, c, pad) VALUES ($1, $2, $3, $4)", w.insertAutoArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sql != tc.want {
				t.Errorf("got  %s\nwant %s", tc.sql, tc.want)
			}
			if n := placeholders(tc.sql); n != len(tc.args) {
				t.Errorf("%d parameters, %d arguments", n, len(tc.args))
			}
			// The tenant is bound where tenant_id's placeholder is, as text
			// on the fast path.
			i := strings.Index(tc.sql, "tenant_id")
			var pos int
			if strings.HasPrefix(tc.sql, "INSERT") {
				pos = 0
			} else {
				_, _ = fmt.Sscanf(tc.sql[i:], "tenant_id=$%d", &pos)
				pos--
			}
			if p := w.encode(tc.args); string(p[pos]) != "2" {
				t.Errorf("parameter %d is %q, want the tenant 2", pos+1, p[pos])
			}
		})
	}

	rp := newTenantGen(t, 2, "select_random_points", "--random_points", "3")
	_, ws := rp.workers(d, workload.OpsConfig{Concurrency: 1, Seed: 1}, false, func(int) sqlx.Conn { return nil })
	if want := "SELECT id, k, c, pad FROM sbtest1 WHERE tenant_id=$1 AND k IN ($2, $3, $4)"; ws[0].randomSQL != want || len(ws[0].pointArgs) != 4 || ws[0].pointArgs[0] != &ws[0].tenant {
		t.Errorf("random points %s, %d args", ws[0].randomSQL, len(ws[0].pointArgs))
	}
	rr := newTenantGen(t, 2, "select_random_ranges", "--number_of_ranges", "2")
	_, ws = rr.workers(d, workload.OpsConfig{Concurrency: 1, Seed: 1}, false, func(int) sqlx.Conn { return nil })
	if want := "SELECT count(k) FROM sbtest1 WHERE tenant_id=$1 AND (k BETWEEN $2 AND $3 OR k BETWEEN $4 AND $5)"; ws[0].randomSQL != want || len(ws[0].pointArgs) != 5 {
		t.Errorf("random ranges %s, %d args", ws[0].randomSQL, len(ws[0].pointArgs))
	}
}

// TestTenantZero checks that SetTenant(0) changes nothing.
func TestTenantZero(t *testing.T) {
	d := dialect.Postgres{}
	for _, s := range scripts {
		if s.event == nil {
			continue
		}
		a, b := newGen(t, s.name), newTenantGen(t, 0, s.name)
		if x, y := fmt.Sprint(a.tables(d)[0].Schema, a.tables(d)[0].Indexes, a.tables(d)[0].Columns), fmt.Sprint(b.tables(d)[0].Schema, b.tables(d)[0].Indexes, b.tables(d)[0].Columns); x != y {
			t.Errorf("%s: %s != %s", s.name, x, y)
		}
		if newTableStatements(d, &a.cfg, 1) != newTableStatements(d, &b.cfg, 1) {
			t.Errorf("%s: statements differ", s.name)
		}
	}
}

func TestTenantBulkInsert(t *testing.T) {
	m, _ := workload.Get("bulk_insert")
	if _, ok := m.New().(workload.TenantColumner); ok {
		t.Error("bulk_insert is a TenantColumner")
	}
	m, _ = workload.Get("oltp_read_write")
	if _, ok := m.New().(workload.TenantColumner); !ok {
		t.Error("oltp_read_write is no TenantColumner")
	}
	g := newTenantGen(t, 2, "bulk_insert")
	err := g.Hooks().Validate()
	if err == nil || !strings.Contains(err.Error(), "cannot share tables between tenants (--tenant-mode column)") {
		t.Errorf("Validate: %v", err)
	}
	if _, err := g.Ops(context.Background(), nil, workload.OpsConfig{Concurrency: 1}); err == nil {
		t.Error("Ops in column mode succeeded")
	}
}

// TestTenantsPostgres loads tenants 1 and 2 of oltp_read_write into the
// same tables and runs both at once: each keeps its own rows.
func TestTenantsPostgres(t *testing.T) {
	const workers, perWorker, size = 2, 50, 100
	db := freshDB(t, 4*workers)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gen := func(id int) *generator {
		g := newTenantGen(t, id, "oltp_read_write", "--tables", "1", "--table_size", fmt.Sprint(size))
		g.SetSeed(uint64(id))
		return g
	}
	for id := 1; id <= 2; id++ {
		if err := workload.Setup(ctx, db, gen(id), workload.LoadOptions{Concurrency: 2, SkipCreate: id > 1}); err != nil {
			t.Fatalf("Setup of tenant %d: %v", id, err)
		}
	}
	check := func(id int) {
		t.Helper()
		g := gen(id)
		if err := g.Hooks().PreRun(ctx, db); err != nil {
			t.Errorf("PreRun of tenant %d: %v", id, err)
		}
		var out lines
		if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
			t.Errorf("CheckConsistency of tenant %d: %v (%q)", id, err, out)
		}
		want := fmt.Sprintf("sbtest1 (tenant %d): 100 rows, 100 distinct ids in 1..100 (expected 100, ids 1..100) PASS", id)
		if len(out) != 1 || out[0] != want {
			t.Errorf("check output %q, want %q", out, want)
		}
	}
	check(1)
	check(2)

	var wg sync.WaitGroup
	errs := make(chan error, 2*workers)
	for id := 1; id <= 2; id++ {
		ql, err := gen(id).Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: uint64(10 + id)})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = ql.Close(ctx) }()
		for w, run := range ql.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ql.Attach(w, newCountRecorder(len(ql.Ops)))
				for n := 0; n < perWorker; n++ {
					if res := run(ctx); res.Err != nil {
						errs <- fmt.Errorf("tenant %d worker %d, event %d: %w", id, w, n, res.Err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	check(1)
	check(2)
	var total, tenants int64
	if err := db.QueryRow(ctx, "SELECT count(*), count(DISTINCT tenant_id) FROM sbtest1").Scan(&total, &tenants); err != nil {
		t.Fatal(err)
	}
	if total != 2*size || tenants != 2 {
		t.Errorf("%d rows of %d tenants, want %d of 2", total, tenants, 2*size)
	}

	// A tenant's run against a table without tenant_id fails in PreRun.
	plain := freshDB(t, 1)
	if err := workload.Setup(ctx, plain, newGen(t, "oltp_read_write", "--table_size", "10"), workload.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := gen(1).Hooks().PreRun(ctx, plain); err == nil || !strings.Contains(err.Error(), "has no column tenant_id") {
		t.Errorf("PreRun on a plain table: %v", err)
	}
}
