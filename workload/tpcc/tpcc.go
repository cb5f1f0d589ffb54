package tpcc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

const details = `The TPC-C order-entry benchmark (after cockroach workload tpcc): nine tables
per clause 1.3, the initial population of clause 4.3.3 (per warehouse 10
districts, 30,000 customers, 100,000 stock rows, 30,000 orders), and the
five transactions New-Order, Payment, Order-Status, Delivery and
Stock-Level in the mix 10/10/1/1/1 (a shuffled deck of 23 cards, as
cockroach's and HammerDB's: 43.5% Payments and 4.3% of each other type,
above the minimums of clause 5.2.3 over any run long enough to judge).
With --wait (the default) each worker is a terminal of clause 5.2: it
applies the keying time before every transaction, its first included,
and the think time after it (clause 5.2.5.7); the default --concurrency
is then 10 terminals per warehouse (clause 4.2.2), sharing 2 connections
per warehouse, and efficiency (tpmC / (12.86 x warehouses), with its 95%
interval from the New-Order count) is printed only with them. Give a --ramp (a minute or more) so that the measurement
interval after it sees the terminals in their steady state. Use
--wait=false for a throughput test (no efficiency). tpmC counts the
New-Orders the terminals completed (rolled-back ones included, as the spec
counts them); NOPM, as HammerDB, is read from the server: the growth of
sum(D_NEXT_O_ID), the committed New-Orders, per minute of the measurement
interval. The default --isolation read-committed is HammerDB's and
go-tpc's; Order-Status's three statements then see separate snapshots
(--isolation repeatable-read gives it the spec's isolation level 3).
` + "`stampede check tpcc`" + ` (and every run unless
--skip-checks) verifies the twelve consistency conditions of clause 3.3.2
in one snapshot, in parallel over the warehouses; the costly 3.3.2.6,
3.3.2.10 and 3.3.2.12 need --expensive-checks, and 3.3.2.11 holds only
until the first run. After a run, the audits of clause 9.2 (rollbacks,
remote and by-name shares, skipped deliveries, the mix of clause 5.2.3)
and the 90th percentile response times of clause 5.2.5, over the
measurement interval, are printed as PASS, FAIL or SKIP.

Examples:
  stampede init tpcc --warehouses 10 'postgresql://postgres@localhost:5432/tpcc'
  stampede run tpcc --warehouses 10 --ramp 2m --duration 10m 'postgresql://postgres@localhost:5432/tpcc'
  stampede run tpcc --warehouses 10 --wait=false --concurrency 32 --duration 5m 'postgresql://postgres@localhost:5432/tpcc'
  stampede run tpcc --mix newOrder=1,payment=1 --wait=false 'postgresql://postgres@localhost:5432/tpcc'
  stampede check tpcc --expensive-checks 'postgresql://postgres@localhost:5432/tpcc'

From several client machines: --clients N --client-index I runs the
terminals of client I's own contiguous range of the warehouses (the
bounds of cockroach's --partitions), --warehouse-range A:B the same by
hand; remote order lines and payments still go to every warehouse.
` + "`stampede report --tag job=NAME`" + ` merges the clients: tpmC, efficiency over
all their warehouses, NOPM once from the server, the audits over every
client's transactions; client 0 alone runs the checks.
  stampede run tpcc --warehouses 100 --clients 4 --client-index 0 --ramp 2m --duration 30m --start-at next:1m --tag job=c100 'postgresql://postgres@localhost:5432/tpcc'

Tenant fleets: with --tenant-mode column the tenants share one set of tables
with no tenant column, because W_ID already leads every primary key but
ITEM's: in column mode a tenant is a range of warehouses. Tenant N of
--warehouses W owns warehouses (N-1)*W+1 .. N*W, loaded with the rows a
database of W warehouses would hold (the same for every tenant, W_IDs
shifted), and its terminals pick home, supplying and paying warehouses
among them only; the items are loaded once, with tenant 1, and tpcc_meta
has a row per tenant. Checks, audits, tpmC and efficiency are per tenant.
  stampede init tpcc --warehouses 1 --tenants 100 --tenant-mode column 'postgresql://postgres@localhost:5432/tpcc'
  stampede run tpcc --warehouses 1 --tenants 100 --tenant-mode column --active 20 --duration 5m 'postgresql://postgres@localhost:5432/tpcc'`

