// Package sqlx is stampede's connection layer: it parses connection URLs
// (libpq URLs, key=value DSNs, or the libpq environment variables), opens
// one pgx pool per endpoint, hands each worker a connection (round-robin
// over endpoints), counts reconnects, classifies errors (retryable,
// connection lost) and redacts secrets from anything it prints.
//
// The "null" driver implements the same interfaces without a server, so the
// engine's and workloads' own cost can be measured (like sysbench's
// --mysql-dry-run).
package sqlx
