package bank

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/cacheline"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// opTransfer is the index of the transfer operation in QueryLoad.Ops.
const opTransfer = 0

// workerStream is the random stream of worker w: (run seed, 1<<32|w), so
// that it never coincides with a data batch's stream (seed, b).
func workerStream(w int) uint64 { return 1<<32 | uint64(w) }

// statements are the transfer's SQL texts.
type statements struct {
	// read is SELECT id, balance FROM bank WHERE id IN ($1, $2).
	read string
	// update is UPDATE bank SET balance = CASE id WHEN $1 THEN $3 WHEN $2
	// THEN $4 END WHERE id IN ($1, $2), with casts of $3 and $4 to BIGINT.
	update string
}

func newStatements(d dialect.Dialect) statements {
	p := d.Placeholder
	in := " WHERE id IN (" + p(1) + ", " + p(2) + ")"
	return statements{
		read: "SELECT id, balance FROM " + tableName + in,
		update: "UPDATE " + tableName + " SET balance = CASE id WHEN " + p(1) + " THEN CAST(" + p(3) +
			" AS BIGINT) WHEN " + p(2) + " THEN CAST(" + p(4) + " AS BIGINT) END" + in,
	}
}

// newTenantStatements returns the statements of a tenant's transfer,
// which filter on the tenant id:
//
//	SELECT id, balance FROM bank WHERE tenant_id = $1 AND id IN ($2, $3)
//	UPDATE bank SET balance = CASE id WHEN $1 THEN $3 WHEN $2 THEN $4 END
//	  WHERE tenant_id = $5 AND id IN ($1, $2)
//
// The read binds (tenant, from, to), the update (from, to, newFrom, newTo,
// tenant).
func newTenantStatements(d dialect.Dialect) statements {
	p := d.Placeholder
	return statements{
		read: "SELECT id, balance FROM " + tableName + " WHERE " + workload.TenantColumn + " = " + p(1) +
			" AND id IN (" + p(2) + ", " + p(3) + ")",
		update: "UPDATE " + tableName + " SET balance = CASE id WHEN " + p(1) + " THEN CAST(" + p(3) +
			" AS BIGINT) WHEN " + p(2) + " THEN CAST(" + p(4) + " AS BIGINT) END WHERE " + workload.TenantColumn + " = " + p(5) +
			" AND id IN (" + p(1) + ", " + p(2) + ")",
	}
}

// statements returns the transfer's statements for g's tenant (or none).
func (g *bank) statements(d dialect.Dialect) statements {
	if g.tenant != 0 {
		return newTenantStatements(d)
	}
	return newStatements(d)
}

// Ops implements the Opser interface.
func (g *bank) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if err := g.validate(); err != nil {
		return workload.QueryLoad{}, err
	}
	workers := make([]*worker, oc.Concurrency)
	ql := workload.QueryLoad{
		Ops:     []string{"transfer"},
		Classes: []workload.OpClass{workload.ClassTransaction},
		Workers: make([]workload.Worker, oc.Concurrency),
		Attach:  func(w int, rec workload.Recorder) { workers[w].rec = rec },
	}
	for i := range workers {
		workers[i] = newWorker(g, db.Dialect(), db.Conn(i, true), randgen.New(oc.Seed, workerStream(i)))
		ql.Workers[i] = workers[i].run
	}
	ql.Close = func(context.Context) error {
		for _, w := range workers {
			w.conn.Release()
		}
		return nil
	}
	return ql, nil
}

// worker is one worker's state: its stream, connection, and the
// arguments and scan destinations its statements reuse. It is not safe
// for concurrent use.
type worker struct {
	_           cacheline.Pad // written on every transaction: off other workers' lines
	s           statements
	d           dialect.Dialect // chooses the retry protocol
	conn        sqlx.Conn
	null        bool // conn is the null driver's: reads find no rows
	rec         workload.Recorder
	r           *rand.Rand
	rows        int64
	maxTransfer int64
	label       string // the table, and tenant if any, for messages

	// The current transfer: from and to are ids, newFrom and newTo the
	// new balances. Bound by pointer, so boxed once.
	from, to, amount int64
	newFrom, newTo   int64
	readArgs         []any // [tenant,] from, to
	updateArgs       []any // from, to, newFrom, newTo[, tenant]

	// Scan destinations.
	id, balance int64
	dest        []any
	_           cacheline.Pad
}

