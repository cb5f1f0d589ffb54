package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Profiles of --profile.
const (
	// profileStampede is stampede's TPC-C: its schema and client-side
	// transactions.
	profileStampede = "stampede"
	// profileHammerDB is HammerDB's TPROC-C for PostgreSQL: its schema,
	// its five server-side routines, its virtual users and its figures.
	profileHammerDB = "hammerdb"
)

// hammerFlags are the flags of --profile hammerdb, after HammerDB's
// pg_storedprocs, pg_partition, pg_allwarehouse, pg_keyandthink and
// pg_raiseerror.
type hammerFlags struct {
	profile       string
	storedProcs   bool
	partition     bool
	allWarehouses bool
	keyAndThink   bool
	raiseError    bool
	useInstalled  bool
	// notLoaded says that the database was built by HammerDB, not
	// loaded by stampede (hammerBuilt), in the run header.
	notLoaded string
	// replaced names the routines a run of the profile found that are
	// not stampede's own (the user's, or replaced since init): the run
	// calls them, as HammerDB calls whatever is installed.
	replaced string
	// yours names the routines of replaced, as the header calls them
	// (NEWORD, ...).
	yours []string
	// detected is what a run without --stored-procs found installed
	// (detectRoutineKind), said in the run header.
	detected string
	// routinesOnly is --routines-only: init makes the missing routines
	// in a loaded database and loads nothing (routinesonly.go).
	routinesOnly bool
	// log receives --routines-only's lines (SetLoadLog).
	log io.Writer
	// serverSide is --server-side: stampede's own transactions as
	// server-side functions (serverside.go).
	serverSide bool
}

// hammerOnlyFlags are the flags that mean something with --profile
// hammerdb only.
var hammerOnlyFlags = []string{"stored-procs", "partition", "all-warehouses", "key-and-think", "raise-error", "use-installed-routines"}

// stampedeOnlyFlags are tpcc's flags that --profile hammerdb has no use
// for: HammerDB's virtual users have no deck, no --wait (only
// --key-and-think), no isolation but the server's default, no foreign
// keys, and run on one server's whole schema.
var stampedeOnlyFlags = []string{"mix", "wait", "isolation", "fks", "families", "active-warehouses", "active-workers",
	"txn-retries", "warehouse-range"}

// registerHammerFlags defines --profile and the flags of --profile hammerdb.
func (g *tpcc) registerHammerFlags(fs *pflag.FlagSet) {
	h := &g.hdb
	fs.StringVar(&h.profile, "profile", profileStampede,
		"stampede (stampede's TPC-C, client-side transactions) or hammerdb (HammerDB's TPROC-C: its schema, its server-side routines, its virtual users and its NOPM and TPM)")
	fs.BoolVar(&h.storedProcs, "stored-procs", false,
		"--profile hammerdb: routines as procedures called with CALL (HammerDB's pg_storedprocs) instead of functions called with SELECT")
	fs.BoolVar(&h.partition, "partition", false,
		"--profile hammerdb: hash-partition order_line by warehouse, one partition per 100 warehouses from 200 on (HammerDB's pg_partition)")
	fs.BoolVar(&h.allWarehouses, "all-warehouses", false,
		"--profile hammerdb: each virtual user draws its warehouse for every transaction among its share of all the warehouses (HammerDB's pg_allwarehouse)")
	fs.BoolVar(&h.keyAndThink, "key-and-think", false,
		"--profile hammerdb: keying and think times as HammerDB's pg_keyandthink (whole seconds)")
	fs.BoolVar(&h.raiseError, "raise-error", false,
		"--profile hammerdb: a routine's error ends the run (HammerDB's pg_raiseerror); without it, errors are counted and the virtual user goes on")
	fs.BoolVar(&h.useInstalled, "use-installed-routines", false,
		"--profile hammerdb: call the routines in the database whatever their bodies (a neword of your own); init keeps routines it did not make")
	fs.BoolVar(&h.serverSide, "server-side", false,
		"stampede's own five transactions as server-side functions (stampede_neword, ...) that init installs and run calls, one call per transaction, the inputs drawn by the client as the specification says")
	fs.BoolVar(&h.routinesOnly, "routines-only", false,
		"init, with --profile hammerdb or --server-side: make the routines missing from a database already loaded with that profile, keeping its data (and, with --use-installed-routines, your own routines)")
	g.flags.Meta["partition"] = workload.FlagMeta{LoadOnly: true}
	g.flags.Meta["routines-only"] = workload.FlagMeta{Only: "init", KeepsData: true}
	g.flags.Meta["stored-procs"] = workload.FlagMeta{NotData: true}
	for _, f := range []string{"all-warehouses", "key-and-think", "raise-error"} {
		g.flags.Meta[f] = workload.FlagMeta{RuntimeOnly: true}
	}
}

