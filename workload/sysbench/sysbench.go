package sysbench

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// version identifies the initial data of every workload of the package.
const version = "1.0.0"

// script is one sysbench 1.0.20 Lua script as a stampede workload.
type script struct {
	name        string
	description string
	// about is the Details paragraph that says what an event does.
	about string
	feats features
	// uses marks the statement kinds the script prepares, as its
	// prepare_statements does, for c.
	uses func(c *config) [numKinds]bool
	// event runs one event; nil for bulk_insert, which has its own worker.
	event func(*worker, context.Context) error
	// rows is what runs leave of a table's row count.
	rows rowCheck
}

// Statement kinds shared by several scripts.
var (
	rangeKinds = []opKind{kSimpleRange, kSumRange, kOrderRange, kDistinctRange}
	writeKinds = []opKind{kIndexUpdate, kNonIndexUpdate, kDelete, kInsert}
)

// kinds returns a uses function marking the given kinds, plus the range
// selects when rangeSelects is set and range_selects is on, and BEGIN and
// COMMIT when trx is set and skip_trx is off.
func kinds(trx, rangeSelects bool, ks ...opKind) func(c *config) [numKinds]bool {
	return func(c *config) [numKinds]bool {
		var u [numKinds]bool
		for _, k := range ks {
			u[k] = true
		}
		if rangeSelects && c.rangeSelects {
			for _, k := range rangeKinds {
				u[k] = true
			}
		}
		if trx && !c.skipTrx {
			u[kBegin], u[kCommit] = true, true
		}
		return u
	}
}

// scripts are the workloads, one per script of sysbench 1.0.20.
var scripts = []*script{
	{
		name:        "oltp_point_select",
		description: "sysbench oltp_point_select: one primary-key SELECT per event",
		about:       "Each event is one point select, SELECT c FROM sbtestN WHERE id=$1, without a\ntransaction (the script forces point_selects to 1).",
		feats:       featOLTP | featRand,
		uses:        kinds(false, false, kPointSelect),
		event:       eventPointSelect,
	},
	{
		name:        "oltp_read_only",
		description: "sysbench oltp_read_only: transactions of 10 point and 4 range SELECTs",
		about: "Each event is a transaction: BEGIN, point_selects point selects, then (with\n" +
			"range_selects) simple_ranges, sum_ranges, order_ranges and distinct_ranges\n" +
			"range selects of range_size ids, COMMIT.",
		feats: featOLTP | featRand,
		uses:  kinds(true, true, kPointSelect),
		event: eventReadOnly,
	},
	{
		name:        "oltp_read_write",
		description: "sysbench oltp_read_write: transactions of 14 SELECTs, 2 UPDATEs, a DELETE and an INSERT",
		about: "Each event is a transaction: BEGIN, point_selects point selects, then (with\n" +
			"range_selects) simple_ranges, sum_ranges, order_ranges and distinct_ranges\n" +
			"range selects of range_size ids, index_updates updates of k,\n" +
			"non_index_updates updates of c, delete_inserts deletes each followed by the\n" +
			"insert of the same id, COMMIT.",
		feats: featOLTP | featRand,
		uses:  kinds(true, true, append([]opKind{kPointSelect}, writeKinds...)...),
		event: eventReadWrite,
	},
	{
		name:        "oltp_write_only",
		description: "sysbench oltp_write_only: transactions of 2 UPDATEs, a DELETE and an INSERT",
		about: "Each event is a transaction: BEGIN, index_updates updates of k,\n" +
			"non_index_updates updates of c, delete_inserts deletes each followed by the\n" +
			"insert of the same id, COMMIT.",
		feats: featOLTP | featRand,
		uses:  kinds(true, false, writeKinds...),
		event: eventWriteOnly,
	},
	{
		name:        "oltp_insert",
		description: "sysbench oltp_insert: one INSERT per event",
		about: "Each event is one INSERT of a random k, c and pad into a random table: with\n" +
			"--auto_inc (the default) the SERIAL id numbers it; with --auto_inc=off the\n" +
			"tables start empty and ids are unique random INTEGERs (sysbench.rand.unique).",
		feats: featOLTP | featRand,
		uses:  kinds(false, false, kInsert),
		event: eventInsert,
		rows:  rowsGrow,
	},
	{
		name:        "oltp_delete",
		description: "sysbench oltp_delete: one DELETE by primary key per event",
		about:       "Each event is one DELETE FROM sbtestN WHERE id=$1 (nothing re-inserts the\nrows: the tables shrink).",
		feats:       featOLTP | featRand,
		uses:        kinds(false, false, kDelete),
		event:       eventDelete,
		rows:        rowsShrink,
	},
	{
		name:        "oltp_update_index",
		description: "sysbench oltp_update_index: one UPDATE of the indexed column k per event",
		about:       "Each event is index_updates (1) UPDATE sbtestN SET k=k+1 WHERE id=$1, without\na transaction.",
		feats:       featOLTP | featRand,
		uses:        kinds(false, false, kIndexUpdate),
		event:       eventUpdateIndex,
	},
	{
		name:        "oltp_update_non_index",
		description: "sysbench oltp_update_non_index: one UPDATE of the non-indexed column c per event",
		about:       "Each event is non_index_updates (1) UPDATE sbtestN SET c=$1 WHERE id=$2 with a\nnew random c, without a transaction.",
		feats:       featOLTP | featRand,
		uses:        kinds(false, false, kNonIndexUpdate),
		event:       eventUpdateNonIndex,
	},
	{
		name:        "bulk_insert",
		description: "sysbench bulk_insert: multi-row INSERTs of sequential rows, one table per worker",
		about: "Worker w appends rows (1,1), (2,2), ... to its own table sbtest<w+1> (id, k),\n" +
			"one row per event, in multi-row INSERTs of up to 512 KiB of text. The run\n" +
			"creates the tables it lacks (init creates none: their number is the run's\n" +
			"worker count) and continues from their largest id. No transactions, no\n" +
			"options of its own.",
		uses: func(*config) [numKinds]bool { return [numKinds]bool{kInsert: true} },
	},
	{
		name:        "select_random_points",
		description: "sysbench select_random_points: SELECTs of the rows with 10 random k values",
		about: "Each event is one SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...) of\n" +
			"random_points values. Worker w of W draws them from its own segment of k\n" +
			"values, [w, w+1] x table_size/W, so workers do not overlap. One table only.",
		feats: featOLTP | featRand | featRandomPoints,
		uses:  kinds(false, false, kRandomPoints),
		event: eventRandomPoints,
	},
	{
		name:        "select_random_ranges",
		description: "sysbench select_random_ranges: COUNTs over 10 random k ranges",
		about: "Each event is one SELECT count(k) FROM sbtest1 WHERE k BETWEEN $1 AND $2 OR ...\n" +
			"of number_of_ranges ranges [v, v+delta]. Worker w of W draws each v from its\n" +
			"own segment of k values, [w, w+1] x table_size/W. One table only.",
		feats: featOLTP | featRand | featRandomRanges,
		uses:  kinds(false, false, kRandomRanges),
		event: eventRandomRanges,
	},
}

