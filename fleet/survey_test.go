package fleet_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestSurveyTenants: the start of a fleet's run or check reads the
// tenants it works on, each once: a client of a split run gives its
// share, and a user's schema that the pattern matches outside that share
// is none of its business (the whole fleet's survey refuses it); the data
// flags come from the first tenant of the share, as RecordedFlags reads
// them, whether its marker was read to tell the tenant stampede's (no
// tenant comment) or not.
func TestSurveyTenants(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_fleet_survey", sqlx.Options{MaxConns: 4})
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: 3, Mode: fleet.ModeSchema, Pattern: "bank_%d"},
		Base:        sqlx.Options{URLs: []string{testdb.URL(t)}, Database: db.Database(), MaxConns: 4},
		Concurrency: 2,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
		Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	// Tenant 1 becomes a user's schema of the tenant's name; tenant 3
	// loses stampede's comment, so its marker tells it stampede's.
	for _, sql := range []string{"DROP SCHEMA bank_1 CASCADE", "CREATE SCHEMA bank_1", "CREATE TABLE bank_1.mine (a int)", "COMMENT ON SCHEMA bank_3 IS NULL"} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, tc := range []struct {
		first, last int
		refused     string // the schema refused, "" for none
	}{
		{0, 0, "bank_1"},
		{1, 1, "bank_1"},
		{2, 2, ""},
		{3, 3, ""},
		{2, 3, ""},
	} {
		s, err := fleet.SurveyTenants(ctx, target, "run runs on", []string{"bank"}, tc.first, tc.last)
		var nt *fleet.NotTenantsError
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%d..%d: %v", tc.first, tc.last, err)
		case tc.refused != "" && (!errors.As(err, &nt) || !slices.Equal(nt.Names, []string{tc.refused}) || !strings.Contains(err.Error(), "run runs on")):
			t.Errorf("%d..%d: %v, want the refusal of schema %s", tc.first, tc.last, err, tc.refused)
		case tc.refused == "" && (!s.Found || s.FlagsErr != nil || !slices.Equal(s.Flags, []string{"--rows=10"})):
			t.Errorf("%d..%d: flags %q found %v (%v), want --rows=10", tc.first, tc.last, s.Flags, s.Found, s.FlagsErr)
		}
	}
}