// hammerdb reports whether the profile is HammerDB's.
func (g *tpcc) hammerdb() bool { return g.hdb.profile == profileHammerDB }

// validateHammer checks --profile and the flags that go with it.
func (g *tpcc) validateHammer() error {
	switch g.hdb.profile {
	case profileStampede, profileHammerDB:
	default:
		return fmt.Errorf("--profile must be stampede or hammerdb, not %q", g.hdb.profile)
	}
	if g.flags.FlagSet == nil {
		return nil
	}
	if g.hdb.routinesOnly && !g.hammerdb() && !g.hdb.serverSide {
		return fmt.Errorf("--routines-only makes the routines of --profile hammerdb or --server-side: add one of them (the profile the database was loaded with)")
	}
	if !g.hammerdb() {
		if g.hdb.serverSide && g.tenant > 0 {
			return fmt.Errorf("--server-side has no tenant fleets: leave --tenants or --server-side out")
		}
		for _, f := range hammerOnlyFlags {
			if g.flags.Changed(f) {
				return fmt.Errorf("--%s goes with --profile hammerdb (HammerDB's TPROC-C): add --profile hammerdb, or leave --%s out", f, f)
			}
		}
		return nil
	}
	if g.hdb.serverSide {
		return fmt.Errorf("--server-side is for --profile stampede: HammerDB's routines are server-side already; leave --server-side out")
	}
	for _, f := range stampedeOnlyFlags {
		if g.flags.Changed(f) {
			return fmt.Errorf("--%s does not apply to --profile hammerdb (HammerDB's virtual users: random transactions with HammerDB's weights, no waits unless --key-and-think, the server's isolation, no foreign keys): leave --%s out, or use --profile stampede", f, f)
		}
	}
	if g.tenant > 0 {
		return fmt.Errorf("--profile hammerdb has no tenant fleets: leave --tenants out, or use --profile stampede")
	}
	return nil
}

// UsesTableName implements workload.TableNamer: the orders table of
// either profile is tpcc's, whatever --profile the cleanup names.
func (g *tpcc) UsesTableName(name string) bool {
	return name == orderTable || name == hammerOrders
}

// ordersTable is the orders table of the profile: stampede's "order",
// HammerDB's ORDERS.
func (g *tpcc) ordersTable() string {
	if g.hammerdb() {
		return hammerOrders
	}
	return orderTable
}

// forProfile returns query, written for stampede's schema, for the
// profile's: HammerDB's names the orders table ORDERS.
func (g *tpcc) forProfile(query string) string {
	if !g.hammerdb() {
		return query
	}
	return strings.ReplaceAll(query, orderTable, hammerOrders)
}

