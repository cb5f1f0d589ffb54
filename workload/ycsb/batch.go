package ycsb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/workload"
)

// The JDBC binding's batching and YCSB's exporters, properties of the
// workload (YCSB's Client reads the exporters).
const (
	propBatchSize    = "db.batchsize"
	propBatchUpdates = "jdbc.batchupdateapi"
	propExporter     = "exporter"
	propExportFile   = "exportfile"
	propLabel        = "label"
)

// batchedSeries is the series of an insert the JDBC binding only added to
// its batch (YCSB's Return=BATCHED_OK): it counts as an insert, as YCSB's
// [INSERT] counts it, with the latency of adding a row to a buffer.
const batchedSeries = "insert" + "-batched"

// YCSB's exporters (the exporter property), by class name.
const (
	ExporterText      = "site.ycsb.measurements.exporter.TextMeasurementsExporter"
	ExporterJSON      = "site.ycsb.measurements.exporter.JSONMeasurementsExporter"
	ExporterJSONArray = "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"
)

// maxParams is PostgreSQL's limit of parameters per statement.
const maxParams = 65535

// commandLineProperties are YCSB's Client's properties and the JDBC
// binding's connection, which the command line reads (see package
// cmdline/ycsb), not the workload: no warning for them.
var commandLineProperties = map[string]bool{
	"threadcount": true, "target": true, "status": true, "status.interval": true, "maxexecutiontime": true,
	"db": true, "dotransactions": true,
	"db.url": true, "db.user": true, "db.passwd": true, "db.driver": true,
	"postgrenosql.url": true, "postgrenosql.user": true, "postgrenosql.passwd": true, "postgrenosql.autocommit": true,
}

// isCommandLineProperty reports whether the command line reads key.
func isCommandLineProperty(key string) bool {
	return commandLineProperties[key] || (strings.HasPrefix(key, "jdbc.") && key != propBatchUpdates)
}

// batching holds the batching and export properties of a config.
type batching struct {
	// batchSize is db.batchsize: inserts per INSERT statement when
	// batchUpdates (jdbc.batchupdateapi) is on; 0 when off.
	batchSize int
	// exporter is the exporter property's class, exportFile the file
	// exportfile names ("" for stdout).
	exporter, exportFile string
	// statusLabel is YCSB's label (-l), which leads its status lines.
	statusLabel string
}

// parseBatching reads db.batchsize, jdbc.batchupdateapi, exporter and
// exportfile. As in YCSB's JDBC binding, inserts are batched only with
// jdbc.batchupdateapi=true, db.batchsize at a time; a batch size without
// the batch API (which in YCSB only groups commits under
// jdbc.autocommit=false) is a warning.
func (c *config) parseBatching(props map[string]prop) error {
	p := &propParser{props: props}
	size := p.int(propBatchSize)
	on := p.bool(propBatchUpdates)
	if p.err != nil {
		return p.err
	}
	from := props[propBatchSize].from
	switch {
	case on && size <= 0:
		return fmt.Errorf("%s=true needs %s of at least 1 (from %s): YCSB's JDBC binding would never send the inserts", propBatchUpdates, propBatchSize, fromOr(props, propBatchSize, "default"))
	case on:
		cols := int64(1 + c.fieldCount)
		if c.tenant != 0 {
			cols++
		}
		if size*cols > maxParams {
			return fmt.Errorf("%s %d (from %s) makes INSERTs of %d parameters, more than PostgreSQL's %d: use at most %d",
				propBatchSize, size, from, size*cols, maxParams, maxParams/cols)
		}
		c.batchSize = int(size)
	case size > 0:
		c.warnings = append(c.warnings, fmt.Sprintf("%s=%d (from %s) batches inserts only with -p %s=true, as in YCSB's JDBC binding: inserting one row per statement",
			propBatchSize, size, from, propBatchUpdates))
	}
	c.statusLabel = props[propLabel].value
	c.exporter = props[propExporter].value
	if rest, ok := strings.CutPrefix(c.exporter, "com.yahoo.ycsb."); ok {
		c.exporter = "site.ycsb." + rest // YCSB's classes before 0.14
	}
	switch c.exporter {
	case ExporterText, ExporterJSON, ExporterJSONArray:
	default:
		return fmt.Errorf("unknown exporter %q (from %s): use %s, %s or %s", c.exporter, props[propExporter].from,
			ExporterText, ExporterJSON, ExporterJSONArray)
	}
	if v, ok := props[propExportFile]; ok {
		if v.value == "" {
			return fmt.Errorf("empty exportfile (from %s): name the file YCSB's report goes to, or leave it out for stdout", v.from)
		}
		c.exportFile = v.value
	}
	return nil
}

// YCSBExport returns the exporter of YCSB's report (ExporterText,
// ExporterJSON or ExporterJSONArray) and the file it goes to ("" for
// stdout): the exporter and exportfile properties. --output-style ycsb
// writes the report so.
func (g *ycsb) YCSBExport() (exporter, file string) {
	if _, c := fromGenerator(g); c != nil {
		return c.exporter, c.exportFile
	}
	return ExporterText, ""
}

