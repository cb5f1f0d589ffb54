package pgbench

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

const details = `pgbench's four tables and their data, as ` + "`pgbench -i`" + ` (PostgreSQL 15) builds them:
pgbench_branches (1 row per --scale), pgbench_tellers (10), pgbench_accounts
(100,000) and an empty pgbench_history, with pgbench's column types, filler
columns and zero balances. --init-steps takes pgbench's -I letters (d drop, t
create, g client-side data, G server-side data, v vacuum, p primary keys, f
foreign keys); d drops only what stampede made (--force-drop for
tables pgbench made). Client-side data (g) is sent as pgbench sends it, in
one transaction that truncates the tables and copies the accounts WITH
(FREEZE), so --concurrency does not apply: one stream. check verifies the row counts and the invariant of pgbench's
tpcb-like transactions: sum(abalance) = sum(bbalance) = sum(tbalance) =
sum(delta). --as-pgbench is pgbench -i itself (what stampede pgbench -i runs):
pgbench's steps in any order and subset, its lines and the server's
NOTICEs on stderr, and no record of stampede's load.

Examples:
  stampede init pgbench --scale 5 'postgresql://postgres@localhost:5432/pgbench'
  stampede init pgbench --scale 100 --partitions 8 --partition-method hash 'postgresql://postgres@localhost:5432/pgbench'
  stampede init pgbench --scale 10 --init-steps dtGvp --foreign-keys --fillfactor 80 'postgresql://postgres@localhost:5432/pgbench'
  stampede init pgbench --as-pgbench --scale 5 --init-steps vp 'postgresql://postgres@localhost:5432/pgbench'
  stampede check pgbench 'postgresql://postgres@localhost:5432/pgbench'`

var pgbenchMeta = workload.Meta{
	Name:        "pgbench",
	Description: "pgbench's tables and data (pgbench -i): branches, tellers, accounts, history; check verifies the tpcb-like balances",
	Details:     details,
	Version:     "1.0.0",
	// pgbench analyzes in its v step only (VACUUM ANALYZE).
	NoAnalyze: true,
	New:       newGenerator,
}

func init() {
	workload.Register(pgbenchMeta)
}

// pgbench's sizes per unit of scale.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100000
)

// scale32BitThreshold is the scale from which pgbench makes aid a bigint
// (pgbench's SCALE_32BIT_THRESHOLD: 100,000 x 21,475 passes 2^31).
const scale32BitThreshold = 20000

// DefaultSteps are pgbench's default -I steps.
const DefaultSteps = "dtgvp"

// AllSteps are the step letters pgbench knows.
const AllSteps = "dtgGvpf"

// The tables, in the order stampede creates them: each after those it
// may reference, so that the loader's drops (in reverse) and cleanup's
// meet no foreign key.
const (
	Branches = "pgbench_branches"
	Accounts = "pgbench_accounts"
	Tellers  = "pgbench_tellers"
	History  = "pgbench_history"
)

// generator is the pgbench workload.
type generator struct {
	flags workload.Flags

	scale           int
	steps           string
	fillfactor      int
	foreignKeys     bool
	noVacuum        bool
	partitions      int
	method          string
	unlogged        bool
	tablespace      string
	indexTablespace string
	// asPgbench is the pgbench form's init (see LoadItself).
	asPgbench bool
	// forceDrop lets the pgbench form's -i drop pgbench's tables that
	// stampede did not make (--force-drop).
	forceDrop bool

	log *InitLog
}

var (
	_ workload.Flagser     = (*generator)(nil)
	_ workload.Hookser     = (*generator)(nil)
	_ workload.DataSpecer  = (*generator)(nil)
	_ workload.DropFirster = (*generator)(nil)
)

