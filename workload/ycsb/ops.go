package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/cacheline"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// ErrNotFound is the error of a read or update whose key has no row
// (YCSB's NOT_FOUND status). Its class (sqlx.ErrorCode) is
// workload.NotFoundCode, not "other": the run's final lines count it
// apart from failures.
var ErrNotFound error = notFoundError{}

// notFoundError is ErrNotFound's type.
type notFoundError struct{}

func (notFoundError) Error() string { return "key not found" }

// ErrorCode implements sqlx.Coder.
func (notFoundError) ErrorCode() string { return workload.NotFoundCode }

// workerStream is the random stream of worker w: (run seed, 1<<32|w), so
// that it never coincides with a data batch's stream (seed, b).
func workerStream(w int) uint64 { return 1<<32 | uint64(w) }

// statements are the SQL texts of the operations, built once per run.
type statements struct {
	// readAll is SELECT * FROM t WHERE ycsb_key = $1.
	readAll string
	// readField[i] is SELECT fieldI FROM t WHERE ycsb_key = $1.
	readField []string
	// updateAll is UPDATE t SET field0 = $1, ... WHERE ycsb_key = $N+1.
	updateAll string
	// updateField[i] is UPDATE t SET fieldI = $1 WHERE ycsb_key = $2.
	updateField []string
	// insert is INSERT INTO t (ycsb_key, field0, ...) VALUES ($1, ...).
	insert string
	// scan is SELECT * FROM t WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2.
	scan string
	// del is DELETE FROM t WHERE ycsb_key = $1 (see delete.go).
	del string
}

func (c *config) statements(d dialect.Dialect) *statements {
	if c.json {
		return c.jsonStatements(d)
	}
	if c.tenant != 0 {
		return c.tenantStatements(d)
	}
	t := c.tableName
	where := " WHERE " + keyColumn + " = "
	s := &statements{
		readAll: "SELECT * FROM " + t + where + d.Placeholder(1),
		insert: "INSERT INTO " + t + " (" + strings.Join(c.columns(), ", ") + ") VALUES (" +
			dialect.Placeholders(d, 1, 1+c.fieldCount) + ")",
		scan: "SELECT * FROM " + t + " WHERE " + keyColumn + " >= " + d.Placeholder(1) +
			" ORDER BY " + keyColumn + " LIMIT " + d.Placeholder(2),
	}
	var set strings.Builder
	for i := 0; i < c.fieldCount; i++ {
		f := c.fieldName(i)
		s.readField = append(s.readField, "SELECT "+f+" FROM "+t+where+d.Placeholder(1))
		s.updateField = append(s.updateField, "UPDATE "+t+" SET "+f+" = "+d.Placeholder(1)+where+d.Placeholder(2))
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(f + " = " + d.Placeholder(i+1))
	}
	s.updateAll = "UPDATE " + t + " SET " + set.String() + where + d.Placeholder(c.fieldCount+1)
	s.del = deleteFrom(s.readAll)
	return s
}

// tenantStatements are the statements of a tenant's operations. Each
// filters on the tenant id, bound to the placeholder that comes in its
// place in the text (so the texts suit positional "?" placeholders too),
// and reads name the columns, so a tenant's reads receive what they would
// without a tenant:
//
//	SELECT ycsb_key, field0, ... FROM t WHERE tenant_id = $1 AND ycsb_key = $2
//	SELECT fieldI FROM t WHERE tenant_id = $1 AND ycsb_key = $2
//	UPDATE t SET field0 = $1, ... WHERE tenant_id = $N+1 AND ycsb_key = $N+2
//	UPDATE t SET fieldI = $1 WHERE tenant_id = $2 AND ycsb_key = $3
//	INSERT INTO t (tenant_id, ycsb_key, field0, ...) VALUES ($1, $2, ...)
//	SELECT ycsb_key, field0, ... FROM t WHERE tenant_id = $1 AND ycsb_key >= $2 ORDER BY ycsb_key LIMIT $3
//
// The key range scan stays a range scan of the primary key (tenant_id,
// ycsb_key).
func (c *config) tenantStatements(d dialect.Dialect) *statements {
	t := c.tableName
	p := d.Placeholder
	cols := strings.Join(c.dataColumns(), ", ")
	// where(i) binds the tenant id to $i and the key to $i+1.
	where := func(i int) string { return " WHERE " + c.tenantAnd(d, i) + keyColumn + " = " + p(i+1) }
	s := &statements{
		readAll: "SELECT " + cols + " FROM " + t + where(1),
		insert: "INSERT INTO " + t + " (" + strings.Join(c.columns(), ", ") + ") VALUES (" +
			dialect.Placeholders(d, 1, 2+c.fieldCount) + ")",
		scan: "SELECT " + cols + " FROM " + t + " WHERE " + c.tenantAnd(d, 1) + keyColumn + " >= " + p(2) +
			" ORDER BY " + keyColumn + " LIMIT " + p(3),
	}
	var set strings.Builder
	for i := 0; i < c.fieldCount; i++ {
		f := c.fieldName(i)
		s.readField = append(s.readField, "SELECT "+f+" FROM "+t+where(1))
		s.updateField = append(s.updateField, "UPDATE "+t+" SET "+f+" = "+p(1)+where(2))
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(f + " = " + p(i+1))
	}
	s.updateAll = "UPDATE " + t + " SET " + set.String() + where(c.fieldCount+1)
	s.del = deleteFrom(s.readAll)
	return s
}

