package ycsb

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/sqltest"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// newTenant builds a generator from flags for tenant id.
func newTenant(t testing.TB, id int, args ...string) (*ycsb, *config) {
	t.Helper()
	g, c := newConfig(t, args...)
	g.SetTenant(id)
	return g, c
}

func TestTenantTables(t *testing.T) {
	args := []string{"--record-count", "2500", "--field-count", "3", "--field-length", "7"}
	plain, _ := newConfig(t, args...)
	want := plain.Tables()[0]
	for _, tc := range []struct {
		tenant  int
		schema  string
		columns []string
	}{
		{0, "(ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, field1 TEXT, field2 TEXT)",
			[]string{"ycsb_key", "field0", "field1", "field2"}},
		{1, "(tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL, field0 TEXT, field1 TEXT, field2 TEXT, PRIMARY KEY (tenant_id, ycsb_key))",
			[]string{"tenant_id", "ycsb_key", "field0", "field1", "field2"}},
		{42, "(tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL, field0 TEXT, field1 TEXT, field2 TEXT, PRIMARY KEY (tenant_id, ycsb_key))",
			[]string{"tenant_id", "ycsb_key", "field0", "field1", "field2"}},
	} {
		t.Run(fmt.Sprintf("tenant=%d", tc.tenant), func(t *testing.T) {
			g, _ := newTenant(t, tc.tenant, args...)
			tab := g.Tables()[0]
			if tab.Name != want.Name || tab.Schema != tc.schema || !reflect.DeepEqual(tab.Columns, tc.columns) ||
				len(tab.Indexes) != 0 {
				t.Fatalf("table %s %s %q %q", tab.Name, tab.Schema, tab.Columns, tab.Indexes)
			}
			if tab.InitialRows.NumBatches != want.InitialRows.NumBatches || tab.InitialRows.NumRows != want.InitialRows.NumRows {
				t.Fatalf("%d batches of %d rows, want %d of %d", tab.InitialRows.NumBatches, tab.InitialRows.NumRows,
					want.InitialRows.NumBatches, want.InitialRows.NumRows)
			}
			// The same rows as without a tenant, led by the tenant id.
			for b := 0; b < tab.InitialRows.NumBatches; b++ {
				got := tab.InitialRows.FillBatch(b, nil)
				plainRows := want.InitialRows.FillBatch(b, nil)
				if len(got) != len(plainRows) {
					t.Fatalf("batch %d: %d rows, want %d", b, len(got), len(plainRows))
				}
				for i, row := range got {
					if tc.tenant != 0 {
						if row[0] != any(int32(tc.tenant)) {
							t.Fatalf("batch %d row %d: tenant %v (%T)", b, i, row[0], row[0])
						}
						row = row[1:]
					}
					if !reflect.DeepEqual(row, plainRows[i]) {
						t.Fatalf("batch %d row %d differs from the row without a tenant", b, i)
					}
				}
			}
		})
	}
}

// TestTenantZero checks that SetTenant(0), also after another tenant,
// leaves the table and statements exactly as without SetTenant (whose
// texts TestTableSchema and TestStatements pin).
func TestTenantZero(t *testing.T) {
	args := []string{"--field-count", "3"}
	plain, pc := newConfig(t, args...)
	g, _ := newConfig(t, args...)
	g.SetTenant(5)
	g.SetTenant(0)
	if err := g.validate(); err != nil { // re-resolving keeps the tenant
		t.Fatal(err)
	}
	c := g.cfg
	a, b := plain.Tables()[0], g.Tables()[0]
	if a.Schema != b.Schema || !reflect.DeepEqual(a.Columns, b.Columns) ||
		!reflect.DeepEqual(a.InitialRows.FillBatch(0, nil), b.InitialRows.FillBatch(0, nil)) {
		t.Error("SetTenant(0) changed the table")
	}
	if !reflect.DeepEqual(pc.statements(dialect.Postgres{}), c.statements(dialect.Postgres{})) {
		t.Error("SetTenant(0) changed the statements")
	}
	if q, args := c.countQuery(dialect.Postgres{}); q != "SELECT count(*) FROM usertable" || args != nil {
		t.Errorf("count query %q %v", q, args)
	}
}