func newGenerator() workload.Generator {
	g := &generator{}
	fs := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	fs.IntVar(&g.scale, "scale", 1, "scale factor (pgbench's -s): 100,000 accounts, 10 tellers and 1 branch per unit")
	fs.StringVar(&g.steps, "init-steps", DefaultSteps,
		"pgbench's -I steps, in order: d drop (stampede's tables only), t create, g client-side data, G server-side data, v vacuum analyze, p primary keys, f foreign keys")
	fs.IntVar(&g.fillfactor, "fillfactor", 100, "fillfactor of pgbench_accounts, _branches and _tellers (pgbench's -F), 10..100")
	fs.BoolVar(&g.foreignKeys, "foreign-keys", false, "create the foreign keys between the tables (adds step f)")
	fs.BoolVar(&g.noVacuum, "no-vacuum", false, "skip the vacuum (removes step v; pgbench's -n with -i)")
	fs.IntVar(&g.partitions, "partitions", 0, "partition pgbench_accounts into this many partitions (0: none)")
	fs.StringVar(&g.method, "partition-method", "", "how --partitions partitions pgbench_accounts: range (the default) or hash")
	fs.BoolVar(&g.unlogged, "unlogged-tables", false, "create the tables (and partitions) UNLOGGED")
	fs.StringVar(&g.tablespace, "tablespace", "", "create the tables in this tablespace")
	fs.StringVar(&g.indexTablespace, "index-tablespace", "", "create the primary keys' indexes in this tablespace")
	fs.BoolVar(&g.asPgbench, "as-pgbench", false, "pgbench -i's own init (stampede pgbench -i gives it): pgbench's steps in any order, pgbench -i's lines on stderr, its four tables dropped where stampede made them (all of them with --force-drop), nothing of stampede's left in the database but their mark")
	for _, name := range []string{"as-pgbench", "init-steps", "fillfactor", "foreign-keys", "no-vacuum", "partitions",
		"partition-method", "unlogged-tables", "tablespace", "index-tablespace"} {
		g.flags.Meta[name] = workload.FlagMeta{LoadOnly: true}
	}
	return g
}

// Meta implements the Generator interface.
func (*generator) Meta() workload.Meta { return pgbenchMeta }

// Flags implements the Flagser interface.
func (g *generator) Flags() workload.Flags { return g.flags }

// Hooks implements the Hookser interface.
func (g *generator) Hooks() workload.Hooks {
	return workload.Hooks{
		Validate:         g.validate,
		PreLoad:          g.preLoad,
		PostLoad:         g.postLoad,
		CheckConsistency: g.check,
	}
}

// DataKey implements the DataSpecer interface.
func (*generator) DataKey() string { return "pgbench" }

// DataSettings implements the DataSpecer interface: the scale, which the
// row counts (and runs' key ranges) depend on.
func (g *generator) DataSettings() []workload.DataSetting {
	var out []workload.DataSetting
	for _, s := range workload.FlagSettings(g.flags) {
		if s.Name == "scale" {
			out = append(out, s)
		}
	}
	return out
}

// SetInitLog has the init that follows write pgbench's lines to l (see
// InitLog); nil writes none.
func (g *generator) SetInitLog(l *InitLog) { g.log = l }

// InitLogger is the pgbench generator's way to write pgbench's lines.
type InitLogger interface {
	workload.Generator
	// SetInitLog has the next init write pgbench's lines to l.
	SetInitLog(l *InitLog)
	// Steps returns the steps init takes, in order (--init-steps with
	// --foreign-keys and --no-vacuum applied).
	Steps() string
}

var _ InitLogger = (*generator)(nil)

// DropsFirst reports whether the steps begin by dropping the tables
// (step d): init then drops what stampede made, as --drop does.
func (g *generator) DropsFirst() bool { return strings.HasPrefix(g.Steps(), "d") }

// SingleStream implements workload.SingleStreamer: step g sends the data
// in one transaction (COPY ... FREEZE), as pgbench does.
func (g *generator) SingleStream() bool { return true }

// Steps implements InitLogger.
func (g *generator) Steps() string {
	s := strings.ReplaceAll(g.steps, " ", "")
	if g.foreignKeys && !strings.Contains(s, "f") {
		s += "f"
	}
	if g.noVacuum {
		s = strings.ReplaceAll(s, "v", "")
	}
	return s
}

// partitionMethod is the method of partitioning, "" for none.
func (g *generator) partitionMethod() string {
	if g.partitions == 0 {
		return ""
	}
	if g.method == "" {
		return "range"
	}
	return g.method
}

// validate checks the flags, as pgbench checks its options, in one line
// each.
// maxScale bounds --scale: 100 billion accounts, about 15 TB, weeks of
// loading; more is a typo.
const maxScale = 1_000_000

