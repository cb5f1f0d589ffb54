package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// The run's files a store holds, in the order Ship sends them. The
// append-only ones are sent as chunks of complete lines, each chunk a row
// numbered in the order of the file; the replaced ones (run.json,
// summary.json) as one row that replaces the one before.
var (
	appendedFiles = []string{runlog.HlogFile, runlog.IntervalsFile, runlog.EventsFile, runlog.TelemetryFile}
	replacedFiles = []string{runlog.SummaryFile, runlog.TotalsFile, runlog.SeriesFile, runlog.RunFile} // run.json last: its final status says the rest is in
	// derivedFiles are the batch views a completed run saves at its end,
	// computed from its other files: an upload of a run the store holds
	// finished compares the others and sends these if they differ.
	derivedFiles = []string{runlog.TotalsFile, runlog.SeriesFile}
)

// filesSchema holds the run directories' files themselves (see Ship):
//
//	stampede_run_files  one row per run, file and chunk: run_id, name, seq
//	                    (the chunk's place in the file, from 0), data
var filesSchema = `CREATE TABLE IF NOT EXISTS stampede_run_files (
		run_id TEXT NOT NULL,
		name TEXT NOT NULL,
		seq BIGINT NOT NULL,
		data BYTEA NOT NULL,
		PRIMARY KEY (run_id, name, seq)
	)`