// metas are the scripts' registrations, by name.
var metas = map[string]workload.Meta{}

func init() {
	for _, s := range scripts {
		m := workload.Meta{
			Name:        s.name,
			Description: s.description,
			Details:     details(s),
			Version:     version,
			Database:    "sbtest", // sysbench's --pgsql-db default
			NoAnalyze:   true,     // sysbench's prepare does not ANALYZE
		}
		m.New = func() workload.Generator {
			g := newGenerator(s, m)
			if s.event == nil {
				return bulkGenerator{g}
			}
			return g
		}
		metas[s.name] = m
		workload.Register(m)
	}
}

// details returns a script's help text with examples.
func details(s *script) string {
	var b strings.Builder
	b.WriteString("The sysbench 1.0.20 script " + s.name + ".lua, with its options, their\n" +
		"underscore spelling and defaults, its statements and their order.\n\n")
	b.WriteString(s.about + "\n\n")
	url := "'postgresql://postgres@localhost/sbtest'"
	if s.name == "bulk_insert" {
		b.WriteString("Examples:\n")
		fmt.Fprintf(&b, "  stampede run %s --threads=8 --time=60 %s\n", s.name, url)
		fmt.Fprintf(&b, "  stampede %s --threads=8 --time=60 run    (sysbench syntax)\n", s.name)
		return b.String()
	}
	b.WriteString("Tables sbtest1..N (id, k, c CHAR(120), pad CHAR(60)) are loaded with ids\n" +
		"1..table_size, k from the --rand-type distribution, and random c and pad of\n" +
		"11-digit groups; the primary key and k_N on k are built after the load.\n" +
		"Events pick ids with --rand-type (default special). Deadlocks, serialization\n" +
		"failures and duplicate keys roll back and restart the event (counted as\n" +
		"ignored errors), as sysbench's pgsql driver does.\n\n")
	tables := "--tables=10 --table_size=100000"
	if s.feats&(featRandomPoints|featRandomRanges) != 0 {
		tables = "--table_size=100000"
	}
	b.WriteString("Examples:\n")
	fmt.Fprintf(&b, "  stampede init %s %s %s\n", s.name, tables, url)
	fmt.Fprintf(&b, "  stampede run %s %s --threads=8 --time=60 %s\n", s.name, tables, url)
	fmt.Fprintf(&b, "  stampede check %s %s %s\n", s.name, tables, url)
	fmt.Fprintf(&b, "  stampede %s %s prepare    (sysbench syntax; then run, cleanup)\n", s.name, tables)
	return b.String()
}