// missingTableError is the error of a run against a database without the
// table.
func (c *config) missingTableError(db *sqlx.DB) error {
	return fmt.Errorf("table %s does not exist in database %s: run `stampede init ycsb` first", c.tableName, db.Database())
}

// Ops implements the Opser interface. It counts the table's rows (the
// tenant's, with a tenant), checks that the last key this client loads is
// there (warning through OpsConfig.Warn when it is not: the table was
// loaded with other properties, and reads will find no rows), and finds
// where this client's inserts continue (see insertStart).
func (g *ycsb) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	c, err := g.config()
	if err != nil {
		return workload.QueryLoad{}, err
	}
	warn := oc.Warn
	if warn == nil {
		warn = func(string, ...any) {}
	}
	for _, w := range g.warnings {
		warn("%s", w)
	}
	if f := g.flags.Lookup("select-for-update"); f != nil && f.Changed && !g.rmwInTxn {
		warn("--select-for-update=%s only changes the reads of --read-modify-write-in-txn's transactions, which this run does not use: ignored", f.Value)
	}
	next := c.insertCount // the own index of the first insert (see keyNumber)
	var mismatch error
	if !db.Null() {
		var rows int64
		query, args := c.countQuery(db.Dialect())
		if err := db.QueryRow(ctx, query, args...).Scan(&rows); err != nil {
			switch sqlx.SQLState(err) {
			case "42P01": // undefined_table
				return workload.QueryLoad{}, c.missingTableError(db)
			case "42703": // undefined_column: tenant_id
				if c.tenant != 0 {
					return workload.QueryLoad{}, c.noTenantColumnError(db)
				}
			}
			return workload.QueryLoad{}, fmt.Errorf("counting rows of %s: %w", c.tableName, err)
		}
		msg, err := c.checkLastKey(ctx, db, rows)
		if err != nil {
			return workload.QueryLoad{}, err
		}
		if msg != "" {
			mismatch = fmt.Errorf("%w: %s", workload.ErrLoadMismatch, msg)
			warn("%s", msg)
		}
		if next, err = c.insertStartIndex(ctx, db, rows); err != nil {
			return workload.QueryLoad{}, err
		}
		if msg, err := c.checkInsertSequence(ctx, db, next); err != nil {
			return workload.QueryLoad{}, err
		} else if msg != "" {
			warn("%s", msg)
		}
	}
	inserts := randgen.NewAcknowledgedCounter(next)
	stmts := c.statements(db.Dialect())
	var seq *atomic.Int64
	if c.requestDist == distSequential {
		seq = new(atomic.Int64)
	}

	ql := workload.QueryLoad{Ops: layout.names, Classes: layout.classes, Workers: make([]workload.Worker, oc.Concurrency)}
	own, err := g.ownKeys(ctx, db, c, warn) // --locality-keys own
	if err != nil {
		return workload.QueryLoad{}, err
	}
	if own != nil {
		ql.Header = append(ql.Header, own.header())
	}
	if c.batchSize > 0 {
		ql.Ops = append(slices.Clip(ql.Ops), batchedSeries)
		ql.Classes = append(slices.Clip(ql.Classes), workload.ClassTransaction)
	}
	conns := make([]sqlx.Conn, oc.Concurrency)
	workers := make([]*worker, oc.Concurrency)
	first := &firstErrors{warn: warn}
	for i := range ql.Workers {
		conns[i] = db.Conn(i, true)
		wc, wi := c, inserts
		if own != nil {
			wc, wi = own.of(i)
		}
		w := newWorker(wc, stmts, conns[i], randgen.New(oc.Seed, workerStream(i)), wi, seq)
		w.id, w.stopOnError, w.mismatch, w.firstErrors = i, g.stopOnError, mismatch, first
		if c.batchSize > 0 {
			w.batch = newInsertBatch(c, db.Dialect())
		}
		w.inTxn = g.rmwTxn(stmts)
		workers[i] = w
		ql.Workers[i] = w.run
	}
	ql.Attach = func(i int, rec workload.Recorder) { workers[i].rec = rec }
	if g.measureCleanup {
		// YCSB's [CLEANUP]: each worker's end, timed, which sends the
		// inserts still in its batch, as the JDBC binding's cleanup does.
		series := len(ql.Ops)
		ql.Ops = append(slices.Clip(ql.Ops), cleanupSeries)
		ql.Classes = append(slices.Clip(ql.Classes), workload.ClassOther)
		ql.Detach = func(i int) {
			w := workers[i]
			// Sent even when the run was interrupted, as Close would
			// have, within a bound should the server not answer.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			start := time.Now()
			w.cleanupErr = w.flushBatch(fctx)
			if w.rec != nil {
				w.rec.Record(series, time.Since(start))
			}
		}
	}
	ql.Close = func(ctx context.Context) error {
		// The inserts still in batches, unmeasured, as YCSB's JDBC
		// binding sends them at its cleanup (without MeasureCleanup).
		var err error
		for _, w := range workers {
			err = errors.Join(err, w.cleanupErr, w.flushBatch(ctx))
		}
		for _, conn := range conns {
			conn.Release()
		}
		return err
	}
	return ql, nil
}