// KeepsFiles reports whether the store of url keeps the runs' files
// themselves (Ship, Fetch), not only their index: a PostgreSQL store,
// which clients on other machines (pods without a shared volume) write
// to. Runs write their files only into such a store.
func KeepsFiles(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// ErrDifferentCopy means the store holds files of a run that are not a
// prefix of the run directory being sent: another run of the same ID, or
// a directory changed after it was sent.
var ErrDifferentCopy = errors.New("the results store holds a different copy of the run")

// ShipResult says what one Ship sent.
type ShipResult struct {
	// Bytes is the number of bytes sent; 0 when the store already held
	// the whole directory.
	Bytes int64
}

// Ship sends what the store does not hold yet of the run directory dir:
// the complete lines appended to its append-only files since the last
// Ship (of this or any process), and run.json and summary.json when they
// changed, all in one transaction. It is called by `runs upload` to send
// a directory written while the store was unreachable (a run in progress
// calls ShipLive); a Ship after the store holds everything sends nothing
// (ShipResult.Bytes 0). A file of the store's copy that is longer than
// the directory's, or whose stored bytes differ from the directory's, is
// refused with ErrDifferentCopy; once the store holds the run finished,
// every file is compared whole, and any difference is refused. A Ship that fails sends nothing: the
// store's copy stays a prefix of the directory, which the next Ship
// completes.
func (s *Store) Ship(ctx context.Context, dir string) (ShipResult, error) {
	return s.ship(ctx, dir, 0)
}

// ShipLive is Ship for the process that is writing the run in dir, at
// least every beat (after every interval, and when no interval comes, as
// during a --start-at wait): in the same transaction it records, by the
// store's clock, that the run's writer was alive (see Live), and the
// first time it indexes the run (stampede_runs) as running, so that
// `stampede runs`, report --tag and the dashboard find a run that is
// written into the store alone while it runs. One ShipLive is one
// transaction, whatever the run wrote since the last.
func (s *Store) ShipLive(ctx context.Context, dir string, beat time.Duration) (ShipResult, error) {
	if beat <= 0 {
		return ShipResult{}, fmt.Errorf("ShipLive of %s: beat %v is not positive", dir, beat)
	}
	return s.ship(ctx, dir, beat)
}

// shipTx is one Ship's transaction, begun when the Ship first needs the
// database, with what it sent, recorded in the Store's caches only once
// it is committed.
type shipTx struct {
	s     *Store
	conn  *sql.Conn
	tx    *sql.Tx
	files map[string]fileState // append-only files' new states, by key
	whole map[string][]byte    // whole files sent, by key
	start string               // the run's start row inserted, by key
}

// get returns the transaction, beginning it the first time on the
// Store's shipping connection (opened the first time).
func (t *shipTx) get(ctx context.Context) (*sql.Tx, error) {
	if t.tx != nil {
		return t.tx, nil
	}
	s := t.s
	s.shipMu.Lock()
	conn := s.shipConn
	s.shipMu.Unlock()
	if conn == nil {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return nil, fmt.Errorf("results store %s: %w", s.name, err)
		}
		conn = c
		s.shipMu.Lock()
		s.shipConn = c
		s.shipMu.Unlock()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		s.dropShipConn(conn)
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	t.tx, t.conn = tx, conn
	return tx, nil
}

// dropShipConn closes conn, the shipping connection of a Ship that
// failed: the next Ship takes another.
func (s *Store) dropShipConn(conn *sql.Conn) {
	s.shipMu.Lock()
	if s.shipConn == conn {
		s.shipConn = nil
	}
	s.shipMu.Unlock()
	_ = conn.Close()
}

// ship is Ship, and ShipLive when beat is positive.
func (s *Store) ship(ctx context.Context, dir string, beat time.Duration) (res ShipResult, err error) {
	s.shipping.Lock() // one Ship at a time on the shipping connection
	defer s.shipping.Unlock()
	info, err := readRunInfo(dir)
	if err != nil {
		return res, err
	}
	id := info.ID
	t := &shipTx{s: s, files: map[string]fileState{}, whole: map[string][]byte{}}
	defer func() {
		if t.tx == nil {
			return
		}
		if err == nil {
			if err = t.tx.Commit(); err != nil {
				err = fmt.Errorf("results store %s: %w", s.name, err)
			}
		} else {
			_ = t.tx.Rollback()
		}
		if err != nil {
			s.dropShipConn(t.conn)
		}
		s.shipMu.Lock()
		defer s.shipMu.Unlock()
		if err != nil {
			res.Bytes = 0
			for key := range t.files {
				delete(s.shipped, key)
			}
			for key := range t.whole {
				delete(s.sentWhole, key)
			}
			return
		}
		if s.shipped == nil {
			s.shipped, s.sentWhole, s.started = map[string]fileState{}, map[string][]byte{}, map[string]bool{}
		}
		maps.Copy(s.shipped, t.files)
		maps.Copy(s.sentWhole, t.whole)
		if t.start != "" {
			s.started[t.start] = true
		}
	}()
	if beat == 0 {
		// An upload of a run the store holds finished: every file must be
		// the store's byte for byte, or it is another copy (the cheap
		// checks below would let a changed summary.json replace the
		// store's, or a byte changed before an append-only file's last
		// chunk pass).
		done, err := t.storedFinished(ctx, id)
		if err != nil {
			return res, err
		}
		if done {
			if err := t.sameAsStored(ctx, id, dir); err != nil {
				return res, err
			}
			// The same copy: its batch views, derived from the files
			// just compared, are sent if the store lacks them (a run
			// uploaded before they were saved).
			for _, name := range derivedFiles {
				n, err := t.replaced(ctx, id, dir, name)
				res.Bytes += n
				if err != nil {
					return res, err
				}
			}
			return res, nil
		}
	}
	for _, name := range appendedFiles {
		n, err := t.appended(ctx, id, dir, name)
		res.Bytes += n
		if err != nil {
			return res, err
		}
	}
	for _, name := range replacedFiles {
		n, err := t.replaced(ctx, id, dir, name)
		res.Bytes += n
		if err != nil {
			return res, err
		}
	}
	if beat > 0 {
		if err := t.live(ctx, dir, info, beat); err != nil {
			return res, err
		}
	}
	return res, nil
}

// readRunInfo reads the run ID of the run directory dir (its run.json).
func readRunInfo(dir string) (runlog.RunInfo, error) {
	run, err := runlog.Open(dir)
	if err != nil {
		return runlog.RunInfo{}, err
	}
	return run.Info, nil
}

// stored returns the number of chunks and bytes the store holds of the
// file name of run id.
func (t *shipTx) stored(ctx context.Context, id, name string) (chunks, size int64, err error) {
	tx, err := t.get(ctx)
	if err != nil {
		return 0, 0, err
	}
	var c, n sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*), SUM(LENGTH(data)) FROM stampede_run_files WHERE run_id = $1 AND name = $2`, id, name).Scan(&c, &n)
	if err != nil {
		return 0, 0, fmt.Errorf("results store %s: %w", t.s.name, err)
	}
	return c.Int64, n.Int64, nil
}

// appended sends the complete lines of dir/name past what the store
// holds, as one chunk.
func (t *shipTx) appended(ctx context.Context, id, dir, name string) (int64, error) {
	s := t.s
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // telemetry.ndjson of a run without telemetry
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	key := dir + "\x00" + id + "/" + name // what this Store sent from this directory
	known, cached := s.shippedState(key)
	chunks, size := known.chunks, known.size
	if !cached {
		if chunks, size, err = t.stored(ctx, id, name); err != nil {
			return 0, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if size > st.Size() {
		t.files[key] = fileState{} // forgotten, if the Ship fails
		return 0, fmt.Errorf("%w: it holds %d bytes of %s, the directory %s only %d", ErrDifferentCopy, size, name, dir, st.Size())
	}
	if chunks > 0 && !cached {
		// The last stored chunk must be the directory's bytes just
		// before the new ones: a cheap check that the store's copy is
		// this directory's prefix.
		tx, err := t.get(ctx)
		if err != nil {
			return 0, err
		}
		var last []byte
		if err := tx.QueryRowContext(ctx, `SELECT data FROM stampede_run_files WHERE run_id = $1 AND name = $2 AND seq = $3`, id, name, chunks-1).Scan(&last); err != nil {
			return 0, fmt.Errorf("results store %s: %w", s.name, err)
		}
		mine := make([]byte, len(last))
		if _, err := f.ReadAt(mine, size-int64(len(last))); err != nil || !bytes.Equal(mine, last) {
			return 0, fmt.Errorf("%w: its %s differs from the directory %s's", ErrDifferentCopy, name, dir)
		}
	}
	data, err := io.ReadAll(io.NewSectionReader(f, size, st.Size()-size))
	if err != nil {
		return 0, err
	}
	// Only complete lines: the writer may be half way through one.
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	if len(data) == 0 {
		if !cached {
			t.files[key] = fileState{chunks: chunks, size: size}
		}
		return 0, nil
	}
	tx, err := t.get(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO stampede_run_files (run_id, name, seq, data) VALUES ($1, $2, $3, $4)`, id, name, chunks, data); err != nil {
		t.files[key] = fileState{}
		return 0, fmt.Errorf("results store %s: %w", s.name, err)
	}
	t.files[key] = fileState{chunks: chunks + 1, size: size + int64(len(data))}
	return int64(len(data)), nil
}

