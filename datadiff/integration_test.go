package datadiff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/tpcc" // registers tpcc
)

// The two servers of the tests: A is the one of STAMPEDE_TEST_DATABASE,
// B a throwaway PostgreSQL of the package's own. Each holds a database
// loaded once with the same seeded TPC-C (2 warehouses); tests compare
// copies of them (CREATE DATABASE ... TEMPLATE).
var pair struct {
	once         sync.Once
	err          error
	srvB         *localpg.Server
	adminA       string // URL of A's server
	adminB       string
	baseA, baseB string // the loaded databases
}

// tpccTables are the tables `init tpcc` creates.
var tpccTables = []string{"tpcc_meta", "warehouse", "item", "district", "customer", "history", "order", "new_order", "stock", "order_line"}

func TestMain(m *testing.M) {
	code := m.Run()
	if pair.srvB != nil {
		_ = pair.srvB.Stop()
	}
	if pair.baseA != "" {
		ctx := context.Background()
		if db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{pair.adminA}, MaxConns: 1}); err == nil {
			_, _ = db.Exec(ctx, db.Dialect().DropDatabase(pair.baseA)+" WITH (FORCE)")
			db.Close()
		}
	}
	os.Exit(code)
}

// servers returns the URLs of two databases, one on each server, holding
// the same TPC-C, which the test may change: they are dropped when it
// ends. It skips without a test server.
func servers(t *testing.T) (urlA, urlB string) {
	t.Helper()
	admin := testdb.URL(t)
	if testing.Short() {
		t.Skip("loads TPC-C on two servers")
	}
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("no PostgreSQL server binaries for the second server: %v", err)
	}
	pair.once.Do(func() { pair.err = loadPair(admin) })
	if pair.err != nil {
		t.Fatal(pair.err)
	}
	return cloneDB(t, pair.adminA, pair.baseA), cloneDB(t, pair.adminB, pair.baseB)
}

// loadPair starts server B and loads the same TPC-C on both.
func loadPair(admin string) error {
	ctx := context.Background()
	srv, err := localpg.Start(ctx, localpg.Options{})
	if err != nil {
		return fmt.Errorf("starting server B: %w", err)
	}
	pair.srvB = srv
	pair.adminA, pair.adminB = admin, srv.URL("postgres")
	name := fmt.Sprintf("stampede_diff_base_%d", rand.Uint32())
	for i, url := range []string{pair.adminA, pair.adminB} {
		if err := loadTPCC(ctx, url, name); err != nil {
			return fmt.Errorf("loading TPC-C on server %c: %w", 'A'+i, err)
		}
	}
	pair.baseA, pair.baseB = name, name
	return nil
}

// loadTPCC creates database name on the server of url and loads 2
// warehouses of TPC-C, seed 42.
func loadTPCC(ctx context.Context, url, name string) error {
	admin, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, MaxConns: 1})
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, admin.Dialect().CreateDatabase(name)); err != nil {
		return err
	}
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: name, MaxConns: 4})
	if err != nil {
		return err
	}
	defer db.Close()
	meta, _ := workload.Get("tpcc")
	gen, err := workload.FromFlags(meta, "--warehouses=2")
	if err != nil {
		return err
	}
	gen.(workload.Seeder).SetSeed(42)
	return workload.Setup(ctx, db, gen, workload.LoadOptions{Concurrency: 4})
}

// cloneDB copies database base on the server of admin into a new one,
// dropped when the test ends, and returns its URL.
func cloneDB(t *testing.T, admin, base string) string {
	t.Helper()
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{admin}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("stampede_diff_%d", rand.Uint32())
	if _, err := db.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, base)); err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer db.Close()
		if _, err := db.Exec(context.Background(), db.Dialect().DropDatabase(name)+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	return withDatabase(t, admin, name)
}

// withDatabase returns url naming database name.
func withDatabase(t *testing.T, url, name string) string {
	t.Helper()
	cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	c := cfgs[0].ConnConfig
	return fmt.Sprintf("postgresql://%s@%s:%d/%s?sslmode=disable", c.User, c.Host, c.Port, name)
}

