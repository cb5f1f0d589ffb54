package sqlx

import (
	"io"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// NoticeFunc receives a notice (NOTICE, WARNING, ...) that the server
// sent on a connection of worker, or -1 on one no worker held (a pool's:
// the checks before a run). It is called on the goroutine reading the
// connection, for a worker's connection the worker's own.
type NoticeFunc func(worker int, n *pgconn.Notice)

// OnNotice makes f receive the notices of db's connections from now on;
// nil gives them back to Options.Notices (or drops them). It is safe for
// concurrent use. Only a notice calls f: a statement that gets none
// costs nothing more.
func (db *DB) OnNotice(f NoticeFunc) {
	if f == nil {
		db.onNotice.Store(nil)
		return
	}
	db.onNotice.Store(&f)
}

// notice is every connection's pgconn OnNotice, and the script fast
// path's: to OnNotice's function, else to Options.Notices as libpq
// prints it, else dropped.
func (db *DB) notice(pc *pgconn.PgConn, n *pgconn.Notice) {
	if f := db.onNotice.Load(); f != nil {
		(*f)(workerOf(pc), n)
		return
	}
	if w := db.dyn.opts.Notices; w != nil {
		_, _ = io.WriteString(w, LibpqNotice(n))
	}
}

// workerKey is the key of a connection's CustomData that holds the
// worker that holds it.
const workerKey = "sqlx.worker"

// markWorker says that worker holds pc (until unmarkWorker), for the
// notices pc gets.
func markWorker(pc *pgconn.PgConn, worker int) { pc.CustomData()[workerKey] = worker }

// unmarkWorker says that no worker holds pc (it goes back to its pool).
func unmarkWorker(pc *pgconn.PgConn) { delete(pc.CustomData(), workerKey) }

// workerOf is the worker that holds pc, or -1.
func workerOf(pc *pgconn.PgConn) int {
	if w, ok := pc.CustomData()[workerKey].(int); ok {
		return w
	}
	return -1
}

// decodeNotice decodes a NoticeResponse's body as pgconn does.
func decodeNotice(body []byte) (*pgconn.Notice, error) {
	var nr pgproto3.NoticeResponse
	if err := nr.Decode(body); err != nil {
		return nil, err
	}
	return (*pgconn.Notice)(pgconn.ErrorResponseToPgError((*pgproto3.ErrorResponse)(&nr))), nil
}