// YCSBLabel returns YCSB's label (the label property, -l), which YCSB
// puts before each status line.
func (g *ycsb) YCSBLabel() string {
	if _, c := fromGenerator(g); c != nil {
		return c.statusLabel
	}
	return ""
}

// batchedMeasure is YCSB's measure of the batched inserts' series.
func batchedMeasure(series string) (workload.YCSBMeasure, bool) {
	if series != batchedSeries {
		return workload.YCSBMeasure{}, false
	}
	return workload.YCSBMeasure{Latency: "INSERT", Counted: "INSERT", Status: "BATCHED_OK"}, true
}

// batchedFigure is the count of inserts batched, as YCSB's [INSERT],
// Return=BATCHED_OK, when there are any.
func batchedFigure(counts map[string]int64) []workload.Figure {
	n := counts[batchedSeries]
	if n == 0 {
		return nil
	}
	return []workload.Figure{{Name: "insert_return_batched_ok", Value: float64(n),
		Text: fmt.Sprintf("%d ([INSERT], Return=BATCHED_OK)", n)}}
}

// errBatched is insert's result when the row only joined the batch.
var errBatched = errors.New("batched")

// insertBatch is a worker's batch of inserts (jdbc.batchupdateapi): rows
// gathered until db.batchsize are sent as one multi-row INSERT. It is
// not safe for concurrent use.
type insertBatch struct {
	size int
	// cols is the number of parameters per row.
	cols int
	// sql is the INSERT of size rows.
	sql string
	// params are the rows' parameters, bufs their buffers (reused).
	params, bufs [][]byte
	// pending are the insert numbers of the rows gathered, acknowledged
	// once sent: reads choose only keys that exist.
	pending []int64
	rows    int
	dialect dialect.Dialect
}

// batchInsertSQL is the INSERT of n rows:
//
//	INSERT INTO t (ycsb_key, field0, ...) VALUES ($1, ...), ($12, ...), ...
func (c *config) batchInsertSQL(d dialect.Dialect, n int) string {
	cols := len(c.columns())
	var b strings.Builder
	b.WriteString("INSERT INTO " + c.tableName + " (" + strings.Join(c.columns(), ", ") + ") VALUES ")
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + dialect.Placeholders(d, 1+r*cols, cols) + ")")
	}
	return b.String()
}

func newInsertBatch(c *config, d dialect.Dialect) *insertBatch {
	cols := len(c.columns())
	b := &insertBatch{size: c.batchSize, cols: cols, sql: c.batchInsertSQL(d, c.batchSize), dialect: d}
	b.params = make([][]byte, c.batchSize*cols)
	b.bufs = make([][]byte, c.batchSize*cols)
	return b
}

// batchInsert adds a row under the next insert number to the batch, and
// sends the batch when it is full; errBatched says the row only joined
// it.
func (w *worker) batchInsert(ctx context.Context) error {
	b := w.batch
	i := w.inserts.Next()
	b.pending = append(b.pending, i)
	slot := b.rows * b.cols
	if w.t == 1 {
		b.bufs[slot] = strconv.AppendInt(b.bufs[slot][:0], int64(w.c.tenant), 10)
		b.params[slot] = b.bufs[slot]
	}
	k := slot + w.t
	b.bufs[k] = appendKeyName(b.bufs[k][:0], w.c.keyNumber(i), w.c.insertOrdered, w.c.zeroPadding)
	b.params[k] = b.bufs[k]
	for f := 0; f < w.c.fieldCount; f++ {
		k := slot + w.t + 1 + f
		n := int(w.lengths.next(w.r))
		if cap(b.bufs[k]) < n {
			b.bufs[k] = make([]byte, n)
		}
		b.bufs[k] = b.bufs[k][:n]
		w.vs.fill(b.bufs[k])
		b.params[k] = b.bufs[k]
	}
	b.rows++
	if b.rows < b.size {
		return errBatched
	}
	return w.flushBatch(ctx)
}

// flushBatch sends the rows gathered, in one INSERT, and acknowledges
// their insert numbers whether or not it succeeded (as insert does).
func (w *worker) flushBatch(ctx context.Context) error {
	b := w.batch
	if b == nil || b.rows == 0 {
		return nil
	}
	defer func() {
		for _, i := range b.pending {
			w.inserts.Acknowledge(i)
		}
		b.pending, b.rows = b.pending[:0], 0
	}()
	sql := b.sql
	if b.rows < b.size {
		sql = w.c.batchInsertSQL(b.dialect, b.rows)
	}
	params := b.params[:b.rows*b.cols]
	var err error
	if w.raw != nil {
		_, err = w.raw.QueryRaw(ctx, sql, params, nil)
	} else {
		args := make([]any, len(params))
		for i, p := range params {
			args[i] = p
		}
		if w.t == 1 {
			for r := 0; r < b.rows; r++ {
				args[r*b.cols] = w.c.tenantArg
			}
		}
		_, err = w.conn.Exec(ctx, sql, args...)
	}
	if err != nil {
		return fmt.Errorf("insert of a batch of %d rows: %w", b.rows, err)
	}
	return nil
}
