package bank

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/sqltest"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// newTenant returns a bank generator for tenant id configured by args.
func newTenant(t testing.TB, id int, args ...string) *bank {
	t.Helper()
	g := newGen(t, args...)
	g.SetTenant(id)
	return g
}

func TestTenantTables(t *testing.T) {
	args := []string{"--rows", "2500", "--payload-bytes", "5"}
	plain := newGen(t, args...)
	plainRows := allRows(plain)
	const tenantSchema = "(tenant_id INT NOT NULL, id BIGINT NOT NULL, balance BIGINT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (tenant_id, id))"
	for _, tc := range []struct {
		tenant  int
		schema  string
		columns []string
	}{
		{0, "(id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, payload TEXT NOT NULL)", []string{"id", "balance", "payload"}},
		{1, tenantSchema, []string{"tenant_id", "id", "balance", "payload"}},
		{99, tenantSchema, []string{"tenant_id", "id", "balance", "payload"}},
	} {
		t.Run(fmt.Sprintf("tenant=%d", tc.tenant), func(t *testing.T) {
			g := newTenant(t, tc.tenant, args...)
			tab := g.Tables()[0]
			if tab.Name != tableName || tab.Schema != tc.schema || !reflect.DeepEqual(tab.Columns, tc.columns) ||
				tab.InitialRows.NumRows != 2500 || tab.InitialRows.NumBatches != 3 {
				t.Fatalf("table %+v", tab)
			}
			rows := allRows(g)
			if len(rows) != len(plainRows) {
				t.Fatalf("%d rows, want %d", len(rows), len(plainRows))
			}
			// The same rows as without a tenant, led by the tenant id.
			for i, row := range rows {
				if tc.tenant != 0 {
					if row[0] != any(int32(tc.tenant)) {
						t.Fatalf("row %d: tenant %v (%T)", i, row[0], row[0])
					}
					row = row[1:]
				}
				if !reflect.DeepEqual(row, plainRows[i]) {
					t.Fatalf("row %d = %v, want %v", i, row, plainRows[i])
				}
			}
		})
	}
}

// TestTenantZero checks that SetTenant(0), also after another tenant,
// leaves the table and statements as without SetTenant (whose texts
// TestInitialData and TestStatements pin).
func TestTenantZero(t *testing.T) {
	plain := newGen(t, "--rows", "10")
	g := newTenant(t, 4, "--rows", "10")
	g.SetTenant(0)
	a, b := plain.Tables()[0], g.Tables()[0]
	if a.Schema != b.Schema || !reflect.DeepEqual(a.Columns, b.Columns) || !reflect.DeepEqual(allRows(plain), allRows(g)) {
		t.Error("SetTenant(0) changed the table")
	}
	if g.statements(dialect.Postgres{}) != newStatements(dialect.Postgres{}) || g.label() != "bank" {
		t.Error("SetTenant(0) changed the statements")
	}
}

func TestTenantStatements(t *testing.T) {
	s := newTenant(t, 2).statements(dialect.Postgres{})
	if want := "SELECT id, balance FROM bank WHERE tenant_id = $1 AND id IN ($2, $3)"; s.read != want {
		t.Errorf("read = %q, want %q", s.read, want)
	}
	if want := "UPDATE bank SET balance = CASE id WHEN $1 THEN CAST($3 AS BIGINT) WHEN $2 THEN CAST($4 AS BIGINT) END" +
		" WHERE tenant_id = $5 AND id IN ($1, $2)"; s.update != want {
		t.Errorf("update = %q, want %q", s.update, want)
	}
}

// tenantTx is a fake connection and transaction holding two accounts of
// balance 10 (whatever the ids asked for), checking that every statement
// binds one argument per placeholder and the tenant id to tenant_id.
type tenantTx struct {
	t          testing.TB
	tenant     int32
	statements int
}

