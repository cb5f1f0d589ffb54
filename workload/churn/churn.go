package churn

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/workload"
)

const details = `Schema churn: each loop (one per connection: --conns, 20 by default)
creates tables of random shapes (2-30 columns of random types, a random
primary key, random secondary indexes), inserts random numbers of rows of
realistic fake data (gofakeit: names, addresses, emails, phone numbers,
companies, free text, timestamps, numerics), and now and then alters a table
(adds a column or an index) or drops one, as the Greenplum field report's
script did for its cgroup test. On Greenplum each table also gets
WITH (appendoptimized=true|false) and DISTRIBUTED BY at random.

Everything is drawn from the run's --seed: loop w makes the same shapes in
the same order on every run with that seed. Every table churn makes carries
stampede's mark, and the rows and bytes inserted into it are kept in
churn_tables, written in the same transaction as the insert: check compares
every live table with it, cleanup drops churn's tables and only those (a
table renamed to keep it is the user's: cleanup and --fresh keep it).

Examples:
  stampede init churn 'postgresql://postgres@localhost:5432/churn'
  stampede run churn --duration 60s 'postgresql://postgres@localhost:5432/churn'
  stampede run churn --mix insert=70,create=15,alter=10,drop=5 --columns 5-50 --rows 100-5000 --max-tables 500 --duration 10m URL
  stampede check churn 'postgresql://postgres@localhost:5432/churn'
  stampede cleanup churn 'postgresql://postgres@localhost:5432/churn'`

var churnMeta = workload.Meta{
	Name:        "churn",
	Description: "schema churn: random tables of fake data created, filled, altered and dropped; check counts every table's rows",
	Details:     details,
	Version:     "1.0.0",
	New:         newChurn,
}

func init() {
	workload.Register(churnMeta)
}

// bookTable is the bookkeeping table: one row per table churn made, with
// the rows and bytes inserted into it (see bookSchema).
const bookTable = "churn_tables"

// bookSchema is the bookkeeping table's layout. first_shape is the
// table's layout as created, shape as the loop last left it
// (shape.String); dropped_at is set when
// the table was dropped (the row stays, for the run's totals).
const bookSchema = `(name TEXT PRIMARY KEY, worker INT NOT NULL, seq INT NOT NULL, first_shape TEXT NOT NULL, shape TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL DEFAULT now(), dropped_at TIMESTAMPTZ,
	rows BIGINT NOT NULL DEFAULT 0, bytes BIGINT NOT NULL DEFAULT 0)`

// Flag defaults and bounds.
const (
	defaultLoops     = 20
	defaultMaxTables = 1000
	defaultMix       = "insert=80,create=10,alter=5,drop=5"
	// maxColumns bounds --columns and the columns ALTER adds
	// (PostgreSQL's limit is 1600).
	maxColumns = 200
	// maxRowsPerInsert bounds --rows: that many rows of 200 columns go
	// in INSERTs of at most maxInsertBytes of text each.
	maxRowsPerInsert = 100000
	// maxIndexes bounds --indexes and the indexes ALTER adds per table.
	maxIndexes = 20
	// maxMaxTables bounds --max-tables: a million tables is far beyond
	// the 22k-database report's catalogs, and churn_tables keeps a row
	// for each.
	maxMaxTables = 1_000_000
)

// The operations, in QueryLoad.Ops.
const (
	opCreate = iota
	opInsert
	opAlter
	opDrop
	numOps
)

// opNames are the operations' names, indexed by op.
var opNames = [numOps]string{"create", "insert", "alter", "drop"}

// churn is the generator.
type churn struct {
	flags workload.Flags

	mix       string
	columns   string
	rows      string
	indexes   string
	maxTables int
	appendOpt string
	distrib   string
	// fresh drops churn's tables of earlier runs before the run starts.
	fresh bool
	// forceDrop is run's --force-drop (SetForceDrop): --fresh drops
	// what a user made on churn's tables with them.
	forceDrop bool
	// runLog is where --fresh says which tables it keeps (SetRunLog).
	runLog io.Writer

	// Parsed by validate.
	weights [numOps]int
	sz      sizes

	// m is the measurement of the run Ops last prepared (nil before).
	m *measure
	// merged are the clients' runs MergeClients merged, for
	// SetMergeInterval.
	merged []workload.ClientRun

	// client and clients are the run's share of several clients'
	// (PartitionClients; clients 0 for a run on its own).
	client, clients int
}

var (
	_ workload.Flagser        = (*churn)(nil)
	_ workload.Hookser        = (*churn)(nil)
	_ workload.Opser          = (*churn)(nil)
	_ workload.RunDefaulter   = (*churn)(nil)
	_ workload.Figurer        = (*churn)(nil)
	_ workload.Measurer       = (*churn)(nil)
	_ workload.RunRecorder    = (*churn)(nil)
	_ workload.SeriesRecorder = (*churn)(nil)

	_ workload.ClientPartitioner = (*churn)(nil)
)

