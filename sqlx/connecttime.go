package sqlx

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// connectTimer times every connection the DB opens, from the dial to the
// end of authentication (a pgx ConnectTracer).
type connectTimer struct {
	n, total atomic.Int64
}

type connectStart struct{}

var _ pgx.ConnectTracer = (*connectTimer)(nil)

// TraceConnectStart implements pgx.ConnectTracer.
func (t *connectTimer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return context.WithValue(ctx, connectStart{}, time.Now())
}

// TraceConnectEnd implements pgx.ConnectTracer.
func (t *connectTimer) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	start, ok := ctx.Value(connectStart{}).(time.Time)
	if !ok || data.Err != nil {
		return
	}
	t.total.Add(int64(time.Since(start)))
	t.n.Add(1)
}

// ConnectTime is the mean time the DB's connections took to open (the
// dial, TLS and authentication), and how many opened.
func (db *DB) ConnectTime() (time.Duration, int64) {
	n := db.connects.n.Load()
	if n == 0 {
		return 0, 0
	}
	return time.Duration(db.connects.total.Load() / n), n
}

// TraceQueryStart implements pgx.QueryTracer (which pgx's Tracer must
// be): queries are not traced.
func (t *connectTimer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t *connectTimer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