// keyNumber maps an own index i of this client to a key number. The
// client's own keys are the ones it loads, [insertstart,
// insertstart+insertcount), indexes 0 to insertcount-1, and then the ones
// it inserts, in stripes of insertcount keys placed as its load range is
// in the recordcount keys: [k*recordcount+insertstart,
// k*recordcount+insertstart+insertcount) for k = 1, 2, ... So clients
// that split the load (YCSB's insertstart and insertcount) insert keys
// no other client loads or inserts, and a client that loads the whole
// table inserts recordcount, recordcount+1, ..., as YCSB does.
func (c *config) keyNumber(i int64) int64 {
	if i < c.insertCount {
		return c.insertStart + i
	}
	j := i - c.insertCount
	return c.recordCount*(1+j/c.insertCount) + c.insertStart + j%c.insertCount
}

// split reports whether this client loads part of the table only.
func (c *config) split() bool {
	return c.insertStart != 0 || c.insertCount != c.recordCount
}

// existsQuery returns the query counting the rows of one key (the
// tenant's, with a tenant), whose key is bound to the last argument.
func (c *config) existsQuery(d dialect.Dialect) (string, []any) {
	lead := c.tenantArgs()
	return "SELECT count(*) FROM " + c.tableName + " WHERE " + c.tenantAnd(d, 1) + keyColumn + " = " +
		d.Placeholder(len(lead)+1), append(lead, nil)
}

// hasKey reports whether key number k has a row.
func (c *config) hasKey(ctx context.Context, db *sqlx.DB, k int64) (bool, error) {
	query, args := c.existsQuery(db.Dialect())
	args[len(args)-1] = c.keyName(k)
	var n int64
	if err := db.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return false, fmt.Errorf("looking up key %s in %s: %w", c.keyName(k), c.label(), err)
	}
	return n > 0, nil
}

// checkLastKey looks up the last key this client loads: a table loaded
// with a smaller recordcount (or another insertorder or zeropadding)
// lacks it, and the run's reads would find no rows. It returns the
// explanation, or "" when the key is there.
func (c *config) checkLastKey(ctx context.Context, db *sqlx.DB, rows int64) (string, error) {
	last := c.insertStart + c.insertCount - 1
	ok, err := c.hasKey(ctx, db, last)
	if err != nil || ok {
		return "", err
	}
	msg := fmt.Sprintf("%s has %d rows and no key %s, key number %d, the last of recordcount=%d",
		c.label(), rows, c.keyName(last), last, c.recordCount)
	if c.split() {
		msg = fmt.Sprintf("%s has %d rows and no key %s, key number %d, the last of insertstart=%d insertcount=%d",
			c.label(), rows, c.keyName(last), last, c.insertStart, c.insertCount)
	}
	return msg + ": it was loaded with other properties; run with those of the load (its recordcount, insertorder and zeropadding)", nil
}