// checkProfile refuses a database loaded with the other profile: the
// profile tpcc_meta records (recordedProfile), so that a database holding
// both orders tables (a user's orders beside stampede's load, or one left
// by an older stampede's reload) is judged by its load; without one (an
// older stampede's tpcc_meta, or none), the orders table tells them
// apart (stampede's "order", HammerDB's ORDERS).
func (g *tpcc) checkProfile(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	rec, err := recordedProfile(ctx, db)
	if err != nil {
		return err
	}
	hasOrder, hasOrders := rec == profileStampede, rec == profileHammerDB
	if rec == "" {
		if hasOrder, err = tableExists(ctx, db, orderName); err != nil {
			return err
		}
		if hasOrders, err = tableExists(ctx, db, hammerOrders); err != nil {
			return err
		}
	}
	switch {
	case g.hammerdb() && hasOrder && !hasOrders:
		return loadMismatch(fmt.Sprintf("database %s holds stampede's TPC-C schema (table \"order\"), not HammerDB's: leave --profile hammerdb out, or reload with `stampede init tpcc --profile hammerdb --drop%s`", db.Database(), reloadWarehouses(ctx, db)))
	case !g.hammerdb() && hasOrders && !hasOrder:
		if ours, err := tableExists(ctx, db, metaTable); err != nil {
			return err
		} else if !ours {
			// HammerDB's own build: stampede reloads nothing it did not load.
			return loadMismatch(fmt.Sprintf("database %s holds HammerDB's TPROC-C schema (table orders), built by HammerDB (no %s of stampede's load): add --profile hammerdb", db.Database(), metaTable))
		}
		return loadMismatch(fmt.Sprintf("database %s holds HammerDB's TPROC-C schema (table orders), loaded with --profile hammerdb: add --profile hammerdb, or reload with `stampede init tpcc --drop%s`", db.Database(), reloadWarehouses(ctx, db)))
	}
	return nil
}

