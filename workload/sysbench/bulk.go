package sysbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// bulkMaxStatement is the size of sysbench's bulk insert buffer
// (BULK_PACKET_SIZE in db_driver.c): a multi-row INSERT is sent before the
// next row would make its text, and a terminating NUL, longer.
const bulkMaxStatement = 512 * 1024

var _ workload.RunCreator = bulkGenerator{}

// CreatesAtRun implements the workload.RunCreator interface: bulk_insert's
// runs create their tables (sbtestN, one per worker) when missing.
func (b bulkGenerator) CreatesAtRun() bool { return true }

// bulkOps prepares a bulk_insert run: worker w appends rows to the table
// sbtest<w+1>, created here when missing, as bulk_insert.lua's prepare
// creates one table per thread. A worker's ids continue from its table's
// largest id, so a second run appends where sysbench's would fail on
// duplicate keys.
func (g *generator) bulkOps(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	layout := newOpLayout([numKinds]bool{kInsert: true})
	ql := workload.QueryLoad{Ops: layout.names, Classes: layout.classes, Workers: make([]workload.Worker, oc.Concurrency)}
	workers := make([]*bulkWorker, oc.Concurrency)
	// The run appends to a user's table as sysbench would, after a
	// warning, as the other workloads' runs do over tables stampede
	// did not load; read before the run creates the missing ones, said
	// once every table is found fit (a table of another shape is
	// refused alone, without a warning that the run writes into it).
	unloaded, err := unmarkedBulkTables(ctx, db, oc.Concurrency)
	if err != nil {
		return workload.QueryLoad{}, err
	}
	starts := make([]int64, oc.Concurrency)
	for i := range starts {
		if starts[i], err = prepareBulkTable(ctx, db, tableName(i+1)); err != nil {
			return workload.QueryLoad{}, err
		}
	}
	if len(unloaded) > 0 && oc.Warn != nil {
		oc.Warn("%s", workload.UnloadedWarning(unloaded, db.Database(), "bulk_insert"))
	}
	for i := range workers {
		workers[i] = newBulkWorker(tableName(i+1), starts[i], layout.index[kInsert], db.Conn(i, true))
		ql.Workers[i] = workers[i].run
	}
	ql.Attach = func(i int, rec workload.Recorder) { workers[i].rec = rec }
	// The rows left when a worker stops are sent and counted as a write,
	// as sysbench's thread_done sends them (bulk_insert_done); the event
	// count is the rows' already.
	ql.Detach = func(i int) {
		w := workers[i]
		if err := w.flush(context.Background(), true); err != nil {
			w.lastErr = err
			w.rec.RecordError(w.op, err)
		}
	}
	ql.Close = func(ctx context.Context) error {
		var errs []error
		for _, w := range workers {
			err := w.lastErr
			if err == nil {
				err = w.flush(ctx, false) // a worker that never started
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: last rows: %w", w.table, err))
			}
			w.conn.Release()
		}
		return errors.Join(errs...)
	}
	return ql, nil
}

// prepareBulkTables is bulk_insert.lua's prepare: it creates the tables
// sbtest1..workers (one per thread) unless they exist, each after saying
// so to step, as sysbench prints "Creating table 'sbtestN'..." before its
// CREATE TABLE IF NOT EXISTS. Before it creates any, it refuses (a
// *workload.ForeignError naming --force-drop, which drops them first)
// those of them that stampede did not make: the rows its runs append
// would go into a user's table.
func prepareBulkTables(ctx context.Context, db *sqlx.DB, workers int, step func(workload.LoadStep)) error {
	if err := refuseForeignBulk(ctx, db, workers); err != nil {
		return err
	}
	for i := 1; i <= workers; i++ {
		name := tableName(i)
		if step != nil {
			step(workload.LoadStep{Table: name, Kind: workload.StepCreate})
		}
		if _, err := prepareBulkTable(ctx, db, name); err != nil {
			return err
		}
	}
	return nil
}

// refuseForeignBulk refuses the tables of sbtest1..workers that exist
// without stampede's mark.
func refuseForeignBulk(ctx context.Context, db *sqlx.DB, workers int) error {
	foreign, err := unmarkedBulkTables(ctx, db, workers)
	if err != nil || len(foreign) == 0 {
		return err
	}
	it := "it"
	if len(foreign) > 1 {
		it = "them"
	}
	return &workload.ForeignError{Kind: "table", Names: foreign, Action: "bulk_insert's prepare",
		Where: db.Where(),
		Why:   "no mark of stampede's on " + it + ", which every table stampede makes carries; nothing was created"}
}

// unmarkedBulkTables returns the tables of sbtest1..workers that exist
// without stampede's mark.
func unmarkedBulkTables(ctx context.Context, db *sqlx.DB, workers int) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	var foreign []string
	for i := 1; i <= workers; i++ {
		name := tableName(i)
		exists, err := workload.TableExists(ctx, db, name)
		if err != nil {
			return nil, fmt.Errorf("checking table %s: %w", name, err)
		}
		if !exists {
			continue
		}
		c, err := workload.TableComment(ctx, db, name)
		if err != nil {
			return nil, err
		}
		if !workload.IsMark(c) {
			foreign = append(foreign, name)
		}
	}
	return foreign, nil
}