// checkInsertSequence says, for a client that loads the whole table and
// whose inserts continue after the rows in it (next), when the keys
// inserted before are not in sequence and this run's own key choice can
// meet them (see meetsInserted): clients that each loaded a share of the
// keys (YCSB's insertstart and insertcount, which --clients sets) insert
// in stripes, so this client's next keys may exist already and the latest
// ones it reads may never have been inserted.
func (c *config) checkInsertSequence(ctx context.Context, db *sqlx.DB, next int64) (string, error) {
	if c.split() || next <= c.insertCount {
		return "", nil
	}
	meets := c.meetsInserted()
	if meets == "" {
		return "", nil // it neither inserts nor reads past the loaded keys
	}
	last, err := c.hasKey(ctx, db, c.keyNumber(next-1))
	if err != nil {
		return "", err
	}
	taken, err := c.hasKey(ctx, db, c.keyNumber(next))
	if err != nil || (last && !taken) {
		return "", err
	}
	return fmt.Sprintf("the %d keys inserted after the %d loaded are not in sequence: clients that each loaded a share of the keys "+
		"(YCSB's insertstart and insertcount, which --clients sets) inserted them in stripes; %s. "+
		"Run this client as one of them: with the --clients and a --client-index of theirs, or with one share's insertstart and insertcount",
		next-c.insertCount, c.insertCount, meets), nil
}

// meetsInserted says how this run's key choice meets the keys inserted
// after the load ("" when it cannot): its inserts, which continue after
// them, and its reads when they draw past the loaded keys (the latest and
// exponential distributions count back from the last insert; zipfian
// draws past the load when the run inserts). Uniform, hotspot and
// sequential reads draw among the loaded keys only.
func (c *config) meetsInserted() string {
	inserts := c.proportions[opInsert] > 0
	var parts []string
	if inserts {
		parts = append(parts, "this run's inserts may meet existing keys")
	}
	switch {
	case c.requestDist == distLatest || c.requestDist == distExponential || (c.requestDist == distZipfian && inserts):
		parts = append(parts, fmt.Sprintf("its reads (requestdistribution=%s) may draw keys never inserted", c.requestDist))
	}
	return strings.Join(parts, ", and ")
}

