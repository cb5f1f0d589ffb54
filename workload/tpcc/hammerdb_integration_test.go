package tpcc

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// hammerCatalogue is the catalogue of the schema HammerDB's buildschema
// makes on PostgreSQL, written by hand from the CREATE TABLE and CREATE
// INDEX statements of CreateTables and CreateIndexes in HammerDB's
// src/postgresql/pgoltp.tcl (not from stampede's code): every column in
// order with format_type's name of its type and NOT NULL, then every
// index as pg_indexes defines it. Unquoted names fold to lower case.
const hammerCatalogue = `
customer c_since timestamp with time zone not null
customer c_id integer not null
customer c_w_id integer not null
customer c_d_id smallint not null
customer c_payment_cnt smallint not null
customer c_delivery_cnt smallint not null
customer c_first character varying(16) not null
customer c_middle character(2) not null
customer c_last character varying(16) not null
customer c_street_1 character varying(20) not null
customer c_street_2 character varying(20) not null
customer c_city character varying(20) not null
customer c_state character(2) not null
customer c_zip character(9) not null
customer c_phone character(16) not null
customer c_credit character(2) not null
customer c_credit_lim numeric(12,2) not null
customer c_discount numeric(4,4) not null
customer c_balance numeric(12,2) not null
customer c_ytd_payment numeric(12,2) not null
customer c_data character varying(500) not null
district d_w_id integer not null
district d_next_o_id integer not null
district d_id smallint not null
district d_ytd numeric(12,2) not null
district d_tax numeric(4,4) not null
district d_name character varying(10) not null
district d_street_1 character varying(20) not null
district d_street_2 character varying(20) not null
district d_city character varying(20) not null
district d_state character(2) not null
district d_zip character(9) not null
history h_date timestamp with time zone not null
history h_c_id integer
history h_c_w_id integer not null
history h_w_id integer not null
history h_c_d_id smallint not null
history h_d_id smallint not null
history h_amount numeric(6,2) not null
history h_data character varying(24) not null
item i_id integer not null
item i_im_id integer not null
item i_name character varying(24) not null
item i_price numeric(5,2) not null
item i_data character varying(50) not null
new_order no_w_id integer not null
new_order no_o_id integer not null
new_order no_d_id smallint not null
order_line ol_delivery_d timestamp with time zone
order_line ol_o_id integer not null
order_line ol_w_id integer not null
order_line ol_i_id integer not null
order_line ol_supply_w_id integer not null
order_line ol_d_id smallint not null
order_line ol_number smallint not null
order_line ol_quantity smallint not null
order_line ol_amount numeric(6,2)
order_line ol_dist_info character(24)
orders o_entry_d timestamp with time zone not null
orders o_id integer not null
orders o_w_id integer not null
orders o_c_id integer not null
orders o_d_id smallint not null
orders o_carrier_id smallint
orders o_ol_cnt smallint not null
orders o_all_local smallint not null
stock s_i_id integer not null
stock s_w_id integer not null
stock s_ytd integer not null
stock s_quantity smallint not null
stock s_order_cnt smallint not null
stock s_remote_cnt smallint not null
stock s_dist_01 character(24) not null
stock s_dist_02 character(24) not null
stock s_dist_03 character(24) not null
stock s_dist_04 character(24) not null
stock s_dist_05 character(24) not null
stock s_dist_06 character(24) not null
stock s_dist_07 character(24) not null
stock s_dist_08 character(24) not null
stock s_dist_09 character(24) not null
stock s_dist_10 character(24) not null
stock s_data character varying(50) not null
warehouse w_id integer not null
warehouse w_name character varying(10) not null
warehouse w_street_1 character varying(20) not null
warehouse w_street_2 character varying(20) not null
warehouse w_city character varying(20) not null
warehouse w_state character(2) not null
warehouse w_zip character(9) not null
warehouse w_tax numeric(4,4) not null
warehouse w_ytd numeric(16,2) not null
index customer_i1 ON public.customer USING btree (c_w_id, c_d_id, c_id)
index customer_i2 ON public.customer USING btree (c_w_id, c_d_id, c_last, c_first, c_id) unique
index district_i1 ON public.district USING btree (d_w_id, d_id)
index item_i1 ON public.item USING btree (i_id)
index new_order_i1 ON public.new_order USING btree (no_w_id, no_d_id, no_o_id)
index order_line_i1 ON public.order_line USING btree (ol_w_id, ol_d_id, ol_o_id, ol_number)
index orders_i1 ON public.orders USING btree (o_w_id, o_d_id, o_id)
index orders_i2 ON public.orders USING btree (o_w_id, o_d_id, o_c_id, o_id) unique
index stock_i1 ON public.stock USING btree (s_i_id, s_w_id)
index warehouse_i1 ON public.warehouse USING btree (w_id)
foreign keys 0
`

