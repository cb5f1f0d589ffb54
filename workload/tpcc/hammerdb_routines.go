package tpcc

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

//go:embed hammerdb_routines.sql.tmpl
var hammerRoutinesTmpl string

var hammerRoutinesT = template.Must(template.New("routines").Parse(hammerRoutinesTmpl))

// routine is one of HammerDB's five routines: its name and the argument
// types (as oidvectortypes prints them) of the function and of the
// procedure, HammerDB's signatures.
type routine struct {
	name        string
	funcArgs    string
	procArgs    string
	description string
}

// hammerRoutines are the five routines, in the order of the template.
var hammerRoutines = []routine{
	{name: "neword", description: "New-Order",
		funcArgs: "integer, integer, integer, integer, integer, integer",
		procArgs: "integer, integer, integer, integer, integer, numeric, character varying, character varying, numeric, numeric, integer, timestamp without time zone"},
	{name: "delivery", description: "Delivery",
		funcArgs: "integer, integer",
		procArgs: "integer, integer, timestamp without time zone"},
	{name: "payment", description: "Payment",
		funcArgs: "integer, integer, integer, integer, integer, integer, numeric, character varying, character varying, numeric",
		procArgs: "integer, integer, integer, integer, integer, numeric, character, character varying, integer, " +
			"character varying, character varying, character varying, character, character, " +
			"character varying, character varying, character varying, character, character, " +
			"character varying, character, character varying, character varying, character varying, character, character, character, " +
			"timestamp without time zone, numeric, numeric, numeric, character varying, timestamp without time zone"},
	{name: "ostat", description: "Order-Status",
		funcArgs: "integer, integer, integer, integer, character varying",
		procArgs: "integer, integer, integer, integer, character varying, character varying, character varying, numeric, integer, timestamp without time zone, integer, text"},
	{name: "slev", description: "Stock-Level",
		funcArgs: "integer, integer, integer",
		procArgs: "integer, integer, integer, integer"},
}

// kind is "function" or "procedure", as the routines are made.
func (g *tpcc) routineKind() string {
	if g.hdb.storedProcs {
		return "procedure"
	}
	return "function"
}

// args returns the routine's argument types in the profile's kind.
func (g *tpcc) routineArgs(r routine) string {
	if g.hdb.storedProcs {
		return r.procArgs
	}
	return r.funcArgs
}

// routineStatements returns the CREATE statements of the five routines,
// functions or procedures.
func routineStatements(procs bool) []string {
	var b bytes.Buffer
	if err := hammerRoutinesT.Execute(&b, struct{ Procs bool }{procs}); err != nil {
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
}

// installedRoutines lists the routines named as HammerDB's five in the
// current schema.
func (g *tpcc) installedRoutines(ctx context.Context, db *sqlx.DB) ([]installedRoutine, error) {
	names := make([]string, len(hammerRoutines))
	for i, r := range hammerRoutines {
		names[i] = r.name
	}
	rows, err := db.Query(ctx, `SELECT p.proname, p.oid::regprocedure::text, p.prokind::text, oidvectortypes(p.proargtypes),
		coalesce(obj_description(p.oid, 'pg_proc'), ''), md5(p.prosrc)
		FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY($1) ORDER BY 1, 2`, names)
	if err != nil {
		return nil, fmt.Errorf("listing the routines in database %s: %w", db.Database(), err)
	}
	defer rows.Close()
	var out []installedRoutine
	for rows.Next() {
		var r installedRoutine
		var comment, sum string
		if err := rows.Scan(&r.name, &r.signature, &r.kind, &r.args, &comment, &sum); err != nil {
			return nil, err
		}
		switch r.kind {
		case "f":
			r.kind = "function"
		case "p":
			r.kind = "procedure"
		}
		r.ours = comment == routineMark(g, sum)
		out = append(out, r)
	}
	return out, rows.Err()
}

// routinesToReplace returns the routines of the five names that init
// drops before making its own: stampede's own, unchanged. A routine of
// one of those names that stampede did not make (or that was replaced
// since) is refused, naming it, unless --use-installed-routines keeps it.
func (g *tpcc) routinesToReplace(ctx context.Context, db *sqlx.DB) ([]installedRoutine, error) {
	inst, err := g.installedRoutines(ctx, db)
	if err != nil {
		return nil, err
	}
	var ours []installedRoutine
	for _, r := range inst {
		switch {
		case r.ours:
			ours = append(ours, r)
		case !g.hdb.useInstalled:
			return nil, fmt.Errorf("%s %s in database %s was not made by stampede, or was replaced since: init never replaces a routine it did not make; add --use-installed-routines to keep it (and make only the missing ones), or drop it yourself",
				r.kind, r.signature, db.Database())
		}
	}
	return ours, nil
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
	for i, stmt := range routineStatements(g.hdb.storedProcs) {
		r := hammerRoutines[i]
		if kept[r.name] {
			continue // the user's, --use-installed-routines
		}
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("creating %s %s: %w", g.routineKind(), r.name, err)
		}
		var sig, sum string
		if err := db.QueryRow(ctx, `SELECT p.oid::regprocedure::text, md5(p.prosrc) FROM pg_proc p
			WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = $1`, r.name).Scan(&sig, &sum); err != nil {
			return fmt.Errorf("reading back %s %s: %w", g.routineKind(), r.name, err)
		}
		comment := strings.ReplaceAll(routineMark(g, sum), "'", "''")
		if _, err := db.Exec(ctx, "COMMENT ON ROUTINE "+sig+" IS '"+comment+"'"); err != nil {
			return fmt.Errorf("marking %s %s as stampede's: %w", g.routineKind(), sig, err)
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
	for _, r := range hammerRoutines {
		want := g.routineArgs(r)
		i := slices.IndexFunc(inst, func(x installedRoutine) bool { return x.name == r.name && x.kind == kind && x.args == want })
		if i < 0 {
			var found []string
			for _, x := range inst {
				if x.name == r.name {
					found = append(found, x.kind+" "+x.signature)
				}
			}
			if len(found) == 0 {
				return loadMismatch(fmt.Sprintf("%s %s (%s) is missing from database %s: run `stampede init tpcc --profile hammerdb%s`, or create it",
					kind, r.name, r.description, db.Database(), g.storedProcsArg()))
			}
			return loadMismatch(fmt.Sprintf("%s %s(%s) (%s) is not in database %s, which has %s instead: the run calls %s's signature; create it with that signature%s",
				kind, r.name, want, r.description, db.Database(), strings.Join(found, ", "), "HammerDB", g.otherKindHint(inst, r.name)))
		}
		if !inst[i].ours && !g.hdb.useInstalled {
			return loadMismatch(fmt.Sprintf("%s %s in database %s is not the one stampede's init made (made by another, or replaced since): add --use-installed-routines to measure it, or re-run `stampede init tpcc --profile hammerdb --drop`",
				kind, inst[i].signature, db.Database()))
		}
	}
	return nil
}

// storedProcsArg is " --stored-procs" when the run calls procedures.
func (g *tpcc) storedProcsArg() string {
	if g.hdb.storedProcs {
		return " --stored-procs"
	}
	return ""
}

// otherKindHint says, when the database has name as the other kind of
// routine, which flag calls it.
func (g *tpcc) otherKindHint(inst []installedRoutine, name string) string {
	for _, x := range inst {
		if x.name == name && x.kind != g.routineKind() {
			if g.hdb.storedProcs {
				return ", or leave --stored-procs out to call the functions"
			}
			return ", or add --stored-procs to call the procedures"
		}
	}
	return ""
}
