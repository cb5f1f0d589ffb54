package sqlx

import (
	"context"
	"fmt"
)

// The statements a command runs before its workers start (the server's
// version, whether a table exists, its connection limit) go through
// pgx's statement cache, which prepares each as a named statement on
// whichever pooled connection ran it. A worker that then takes that
// connection would start its run with statements it did not prepare
// (pg_prepared_statements shows them), a session unlike its peers'.
// DeallocateAll and CloseIdle leave the workers sessions of their own.

// DeallocateAll drops every prepared statement of c's connection (a
// worker's own, from DB.Conn(w, true)), pgx's caches of them with them,
// when it holds one; other Conns have nothing of their own to drop.
func DeallocateAll(ctx context.Context, c Conn) error {
	w, ok := c.(*workerConn)
	if !ok || w.c == nil {
		return nil
	}
	if err := w.c.Conn().DeallocateAll(ctx); err != nil {
		return fmt.Errorf("deallocating the statements prepared before the run: %w", err)
	}
	w.raw.reset()
	return nil
}

// CloseIdle closes the pools' idle connections (those held stay open,
// and close when released), so that the workers' connections are opened
// for them, with no statement that an earlier one prepared.
func (db *DB) CloseIdle() {
	if db.null {
		return
	}
	for _, e := range db.endpointSet().live {
		if e.pool != nil {
			e.pool.Reset()
		}
	}
}
