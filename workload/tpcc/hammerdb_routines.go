package tpcc

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"io"
	"slices"
	"strings"
	"text/template"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

//go:embed hammerdb_routines.sql.tmpl
var hammerRoutinesTmpl string

var hammerRoutinesT = template.Must(template.New("routines").Parse(hammerRoutinesTmpl))

// routine is one of the five routines a run calls: its name, its
// argument types (as oidvectortypes prints them) and its transaction.
type routine struct {
	name, args, description string
}

// dbmsRandom is HammerDB's sixth routine, which its buildschema makes
// beside the five (as a function in both of its forms) and its NEWORD
// calls for its draws: DBMS_RANDOM(lo, hi), an integer drawn uniformly
// from lo to hi. stampede's routines do not call it; init --profile
// hammerdb makes it so that a user's routine written from HammerDB's
// text runs (psql < neword.sql).
var dbmsRandom = routine{name: "dbms_random", args: "integer, integer", description: "HammerDB's DBMS_RANDOM"}

// dbmsRandomSQL makes dbmsRandom: written for stampede, with HammerDB's
// signature (unnamed parameters, so that HammerDB's own CREATE OR
// REPLACE text replaces it) and behaviour (truncation of a uniform draw
// over hi-lo+1 values shifted by lo; NULL for a NULL argument).
const dbmsRandomSQL = `CREATE FUNCTION dbms_random(integer, integer) RETURNS integer
LANGUAGE sql VOLATILE STRICT AS $$ SELECT trunc($1 + random() * ($2 - $1 + 1))::integer $$`

// madeRoutines returns the routines init makes: the five the run calls
// and, with --profile hammerdb, dbmsRandom.
func (g *tpcc) madeRoutines() []routine {
	rs := g.routines()
	if g.hammerdb() {
		rs = append(rs, dbmsRandom)
	}
	return rs
}

// routineStatementsOf returns the CREATE statements of g.madeRoutines(),
// in its order.
func (g *tpcc) routineStatementsOf() []string {
	stmts := routineStatements(g.routineMode())
	if g.hammerdb() {
		stmts = append(stmts, dbmsRandomSQL)
	}
	return stmts
}

// hammerFuncArgs and hammerProcArgs are the argument types of HammerDB's
// functions and procedures, in the order of the template: NEWORD,
// DELIVERY, PAYMENT, OSTAT, SLEV.
var (
	hammerFuncArgs = []string{
		"integer, integer, integer, integer, integer, integer",
		"integer, integer",
		"integer, integer, integer, integer, integer, integer, numeric, character varying, character varying, numeric",
		"integer, integer, integer, integer, character varying",
		"integer, integer, integer",
	}
	hammerProcArgs = []string{
		"integer, integer, integer, integer, integer, numeric, character varying, character varying, numeric, numeric, integer, timestamp without time zone",
		"integer, integer, timestamp without time zone",
		"integer, integer, integer, integer, integer, numeric, character, character varying, integer, " +
			"character varying, character varying, character varying, character, character, " +
			"character varying, character varying, character varying, character, character, " +
			"character varying, character, character varying, character varying, character varying, character, character, character, " +
			"timestamp without time zone, numeric, numeric, numeric, character varying, timestamp without time zone",
		"integer, integer, integer, integer, character varying, character varying, character varying, numeric, integer, timestamp without time zone, integer, text",
		"integer, integer, integer, integer",
	}
	// serverArgs are those of stampede's server-side functions
	// (--server-side): New-Order takes the lines drawn by the client.
	serverArgs = []string{
		"integer, integer, integer, integer[], integer[], integer[]",
		hammerFuncArgs[1], hammerFuncArgs[2], hammerFuncArgs[3], hammerFuncArgs[4],
	}
	routineNames        = []string{"neword", "delivery", "payment", "ostat", "slev"}
	routineDescriptions = []string{"New-Order", "Delivery", "Payment", "Order-Status", "Stock-Level"}
)

// serverPrefix leads the names of stampede's server-side functions.
const serverPrefix = "stampede_"

// routineData is what the template of the routines is executed with.
type routineData struct {
	// Procs makes procedures, Server stampede's server-side functions.
	Procs, Server bool
	// Prefix leads the routines' names; Orders is the orders table.
	Prefix, Orders string
}