// exec runs statements on the database of url.
func exec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// count returns the rows of table on url, counted by the server.
func count(t *testing.T, url, table string) int64 {
	t.Helper()
	ctx := context.Background()
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+db.Dialect().QuoteIdent(table)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// diff runs Diff between urlA and urlB with opts.
func diff(t *testing.T, urlA, urlB string, opts Options) *Result {
	t.Helper()
	opts.A = sqlx.Options{URLs: []string{urlA}}
	opts.B = sqlx.Options{URLs: []string{urlB}}
	if opts.Tables == nil {
		opts.Tables = tpccTables
		opts.NoPK = true
	}
	res, err := Diff(context.Background(), opts)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	return res
}

// TestIdenticalTPCC compares two servers loaded with the same seeded
// TPC-C: identical, with every table's rows as the servers count them.
func TestIdenticalTPCC(t *testing.T) {
	urlA, urlB := servers(t)
	for _, tc := range []struct{ canonical, byRange bool }{{false, false}, {true, false}, {false, true}} {
		canonical := tc.canonical
		t.Run(fmt.Sprintf("canonical=%v,by-range=%v", tc.canonical, tc.byRange), func(t *testing.T) {
			res := diff(t, urlA, urlB, Options{Canonical: canonical, byRange: tc.byRange})
			if !res.Identical {
				t.Fatalf("not identical: %+v", res.Tables)
			}
			if len(res.Tables) != len(tpccTables) {
				t.Fatalf("%d tables, want %d", len(res.Tables), len(tpccTables))
			}
			for _, tr := range res.Tables {
				want := count(t, urlA, tr.Table)
				if tr.RowsA != want || tr.RowsB != want || tr.Status != "identical" {
					t.Errorf("%s: %d and %d rows, %s; the server counts %d", tr.Table, tr.RowsA, tr.RowsB, tr.Status, want)
				}
				wantHash := "native"
				if canonical {
					wantHash = "canonical"
				}
				if tr.Hash != wantHash {
					t.Errorf("%s: hash %s, want %s", tr.Table, tr.Hash, wantHash)
				}
			}
			if res.Tables[len(res.Tables)-1].Ranges < 10 {
				t.Errorf("order_line in %d ranges: not split", res.Tables[len(res.Tables)-1].Ranges)
			}
		})
	}
}

// TestFindsChangedRows changes one row, deletes one and inserts one on B,
// in three tables: diff names exactly those keys, and the changed column.
func TestFindsChangedRows(t *testing.T) {
	urlA, urlB := servers(t)
	exec(t, urlB,
		"UPDATE order_line SET ol_amount = ol_amount + 1 WHERE ol_w_id = 2 AND ol_d_id = 7 AND ol_o_id = 1234 AND ol_number = 3",
		"DELETE FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = 2001",
		"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (9999, 2, 1)")
	want := []string{
		"customer (c_w_id=1, c_d_id=4, c_id=2001): only on A",
		"new_order (no_w_id=1, no_d_id=2, no_o_id=9999): only on B",
		"order_line (ol_w_id=2, ol_d_id=7, ol_o_id=1234, ol_number=3): changed ol_amount",
	}
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"canonical", Options{Canonical: true}},
		// Small ranges and leaves: several levels of splitting.
		{"deep", Options{RangeRows: 50000, LeafRows: 20, Conns: 2}},
		{"one-conn", Options{Conns: 1}},
		// Sampled ranges checked by index scans instead of groups.
		{"by-range", Options{byRange: true}},
		{"by-range-canonical", Options{byRange: true, Canonical: true, LeafRows: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := diff(t, urlA, urlB, tc.opts)
			if res.Identical {
				t.Fatal("identical")
			}
			var got []string
			for _, r := range res.Rows {
				s := fmt.Sprintf("%s (%s): %s", r.Table, keyText(r.Key), rowText(r))
				if r.Kind == Changed {
					s = s[:strings.Index(s, ":")+1] + " changed"
					for _, c := range r.Columns {
						s += " " + c.Column
						if c.A == nil || c.B == nil || *c.A == *c.B {
							t.Errorf("%s: values %v and %v", c.Column, c.A, c.B)
						}
					}
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, tr := range res.Tables {
				differs := tr.Table == "customer" || tr.Table == "new_order" || tr.Table == "order_line"
				if (tr.Status == "differs") != differs || (tr.DifferingRows == 1) != differs {
					t.Errorf("%s: %s, %d differing rows", tr.Table, tr.Status, tr.DifferingRows)
				}
			}
		})
	}
}

// TestShapeDiffers: a column missing on B and one of another type are
// named, and a type of the same family is only a note.
func TestShapeDiffers(t *testing.T) {
	urlA, urlB := servers(t)
	exec(t, urlB,
		"ALTER TABLE stock DROP COLUMN s_dist_10",
		"ALTER TABLE item ALTER COLUMN i_price TYPE text",
		"ALTER TABLE warehouse ALTER COLUMN w_tax TYPE numeric(4,2)",
		"ALTER TABLE district ALTER COLUMN d_next_o_id TYPE bigint")
	res := diff(t, urlA, urlB, Options{})
	if res.Identical {
		t.Fatal("identical")
	}
	want := map[string]string{
		"stock":     "column s_dist_10: only on A",
		"item":      "column i_price: numeric(5,2) on A, text on B",
		"warehouse": "column w_tax: numeric(4,4) on A, numeric(4,2) on B (another scale)",
	}
	for _, tr := range res.Tables {
		w, ok := want[tr.Table]
		switch {
		case ok && (tr.Status != "shape" || strings.Join(tr.Shape, "; ") != w):
			t.Errorf("%s: %s %q, want shape %q", tr.Table, tr.Status, tr.Shape, w)
		case !ok && tr.Status != "identical":
			t.Errorf("%s: %s %q", tr.Table, tr.Status, tr.Shape)
		}
	}
	if tr := res.Tables[3]; tr.Table != "district" || len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "d_next_o_id: integer on A, bigint on B") {
		t.Errorf("district notes %q", tr.Notes)
	}
}