// insertStartIndex returns the own index (see keyNumber) of this
// client's first insert. A client that loads the whole table continues
// after the rows in it, max(recordcount, rows), so repeated runs with
// inserts do not collide. A client with a share of the load continues
// after its own inserts of earlier runs, found by looking keys up
// (doubling, then halving: about 2*log2(n) lookups for n keys).
func (c *config) insertStartIndex(ctx context.Context, db *sqlx.DB, rows int64) (int64, error) {
	if !c.split() {
		return max(c.insertCount, rows-c.insertStart), nil
	}
	has := func(j int64) (bool, error) { return c.hasKey(ctx, db, c.keyNumber(c.insertCount+j)) }
	ok, err := has(0)
	if err != nil || !ok {
		return c.insertCount, err
	}
	lo, hi := int64(0), int64(1) // key lo exists; find a hi that does not
	for {
		ok, err := has(hi)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := has(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return c.insertCount + hi, nil
}

// worker is one worker's state: its stream, generators and the buffers
// its operations reuse. It is not safe for concurrent use.
type worker struct {
	_       cacheline.Pad // the fields below are written on every operation
	c       *config
	s       *statements
	conn    sqlx.Conn
	null    bool // conn is the null driver's: reads find no rows
	r       *rand.Rand
	vs      valueSource // value bytes, seeded from r
	inserts *randgen.AcknowledgedCounter
	// rec records the parts of read-modify-writes, scans' latency per
	// row and failed operations (set by QueryLoad.Attach; nil in tests
	// that call the worker directly).
	rec workload.Recorder
	// stopOnError returns a failed operation's error (--stop-on-error),
	// rather than recording it under its status's series.
	stopOnError bool
	// mismatch, when set, explains why reads find no rows: the table was
	// loaded with other properties (see checkLastKey).
	mismatch error
	// firstErrors reports the statement errors.
	firstErrors *firstErrors
	// id is the worker's number.
	id int
	// batch gathers inserts (jdbc.batchupdateapi); nil without batching.
	batch *insertBatch
	// cleanupErr is the error of sending the batch at the worker's end
	// (YCSBCleanupMeasurer), which Close returns.
	cleanupErr error

	// thresholds[i] is the cumulative proportion of ops 0..i in units of
	// 2^-53, with the last op of non-zero proportion and all after it at
	// 2^53 (against rounding).
	thresholds [numOps]uint64

	keys        randgen.IntGenerator
	exponential bool
	lengths     fieldLengths
	scanLengths randgen.IntGenerator

	// keyBuf holds the current key name; keyArgs[n] is keyBuf[:n] boxed
	// once, so binding a key allocates nothing.
	keyBuf  []byte
	keyArgs []any
	// vals[i] is field i's value buffer; valArgs[i] is vals[i] boxed.
	vals    [][]byte
	valArgs []any

	// The statements' arguments. t is the number of tenant arguments, 1
	// with a tenant, else 0; the tenant id, when bound, is set once.
	t          int
	readArgs   []any // [tenant,] key
	updateArgs []any // value, [tenant,] key
	updateAll  []any // values..., [tenant,] key
	insertArgs []any // [tenant,] key, values...
	scanArgs   []any // [tenant,] key, limit

	// raw is conn's fast path (see sqlx.RawQuerier), or nil: the null
	// driver's connection, shared or borrowed connections and tests'
	// fakes have none, and take the args above through Query and Exec.
	// The statements and their parameters are the same on both paths.
	// params are the args encoded for raw, and ints the digits of the
	// integer ones, in buffers reused (see encode).
	//
	// Measured with workload c, zipfian, 8 workers, on one PostgreSQL 15
	// (2 vCPU, load average 3-5 from other jobs), alternating runs:
	// client CPU per read fell from 14.4-15.3 µs (user 4.7-5.5) through
	// pgx's Query to 11.5-13.3 µs (user 3.4-4.0); workload a's user CPU
	// per operation fell by 3-5 µs.
	raw    sqlx.RawQuerier
	params [][]byte
	ints   [][]byte
	// countRow is w.count, bound once (a method value allocates).
	countRow func([][]byte)

	// inTxn, when set, runs read-modify-writes in an explicit
	// transaction (--read-modify-write-in-txn; see rmwtxn.go).
	inTxn *rmwTxn

	// rows and received count the rows and column bytes the last read or
	// scan received.
	rows, received int
	_              cacheline.Pad
}

func newWorker(
	c *config, s *statements, conn sqlx.Conn, r *rand.Rand,
	inserts *randgen.AcknowledgedCounter, seq *atomic.Int64,
) *worker {
	w := &worker{
		c: c, s: s, conn: conn, r: r, vs: newValueSource(r), inserts: inserts,
		lengths: c.newFieldLengths(), null: sqlx.IsNullConn(conn),
	}

	var total float64
	lastOp := 0
	for i, p := range c.proportions {
		total += p
		if p > 0 {
			lastOp = i
		}
	}
	var acc float64
	for i, p := range c.proportions {
		acc += p
		w.thresholds[i] = uint64(acc / total * (1 << 53))
		if i >= lastOp {
			w.thresholds[i] = 1 << 53
		}
	}

	// The generators draw own indexes (see config.keyNumber), which are
	// CoreWorkload's key numbers less insertstart: [0, insertcount) are
	// the loaded keys, and the insert counter counts on from insertcount.
	lo, hi := int64(0), c.insertCount-1
	switch c.requestDist {
	case distUniform:
		w.keys = randgen.NewUniform(lo, hi)
	case distZipfian:
		// As CoreWorkload: [insertstart, insertstart+insertcount+expectednewkeys],
		// keys not yet inserted being redrawn by nextKeynum.
		w.keys = randgen.NewScrambledZipfian(lo, hi+1+c.expectedNewKeys(), c.zipfianConstant)
	case distLatest:
		w.keys = randgen.NewSkewedLatestConstant(inserts, c.zipfianConstant)
	case distHotspot:
		w.keys = randgen.NewHotspot(lo, hi, c.hotspotData, c.hotspotOpn)
	case distExponential:
		w.keys = randgen.NewExponential(c.expPercentile, float64(c.recordCount)*c.expFrac)
		w.exponential = true
	case distSequential:
		w.keys = sequential{lo: lo, n: c.insertCount, next: seq}
	}
	if c.scanLengthDist == distZipfian {
		w.scanLengths = randgen.NewZipfian(c.minScanLength, c.maxScanLength, c.zipfianConstant)
	} else {
		w.scanLengths = randgen.NewUniform(c.minScanLength, c.maxScanLength)
	}

	maxKey := maxKeyNameLen(c.zeroPadding)
	// The buffers written on every operation are padded off other
	// workers' (see package cacheline).
	w.keyBuf = cacheline.Slice[byte](maxKey)[:0]
	w.keyArgs = make([]any, maxKey+1)
	for n := range w.keyArgs {
		w.keyArgs[n] = w.keyBuf[:n:n]
	}
	w.vals = make([][]byte, c.fieldCount)
	w.valArgs = make([]any, c.fieldCount)
	for i := range w.vals {
		w.vals[i] = cacheline.Slice[byte](int(c.maxFieldLength()))
		w.valArgs[i] = w.vals[i]
	}

	if c.tenant != 0 {
		w.t = 1
	}
	w.readArgs = cacheline.Slice[any](w.t + 1)
	w.updateArgs = cacheline.Slice[any](w.t + 2)
	w.updateAll = cacheline.Slice[any](c.fieldCount + w.t + 1)
	w.insertArgs = cacheline.Slice[any](w.t + c.fieldCount + 1)
	w.scanArgs = cacheline.Slice[any](w.t + 2)
	n := max(len(w.readArgs), len(w.updateArgs), len(w.updateAll), len(w.insertArgs), len(w.scanArgs))
	w.params = cacheline.Slice[[]byte](n)
	w.ints = cacheline.Slice[[]byte](n)
	for i := range w.ints {
		w.ints[i] = cacheline.Slice[byte](len("-9223372036854775808"))[:0]
	}
	w.raw, _ = conn.(sqlx.RawQuerier)
	w.countRow = w.count
	if w.t == 1 {
		w.readArgs[0] = c.tenantArg
		w.updateArgs[1] = c.tenantArg
		w.updateAll[c.fieldCount] = c.tenantArg
		w.insertArgs[0] = c.tenantArg
		w.scanArgs[0] = c.tenantArg
	}
	return w
}

// run performs one operation. It is the workload.Worker.
//
// A failed operation does not end the run (unless stopOnError): as YCSB
// records it, its latency goes to its status's series (read/not_found,
// YCSB's READ-FAILED) and it counts as an error of its operation.
func (w *worker) run(ctx context.Context) workload.Result {
	op := w.chooseOp()
	var err error
	switch op {
	case opRead:
		err = w.read(ctx, w.nextKey())
	case opUpdate:
		err = w.update(ctx, w.nextKey())
	case opInsert:
		err = w.insert(ctx)
	case opScan:
		err = w.timedScan(ctx, w.nextKey())
	case opReadModifyWrite:
		return w.readModifyWrite(ctx)
	case opDelete:
		err = w.delete(ctx, w.nextKey())
	}
	if err == nil {
		return workload.Result{Op: op}
	}
	if err == errBatched {
		return workload.Result{Op: len(layout.names)} // batchedSeries
	}
	if w.stopOnError || errors.Is(err, context.Canceled) {
		return workload.Result{Op: op, Err: w.explain(err)}
	}
	if w.rec != nil {
		w.rec.RecordError(op, err)
	}
	s := layout.fail[op][statusOf(op, err)]
	w.firstErrors.report(w.id, op, s, err)
	return workload.Result{Op: s}
}

// firstErrors reports the first failed statement (status ERROR) of each
// series through OpsConfig.Warn, with its error. The run goes on, but the
// causes are not lost: every failure also reaches the Recorder with its
// error, which the run counts by code and logs.
type firstErrors struct {
	warn func(format string, args ...any)
	once [numSeries]sync.Once
}

// numSeries bounds the number of series (see seriesLayout).
const numSeries = 32

// report reports err, a failure of worker's series op recorded under
// series s, if it is a statement error. It is safe for concurrent use.
func (f *firstErrors) report(worker, op, s int, err error) {
	if f == nil || !strings.HasSuffix(layout.names[s], PartSep+"error") {
		return
	}
	f.once[s].Do(func() {
		f.warn("%s failed: %v; the run goes on, as YCSB's does, recording such failures under %s (--stop-on-error ends it instead)",
			strings.TrimSuffix(layout.names[s], PartSep+"error"), err, layout.names[s])
	})
}

// explain adds to a read's ErrNotFound why rows are missing, when the
// table was found loaded with other properties.
func (w *worker) explain(err error) error {
	if w.mismatch != nil && errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w (%w)", err, w.mismatch)
	}
	return err
}

// readModifyWrite reads a key and then updates it, as CoreWorkload's
// doTransactionReadModifyWrite: the update runs whatever the read found
// (unless stopOnError, when a failed read ends the run as before), and
// the whole counts as one read-modify-write. Its read and update are
// recorded as parts (read-modify-write/read, .../update, or their status
// series when they fail), with their own latencies.
func (w *worker) readModifyWrite(ctx context.Context) workload.Result {
	if w.inTxn != nil {
		return w.readModifyWriteTx(ctx)
	}
	key := w.nextKey()
	start := time.Now()
	rerr := w.read(ctx, key)
	mid := time.Now()
	if rerr != nil && (w.stopOnError || errors.Is(rerr, context.Canceled)) {
		return workload.Result{Op: opReadModifyWrite, Err: w.explain(rerr)}
	}
	uerr := w.update(ctx, key)
	end := time.Now()
	w.recordPart(0, opRead, rerr, mid.Sub(start))
	w.recordPart(1, opUpdate, uerr, end.Sub(mid))
	if uerr != nil && (w.stopOnError || errors.Is(uerr, context.Canceled)) {
		return workload.Result{Op: opReadModifyWrite, Err: uerr}
	}
	return workload.Result{Op: opReadModifyWrite}
}

// recordPart records part p (of operation op) of a read-modify-write.
func (w *worker) recordPart(p, op int, err error, d time.Duration) {
	if w.rec == nil {
		return
	}
	if err == nil {
		w.rec.Record(layout.part[p], d)
		return
	}
	w.rec.RecordError(layout.part[p], err)
	s := layout.partFail[p][statusOf(op, err)]
	w.rec.Record(s, d)
	w.firstErrors.report(w.id, layout.part[p], s, err)
}

// timedScan is scan, recording the scan's latency per row returned
// (YCSB's SCAN-LATENCY-PER-RECORD) when it returned any.
func (w *worker) timedScan(ctx context.Context, key any) error {
	if w.rec == nil {
		return w.scan(ctx, key)
	}
	start := time.Now()
	err := w.scan(ctx, key)
	if err == nil && w.rows > 0 {
		w.rec.Record(layout.perRecord, time.Since(start)/time.Duration(w.rows))
	}
	return err
}

// chooseOp draws an operation by cumulative proportion: the first op whose
// threshold exceeds a uniform u in [0, 2^53), found without branches (the
// number of thresholds at most u), as a random op mix defeats branch
// prediction.
func (w *worker) chooseOp() int {
	u := w.r.Uint64() >> 11
	op := uint64(0)
	for _, t := range w.thresholds[:numOps-1] {
		op += 1 ^ (u-t)>>63 // 1 when u >= t; both are below 2^63
	}
	return int(op)
}

// nextKeynum draws a key number as CoreWorkload.nextKeynum does: never
// beyond the last acknowledged insert (redrawing), and for the exponential
// distribution counting back from it. It draws an own index and returns
// its key number (see config.keyNumber).
func (w *worker) nextKeynum() int64 {
	if w.exponential {
		for {
			if i := w.inserts.Last() - w.keys.Next(w.r); i >= 0 {
				return w.c.keyNumber(i)
			}
		}
	}
	for {
		if i := w.keys.Next(w.r); i <= w.inserts.Last() {
			return w.c.keyNumber(i)
		}
	}
}

// nextKey draws a key number and builds its name into keyBuf, returning
// the boxed name.
func (w *worker) nextKey() any {
	return w.setKey(w.nextKeynum())
}

func (w *worker) setKey(keynum int64) any {
	w.keyBuf = appendKeyName(w.keyBuf[:0], keynum, w.c.insertOrdered, w.c.zeroPadding)
	return w.keyArgs[len(w.keyBuf)]
}

// value fills field i's buffer with a random value and returns it boxed.
func (w *worker) value(i int) any {
	if w.lengths.gen == nil {
		w.vs.fill(w.vals[i])
		return w.valArgs[i]
	}
	v := w.vals[i][:w.lengths.next(w.r)]
	w.vs.fill(v)
	return v
}

// read fetches the row of key: every field (readallfields) or one random
// field.
func (w *worker) read(ctx context.Context, key any) error {
	w.readArgs[w.t] = key
	sql := w.s.readAll
	if !w.c.readAllFields {
		sql = w.s.readField[w.r.IntN(w.c.fieldCount)]
	}
	if err := w.query(ctx, sql, w.readArgs); err != nil {
		return err
	}
	if w.rows == 0 && !w.null {
		return fmt.Errorf("read %s: %w", w.keyBuf, ErrNotFound)
	}
	return nil
}

// query runs a read or a scan, receiving every row whole but not
// decoding it (a YCSB read needs the bytes delivered, not converted), and
// counts the rows and bytes in w.rows and w.received.
func (w *worker) query(ctx context.Context, sql string, args []any) error {
	w.rows, w.received = 0, 0
	if w.raw != nil {
		_, err := w.raw.QueryRaw(ctx, sql, w.encode(args), w.countRow)
		return err
	}
	rows, err := w.conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		w.count(rows.RawValues())
	}
	rows.Close()
	return rows.Err()
}