// generator is a workload of one script.
type generator struct {
	s     *script
	meta  workload.Meta
	flags workload.Flags
	cfg   config
	seed  uint64
	// share is the share of a split load, index and count (LoadShare);
	// count 0 for the whole data.
	share [2]int
}

var (
	_ workload.Flagser = (*generator)(nil)
	_ workload.Hookser = (*generator)(nil)
	_ workload.Opser   = (*generator)(nil)
	_ workload.Seeder  = (*generator)(nil)

	_ workload.TenantColumner = (*generator)(nil)
)

func newGenerator(s *script, m workload.Meta) *generator {
	g := &generator{s: s, meta: m, cfg: defaultConfig(), seed: 1}
	fs := pflag.NewFlagSet(s.name, pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	defineFlags(fs, g.flags.Meta, &g.cfg, s.feats)
	return g
}

// Meta implements the Generator interface.
func (g *generator) Meta() workload.Meta { return g.meta }

// Flags implements the Flagser interface.
func (g *generator) Flags() workload.Flags { return g.flags }

// SetSeed implements the Seeder interface: batch b of table n draws its
// values from the stream (seed, n<<32 | b).
func (g *generator) SetSeed(seed uint64) { g.seed = seed }

// Hooks implements the Hookser interface.
func (g *generator) Hooks() workload.Hooks {
	if g.s.event == nil { // bulk_insert: Ops creates the tables
		return workload.Hooks{Validate: g.validate, RunTables: bulkTables, PrepareRun: prepareBulkTables,
			NoChecks: "bulk_insert has no consistency checks (sysbench's bulk_insert has none either): nothing to check"}
	}
	return workload.Hooks{
		Validate:         g.validate,
		PostLoad:         g.postLoad,
		PreRun:           g.preRun,
		CheckConsistency: g.checkConsistency,
	}
}

// validate checks the options.
func (g *generator) validate() error {
	if g.s.event == nil && g.cfg.tenant != 0 {
		return fmt.Errorf("workload %s cannot share tables between tenants (--tenant-mode column): its run creates one table per worker; use --tenant-mode database or schema", g.s.name)
	}
	return g.cfg.validate(g.s.name, g.s.feats)
}

// Tables implements the Generator interface: sbtest1..tables, or none
// for bulk_insert (whose tables, one per worker, the run creates). It
// returns nil when the options are invalid (Validate says why). The
// schema is PostgreSQL's, the only dialect sqlx opens: Tables has no
// database to ask (see oltpSchema for the MySQL text).
func (g *generator) Tables() []workload.Table {
	if g.s.event == nil || g.validate() != nil {
		return nil
	}
	return g.tables(dialect.Postgres{})
}

// tables returns the OLTP tables in d's SQL.
func (g *generator) tables(d dialect.Dialect) []workload.Table {
	rows := g.cfg.tableSize
	if g.s.name == "oltp_insert" && !g.cfg.autoInc {
		// As oltp_insert.lua's prepare: client-chosen ids would collide
		// with loaded ones.
		rows = 0
	}
	schema := oltpSchema(d, &g.cfg)
	tabs := make([]workload.Table, g.cfg.tables)
	for i := range tabs {
		n := i + 1
		tabs[i] = workload.Table{
			Name:        tableName(n),
			Schema:      schema,
			Columns:     g.cfg.columns(),
			Indexes:     secondaryIndexes(d, &g.cfg, n),
			InitialRows: g.initialRows(n, rows),
		}
	}
	g.shareTables(tabs)
	return tabs
}

// postLoad moves the SERIAL sequences past the loaded ids (see
// serialSync).
func (g *generator) postLoad(ctx context.Context, db *sqlx.DB) error {
	if !g.cfg.autoInc || db.Null() {
		return nil
	}
	for n := 1; n <= g.cfg.tables; n++ {
		if q := serialSync(db.Dialect(), n); q != "" {
			if _, err := db.Exec(ctx, q); err != nil {
				return fmt.Errorf("setting the id sequence of %s: %w", tableName(n), err)
			}
		}
	}
	return nil
}

// Ops implements the Opser interface: one worker per worker, each with
// its own connection (db.Conn(w, true)), stream (run seed, 1<<63 | w) and
// Recorder (given by Attach). QueryLoad.Ops are "transaction", the event,
// then the statement kinds the script prepares, in the order point_select,
// simple_range, sum_range, order_range, distinct_range, random_points,
// random_ranges, index_update, non_index_update, delete, insert, begin,
// commit.
func (g *generator) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if err := g.validate(); err != nil {
		return workload.QueryLoad{}, err
	}
	if oc.Concurrency < 1 {
		return workload.QueryLoad{}, fmt.Errorf("%s needs at least 1 worker", g.s.name)
	}
	if g.s.event == nil {
		return g.bulkOps(ctx, db, oc)
	}
	layout, workers := g.workers(db.Dialect(), oc, db.TextStatements(), func(i int) sqlx.Conn { return db.Conn(i, true) })
	ql := workload.QueryLoad{Ops: layout.names, Classes: layout.classes, Workers: make([]workload.Worker, len(workers))}
	for i, w := range workers {
		ql.Workers[i] = w.run
	}
	ql.Attach = func(i int, rec workload.Recorder) { workers[i].rec = rec }
	ql.Close = func(context.Context) error {
		for _, w := range workers {
			w.conn.Release()
		}
		return nil
	}
	return ql, nil
}