// routineMode returns the template data of the generator's routines.
func (g *tpcc) routineMode() routineData {
	if !g.hammerdb() {
		return routineData{Server: true, Prefix: serverPrefix, Orders: orderTable}
	}
	return routineData{Procs: g.hdb.storedProcs, Orders: hammerOrders}
}

// routines returns the five routines the generator's runs call.
func (g *tpcc) routines() []routine {
	m := g.routineMode()
	args := hammerFuncArgs
	switch {
	case m.Server:
		args = serverArgs
	case m.Procs:
		args = hammerProcArgs
	}
	out := make([]routine, len(routineNames))
	for i, n := range routineNames {
		out[i] = routine{name: m.Prefix + n, args: args[i], description: routineDescriptions[i]}
	}
	return out
}

// routineKind is "function" or "procedure", as the routines are made.
func (g *tpcc) routineKind() string {
	if g.routineMode().Procs {
		return "procedure"
	}
	return "function"
}

// routineStatements returns the CREATE statements of the five routines
// of mode m.
func routineStatements(m routineData) []string {
	var b bytes.Buffer
	if err := hammerRoutinesT.Execute(&b, m); err != nil {
		panic(err) // a fixed template
	}
	var out []string
	for _, s := range strings.Split(b.String(), "\n--;\n") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// routineMark is the comment of a routine stampede made whose body has
// the md5 sum sum: a routine replaced since (CREATE OR REPLACE keeps the
// comment) no longer matches it.
func routineMark(gen workload.Generator, sum string) string {
	return workload.InitMark(gen) + " routine md5 " + sum
}

// installedRoutine is a routine of one of the five names in the current
// schema.
type installedRoutine struct {
	name, signature, kind, args string
	// ours says stampede made it and its body is still the one made.
	ours bool
	// sum is the md5 sum of its body.
	sum string
}

// installedRoutines lists the routines named as those init makes
// (madeRoutines) in the current schema.
func (g *tpcc) installedRoutines(ctx context.Context, db *sqlx.DB) ([]installedRoutine, error) {
	var names []string
	for _, r := range g.madeRoutines() {
		names = append(names, r.name)
	}
	return g.routinesNamed(ctx, db, names)
}

// routinesNamed lists the routines of the current schema named names.
func (g *tpcc) routinesNamed(ctx context.Context, db *sqlx.DB, names []string) ([]installedRoutine, error) {
	rows, err := db.Query(ctx, `SELECT p.proname, p.oid::regprocedure::text, p.prokind::text, oidvectortypes(p.proargtypes),
		coalesce(`+dialect.OwnComment(db.Dialect(), "p.oid", "pg_proc")+`, ''), md5(p.prosrc)
		FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($1) ORDER BY 1, 2`, names)
	if err != nil {
		return nil, fmt.Errorf("listing the routines in database %s: %w", db.Database(), err)
	}
	defer rows.Close()
	var out []installedRoutine
	for rows.Next() {
		var r installedRoutine
		var comment string
		if err := rows.Scan(&r.name, &r.signature, &r.kind, &r.args, &comment, &r.sum); err != nil {
			return nil, err
		}
		switch r.kind {
		case "f":
			r.kind = "function"
		case "p":
			r.kind = "procedure"
		}
		r.ours = comment == routineMark(g, r.sum)
		out = append(out, r)
	}
	return out, rows.Err()
}

// routinesToReplace returns the routines of the five names that init
// drops before making its own: stampede's own, unchanged, and with
// --force-drop the others too. A routine of one of those names that
// stampede did not make (or that was replaced since) is otherwise
// refused, unless --use-installed-routines keeps it: one line that names
// every such routine, and the workload's tables stampede did not make
// too, and ends with the one flag that forces it all, --force-drop.
func (g *tpcc) routinesToReplace(ctx context.Context, db *sqlx.DB) ([]installedRoutine, error) {
	inst, err := g.installedRoutines(ctx, db)
	if err != nil {
		return nil, err
	}
	var ours []installedRoutine
	var foreign []string
	for _, r := range inst {
		switch {
		case r.ours, g.forceDrop:
			ours = append(ours, r)
		case !g.hdb.useInstalled:
			foreign = append(foreign, r.kind+" "+r.signature)
		}
	}
	if len(foreign) == 0 {
		return ours, nil
	}
	what, verb, it := foreign[0], "was", "it"
	if len(foreign) > 1 {
		what, verb, it = strings.Join(foreign, ", "), "were", "them"
	}
	tables := ""
	if existing, err := workload.ExistingTables(ctx, db, g.Tables()); err == nil {
		if t, err := workload.ForeignTables(ctx, db, g, existing); err == nil && len(t) > 0 {
			tables, it = fmt.Sprintf(", nor were its tables %s", strings.Join(t, ", ")), "them"
		}
	}
	return nil, fmt.Errorf("%s in database %s %s not made by stampede, or %s replaced since%s: init never replaces a routine it did not make; add --use-installed-routines to keep the routines (and make only the missing ones), or to drop %s anyway, add %s",
		what, db.Database(), verb, verb, tables, it, workload.ForceDropFlag)
}

// installRoutines makes the five routines (functions, or procedures with
// --stored-procs), each marked with its body's md5 sum: it drops
// stampede's own first, and keeps a user's with --use-installed-routines.
func (g *tpcc) installRoutines(ctx context.Context, db *sqlx.DB) error {
	ours, err := g.routinesToReplace(ctx, db)
	if err != nil {
		return err
	}
	for _, r := range ours {
		if _, err := db.Exec(ctx, "DROP ROUTINE "+r.signature); err != nil {
			return fmt.Errorf("dropping stampede's %s %s: %w", r.kind, r.signature, err)
		}
	}
	inst, err := g.installedRoutines(ctx, db)
	if err != nil {
		return err
	}
	kept := map[string]bool{}
	for _, r := range inst {
		kept[r.name] = true
	}
	rs := g.madeRoutines()
	for i, stmt := range g.routineStatementsOf() {
		r := rs[i]
		if kept[r.name] {
			continue // the user's, --use-installed-routines
		}
		kind := g.routineKind()
		if r.name == dbmsRandom.name {
			kind = "function" // in both of HammerDB's forms
		}
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("creating %s %s: %w", kind, r.name, err)
		}
		var sig, sum, oid string
		if err := db.QueryRow(ctx, `SELECT p.oid::regprocedure::text, md5(p.prosrc), p.oid::text FROM pg_proc p
			WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = $1`, r.name).Scan(&sig, &sum, &oid); err != nil {
			return fmt.Errorf("reading back %s %s: %w", kind, r.name, err)
		}
		comment := strings.ReplaceAll(routineMark(g, sum)+dialect.MarkOIDSep+oid, "'", "''")
		if _, err := db.Exec(ctx, "COMMENT ON ROUTINE "+sig+" IS '"+comment+"'"); err != nil {
			return fmt.Errorf("marking %s %s as stampede's: %w", kind, sig, err)
		}
	}
	return nil
}

