package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// tableExists reports whether table exists in db.
func tableExists(ctx context.Context, db *sqlx.DB, table string) (bool, error) {
	ok, err := workload.TableExists(ctx, db, table)
	if err != nil {
		return false, fmt.Errorf("checking table %s: %w", table, err)
	}
	return ok, nil
}

// checkTables refuses to check or run (verb) a load that lacks some of
// its tables (dropped since init loaded them): every condition would
// pass, or fail with the server's raw error, over a table that is not
// there, and so would every transaction of a run.
func (g *tpcc) checkTables(ctx context.Context, db *sqlx.DB, m meta, verb string) error {
	var missing []string
	for _, t := range g.Tables() {
		if t.Name == metaTable && g.hdb.notLoaded != "" {
			continue // HammerDB's build has none (hammerBuilt)
		}
		ok, err := tableExists(ctx, db, t.Name)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, t.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	what := "table " + missing[0]
	if len(missing) > 1 {
		what = "tables " + strings.Join(missing, ", ")
	}
	profile := ""
	if g.hammerdb() {
		profile = " --profile hammerdb"
	}
	return &missingTablesError{fmt.Sprintf("database %s lacks %s of the TPC-C load that tpcc_meta records (dropped since init loaded it): nothing to %s; reload with `stampede init tpcc%s --drop --warehouses %d`",
		db.Database(), what, verb, profile, m.warehouses)}
}

// missingTablesError is checkTables' refusal; it matches
// workload.ErrUnfinishedLoad, for its exit code (bad input, 2).
type missingTablesError struct{ msg string }

func (e *missingTablesError) Error() string { return e.msg }

// Is makes errors.Is(err, workload.ErrUnfinishedLoad) true.
func (e *missingTablesError) Is(target error) bool { return target == workload.ErrUnfinishedLoad }

// checkMeta checks that what tpcc_meta records matches the flags.
func (g *tpcc) checkMeta(m meta, db *sqlx.DB) error {
	if g.tenant > 0 {
		return g.checkTenantMeta(m, db)
	}
	if m.version != schemaVersion {
		return fmt.Errorf("database %s holds tpcc data of version %s, not %s: reload it with `stampede init tpcc --drop`",
			db.Database(), m.version, schemaVersion)
	}
	if m.warehouses != int64(g.warehouses) {
		if !g.flags.Changed("warehouses") {
			// Not adopted (a client's share, --warehouse-range): the
			// default is not the user's to reload at.
			return loadMismatch(fmt.Sprintf("database %s holds %s, not run's default of --warehouses %d: give --warehouses %d",
				db.Database(), warehousesOf(m.warehouses), g.warehouses, m.warehouses))
		}
		return loadMismatch(fmt.Sprintf("database %s holds %s, not --warehouses %d: give --warehouses %d, or reload with `stampede init tpcc --drop --warehouses %d`",
			db.Database(), warehousesOf(m.warehouses), g.warehouses, m.warehouses, g.warehouses))
	}
	return nil
}

// AdoptWarehouses makes a run given no --warehouses run on the n
// warehouses init loaded (LoadedWarehouses), as check checks them; its
// header says so.
func (g *tpcc) AdoptWarehouses(n int) error {
	if err := g.flags.Set("warehouses", strconv.Itoa(n)); err != nil {
		return err
	}
	g.adopted = true
	return nil
}

// nWarehouses is "1 warehouse", "3 warehouses".
func nWarehouses(n int64) string {
	if n == 1 {
		return "1 warehouse"
	}
	return count(n) + " warehouses"
}

// loadMismatch is an error of a run whose flags differ from what init
// loaded: it matches workload.ErrLoadMismatch.
type loadMismatch string

func (e loadMismatch) Error() string { return string(e) }
func (e loadMismatch) Unwrap() error { return workload.ErrLoadMismatch }

// checkTenantMeta is checkMeta in column mode, where the tenant's row of
// tpcc_meta says what was loaded for it.
func (g *tpcc) checkTenantMeta(m meta, db *sqlx.DB) error {
	if m.version != schemaVersion {
		return fmt.Errorf("tenant %d in database %s holds tpcc data of version %s, not %s: reload the fleet with `stampede init tpcc --tenant-mode column --drop`",
			g.tenant, db.Database(), m.version, schemaVersion)
	}
	if m.warehouses != int64(g.warehouses) {
		return loadMismatch(fmt.Sprintf("tenant %d in database %s holds %s, not --warehouses %d: give --warehouses %d, or reload the fleet with `stampede init tpcc --tenant-mode column --drop --warehouses %d`",
			g.tenant, db.Database(), warehousesOf(m.warehouses), g.warehouses, m.warehouses, g.warehouses))
	}
	return nil
}

// preRun checks that the database (in column mode, the tenant's row of
// tpcc_meta) was loaded by this version with the same --warehouses.
func (g *tpcc) preRun(ctx context.Context, db *sqlx.DB) error {
	// The flags passed Validate when parsed; what it finds now is the
	// range against the warehouses taken from the load (AdoptWarehouses):
	// bad input (exit 2), as a load mismatch.
	if err := g.validate(); err != nil {
		return loadMismatch(err.Error())
	}
	if db.Null() {
		whose := fmt.Sprintf("run's default --warehouses %d (the null driver reads no load)", g.warehouses)
		if err := g.checkActive(whose, fmt.Sprintf("--warehouses, or --active-warehouses %d or fewer", g.warehouses)); err != nil {
			return loadMismatch(err.Error())
		}
		return asMismatch(g.checkClients(whose, fmt.Sprintf("--warehouses, or a range within 1:%d", g.warehouses)))
	}
	if err := g.checkProfile(ctx, db); err != nil {
		return err
	}
	m, err := g.readMeta(ctx, db)
	if err != nil {
		return err
	}
	if err := g.checkTables(ctx, db, m, "run"); err != nil {
		return err
	}
	if err := g.checkMeta(m, db); err != nil {
		return err
	}
	// A run given no --warehouses whose load holds the default's count
	// (not adopted): its active warehouses and range are checked against
	// the load here.
	whose := fmt.Sprintf("the %s that init loaded into database %s (tpcc_meta)", nWarehouses(m.warehouses), db.Database())
	give := fmt.Sprintf("--active-warehouses %d or fewer, or load more with `stampede init tpcc --drop --warehouses %d`", m.warehouses, g.activeWarehouses)
	if g.tenant > 0 {
		whose = fmt.Sprintf("tenant %d's %s in database %s (tpcc_meta)", g.tenant, nWarehouses(m.warehouses), db.Database())
		give = fmt.Sprintf("--active-warehouses %d or fewer", m.warehouses)
	}
	if err := g.checkActive(whose, give); err != nil {
		return loadMismatch(err.Error())
	}
	return asMismatch(g.checkClients(whose, fmt.Sprintf("a range within 1:%d", m.warehouses)))
}

// asMismatch makes err a loadMismatch (nil stays nil).
func asMismatch(err error) error {
	if err == nil {
		return nil
	}
	return loadMismatch(err.Error())
}

// check is a consistency condition of clause 3.3.2.
type check struct {
	clause, desc string
	// query counts the offending rows (warehouses, districts, orders,
	// customers...) of the warehouses $1 to $2.
	query string
	// expensive checks read every order line or customer row against
	// others; they run only with --expensive-checks.
	expensive bool
	// loadOnly checks hold only until the first run (3.3.2.11).
	loadOnly bool
}

// wRange restricts column to the warehouses $1 to $2.
func wRange(column string) string { return column + " BETWEEN $1 AND $2" }

// deliveredByCustomer sums the amounts of the delivered order lines of
// each customer of the warehouses $1 to $2 (3.3.2.10 and 3.3.2.12).
var deliveredByCustomer = `(SELECT o_w_id, o_d_id, o_c_id, sum(ol_amount) AS s FROM ` + orderTable + ` JOIN ` + orderLineTable + `
		ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE ` + wRange("o_w_id") + ` AND ` + wRange("ol_w_id") + ` AND ol_delivery_d IS NOT NULL
	GROUP BY o_w_id, o_d_id, o_c_id) ol ON o_w_id = c_w_id AND o_d_id = c_d_id AND o_c_id = c_id`

// checks are the twelve consistency conditions of clause 3.3.2, each
// counting offending rows in a range of warehouses.
var checks = []check{
	{clause: "3.3.2.1", desc: "W_YTD = sum(D_YTD)", query: `SELECT count(*) FROM ` + warehouseTable + ` LEFT JOIN
	(SELECT d_w_id, sum(d_ytd) AS s FROM ` + districtTable + ` WHERE ` + wRange("d_w_id") + ` GROUP BY d_w_id) d ON d_w_id = w_id
	WHERE ` + wRange("w_id") + ` AND d.s IS DISTINCT FROM w_ytd`},
	{clause: "3.3.2.2", desc: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", query: `SELECT count(*) FROM ` + districtTable + `
	LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM ` + orderTable + ` WHERE ` + wRange("o_w_id") + ` GROUP BY o_w_id, o_d_id) o
		ON o_w_id = d_w_id AND o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM ` + newOrderTable + ` WHERE ` + wRange("no_w_id") + ` GROUP BY no_w_id, no_d_id) n
		ON no_w_id = d_w_id AND no_d_id = d_id
	WHERE ` + wRange("d_w_id") + ` AND (o.m IS DISTINCT FROM d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d_next_o_id - 1))`},
	{clause: "3.3.2.3", desc: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district", query: `SELECT count(*) FROM
	(SELECT max(no_o_id) - min(no_o_id) + 1 - count(*) AS diff FROM ` + newOrderTable + ` WHERE ` + wRange("no_w_id") + `
		GROUP BY no_w_id, no_d_id) n
	WHERE diff <> 0`},
	{clause: "3.3.2.4", desc: "sum(O_OL_CNT) = count(order_line) per district", query: `SELECT count(*) FROM
	(SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM ` + orderTable + ` WHERE ` + wRange("o_w_id") + ` GROUP BY o_w_id, o_d_id) o
	FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS c FROM ` + orderLineTable + ` WHERE ` + wRange("ol_w_id") + ` GROUP BY ol_w_id, ol_d_id) l
		ON ol_w_id = o_w_id AND ol_d_id = o_d_id
	WHERE o.s IS DISTINCT FROM l.c`},
	{clause: "3.3.2.5", desc: "O_CARRIER_ID is null exactly for the orders in new_order", query: `SELECT count(*) FROM ` + orderTable + `
	LEFT JOIN ` + newOrderTable + ` ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
	WHERE ` + wRange("o_w_id") + ` AND (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)`},
	{clause: "3.3.2.6", desc: "O_OL_CNT = count(order_line) per order", expensive: true, query: `SELECT count(*) FROM
	(SELECT o_w_id, o_d_id, o_id, o_ol_cnt FROM ` + orderTable + ` WHERE ` + wRange("o_w_id") + `) o
	FULL JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS c FROM ` + orderLineTable + ` WHERE ` + wRange("ol_w_id") + `
		GROUP BY ol_w_id, ol_d_id, ol_o_id) l
		ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE o_ol_cnt IS DISTINCT FROM l.c`},
	{clause: "3.3.2.7", desc: "OL_DELIVERY_D is null exactly for the lines of orders with null O_CARRIER_ID", query: `SELECT count(*) FROM ` + orderLineTable + `
	JOIN ` + orderTable + ` ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
	WHERE ` + wRange("ol_w_id") + ` AND ` + wRange("o_w_id") + ` AND (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)`},
	{clause: "3.3.2.8", desc: "W_YTD = sum(H_AMOUNT)", query: `SELECT count(*) FROM ` + warehouseTable + ` LEFT JOIN
	(SELECT h_w_id, sum(h_amount) AS s FROM ` + historyTable + ` WHERE ` + wRange("h_w_id") + ` GROUP BY h_w_id) h ON h_w_id = w_id
	WHERE ` + wRange("w_id") + ` AND h.s IS DISTINCT FROM w_ytd`},
	{clause: "3.3.2.9", desc: "D_YTD = sum(H_AMOUNT) per district", query: `SELECT count(*) FROM ` + districtTable + ` LEFT JOIN
	(SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM ` + historyTable + ` WHERE ` + wRange("h_w_id") + ` GROUP BY h_w_id, h_d_id) h
		ON h_w_id = d_w_id AND h_d_id = d_id
	WHERE ` + wRange("d_w_id") + ` AND h.s IS DISTINCT FROM d_ytd`},
	{clause: "3.3.2.10", desc: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) per customer", expensive: true,
		query: `SELECT count(*) FROM ` + customerTable + `
	LEFT JOIN ` + deliveredByCustomer + `
	LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) AS s FROM ` + historyTable + ` WHERE ` + wRange("h_c_w_id") + `
		GROUP BY h_c_w_id, h_c_d_id, h_c_id) h ON h_c_w_id = c_w_id AND h_c_d_id = c_d_id AND h_c_id = c_id
	WHERE ` + wRange("c_w_id") + ` AND c_balance IS DISTINCT FROM coalesce(ol.s, 0) - coalesce(h.s, 0)`},
	{clause: "3.3.2.11", desc: "count(order) - count(new_order) = 2100 per district", loadOnly: true, query: `SELECT count(*) FROM ` + districtTable + `
	LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS c FROM ` + orderTable + ` WHERE ` + wRange("o_w_id") + ` GROUP BY o_w_id, o_d_id) o
		ON o_w_id = d_w_id AND o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS c FROM ` + newOrderTable + ` WHERE ` + wRange("no_w_id") + ` GROUP BY no_w_id, no_d_id) n
		ON no_w_id = d_w_id AND no_d_id = d_id
	WHERE ` + wRange("d_w_id") + ` AND coalesce(o.c, 0) - coalesce(n.c, 0) <> ` + fmt.Sprint(firstNewOrder-1)},
	{clause: "3.3.2.12", desc: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) per customer", expensive: true,
		query: `SELECT count(*) FROM ` + customerTable + `
	LEFT JOIN ` + deliveredByCustomer + `
	WHERE ` + wRange("c_w_id") + ` AND c_balance + c_ytd_payment IS DISTINCT FROM coalesce(ol.s, 0)`},
}

// profileChecks returns the checks written for the profile's schema.
func (g *tpcc) profileChecks() []check {
	out := slices.Clone(checks)
	for i := range out {
		out[i].query = g.forProfile(out[i].query)
	}
	return out
}

// checkConns is the most connections the checks use at once; each runs a
// share of the warehouse ranges in the same snapshot.
const checkConns = 4

// rangesPerConn is how many warehouse ranges each connection gets on
// average, so that a slow range does not leave the others idle.
const rangesPerConn = 4

// checkConsistency runs the consistency conditions inside one REPEATABLE
// READ, read-only snapshot shared by up to checkConns connections, each
// condition over ranges of warehouses in parallel, and prints a line per
// condition in clause order: PASS, FAIL with the number of offending rows,
// or SKIP with the reason. Without a tenant it checks the warehouses
// tpcc_meta records, saying so when they are not --warehouses', and
// refuses a --warehouses given on the command line that differs from
// them (as run does); in column mode the tenant's warehouses, which must
// be as many as --warehouses.
func (g *tpcc) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if err := g.validate(); err != nil {
		return err
	}
	label := g.label()
	if db.Null() {
		rep.Printf("%s: skipped (null driver)", label)
		return nil
	}
	if err := g.checkProfile(ctx, db); err != nil {
		return err
	}
	m, err := g.readMeta(ctx, db)
	if err != nil {
		return err
	}
	if err := g.checkTables(ctx, db, m, "check"); err != nil {
		return err
	}
	if m.version != schemaVersion || (g.tenant > 0 && m.warehouses != int64(g.warehouses)) {
		return g.checkMeta(m, db)
	}
	if g.tenant == 0 && m.warehouses != int64(g.warehouses) {
		if g.flags.Changed("warehouses") {
			return loadMismatch(fmt.Sprintf("database %s holds %s, not --warehouses %d: run `stampede check tpcc --warehouses %d`, or leave --warehouses out to check the warehouses init loaded",
				db.Database(), nWarehouses(m.warehouses), g.warehouses, m.warehouses))
		}
		if g.hdb.notLoaded != "" {
			// HammerDB's build (hammerBuilt): no tpcc_meta.
			rep.Printf("%s: checking the %s of HammerDB's build in database %s (the rows of its table %s)", label, nWarehouses(m.warehouses), db.Database(), warehouseTable)
		} else {
			rep.Printf("%s: checking the %s that init loaded into database %s (tpcc_meta)", label, nWarehouses(m.warehouses), db.Database())
		}
	}
	first, last := int64(1), m.warehouses
	if g.tenant > 0 {
		first, last = g.whRange()
	}
	checks := g.profileChecks()
	skips := make([]string, len(checks))
	for i, c := range checks {
		switch {
		case c.expensive && !g.expensive:
			skips[i] = "costly: --expensive-checks runs it"
		case c.loadOnly && !m.fresh:
			skips[i] = "holds only right after loading, and a run has happened since"
		}
	}
	var failed []string
	printed := 0
	rec, _ := rep.(workload.CheckRecorder)
	record := func(c check, result, detail string) {
		if rec != nil {
			rec.Check(workload.Audit{Name: c.desc, Clause: c.clause, Required: "0 offending rows", Result: result, Detail: detail})
		}
	}
	printDone := func(bad []int64, done []bool) {
		for ; printed < len(checks) && done[printed]; printed++ {
			c := checks[printed]
			switch {
			case skips[printed] != "":
				rep.Printf("%s: %s %s: SKIP (%s)", label, c.clause, c.desc, skips[printed])
				record(c, workload.AuditSkip, skips[printed])
			case bad[printed] == 0:
				rep.Printf("%s: %s %s: PASS", label, c.clause, c.desc)
				record(c, workload.AuditPass, "0 offending rows")
			default:
				rep.Printf("%s: %s %s: FAIL (%d offending rows)", label, c.clause, c.desc, bad[printed])
				record(c, workload.AuditFail, fmt.Sprintf("%d offending rows", bad[printed]))
				failed = append(failed, fmt.Sprintf("%s (%d rows)", c.clause, bad[printed]))
			}
		}
	}
	sr := snapshotRunner{db: db, conns: checkConns, note: func(s string) { rep.Printf("%s: %s", label, s) }}
	if _, err := sr.run(ctx, checks, skips, first, last, printDone); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s consistency check failed: %s", label, strings.Join(failed, ", "))
	}
	return nil
}

// snapshotRunner runs check queries over ranges of warehouses on several
// connections that share one snapshot: the first exports its REPEATABLE
// READ snapshot (pg_export_snapshot) and the others import it (SET
// TRANSACTION SNAPSHOT). A server that cannot export one gets every query
// on the first connection.
type snapshotRunner struct {
	db *sqlx.DB
	// conns is the most connections used; fewer when the pool has fewer
	// free (the others' Begin waits only while there is work left).
	conns int
	// note receives remarks on how the checks ran.
	note func(string)
	// afterExport, when set, is called once the snapshot is taken and
	// before any other connection imports it (a test hook).
	afterExport func()
}

// task is one check over one range of warehouses.
type task struct {
	check  int
	lo, hi int64
}

// taskResult is the outcome of a task: the offending rows and the
// connection (0 for the exporting one) that ran it.
type taskResult struct {
	bad  int64
	conn int
}

// snapshotRE matches the snapshot identifiers pg_export_snapshot returns,
// such as 00000003-0000001B-1.
var snapshotRE = lazyre.New(`^[0-9A-Fa-f-]+$`)

// run runs every check whose skip is "" over warehouses first..last and
// calls progress, under a lock, after each task with the offending rows
// so far and which checks are complete (skipped ones are from the start).
// It returns every task's result.
func (r snapshotRunner) run(ctx context.Context, cs []check, skips []string, first, last int64,
	progress func(bad []int64, done []bool)) ([]taskResult, error) {
	opts := sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true}
	tx0, err := r.db.Begin(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("checking consistency: %w", err)
	}
	defer func() { tx0.Rollback(context.WithoutCancel(ctx)) }() // read-only: nothing to commit
	conns := max(r.conns, 1)
	var snap string
	if conns > 1 {
		err := tx0.QueryRow(ctx, "SELECT pg_export_snapshot()").Scan(&snap)
		if err == nil && !snapshotRE().MatchString(snap) {
			err = fmt.Errorf("unexpected snapshot identifier %q", snap)
		}
		if err != nil {
			// The failed statement aborted the transaction: start again.
			tx0.Rollback(context.WithoutCancel(ctx))
			if tx0, err = r.db.Begin(ctx, opts); err != nil {
				return nil, fmt.Errorf("checking consistency: %w", err)
			}
			conns = 1
			if r.note != nil {
				r.note("checks run on one connection: the server cannot share its snapshot")
			}
		}
	}
	if r.afterExport != nil {
		r.afterExport()
	}

	// The ranges: about rangesPerConn per connection.
	warehouses := last - first + 1
	per := max(1, (warehouses+int64(conns*rangesPerConn)-1)/int64(conns*rangesPerConn))
	var tasks []task
	remaining := make([]int, len(cs))
	done := make([]bool, len(cs))
	bad := make([]int64, len(cs))
	for i := range cs {
		if skips[i] != "" {
			done[i] = true
			continue
		}
		for lo := first; lo <= last; lo += per {
			tasks = append(tasks, task{check: i, lo: lo, hi: min(lo+per-1, last)})
			remaining[i]++
		}
		if remaining[i] == 0 { // no warehouse
			done[i] = true
		}
	}
	results := make([]taskResult, len(tasks))
	var mu sync.Mutex
	var next atomic.Int64
	var failed atomic.Bool
	progress(bad, done)
	work := func(tx sqlx.Tx, conn int) error {
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(tasks) {
				return nil
			}
			t := tasks[i]
			c := cs[t.check]
			var n int64
			if err := tx.QueryRow(ctx, c.query, t.lo, t.hi).Scan(&n); err != nil {
				failed.Store(true)
				return fmt.Errorf("consistency condition %s (%s), warehouses %d to %d: %w", c.clause, c.desc, t.lo, t.hi, err)
			}
			results[i] = taskResult{bad: n, conn: conn}
			mu.Lock()
			bad[t.check] += n
			remaining[t.check]--
			done[t.check] = remaining[t.check] == 0
			progress(bad, done)
			mu.Unlock()
		}
		return nil
	}

	// The other connections: each waits for a free connection only while
	// the first has work left, imports the snapshot, and takes tasks.
	helpers, stopHelpers := context.WithCancel(ctx)
	defer stopHelpers()
	errs := make([]error, min(conns, max(len(tasks), 1)))
	var wg sync.WaitGroup
	for c := 1; c < len(errs); c++ {
		wg.Go(func() {
			tx, err := r.db.Begin(helpers, opts)
			if err != nil {
				return // no free connection before the work ran out
			}
			defer tx.Rollback(context.WithoutCancel(ctx))
			if _, err := tx.Exec(helpers, "SET TRANSACTION SNAPSHOT '"+snap+"'"); err != nil {
				if helpers.Err() == nil {
					errs[c] = fmt.Errorf("checking consistency: importing the snapshot: %w", err)
				}
				return
			}
			errs[c] = work(tx, c)
		})
	}
	errs[0] = work(tx0, 0)
	stopHelpers()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// LoadedWarehouses returns the number of warehouses init loaded into db
// (tpcc_meta's), and false when db holds no finished load of this version
// (PreRun then says why): a front end whose --warehouses was not given
// runs on those (`stampede workload run tpcc`).
func (g *tpcc) LoadedWarehouses(ctx context.Context, db *sqlx.DB) (int, bool) {
	if db.Null() {
		return 0, false
	}
	m, err := g.readMeta(ctx, db)
	if err != nil || m.version != schemaVersion {
		return 0, false
	}
	return int(m.warehouses), true
}

// warehousesOf is "1 warehouse" or "N warehouses".
func warehousesOf(n int64) string {
	if n == 1 {
		return "1 warehouse"
	}
	return fmt.Sprintf("%d warehouses", n)
}
