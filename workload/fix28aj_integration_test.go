package workload_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// bankLike is a Generator of one table of bank's shape.
type bankLike struct{}

func (bankLike) Meta() workload.Meta { return workload.Meta{Name: "banklike"} }
func (bankLike) Tables() []workload.Table {
	return []workload.Table{{Name: "bank", Schema: "(id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)"}}
}

// TestUserIndexesOfBookkeepingAndMarks (chk28d F4, F5): the census names, as the user's, a DEFAULT a user set on
// stampede's record or marker (the defaults stampede's DDL gives them
// stay stampede's), and an index whose mark is a copy (another object's
// OID), of a made-up OID, or without an OID; an index marked with its
// own OID is stampede's. On the old code the defaults were not named, and every mark-carrying index was taken for
// stampede's.
func TestUserIndexesOfBookkeepingAndMarks(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_fix28aj", sqlx.Options{MaxConns: 2})
	setup := []string{
		"DROP TABLE IF EXISTS bank, stampede_load, stampede_tenant",
		"CREATE TABLE bank (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)",
		// stampede's own DDL of its record and of a tenant's marker.
		"CREATE TABLE stampede_load (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now(), adopted TEXT NOT NULL DEFAULT '', marked BOOLEAN NOT NULL DEFAULT false, database_oid TEXT NOT NULL DEFAULT '')",
		"CREATE TABLE stampede_tenant (workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
	}
	for _, tc := range []struct {
		name string
		sql  []string
		want []string
	}{
		{"stampede's own", nil, nil},
		{"default on the record", []string{"ALTER TABLE stampede_load ALTER COLUMN settings SET DEFAULT 'mine'"},
			[]string{"default 'mine'::text of column settings on table stampede_load"}},
		{"default on the marker", []string{"ALTER TABLE stampede_tenant ALTER COLUMN flags SET DEFAULT 'my default'"},
			[]string{"default 'my default'::text of column flags on table stampede_tenant"}},
		{"stampede's default changed", []string{"ALTER TABLE stampede_load ALTER COLUMN marked SET DEFAULT true"},
			[]string{"default true of column marked on table stampede_load"}},
		{"table's mark copied onto an index", []string{"CREATE INDEX my_idx ON bank (balance)",
			"DO $$ BEGIN EXECUTE format('COMMENT ON INDEX my_idx IS %L', 'made by stampede init of bank (data bank); its data flags: --rows 100; oid ' || 'bank'::regclass::oid); END $$"},
			[]string{"index public.my_idx on table bank"}},
		{"made-up OID", []string{"CREATE INDEX my_idx ON bank (balance)", "COMMENT ON INDEX my_idx IS 'made by stampede fleet exec; oid 12345'"},
			[]string{"index public.my_idx on table bank"}},
		{"no OID", []string{"CREATE INDEX my_idx ON bank (balance)", "COMMENT ON INDEX my_idx IS 'made by stampede fleet exec'"},
			[]string{"index public.my_idx on table bank"}},
		{"marked with its own OID", []string{"CREATE INDEX ex_idx ON bank (balance)",
			"DO $$ BEGIN EXECUTE format('COMMENT ON INDEX ex_idx IS %L', 'made by stampede fleet exec; oid ' || 'ex_idx'::regclass::oid); END $$"},
			nil},
	} {
		for _, sql := range append(slices.Clone(setup), tc.sql...) {
			if _, err := db.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %s: %v", tc.name, sql, err)
			}
		}
		got, err := workload.UserIndexes(ctx, db, bankLike{}, []string{"bank", "stampede_load", "stampede_tenant"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: UserIndexes = %q, want %q", tc.name, got, tc.want)
		}
	}
}