// PartitionClients implements the ClientPartitioner interface: client
// index of count names its tables churn_cINDEX_W_N, so that two clients'
// loop W never take the same name, and keeps its share of --max-tables.
func (g *churn) PartitionClients(index, count int) error {
	g.client, g.clients = index, count
	return nil
}

// tablePrefix is the start of the names of the run's tables: churn_, or
// churn_cI_ for client I of several.
func (g *churn) tablePrefix() string {
	if g.clients > 1 {
		return "churn_c" + strconv.Itoa(g.client) + "_"
	}
	return "churn_"
}

func newChurn() workload.Generator {
	g := &churn{}
	fs := pflag.NewFlagSet("churn", pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	fs.StringVar(&g.mix, "mix", defaultMix,
		"weights of the loops' statements, KIND=WEIGHT for create, insert, alter (add a column or an index) and drop; a loop without a table creates one, one at its share of --max-tables drops one")
	fs.StringVar(&g.columns, "columns", "2-30", "columns of a new table, MIN-MAX (uniform), 1 to 200")
	fs.StringVar(&g.rows, "rows", "1-500", "rows of one INSERT, MIN-MAX (uniform), 1 to 100000")
	fs.StringVar(&g.indexes, "indexes", "0-3", "secondary indexes of a new table, MIN-MAX (uniform), 0 to 20")
	fs.IntVar(&g.maxTables, "max-tables", defaultMaxTables,
		"most of churn's tables alive at once in the database, those of earlier runs included; shared evenly by the loops, each of which needs room for one (1 to "+strconv.Itoa(maxMaxTables)+")")
	workload.SetFlagRange(fs, "max-tables", "1", strconv.Itoa(maxMaxTables))
	fs.StringVar(&g.appendOpt, "appendoptimized", "auto",
		"Greenplum's storage: random, true or false (WITH (appendoptimized=...)); auto is random on Greenplum and nothing elsewhere")
	fs.StringVar(&g.distrib, "distributed-by", "auto",
		"Greenplum's distribution: random (DISTRIBUTED BY a random part of the primary key), key (the whole key) or randomly (DISTRIBUTED RANDOMLY, no primary key); auto is random on Greenplum and nothing elsewhere")
	fs.BoolVar(&g.fresh, "fresh", false,
		"run: start from a fresh schema: drop churn's tables of earlier runs (those of its names that carry its mark, as cleanup does; one renamed is kept) and forget them in its bookkeeping before the run, so that its tables alive and database size are this run's alone (each step of a sweep: stampede sweep churn --fresh --io-write-bps none,5M)")
	for _, n := range []string{"mix", "columns", "rows", "indexes", "max-tables", "appendoptimized", "distributed-by"} {
		g.flags.Meta[n] = workload.FlagMeta{RuntimeOnly: true}
	}
	return g
}

// Meta implements the Generator interface.
func (*churn) Meta() workload.Meta { return churnMeta }

// Flags implements the Flagser interface.
func (g *churn) Flags() workload.Flags { return g.flags }

// RunDefaults implements the RunDefaulter interface: 20 loops, each on
// its own connection, as the field report's script kept 20 connections
// busy; --conns N alone makes N loops.
func (g *churn) RunDefaults() workload.RunDefaults {
	return workload.RunDefaults{Concurrency: defaultLoops, Conns: defaultLoops, WorkersFromConns: true}
}

// Tables implements the Generator interface: init creates the
// bookkeeping table, empty; the tables the loops make are the runs'
// (Hooks.RunTables).
func (g *churn) Tables() []workload.Table {
	return []workload.Table{{Name: bookTable, Schema: bookSchema,
		Columns: []string{"name", "worker", "seq", "first_shape", "shape", "created_at", "dropped_at", "rows", "bytes"}}}
}

var _ workload.RunTablesDropper = (*churn)(nil)

// DropsRunTables implements the RunTablesDropper interface: init --drop
// drops the tables of churn's runs with churn_tables, whose rows account
// for them.
func (g *churn) DropsRunTables() bool { return true }

var _ workload.RunCreator = (*churn)(nil)

// CreatesAtRun implements the RunCreator interface: every loop creates a
// table.
func (g *churn) CreatesAtRun() bool { return true }

// Hooks implements the Hookser interface.
func (g *churn) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PreRun:           g.preRun,
		CheckConsistency: g.check,
		RunTables:        madeTables,
	}
}