// catalogue lists db's schema in hammerCatalogue's form: the columns of
// the tables of HammerDB's schema, their indexes (primary keys are unique
// indexes: "unique" is said of the others), and the number of foreign
// keys.
func catalogue(t *testing.T, ctx context.Context, db *sqlx.DB) string {
	t.Helper()
	tables := []string{"customer", "district", "history", "item", "new_order", "order_line", "orders", "stock", "warehouse"}
	var b strings.Builder
	b.WriteString("\n")
	rows, err := db.Query(ctx, `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY c.relname, a.attnum`, tables)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tab, col, typ string
		var notNull bool
		if err := rows.Scan(&tab, &col, &typ, &notNull); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s", tab, col, typ)
		if notNull {
			b.WriteString(" not null")
		}
		b.WriteString("\n")
	}
	rows.Close()
	rows, err = db.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid), i.indisunique AND NOT i.indisprimary
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) ORDER BY 1`, tables)
	if err != nil {
		t.Fatal(err)
	}
	def := regexp.MustCompile(`^CREATE (UNIQUE )?INDEX `)
	for rows.Next() {
		var name, d string
		var unique bool
		if err := rows.Scan(&name, &d, &unique); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "index %s", def.ReplaceAllString(d, ""))
		if unique {
			b.WriteString(" unique")
		}
		b.WriteString("\n")
	}
	rows.Close()
	var fks int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace").Scan(&fks); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "foreign keys %d\n", fks)
	return b.String()
}

// loadHammer loads one warehouse of --profile hammerdb into a fresh
// database.
func loadHammer(t testing.TB, ctx context.Context, workers int, args ...string) (*tpcc, *sqlx.DB) {
	t.Helper()
	db := freshDB(t, workers)
	g := newGen(t, append([]string{"--profile", "hammerdb"}, args...)...)
	g.SetSeed(7)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	return g, db
}

// runHammer runs perWorker calls on each of workers virtual users of g and
// returns the calls of each transaction type.
func runHammer(t *testing.T, ctx context.Context, g *tpcc, db *sqlx.DB, workers, perWorker int) []int64 {
	t.Helper()
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 3, Duration: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return runOps(t, ctx, ql, perWorker, &countingRecorder{})
}

// TestHammerDBProfile loads --profile hammerdb and checks the schema
// against HammerDB's, runs every routine (functions, then procedures)
// with the twelve consistency checks passing after each, and measures
// NOPM and TPM against the server's counters read by the test.
func TestHammerDBProfile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const workers = 4
	g, db := loadHammer(t, ctx, workers)
	if got := catalogue(t, ctx, db); got != hammerCatalogue {
		t.Errorf("schema differs from HammerDB's:\n got: %s\nwant: %s", got, hammerCatalogue)
	}

	g.expensive = true
	mustPass(t, ctx, g, db, "after loading")

	// The figures: the test reads the server's counters around the run,
	// its own database's (other packages' tests make and drop databases
	// on the same server meanwhile: the server-wide sum may fall).
	var oid uint32
	if err := db.QueryRow(ctx, "SELECT oid FROM pg_database WHERE datname = current_database()").Scan(&oid); err != nil {
		t.Fatal(err)
	}
	xact := func() int64 {
		var n int64
		if err := db.QueryRow(ctx, "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datid = $1", oid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	nextOID := func() int64 {
		var n int64
		if err := db.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 3, Duration: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	x0, n0 := xact(), nextOID()
	end, err := g.StartMeasurement(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	counts := runOps(t, ctx, ql, 120, &countingRecorder{})
	var calls int64
	for _, n := range counts {
		calls += n
	}
	// A backend's counts reach pg_stat_database when it has been idle for
	// a while (up to 10 s after its last flush): the end read waits for
	// every call to be counted.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if xact() >= g.run.meas.xactBy[oid]+calls || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := end(ctx); err != nil {
		t.Fatal(err)
	}
	x1, n1 := xact(), nextOID()
	for op, n := range counts {
		if n == 0 {
			t.Errorf("no %s in %d calls", txs[op].name, workers*120)
		}
	}
	figs := map[string]workload.Figure{}
	for _, f := range g.Figures(map[string]int64{"newOrder": counts[opNewOrder]}, 6*time.Second) {
		figs[f.Name] = f
	}
	minutes := (6 * time.Second).Minutes()
	if got, want := figs["hammerdb_nopm"].Value, float64(n1-n0)/minutes; got != want {
		t.Errorf("hammerdb_nopm %v, want the growth of sum(d_next_o_id) %d per nominal minute: %v", got, n1-n0, want)
	}
	if n1-n0 != counts[opNewOrder] {
		t.Errorf("sum(d_next_o_id) grew by %d, want the %d New-Orders called (each commits, the unused item's too)", n1-n0, counts[opNewOrder])
	}
	m := g.run.meas
	s, sok := m.xactBy[oid]
	e, eok := m.xactEndBy[oid]
	if !sok || !eok || s < x0 || e > x1 {
		t.Errorf("the run read the test's database's transactions at %d and %d (read: %v %v), outside the test's reads %d and %d", s, e, sok, eok, x0, x1)
	}
	if grew := e - s; grew < calls || grew > x1-x0 {
		t.Errorf("the test's database's transactions grew by %d in the run's reads: want at least the %d calls, at most the test's %d", grew, calls, x1-x0)
	}
	// The figure sums every database present at both reads: at least the
	// test's database's growth, never less (counts only grow).
	if grew := m.xactEnd - m.xactStart; grew < e-s {
		t.Errorf("the run's transactions grew by %d over the databases present at both ends, less than the test's database's %d", grew, e-s)
	}
	for id, n := range m.xactBy {
		if end, ok := m.xactEndBy[id]; ok && end < n {
			t.Errorf("database %d's transactions fell from %d to %d between the run's reads", id, n, end)
		}
	}
	if got, want := figs["hammerdb_tpm"].Value, float64(m.xactEnd-m.xactStart)/minutes; got != want {
		t.Errorf("hammerdb_tpm %v, want %v", got, want)
	}
	wantLine := TestResult(float64(n1-n0)/minutes, float64(m.xactEnd-m.xactStart)/minutes)
	if figs["hammerdb_nopm"].Text != wantLine || !strings.HasPrefix(wantLine, "TEST RESULT : System achieved ") {
		t.Errorf("result line %q, want %q", figs["hammerdb_nopm"].Text, wantLine)
	}
	mustPass(t, ctx, g, db, "after the functions ran")
	// The unused item (1% of New-Orders): HammerDB's order commits, with
	// that line, its last, of amount and S_DIST_xx NULL. New-Orders are
	// called until one has it (each has a 1% chance: 2000 fail together
	// about twice in a billion), and every New-Order commits.
	unusedLines := func() (all, asHammerDB int64) {
		if err := db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE ol_amount IS NULL AND ol_dist_info IS NULL AND ol_number = o_ol_cnt)
			FROM order_line JOIN orders ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id WHERE ol_i_id = 100001`).Scan(&all, &asHammerDB); err != nil {
			t.Fatal(err)
		}
		return all, asHammerDB
	}
	u0, _ := unusedLines()
	n2 := nextOID()
	more := int64(0)
	for u, _ := unusedLines(); u == u0 && more < 2000; u, _ = unusedLines() {
		if _, err := db.Exec(ctx, "SELECT neword(1, 1, $1, $2, 10, 0)", 1+more%10, 1+more%3000); err != nil {
			t.Fatal(err)
		}
		more++
	}
	all, asHammerDB := unusedLines()
	if all == u0 || all != asHammerDB {
		t.Errorf("after %d more New-Orders, %d lines of item 100001 (%d before), %d of them the last of a committed order with amount and S_DIST_xx NULL", more, all, u0, asHammerDB)
	}
	if grown := nextOID() - n2; grown != more {
		t.Errorf("sum(d_next_o_id) grew by %d over %d New-Orders: each commits, the unused item's too", grown, more)
	}

	// Procedures: init with --stored-procs replaces stampede's functions.
	gp := newGen(t, "--profile", "hammerdb", "--stored-procs")
	gp.expensive = true
	if err := gp.installRoutines(ctx, db); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	if err := func() error {
		rows, err := db.Query(ctx, "SELECT DISTINCT prokind::text FROM pg_proc WHERE proname IN ('neword', 'payment', 'delivery', 'ostat', 'slev') AND pronamespace = 'public'::regnamespace")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			kinds = append(kinds, k)
		}
		return rows.Err()
	}(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kinds, []string{"p"}) {
		t.Errorf("after init --stored-procs the routines are of kinds %q, want procedures only", kinds)
	}
	for op, n := range runHammer(t, ctx, gp, db, workers, 120) {
		if n == 0 {
			t.Errorf("no %s (procedure) in %d calls", txs[op].name, workers*120)
		}
	}
	mustPass(t, ctx, gp, db, "after the procedures ran")
	// Without --stored-procs, a run calls the procedures installed,
	// saying so (HammerDB's run script leaves pg_storedprocs false after
	// its build script set it true); with --stored-procs=false given, it
	// refuses, naming what is installed.
	gd := newGen(t, "--profile", "hammerdb")
	ql, err = gd.Ops(ctx, db, workload.OpsConfig{Concurrency: 1})
	if err != nil {
		t.Fatalf("a run without --stored-procs over procedures: %v", err)
	}
	if h := strings.Join(ql.Header, "\n"); !strings.Contains(h, "procedures called with CALL, found installed as procedures, not functions: called with CALL without --stored-procs") {
		t.Errorf("the header does not say the procedures found are called:\n%s", h)
	}
	if counts := runOps(t, ctx, ql, 30, &countingRecorder{}); counts[opNewOrder] == 0 {
		t.Errorf("no New-Order called as a procedure without --stored-procs: %v", counts)
	}
	gf := newGen(t, "--profile", "hammerdb", "--stored-procs=false")
	if _, err := gf.Ops(ctx, db, workload.OpsConfig{Concurrency: 1}); err == nil ||
		!strings.Contains(err.Error(), "function neword(integer, integer, integer, integer, integer, integer) (New-Order) is not in database "+db.Database()+", which has procedure neword(") ||
		!strings.Contains(err.Error(), "leave --stored-procs=false out to call the procedures") {
		t.Errorf("a run given --stored-procs=false where procedures are installed: %v", err)
	}
}