// TestConverge repairs, 2 s after the diff starts, the row that differs
// on B: --converge reports convergence after about 2 s.
func TestConverge(t *testing.T) {
	urlA, urlB := servers(t)
	// A row of history, which has no primary key, differs too.
	exec(t, urlB, "UPDATE stock SET s_quantity = s_quantity + 5 WHERE s_w_id = 1 AND s_i_id = 777",
		"UPDATE history SET h_amount = h_amount + 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1")
	started := make(chan struct{})
	repaired := make(chan time.Time, 1)
	go func() {
		<-started
		time.Sleep(2 * time.Second)
		exec(t, urlB, "UPDATE stock SET s_quantity = s_quantity - 5 WHERE s_w_id = 1 AND s_i_id = 777",
			"UPDATE history SET h_amount = h_amount - 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 1")
		repaired <- time.Now()
	}()
	var once sync.Once
	res := diff(t, urlA, urlB, Options{Converge: 30 * time.Second, afterPlan: func() { once.Do(func() { close(started) }) }})
	c := res.Converge
	if c == nil || !c.Converged || !res.Identical {
		t.Fatalf("not converged: %+v, %+v", c, res.Tables)
	}
	if c.After < 2 || c.After > 10 || c.Ranges != 2 || c.Checks < 2 {
		t.Errorf("converged after %.2fs (%d ranges, %d checks), want 2 to 10 s, 2 ranges", c.After, c.Ranges, c.Checks)
	}
	for _, tr := range res.Tables {
		if tr.Status != "identical" {
			t.Errorf("%s: %s after converging", tr.Table, tr.Status)
		}
	}
	<-repaired
	if v := Verdict(res); !strings.Contains(v, "converged after") {
		t.Errorf("verdict %q", v)
	}

	// Without repair: not converged within the limit, and the row is found.
	exec(t, urlB, "UPDATE stock SET s_quantity = s_quantity + 5 WHERE s_w_id = 2 AND s_i_id = 99")
	res = diff(t, urlA, urlB, Options{Tables: []string{"stock"}, Converge: 500 * time.Millisecond})
	if res.Converge.Converged || res.Identical || len(res.Rows) != 1 || keyText(res.Rows[0].Key) != "s_w_id=2, s_i_id=99" {
		t.Errorf("converged %v, identical %v, rows %+v", res.Converge.Converged, res.Identical, res.Rows)
	}
}