// fileState is what this Store sent of one append-only file of a run:
// a Ship during a run then asks the database nothing but to insert the
// new chunk (without it, each interval's Ship would read a sum over
// every chunk sent before: quadratic in the run's length).
type fileState struct{ chunks, size int64 }

func (s *Store) shippedState(key string) (fileState, bool) {
	s.shipMu.Lock()
	defer s.shipMu.Unlock()
	st, ok := s.shipped[key]
	return st, ok
}

// replaced sends dir/name, a file written whole, if the store's copy
// differs.
func (t *shipTx) replaced(ctx context.Context, id, dir, name string) (int64, error) {
	s := t.s
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	key := dir + "\x00" + id + "/" + name
	s.shipMu.Lock()
	sent, ok := s.sentWhole[key]
	s.shipMu.Unlock()
	if ok && bytes.Equal(sent, data) {
		return 0, nil // sent by this Store, from this directory
	}
	tx, err := t.get(ctx)
	if err != nil {
		return 0, err
	}
	var have []byte
	err = tx.QueryRowContext(ctx, `SELECT data FROM stampede_run_files WHERE run_id = $1 AND name = $2 AND seq = 0`, id, name).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return 0, fmt.Errorf("results store %s: %w", s.name, err)
	case bytes.Equal(have, data):
		t.whole[key] = data
		return 0, nil
	case name == runlog.RunFile && finished(have):
		return 0, fmt.Errorf("%w: its run.json of %s, a finished run, differs from the directory %s's", ErrDifferentCopy, id, dir)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM stampede_run_files WHERE run_id = $1 AND name = $2`, id, name); err != nil {
		return 0, fmt.Errorf("results store %s: %w", s.name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO stampede_run_files (run_id, name, seq, data) VALUES ($1, $2, 0, $3)`, id, name, data); err != nil {
		return 0, fmt.Errorf("results store %s: %w", s.name, err)
	}
	t.whole[key] = data
	return int64(len(data)), nil
}

// storedFinished reports whether the store holds run id's run.json and it
// says the run ended.
func (t *shipTx) storedFinished(ctx context.Context, id string) (bool, error) {
	tx, err := t.get(ctx)
	if err != nil {
		return false, err
	}
	var have []byte
	err = tx.QueryRowContext(ctx, `SELECT data FROM stampede_run_files WHERE run_id = $1 AND name = $2 AND seq = 0`, id, runlog.RunFile).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("results store %s: %w", t.s.name, err)
	}
	return finished(have), nil
}