// TestHammerDBUsersRoutines replaces neword with a copy of stampede's that
// also inserts into an audit table, as a user measuring a neword of their
// own does (psql < neword.sql): a run refuses it unless
// --use-installed-routines, which then runs it (the audit table's rows);
// init never replaces it; a missing routine or one of the wrong signature
// is named.
func TestHammerDBUsersRoutines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const workers = 3
	g, db := loadHammer(t, ctx, workers)
	// The user's copy, written as HammerDB's users write theirs (its
	// CREATE OR REPLACE text, unnamed parameters with ALIAS FOR): it
	// replaces stampede's, and also records each order it takes.
	for _, q := range []string{"CREATE TABLE neword_audit (w_id integer, d_id integer, c_id integer)", hammerStyleNeword} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// HammerDB's DBMS_RANDOM(lo, hi): uniform integers from lo to hi.
	var lo, hi, distinct, nulls int64
	if err := db.QueryRow(ctx, `SELECT min(v), max(v), count(DISTINCT v), (SELECT count(*) FROM (SELECT dbms_random(NULL, 3)) n WHERE dbms_random IS NULL)
		FROM (SELECT dbms_random(5, 10) AS v FROM generate_series(1, 3000)) d`).Scan(&lo, &hi, &distinct, &nulls); err != nil {
		t.Fatal(err)
	}
	if lo != 5 || hi != 10 || distinct != 6 || nulls != 1 {
		t.Errorf("dbms_random(5, 10) drew %d..%d, %d distinct values (want 5..10, 6), dbms_random(NULL, 3) NULL %d times (want 1)", lo, hi, distinct, nulls)
	}
	var audited string
	if err := db.QueryRow(ctx, "SELECT pg_get_functiondef('neword'::regproc)").Scan(&audited); err != nil {
		t.Fatal(err)
	}
	// A run without --use-installed-routines calls the user's neword, as
	// HammerDB calls whatever is installed (the field report's `psql tpcc
	// < neword.sql` after the build), and its header says so.
	gr := newGen(t, "--profile", "hammerdb")
	if err := gr.checkRoutines(ctx, db); err != nil {
		t.Errorf("a run with a replaced neword, without --use-installed-routines: %v", err)
	}
	if want := "function neword(integer,integer,integer,integer,integer,integer) in database " + db.Database() + " is not the one stampede's init made (yours, or replaced since): the run calls the routines installed, as HammerDB does"; !gr.hdb.useInstalled ||
		!strings.Contains(strings.Join(gr.hammerHeader(1), "\n"), want) {
		t.Errorf("a run with a replaced neword: calls the installed routines %v, header:\n%s\nwant %q", gr.hdb.useInstalled, strings.Join(gr.hammerHeader(1), "\n"), want)
	}
	// The other routines are still stampede's: the header keeps naming how
	// they differ from HammerDB's (chk33c B4).
	if h := strings.Join(gr.hammerHeader(1), "\n"); !strings.Contains(h, "3.3.2.10 and 3.3.2.12 fail") || !strings.Contains(h, "(those not named above as yours)") {
		t.Errorf("the header of a run with one replaced routine drops the deviations of stampede's others:\n%s", h)
	}
	// init: refused without the flag, the user's kept with it.
	if err := g.installRoutines(ctx, db); err == nil || !strings.Contains(err.Error(), "function neword(integer,integer,integer,integer,integer,integer) in database "+db.Database()+" was not made by stampede, or was replaced since") {
		t.Errorf("init over a replaced neword: %v", err)
	}
	gu := newGen(t, "--profile", "hammerdb", "--use-installed-routines")
	if err := gu.installRoutines(ctx, db); err != nil {
		t.Fatal(err)
	}
	var now string
	if err := db.QueryRow(ctx, "SELECT pg_get_functiondef('neword'::regproc)").Scan(&now); err != nil {
		t.Fatal(err)
	}
	if now != audited {
		t.Errorf("init --use-installed-routines changed the user's neword:\n%s", now)
	}
	counts := runHammer(t, ctx, gu, db, workers, 60)
	var audits int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM neword_audit").Scan(&audits); err != nil {
		t.Fatal(err)
	}
	if audits != counts[opNewOrder] || audits == 0 {
		t.Errorf("neword_audit holds %d rows after %d New-Orders: the user's neword did not run", audits, counts[opNewOrder])
	}

	// The same with procedures (--stored-procs): HammerDB's PROCEDURE
	// NEWORD text, its parameter names and OUT row, replaces stampede's.
	t.Run("procedures", func(t *testing.T) {
		if _, err := db.Exec(ctx, "DROP FUNCTION neword(integer, integer, integer, integer, integer, integer)"); err != nil {
			t.Fatal(err)
		}
		gp := newGen(t, "--profile", "hammerdb", "--stored-procs")
		if err := gp.installRoutines(ctx, db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, hammerStyleNewordProc); err != nil {
			t.Fatalf("HammerDB's CREATE OR REPLACE PROCEDURE NEWORD over stampede's: %v", err)
		}
		if _, err := db.Exec(ctx, "TRUNCATE neword_audit"); err != nil {
			t.Fatal(err)
		}
		gpu := newGen(t, "--profile", "hammerdb", "--stored-procs", "--use-installed-routines")
		counts := runHammer(t, ctx, gpu, db, workers, 60)
		var audits int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM neword_audit").Scan(&audits); err != nil {
			t.Fatal(err)
		}
		if audits != counts[opNewOrder] || audits == 0 {
			t.Errorf("neword_audit holds %d rows after %d New-Orders: the user's procedure did not run", audits, counts[opNewOrder])
		}
		// Back to functions for the cases below.
		if _, err := db.Exec(ctx, hammerStyleNeword); err != nil {
			t.Fatal(err)
		}
		if err := gu.installRoutines(ctx, db); err != nil {
			t.Fatal(err)
		}
	})

	// A missing routine and one of the wrong signature are named.
	cases := []struct {
		name, sql, want string
	}{
		{"missing", "DROP FUNCTION slev(integer, integer, integer)",
			"function slev (Stock-Level) is missing from database " + db.Database()},
		{"signature", "CREATE FUNCTION slev(integer, integer) RETURNS integer LANGUAGE sql AS 'SELECT 0'",
			"function slev(integer, integer, integer) (Stock-Level) is not in database " + db.Database() + ", which has function slev(integer,integer) instead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := db.Exec(ctx, c.sql); err != nil {
				t.Fatal(err)
			}
			_, err := gu.Ops(ctx, db, workload.OpsConfig{Concurrency: 1})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, c.want)
			}
		})
	}
	// init --routines-only --use-installed-routines makes the missing
	// one, says which were already there unchanged, and keeps the user's.
	t.Run("routines-only", func(t *testing.T) {
		if _, err := db.Exec(ctx, "DROP FUNCTION slev(integer, integer)"); err != nil {
			t.Fatal(err)
		}
		gr := newGen(t, "--profile", "hammerdb", "--use-installed-routines", "--routines-only")
		var log strings.Builder
		gr.SetLoadLog(&log)
		if err := gr.LoadItself(ctx, db); err != nil {
			t.Fatal(err)
		}
		want := "made function slev(integer,integer,integer) in database " + db.Database() + " (its data untouched)\n" +
			"already there and unchanged (stampede's): function dbms_random(integer,integer), function delivery(integer,integer), " +
			"function ostat(integer,integer,integer,integer,character varying), " +
			"function payment(integer,integer,integer,integer,integer,integer,numeric,character varying,character varying,numeric)\n" +
			"kept yours: function neword(integer,integer,integer,integer,integer,integer), " +
			"procedure neword(integer,integer,integer,integer,integer,numeric,character varying,character varying,numeric,numeric,integer,timestamp without time zone)\n"
		if log.String() != want {
			t.Errorf("init --routines-only said:\n%s\nwant:\n%s", log.String(), want)
		}
	})
}