// checkRoutines checks, before a run, that the database holds the five
// routines the run calls, of the kind (function or procedure) and with
// the signature it calls them with; without --use-installed-routines,
// also that they are stampede's own, unchanged since init. Its error
// names the routine.
func (g *tpcc) checkRoutines(ctx context.Context, db *sqlx.DB) error {
	inst, err := g.installedRoutines(ctx, db)
	if err != nil {
		return err
	}
	kind := g.routineKind()
	var replaced, yours []string
	for _, r := range g.routines() {
		want := r.args
		i := slices.IndexFunc(inst, func(x installedRoutine) bool { return x.name == r.name && x.kind == kind && x.args == want })
		if i < 0 {
			var found []string
			for _, x := range inst {
				if x.name == r.name {
					found = append(found, x.kind+" "+x.signature)
				}
			}
			if len(found) == 0 {
				// init keeps the user's routines only when told to.
				keep := ""
				if g.hammerdb() && slices.ContainsFunc(inst, func(x installedRoutine) bool { return !x.ours }) {
					keep = " --use-installed-routines"
				}
				return loadMismatch(fmt.Sprintf("%s %s (%s) is missing from database %s: run `stampede init tpcc %s --routines-only%s` to make it without reloading, or create it",
					kind, r.name, r.description, db.Database(), g.initArgs(), keep))
			}
			return loadMismatch(fmt.Sprintf("%s %s(%s) (%s) is not in database %s, which has %s instead: the run calls %s's signature; create it with that signature%s",
				kind, r.name, want, r.description, db.Database(), strings.Join(found, ", "), "HammerDB", g.otherKindHint(inst, r.name)))
		}
		if !inst[i].ours && g.hammerdb() {
			// HammerDB runs whatever routine is installed: a user's
			// replaced NEWORD (`psql < neword.sql` after the build) is
			// what the run measures, and the header says so (with
			// --use-installed-routines too, where the others are still
			// stampede's, whose deviations it keeps: chk33 N2).
			replaced = append(replaced, kind+" "+inst[i].signature)
			yours = append(yours, strings.ToUpper(r.name))
			continue
		}
		if !inst[i].ours && !g.hdb.useInstalled {
			return loadMismatch(fmt.Sprintf("%s %s in database %s is not the one stampede's init made (made by another, or replaced since): %sre-run `stampede init tpcc %s --routines-only --force-drop` to make stampede's in its place",
				kind, inst[i].signature, db.Database(), g.useInstalledHint(), g.initArgs()))
		}
	}
	if len(replaced) == len(g.routines()) && g.hdb.useInstalled {
		// All five the user's, as --use-installed-routines (or
		// HammerDB's build) says: its own header lines.
		return nil
	}
	if len(replaced) > 0 {
		g.hdb.yours = yours
		verb, s := "is", ""
		if len(replaced) > 1 {
			verb, s = "are", "s"
		}
		g.hdb.useInstalled = true
		g.hdb.replaced = fmt.Sprintf("%s in database %s %s not the one%s stampede's init made (yours, or replaced since): the run calls the routines installed, as HammerDB does",
			strings.Join(replaced, ", "), db.Database(), verb, s)
	}
	return nil
}