// workers returns the operation layout and oc.Concurrency workers, worker
// i on the connection conn(i); text says the connections send statements
// as text (sqlx.Options.TextStatements).
func (g *generator) workers(d dialect.Dialect, oc workload.OpsConfig, text bool, conn func(i int) sqlx.Conn) (*opLayout, []*worker) {
	layout := newOpLayout(g.s.uses(&g.cfg))
	stmts := make([]tableStatements, g.cfg.tables)
	for i := range stmts {
		stmts[i] = newTableStatements(d, &g.cfg, i+1)
	}
	var unique *uniqueIDs
	if g.s.name == "oltp_insert" && !g.cfg.autoInc {
		unique = newUniqueIDs(randgen.New(oc.Seed, uniqueStream))
	}
	workers := make([]*worker, oc.Concurrency)
	for i := range workers {
		w := newWorker(g, stmts, &layout.index, conn(i), randgen.New(oc.Seed, workerStream(i)))
		w.unique = unique
		if text {
			w.useText()
		}
		switch g.s.feats & (featRandomPoints | featRandomRanges) {
		case featRandomPoints:
			w.setSegment(g.segment(i, oc.Concurrency), randomPointsStatement(d, &g.cfg, g.cfg.randomPoints), g.cfg.randomPoints)
		case featRandomRanges:
			n := g.cfg.numberOfRanges
			w.setSegment(g.segment(i, oc.Concurrency), randomRangesStatement(d, &g.cfg, n), 2*n)
		}
		workers[i] = w
	}
	return &layout, workers
}

// segment returns the distribution of worker w of n's k values in
// select_random_*: sb_rand(rmin, rmax) with rlen = table_size / threads,
// rmin = rlen × w and rmax = rmin + rlen, computed in floating point and
// truncated to integers as sysbench's Lua passes them to C.
func (g *generator) segment(w, n int) randgen.IntGenerator {
	rlen := float64(g.cfg.tableSize) / float64(n)
	rmin := rlen * float64(w)
	rmax := rmin + rlen
	return g.cfg.ids(int64(math.Trunc(rmin)), int64(math.Trunc(rmax)))
}

var _ workload.WorkerSizer = (*generator)(nil)

// WorkerBytes implements the WorkerSizer interface: select_random_*'s
// points per worker.
func (g *generator) WorkerBytes() (int64, string) { return g.cfg.workerBytes(g.s.feats) }

var _ workload.DataSpecer = (*generator)(nil)

// DataKey implements the DataSpecer interface: the OLTP scripts share
// their tables, bulk_insert has its own.
func (g *generator) DataKey() string {
	if g.s.feats&featOLTP != 0 {
		return "sysbench-oltp"
	}
	return "sysbench-" + g.s.name
}

// DataSettings implements the DataSpecer interface: the number of tables
// and their size, which every OLTP event's ids depend on. (The --rand-*
// options shape k at prepare, but a run may draw ids differently, as
// sysbench allows.)
func (g *generator) DataSettings() []workload.DataSetting {
	var out []workload.DataSetting
	for _, s := range workload.FlagSettings(g.flags) {
		if s.Name == "tables" || s.Name == "table_size" {
			// Fewer tables, or fewer rows of each, than prepared is a
			// subset of the data, as sysbench allows.
			given := s.Value
			s.Fits = func(loaded string) bool {
				g, err1 := strconv.Atoi(given)
				l, err2 := strconv.Atoi(loaded)
				return err1 == nil && err2 == nil && g <= l
			}
			s.Tables = s.Name == "tables" // sbtest1..N
			out = append(out, s)
		}
	}
	return out
}
