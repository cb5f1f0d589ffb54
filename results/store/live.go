package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/runlog"
)

// liveSchema records, for each run a process writes into the store as it
// runs (ShipLive), when it last did, by the store's own clock (so that
// readers on other machines need not trust their clocks or the
// writer's), and how often it promised to:
//
//	stampede_run_live  one row per run: run_id, shipped_at (the store's
//	                   now() at the last ShipLive's transaction), beat_ns
//	                   (the writer's beat, see ShipLive)
var liveSchema = `CREATE TABLE IF NOT EXISTS stampede_run_live (
		run_id TEXT PRIMARY KEY,
		shipped_at TIMESTAMPTZ NOT NULL,
		beat_ns BIGINT NOT NULL
	)`

// StaleAfter returns how long after its last ShipLive a run whose copy
// in the store still says "running" is taken for killed, for a writer
// that ships at least every beat: three beats, and ten seconds for a
// store slow to answer or a client paused. A live run's writer ships
// after every interval and, between intervals, every beat and a half.
func StaleAfter(beat time.Duration) time.Duration {
	return 3*beat + 10*time.Second
}

// Live reports whether the writer of a run whose copy says "running" is
// alive, from how long ago (age, by the store's clock) it last shipped
// the run and its beat: age at most StaleAfter(beat). A run the store
// holds no such record of (uploaded by `runs upload`, or indexed from a
// directory) never had a writer shipping it: its copy reads as killed
// (Fetch does not mark it live), and its row keeps the status its
// directory gave.
func Live(age, beat time.Duration) bool {
	return age <= StaleAfter(beat)
}

// live records, in the Ship's transaction, that the run's writer is
// alive, and indexes a running run the store does not list yet.
func (t *shipTx) live(ctx context.Context, dir string, info runlog.RunInfo, beat time.Duration) error {
	tx, err := t.get(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO stampede_run_live (run_id, shipped_at, beat_ns) VALUES ($1, now(), $2)
		ON CONFLICT (run_id) DO UPDATE SET shipped_at = excluded.shipped_at, beat_ns = excluded.beat_ns`, info.ID, beat.Nanoseconds()); err != nil {
		return fmt.Errorf("results store %s: %w", t.s.name, err)
	}
	key := dir + "\x00" + info.ID
	t.s.shipMu.Lock()
	started := t.s.started[key]
	t.s.shipMu.Unlock()
	if info.Status != runlog.StatusRunning || started {
		return nil
	}
	var one int
	switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM stampede_runs WHERE id = $1`, info.ID).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		// Indexed as running, without figures: the run's end indexes
		// it with them.
		row := RunRow{ID: info.ID, Dir: dir, Workload: info.Workload, Start: info.Start, Status: info.Status,
			Seed: info.Seed, Concurrency: concurrency(&runlog.Run{Info: info}), Tags: info.Tags, StampedeVersion: info.StampedeVersion}
		if err := putTx(ctx, tx, []RunRow{row}, [][]OpRow{nil}); err != nil {
			return fmt.Errorf("results store %s: %w", t.s.name, err)
		}
	case err != nil:
		return fmt.Errorf("results store %s: %w", t.s.name, err)
	}
	t.start = key
	return nil
}

// liveRecord is what the store knows of a live run's writer.
type liveRecord struct {
	age, beat time.Duration
}

// liveness returns the records of the live writers of the runs ids (all
// of them when ids is nil); none for an SQLite store, or a store whose
// table predates them.
func (s *Store) liveness(ctx context.Context, ids []string) (map[string]liveRecord, error) {
	if !s.pg || (ids != nil && len(ids) == 0) {
		return nil, nil
	}
	q := `SELECT run_id, beat_ns, EXTRACT(EPOCH FROM (now() - shipped_at))::FLOAT8 FROM stampede_run_live`
	var args []any
	if ids != nil {
		q += ` WHERE run_id = ANY($1)`
		args = append(args, ids)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table: no run ever shipped live
			return nil, nil
		}
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	out := map[string]liveRecord{}
	for rows.Next() {
		var (
			id   string
			beat int64
			age  float64
		)
		if err := rows.Scan(&id, &beat, &age); err != nil {
			return nil, fmt.Errorf("results store %s: %w", s.name, err)
		}
		out[id] = liveRecord{age: time.Duration(age * float64(time.Second)), beat: time.Duration(beat)}
	}
	return out, rows.Err()
}

// judge sets the status of the rows that say "running" to killed when
// their writer, which shipped them live, has not for longer than
// StaleAfter its beat (see Live). Rows of runs never shipped live
// (indexed from a directory, whose lock says whether it runs) are left.
func (s *Store) judge(ctx context.Context, rows []RunRow) error {
	var running []string
	for _, r := range rows {
		if r.Status == runlog.StatusRunning {
			running = append(running, r.ID)
		}
	}
	if len(running) == 0 {
		return nil
	}
	recs, err := s.liveness(ctx, running)
	if err != nil {
		return err
	}
	for i := range rows {
		if rec, ok := recs[rows[i].ID]; ok && rows[i].Status == runlog.StatusRunning && !Live(rec.age, rec.beat) {
			rows[i].Status = runlog.StatusKilled
		}
	}
	return nil
}