// initArgs are the flags of the init that makes the generator's routines.
func (g *tpcc) initArgs() string {
	switch m := g.routineMode(); {
	case m.Server:
		return "--server-side"
	case m.Procs:
		return "--profile hammerdb --stored-procs"
	}
	return "--profile hammerdb"
}

// useInstalledHint offers --use-installed-routines, which --profile
// hammerdb has.
func (g *tpcc) useInstalledHint() string {
	if g.hammerdb() {
		return "add --use-installed-routines to measure it, or "
	}
	return ""
}

// otherKindHint says, when the database has name as the other kind of
// routine, which flag calls it.
func (g *tpcc) otherKindHint(inst []installedRoutine, name string) string {
	for _, x := range inst {
		if x.name == name && x.kind != g.routineKind() {
			if g.routineMode().Procs {
				return ", or leave --stored-procs out to call the functions"
			}
			if g.flags.FlagSet != nil && g.flags.Changed("stored-procs") {
				return ", or leave --stored-procs=false out to call the procedures"
			}
			return ", or add --stored-procs to call the procedures"
		}
	}
	return ""
}

var _ workload.ObjectCleaner = (*tpcc)(nil)

// CleanupObjects implements workload.ObjectCleaner: cleanup drops the
// orders table of the other profile than --profile's when stampede's init
// of tpcc made it (stampede's "order" after a cleanup --profile hammerdb,
// HammerDB's ORDERS after one without it: the other tables have the same
// names in both), and the routines init made, HammerDB's (--profile
// hammerdb, functions or procedures) and stampede's server-side functions
// (--server-side), whatever the flags of the cleanup, those whose mark
// still matches their body only; a routine of one of those names that a
// user made or replaced (CREATE OR REPLACE keeps the mark, not the body's
// sum) is the user's: kept, and said in one line.
func (g *tpcc) CleanupObjects(ctx context.Context, db *sqlx.DB, log io.Writer) error {
	if err := g.dropOtherOrders(ctx, db, log, ""); err != nil {
		return err
	}
	return g.dropRoutines(ctx, db, log, "", nil)
}

var _ workload.FormerDropper = (*tpcc)(nil)

// DropFormer implements workload.FormerDropper: init --drop drops, beside
// the tables of its profile, the orders table of the other profile when
// stampede's init of tpcc made it (an earlier load with the other
// --profile: HammerDB's orders under init without --profile hammerdb,
// stampede's "order" under init --profile hammerdb), and the routines
// stampede's init made that this init does not make again (HammerDB's
// under init without --profile hammerdb, the server-side functions
// without --server-side), those whose mark still matches their body; a
// user's of those names is kept, said in one line. The routines this
// init makes are installRoutines' (a user's refused by CheckInit, or
// kept with --use-installed-routines).
func (g *tpcc) DropFormer(ctx context.Context, db *sqlx.DB, log io.Writer) error {
	if g.tenant > 0 {
		return nil // a fleet's tenants share the tables: no profile but stampede's
	}
	if err := g.dropOtherOrders(ctx, db, log, "--drop: "); err != nil {
		return err
	}
	var made []string
	if g.hammerdb() || g.hdb.serverSide {
		for _, r := range g.madeRoutines() {
			made = append(made, r.name)
		}
	}
	return g.dropRoutines(ctx, db, log, "--drop: ", made)
}

