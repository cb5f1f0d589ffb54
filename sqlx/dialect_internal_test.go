package sqlx

import (
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

func TestDialectOf(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    dialect.Dialect
	}{
		{"PostgreSQL 17.2 on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", dialect.Postgres{}},
		{"CockroachDB CCL v24.2.4 (x86_64-pc-linux-gnu, built 2024/10/10 18:27:37, go1.22.5 X:nocoverageredesign)", dialect.Cockroach{}},
		{"CockroachDB OSS v2.1.0 (x86_64-unknown-linux-gnu, built 2018/10/30 18:35:19, go1.10.3)", dialect.Cockroach{}},
		{"", dialect.Postgres{}},
	} {
		if got := dialectOf(tc.version); got != tc.want {
			t.Errorf("dialectOf(%q) = %#v, want %#v", tc.version, got, tc.want)
		}
	}
}
