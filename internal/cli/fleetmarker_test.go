package cli_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/workload"
)

// tenantMarker returns the statements that mark a tenant loaded by a test
// outside `stampede init --tenants` (workload.Setup in a schema, or a
// database cloned from a template) as a fleet's init marks it: the
// stampede_tenant table (qualified by schema when not empty) naming
// workload name, its version and init's data flags. A fleet run refuses
// unmarked tenants (they may be a user's).
func tenantMarker(t testing.TB, schema, name string, flags ...string) []string {
	t.Helper()
	m, ok := workload.Get(name)
	if !ok {
		t.Fatalf("no workload %s", name)
	}
	gen, err := workload.FromFlags(m, flags...)
	if err != nil {
		t.Fatal(err)
	}
	table := fleet.MarkerTable
	if schema != "" {
		table = schema + "." + table
	}
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return []string{
		"CREATE TABLE " + table + " (workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
		fmt.Sprintf("INSERT INTO %s (workload, version, flags) VALUES (%s, %s, %s)", table, lit(gen.Meta().Name), lit(gen.Meta().Version), lit(strings.Join(flags, " "))),
		dialect.CommentOnTableIdent(dialect.Postgres{}, table, workload.TenantMarkerMark),
	}
}

// tenantDatabaseMark is the statement that marks database name as a
// tenant of workload's, bound to its OID, as a fleet's init marks each
// tenant database (a copy made by hand with CREATE DATABASE ... TEMPLATE
// lacks it).
func tenantDatabaseMark(name, workloadName string) string {
	return dialect.MarkDatabase(dialect.Postgres{}, name, workload.Mark+" fleet tenant of "+workloadName)
}