// validate parses and checks the flags.
func (g *churn) validate() error {
	w, err := parseMix(g.mix)
	if err != nil {
		return err
	}
	g.weights = w
	if g.sz.cols, err = parseRange("--columns", g.columns, 1, maxColumns); err != nil {
		return err
	}
	if g.sz.rows, err = parseRange("--rows", g.rows, 1, maxRowsPerInsert); err != nil {
		return err
	}
	if g.sz.indexes, err = parseRange("--indexes", g.indexes, 0, maxIndexes); err != nil {
		return err
	}
	if g.maxTables < 1 || g.maxTables > maxMaxTables {
		return fmt.Errorf("--max-tables %d is out of range: give a whole number from 1 to %d (at least one table per loop, --concurrency)", g.maxTables, maxMaxTables)
	}
	switch g.appendOpt {
	case "auto", "random", "true", "false":
	default:
		return fmt.Errorf("--appendoptimized %q: give auto, random, true or false", g.appendOpt)
	}
	switch g.distrib {
	case "auto", "random", "key", "randomly":
	default:
		return fmt.Errorf("--distributed-by %q: give auto, random, key or randomly", g.distrib)
	}
	g.sz.appendOpt, g.sz.distrib = g.appendOpt, g.distrib
	return nil
}

// parseMix parses --mix: KIND=WEIGHT pairs, comma-separated, each kind
// at most once, weights whole numbers from 0, create and insert's above
// 0 (a run that never creates or never inserts churns nothing).
func parseMix(s string) ([numOps]int, error) {
	var w [numOps]int
	var seen [numOps]bool
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		op := -1
		for i, n := range opNames {
			if n == k {
				op = i
			}
		}
		if !ok || op < 0 {
			return w, fmt.Errorf("--mix %q: write KIND=WEIGHT pairs, comma-separated, KIND one of create, insert, alter, drop (for example %s)", s, defaultMix)
		}
		if seen[op] {
			return w, fmt.Errorf("--mix %q: %s is given twice", s, k)
		}
		seen[op] = true
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			return w, fmt.Errorf("--mix %q: the weight of %s, %q, is not a whole number from 0 to 1000000", s, k, v)
		}
		w[op] = n
	}
	if w[opCreate] == 0 || w[opInsert] == 0 {
		return w, fmt.Errorf("--mix %q: create and insert need weights above 0 (leave out a kind for weight 0 only among alter and drop)", s)
	}
	return w, nil
}

// parseRange parses MIN-MAX (or one number N, meaning N-N) of flag within
// [lo, hi].
func parseRange(flag, s string, lo, hi int) ([2]int, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		b = a
	}
	x, err1 := strconv.Atoi(strings.TrimSpace(a))
	y, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return [2]int{}, fmt.Errorf("%s %q: give MIN-MAX (or N), whole numbers from %d to %d", flag, s, lo, hi)
	case x < lo || y > hi || x > y:
		return [2]int{}, fmt.Errorf("%s %q: out of range: give MIN-MAX with %d <= MIN <= MAX <= %d", flag, s, lo, hi)
	}
	return [2]int{x, y}, nil
}

// greenplumAsked returns the Greenplum options given on the command line
// (not left at auto), as they were written.
func (g *churn) greenplumAsked() []string {
	var out []string
	if g.appendOpt != "auto" {
		out = append(out, "--appendoptimized "+g.appendOpt)
	}
	if g.distrib != "auto" {
		out = append(out, "--distributed-by "+g.distrib)
	}
	return out
}

// errNotGreenplum is why Greenplum's options are refused elsewhere.
var errNotGreenplum = errors.New("Greenplum's table options on another server")

// checkDialect refuses, before anything is created (PreRun, Ops), Greenplum's options
// (--appendoptimized, --distributed-by) on a server that has none.
func (g *churn) checkDialect(d dialect.Dialect) error {
	asked := g.greenplumAsked()
	if _, ok := d.(dialect.TableOptioner); ok || len(asked) == 0 {
		return nil
	}
	return &inputError{err: fmt.Errorf("%s: %w: the server is %s, whose tables have no storage or distribution options; leave them out (auto: at random on Greenplum, none elsewhere)",
		strings.Join(asked, " "), errNotGreenplum, d.Name()), usage: true}
}

// inputError is an error of the command line found by Ops or PreRun (the
// loops' share of --max-tables, Greenplum's options on another server):
// it matches workload.ErrLoadMismatch, so that the run exits as bad input
// (exit 2), and reads as its own message. With usage set it is the run's
// flags alone, whatever the database holds, and matches workload.ErrUsage
// too: a fleet reports it as itself, not as a tenant to create again.
type inputError struct {
	err   error
	usage bool
}

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }
func (e *inputError) Is(target error) bool {
	return target == workload.ErrLoadMismatch || (e.usage && target == workload.ErrUsage)
}

// plural is "1 table" or "2 tables".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
