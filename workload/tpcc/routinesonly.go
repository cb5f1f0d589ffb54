package tpcc

import (
	"context"
	"fmt"
	"io"

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
	before, err := g.installedRoutines(ctx, db)
	if err != nil {
		return err
	}
	if err := g.installRoutines(ctx, db); err != nil {
		return err
	}
	if g.hdb.log != nil {
		after, err := g.installedRoutines(ctx, db)
		if err != nil {
			return err
		}
		made, same, kept := routinesMade(before, after)
		fmt.Fprintf(g.hdb.log, "made %s in database %s (its data untouched)\n", joinOrNone(made), db.Database())
		if len(same) > 0 {
			fmt.Fprintf(g.hdb.log, "already there and unchanged (stampede's): %s\n", joinOrNone(same))
		}
		if len(kept) > 0 {
			fmt.Fprintf(g.hdb.log, "kept yours: %s\n", joinOrNone(kept))
		}
	}
	return nil
}

// routinesMade sorts the routines of an init --routines-only, from those
// installed before and after it: made (not there before, or stampede's
// but of another kind, signature or body, or the user's replaced under
// --force-drop, said so), the same (stampede's, there before with the
// same signature and body) and kept (the user's, still theirs after).
func routinesMade(before, after []installedRoutine) (made, same, kept []string) {
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
	return made, same, kept
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
