package workload_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestTenantForeign: in a tenant, the workload's tables, the fleet's
// extra tables and marked objects are stampede's; anything else (a
// user's table, partition, sequence), in the schema asked for, is not.
func TestTenantForeign(t *testing.T) {
	objs := []workload.Object{
		{Kind: "table", Schema: "bank_1", Name: "bank"},
		{Kind: "table", Schema: "bank_1", Name: "stampede_tenant"},
		{Kind: "table", Schema: "bank_1", Name: "extra_001"},
		{Kind: "table", Schema: "bank_1", Name: "audit", Marked: true},
		{Kind: "partitioned table", Schema: "bank_1", Name: "invoices"},
		{Kind: "sequence", Schema: "bank_1", Name: "bank"},
		{Kind: "table", Schema: "bank_2", Name: "mine"},
		{Kind: "large object", Name: "2"},
	}
	own := map[string]bool{"bank": true, "stampede_tenant": true}
	for _, tc := range []struct {
		schema string
		want   []string
	}{
		{"bank_1", []string{"partitioned table bank_1.invoices", "sequence bank_1.bank"}},
		{"bank_2", []string{"table bank_2.mine"}},
		{"*", []string{"partitioned table bank_1.invoices", "sequence bank_1.bank", "table bank_2.mine", "2 large objects"}},
	} {
		if got := workload.TenantForeign(objs, tc.schema, own); !slices.Equal(got, tc.want) {
			t.Errorf("schema %s: %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// TestHoldsForeignError: one line naming the database or schema, the
// objects and the one flag that forces it; it matches ErrForeign.
func TestHoldsForeignError(t *testing.T) {
	for _, tc := range []struct {
		err  *workload.HoldsForeignError
		want string
	}{
		{&workload.HoldsForeignError{Kind: "database", Names: []string{"stampede_demo"}, Where: "on db1:5432", Objects: []string{"table public.mine"}, Action: "the demo"},
			`database "stampede_demo" on db1:5432 holds 1 object that stampede did not make (table public.mine): the demo leaves the database alone; to drop it anyway, add --force-drop`},
		{&workload.HoldsForeignError{Kind: "schema", Names: []string{"bank_1", "bank_2"}, Where: `in database "d" on db1:5432`, Objects: []string{"table bank_1.a", "view bank_1.v"}, Action: "cleanup"},
			`schema "bank_1" (and 1 more schema: "bank_2") in database "d" on db1:5432 holds 2 objects that stampede did not make (table bank_1.a, view bank_1.v): cleanup leaves the schemas alone; to drop them anyway, add --force-drop`},
		{&workload.HoldsForeignError{Kind: "database", Names: []string{"t1", "t2", "t3"}, Where: "on db1:5432", Objects: []string{"table public.mine"}, Action: "cleanup"},
			`database "t1" (and 2 more databases: "t2", "t3") on db1:5432 holds 1 object that stampede did not make (table public.mine): cleanup leaves the databases alone; to drop them anyway, add --force-drop`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
		if !errors.Is(tc.err, workload.ErrForeign) {
			t.Errorf("%T does not match ErrForeign", tc.err)
		}
	}
}
