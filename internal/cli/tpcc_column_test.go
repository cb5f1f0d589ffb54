package cli_test

import (
	"strings"
	"testing"
)

// TestTPCCColumnFleet creates a fleet of 3 TPC-C tenants of 1 warehouse in
// shared tables (--tenant-mode column: tenant N is warehouse N), runs all
// three at once for 5 seconds and checks every tenant's consistency.
func TestTPCCColumnFleet(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	db := freshDB(t, "tpcc_columns")
	fleet := []string{"--warehouses", "1", "--tenants", "3", "--tenant-mode", "column", "--db", db, srv}
	r := mustRun(t, append([]string{"init", "tpcc"}, fleet...)...)
	if now, _ := created(t, r.stdout); now != 3 {
		t.Errorf("init created %d tenants, want 3:\n%s", now, r.stdout)
	}
	for sql, want := range map[string]int64{
		"SELECT count(*) FROM warehouse":                               3,
		"SELECT max(w_id) FROM warehouse":                              3,
		"SELECT count(*) FROM district":                                30,
		"SELECT count(*) FROM stock":                                   300000,
		"SELECT count(*) FROM item":                                    100000,
		"SELECT count(DISTINCT tenant_id) FROM tpcc_meta":              3,
		"SELECT count(*) FROM tpcc_meta WHERE warehouses = 1":          3,
		"SELECT count(*) FROM stampede_tenant WHERE workload = 'tpcc'": 3,
	} {
		if got := queryInt(t, db, sql); got != want {
			t.Errorf("%s: %d, want %d", sql, got, want)
		}
	}

	r = mustRun(t, append([]string{"run", "tpcc", "--wait=false", "--duration", "5s", "--results-dir", t.TempDir(),
		"--report-interval", "0"}, fleet...)...)
	if !strings.Contains(r.stdout, "newOrder") {
		t.Errorf("run output lacks newOrder:\n%s", r.stdout)
	}
	// Every tenant ran New-Orders on its own warehouse, and no order line
	// or payment crossed to another's.
	if got := queryInt(t, db, `SELECT count(DISTINCT o_w_id) FROM "order" WHERE o_id > 3000`); got != 3 {
		t.Errorf("new orders in %d warehouses, want 3", got)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM tpcc_meta WHERE fresh"); got != 0 {
		t.Errorf("%d tenants still fresh after the run", got)
	}
	if got := queryInt(t, db, "SELECT (SELECT count(*) FROM order_line WHERE ol_supply_w_id <> ol_w_id) + (SELECT count(*) FROM history WHERE h_c_w_id <> h_w_id)"); got != 0 {
		t.Errorf("%d order lines or payments crossed tenants", got)
	}

	r = mustRun(t, append([]string{"check", "tpcc"}, fleet...)...)
	if !strings.Contains(r.stdout, "3 tenants checked, 0 failed") {
		t.Errorf("check: %q", r.stdout)
	}
	// A corrupted warehouse fails its tenant only.
	execIn(t, db, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2")
	r = stampede(t, append([]string{"check", "tpcc"}, fleet...)...)
	if r.code == 0 || !strings.Contains(r.stdout, "tenant 2: tpcc (tenant 2) consistency check failed: 3.3.2.1 (1 rows)") ||
		!strings.Contains(r.stdout, "3 tenants checked, 1 failed") {
		t.Errorf("check after corrupting tenant 2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