func TestTenantStatements(t *testing.T) {
	_, c := newTenant(t, 3, "--field-count", "3")
	s := c.statements(dialect.Postgres{})
	for _, tc := range []struct{ got, want string }{
		{s.readAll, "SELECT ycsb_key, field0, field1, field2 FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2"},
		{s.readField[2], "SELECT field2 FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2"},
		{s.updateAll, "UPDATE usertable SET field0 = $1, field1 = $2, field2 = $3 WHERE tenant_id = $4 AND ycsb_key = $5"},
		{s.updateField[1], "UPDATE usertable SET field1 = $1 WHERE tenant_id = $2 AND ycsb_key = $3"},
		{s.insert, "INSERT INTO usertable (tenant_id, ycsb_key, field0, field1, field2) VALUES ($1, $2, $3, $4, $5)"},
		{s.scan, "SELECT ycsb_key, field0, field1, field2 FROM usertable WHERE tenant_id = $1 AND ycsb_key >= $2 ORDER BY ycsb_key LIMIT $3"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	if q, args := c.countQuery(dialect.Postgres{}); q != "SELECT count(*) FROM usertable WHERE tenant_id = $1" ||
		!reflect.DeepEqual(args, []any{int32(3)}) {
		t.Errorf("count query %q %v", q, args)
	}
}

// tenantConn is a fake connection that checks that every statement binds
// one argument per placeholder and the tenant id to tenant_id, and
// counts the statements by their first word.
type tenantConn struct {
	t      testing.TB
	tenant int32

	mu    sync.Mutex
	verbs map[string]int
}

func (c *tenantConn) check(sql string, args []any) {
	c.t.Helper()
	if maxP := sqltest.Placeholders(sql); maxP != len(args) {
		c.t.Errorf("%s: %d arguments for %d placeholders", sql, len(args), maxP)
		return
	}
	at := sqltest.TenantArg(sql)
	if strings.HasPrefix(sql, "INSERT") {
		at = 1 // tenant_id is the first column
	}
	if at == 0 || args[at-1] != any(c.tenant) {
		c.t.Errorf("%s: tenant not bound (argument %d of %v)", sql, at, args)
	}
	c.mu.Lock()
	c.verbs[strings.Fields(sql)[0]]++
	c.mu.Unlock()
}

func (c *tenantConn) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	c.check(sql, args)
	return 1, nil
}

func (c *tenantConn) Query(_ context.Context, sql string, args ...any) (sqlx.Rows, error) {
	c.check(sql, args)
	return &oneRow{}, nil
}

func (c *tenantConn) QueryRow(_ context.Context, sql string, args ...any) sqlx.Row {
	c.check(sql, args)
	return okRow{}
}

func (c *tenantConn) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	return nil, errors.New("no transactions")
}

func (c *tenantConn) Release() {}

// TestTenantArgs runs every operation for a tenant against a fake
// connection that checks each statement's arguments.
func TestTenantArgs(t *testing.T) {
	for _, variant := range [][]string{{"--read-all-fields", "--write-all-fields=false"}, {"--read-all-fields=false", "--write-all-fields"}} {
		t.Run(strings.Join(variant, " "), func(t *testing.T) {
			args := append([]string{"--record-count", "100", "-p", "readproportion=0.2", "-p", "updateproportion=0.2",
				"-p", "insertproportion=0.2", "-p", "scanproportion=0.2", "-p", "readmodifywriteproportion=0.2"}, variant...)
			_, c := newTenant(t, 7, args...)
			conn := &tenantConn{t: t, tenant: 7, verbs: map[string]int{}}
			w := newWorker(c, c.statements(dialect.Postgres{}), conn, randgen.New(1, 1), randgen.NewAcknowledgedCounter(100), nil)
			for i := 0; i < 2000; i++ {
				if res := w.run(context.Background()); res.Err != nil {
					t.Fatalf("%s: %v", opNames[res.Op], res.Err)
				}
			}
			if conn.verbs["SELECT"] == 0 || conn.verbs["UPDATE"] == 0 || conn.verbs["INSERT"] == 0 {
				t.Errorf("statements run: %v", conn.verbs)
			}
		})
	}
}

func TestTenantWorkerAllocs(t *testing.T) {
	ctx := context.Background()
	g, _ := newTenant(t, 2, "--workload", "c")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := ql.Workers[0]
	if allocs := testing.AllocsPerRun(1000, func() { w(ctx) }); allocs != 0 {
		t.Errorf("a tenant's read allocates %v times", allocs)
	}
}