// recordedProfile returns the --profile that tpcc_meta records of the
// load, "" when it records none: no tpcc_meta, no row yet (an unfinished
// load), or an older stampede's tpcc_meta without the column.
func recordedProfile(ctx context.Context, db *sqlx.DB) (string, error) {
	var has bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'profile' AND NOT attisdropped)`,
		metaTable).Scan(&has); err != nil {
		return "", fmt.Errorf("looking for the profile in %s: %w", metaTable, err)
	}
	if !has {
		return "", nil
	}
	var p string
	err := db.QueryRow(ctx, "SELECT profile FROM "+metaTable+" LIMIT 1").Scan(&p)
	if errors.Is(err, sqlx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the profile in %s: %w", metaTable, err)
	}
	return p, nil
}

// reloadWarehouses is the --warehouses of a reload of db's data, " --warehouses N"
// with N the rows of its table warehouse ("" when they cannot be read):
// without it the reload would load init's default of 1.
func reloadWarehouses(ctx context.Context, db *sqlx.DB) string {
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+warehouseTable).Scan(&n); err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf(" --warehouses %d", n)
}

// hammerPartitions is the number of hash partitions of ORDER_LINE that
// HammerDB's buildschema makes with pg_partition: none below 200
// warehouses, then one per 100 (integer division).
func hammerPartitions(warehouses int, partition bool) int {
	if !partition || warehouses < 200 {
		return 0
	}
	return warehouses / 100
}

// partitionWarnings says, for init, that --partition makes no partitions
// below 200 warehouses, as HammerDB's pg_partition.
func (g *tpcc) partitionWarnings() []string {
	if !g.hammerdb() || !g.hdb.partition || hammerPartitions(g.warehouses, true) > 0 {
		return nil
	}
	return []string{fmt.Sprintf("--partition makes no partitions below 200 warehouses (as HammerDB's pg_partition): order_line of %s is one table; give --warehouses 200 or more to partition it, or leave --partition out", warehousesText(g.warehouses))}
}

// hammerHeader is what the run header says of a run of --profile
// hammerdb: how its virtual users run, and how HammerDB's routines differ
// from the specification.
func (g *tpcc) hammerHeader(workers int) []string {
	label := g.label()
	kind := "functions called with SELECT (prepared)"
	if g.hdb.storedProcs {
		kind = "procedures called with CALL"
	}
	if g.hdb.detected != "" {
		kind += ", " + g.hdb.detected
	}
	routines := "stampede's routines, as init installed them"
	if g.hdb.useInstalled {
		routines = "the routines installed in the database, whatever their bodies (" + g.installedWhy() + ")"
	}
	whs := "a random home warehouse each"
	if g.hdb.allWarehouses {
		whs = "each draws a warehouse of its share of all of them before every transaction (--all-warehouses)"
	}
	waits := "no keying or think times"
	if g.hdb.keyAndThink {
		waits = "HammerDB's keying and think times (--key-and-think)"
	}
	errs := "a routine's error is counted and the virtual user goes on"
	if g.hdb.raiseError {
		errs = "a routine's error ends the run (--raise-error)"
	}
	deviations := "deviations from the specification, as HammerDB's"
	switch {
	case g.allYours() && g.installedWhy() == "HammerDB's build":
		deviations = "deviations from the specification, as HammerDB's (HammerDB's build: the installed routines are its build's, so what NEWORD draws inside it and how its unused item ends are those of HammerDB's NEWORD, as said when they are HammerDB's own; " +
			"HammerDB's own PAYMENT and DELIVERY leave C_YTD_PAYMENT, C_PAYMENT_CNT and C_DELIVERY_CNT unchanged, so that 3.3.2.10 and 3.3.2.12 fail, as stampede check tpcc --profile hammerdb --expensive-checks shows; the inputs the client passes are as said)"
	case g.allYours():
		// The bodies are the user's: stampede knows only its own.
		deviations = "deviations from the specification, as HammerDB's (" + g.installedWhy() + ": the installed routines are yours, so what NEWORD draws inside it and how its unused item ends are those of stampede's routines, and yours may differ; the inputs the client passes are as said)"
	case slices.Contains(g.hdb.yours, "NEWORD"):
		// NEWORD draws the items and ends the unused item: the user's.
		deviations = "deviations from the specification, as HammerDB's (NEWORD is yours: the items it draws and how its unused item ends are said here of stampede's NEWORD, and yours may differ; the inputs the client passes are as said)"
	}
	var lines []string
	if g.hdb.notLoaded != "" {
		lines = append(lines, label+": "+g.hdb.notLoaded)
	}
	if g.part[1] > 0 {
		// --clients splits no warehouses here (checkClients, hammerMerge).
		lines = append(lines, fmt.Sprintf("%s: --profile hammerdb: every client's virtual users draw home warehouses over all %d, as HammerDB's do (--clients splits no warehouses)", label, g.warehouses))
	}
	if g.hdb.replaced != "" {
		lines = append(lines, label+": "+g.hdb.replaced)
	}
	return append(lines,
		fmt.Sprintf("%s: --profile hammerdb: %d virtual users, one connection each, %s; transactions drawn at random 10/10/1/1/1 of 23 (no deck); %s; %s",
			label, workers, whs, waits, errs),
		fmt.Sprintf("%s: NEWORD, PAYMENT, DELIVERY, SLEV, OSTAT are %s: %s, each one transaction at the server's default isolation", label, kind, routines),
		label+": "+deviations+": customers (New-Order, Payment, Order-Status) and items uniform, not NURand; NURand's C for last names fixed at 123; "+
			"payment amounts whole 1-5000; 1% of New-Orders end on item 100001, which does not exist, and commit with that line's price, amount and S_DIST_xx NULL (the specification rolls them back)",
		label+": "+g.hammerDeviationLine(),
		label+": NOPM and TPM as HammerDB computes them: the growth of sum(d_next_o_id) and of sum(xact_commit + xact_rollback) over every database in pg_stat_database, from the end of the ramp to the end of the run, per minute of --duration",
	)
}

// Figures and records of --profile hammerdb.
const (
	figHammerTPM  = "hammerdb_tpm"
	figHammerNOPM = "hammerdb_nopm"
)

// hammerFigures returns HammerDB's figures of the run: TPM and NOPM per
// nominal minute (the run's --duration), when the server's counters were
// read at both ends; of several clients merged (report --tag), each
// database's NOPM and each server's TPM once, added up over the
// databases and servers, as HammerDB's users add up the NOPM of
// instances run against several servers (see hammerMerge).
func (g *tpcc) hammerFigures() []workload.Figure {
	if !g.hammerdb() {
		return nil
	}
	if g.merged != nil {
		h := g.merged.hammer
		if !h.ok {
			return nil
		}
		what := fmt.Sprintf("the sum of the %d clients' HammerDB TPM, each read from its server", h.clients)
		if h.shared > 0 {
			what = fmt.Sprintf("HammerDB TPM of the %d clients, read from %s and %s: each server's and each database's figures counted once (clients sharing one over their common interval, %s), added up", h.clients,
				plural(h.servers, "server"), plural(h.databases, "database"), h.commonText)
		}
		return []workload.Figure{
			{Name: figHammerTPM, Value: h.tpm, Observed: true,
				Text: fmt.Sprintf("%.0f (%s%s)", math.Floor(h.tpm), what, h.kinds())},
			{Name: figHammerNOPM, Value: h.nopm, Observed: true, Text: TestResult(h.nopm, h.tpm)},
		}
	}
	m := g.run.meas
	minutes := g.run.duration.Minutes()
	if !m.ok || !m.xactOK || minutes <= 0 {
		return nil
	}
	tpm := float64(m.xactEnd-m.xactStart) / minutes
	nopm := float64(m.allEnd-m.allStart) / minutes
	return []workload.Figure{
		{Name: figHammerTPM, Value: tpm, Observed: true,
			Text: fmt.Sprintf("%.0f (from the server, as HammerDB: sum(xact_commit + xact_rollback) over pg_stat_database grew by %d in the run's %s)",
				math.Floor(tpm), m.xactEnd-m.xactStart, g.run.duration)},
		{Name: figHammerNOPM, Value: nopm, Observed: true, Text: TestResult(nopm, tpm)},
	}
}

// hammerMerged is HammerDB's figures of several clients added up.
type hammerMerged struct {
	nopm, tpm float64
	clients   int
	// procs and funcs count the clients that called procedures and
	// functions (recHammerProcs): the kind is not data, and the sums
	// name the kinds when they differ.
	procs, funcs int
	// ok says every client recorded both figures.
	ok bool
	// shared counts the databases several clients ran on, whose figures
	// are read once over the clients' common interval; servers and
	// databases count them all; commonText says the common intervals.
	shared             int
	servers, databases int
	commonText         string
}

// plural is "1 server", "2 servers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Records of the server's counters a run of --profile hammerdb read at
// the ends of its measurement interval (sum(d_next_o_id) over every
// warehouse, sum(xact_commit + xact_rollback) over pg_stat_database), for
// a merge of clients that share a database or server: their counters are
// counted once, between the latest start read and the earliest end read.
const (
	recHammerNextStart = "hammerdb.sum_d_next_o_id.start"
	recHammerNextEnd   = "hammerdb.sum_d_next_o_id.end"
	recHammerXactStart = "hammerdb.xact.start"
	recHammerXactEnd   = "hammerdb.xact.end"
)

// recHammerProcs records whether a run of --profile hammerdb called
// procedures (1) or functions (0), for a merge of several clients.
const recHammerProcs = "hammerdb_procedures"

// kinds says, when the merged clients called routines of both kinds,
// how many called each: "; procedures on 1 client, functions on 1".
func (h hammerMerged) kinds() string {
	if h.procs == 0 || h.funcs == 0 {
		return ""
	}
	clients := "clients"
	if h.procs == 1 {
		clients = "client"
	}
	return fmt.Sprintf("; routines: procedures on %d %s, functions on %d", h.procs, clients, h.funcs)
}

// hammerRecords returns the run's HammerDB figures as records, for a
// merge of several clients (report --tag).
func (g *tpcc) hammerRecords() []workload.Record {
	var out []workload.Record
	for _, f := range g.hammerFigures() {
		out = append(out, workload.Record{Name: f.Name, At: g.run.meas.endAt, Value: f.Value})
	}
	if len(out) > 0 {
		procs := 0.0
		if g.hdb.storedProcs {
			procs = 1
		}
		m := g.run.meas
		out = append(out, workload.Record{Name: recHammerProcs, At: m.endAt, Value: procs},
			workload.Record{Name: recHammerNextStart, At: m.startAt, Value: float64(m.allStart)},
			workload.Record{Name: recHammerNextEnd, At: m.endAt, Value: float64(m.allEnd)},
			workload.Record{Name: recHammerXactStart, At: m.startAt, Value: float64(m.xactStart)},
			workload.Record{Name: recHammerXactEnd, At: m.endAt, Value: float64(m.xactEnd)})
	}
	return out
}

// hammerMerge is MergeClients for --profile hammerdb: HammerDB's virtual
// users of every instance draw among all the warehouses, so the clients'
// warehouses are not compared. NOPM is each database's and TPM each
// server's (pg_stat_database covers every database of a server): a
// database or server one client ran on counts that client's figure;
// one several clients ran on counts once, the growth of the server's
// counter between their latest start read and earliest end read, per
// minute between them; the databases' and servers' figures add up (one
// instance per server, as the field report's two instances against two
// nodes). Clients sharing one without those reads (an older stampede's)
// or without a common interval (not run together) give no figures.
func (g *tpcc) hammerMerge(runs []workload.ClientRun) error {
	m := &mergedClients{}
	h := hammerMerged{ok: len(runs) > 0, clients: len(runs)}
	type reads struct {
		clients        int
		figure         float64 // the one client's figure
		startAt, endAt time.Time
		start, end     float64
		missing        bool
	}
	nopmBy, tpmBy := map[string]*reads{}, map[string]*reads{}
	var keys []string
	note := func(by map[string]*reads, key string, fig float64, r workload.ClientRun, startName, endName string) {
		rd := by[key]
		if rd == nil {
			rd = &reads{}
			by[key] = rd
		}
		rd.clients++
		rd.figure = fig
		var s, e *workload.Record
		for i, rec := range r.Records {
			switch rec.Name {
			case startName:
				s = &r.Records[i]
			case endName:
				e = &r.Records[i]
			}
		}
		if s == nil || e == nil {
			rd.missing = true
			return
		}
		if rd.startAt.IsZero() || s.At.After(rd.startAt) {
			rd.startAt, rd.start = s.At, s.Value
		}
		if rd.endAt.IsZero() || e.At.Before(rd.endAt) {
			rd.endAt, rd.end = e.At, e.Value
		}
	}
	// noFigures are the clients that recorded no HammerDB figures.
	var noFigures []workload.ClientRun
	for _, r := range runs {
		if n, err := strconv.Atoi(r.Flags["concurrency"]); err == nil {
			m.workers += n
		}
		var nopm, tpm float64
		var hasNOPM, hasTPM bool
		for _, rec := range r.Records {
			switch rec.Name {
			case figHammerNOPM:
				nopm, hasNOPM = rec.Value, true
			case figHammerTPM:
				tpm, hasTPM = rec.Value, true
			case recHammerProcs:
				if rec.Value == 1 {
					h.procs++
				} else {
					h.funcs++
				}
			}
		}
		h.ok = h.ok && hasNOPM && hasTPM
		if !hasNOPM || !hasTPM {
			noFigures = append(noFigures, r)
		}
		db := r.Server + " " + r.Database
		if nopmBy[db] == nil {
			keys = append(keys, db)
		}
		note(nopmBy, db, nopm, r, recHammerNextStart, recHammerNextEnd)
		note(tpmBy, r.Server, tpm, r, recHammerXactStart, recHammerXactEnd)
	}
	// sum adds up the figures of by, each key once.
	var common []string
	var why string
	sum := func(by map[string]*reads, what string) (float64, bool) {
		var total float64
		for _, key := range slices.Sorted(maps.Keys(by)) {
			rd := by[key]
			switch {
			case rd.clients == 1:
				total += rd.figure
			case rd.missing:
				why = fmt.Sprintf("no HammerDB NOPM or TPM: %d clients ran on %s %s, and their runs recorded only their own figures (a stampede before the reads of the server's counters), which would count its New-Orders and transactions once per client", rd.clients, what, key)
				return 0, false
			case !rd.endAt.After(rd.startAt):
				why = fmt.Sprintf("no HammerDB NOPM or TPM: %d clients ran on %s %s, but not together (no time all of them measured): run a benchmark's clients at one --start-at", rd.clients, what, key)
				return 0, false
			default:
				d := rd.endAt.Sub(rd.startAt)
				total += (rd.end - rd.start) / d.Minutes()
				common = append(common, d.Round(time.Millisecond).String())
			}
		}
		return total, true
	}
	var nopmOK, tpmOK bool
	if len(noFigures) > 0 && (len(noFigures) < len(runs) || !allCompleted(noFigures)) {
		// A client killed before its end: its figures and reads are
		// missing, and the others' alone are not the benchmark's.
		why = "no HammerDB NOPM or TPM: " + unrecorded(noFigures, "HammerDB figures or reads") + "; they need every client's"
	} else {
		h.nopm, nopmOK = sum(nopmBy, "server and database")
	}
	if nopmOK { // else why says why of the databases
		h.tpm, tpmOK = sum(tpmBy, "server")
	}
	h.ok = h.ok && nopmOK && tpmOK
	if h.ok {
		why = ""
	}
	m.noNOPM = why
	h.servers, h.databases = len(tpmBy), len(nopmBy)
	for _, k := range keys {
		if nopmBy[k].clients > 1 {
			h.shared++
		}
	}
	for _, rd := range tpmBy {
		if rd.clients > 1 && h.shared == 0 {
			h.shared++ // one server, several databases
		}
	}
	slices.Sort(common)
	h.commonText = strings.Join(slices.Compact(common), ", ")
	m.hammer = h
	g.merged = m
	g.figureWorkers = m.workers
	return nil
}

// TestResult is HammerDB's result line for nopm and tpm, as its
// testresult prints it: "TEST RESULT : System achieved N NOPM from M
// PostgreSQL TPM", whole numbers (HammerDB divides integers).
func TestResult(nopm, tpm float64) string {
	return fmt.Sprintf("TEST RESULT : System achieved %.0f NOPM from %.0f PostgreSQL TPM", math.Floor(nopm), math.Floor(tpm))
}

// xactByDatabase returns xact_commit + xact_rollback of every database of
// the server by its oid, HammerDB's transaction count (their sum).
func xactByDatabase(ctx context.Context, db *sqlx.DB) (map[uint32]int64, error) {
	out := map[uint32]int64{}
	rows, err := db.Query(ctx, "SELECT datid, (xact_commit + xact_rollback)::bigint FROM pg_stat_database")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id uint32
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// commonXact returns the sums of start's and end's counts over the
// databases present at both ends: a database dropped during the run (its
// counts leave the server's sum) or made during it is left out, where
// HammerDB's plain sum would read a negative or inflated TPM (a CI run
// beside other tests' DROP DATABASE read -642,920).
func commonXact(start, end map[uint32]int64) (s, e int64) {
	for id, n := range start {
		if m, ok := end[id]; ok {
			s += n
			e += m
		}
	}
	return s, e
}

// warehousesText is "1 warehouse" or "N warehouses".
func warehousesText(n int) string {
	if n == 1 {
		return "1 warehouse"
	}
	return strconv.Itoa(n) + " warehouses"
}

// hammerBuilt reads, for --profile hammerdb, a database that HammerDB's
// own buildschema built: HammerDB's nine tables and no tpcc_meta (the
// mark of stampede's load). It is run as HammerDB runs it: its warehouses
// are the rows of table warehouse (adopted when --warehouses is not
// given), its routines those installed, as with --use-installed-routines
// whether given or not (hammerdbcli's vurun gives it not), and the run
// header says so in one line. ok is false when the database is not such a one.
func (g *tpcc) hammerBuilt(ctx context.Context, db *sqlx.DB) (meta, bool, error) {
	if !g.hammerdb() || g.tenant > 0 {
		return meta{}, false, nil
	}
	for _, t := range dataTables {
		if t == orderName {
			t = hammerOrders
		}
		ok, err := tableExists(ctx, db, t)
		if err != nil || !ok {
			return meta{}, false, err
		}
	}
	// A table of stampede's load (its mark) is stampede's, whose
	// tpcc_meta was dropped: not HammerDB's build.
	if c, err := workload.TableComment(ctx, db, warehouseTable); err != nil || workload.IsMark(c) {
		return meta{}, false, err
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+warehouseTable).Scan(&n); err != nil {
		return meta{}, false, fmt.Errorf("counting table %s: %w", warehouseTable, err)
	}
	if n == 0 {
		return meta{}, false, nil
	}
	g.hdb.useInstalled = true // HammerDB's routines, whatever their bodies
	g.hdb.notLoaded = fmt.Sprintf("database %s is HammerDB's build (its tables, no %s of stampede's load): run as HammerDB runs it, on its %s (the rows of table %s) and the routines installed",
		db.Database(), metaTable, warehousesOf(n), warehouseTable)
	return meta{version: schemaVersion, warehouses: n}, true, nil
}

// hammerDeviation is one way a run of --profile hammerdb differs from
// HammerDB's own; calls says it is in the calls the client makes (so
// also with the user's routines), not in stampede's routines' bodies.
type hammerDeviation struct {
	text  string
	calls bool
}

// hammerDeviations is every way a run of --profile hammerdb differs from
// HammerDB's: the one list the run header names (hammerDeviationLine)
// and the README quotes (a test holds the README to it).
var hammerDeviations = []hammerDeviation{
	{calls: true, text: "Payment and Order-Status by last name get the name drawn (HammerDB's prepared calls pass the literal '$8' instead, so its by-name lookups find no customer)"},
	{text: "New-Order updates S_YTD, S_ORDER_CNT and S_REMOTE_CNT, Payment C_YTD_PAYMENT and C_PAYMENT_CNT, Delivery C_DELIVERY_CNT, as the specification requires and its consistency checks need (HammerDB's routines leave them unchanged: with HammerDB's PAYMENT installed, 3.3.2.10 and 3.3.2.12 fail)"},
	{text: "New-Order locks its lines' stock rows first, in the order of their keys (HammerDB's updates them in the order of its lines, with no lock before)"},
	{text: "a line supplied by another warehouse (1%, as HammerDB's) gets one of the other warehouses, and only such a line makes the order not all-local (HammerDB's draws among all of them, its own included, and sets O_ALL_LOCAL 0 whenever it draws: with 1 warehouse, for every order with such a line though all its lines are local)"},
}

// hammerDeviationLine is the run header's line of hammerDeviations: with
// --use-installed-routines, those of the calls only, the routines being
// the user's.
func (g *tpcc) hammerDeviationLine() string {
	var out []string
	for _, d := range hammerDeviations {
		if d.calls || !g.allYours() {
			out = append(out, d.text)
		}
	}
	what := "stampede's run differs from HammerDB's"
	switch {
	case g.allYours() && g.installedWhy() == "HammerDB's build":
		what += " in its calls (the routines are HammerDB's build's)"
	case g.allYours():
		what += " in its calls (the routines are yours)"
	case g.hdb.replaced != "":
		what += " in its calls, and where its routines run (those not named above as yours)"
	}
	ways := fmt.Sprintf("%d ways", len(out))
	if len(out) == 1 {
		ways = "one way"
	}
	return fmt.Sprintf("%s in %s: %s", what, ways, strings.Join(out, "; "))
}

// allYours says that every routine a run calls may be the user's (the
// flag, or HammerDB's build), not only those a run found replaced, which
// its header names.
func (g *tpcc) allYours() bool { return g.hdb.useInstalled && g.hdb.replaced == "" }

// installedWhy says why a run calls the routines installed: the flag, or
// HammerDB's build (hammerBuilt).
func (g *tpcc) installedWhy() string {
	if g.hdb.notLoaded != "" && (g.flags.FlagSet == nil || !g.flags.Changed("use-installed-routines")) {
		return "HammerDB's build"
	}
	if len(g.hdb.yours) > 0 {
		verb := "is"
		if len(g.hdb.yours) > 1 {
			verb = "are"
		}
		return strings.Join(g.hdb.yours, ", ") + " " + verb + " not stampede's, the others are"
	}
	return "--use-installed-routines"
}