func (c *tenantTx) check(sql string, args []any) {
	c.t.Helper()
	c.statements++
	maxP, at := sqltest.Placeholders(sql), sqltest.TenantArg(sql)
	if maxP != len(args) || at == 0 {
		c.t.Fatalf("%s: %d arguments for %d placeholders", sql, len(args), maxP)
	}
	if args[at-1] != any(c.tenant) {
		c.t.Errorf("%s: argument %d is %v, not the tenant", sql, at, args[at-1])
	}
}

func (c *tenantTx) Exec(_ context.Context, sql string, args ...any) (int64, error) {
	c.check(sql, args)
	return 2, nil
}

func (c *tenantTx) Query(_ context.Context, sql string, args ...any) (sqlx.Rows, error) {
	c.check(sql, args)
	return &accounts{ids: []int64{*args[1].(*int64), *args[2].(*int64)}}, nil
}

func (c *tenantTx) QueryRow(context.Context, string, ...any) sqlx.Row { panic("unused") }
func (c *tenantTx) Begin(context.Context, sqlx.TxOptions) (sqlx.Tx, error) {
	return c, nil
}
func (c *tenantTx) Commit(context.Context) error   { return nil }
func (c *tenantTx) Rollback(context.Context) error { return nil }
func (c *tenantTx) Release()                       {}

// accounts is the result of a read: the ids, each with balance 10.
type accounts struct {
	ids []int64
	i   int
}

func (a *accounts) Next() bool { a.i++; return a.i <= len(a.ids) }
func (a *accounts) Scan(dest ...any) error {
	*dest[0].(*int64), *dest[1].(*int64) = a.ids[a.i-1], 10
	return nil
}
func (*accounts) RawValues() [][]byte { return nil }
func (*accounts) Err() error          { return nil }
func (*accounts) Close()              {}

