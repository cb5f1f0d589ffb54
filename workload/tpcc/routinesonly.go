package tpcc

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

var _ workload.LoadLogger = (*tpcc)(nil)

// LoadsItself implements workload.SelfLoader: init --routines-only makes
// routines only, and loads nothing.
func (g *tpcc) LoadsItself() bool { return g.hdb.routinesOnly }

// SetLoadLog implements workload.LoadLogger.
func (g *tpcc) SetLoadLog(w io.Writer) { g.hdb.log = w }

// LoadItself implements workload.SelfLoader: init --routines-only, on a
// database whose load of the same profile is complete, makes the routines
// of --profile hammerdb (functions, or procedures with --stored-procs) or
// of --server-side that are missing, remakes stampede's own unchanged
// ones, and keeps a user's with --use-installed-routines (refused
// without it, naming it, as init is), without touching the data. It says
// in one line which it made and which it kept.
func (g *tpcc) LoadItself(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	if err := g.checkProfile(ctx, db); err != nil {
		return err
	}
	if _, err := g.readMeta(ctx, db); err != nil {
		return loadMismatch(fmt.Sprintf("--routines-only makes routines in a loaded database: %v", err))
	}
	if _, err := g.routinesToReplace(ctx, db); err != nil {
		return loadMismatch(err.Error())
	}
	return g.installLogged(ctx, db, " (its data untouched)")
}

// installLogged installs the routines (installRoutines) and says on the
// load's log, when there is one, which it made (after where, in the first
// line), which of stampede's it dropped for good (of another kind or
// signature), which were there unchanged and which of the user's it kept:
// init --routines-only's lines, and a whole init's.
func (g *tpcc) installLogged(ctx context.Context, db *sqlx.DB, where string) error {
	before, err := g.installedRoutines(ctx, db)
	if err != nil {
		return err
	}
	if err := g.installRoutines(ctx, db); err != nil {
		return err
	}
	if g.hdb.log == nil {
		return nil
	}
	after, err := g.installedRoutines(ctx, db)
	if err != nil {
		return err
	}
	made, same, kept, dropped := routinesMade(before, after)
	fmt.Fprintf(g.hdb.log, "made %s in database %s%s\n", joinOrNone(made), db.Database(), where)
	if len(dropped) > 0 {
		fmt.Fprintf(g.hdb.log, "dropped stampede's: %s (made by its init, unchanged; replaced by those made)\n", joinOrNone(dropped))
	}
	if len(same) > 0 {
		fmt.Fprintf(g.hdb.log, "already there and unchanged (stampede's): %s\n", joinOrNone(same))
	}
	if len(kept) > 0 {
		fmt.Fprintf(g.hdb.log, "kept yours: %s\n", joinOrNone(kept))
	}
	return nil
}

// routinesMade sorts the routines of an init, from those installed
// before and after it: made (not there before, or stampede's but of
// another kind, signature or body, or the user's replaced under
// --force-drop, said so), the same (stampede's, there before with the
// same signature and body), kept (the user's, still theirs after) and
// dropped (stampede's, there before, whose kind and signature are gone
// after: functions replaced by procedures).
func routinesMade(before, after []installedRoutine) (made, same, kept, dropped []string) {
	users := map[string]bool{}
	was := map[string]string{} // stampede's before: signature -> body's sum
	for _, r := range before {
		if !r.ours {
			users[r.name] = true
		} else {
			was[r.kind+" "+r.signature] = r.sum
		}
	}
	for _, r := range after {
		what := r.kind + " " + r.signature
		switch sum, ok := was[what]; {
		case !r.ours:
			if users[r.name] {
				kept = append(kept, what)
			}
		case users[r.name]:
			made = append(made, what+" (in place of yours: --force-drop)")
		case ok && sum == r.sum:
			same = append(same, what)
		default:
			made = append(made, what)
		}
	}
	for _, r := range before {
		if r.ours && !slices.ContainsFunc(after, func(a installedRoutine) bool { return a.kind == r.kind && a.signature == r.signature }) {
			dropped = append(dropped, r.kind+" "+r.signature)
		}
	}
	return made, same, kept, dropped
}

// joinOrNone joins names with ", ", or says "no routine".
func joinOrNone(names []string) string {
	if len(names) == 0 {
		return "no routine"
	}
	out := names[0]
	for _, n := range names[1:] {
		out += ", " + n
	}
	return out
}