// prepareBulkTable creates bulk_insert's table name unless it exists, and
// returns its largest id (0 when empty). It refuses a table of another
// layout, such as an OLTP workload's sbtestN.
func prepareBulkTable(ctx context.Context, db *sqlx.DB, name string) (int64, error) {
	if db.Null() {
		return 0, nil
	}
	exists, err := workload.TableExists(ctx, db, name)
	if err != nil {
		return 0, fmt.Errorf("checking table %s: %w", name, err)
	}
	if !exists {
		if err := workload.CreateMarkedTable(ctx, db, db.Dialect().CreateTable(name, bulkSchema), name, workload.RunMark("bulk_insert")); err != nil {
			return 0, fmt.Errorf("creating table %s: %w", name, err)
		}
		return 0, nil
	}
	var cols int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_name = "+
		db.Dialect().Placeholder(1)+" AND table_schema NOT IN ('pg_catalog', 'information_schema')", name).Scan(&cols); err != nil {
		return 0, fmt.Errorf("checking table %s: %w", name, err)
	}
	if cols != 2 {
		c, err := workload.TableComment(ctx, db, name)
		if err != nil {
			return 0, err
		}
		if !workload.IsMark(c) {
			return 0, &otherShapeError{fmt.Sprintf("table %s in %s is not bulk_insert's (id, k) but has %d columns, and stampede did not make it: %s",
				name, db.Where(), cols, workload.OtherDatabaseHint)}
		}
		return 0, &otherShapeError{fmt.Sprintf("table %s in %s is not bulk_insert's (id, k) but has %d columns: "+
			"drop it (`stampede cleanup` of the workload that made it), or %s", name, db.Where(), cols, workload.OtherDatabaseHint)}
	}
	var maxID int64
	if err := db.QueryRow(ctx, "SELECT coalesce(max(id), 0) FROM "+name).Scan(&maxID); err != nil {
		return 0, fmt.Errorf("reading the largest id of %s: %w", name, err)
	}
	return maxID, nil
}

// otherShapeError refuses a table of bulk_insert's name and another
// shape: it matches workload.ErrTablesExist (bad input), without that
// error's words in its message.
type otherShapeError struct{ msg string }

func (e *otherShapeError) Error() string { return e.msg }

// Is makes errors.Is(err, workload.ErrTablesExist) true.
func (e *otherShapeError) Is(target error) bool { return target == workload.ErrTablesExist }

// bulkWorker is a bulk_insert worker: each event appends the row
// (n, n) for the next n to a multi-row INSERT, which is sent when full and
// when the run ends. It is not safe for concurrent use.
type bulkWorker struct {
	table   string
	conn    sqlx.Conn
	rec     workload.Recorder
	op      int // the insert's operation index
	base    time.Time
	buf     []byte // the statement: INSERT INTO sbtestN VALUES(1,1),(2,2)...
	prefix  int    // length of "INSERT INTO sbtestN VALUES"
	rows    int    // rows in buf
	cursize int64  // the last n appended
	lastErr error  // the failure of the flush after the last event
}

func newBulkWorker(table string, start int64, op int, conn sqlx.Conn) *bulkWorker {
	b := &bulkWorker{table: table, conn: conn, rec: nopRecorder{}, op: op, base: time.Now(), cursize: start}
	b.buf = make([]byte, 0, bulkMaxStatement)
	b.buf = append(b.buf, "INSERT INTO "+table+" VALUES"...)
	b.prefix = len(b.buf)
	return b
}

// run performs one bulk_insert event: it appends one row, first sending
// the statement if the row would not fit. It is the workload.Worker; a
// failed INSERT loses its rows and returns the error.
func (b *bulkWorker) run(ctx context.Context) workload.Result {
	b.cursize++
	var tmp [48]byte
	row := append(tmp[:0], '(')
	row = strconv.AppendInt(row, b.cursize, 10)
	row = append(row, ',')
	row = strconv.AppendInt(row, b.cursize, 10)
	row = append(row, ')')
	if b.rows > 0 && len(b.buf)+1+len(row)+1 > bulkMaxStatement {
		if err := b.flush(ctx, true); err != nil {
			return workload.Result{Err: err}
		}
	}
	if b.rows > 0 {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, row...)
	b.rows++
	return workload.Result{}
}

// flush sends the rows gathered so far, recording the INSERT's latency
// when measured is set. The statement has no parameters, so it goes
// through the simple protocol and is not prepared.
func (b *bulkWorker) flush(ctx context.Context, measured bool) error {
	if b.rows == 0 {
		return nil
	}
	sql := string(b.buf)
	b.buf, b.rows = b.buf[:b.prefix], 0
	start := time.Since(b.base)
	if _, err := b.conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", kindNames[kInsert], err)
	}
	if measured {
		b.rec.Record(b.op, time.Since(b.base)-start)
	}
	return nil
}

// bulkTables lists the tables bulk_insert's runs make: every sbtestN of
// the database, however many threads the runs had (sysbench's cleanup
// drops sbtest1..--threads; a run here may have had more workers).
// Cleanup drops those that carry stampede's mark.
func bulkTables(ctx context.Context, db *sqlx.DB) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename ~ '^sbtest[0-9]+$' ORDER BY length(tablename), tablename`)
	if err != nil {
		return nil, fmt.Errorf("listing bulk_insert's tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
