package sqltest

import "testing"

func TestPlaceholdersAndTenantArg(t *testing.T) {
	for _, tc := range []struct {
		sql          string
		placeholders int
		tenant       int
	}{
		{"SELECT 1", 0, 0},
		{"SELECT * FROM t WHERE tenant_id = $2 AND id = $1", 2, 2},
		{"UPDATE t SET v = $1 WHERE tenant_id = $3 AND id IN ($2, $12)", 12, 3},
		{"INSERT INTO t VALUES ($1, $2)", 2, 0},
	} {
		if got := Placeholders(tc.sql); got != tc.placeholders {
			t.Errorf("Placeholders(%q) = %d, want %d", tc.sql, got, tc.placeholders)
		}
		if got := TenantArg(tc.sql); got != tc.tenant {
			t.Errorf("TenantArg(%q) = %d, want %d", tc.sql, got, tc.tenant)
		}
	}
}