// TestNoPrimaryKey: a table without primary key is an error naming it
// unless NoPK, which compares it by one checksum of all its rows.
func TestNoPrimaryKey(t *testing.T) {
	urlA, urlB := servers(t)
	_, err := Diff(context.Background(), Options{A: sqlx.Options{URLs: []string{urlA}}, B: sqlx.Options{URLs: []string{urlB}},
		Tables: []string{"warehouse", "history"}})
	if !errors.Is(err, ErrNoPrimaryKey) || !strings.Contains(err.Error(), "history has no primary key") || !strings.Contains(err.Error(), "--no-pk") {
		t.Errorf("error %v", err)
	}
	exec(t, urlB, "UPDATE history SET h_amount = h_amount + 1 WHERE ctid = (SELECT min(ctid) FROM history)")
	res := diff(t, urlA, urlB, Options{Tables: []string{"warehouse", "history"}, NoPK: true})
	if res.Identical || res.Tables[1].Status != "differs" || !res.Tables[1].FullRow || res.Tables[0].Status != "identical" {
		t.Errorf("tables %+v", res.Tables)
	}
}

// TestMissingTable: a table on one side only is named with the side.
func TestMissingTable(t *testing.T) {
	urlA, urlB := servers(t)
	exec(t, urlB, "DROP TABLE new_order")
	res := diff(t, urlA, urlB, Options{Tables: []string{"new_order", "warehouse"}})
	if res.Identical || res.Tables[0].Status != "missing" || res.Tables[0].Missing != "B" {
		t.Errorf("tables %+v", res.Tables)
	}
}

// TestServerGoesAway: B's connections are cut in the middle of the diff:
// the error names side B and says it went away.
func TestServerGoesAway(t *testing.T) {
	urlA, urlB := servers(t)
	name := urlB[strings.LastIndex(urlB, "/")+1 : strings.Index(urlB, "?")]
	var once sync.Once
	_, err := Diff(context.Background(), Options{A: sqlx.Options{URLs: []string{urlA}}, B: sqlx.Options{URLs: []string{urlB}},
		Tables: tpccTables, NoPK: true, Conns: 2, afterPlan: func() {
			once.Do(func() {
				exec(t, pair.adminB, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+name+"' AND application_name = 'stampede diff'")
			})
		}})
	var se *SideError
	if !errors.As(err, &se) || se.Side != "B" || !strings.Contains(err.Error(), "server B (") || !strings.Contains(err.Error(), "went away") {
		t.Errorf("error %v", err)
	}
}

// TestSameNode refuses to compare a database with itself.
func TestSameNode(t *testing.T) {
	urlA, _ := servers(t)
	_, err := Diff(context.Background(), Options{A: sqlx.Options{URLs: []string{urlA}}, B: sqlx.Options{URLs: []string{urlA + "&application_name=x"}},
		Tables: []string{"warehouse"}})
	if err == nil || !strings.Contains(err.Error(), "same server and database") {
		t.Errorf("error %v", err)
	}
}