// sameAsStored compares every file of the run directory dir with the
// store's copy of run id, a finished run: the first that differs, or that
// only one of them has, is refused with ErrDifferentCopy naming it.
func (t *shipTx) sameAsStored(ctx context.Context, id, dir string) error {
	tx, err := t.get(ctx)
	if err != nil {
		return err
	}
	for _, name := range append(append([]string{}, appendedFiles...), replacedFiles...) {
		if slices.Contains(derivedFiles, name) {
			continue // computed from the others (see Ship)
		}
		var have []byte
		var chunks int64
		err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(string_agg(data, ''::bytea ORDER BY seq), ''::bytea) FROM stampede_run_files WHERE run_id = $1 AND name = $2`, id, name).Scan(&chunks, &have)
		if err != nil {
			return fmt.Errorf("results store %s: %w", t.s.name, err)
		}
		mine, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist) && chunks == 0:
			continue
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%w: it holds %s of %s, a finished run, which the directory %s lacks", ErrDifferentCopy, name, id, dir)
		case err != nil:
			return err
		case chunks == 0 && len(mine) == 0:
			continue // an empty file: nothing to send
		case chunks == 0:
			return fmt.Errorf("%w: the directory %s has %s, which its copy of %s, a finished run, lacks", ErrDifferentCopy, dir, name, id)
		case !bytes.Equal(have, mine):
			return fmt.Errorf("%w: its %s of %s, a finished run, differs from the directory %s's", ErrDifferentCopy, name, id, dir)
		}
	}
	return nil
}

// finished reports whether the run.json data says the run ended.
func finished(data []byte) bool {
	return !bytes.Contains(data, []byte(`"status": "running"`))
}

// FindFiles returns the ID of the one run whose files the store holds
// that ref names: its ID, or a unique prefix of one. It fails with an
// error wrapping runlog.ErrRunNotFound or runlog.ErrAmbiguousRun.
func (s *Store) FindFiles(ctx context.Context, ref string) (string, error) {
	if ref == "" || strings.ContainsAny(ref, `/\%_`) {
		return "", fmt.Errorf("%w in the results store %s: %s", runlog.ErrRunNotFound, s.name, ref)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT run_id FROM stampede_run_files WHERE name = $1 AND run_id LIKE $2 ORDER BY run_id LIMIT 3`, runlog.RunFile, ref+"%")
	if err != nil {
		return "", fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("results store %s: %w", s.name, err)
		}
		if id == ref {
			return id, nil
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("results store %s: %w", s.name, err)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("%w in the results store %s: %s", runlog.ErrRunNotFound, s.name, ref)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("%w in the results store %s: %s matches %s, %s...: give more of the ID", runlog.ErrAmbiguousRun, s.name, ref, ids[0], ids[1])
}

// FileRuns returns the IDs of the runs whose files the store holds, in
// ID order (which is start order: IDs start with the start time).
func (s *Store) FileRuns(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id FROM stampede_run_files WHERE name = $1 AND seq = 0 ORDER BY run_id`, runlog.RunFile)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("results store %s: %w", s.name, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Fetch writes the files the store holds of run id into a new run
// directory root/id and returns its path: the same bytes that Ship sent,
// so that runlog.Open, report, compare and charts read it as they read
// the directory it was sent from. The copy of a run in progress, whose
// writer the store judges alive (see Live), is marked so
// (runlog.MarkLiveCopy): its readers take it for running, not killed. Chunks are written as they are read:
// memory does not grow with the run's length. It fails with an error
// wrapping runlog.ErrRunNotFound if the store holds no file of id.
func (s *Store) Fetch(ctx context.Context, id, root string) (string, error) {
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name, data FROM stampede_run_files WHERE run_id = $1 ORDER BY name, seq`, id)
	if err != nil {
		return "", fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	var (
		f       *os.File
		cur     string
		seen    bool
		runJSON []byte
	)
	closeCur := func() error {
		if f == nil {
			return nil
		}
		err := f.Close()
		f = nil
		return err
	}
	defer closeCur()
	for rows.Next() {
		var (
			name string
			data []byte
		)
		if err := rows.Scan(&name, &data); err != nil {
			return "", fmt.Errorf("results store %s: %w", s.name, err)
		}
		if name != filepath.Base(name) || strings.HasPrefix(name, ".") {
			return "", fmt.Errorf("results store %s: run %s has a file named %q, not one of a run directory's", s.name, id, name)
		}
		if name != cur {
			if err := closeCur(); err != nil {
				return "", err
			}
			if f, err = os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
				return "", err
			}
			cur = name
		}
		seen = true
		if name == runlog.RunFile {
			runJSON = data
		}
		if _, err := f.Write(data); err != nil {
			return "", err
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("results store %s: %w", s.name, err)
	}
	if !seen {
		_ = os.Remove(dir)
		return "", fmt.Errorf("%w in the results store %s: %s", runlog.ErrRunNotFound, s.name, id)
	}
	if err := closeCur(); err != nil {
		return "", err
	}
	// The files every run directory has from its start, empty until the
	// run writes a line (a run's first events may come after its first
	// intervals): the store holds no chunk of an empty file.
	for _, name := range []string{runlog.IntervalsFile, runlog.EventsFile} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			return "", err
		}
		if err := f.Close(); err != nil {
			return "", err
		}
	}
	// A copy has no writer to hold its lock: the store says whether the
	// run's writer is alive (see Live), and the copy says so to its
	// readers.
	if err := s.markLive(ctx, id, dir, runJSON); err != nil {
		return "", err
	}
	return dir, nil
}