// schemaVersion identifies the schema and initial data; it is stored in
// tpcc_meta and must equal Meta.Version. 1.1.0 added tpcc_meta.fresh and
// writes tpcc_meta's row last.
const schemaVersion = "1.1.0"

var tpccMeta = workload.Meta{
	Name:        "tpcc",
	Description: "TPC-C order entry: five transactions over nine tables, with the consistency checks of clause 3.3.2",
	Details:     details,
	Version:     schemaVersion,
	Database:    "tpcc",
	New:         newTPCC,
}

func init() {
	workload.Register(tpccMeta)
}

// defaultMix is the mix as a deck of 23 cards (clause 5.2.4.2), that of
// cockroach and HammerDB: 43.48% Payments and 4.35% of each of the other
// three, with margin above the minimums of clause 5.2.3 (43% and 4%).
// The deck 45/43/4/4/4, the minimums exactly, measured shares below them
// (Order-Status 3.997%) whenever a run ended inside a deck. The 12.86
// New-Orders per minute and warehouse that efficiency divides by assume a
// 45% share: with this deck's 43.48% efficiency tops out at 98%, which a
// 30-minute fleet of 20 waiting tenants measured (98.2% on average).
const defaultMix = "newOrder=10,payment=10,orderStatus=1,delivery=1,stockLevel=1"

// minShare is the minimum share of each transaction type in the mix
// (clause 5.2.3), indexed like txs; New-Order has none (it is the rest).
var minShare = [numTxs]float64{opPayment: 0.43, opOrderStatus: 0.04, opDelivery: 0.04, opStockLevel: 0.04}

// terminalsPerWarehouse is the number of terminals per warehouse (clause
// 4.2.2), the default --concurrency with --wait; connsPerWarehouse are
// the connections they share (cockroach's default): a terminal waits
// 21 seconds on average between two transactions.
const (
	terminalsPerWarehouse = 10
	connsPerWarehouse     = 2
)

// tpcc is the generator. In tenant column mode (SetTenant with id > 0)
// the data tables keep their schema, with no tenant column: w_id is the
// tenant key, and tenant id is the range of warehouses (id-1)*W+1 .. id*W
// of --warehouses W (see tenant.go). It is not safe for concurrent use,
// but the workers of Ops are independent of one another.
type tpcc struct {
	flags workload.Flags
	// forceDrop is --force-drop (SetForceDrop): init replaces the
	// HammerDB routines that stampede did not make.
	forceDrop bool
	// figureWorkers is the workers of a run whose figures report
	// recomputes (SetFigureWorkers), when Ops has not run.
	figureWorkers int

	warehouses int
	// adopted says that --warehouses was not given and the run took the
	// warehouses init loaded (AdoptWarehouses).
	adopted   bool
	fks       bool
	wait      bool
	mix       string
	isolation string
	seed      uint64
	expensive bool

	// tenant is the tenant of column mode (SetTenant), 0 for none.
	tenant int

	// whRangeFlag is --warehouse-range; part is the client's index and
	// the clients' count (PartitionClients; count 0 for a run on its
	// own); merged is set by MergeClients (clients.go).
	whRangeFlag string
	part        [2]int
	// share is the share of a split load, index and count (LoadShare);
	// count 0 for the whole data.
	share  [2]int
	merged *mergedClients

	// waitFactor scales the keying and think times (--wait as a factor,
	// 0 without waits); activeWarehouses, activeWorkers and txnRetries
	// are cockroach's flags of the same names (crdbflags.go).
	waitFactor       float64
	activeWarehouses int
	activeWorkers    int
	txnRetries       bool
	// families gives three tables cockroach's column families
	// (families.go).
	families bool

	// hdb holds --profile and the flags of --profile hammerdb
	// (hammerdb.go).
	hdb hammerFlags

	// isolation is --isolation. The default is READ COMMITTED, as with
	// HammerDB and go-tpc on PostgreSQL: every write of a transaction is
	// one statement (New-Order's district, stock and inserts; Payment;
	// Delivery) whose UPDATEs re-read the latest version of each row they
	// lock, so the consistency conditions of clause 3.3.2 hold (the checks
	// after each run say so), and a hot row (W_YTD, a district) makes
	// concurrent transactions wait instead of fail. REPEATABLE READ is
	// snapshot isolation in PostgreSQL, under which every execution of
	// the TPC-C transactions is serializable (Fekete et al., "Making
	// Snapshot Isolation Serializable", TODS 2005), at the price of a
	// serialization failure and a retry whenever two transactions update
	// the same row (measured at 4 warehouses and 8 workers: a third of
	// the Payments retried, tpmC 0.65x). SERIALIZABLE adds predicate-lock
	// aborts.

	// weights is the parsed --mix, indexed like txs.
	weights []int
	// workers are the workers of the last Ops, whose counters Audits sums.
	workers []*worker
	// run is the state of the run the last Ops prepared.
	run runState
}

