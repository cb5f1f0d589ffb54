package dialect_test

import (
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

func TestCockroachRangeSQL(t *testing.T) {
	c := dialect.Cockroach{}
	for _, tc := range []struct{ got, want string }{
		{c.SplitAt("bank", [][]string{{"100"}, {"200"}}), `ALTER TABLE "bank" SPLIT AT VALUES (100), (200)`},
		{c.SplitAt("district", [][]string{{"10", "0"}}), `ALTER TABLE "district" SPLIT AT VALUES (10, 0)`},
		{c.SplitAt("usertable", [][]string{{dialect.QuoteLiteral("user9223372036854775807")}}), `ALTER TABLE "usertable" SPLIT AT VALUES ('user9223372036854775807')`},
		{c.Scatter("order"), `ALTER TABLE "order" SCATTER`},
		{c.ImportInto("bank", []string{"id", "balance"}, []string{"http://10.0.0.1:8080/bank/0.csv", "http://h/o'k.csv"}),
			`IMPORT INTO "bank" ("id", "balance") CSV DATA ('http://10.0.0.1:8080/bank/0.csv', 'http://h/o''k.csv')`},
		{c.AsOf("'-1m'"), `AS OF SYSTEM TIME '-1m'`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	var d dialect.Dialect = dialect.Postgres{}
	if _, ok := d.(dialect.RangeSplitter); ok {
		t.Error("PostgreSQL has no ranges to split")
	}
	if _, ok := d.(dialect.Importer); ok {
		t.Error("PostgreSQL has no IMPORT INTO")
	}
}
