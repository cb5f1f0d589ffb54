package fleet_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/fleet"
)

// TestExtraTableDDL checks that extra tables are deterministic, varied and
// qualified when asked.
func TestExtraTableDDL(t *testing.T) {
	d := dialect.Postgres{}
	for _, tc := range []struct {
		n       int
		schema  string
		prefix  string
		indexes int
	}{
		{1, "", `CREATE TABLE "extra_001" (id BIGINT PRIMARY KEY, c1 `, 0},
		{3, "", `CREATE TABLE "extra_003" (`, 1},
		{9, "t_7", `CREATE TABLE "t_7"."extra_009" (`, 2},
		{14, "t_7", `CREATE TABLE "t_7"."extra_014" (`, 0},
	} {
		got := fleet.ExtraTableDDL(d, tc.schema, tc.n)
		if !strings.HasPrefix(got[0], tc.prefix) || len(got)-1 != tc.indexes {
			t.Errorf("table %d: %q, want prefix %q and %d indexes", tc.n, got, tc.prefix, tc.indexes)
		}
		if again := fleet.ExtraTableDDL(d, tc.schema, tc.n); strings.Join(again, ";") != strings.Join(got, ";") {
			t.Errorf("table %d: not deterministic", tc.n)
		}
	}
	shapes := map[string]bool{}
	for n := 1; n <= 14; n++ {
		s := fleet.ExtraTableDDL(d, "", n)[0]
		shapes[s[strings.Index(s, "("):]] = true
	}
	if len(shapes) < 10 {
		t.Errorf("14 extra tables have only %d distinct shapes", len(shapes))
	}
}

// TestResumeCommand checks the command suggested for missing tenants.
func TestResumeCommand(t *testing.T) {
	for _, tc := range []struct {
		spec fleet.Spec
		want string
	}{
		{fleet.Spec{Tenants: 20, Mode: fleet.ModeDatabase, Pattern: "bank_%d"}, "stampede init bank --tenants 20"},
		{fleet.Spec{Tenants: 20, Mode: fleet.ModeSchema, Pattern: "t_%d"}, "stampede init bank --tenants 20 --tenant-mode schema --tenant-pattern t_%d"},
		{fleet.Spec{Tenants: 3, Mode: fleet.ModeColumn}, "stampede init bank --tenants 3 --tenant-mode column"},
	} {
		if got := (fleet.Target{Spec: tc.spec, Workload: "bank"}).ResumeCommand(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.spec, got, tc.want)
		}
	}
}