func (g *generator) validate() error {
	g.method = strings.ToLower(g.method) // pgbench takes HASH and Range too
	switch {
	case g.scale < 1:
		return fmt.Errorf("--scale must be at least 1, not %d", g.scale)
	case g.scale > maxScale:
		return fmt.Errorf("--scale %d is %d billion accounts, more than any server holds (pgbench's data is about 15 GB per 1,000 of scale): give at most %d", g.scale, int64(g.scale)*accountsPerScale/1e9, maxScale)
	case int64(g.partitions) > min(math.MaxInt32, int64(g.scale)*accountsPerScale):
		return fmt.Errorf("--partitions %d is more than the accounts (%d) or pgbench's limit (%d): give fewer", g.partitions, int64(g.scale)*accountsPerScale, math.MaxInt32)
	case g.fillfactor < 10 || g.fillfactor > 100:
		return fmt.Errorf("--fillfactor must be in range 10..100, not %d", g.fillfactor)
	case g.partitions < 0:
		return fmt.Errorf("--partitions must be 0 (none) or more, not %d", g.partitions)
	case g.method != "" && g.method != "range" && g.method != "hash":
		return fmt.Errorf("--partition-method must be range or hash, not %q", g.method)
	case g.method != "" && g.partitions == 0:
		return fmt.Errorf("--partition-method %s needs --partitions greater than 0 (pgbench refuses it too)", g.method)
	}
	if g.asPgbench {
		return checkPgbenchSteps(strings.ReplaceAll(g.steps, " ", ""))
	}
	_, err := ParseSteps(g.Steps())
	return err
}

// Plan is what --init-steps asks for: Before are the steps after the
// tables' creation and before the data, Data the data step (g, G or
// none), After the steps that follow it.
type Plan struct {
	Drop          bool
	Before, After string
	Data          byte
}

// ParseSteps checks steps (pgbench's -I letters) and splits them around
// the data step; its error is one line that names the letter at fault.
func ParseSteps(steps string) (Plan, error) {
	var p Plan
	seen := map[rune]bool{}
	created := false
	for i, c := range steps {
		if !strings.ContainsRune(AllSteps, c) {
			return p, fmt.Errorf("--init-steps %q: unknown step %q at position %d: the steps are d (drop), t (create tables), g (client-side data), G (server-side data), v (vacuum), p (primary keys), f (foreign keys)",
				steps, c, i+1)
		}
		if seen[c] {
			return p, fmt.Errorf("--init-steps %q: step %c is given twice: give each step once", steps, c)
		}
		seen[c] = true
		switch {
		case c == 'd':
			if created {
				return p, fmt.Errorf("--init-steps %q: d (drop) comes after t: stampede drops before it creates the tables; put d first", steps)
			}
			p.Drop = true
		case c == 't':
			created = true
		case !created:
			return p, fmt.Errorf("--init-steps %q: %c comes before t: stampede creates the tables itself, so only d may come before t", steps, c)
		case c == 'g' || c == 'G':
			if p.Data != 0 {
				return p, fmt.Errorf("--init-steps %q: g and G both generate the data: give one of them", steps)
			}
			p.Data = byte(c)
		case p.Data == 0:
			p.Before += string(c)
		default:
			p.After += string(c)
		}
	}
	if !created {
		return p, fmt.Errorf("--init-steps %q has no t: stampede init creates the tables it loads; include t (pgbench's default is %s)", steps, DefaultSteps)
	}
	return p, nil
}

// aidType is the type of aid at the scale.
func (g *generator) aidType() string {
	if g.scale >= scale32BitThreshold {
		return "bigint"
	}
	return "int"
}