// dropRoutines drops the routines stampede's init of tpcc makes, of any
// profile (HammerDB's five and DBMS_RANDOM, the server-side functions),
// but those named skip, whose mark still matches their body, saying each
// on log after prefix; it keeps a user's (made or replaced: CREATE OR
// REPLACE keeps the mark, not the body's sum), said in one line.
func (g *tpcc) dropRoutines(ctx context.Context, db *sqlx.DB, log io.Writer, prefix string, skip []string) error {
	names := append(slices.Clone(routineNames), dbmsRandom.name)
	for _, n := range routineNames {
		names = append(names, serverPrefix+n)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(skip, n) })
	inst, err := g.routinesNamed(ctx, db, names)
	if err != nil {
		return err
	}
	var kept []string
	for _, r := range inst {
		if !r.ours {
			kept = append(kept, r.kind+" "+r.signature)
			continue
		}
		if _, err := db.Exec(ctx, "DROP ROUTINE "+r.signature); err != nil {
			return fmt.Errorf("dropping stampede's %s %s: %w", r.kind, r.signature, err)
		}
		fmt.Fprintf(log, "%sdropped %s %s\n", prefix, r.kind, r.signature)
	}
	if len(kept) > 0 {
		fmt.Fprintf(log, "%skept %s in database %s: not made by stampede's init, or replaced since (yours: drop it yourself if you want it gone)\n",
			prefix, strings.Join(kept, ", "), db.Database())
	}
	return nil
}

// dropOtherOrders drops, for cleanup and init --drop (prefix, before
// what it says on log), the orders table of the profile other than the
// generator's when it carries the mark of stampede's init of tpcc; one
// that is not stampede's is a user's, and stays.
func (g *tpcc) dropOtherOrders(ctx context.Context, db *sqlx.DB, log io.Writer, prefix string) error {
	other := hammerOrders
	if g.hammerdb() {
		other = orderName
	}
	exists, err := tableExists(ctx, db, other)
	if err != nil || !exists {
		return err
	}
	c, err := workload.TableComment(ctx, db, other)
	if err != nil {
		return err
	}
	if !workload.HasInitMark(c, g) {
		return nil
	}
	if _, err := db.Exec(ctx, db.Dialect().DropTable(other)); err != nil {
		return fmt.Errorf("dropping table %s: %w", other, err)
	}
	if prefix != "" {
		fmt.Fprintf(log, "%sdropped table %s, which stampede's init of tpcc made with the other --profile\n", prefix, other)
		return nil
	}
	fmt.Fprintf(log, "dropped table %s\n", other)
	return nil
}

// detectRoutineKind sets, for a run of --profile hammerdb whose
// --stored-procs was not given, the kind of routine the database holds:
// procedures when all five are there as procedures of HammerDB's
// signatures and not all five as functions (HammerDB's buildschema
// script sets pg_storedprocs true where its run script leaves it false,
// and HammerDB's driver switches the same way). It returns the line the
// run header says it with, "" when --stored-procs was given (a routine of
// the other kind is then refused by checkRoutines, naming it).
func (g *tpcc) detectRoutineKind(ctx context.Context, db *sqlx.DB) (string, error) {
	if g.flags.FlagSet == nil || g.flags.Changed("stored-procs") {
		return "", nil
	}
	inst, err := g.routinesNamed(ctx, db, routineNames)
	if err != nil {
		return "", err
	}
	has := func(kind string, args []string) bool {
		for i, n := range routineNames {
			if !slices.ContainsFunc(inst, func(x installedRoutine) bool { return x.name == n && x.kind == kind && x.args == args[i] }) {
				return false
			}
		}
		return true
	}
	funcs, procs := has("function", hammerFuncArgs), has("procedure", hammerProcArgs)
	g.hdb.storedProcs = procs && !funcs
	switch {
	case g.hdb.storedProcs:
		return "found installed as procedures, not functions: called with CALL without --stored-procs (as HammerDB's driver switches pg_storedprocs)", nil
	case funcs:
		return "found installed as functions (--stored-procs not given)", nil
	}
	return "", nil
}
