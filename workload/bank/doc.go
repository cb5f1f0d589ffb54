// Package bank is a transfer workload modelled on `cockroach workload
// bank`: a table of accounts, and transactions that move money between
// two of them, so that the total of all balances never changes. It tests
// that the database keeps SERIALIZABLE transactions atomic and isolated
// under contention and faults: `stampede check bank` verifies the
// invariant after any run, crash or failover.
//
// The table is
//
//	bank (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, payload TEXT NOT NULL)
//
// with accounts 0..rows-1, each starting with --initial-balance (1000; the
// total is rows × initial-balance) and a random printable-ASCII payload of
// --payload-bytes (100). Batch b of the initial data (1000 accounts) draws
// its payloads from the stream (seed, b); id is BIGINT rather than
// cockroach's INT because INT is 32-bit in PostgreSQL.
//
// Its one operation, transfer, is one SERIALIZABLE transaction:
//
//	BEGIN ISOLATION LEVEL SERIALIZABLE
//	SELECT id, balance FROM bank WHERE id IN ($1, $2)
//	UPDATE bank SET balance = CASE id WHEN $1 THEN $3 WHEN $2 THEN $4 END WHERE id IN ($1, $2)
//	COMMIT
//
// The worker computes the new balances itself (from -= amount, to +=
// amount, amount uniform in [1, --max-transfer]), so a lost update, which
// only serializability prevents, would show as a changed total. Balances
// may go negative, as in cockroach's bank. Worker w draws its accounts and
// amounts from the stream (run seed, 1<<32 | w).
//
// A serialization failure (40001) or deadlock (40P01) rolls back and
// retries the same transfer, at most 100 times, counting each retry as a
// tolerated error of transfer through the Recorder. A lost connection
// does the same (the worker's connection is re-established by its next
// statement), with a backoff from the second loss in a row, up to 5 losses
// in a row, after which the transfer fails with the error. A transfer
// whose COMMIT lost its connection may have committed; retrying it moves
// the money twice, which keeps the total. Any other error fails the
// transfer. On CockroachDB (the dialect's SavepointRetry) a conflict is
// retried inside the same transaction with CockroachDB's protocol
// (SAVEPOINT cockroach_restart, ROLLBACK TO SAVEPOINT), as
// workload.RunTx does for every workload.
//
// # Tenants in shared tables
//
// After SetTenant(id) with id > 0 (`--tenant-mode column`), the one table
// holds the accounts of many tenants, each tenant's the same rows as
// without a tenant:
//
//	bank (tenant_id INT NOT NULL, id BIGINT NOT NULL, balance BIGINT NOT NULL,
//	      payload TEXT NOT NULL, PRIMARY KEY (tenant_id, id))
//
// and every statement works on the tenant's accounts only:
//
//	SELECT id, balance FROM bank WHERE tenant_id = $1 AND id IN ($2, $3)
//	UPDATE bank SET balance = CASE id WHEN $1 THEN $3 WHEN $2 THEN $4 END WHERE tenant_id = $5 AND id IN ($1, $2)
//
// The run's check looks for the tenant's last account, and `stampede
// check` checks each tenant's total balance on its own.
package bank