// TestTenantArgs runs transfers of a tenant against a fake connection
// that checks each statement's arguments.
func TestTenantArgs(t *testing.T) {
	g := newTenant(t, 6, "--rows", "10")
	tx := &tenantTx{t: t, tenant: 6}
	w := newWorker(g, dialect.Postgres{}, tx, randgen.New(1, workerStream(0)))
	for i := 0; i < 100; i++ {
		if res := w.run(context.Background()); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if tx.statements != 200 {
		t.Errorf("%d statements for 100 transfers", tx.statements)
	}
}

// TestTenantsPostgres loads three tenants with different balances into
// one shared table, runs their transfers side by side, and checks that
// each tenant's total is kept and checked on its own.
func TestTenantsPostgres(t *testing.T) {
	const workers, perWorker = 4, 150
	tenants := []struct {
		id      int
		initial int64
	}{{1, 100}, {2, 200}, {3, 300}}
	db := freshDB(t, workers*len(tenants))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Few accounts, so that transfers conflict.
	gen := func(t testing.TB, i int, extra ...string) *bank {
		g := newTenant(t, tenants[i].id, append([]string{"--rows", "20", "--payload-bytes", "10",
			"--initial-balance", fmt.Sprint(tenants[i].initial)}, extra...)...)
		g.SetSeed(uint64(tenants[i].id))
		return g
	}

	// Tenant 1 creates the table; the others only add their rows.
	for i := range tenants {
		if i == 1 {
			if err := workload.Setup(ctx, db, gen(t, i), workload.LoadOptions{Concurrency: 2}); !errors.Is(err, workload.ErrTablesExist) {
				t.Fatalf("Setup of tenant 2 without SkipCreate: %v", err)
			}
		}
		if err := workload.Setup(ctx, db, gen(t, i), workload.LoadOptions{Concurrency: 2, SkipCreate: i > 0}); err != nil {
			t.Fatalf("Setup of tenant %d: %v", tenants[i].id, err)
		}
	}
	check := func(t *testing.T, i int) {
		t.Helper()
		var out lines
		if err := gen(t, i).Hooks().CheckConsistency(ctx, db, &out); err != nil {
			t.Errorf("CheckConsistency of tenant %d: %v (%q)", tenants[i].id, err, out)
		}
		want := fmt.Sprintf("bank (tenant %d): 20 rows, total balance %d (expected %d) PASS",
			tenants[i].id, 20*tenants[i].initial, 20*tenants[i].initial)
		if len(out) != 1 || out[0] != want {
			t.Errorf("check output %q, want %q", out, want)
		}
	}
	for i, tn := range tenants {
		if err := gen(t, i).Hooks().PreRun(ctx, db); err != nil {
			t.Errorf("PreRun of tenant %d: %v", tn.id, err)
		}
		if err := gen(t, i, "--rows", "21").Hooks().PreRun(ctx, db); err == nil ||
			!strings.Contains(err.Error(), fmt.Sprintf("has no account 20 of tenant %d", tn.id)) {
			t.Errorf("PreRun of tenant %d with --rows 21: %v", tn.id, err)
		}
		check(t, i)
	}
	if err := newTenant(t, 4, "--rows", "20").Hooks().PreRun(ctx, db); err == nil ||
		!strings.Contains(err.Error(), "has no account 19 of tenant 4: the tenant was not loaded") {
		t.Errorf("PreRun of a tenant never loaded: %v", err)
	}

	// All tenants' transfers at once.
	var wg sync.WaitGroup
	rec := &countingRecorder{}
	errs := make(chan error, workers*len(tenants))
	for i, tn := range tenants {
		ql, err := gen(t, i).Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: uint64(10 + tn.id)})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = ql.Close(ctx) }()
		for w, run := range ql.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ql.Attach(w, rec)
				for n := 0; n < perWorker; n++ {
					if res := run(ctx); res.Err != nil {
						errs <- fmt.Errorf("tenant %d worker %d, transfer %d: %w", tn.id, w, n, res.Err)
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
	t.Logf("%d transfers, %d retried conflicts", workers*perWorker*len(tenants), rec.errors.Load())

	for i, tn := range tenants {
		t.Run(fmt.Sprintf("tenant=%d", tn.id), func(t *testing.T) {
			check(t, i)
			var moved, outside int64
			if err := db.QueryRow(ctx, "SELECT count(*) FILTER (WHERE balance <> $2), count(*) FILTER (WHERE id < 0 OR id >= 20)"+
				" FROM bank WHERE tenant_id = $1", tn.id, tn.initial).Scan(&moved, &outside); err != nil {
				t.Fatal(err)
			}
			if moved == 0 || outside != 0 {
				t.Errorf("%d balances moved, %d accounts outside 0..19", moved, outside)
			}
		})
	}

	// Corrupting tenant 2 fails its check only.
	if _, err := db.Exec(ctx, "UPDATE bank SET balance = balance + 7 WHERE tenant_id = 2 AND id = 3"); err != nil {
		t.Fatal(err)
	}
	var out lines
	err := gen(t, 1).Hooks().CheckConsistency(ctx, db, &out)
	if err == nil || !strings.HasPrefix(err.Error(), "bank (tenant 2) consistency check failed") || !strings.Contains(err.Error(), "difference +7") {
		t.Errorf("CheckConsistency of tenant 2 after corruption: %v", err)
	}
	if len(out) != 2 || out[1] != "bank (tenant 2): difference: +0 rows (expected 20), +7 total balance" {
		t.Errorf("check output after corruption %q", out)
	}
	check(t, 0)
	check(t, 2)
}

// TestTenantOnPlainTable checks the error of a tenant's run against a
// table loaded without tenants.
func TestTenantOnPlainTable(t *testing.T) {
	db := freshDB(t, 1)
	ctx := context.Background()
	if err := workload.Setup(ctx, db, newGen(t, "--rows", "10"), workload.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "table bank in database " + db.Database() + " is not a bank table with tenant ids (tenant_id, id, balance, payload)"
	if err := newTenant(t, 1, "--rows", "10").Hooks().PreRun(ctx, db); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("PreRun: %v, want %s...", err, want)
	}
}