// runState is what Ops keeps of the run it prepares, for the measurement
// interval (measure.go).
type runState struct {
	db       *sqlx.DB
	duration time.Duration // --duration: the measurement interval's planned length
	// stop ends the workers' first keying times (stopWaits closes it).
	stop     chan struct{}
	stopOnce *sync.Once
	meas     measurement
}

var (
	_ workload.Flagser = (*tpcc)(nil)
	_ workload.Hookser = (*tpcc)(nil)
	_ workload.Opser   = (*tpcc)(nil)
	_ workload.Seeder  = (*tpcc)(nil)

	_ workload.TenantColumner = (*tpcc)(nil)
	_ workload.RunDefaulter   = (*tpcc)(nil)
)

// RunDefaults implements the RunDefaulter interface: with --wait, 10
// terminals per home warehouse (clause 4.2.2) on 2 connections per
// warehouse.
func (g *tpcc) RunDefaults() workload.RunDefaults {
	d := workload.RunDefaults{Warnings: g.partitionWarnings()}
	n := g.homeCount()
	if !g.wait || g.hammerdb() || g.warehouses < 1 || g.warehouses > 1<<20 || n < 1 || n > g.warehouses {
		return d
	}
	d.Concurrency, d.Conns = terminalsPerWarehouse*n, connsPerWarehouse*n
	return d
}

func newTPCC() workload.Generator {
	g := &tpcc{seed: 1}
	fs := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	g.flags = workload.Flags{FlagSet: fs, Meta: map[string]workload.FlagMeta{}}
	fs.IntVar(&g.warehouses, "warehouses", 1, "number of warehouses (the scale factor)")
	fs.BoolVar(&g.fks, "fks", false, "add the foreign keys of clause 1.3 after loading")
	g.registerCrdbFlags(fs)
	g.registerClientFlags(fs)
	g.registerHammerFlags(fs)
	fs.StringVar(&g.mix, "mix", defaultMix, "transaction weights as name=weight,... (a deck of that many cards)")
	fs.StringVar(&g.isolation, "isolation", "read-committed",
		"isolation level of the transactions: read-committed (as HammerDB and go-tpc), repeatable-read (snapshot isolation, under which TPC-C's transactions are serializable; a conflict on a row is a retry) or serializable")
	fs.BoolVar(&g.expensive, "expensive-checks", false,
		"also run the costly consistency checks 3.3.2.6, 3.3.2.10 and 3.3.2.12 (check, and run's checks after the run)")
	for _, f := range []string{"mix", "isolation"} {
		g.flags.Meta[f] = workload.FlagMeta{RuntimeOnly: true}
	}
	// check runs the costly checks only with it, as cockroach's does.
	g.flags.Meta["expensive-checks"] = workload.FlagMeta{RuntimeOnly: true, Check: true}
	g.flags.Meta["fks"] = workload.FlagMeta{LoadOnly: true}
	return g
}