// count counts a received row and its bytes.
func (w *worker) count(cols [][]byte) {
	w.rows++
	for _, col := range cols {
		w.received += len(col)
	}
}

// exec runs an update or an insert, returning the rows it affected.
func (w *worker) exec(ctx context.Context, sql string, args []any) (int64, error) {
	if w.raw != nil {
		return w.raw.QueryRaw(ctx, sql, w.encode(args), nil)
	}
	return w.conn.Exec(ctx, sql, args...)
}

// encode encodes args for the fast path into w.params, as pgx would in
// text format: the key and values are their bytes, the tenant id (int32)
// and the scan length (int64) their decimal digits, written into w.ints
// (never into a key or value buffer that params may still point to).
func (w *worker) encode(args []any) [][]byte {
	p := w.params[:len(args)]
	for i, a := range args {
		switch a := a.(type) {
		case []byte:
			p[i] = a
		case int32:
			w.ints[i] = strconv.AppendInt(w.ints[i][:0], int64(a), 10)
			p[i] = w.ints[i]
		case int64:
			w.ints[i] = strconv.AppendInt(w.ints[i][:0], a, 10)
			p[i] = w.ints[i]
		default:
			panic(fmt.Sprintf("ycsb: argument of type %T", a))
		}
	}
	return p
}

