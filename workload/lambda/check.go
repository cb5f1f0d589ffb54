package lambda

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// preRun checks that init made the tables and the batch view's row.
func (g *lambda) preRun(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	if err := checkTables(ctx, db); err != nil {
		return err
	}
	_, err := readMeta(ctx, db, db)
	return err
}

// meta is the batch view's metadata row.
type meta struct {
	horizon    *time.Time
	viewRows   int64
	events     int64
	recomputes int64
}

// checkTables checks that init made lambda's tables. It runs on db
// before any transaction is open: a pool of one connection would wait
// for itself.
func checkTables(ctx context.Context, db *sqlx.DB) error {
	for _, t := range []string{eventsTable, viewTable, metaTable} {
		exists, err := workload.TableExists(ctx, db, t)
		if err != nil {
			return fmt.Errorf("checking table %s: %w", t, err)
		}
		if !exists {
			return missingError{fmt.Errorf("table %s does not exist in database %s: run `stampede init lambda` first", t, db.Database())}
		}
	}
	return nil
}

// readMeta reads the batch view's metadata through q (db or a
// transaction on it; db names the database in errors).
func readMeta(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) sqlx.Row
}, db *sqlx.DB,
) (meta, error) {
	var m meta
	err := q.QueryRow(ctx, "SELECT horizon, view_rows, events, recomputes FROM "+metaTable+" WHERE id = 1").Scan(&m.horizon, &m.viewRows, &m.events, &m.recomputes)
	if errors.Is(err, pgx.ErrNoRows) {
		return meta{}, fmt.Errorf("table %s in database %s has no row: it was not made by `stampede init lambda`; reload with `stampede init lambda --drop`", metaTable, db.Database())
	}
	if err != nil {
		return meta{}, fmt.Errorf("table %s in database %s is not lambda's: %w; reload with `stampede init lambda --drop`", metaTable, db.Database(), err)
	}
	return m, nil
}

// checkQuery compares the batch view with its recomputation from the raw
// events up to its horizon, row by row and exactly (the averages are
// NUMERIC): the rows only the recomputation has, those only the view
// has, and the recomputation's rows and events.
const checkQuery = "WITH want AS (" + "SELECT device, date_trunc('hour', ts AT TIME ZONE 'UTC') AS hour, count(*) AS events, min(temp) AS min_temp, max(temp) AS max_temp, " +
	"sum(temp) AS sum_temp, avg(temp) AS avg_temp, max(ts) AS newest FROM " + eventsTable +
	" WHERE ts <= (SELECT horizon FROM " + metaTable + " WHERE id = 1) GROUP BY device, date_trunc('hour', ts AT TIME ZONE 'UTC')), " +
	"have AS (SELECT device, hour, events, min_temp, max_temp, sum_temp, avg_temp, newest FROM " + viewTable + ") " +
	"SELECT (SELECT count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM have) AS missing), " +
	"(SELECT count(*) FROM (SELECT * FROM have EXCEPT ALL SELECT * FROM want) AS extra), " +
	"(SELECT count(*) FROM want), (SELECT coalesce(sum(events), 0) FROM want)"

