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
		{"PostgreSQL 12.12 (Greenplum Database 7.1.0 build commit:e7c2b1f14bb42a1018ac57d14f4436880e0a0515 Open Source) on x86_64-pc-linux-gnu, compiled by gcc (GCC) 8.5.0 20210514 (Red Hat 8.5.0-18), 64-bit compiled on Jan 19 2024 06:51:45 Bhuvnesh C.", dialect.Greenplum{}},
		{"PostgreSQL 9.4.26 (Greenplum Database 6.25.3 build commit:367edc6b4dfd909fe38fc288ade9e294d74e3f9a Open Source) on x86_64-pc-linux-gnu, compiled by gcc (GCC) 6.4.0, 64-bit compiled on Oct  4 2023 23:27:49", dialect.Greenplum{}},
		{"", dialect.Postgres{}},
	} {
		if got := dialectOf(tc.version); got != tc.want {
			t.Errorf("dialectOf(%q) = %#v, want %#v", tc.version, got, tc.want)
		}
	}
}