// rawRows runs query and returns its rows as strings.
func rawRows(t testing.TB, db *sqlx.DB, query string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var row []string
		for _, v := range rows.RawValues() {
			row = append(row, string(v))
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// generatedRows returns the initial rows of g without the tenant column,
// by key.
func generatedRows(g *ycsb) map[string][]string {
	tab := g.Tables()[0]
	out := map[string][]string{}
	for b := 0; b < tab.InitialRows.NumBatches; b++ {
		for _, row := range tab.InitialRows.FillBatch(b, nil) {
			var s []string
			for _, v := range row[len(row)-len(tab.Columns)+1:] {
				s = append(s, v.(string))
			}
			out[s[0]] = s
		}
	}
	return out
}

func tenantRows(t testing.TB, db *sqlx.DB, tenant int) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(context.Background(), "SELECT count(*) FROM usertable WHERE tenant_id = $1", tenant).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTenantsPostgres loads three tenants of different sizes and seeds
// into one shared usertable, runs their operations side by side, and
// checks that no tenant sees or changes another's rows.
func TestTenantsPostgres(t *testing.T) {
	db := freshDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tenants := []struct {
		id      int
		records int64
		seed    uint64
	}{{1, 1000, 11}, {2, 1500, 12}, {3, 2000, 13}}
	gen := func(t testing.TB, i int, extra ...string) (*ycsb, *config) {
		g, c := newTenant(t, tenants[i].id, append([]string{"--record-count", fmt.Sprint(tenants[i].records)}, extra...)...)
		g.SetSeed(tenants[i].seed)
		return g, c
	}

	// Tenant 1 creates the table; the others only add their rows.
	for i := range tenants {
		g, _ := gen(t, i)
		opts := workload.LoadOptions{Concurrency: 2, SkipCreate: i > 0}
		if i == 1 {
			if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); !errors.Is(err, workload.ErrTablesExist) {
				t.Fatalf("Setup of tenant 2 without SkipCreate: %v", err)
			}
		}
		if err := workload.Setup(ctx, db, g, opts); err != nil {
			t.Fatalf("Setup of tenant %d: %v", tenants[i].id, err)
		}
	}
	for i, tn := range tenants {
		g, _ := gen(t, i)
		if n := tenantRows(t, db, tn.id); n != tn.records {
			t.Errorf("tenant %d: %d rows, want %d", tn.id, n, tn.records)
		}
		if err := g.Hooks().PreRun(ctx, db); err != nil {
			t.Errorf("PreRun of tenant %d: %v", tn.id, err)
		}
		var rep lines
		if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
			t.Errorf("CheckConsistency of tenant %d: %v (%q)", tn.id, err, rep)
		}
		want := []string{
			fmt.Sprintf("usertable (tenant %d): %d rows (expected at least %d) PASS", tn.id, tn.records, tn.records),
			fmt.Sprintf("usertable (tenant %d): %d of %d loaded keys present PASS", tn.id, tn.records, tn.records),
		}
		if !reflect.DeepEqual([]string(rep), want) {
			t.Errorf("check output %q, want %q", rep, want)
		}
	}
	absent, _ := newTenant(t, 4, "--record-count", "1000")
	if err := absent.Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "of tenant 4: the tenant was not loaded") {
		t.Errorf("PreRun of a tenant never loaded: %v", err)
	}

	// Reads and scans return the tenant's own rows, as generated (the
	// tenants' seeds differ, so every key's values do).
	all := make([]map[string][]string, len(tenants))
	for i := range tenants {
		g, _ := gen(t, i)
		all[i] = generatedRows(g)
	}
	for i, tn := range tenants {
		t.Run(fmt.Sprintf("tenant=%d/read", tn.id), func(t *testing.T) {
			_, c := gen(t, i)
			s := c.statements(db.Dialect())
			key := c.keyName(5)
			got := rawRows(t, db, s.readAll, int32(tn.id), key)
			if len(got) != 1 || !reflect.DeepEqual(got[0], all[i][key]) {
				t.Fatalf("read of %s: %q, want %q", key, got, all[i][key])
			}
			for j := range tenants {
				if j != i && reflect.DeepEqual(got[0], all[j][key]) {
					t.Fatalf("read of %s returned tenant %d's row", key, tenants[j].id)
				}
			}
			// A scan from the smallest key returns the tenant's rows, all.
			got = rawRows(t, db, s.scan, int32(tn.id), keyPrefix, 1<<20)
			if int64(len(got)) != tn.records {
				t.Fatalf("scan returned %d rows, want %d", len(got), tn.records)
			}
			for n, row := range got {
				if !reflect.DeepEqual(row, all[i][row[0]]) {
					t.Fatalf("scan row %d (%s) is not the tenant's", n, row[0])
				}
				if n > 0 && got[n-1][0] >= row[0] {
					t.Fatalf("scan out of key order at row %d", n)
				}
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		// Key 1999 is tenant 3's only: tenant 2 neither reads nor updates it.
		_, c := gen(t, 1)
		conn := db.Conn(0, true)
		defer conn.Release()
		w := newWorker(c, c.statements(db.Dialect()), conn, randgen.New(1, 1), randgen.NewAcknowledgedCounter(1<<40), nil)
		if err := w.read(ctx, w.setKey(1999)); !errors.Is(err, ErrNotFound) {
			t.Errorf("tenant 2's read of tenant 3's key: %v", err)
		}
		if err := w.update(ctx, w.setKey(1999)); !errors.Is(err, ErrNotFound) {
			t.Errorf("tenant 2's update of tenant 3's key: %v", err)
		}
		key := c.keyName(1999)
		if got := rawRows(t, db, "SELECT "+strings.Join(c.dataColumns(), ", ")+
			" FROM usertable WHERE tenant_id = 3 AND ycsb_key = $1", key); len(got) != 1 || !reflect.DeepEqual(got[0], all[2][key]) {
			t.Errorf("tenant 3's row %s changed: %q", key, got)
		}
	})

	// Each workload's operations for all tenants at once; inserts land
	// under their tenant, from the tenant's own row count on.
	const workers, calls = 3, 300
	for _, letter := range []string{"a", "d", "e", "f"} {
		t.Run("workload="+letter, func(t *testing.T) {
			var wg sync.WaitGroup
			inserted := make([]atomic.Int64, len(tenants))
			before := make([]int64, len(tenants))
			for i, tn := range tenants {
				before[i] = tenantRows(t, db, tn.id)
				g, _ := gen(t, i, "--workload", letter)
				ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: uint64(tn.id)})
				if err != nil {
					t.Fatal(err)
				}
				for w, worker := range ql.Workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for n := 0; n < calls/workers; n++ {
							res := worker(ctx)
							if res.Err != nil {
								t.Errorf("tenant %d worker %d: %s: %v", tn.id, w, opNames[res.Op], res.Err)
								return
							}
							if res.Op == opInsert {
								inserted[i].Add(1)
							}
						}
					}()
				}
				defer func() { _ = ql.Close(ctx) }()
			}
			wg.Wait()
			for i, tn := range tenants {
				ins := inserted[i].Load()
				if n := tenantRows(t, db, tn.id); n != before[i]+ins {
					t.Errorf("tenant %d: %d rows after %d inserts, want %d", tn.id, n, ins, before[i]+ins)
				}
				if letter == "d" || letter == "e" {
					if ins == 0 {
						t.Errorf("tenant %d inserted nothing", tn.id)
					}
					_, c := gen(t, i)
					var keys []any
					for k := before[i]; k < before[i]+ins; k++ {
						keys = append(keys, c.keyName(k))
					}
					var n int64
					q := "SELECT count(*) FROM usertable WHERE tenant_id = $1 AND ycsb_key IN (" +
						dialect.Placeholders(db.Dialect(), 2, len(keys)) + ")"
					if err := db.QueryRow(ctx, q, append([]any{tn.id}, keys...)...).Scan(&n); err != nil {
						t.Fatal(err)
					} else if n != ins {
						t.Errorf("tenant %d: %d of its %d inserted keys (from %d on) are under it", tn.id, n, ins, before[i])
					}
				}
			}
		})
	}

	for i, tn := range tenants {
		g, _ := gen(t, i)
		var rep lines
		if err := g.Hooks().CheckConsistency(ctx, db, &rep); err != nil {
			t.Errorf("CheckConsistency of tenant %d after the runs: %v (%q)", tn.id, err, rep)
		}
	}
}

// TestTenantOnPlainTable checks the errors of a tenant's run against a
// table loaded without tenants.
func TestTenantOnPlainTable(t *testing.T) {
	db := freshDB(t)
	ctx := context.Background()
	plain, _ := newConfig(t, "--record-count", "100")
	load(t, db, plain)
	g, _ := newTenant(t, 2, "--record-count", "100")
	want := "table usertable in database " + db.Database() + " has no column tenant_id"
	if err := g.Hooks().PreRun(ctx, db); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("PreRun: %v, want %s...", err, want)
	}
	if _, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Ops: %v, want %s...", err, want)
	}
}