// TestHammerDBProfileMismatch: a database loaded with one profile is
// refused, in one line, by a run or check of the other, by the profile
// tpcc_meta records: also when it holds the other profile's orders table
// too (a user's orders beside stampede's load, chk33 F2).
func TestHammerDBProfileMismatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, hdb := loadHammer(t, ctx, 1, "--warehouses", "2") // the reload's remedy names them
	sdb := freshDB(t, 1)
	gs := newGen(t)
	if err := workload.Setup(ctx, sdb, gs, workload.LoadOptions{Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := sdb.Exec(ctx, "CREATE TABLE orders (o_id integer)"); err != nil {
		t.Fatal(err)
	}
	gh := newGen(t, "--profile", "hammerdb")
	cases := []struct {
		name string
		g    *tpcc
		db   *sqlx.DB
		want string
	}{
		{"hammerdb on stampede's", gh, sdb, "holds stampede's TPC-C schema (table \"order\"), not HammerDB's: leave --profile hammerdb out, or reload with `stampede init tpcc --profile hammerdb --drop --warehouses 1`"},
		{"stampede on hammerdb's", newGen(t), hdb, "holds HammerDB's TPROC-C schema (table orders), loaded with --profile hammerdb: add --profile hammerdb, or reload with `stampede init tpcc --drop --warehouses 2`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for what, err := range map[string]error{
				"PreRun": c.g.Hooks().PreRun(ctx, c.db),
				"check":  c.g.Hooks().CheckConsistency(ctx, c.db, &lines{}),
			} {
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v, want one line with %q", what, err, c.want)
				}
			}
			if _, err := c.g.Ops(ctx, c.db, workload.OpsConfig{Concurrency: 1}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Ops: %v", err)
			}
		})
	}
}

