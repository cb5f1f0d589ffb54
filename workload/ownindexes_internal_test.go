package workload

import (
	"slices"
	"testing"
)

type indexGen struct{ stmts []string }

func (g indexGen) Meta() Meta      { return Meta{Name: "x"} }
func (g indexGen) Tables() []Table { return []Table{{Name: "t", Indexes: g.stmts}} }

// TestOwnIndexes: the indexes a workload's DDL makes are told by name
// and by the table they are on, so that a user's index named as one of
// stampede's on another table is the user's (chk28e F6: TPC-C's
// customer_idx re-made by a user on stock was dropped as stampede's).
func TestOwnIndexes(t *testing.T) {
	names, tables := ownIndexes(indexGen{[]string{
		"CREATE INDEX k_1 ON sbtest1(k)",
		"CREATE UNIQUE INDEX IF NOT EXISTS customer_idx ON customer (c_w_id, c_d_id, c_last, c_first)",
		"create index concurrently Mixed ON public.orders (o_c_id)",
		`CREATE INDEX "Quoted ""x""" ON ONLY "Odd"."Tab le" (a)`,
		`CREATE INDEX dotted ON "a.b" (a)`,
		"ALTER TABLE t ADD PRIMARY KEY (a)",
	}})
	if want := []string{"k_1", "customer_idx", "mixed", `Quoted "x"`, "dotted"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if want := []string{"sbtest1", "customer", "orders", "Tab le", "a.b"}; !slices.Equal(tables, want) {
		t.Errorf("tables %q, want %q", tables, want)
	}
}