// Meta implements the Generator interface.
func (*tpcc) Meta() workload.Meta { return tpccMeta }

// Flags implements the Flagser interface.
func (g *tpcc) Flags() workload.Flags { return g.flags }

// SetSeed implements the Seeder interface: every batch of the initial data
// and the load-time C constants derive from it.
func (g *tpcc) SetSeed(seed uint64) { g.seed = seed }

// Hooks implements the Hookser interface. In tenant column mode PreLoad
// deletes what an earlier, unfinished load of the tenant left behind.
func (g *tpcc) Hooks() workload.Hooks {
	h := workload.Hooks{
		Validate:         g.validate,
		PostLoad:         g.postLoad,
		PreRun:           g.preRun,
		CheckConsistency: g.checkConsistency,
	}
	if g.tenant > 0 {
		h.PreLoad = g.preLoad
	}
	if g.hammerdb() || (g.hdb.serverSide && g.tenant == 0) {
		h.PreLoad = g.preLoadHammer
	}
	return h
}

// validate checks the flags.
func (g *tpcc) validate() error {
	if g.warehouses < 1 {
		return fmt.Errorf("--warehouses must be at least 1, not %d", g.warehouses)
	}
	if g.warehouses > 1<<20 {
		return fmt.Errorf("--warehouses must be at most %d, not %d", 1<<20, g.warehouses)
	}
	if g.tenant > 0 && int64(g.tenant)*int64(g.warehouses) > math.MaxInt32 {
		return fmt.Errorf("tenant %d with --warehouses %d: its warehouses would pass W_ID's largest value %d; use fewer tenants or warehouses",
			g.tenant, g.warehouses, math.MaxInt32)
	}
	if _, err := g.txIsolation(); err != nil {
		return err
	}
	if err := g.validateCrdb(); err != nil {
		return err
	}
	if g.whRangeFlag == "" && g.flags.FlagSet != nil && g.flags.Changed("warehouse-range") {
		return fmt.Errorf("--warehouse-range '' is empty: give A:B, the first and last warehouse of this client's terminals (such as 1:10), or leave it out to run every warehouse's")
	}
	if err := g.validateClients(); err != nil {
		return err
	}
	if err := g.validateHammer(); err != nil {
		return err
	}
	w, err := parseMix(g.mix)
	if err != nil {
		return err
	}
	g.weights = w
	return nil
}

// txIsolation returns the --isolation level.
func (g *tpcc) txIsolation() (sqlx.Isolation, error) {
	switch g.isolation {
	case "serializable":
		return sqlx.Serializable, nil
	case "repeatable-read", "repeatable read":
		return sqlx.RepeatableRead, nil
	case "read-committed", "read committed":
		return sqlx.ReadCommitted, nil
	}
	return "", fmt.Errorf("--isolation must be read-committed, repeatable-read or serializable, not %q", g.isolation)
}

// parseMix parses --mix: comma-separated name=weight pairs, names from
// txs, weights non-negative with a positive total. Transactions not named
// get weight 0.
func parseMix(s string) ([]int, error) {
	weights := make([]int, len(txs))
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("--mix: %q is not name=weight", part)
		}
		i := txIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("--mix: unknown transaction %q (want newOrder, payment, orderStatus, delivery or stockLevel)", name)
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 10000 {
			return nil, fmt.Errorf("--mix: weight of %s must be an integer in [0, 10000], not %q", name, val)
		}
		weights[i] = n
		total += n
	}
	if total == 0 {
		return nil, fmt.Errorf("--mix: the weights add up to 0")
	}
	return weights, nil
}