// TestHammerDBPartitionTables: with --partition and 300 warehouses,
// ORDER_LINE is created partitioned by hash of OL_W_ID and the PreLoad
// hook makes HammerDB's partitions ol_0 .. ol_2 (no rows are loaded).
func TestHammerDBPartitionTables(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := freshDB(t, 1)
	g := newGen(t, "--profile", "hammerdb", "--partition", "--warehouses", "300")
	i := slices.IndexFunc(g.Tables(), func(tb workload.Table) bool { return tb.Name == orderLineTable })
	if _, err := db.Exec(ctx, db.Dialect().CreateTable(orderLineTable, g.Tables()[i].Schema)); err != nil {
		t.Fatal(err)
	}
	if err := g.Hooks().PreLoad(ctx, db); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'order_line'::regclass ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []string{"ol_0 FOR VALUES WITH (modulus 3, remainder 0)", "ol_1 FOR VALUES WITH (modulus 3, remainder 1)", "ol_2 FOR VALUES WITH (modulus 3, remainder 2)"}
	if !slices.Equal(got, want) {
		t.Errorf("partitions of order_line: %q, want %q", got, want)
	}
	var strategy string
	if err := db.QueryRow(ctx, "SELECT pg_get_partkeydef('order_line'::regclass)").Scan(&strategy); err != nil || strategy != "HASH (ol_w_id)" {
		t.Errorf("order_line is partitioned by %q (%v), want HASH (ol_w_id)", strategy, err)
	}
}

