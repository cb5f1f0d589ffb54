// Package sqltest reads statements that workloads send to the fake
// connections of their unit tests: how many arguments they need, and which
// one must be the tenant id.
package sqltest

import (
	"regexp"
	"strconv"
)

var (
	placeholderRE = regexp.MustCompile(`\$(\d+)`)
	tenantRE      = regexp.MustCompile(`tenant_id = \$(\d+)`)
)

// Placeholders returns the highest $N placeholder of sql, which is the
// number of arguments it takes; 0 when it has none.
func Placeholders(sql string) int {
	n := 0
	for _, m := range placeholderRE.FindAllStringSubmatch(sql, -1) {
		p, _ := strconv.Atoi(m[1])
		n = max(n, p)
	}
	return n
}

// TenantArg returns N of the first "tenant_id = $N" in sql, the argument
// that must be the tenant id; 0 when sql filters on no tenant.
func TenantArg(sql string) int {
	m := tenantRE.FindStringSubmatch(sql)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
