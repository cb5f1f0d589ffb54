package dialect_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

// TestMultiRegionDDL checks the statements of the field report's
// multi-region YCSB and TPC-C, and the one-line refusal on PostgreSQL.
func TestMultiRegionDDL(t *testing.T) {
	for _, tc := range []struct {
		name           string
		regions, byRow []string
		global         []string
		want           string
	}{
		{"ycsb", []string{"east", "central", "west"}, []string{"usertable"}, nil,
			`ALTER DATABASE "ycsb" PRIMARY REGION "east"
ALTER DATABASE "ycsb" ADD REGION "central"
ALTER DATABASE "ycsb" ADD REGION "west"
ALTER TABLE "usertable" SET LOCALITY REGIONAL BY ROW`},
		{"one region", []string{"us-east1"}, nil, []string{"item"},
			`ALTER DATABASE "ycsb" PRIMARY REGION "us-east1"
ALTER TABLE "item" SET LOCALITY GLOBAL`},
		{"quotes", []string{`we"ird`}, []string{"order"}, nil,
			`ALTER DATABASE "ycsb" PRIMARY REGION "we""ird"
ALTER TABLE "order" SET LOCALITY REGIONAL BY ROW`},
	} {
		stmts, err := dialect.MultiRegionDDL(dialect.Cockroach{}, "ycsb", tc.regions, tc.byRow, tc.global)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Join(stmts, "\n"); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	_, err := dialect.MultiRegionDDL(dialect.Postgres{}, "ycsb", []string{"east", "west"}, []string{"usertable"}, nil)
	if !errors.Is(err, dialect.ErrNeedsCockroach) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "--regions east,west") || !strings.Contains(err.Error(), "postgres") {
		t.Errorf("on PostgreSQL: %v", err)
	}
	for _, bad := range [][]string{nil, {"east", "east"}, {"east", ""}} {
		if _, err := dialect.MultiRegionDDL(dialect.Cockroach{}, "ycsb", bad, nil, nil); err == nil {
			t.Errorf("regions %q: no error", bad)
		}
	}
}