// Tables implements the Generator interface: pgbench's four tables,
// created as pgbench creates them (but for UNLOGGED, which preLoad sets
// on the empty tables, as the loader creates tables with CREATE TABLE).
func (g *generator) Tables() []workload.Table {
	with := fmt.Sprintf(" with (fillfactor=%d)", g.fillfactor)
	ts := ""
	if g.tablespace != "" {
		ts = " tablespace " + quoteIdent(g.tablespace)
	}
	accountsOpts := with
	if m := g.partitionMethod(); m != "" {
		accountsOpts = " partition by " + m + " (aid)"
	}
	// pgbench pads int to bigint's width ("aid    int"): its statements'
	// text, which an error repeats, as pgbench's.
	aid := fmt.Sprintf("%6s", g.aidType())
	plan, _ := ParseSteps(g.Steps())
	tables := []workload.Table{
		{Name: Branches, Schema: "(bid int not null,bbalance int,filler char(88))" + with + ts,
			Columns: []string{"bid", "bbalance", "filler"}},
		{Name: Accounts, Schema: "(aid " + aid + " not null,bid int,abalance int,filler char(84))" + accountsOpts + ts,
			Columns: []string{"aid", "bid", "abalance", "filler"}},
		{Name: Tellers, Schema: "(tid int not null,bid int,tbalance int,filler char(84))" + with + ts,
			Columns: []string{"tid", "bid", "tbalance", "filler"}},
		{Name: History, Schema: "(tid int,bid int,aid " + aid + ",delta int,mtime timestamp,filler char(22))" + ts,
			Columns: []string{"tid", "bid", "aid", "delta", "mtime", "filler"}},
	}
	// The data is no batches of the loader's: steps g and G make it in
	// hooks (see clientSide, serverSide). The rows are counted here for
	// init's lines.
	if plan.Data != 0 {
		tables[0].InitialRows.NumRows = int64(g.scale) * branchesPerScale
		tables[1].InitialRows.NumRows = g.accounts()
		tables[2].InitialRows.NumRows = int64(g.scale) * tellersPerScale
	}
	return tables
}

// quoteIdent quotes a PostgreSQL identifier (PQescapeIdentifier's form).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// preLoad finishes step t (UNLOGGED, the partitions) and takes the steps
// between t and the data.
func (g *generator) preLoad(ctx context.Context, db *sqlx.DB) error {
	plan, err := ParseSteps(g.Steps())
	if err != nil {
		return err
	}
	if err := g.finishCreate(ctx, db); err != nil {
		return err
	}
	for _, s := range plan.Before {
		if err := g.step(ctx, db, byte(s)); err != nil {
			return err
		}
	}
	return nil
}

// postLoad takes the server-side data step (G) and the steps after the
// data, then ends pgbench's lines.
func (g *generator) postLoad(ctx context.Context, db *sqlx.DB) error {
	plan, err := ParseSteps(g.Steps())
	if err != nil {
		return err
	}
	steps := plan.After
	if plan.Data != 0 {
		steps = string(plan.Data) + steps
	}
	for _, s := range steps {
		if err := g.step(ctx, db, byte(s)); err != nil {
			return err
		}
	}
	g.log.end()
	return nil
}

// finishCreate makes the tables UNLOGGED when asked (all four and the
// partitions, as pgbench 15 does), and creates and marks the partitions.
// ALTER TABLE ... SET UNLOGGED leaves a partitioned table as it is, so a
// partitioned pgbench_accounts, just created and empty, is created again
// UNLOGGED.
func (g *generator) finishCreate(ctx context.Context, db *sqlx.DB) error {
	method := g.partitionMethod()
	for _, t := range g.Tables() {
		switch {
		case !g.unlogged:
		case t.Name == Accounts && method != "":
			if _, err := db.Exec(ctx, "drop table "+t.Name); err != nil {
				return fmt.Errorf("making %s unlogged: %w", t.Name, err)
			}
			if err := workload.CreateMarkedTable(ctx, db, "create unlogged table "+t.Name+t.Schema, t.Name, workload.InitTableMark(g)); err != nil {
				return fmt.Errorf("making %s unlogged: %w", t.Name, err)
			}
		default:
			if _, err := db.Exec(ctx, "alter table "+t.Name+" set unlogged"); err != nil {
				return fmt.Errorf("making %s unlogged: %w", t.Name, err)
			}
		}
	}
	if method == "" {
		return nil
	}
	g.log.line(fmt.Sprintf("creating %d partitions...", g.partitions))
	for p := 1; p <= g.partitions; p++ {
		name := fmt.Sprintf("%s_%d", Accounts, p)
		if err := workload.CreateMarkedTable(ctx, db, g.partitionDDL(p), name, workload.InitTableMark(g)); err != nil {
			return fmt.Errorf("creating partition %s: %w", name, err)
		}
	}
	return nil
}

