// Package tpcc is the TPC-C benchmark (TPC-C Standard Specification,
// revision 5.11), laid out after `cockroach workload tpcc`: the schema in
// ddls.go (clause 1.3), the initial population in generate.go (clause
// 4.3.3), the random functions in random.go (clauses 2.1.6 and 4.3.2), one
// file per transaction (clauses 2.4 to 2.8), the worker and its card deck
// in worker.go (clause 5.2.3), the consistency conditions in checks.go
// (clause 3.3.2, run in one exported REPEATABLE READ snapshot shared by
// several connections, over ranges of warehouses), and the run-time
// audits and response-time criteria in audits.go (clauses 9.2, 5.2.3 and
// 5.2.5), counted by each worker on its own and summed after the run over
// the measurement interval (measure.go, which also reads HammerDB's NOPM
// from the server and staggers the terminals' first keying times), and
// the figures, their labels and the warnings about runs that are not
// TPC-C's in figures.go.
//
// Every warehouse has 10 districts of 3,000 customers, 100,000 stock rows,
// and 3,000 orders per district of which the last 900 are undelivered
// (new orders); the 100,000 items are shared. The initial data is
// deterministic from the seed of `stampede init`: each batch (one district
// for customers, history, orders, order lines and new orders; 10,000 rows
// for stock and items) draws from its own stream (seed, table<<32|batch).
//
// The load-time constant C of NURand(255, 0, 999) for C_LAST (clause
// 2.1.6) is drawn from the seed and stored with the number of warehouses in
// the table tpcc_meta, so that a run picks a run-time C whose distance from
// it is valid (clause 2.1.6.1) and refuses a --warehouses that does not
// match the data. Its row is written last, so an empty tpcc_meta marks an
// unfinished `init`; its column fresh stays true until the first run, as
// long as consistency condition 3.3.2.11 must hold.
//
// Tenant column mode (SetTenant, `--tenant-mode column`, tenant.go) adds
// no tenant column: W_ID already leads every primary key but ITEM's, so a
// tenant is a range of warehouses. With --warehouses W, tenant id owns
// warehouses (id-1)*W+1 .. id*W of shared tables; its initial rows are
// those of a load of W warehouses with the W_IDs shifted (each batch from
// the stream of the same batch of that load, so every tenant holds the
// same data, as the clones of the database and schema modes do), ITEM is
// loaded with tenant 1 only, and tpcc_meta gets a leading tenant_id and a
// row per tenant. Its terminals choose home, supplying (clause 2.4.1.5)
// and paying (clause 2.5.1.2) warehouses among its own, and its checks,
// audits, tpmC and efficiency are over its W warehouses.
//
// Deviations: ORDER is the quoted table "order"; the load time of the
// initial rows (C_SINCE, O_ENTRY_D, H_DATE) is a fixed timestamp so that
// the data depends on the seed alone; the Delivery transaction runs
// directly rather than deferred (clause 2.7.2), as in cockroach.
package tpcc