func newWorker(g *bank, d dialect.Dialect, conn sqlx.Conn, r *rand.Rand) *worker {
	w := &worker{
		s: g.statements(d), d: d, conn: conn, null: sqlx.IsNullConn(conn), rec: nopRecorder{}, r: r,
		rows: int64(g.rows), maxTransfer: g.maxTransfer, label: g.label(),
	}
	w.readArgs = []any{&w.from, &w.to}
	w.updateArgs = []any{&w.from, &w.to, &w.newFrom, &w.newTo}
	if g.tenant != 0 {
		w.readArgs = append([]any{g.tenantArg}, w.readArgs...)
		w.updateArgs = append(w.updateArgs, g.tenantArg)
	}
	w.dest = []any{&w.id, &w.balance}
	return w
}

// nopRecorder is the Recorder of a worker that was never attached.
type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}
func (nopRecorder) RecordError(int, error)    {}

// next draws the next transfer: two distinct accounts, uniform, and an
// amount uniform in [1, maxTransfer].
func (w *worker) next() {
	w.from = w.r.Int64N(w.rows)
	w.to = w.r.Int64N(w.rows - 1)
	if w.to >= w.from {
		w.to++
	}
	w.amount = 1 + w.r.Int64N(w.maxTransfer)
}

// apply sets newFrom and newTo, the balances after moving amount from an
// account holding from to one holding to. A transfer that would take a
// balance out of BIGINT's range is refused, its balances left as they
// are, so that the total and the column's type survive it. The bounds of
// validate (--max-transfer, the total balance) keep the balances of a
// bank that stampede loaded and ran far from that range: a balance would
// have to move by 2^62 in steps of at most 2^40.
func (w *worker) apply(from, to int64) error {
	if from < math.MinInt64+w.amount || to > math.MaxInt64-w.amount {
		return fmt.Errorf("a transfer of %d from account %d (balance %d) to account %d (balance %d) would take a balance out of BIGINT's range: refused; run `stampede check bank`, and reload with `stampede init bank --drop` if the total is off",
			w.amount, w.from, from, w.to, to)
	}
	w.newFrom, w.newTo = from-w.amount, to+w.amount
	return nil
}

// run performs one transfer. It is the workload.Worker. The transaction
// runs through workload.RunTx, with the retry protocol of the server's
// dialect: conflicts and lost connections are retried (each counted as
// a tolerated error of transfer); other errors end the call.
func (w *worker) run(ctx context.Context) workload.Result {
	w.next()
	err := workload.RunTx(ctx, w.conn, w.d, sqlx.TxOptions{Isolation: sqlx.Serializable}, w.rec, opTransfer, "transfer",
		func(tx sqlx.Tx) error { return w.transfer(ctx, tx) })
	return workload.Result{Op: opTransfer, Err: err}
}

// transfer runs the transfer's statements in tx.
func (w *worker) transfer(ctx context.Context, tx sqlx.Tx) error {
	rows, err := tx.Query(ctx, w.s.read, w.readArgs...)
	if err != nil {
		return fmt.Errorf("reading balances: %w", err)
	}
	found := 0
	var fromBalance, toBalance int64
	for rows.Next() {
		if err := rows.Scan(w.dest...); err != nil {
			rows.Close()
			return fmt.Errorf("reading balances: %w", err)
		}
		switch w.id {
		case w.from:
			fromBalance = w.balance
		case w.to:
			toBalance = w.balance
		}
		found++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading balances: %w", err)
	}
	if found != 2 && !w.null {
		return fmt.Errorf("accounts %d and %d: found %d of them in table %s (was it loaded with --rows %d?)",
			w.from, w.to, found, w.label, w.rows)
	}
	if err := w.apply(fromBalance, toBalance); err != nil {
		return err
	}

	n, err := tx.Exec(ctx, w.s.update, w.updateArgs...)
	if err != nil {
		return fmt.Errorf("updating balances: %w", err)
	}
	if n != 2 && !w.null {
		return fmt.Errorf("accounts %d and %d: updated %d rows, want 2", w.from, w.to, n)
	}
	return nil
}