// partitionDDL is the statement that creates partition p (from 1), with
// pgbench's bounds: ranges of ceil(accounts/partitions) aids, open at
// both ends, or hash remainders p-1.
func (g *generator) partitionDDL(p int) string {
	unlogged := ""
	if g.unlogged {
		unlogged = " unlogged"
	}
	var bounds string
	if g.partitionMethod() == "range" {
		size := (g.accounts() + int64(g.partitions) - 1) / int64(g.partitions)
		lo, hi := "minvalue", "maxvalue"
		if p > 1 {
			lo = fmt.Sprint(int64(p-1)*size + 1)
		}
		if p < g.partitions {
			hi = fmt.Sprint(int64(p)*size + 1)
		}
		bounds = "for values from (" + lo + ") to (" + hi + ")"
	} else {
		bounds = fmt.Sprintf("for values with (modulus %d, remainder %d)", g.partitions, p-1)
	}
	ddl := fmt.Sprintf("create%s table %s_%d partition of %s %s with (fillfactor=%d)", unlogged, Accounts, p, Accounts, bounds, g.fillfactor)
	if g.tablespace != "" {
		ddl += " tablespace " + quoteIdent(g.tablespace)
	}
	return ddl
}

// step takes step s: g, G, v, p or f (d and t are the loader's).
func (g *generator) step(ctx context.Context, db *sqlx.DB, s byte) error {
	var total int64
	if s == 'g' {
		total = g.accounts()
	}
	g.log.begin(s, total)
	var stmts []string
	switch s {
	case 'g':
		return g.clientSide(ctx, db)
	case 'G':
		return g.serverSide(ctx, db)
	case 'v':
		for _, t := range []string{Branches, Tellers, Accounts, History} {
			stmts = append(stmts, "vacuum analyze "+t)
		}
	case 'p', 'f':
		stmts = g.keyStatements(s)
	default:
		return fmt.Errorf("pgbench: step %c is not taken here", s)
	}
	for _, q := range stmts {
		if err := g.exec(ctx, db, s, q); err != nil {
			return err
		}
	}
	return nil
}

// keyStatements are step p's statements (the primary keys) or step f's
// (the foreign keys).
func (g *generator) keyStatements(s byte) []string {
	if s == 'p' {
		using := ""
		if g.indexTablespace != "" {
			using = " using index tablespace " + quoteIdent(g.indexTablespace)
		}
		return []string{
			"alter table " + Branches + " add primary key (bid)" + using,
			"alter table " + Tellers + " add primary key (tid)" + using,
			"alter table " + Accounts + " add primary key (aid)" + using,
		}
	}
	return []string{
		"alter table " + Tellers + " add constraint pgbench_tellers_bid_fkey foreign key (bid) references " + Branches,
		"alter table " + Accounts + " add constraint pgbench_accounts_bid_fkey foreign key (bid) references " + Branches,
		"alter table " + History + " add constraint pgbench_history_bid_fkey foreign key (bid) references " + Branches,
		"alter table " + History + " add constraint pgbench_history_tid_fkey foreign key (tid) references " + Tellers,
		"alter table " + History + " add constraint pgbench_history_aid_fkey foreign key (aid) references " + Accounts,
	}
}

// ConstraintStatements returns steps p's and f's statements, whose keys
// are stampede's (workload.ConstraintNamer).
func (g *generator) ConstraintStatements() []string {
	return append(g.keyStatements('p'), g.keyStatements('f')...)
}

// serverSide is step G: the server makes the rows, with pgbench's
// statements, in one transaction that truncates the tables first.
func (g *generator) serverSide(ctx context.Context, db *sqlx.DB) error {
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return fmt.Errorf("step G: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	stmts := []string{
		"truncate table " + Accounts + ", " + Branches + ", " + History + ", " + Tellers,
		fmt.Sprintf("insert into %s(bid,bbalance) select bid, 0 from generate_series(1, %d) as bid", Branches, g.scale*branchesPerScale),
		fmt.Sprintf("insert into %s(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 from generate_series(1, %d) as tid",
			Tellers, tellersPerScale, int64(g.scale)*tellersPerScale),
		fmt.Sprintf("insert into %s(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, 0, '' from generate_series(1, %d) as aid",
			Accounts, accountsPerScale, g.accounts()),
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("step G: %s: %w", q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("step G: %w", err)
	}
	return nil
}

// accounts is the number of accounts.
func (g *generator) accounts() int64 { return int64(g.scale) * accountsPerScale }

// OwnsMark implements the workload.MarkOwner interface: the tables of
// `stampede pgbench -i` (FormMark) are pgbench's.
func (*generator) OwnsMark(comment string) bool { return comment == FormMark }