// Refresh brings dir, a copy of run id that Fetch made, up to date with
// the store: it appends to the copy's append-only files the chunks the
// store got since, replaces run.json and summary.json (atomically: a
// reader sees the old file or the new) when they changed, and marks the
// copy live or not as its writer is (see Fetch). A reader that follows
// the copy as a run's writer appends to it (runlog.Follower) sees the run
// go on: the dashboard's live view of a run written into the store.
// Memory does not grow with the run's length.
func (s *Store) Refresh(ctx context.Context, id, dir string) error {
	for _, name := range appendedFiles {
		path := filepath.Join(dir, name)
		var size int64
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// The chunks from the one that starts at the copy's end.
		rows, err := s.db.QueryContext(ctx, `SELECT data FROM (
			SELECT seq, data, SUM(LENGTH(data)) OVER (ORDER BY seq) - LENGTH(data) AS off
			FROM stampede_run_files WHERE run_id = $1 AND name = $2) x
			WHERE off >= $3 ORDER BY seq`, id, name, size)
		if err != nil {
			return fmt.Errorf("results store %s: %w", s.name, err)
		}
		err = func() error {
			defer rows.Close()
			var f *os.File
			defer func() {
				if f != nil {
					f.Close()
				}
			}()
			for rows.Next() {
				var data []byte
				if err := rows.Scan(&data); err != nil {
					return fmt.Errorf("results store %s: %w", s.name, err)
				}
				if f == nil {
					if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
						return err
					}
				}
				if _, err := f.Write(data); err != nil {
					return err
				}
			}
			if err := rows.Err(); err != nil {
				return fmt.Errorf("results store %s: %w", s.name, err)
			}
			if f != nil {
				err := f.Close()
				f = nil
				return err
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	var runJSON []byte
	for _, name := range replacedFiles {
		var data []byte
		err := s.db.QueryRowContext(ctx, `SELECT data FROM stampede_run_files WHERE run_id = $1 AND name = $2 AND seq = 0`, id, name).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("results store %s: %w", s.name, err)
		}
		if name == runlog.RunFile {
			runJSON = data
		}
		path := filepath.Join(dir, name)
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, data) {
			continue
		}
		tmp := path + ".new"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	return s.markLive(ctx, id, dir, runJSON)
}

// markLive marks the copy dir of run id, whose run.json holds runJSON, as
// a live run's when its writer is alive (see Live), and unmarks it
// otherwise.
func (s *Store) markLive(ctx context.Context, id, dir string, runJSON []byte) error {
	live := false
	if runJSON != nil && !finished(runJSON) {
		recs, err := s.liveness(ctx, []string{id})
		if err != nil {
			return err
		}
		rec, ok := recs[id]
		live = ok && Live(rec.age, rec.beat)
	}
	if live {
		return runlog.MarkLiveCopy(dir)
	}
	if err := os.Remove(filepath.Join(dir, runlog.LiveCopyFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