// TestTextKeys compares a table keyed by text, as YCSB's usertable, which
// is cut into sampled ranges (no integer to group by): a changed, a
// missing and an extra row are found, with keys that need quoting.
func TestTextKeys(t *testing.T) {
	urlA, urlB := servers(t)
	for _, u := range []string{urlA, urlB} {
		exec(t, u, `CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, field1 TEXT)`,
			`INSERT INTO usertable SELECT 'user' || i, md5(i::text), CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i END FROM generate_series(1, 30000) i`)
	}
	exec(t, urlB, `UPDATE usertable SET field1 = NULL WHERE ycsb_key = 'user12345'`,
		`DELETE FROM usertable WHERE ycsb_key = 'user777'`,
		`INSERT INTO usertable VALUES ('user 0, with ''quotes''', 'x', '')`)
	for _, opts := range []Options{{Tables: []string{"usertable"}, LeafRows: 100}, {Tables: []string{"usertable"}, Canonical: true, RangeRows: 2000}} {
		res := diff(t, urlA, urlB, opts)
		var got []string
		for _, r := range res.Rows {
			got = append(got, fmt.Sprintf("%s: %s", keyText(r.Key), rowText(r)))
		}
		want := []string{
			`ycsb_key="user 0, with 'quotes'": only on B`,
			`ycsb_key=user12345: changed field1: A v12345, B NULL`,
			`ycsb_key=user777: only on A`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%+v: rows\n%s\nwant\n%s", opts, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if tr := res.Tables[0]; tr.Ranges < 3 || tr.RowsA != 30000 || tr.RowsB != 30000 {
			t.Errorf("%+v: table %+v", opts, tr)
		}
	}
}

// TestSchemaQualified compares a table named with its schema, as a
// tenant's in --tenant-mode schema.
func TestSchemaQualified(t *testing.T) {
	urlA, urlB := servers(t)
	for _, u := range []string{urlA, urlB} {
		exec(t, u, `CREATE SCHEMA "Tenant 1"`, `CREATE TABLE "Tenant 1".accounts (id BIGINT PRIMARY KEY, balance BIGINT)`,
			`INSERT INTO "Tenant 1".accounts SELECT i, i * 10 FROM generate_series(1, 5000) i`)
	}
	exec(t, urlB, `UPDATE "Tenant 1".accounts SET balance = 0 WHERE id = 4000`)
	res := diff(t, urlA, urlB, Options{Tables: []string{"Tenant 1.accounts", "warehouse"}})
	if len(res.Rows) != 1 || res.Rows[0].Table != "Tenant 1.accounts" || keyText(res.Rows[0].Key) != "id=4000" ||
		res.Tables[0].RowsA != 5000 || res.Tables[1].Status != "identical" {
		t.Errorf("rows %+v, tables %+v", res.Rows, res.Tables)
	}
}

// TestUnlocatedRanges changes a row of every order on B, so that every
// range of order_line differs, and finds only 3 rows (MaxRows): the
// ranges none of whose rows were searched, split or not, with --converge
// or not, are counted once each among those that differed, never more
// than there are (a range split into parts counted once per part).
func TestUnlocatedRanges(t *testing.T) {
	urlA, urlB := servers(t)
	exec(t, urlB, "UPDATE order_line SET ol_quantity = ol_quantity + 1 WHERE ol_number = 1")
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"by-range split", Options{byRange: true, RangeRows: 2000, LeafRows: 20, Conns: 2}},
		{"converge", Options{byRange: true, RangeRows: 2000, LeafRows: 20, Conns: 2, Converge: time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Tables = []string{"order_line"}
			tc.opts.MaxRows = 3
			res := diff(t, urlA, urlB, tc.opts)
			tr := res.Tables[0]
			t.Logf("%d ranges, %d differ, %d rows found, %d not searched", tr.Ranges, tr.DifferingRanges, tr.DifferingRows, tr.Unlocated)
			if tr.Status != "differs" || tr.DifferingRows == 0 {
				t.Errorf("%s with %d differing rows", tr.Status, tr.DifferingRows)
			}
			// Each range searched holds a differing row: those not
			// searched are the others.
			if tr.Unlocated < 1 || tr.Unlocated > tr.DifferingRanges-1 || tr.DifferingRanges > tr.Ranges {
				t.Errorf("%d ranges not searched, of %d that differed (of %d)", tr.Unlocated, tr.DifferingRanges, tr.Ranges)
			}
		})
	}
}