// hammerStyleNeword and hammerStyleNewordProc are a user's NEWORD written
// in the form of HammerDB's own (pgoltp.tcl's CREATE OR REPLACE FUNCTION
// NEWORD with unnamed parameters named by ALIAS FOR, and its PROCEDURE
// NEWORD with its parameter names and INOUT row), written for this test:
// an order of no_o_ol_cnt lines that is also recorded in neword_audit,
// whose items and quantities are drawn by DBMS_RANDOM, as HammerDB's
// NEWORD draws them (HammerDB's buildschema makes DBMS_RANDOM; so must
// stampede's init, or every such New-Order fails).
// They must replace stampede's routines as they replace HammerDB's.
const (
	hammerStyleNeword = `CREATE OR REPLACE FUNCTION NEWORD (INTEGER, INTEGER, INTEGER, INTEGER, INTEGER, INTEGER) RETURNS NUMERIC AS $$
DECLARE
no_w_id ALIAS FOR $1;
no_max_w_id ALIAS FOR $2;
no_d_id ALIAS FOR $3;
no_c_id ALIAS FOR $4;
no_o_ol_cnt ALIAS FOR $5;
no_d_next_o_id ALIAS FOR $6;
v_o_id INTEGER;
BEGIN
` + hammerStyleNewordBody + `
RETURN 0;
END;
$$ LANGUAGE 'plpgsql'`
	hammerStyleNewordProc = `CREATE OR REPLACE PROCEDURE NEWORD (
no_w_id IN INTEGER,
no_max_w_id IN INTEGER,
no_d_id IN INTEGER,
no_c_id IN INTEGER,
no_o_ol_cnt IN INTEGER,
no_c_discount INOUT NUMERIC,
no_c_last INOUT VARCHAR,
no_c_credit INOUT VARCHAR,
no_d_tax INOUT NUMERIC,
no_w_tax INOUT NUMERIC,
no_d_next_o_id INOUT INTEGER,
tstamp IN TIMESTAMP )
AS $$
DECLARE
v_o_id INTEGER;
BEGIN
` + hammerStyleNewordBody + `
no_d_next_o_id := v_o_id;
END;
$$ LANGUAGE 'plpgsql'`
	hammerStyleNewordBody = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = no_d_id AND d_w_id = no_w_id
RETURNING d_next_o_id - 1 INTO v_o_id;
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES (v_o_id, no_d_id, no_w_id, no_c_id, current_timestamp, no_o_ol_cnt, 1);
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, no_d_id, no_w_id);
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
SELECT v_o_id, no_d_id, no_w_id, n, DBMS_RANDOM(1, 100000), no_w_id, round(DBMS_RANDOM(1, 10)), 0, 'audited'
FROM generate_series(1, no_o_ol_cnt) AS n;
INSERT INTO neword_audit (w_id, d_id, c_id) VALUES (no_w_id, no_d_id, no_c_id);`
)

// TestHammerDBBuiltByHammerDB: a database that HammerDB's buildschema
// built (here stampede's load with stampede's marks taken away: no
// tpcc_meta or stampede_load, no table comments, routines that are not
// stampede's, a neword of HammerDB's form) runs, with or without
// --use-installed-routines, as HammerDB runs it: its warehouses are the
// rows of table warehouse, the header says in one line that stampede did
// not load it, and the New-Orders commit (the growth of sum(d_next_o_id)
// the test reads).
func TestHammerDBBuiltByHammerDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const workers = 2
	g, db := loadHammer(t, ctx, workers, "--warehouses", "2")
	stmts := []string{"DROP TABLE " + metaTable, "DROP TABLE IF EXISTS " + workload.LoadRecordTable, hammerStyleNeword,
		"CREATE TABLE neword_audit (w_id integer, d_id integer, c_id integer)"}
	for _, tb := range dataTables {
		if tb == orderName {
			tb = hammerOrders
		}
		stmts = append(stmts, "COMMENT ON TABLE "+tb+" IS NULL", "COMMENT ON TYPE "+tb+" IS NULL")
	}
	inst, err := g.installedRoutines(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range inst {
		stmts = append(stmts, "COMMENT ON ROUTINE "+r.signature+" IS NULL")
	}
	for _, q := range stmts {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Without --profile hammerdb: one line that says to add it, and no
	// reload (stampede reloads nothing it did not load).
	if err := newGen(t).checkProfile(ctx, db); err == nil || err.Error() != "database "+db.Database()+" holds HammerDB's TPROC-C schema (table orders), built by HammerDB (no tpcc_meta of stampede's load): add --profile hammerdb" {
		t.Errorf("a run of HammerDB's build without --profile hammerdb: %v", err)
	}
	// Without --use-installed-routines too (hammerdbcli's vurun): HammerDB
	// runs the routines installed.
	gs := newGen(t, "--profile", "hammerdb", "--warehouses", "2")
	if ql, err := gs.Ops(ctx, db, workload.OpsConfig{Concurrency: 1}); err != nil {
		t.Errorf("a run of HammerDB's build without --use-installed-routines: %v", err)
	} else if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	gu := newGen(t, "--profile", "hammerdb", "--use-installed-routines")
	n, ok := gu.LoadedWarehouses(ctx, db)
	if n != 2 || !ok {
		t.Fatalf("LoadedWarehouses of HammerDB's build: %d %v, want 2 (the rows of table warehouse)", n, ok)
	}
	if err := gu.AdoptWarehouses(n); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := db.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&before); err != nil {
		t.Fatal(err)
	}
	ql, err := gu.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 3, Duration: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := "database " + db.Database() + " is HammerDB's build (its tables, no tpcc_meta of stampede's load): run as HammerDB runs it, on its 2 warehouses (the rows of table warehouse) and the routines installed"
	if len(ql.Header) == 0 || !strings.HasSuffix(ql.Header[0], want) {
		t.Errorf("header %q, want its first line to end with %q", ql.Header, want)
	}
	counts := runOps(t, ctx, ql, 40, &countingRecorder{})
	// The consistency checks run on it too (no tpcc_meta to look for).
	mustPass(t, ctx, gu, db, "after a run of HammerDB's build")
	// check given no --warehouses says where its warehouses come from:
	// HammerDB's table warehouse, not tpcc_meta (chk33 N1).
	var out lines
	note := "tpcc: checking the 2 warehouses of HammerDB's build in database " + db.Database() + " (the rows of its table warehouse)"
	if err := newGen(t, "--profile", "hammerdb").Hooks().CheckConsistency(ctx, db, &out); err != nil || len(out) == 0 || out[0] != note {
		t.Errorf("check of HammerDB's build: %v, %q; want first %q", err, out, note)
	}
	var after, audits int64
	if err := db.QueryRow(ctx, "SELECT sum(d_next_o_id), (SELECT count(*) FROM neword_audit) FROM district").Scan(&after, &audits); err != nil {
		t.Fatal(err)
	}
	if counts[opNewOrder] == 0 || after-before != counts[opNewOrder] || audits != counts[opNewOrder] {
		t.Errorf("%d New-Orders; sum(d_next_o_id) grew by %d, the user's neword recorded %d", counts[opNewOrder], after-before, audits)
	}
}

// TestHammerDBNewordPlacingNoOrder: a user's NEWORD that returns without
// placing an order (chk33c B8) gives NOPM 0 from the server while the
// client counts its calls as New-Orders; the NOPM figure says why, and
// HammerDB's TEST RESULT line stays as HammerDB prints it.
func TestHammerDBNewordPlacingNoOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const workers = 2
	g, db := loadHammer(t, ctx, workers)
	if _, err := db.Exec(ctx, `CREATE OR REPLACE FUNCTION NEWORD (INTEGER, INTEGER, INTEGER, INTEGER, INTEGER, INTEGER) RETURNS NUMERIC AS $$