// checkConsistency recomputes the batch view from the raw events up to
// the horizon of its last recompute and compares it, row by row, in one
// REPEATABLE READ snapshot; the metadata's counts must match too.
func (g *lambda) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if db.Null() {
		rep.Printf("lambda: skipped (null driver)")
		return nil
	}
	if err := checkTables(ctx, db); err != nil {
		return err
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("checking lambda: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only
	m, err := readMeta(ctx, tx, db)
	if err != nil {
		return err
	}
	var events int64
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+eventsTable).Scan(&events); err != nil {
		return fmt.Errorf("counting %s: %w", eventsTable, err)
	}
	if m.horizon == nil {
		rep.Printf("lambda: %d raw events; no batch view computed yet (no run recomputed it): nothing to compare", events)
		return nil
	}
	var missing, extra, rows, viewEvents int64
	if err := tx.QueryRow(ctx, checkQuery).Scan(&missing, &extra, &rows, &viewEvents); err != nil {
		return fmt.Errorf("recomputing the batch view: %w", err)
	}
	ok := missing == 0 && extra == 0 && m.viewRows == rows && m.events == viewEvents
	rep.Printf("lambda: batch view of %s, horizon %s: %d rows counting %d of %d raw events; recomputed from the raw events: %d rows counting %d events, %d rows differ (%d missing, %d extra) %s",
		plural(m.recomputes, "recompute"), m.horizon.UTC().Format(time.RFC3339Nano), m.viewRows, m.events, events, rows, viewEvents, missing+extra, missing, extra, passFail(ok))
	if ok {
		return nil
	}
	return fmt.Errorf("lambda consistency check failed: the batch view (%d rows, %d events in %s) differs from its recomputation from %s up to its horizon (%d rows, %d events): %s missing, %d extra",
		m.viewRows, m.events, metaTable, eventsTable, rows, viewEvents, plural(missing, "row"), extra)
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

var _ workload.FleetSummer = (*lambda)(nil)

// FiguresAddUp implements the workload.FleetSummer interface: a fleet's
// tenants ingest and recompute apart, so their events a second and their
// batch views' rows add up.
func (g *lambda) FiguresAddUp() bool { return true }

// SetFigureEndWait implements the workload.EndWaitFigurer interface.
func (g *lambda) SetFigureEndWait(wait time.Duration) { g.endWait = wait }

// Figures implements the Figurer interface: the events ingested a second
// (ingest operations x --batch over the measured time, beside
// --ingest-rate), and after a run the batch recomputes' rows (from what
// the server's INSERTs reported). The measured time is the elapsed time
// without the end's wait for the batches in flight (SetFigureEndWait):
// the ingest is scheduled open loop, so the events of a run that kept
// --ingest-rate are that rate times the time scheduled, and those still
// in flight at the end were scheduled in it; its shortfall, when the
// server cannot keep up, is in the events never sent (the schedule's
// lag, ingest.lag), not hidden in the wait.
func (g *lambda) Figures(counts map[string]int64, elapsed time.Duration) []workload.Figure {
	if elapsed <= 0 {
		return nil
	}
	measured, wait := elapsed, time.Duration(0)
	if g.endWait > 0 && g.endWait < elapsed {
		measured, wait = elapsed-g.endWait, g.endWait
	}
	events := counts[opNames[opIngest]] * int64(g.batch)
	rate := float64(events) / measured.Seconds()
	over := measured.Round(time.Millisecond).String()
	if wait > 0 {
		over += fmt.Sprintf(" measured, the end's %.3f ms wait for operations in flight left out", float64(wait)/float64(time.Millisecond))
	}
	figs := []workload.Figure{{Name: "ingest_events_per_s", Value: rate,
		Text: fmt.Sprintf("%.0f (%d events in batches of %d over %s; %.1f%% of --ingest-rate %g)",
			rate, events, g.batch, over, 100*rate/g.ingestRate, g.ingestRate)}}
	g.mu.Lock()
	last := g.last
	g.mu.Unlock()
	if last.ran {
		text := fmt.Sprintf("%d (of the last recompute, counting %d events up to %s; %s wrote %d rows in all)",
			last.rows, last.events, last.horizon.UTC().Format(time.RFC3339Nano), plural(last.count, "recompute"), last.totalRows)
		switch {
		case g.batchEvery == 0:
			text = "0 (no batch recompute: --batch-every 0)"
		case last.count == 0:
			text = "0 (no recompute completed in the run: give a --batch-every shorter than the run)"
		}
		figs = append(figs, workload.Figure{Name: "batch_view_rows", Value: float64(last.rows), Observed: true, Text: text})
	}
	return figs
}

// SweepFigures implements workload.SweepFigurer: a sweep's table shows
// each step's events ingested a second.
func (*lambda) SweepFigures() []string { return []string{"ingest_events_per_s"} }

// missingError says lambda's tables are missing (no init): a missing
// load, bad input for run and check alike (exit 2, as churn's), never a
// failed check. It matches workload.ErrLoadMismatch.
type missingError struct{ error }

// Is makes a missingError match workload.ErrLoadMismatch.
func (missingError) Is(target error) bool { return target == workload.ErrLoadMismatch }

// Unwrap returns the error.
func (e missingError) Unwrap() error { return e.error }

// plural is "1 recompute" or "2 recomputes".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
}
