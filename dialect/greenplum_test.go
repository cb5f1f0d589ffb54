package dialect_test

import (
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

func TestGreenplumTableOptions(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		o    dialect.TableOptions
		want string
		err  bool
	}{
		{dialect.TableOptions{}, "", false},
		{dialect.TableOptions{AppendOptimized: &yes}, "WITH (appendoptimized=true)", false},
		{dialect.TableOptions{AppendOptimized: &no}, "WITH (appendoptimized=false)", false},
		{dialect.TableOptions{DistributedBy: []string{"c1"}}, `DISTRIBUTED BY ("c1")`, false},
		{dialect.TableOptions{AppendOptimized: &yes, DistributedBy: []string{"c3", `we"ird`}}, `WITH (appendoptimized=true) DISTRIBUTED BY ("c3", "we""ird")`, false},
		{dialect.TableOptions{AppendOptimized: &no, DistributedRandomly: true}, "WITH (appendoptimized=false) DISTRIBUTED RANDOMLY", false},
		{dialect.TableOptions{DistributedBy: []string{"c1"}, DistributedRandomly: true}, "", true},
	} {
		got, err := dialect.Greenplum{}.TableOptionsClause(tc.o)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%+v: %q, %v; want %q (error %v)", tc.o, got, err, tc.want, tc.err)
		}
	}
	// Greenplum has them; PostgreSQL and CockroachDB do not.
	var d dialect.Dialect = dialect.Greenplum{}
	if _, ok := d.(dialect.TableOptioner); !ok || d.Name() != "greenplum" {
		t.Errorf("Greenplum: TableOptioner %v, name %q", ok, d.Name())
	}
	for _, d := range []dialect.Dialect{dialect.Postgres{}, dialect.Cockroach{}} {
		if _, ok := d.(dialect.TableOptioner); ok {
			t.Errorf("%s has Greenplum's table options", d.Name())
		}
	}
	// Everything else is PostgreSQL's.
	g, p := dialect.Greenplum{}, dialect.Postgres{}
	if g.CreateTable("t", "(a int)") != p.CreateTable("t", "(a int)") || g.Placeholder(3) != p.Placeholder(3) {
		t.Error("Greenplum's CREATE TABLE or placeholders differ from PostgreSQL's")
	}
}