BEGIN
RETURN 0;
END;
$$ LANGUAGE 'plpgsql'`); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 3, Duration: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	end, err := g.StartMeasurement(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	counts := runOps(t, ctx, ql, 60, &countingRecorder{})
	if err := end(ctx); err != nil {
		t.Fatal(err)
	}
	if counts[opNewOrder] == 0 {
		t.Fatalf("no New-Order called in %d calls: %v", workers*60, counts)
	}
	figs := map[string]workload.Figure{}
	for _, f := range g.Figures(map[string]int64{"newOrder": counts[opNewOrder]}, 6*time.Second) {
		figs[f.Name] = f
	}
	nopm := figs["NOPM"]
	if nopm.Value != 0 {
		t.Fatalf("NOPM %v from a NEWORD that places no order, want 0", nopm.Value)
	}
	want := fmt.Sprintf("the client saw %s New-Orders complete, yet sum(d_next_o_id) did not grow: the NEWORD routine in use placed no order", count(counts[opNewOrder]))
	if !strings.Contains(nopm.Text, want) {
		t.Errorf("NOPM reads %q, want it to say %q", nopm.Text, want)
	}
	if h := figs["hammerdb_nopm"]; h.Value != 0 || !strings.HasPrefix(h.Text, "TEST RESULT : System achieved 0 NOPM from ") || strings.Contains(h.Text, ";") {
		t.Errorf("HammerDB's line %q (%v), want TEST RESULT with 0 NOPM, as HammerDB prints it", h.Text, h.Value)
	}
}