// update writes every field (writeallfields) or one random field of key.
func (w *worker) update(ctx context.Context, key any) error {
	var n int64
	var err error
	if w.c.writeAllFields {
		for i := 0; i < w.c.fieldCount; i++ {
			w.updateAll[i] = w.value(i)
		}
		w.updateAll[w.c.fieldCount+w.t] = key
		n, err = w.exec(ctx, w.s.updateAll, w.updateAll)
	} else {
		f := w.r.IntN(w.c.fieldCount)
		w.updateArgs[0], w.updateArgs[1+w.t] = w.value(0), key
		n, err = w.exec(ctx, w.s.updateField[f], w.updateArgs)
	}
	if err == nil && n == 0 {
		err = fmt.Errorf("update %s: %w", w.keyBuf, ErrNotFound)
	}
	return err
}

// insert adds a row under the next key number of the shared insert
// counter. As in YCSB (which acknowledges in a finally block), the number
// is acknowledged whether or not the insert succeeded, so the counter's
// last acknowledged value, the bound of key choice, never stalls behind a
// failed insert.
func (w *worker) insert(ctx context.Context) error {
	if w.batch != nil {
		return w.batchInsert(ctx)
	}
	i := w.inserts.Next()
	defer w.inserts.Acknowledge(i)
	w.insertArgs[w.t] = w.setKey(w.c.keyNumber(i))
	for i := 0; i < w.c.fieldCount; i++ {
		w.insertArgs[w.t+1+i] = w.value(i)
	}
	_, err := w.exec(ctx, w.s.insert, w.insertArgs)
	return err
}

// scan reads up to a scan-length number of rows from key on, in key order.
func (w *worker) scan(ctx context.Context, key any) error {
	w.scanArgs[w.t], w.scanArgs[w.t+1] = key, w.scanLengths.Next(w.r)
	return w.query(ctx, w.s.scan, w.scanArgs)
}

// sequential is CoreWorkload's sequential request distribution: key
// numbers lo, lo+1, ..., lo+n-1, lo, ... from one counter shared by all
// workers.
type sequential struct {
	lo, n int64
	next  *atomic.Int64
}

// Next implements randgen.IntGenerator.
func (s sequential) Next(*rand.Rand) int64 { return s.lo + (s.next.Add(1)-1)%s.n }
