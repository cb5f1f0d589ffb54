package bank

import (
	"fmt"

	"github.com/stampede-bench/stampede/workload"
)

// SetTenant implements the TenantColumner interface. With id > 0 the
// table is
//
//	bank (tenant_id INT NOT NULL, id BIGINT NOT NULL, balance BIGINT NOT NULL,
//	      payload TEXT NOT NULL, PRIMARY KEY (tenant_id, id))
//
// holding tenant id's accounts (the same rows as without a tenant, each
// led by id), and every statement filters on tenant_id = id. It panics on
// an id that is negative or does not fit an INT (a programmer error).
func (g *bank) SetTenant(id int) {
	workload.CheckTenantID("bank", id)
	g.tenant = id
	g.tenantArg = int32(id) // boxed once, not per row or per statement
}

// label names the checked data in reports: "bank", or "bank (tenant 2)".
func (g *bank) label() string {
	if g.tenant == 0 {
		return tableName
	}
	return fmt.Sprintf("%s (tenant %d)", tableName, g.tenant)
}
