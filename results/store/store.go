package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"modernc.org/sqlite"               // database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
)

// DefaultFile is the name of the SQLite store in a results directory.
const DefaultFile = "index.sqlite"

// ErrNotFound means the store has no run of the ID asked for.
var ErrNotFound = errors.New("run not in the results store")

// ErrBadURL marks a results store URL that names no store stampede can
// open (an unknown scheme, a malformed URL): bad input, not a failure of
// the store.
var ErrBadURL = errors.New("bad results store URL")

// DefaultURL returns the URL of the default store of the results directory
// root: the SQLite file root/index.sqlite.
func DefaultURL(root string) string {
	return "sqlite:" + filepath.Join(root, DefaultFile)
}

// Store is an open results store. It is safe for concurrent use, and
// several processes may use one store at the same time.
type Store struct {
	db   *sql.DB
	name string // where the store is, for messages; no password

	pg bool // a PostgreSQL (or CockroachDB) store, which keeps the runs' files

	shipMu    sync.Mutex
	shipped   map[string]fileState // what Ship sent of append-only files, by directory, run ID and file name
	sentWhole map[string][]byte    // what Ship sent of files written whole, by the same key
	started   map[string]bool      // runs ShipLive indexed as running, by directory and run ID
	// shipConn is the connection Ships use, kept from one to the next:
	// a connection taken from the pool again after a second idle is
	// pinged first (pgx's stdlib), a round trip per interval.
	shipConn *sql.Conn
	shipping sync.Mutex // held by a Ship
}

// RunRow is one run as the store holds it: its run.json metadata and the
// total of its recomputed default view. A RunRow is a plain value.
type RunRow struct {
	ID              string            `json:"id"`
	Dir             string            `json:"dir"`
	Workload        string            `json:"workload"`
	Start           time.Time         `json:"start"`
	End             *time.Time        `json:"end,omitempty"`
	Status          string            `json:"status"`
	Error           string            `json:"error,omitempty"`
	Seed            uint64            `json:"seed"`
	Concurrency     int               `json:"concurrency,omitempty"`
	Tags            map[string]string `json:"tags,omitempty"`
	StampedeVersion string            `json:"stampede_version,omitempty"`
	// Seconds and Intervals describe the recomputed view's period; both
	// are 0 when the run has no complete interval after its ramp-up.
	Seconds   float64 `json:"seconds"`
	Intervals int     `json:"intervals"`
	// The total's figures; latencies in milliseconds.
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	OpsPerSec float64 `json:"ops_per_sec"`
	P50       float64 `json:"p50_ms"`
	P95       float64 `json:"p95_ms"`
	P99       float64 `json:"p99_ms"`
	P999      float64 `json:"p99_9_ms"`
	Max       float64 `json:"max_ms"`
	// Warnings say what recomputing the view could not read, or why there
	// is no view.
	Warnings []string `json:"warnings,omitempty"`
	// Ops are the per-operation figures; only Get fills them in.
	Ops []OpRow `json:"ops,omitempty"`
}

// OpRow is one operation's figures in a run; latencies in milliseconds.
type OpRow struct {
	Name      string  `json:"name"`
	Count     int64   `json:"count"`
	Errors    int64   `json:"errors"`
	OpsPerSec float64 `json:"ops_per_sec"`
	Mean      float64 `json:"mean_ms"`
	P50       float64 `json:"p50_ms"`
	P95       float64 `json:"p95_ms"`
	P99       float64 `json:"p99_ms"`
	P999      float64 `json:"p99_9_ms"`
	Max       float64 `json:"max_ms"`
}

// Filter selects runs in List. The zero Filter selects every run.
type Filter struct {
	// Workload, if set, is the workload's exact name.
	Workload string
	// Tags the runs must all have, with these values (see
	// runlog.MatchTags: an empty value selects runs that recorded the key
	// with an empty value, not runs without it).
	Tags map[string]string
	// Since and Until, if set, bound the runs' start: Since <= start <
	// Until.
	Since, Until time.Time
	// Limit, if positive, keeps only the Limit latest runs.
	Limit int
}

var schema = []string{
	`CREATE TABLE IF NOT EXISTS stampede_runs (
		id TEXT PRIMARY KEY,
		dir TEXT NOT NULL,
		workload TEXT NOT NULL,
		start_ns BIGINT NOT NULL,
		end_ns BIGINT,
		status TEXT NOT NULL,
		error TEXT NOT NULL,
		seed TEXT NOT NULL,
		concurrency BIGINT NOT NULL,
		tags TEXT NOT NULL,
		stampede_version TEXT NOT NULL,
		seconds DOUBLE PRECISION NOT NULL,
		intervals BIGINT NOT NULL,
		ops BIGINT NOT NULL,
		errors BIGINT NOT NULL,
		ops_per_sec DOUBLE PRECISION NOT NULL,
		p50_ms DOUBLE PRECISION NOT NULL,
		p95_ms DOUBLE PRECISION NOT NULL,
		p99_ms DOUBLE PRECISION NOT NULL,
		p999_ms DOUBLE PRECISION NOT NULL,
		max_ms DOUBLE PRECISION NOT NULL,
		warnings TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS stampede_runs_start ON stampede_runs (start_ns, id)`,
	`CREATE TABLE IF NOT EXISTS stampede_run_ops (
		run_id TEXT NOT NULL,
		op TEXT NOT NULL,
		ops BIGINT NOT NULL,
		errors BIGINT NOT NULL,
		ops_per_sec DOUBLE PRECISION NOT NULL,
		mean_ms DOUBLE PRECISION NOT NULL,
		p50_ms DOUBLE PRECISION NOT NULL,
		p95_ms DOUBLE PRECISION NOT NULL,
		p99_ms DOUBLE PRECISION NOT NULL,
		p999_ms DOUBLE PRECISION NOT NULL,
		max_ms DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (run_id, op)
	)`,
	`CREATE TABLE IF NOT EXISTS stampede_run_tags (
		run_id TEXT NOT NULL,
		tag_key TEXT NOT NULL,
		tag_value TEXT NOT NULL,
		PRIMARY KEY (run_id, tag_key)
	)`,
	`CREATE INDEX IF NOT EXISTS stampede_run_tags_kv ON stampede_run_tags (tag_key, tag_value)`,
	filesSchema,
	liveSchema,
}

const runCols = `id, dir, workload, start_ns, end_ns, status, error, seed, concurrency, tags, stampede_version,
	seconds, intervals, ops, errors, ops_per_sec, p50_ms, p95_ms, p99_ms, p999_ms, max_ms, warnings`

// Open opens the store at rawURL, creating its tables if missing:
// "sqlite:PATH" is an SQLite file (created if missing, in a directory
// that must exist: a missing one is refused, ErrBadURL), and "postgres://..." or "postgresql://..." a PostgreSQL or
// CockroachDB database. Open checks that the database answers.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	return open(ctx, rawURL, false)
}

// OpenReadOnly opens the store at rawURL to read it only, for a reader that
// must change nothing (the dashboard): an SQLite file is opened read-only
// and must exist (else the error wraps fs.ErrNotExist), a PostgreSQL
// database is used in read-only transactions, and no table is created: a
// store that has none yet fails on the first List or Get.
func OpenReadOnly(ctx context.Context, rawURL string) (*Store, error) {
	return open(ctx, rawURL, true)
}

// open is Open, or OpenReadOnly when ro.
func open(ctx context.Context, rawURL string, ro bool) (*Store, error) {
	var (
		driver, dsn string
		s           = &Store{}
	)
	switch {
	case strings.HasPrefix(rawURL, "sqlite:"):
		path := strings.TrimPrefix(rawURL, "sqlite:")
		path = strings.TrimPrefix(path, "//")
		if path == "" {
			return nil, badURLError{fmt.Errorf("results store %q: no file name after sqlite: give sqlite:PATH", rawURL)}
		}
		if ro && path != memoryPath {
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("results store sqlite:%s: %w", path, err)
			}
			driver, s.name = "sqlite", path
			dsn = "file:" + path + "?mode=ro&_pragma=busy_timeout(10000)"
			break
		}
		if path != memoryPath {
			// A missing directory is a typo as often as not: it is
			// refused, not created (the results directory, which holds
			// the default store, is created by the run that writes it).
			if dir := filepath.Dir(path); !isDir(dir) {
				what := "does not exist"
				if _, err := os.Stat(dir); err == nil {
					what = "is not a directory"
				}
				return nil, badURLError{fmt.Errorf("results store sqlite:%s: %s %s: create the directory, or give a file in a directory that exists", path, dir, what)}
			}
			// Created here, for its mode: only its owner may read what
			// it holds of the runs (hosts, command lines, tags), whatever
			// the umask. SQLite gives its -wal and -shm files the same
			// mode.
			if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				f.Close()
			}
		}
		driver, s.name = "sqlite", path
		dsn = "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		if err := sqlx.CheckUserinfo(rawURL); err != nil {
			return nil, badURLError{fmt.Errorf("malformed results store URL %s: %w", sqlx.HideUserinfo(rawURL), err)}
		}
		u, err := url.Parse(rawURL)
		if err != nil {
			return nil, badURLError{fmt.Errorf("malformed results store URL: %v", strings.ReplaceAll(err.Error(), rawURL, "<url>"))}
		}
		driver, dsn, s.name, s.pg = "pgx", rawURL, u.Host+u.Path, true
		if ro {
			// An unknown parameter is a run-time setting for pgx.
			q := u.Query()
			q.Set("default_transaction_read_only", "on")
			u.RawQuery = q.Encode()
			dsn = u.String()
		}
	default:
		scheme, _, _ := strings.Cut(rawURL, ":")
		return nil, badURLError{fmt.Errorf("unsupported results store URL scheme %q: use sqlite:PATH, postgres:// or postgresql://", scheme)}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("cannot open the results store %s: %w", s.name, err)
	}
	if driver == "sqlite" {
		// One connection: SQLite serializes writers anyway, and this keeps
		// the process from waiting on its own locks.
		db.SetMaxOpenConns(1)
	}
	s.db = db
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		if driver == "sqlite" && damaged(err) {
			return nil, damagedError{s.name, err}
		}
		if driver == "sqlite" {
			return nil, fmt.Errorf("cannot open the results store %s: %w", s.name, err)
		}
		return nil, unreachable(rawURL, err)
	}
	if driver == "sqlite" && !ro && stamped(pctx, db) {
		return s, nil // checked and created by an earlier Open
	}
	absent, err := refuseForeignTables(pctx, db, driver != "sqlite", s.name)
	if err == nil && ro {
		err = readable(absent, driver != "sqlite", s.name)
	}
	if err != nil {
		db.Close()
		if driver == "sqlite" && damaged(err) {
			return nil, damagedError{s.name, err}
		}
		return nil, err
	}
	if ro {
		return s, nil
	}
	if err := createTables(pctx, db, s.pg); err != nil {
		db.Close()
		if driver == "sqlite" && damaged(err) {
			return nil, damagedError{s.name, err}
		}
		// The store answered: whatever went wrong is not that it is
		// unreachable (a role that may not create tables, a full disk).
		return nil, fmt.Errorf("cannot create the tables of the results store %s: %w", s.name, err)
	}
	if driver == "sqlite" {
		stamp(pctx, db)
	}
	return s, nil
}

// schemaLock is the key of the PostgreSQL transaction advisory lock under
// which Open creates the store's tables.
const schemaLock = 0x7374616d70656465 // "stampede"

// createTables creates the store's missing tables and indexes in db. In
// PostgreSQL (pg) it does so in one transaction holding an advisory lock:
// CREATE TABLE IF NOT EXISTS is not safe against another session creating
// the same table at the same time (a duplicate key in pg_type or
// pg_class), and the clients of one benchmark, started together, open a
// fresh store at once. Where advisory locks are missing (CockroachDB's
// are no-ops, and some servers lack the function), a collision is tried
// again.
func createTables(ctx context.Context, db *sql.DB, pg bool) error {
	if !pg {
		return execAll(ctx, db.ExecContext)
	}
	var err error
	for range 5 {
		if err = createLocked(ctx, db); !collided(err) {
			return err
		}
	}
	return err
}

// createLocked creates the tables in one transaction under schemaLock.
func createLocked(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(schemaLock)); err != nil {
		if pgState(err) != "42883" { // not "no such function"
			return err
		}
		// No advisory locks: each statement on its own, and a
		// collision is tried again by the caller.
		_ = tx.Rollback()
		return execAll(ctx, db.ExecContext)
	}
	if err := execAll(ctx, tx.ExecContext); err != nil {
		return err
	}
	return tx.Commit()
}

// execAll runs the schema's statements with exec.
func execAll(ctx context.Context, exec func(context.Context, string, ...any) (sql.Result, error)) error {
	for _, stmt := range schema {
		if _, err := exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

// collided reports whether err is PostgreSQL's answer to two sessions
// creating one table at once: a unique violation in the catalog, or the
// table existing after all.
func collided(err error) bool {
	s := pgState(err)
	return s == "23505" || s == "42P07"
}

// pgState returns the SQLSTATE of a PostgreSQL error, or "".
func pgState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// unreachable describes the failure to connect to the PostgreSQL store at
// rawURL in one line: the store's URL (password masked), why, and what to
// do. A missing database is the URL's (sqlx's advice for a benchmark's
// database, `stampede init`, does not apply to a results store).
func unreachable(rawURL string, err error) error {
	why := sqlx.DescribeConnectFailure(hostOf(rawURL), err)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "3D000" {
		why = fmt.Sprintf("%s (SQLSTATE %s); check the database name in the URL, or create the database on that server", pe.Message, pe.Code)
	} else if !strings.Contains(why, "; ") { // no advice of sqlx's
		why += "; check the URL, and that its server is up"
	}
	return &UnreachableError{Store: redact.Conn(rawURL), Why: why}
}

// UnreachableError is Open's error for a PostgreSQL store it cannot
// connect to. It is a plain value.
type UnreachableError struct {
	// Store is the store's URL, its password masked.
	Store string
	// Why says why it could not be reached, and what to check.
	Why string
}

// Error names the store, why it could not be reached and what to do:
// check it, or do without it (the default store in the results
// directory).
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s; or omit --results-url (and $STAMPEDE_RESULTS_URL) to index runs in %s in the results directory", e.Short(), DefaultFile)
}

// NoDirAdvice returns err, an UnreachableError among them made Short:
// for a command given no results directory (--results-dir none), to
// which the advice to index runs in it does not apply.
func NoDirAdvice(err error) error {
	if ue := (*UnreachableError)(nil); errors.As(err, &ue) {
		return errors.New(ue.Short())
	}
	return err
}

// Short is Error without the advice to do without the store: for a run
// that has no results directory to index its runs in (--results-dir
// none).
func (e *UnreachableError) Short() string {
	return fmt.Sprintf("cannot reach the results store %s: %s", e.Store, e.Why)
}

// hostOf returns the host:port of a URL, or "" if it does not parse.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// ErrDamaged marks a SQLite store whose file SQLite cannot read as a
// database: damaged, or another file in its place. The store only indexes
// the run directories, so [MoveAside] and [Store.Rebuild] make it anew.
var ErrDamaged = errors.New("damaged results store")

// damagedError is Open's error for a damaged SQLite file at path.
type damagedError struct {
	path string
	err  error
}

func (e damagedError) Error() string {
	if !ownIndex(e.path) {
		return fmt.Sprintf("the results store %s is not a SQLite database, nor stampede's %s: stampede leaves that file alone; give --results-url a path of its own (sqlite:PATH)", e.path, DefaultFile)
	}
	// SQLite's own words ("file is not a database (26)") say no more.
	return fmt.Sprintf("the results store %s is damaged (SQLite cannot read it): it only indexes the run directories, so `stampede runs --rebuild` moves it aside and indexes them again", e.path)
}

// sqliteHeader begins every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// ownIndex reports whether the file at path may be an index of stampede's
// that went bad: an SQLite file (its header), or a file named as the
// index in a results directory is. Anything else (a user's text file
// given by mistake as --results-url sqlite:notes.txt) is never moved.
func ownIndex(path string) bool {
	if filepath.Base(path) == DefaultFile {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == sqliteHeader
}

func (e damagedError) Unwrap() error { return e.err }
func (e damagedError) Is(target error) bool {
	// Not an index of stampede's: a store URL naming a file that is not
	// one, which nothing may move.
	return target == ErrDamaged || target == ErrBadURL && !ownIndex(e.path)
}

// damaged reports whether err is SQLite's "file is not a database" or
// "database disk image is malformed".
func damaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one
	return code == sqlite3.SQLITE_NOTADB || code == sqlite3.SQLITE_CORRUPT
}

// MoveAside renames the file of the SQLite store rawURL (and its -wal and
// -shm files, where they exist) to NAME.damaged-TIME, so that Open
// creates a new store there, and returns the new name. Only for a store
// that Open found damaged (ErrDamaged).
func MoveAside(rawURL string, now time.Time) (string, error) {
	path, ok := strings.CutPrefix(rawURL, "sqlite:")
	if !ok {
		return "", fmt.Errorf("results store %s is not a SQLite file", rawURL)
	}
	path = strings.TrimPrefix(path, "//")
	if !ownIndex(path) {
		return "", badURLError{fmt.Errorf("the results store %s is not a SQLite database, nor stampede's %s: stampede leaves that file alone; give --results-url a path of its own (sqlite:PATH)", path, DefaultFile)}
	}
	aside := path + ".damaged-" + now.UTC().Format("20060102-150405")
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("cannot move the damaged results store aside: %w", err)
		}
	}
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("cannot move the damaged results store aside: %w", err)
	}
	return aside, nil
}

// memoryPath is the SQLite file name of a store in memory.
const memoryPath = ":memory:"

// OpenMemory opens an empty store held in memory, for as long as it is
// open: Rebuild fills it from the run directories, so that runs can be
// listed where the store's own file cannot be written (its disk full or
// read-only).
func OpenMemory(ctx context.Context) (*Store, error) {
	s, err := Open(ctx, "sqlite:"+memoryPath)
	if err == nil {
		// One connection, never closed while idle: each connection to
		// ":memory:" is a database of its own.
		s.db.SetMaxIdleConns(1)
		s.db.SetConnMaxLifetime(0)
		s.db.SetConnMaxIdleTime(0)
	}
	return s, err
}

// Unwritable reports whether err (or one of the errors it joins) says
// that an SQLite store's file cannot be written: its disk is full or
// read-only, or the file or its directory cannot be created or written.
// Reading may still work from the run directories (see OpenMemory).
func Unwritable(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN:
			return true
		}
	}
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, fs.ErrPermission)
}

// Close closes the store.
func (s *Store) Close() error {
	s.shipMu.Lock()
	if s.shipConn != nil {
		_ = s.shipConn.Close()
		s.shipConn = nil
	}
	s.shipMu.Unlock()
	return s.db.Close()
}

// String returns where the store is, without any password.
func (s *Store) String() string { return s.name }

// Index reads the run directory dir, recomputes its default view (see
// results.Window) and stores it, replacing what the store held for the
// run. A run that has no complete interval is stored with no figures and
// a warning saying why. Index only reads dir.
func (s *Store) Index(ctx context.Context, dir string) error {
	row, ops, err := load(dir)
	if err != nil {
		return err
	}
	return s.put(ctx, []RunRow{row}, [][]OpRow{ops})
}

// Load reads the run directory dir into the row Index would store for it,
// with its operations (RunRow.Ops), and stores nothing: for a reader that
// lists runs the store does not hold yet. It only reads dir.
func Load(dir string) (RunRow, error) {
	row, ops, err := load(dir)
	row.Ops = ops
	return row, err
}

// load reads a run directory into rows.
func load(dir string) (RunRow, []OpRow, error) {
	run, err := runlog.Open(dir)
	if err != nil {
		return RunRow{}, nil, err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	info := run.Info
	row := RunRow{
		ID:              info.ID,
		Dir:             dir,
		Workload:        info.Workload,
		Start:           info.Start,
		End:             info.End,
		Status:          info.Status,
		Error:           info.Error,
		Seed:            info.Seed,
		Concurrency:     concurrency(run),
		Tags:            info.Tags,
		StampedeVersion: info.StampedeVersion,
	}
	view, warnings, err := results.Recompute([]*runlog.Run{run}, results.Window{})
	if err != nil {
		row.Warnings = []string{err.Error()}
		return row, nil, nil
	}
	for _, w := range warnings {
		row.Warnings = append(row.Warnings, w.Error())
	}
	t := view.Total
	row.Seconds, row.Intervals = view.Seconds, view.Intervals
	row.Count, row.Errors, row.OpsPerSec = t.Count, t.Errors, t.Rate
	row.P50, row.P95, row.P99, row.P999, row.Max = t.P50, t.P95, t.P99, t.P999, t.Max
	ops := make([]OpRow, 0, len(view.Ops))
	for _, op := range view.Ops {
		ops = append(ops, OpRow{Name: op.Name, Count: op.Count, Errors: op.Errors, OpsPerSec: op.Rate,
			Mean: op.Mean, P50: op.P50, P95: op.P95, P99: op.P99, P999: op.P999, Max: op.Max})
	}
	return row, ops, nil
}

// concurrency returns the run's number of workers: the concurrency flag,
// or summary.json's concurrency, or 0.
func concurrency(run *runlog.Run) int {
	for _, name := range []string{"concurrency", "threads"} {
		if n, err := strconv.Atoi(run.Info.Flags[name]); err == nil && n > 0 {
			return n
		}
	}
	var sum struct {
		Concurrency int `json:"concurrency"`
	}
	if run.Summary != nil && json.Unmarshal(run.Summary, &sum) == nil {
		return sum.Concurrency
	}
	return 0
}

// Put stores rows as they are, with ops[i] the operations of rows[i] (nil:
// none), replacing what the store held for them: for rows made elsewhere,
// such as a synthetic store of many runs to measure a reader with. Index
// is how runs are normally stored.
func (s *Store) Put(ctx context.Context, rows []RunRow, ops [][]OpRow) error {
	if ops == nil {
		ops = make([][]OpRow, len(rows))
	}
	return s.put(ctx, rows, ops)
}

// put stores rows (and ops[i], the operations of rows[i]) in one
// transaction, replacing what the store held for them.
func (s *Store) put(ctx context.Context, rows []RunRow, ops [][]OpRow) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
			err = fmt.Errorf("results store %s: %w", s.name, err)
		}
	}()
	if err := putTx(ctx, tx, rows, ops); err != nil {
		return err
	}
	return tx.Commit()
}

// putTx stores rows (and ops[i], the operations of rows[i]) within tx,
// replacing what the store held for them.
func putTx(ctx context.Context, tx *sql.Tx, rows []RunRow, ops [][]OpRow) error {
	upsert := `INSERT INTO stampede_runs (` + runCols + `) VALUES (` + placeholders(1, 22) + `)
		ON CONFLICT (id) DO UPDATE SET ` + excluded(runCols)
	for i, r := range rows {
		tags, err := json.Marshal(orEmpty(r.Tags))
		if err != nil {
			return err
		}
		warnings, err := json.Marshal(orEmptySlice(r.Warnings))
		if err != nil {
			return err
		}
		var end *int64
		if r.End != nil {
			ns := r.End.UnixNano()
			end = &ns
		}
		if _, err := tx.ExecContext(ctx, upsert, r.ID, r.Dir, r.Workload, r.Start.UnixNano(), end, r.Status, r.Error,
			strconv.FormatUint(r.Seed, 10), r.Concurrency, string(tags), r.StampedeVersion, r.Seconds, r.Intervals,
			r.Count, r.Errors, r.OpsPerSec, r.P50, r.P95, r.P99, r.P999, r.Max, string(warnings)); err != nil {
			return err
		}
		for _, stmt := range []string{`DELETE FROM stampede_run_ops WHERE run_id = $1`, `DELETE FROM stampede_run_tags WHERE run_id = $1`} {
			if _, err := tx.ExecContext(ctx, stmt, r.ID); err != nil {
				return err
			}
		}
		for _, op := range ops[i] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO stampede_run_ops
				(run_id, op, ops, errors, ops_per_sec, mean_ms, p50_ms, p95_ms, p99_ms, p999_ms, max_ms)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
				r.ID, op.Name, op.Count, op.Errors, op.OpsPerSec, op.Mean, op.P50, op.P95, op.P99, op.P999, op.Max); err != nil {
				return err
			}
		}
		for _, k := range sortedKeys(r.Tags) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO stampede_run_tags (run_id, tag_key, tag_value) VALUES ($1, $2, $3)`,
				r.ID, k, r.Tags[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Sync indexes the runs under root that the store lacks, or holds with
// another status than their run.json's (a run that was still running when
// it was indexed), and returns how many it indexed. Runs that cannot be
// read are skipped and reported in the error, after the others are
// indexed.
func (s *Store) Sync(ctx context.Context, root string) (int, error) {
	infos, listErr := runlog.List(root)
	known, err := s.statuses(ctx)
	if err != nil {
		return 0, err
	}
	var todo []runlog.RunInfo
	for _, info := range infos {
		if st, ok := known[info.ID]; !ok || st != info.Status {
			todo = append(todo, info)
		}
	}
	n, err := s.indexAll(ctx, root, todo)
	return n, errors.Join(listErr, err)
}

// Rebuild indexes every run under root again, and removes from the store
// the runs whose directory was under root but is gone. It returns the
// number of runs indexed. Runs that cannot be read are skipped and
// reported in the error, after the others are indexed.
func (s *Store) Rebuild(ctx context.Context, root string) (int, error) {
	infos, listErr := runlog.List(root)
	n, err := s.indexAll(ctx, root, infos)
	if err != nil {
		return n, errors.Join(listErr, err)
	}
	abs, aerr := filepath.Abs(root)
	if aerr != nil {
		return n, errors.Join(listErr, aerr)
	}
	present := make(map[string]bool, len(infos))
	for _, info := range infos {
		present[info.ID] = true
	}
	// A run whose files the store holds (written by a client elsewhere,
	// or uploaded) is the store's own: its directory is not needed.
	kept, err := s.FileRuns(ctx)
	if err != nil {
		return n, errors.Join(listErr, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, dir FROM stampede_runs`)
	if err != nil {
		return n, errors.Join(listErr, fmt.Errorf("results store %s: %w", s.name, err))
	}
	var gone []string
	for rows.Next() {
		var id, dir string
		if err := rows.Scan(&id, &dir); err != nil {
			rows.Close()
			return n, errors.Join(listErr, fmt.Errorf("results store %s: %w", s.name, err))
		}
		if !present[id] && filepath.Dir(dir) == abs && !slices.Contains(kept, id) {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return n, errors.Join(listErr, fmt.Errorf("results store %s: %w", s.name, err))
	}
	for _, id := range gone {
		if err := s.Delete(ctx, id); err != nil {
			return n, errors.Join(listErr, err)
		}
	}
	return n, listErr
}

// Delete removes a run from the store (not its directory).
func (s *Store) Delete(ctx context.Context, id string) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("results store %s: %w", s.name, err)
	}
	for _, stmt := range []string{
		`DELETE FROM stampede_run_ops WHERE run_id = $1`,
		`DELETE FROM stampede_run_tags WHERE run_id = $1`,
		`DELETE FROM stampede_runs WHERE id = $1`,
	} {
		if _, err := tx.ExecContext(ctx, stmt, id); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("results store %s: %w", s.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("results store %s: %w", s.name, err)
	}
	return nil
}

// indexAll indexes the runs of infos under root, one transaction each.
func (s *Store) indexAll(ctx context.Context, root string, infos []runlog.RunInfo) (int, error) {
	var errs []error
	n := 0
	for _, info := range infos {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if err := s.Index(ctx, filepath.Join(root, info.ID)); err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", info.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// statuses returns the status of every run in the store by ID.
func (s *Store) statuses(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, status FROM stampede_runs`)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			return nil, fmt.Errorf("results store %s: %w", s.name, err)
		}
		m[id] = status
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	return m, nil
}

// List returns the runs f selects, ordered by start time (then ID). With
// a Limit, they are the latest Limit runs, still in that order. A run
// whose writer ships it live (ShipLive) and stopped doing so for longer
// than StaleAfter its beat is listed as killed (runlog.StatusKilled).
func (s *Store) List(ctx context.Context, f Filter) ([]RunRow, error) {
	var (
		where []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Workload != "" {
		where = append(where, "workload = "+arg(f.Workload))
	}
	if !f.Since.IsZero() {
		where = append(where, "start_ns >= "+arg(f.Since.UnixNano()))
	}
	if !f.Until.IsZero() {
		where = append(where, "start_ns < "+arg(f.Until.UnixNano()))
	}
	// Tags are matched here by runlog.MatchTags, the selection report
	// makes from the run directories, not in SQL: `runs --tag` and
	// `report --tag` select the same runs by construction. The rows come
	// latest first, so a Limit stops the scan once it has its runs.
	q := `SELECT ` + runCols + ` FROM stampede_runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY start_ns DESC, id DESC"
	if f.Limit > 0 && len(f.Tags) == 0 {
		q += " LIMIT " + arg(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	// Rows are collected in chunks and copied once: growing one slice of
	// 10,000 rows costs more than the query.
	var (
		chunks [][]RunRow
		chunk  []RunRow
		n      int
	)
	for (f.Limit <= 0 || n < f.Limit) && rows.Next() {
		if len(chunk) == cap(chunk) {
			chunk = make([]RunRow, 0, min(max(2*cap(chunk), 64), 4096))
			chunks = append(chunks, chunk)
		}
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("results store %s: %w", s.name, err)
		}
		if !runlog.MatchTags(r.Tags, f.Tags) {
			continue
		}
		chunk = append(chunk, r)
		chunks[len(chunks)-1] = chunk
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.name, err)
	}
	out := make([]RunRow, 0, n)
	for i := len(chunks) - 1; i >= 0; i-- {
		for j := len(chunks[i]) - 1; j >= 0; j-- {
			out = append(out, chunks[i][j])
		}
	}
	// A run written into the store as it runs is listed as running from
	// its start; killed once its writer stopped writing (see Live).
	if err := s.judge(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns the run of ID id with its operations, or an error wrapping
// ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (RunRow, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM stampede_runs WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return RunRow{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return RunRow{}, fmt.Errorf("results store %s: %w", s.name, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT op, ops, errors, ops_per_sec, mean_ms, p50_ms, p95_ms, p99_ms, p999_ms, max_ms
		FROM stampede_run_ops WHERE run_id = $1 ORDER BY op`, id)
	if err != nil {
		return RunRow{}, fmt.Errorf("results store %s: %w", s.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var o OpRow
		if err := rows.Scan(&o.Name, &o.Count, &o.Errors, &o.OpsPerSec, &o.Mean, &o.P50, &o.P95, &o.P99, &o.P999, &o.Max); err != nil {
			return RunRow{}, fmt.Errorf("results store %s: %w", s.name, err)
		}
		r.Ops = append(r.Ops, o)
	}
	if err := rows.Err(); err != nil {
		return RunRow{}, fmt.Errorf("results store %s: %w", s.name, err)
	}
	one := []RunRow{r}
	if err := s.judge(ctx, one); err != nil {
		return RunRow{}, err
	}
	return one[0], nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (RunRow, error) {
	var (
		r                    RunRow
		startNs              int64
		endNs                sql.NullInt64
		conc, intervals      int64
		seed, tags, warnings string
	)
	if err := sc.Scan(&r.ID, &r.Dir, &r.Workload, &startNs, &endNs, &r.Status, &r.Error, &seed, &conc, &tags,
		&r.StampedeVersion, &r.Seconds, &intervals, &r.Count, &r.Errors, &r.OpsPerSec,
		&r.P50, &r.P95, &r.P99, &r.P999, &r.Max, &warnings); err != nil {
		return RunRow{}, err
	}
	r.Concurrency, r.Intervals = int(conc), int(intervals)
	r.Start = time.Unix(0, startNs).UTC()
	if endNs.Valid {
		t := time.Unix(0, endNs.Int64).UTC()
		r.End = &t
	}
	r.Seed, _ = strconv.ParseUint(seed, 10, 64)
	if tags != "{}" {
		var ok bool
		if r.Tags, ok = parseFlat(tags); !ok {
			if err := json.Unmarshal([]byte(tags), &r.Tags); err != nil {
				return RunRow{}, fmt.Errorf("run %s: malformed tags: %w", r.ID, err)
			}
		}
	}
	if warnings != "[]" {
		if err := json.Unmarshal([]byte(warnings), &r.Warnings); err != nil {
			return RunRow{}, fmt.Errorf("run %s: malformed warnings: %w", r.ID, err)
		}
	}
	return r, nil
}

// parseFlat parses the JSON object of strings json.Marshal writes for a
// map[string]string, when no string has an escape; ok is false otherwise.
// Listing many runs spends most of its time decoding tags without it.
func parseFlat(s string) (m map[string]string, ok bool) {
	if strings.IndexByte(s, '\\') >= 0 || len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	m = map[string]string{}
	s = s[1 : len(s)-1]
	for s != "" {
		var k, v string
		if k, s, ok = quoted(s); !ok || s == "" || s[0] != ':' {
			return nil, false
		}
		if v, s, ok = quoted(s[1:]); !ok {
			return nil, false
		}
		m[k] = v
		if s != "" {
			if s[0] != ',' {
				return nil, false
			}
			s = s[1:]
		}
	}
	return m, true
}

// quoted splits the leading "string" (without escapes) off s.
func quoted(s string) (str, rest string, ok bool) {
	if s == "" || s[0] != '"' {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", "", false
	}
	return s[1 : 1+end], s[2+end:], true
}

// placeholders returns "$from, ..., $to".
func placeholders(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(i))
	}
	return b.String()
}

// excluded returns "c = excluded.c, ..." for the columns but the first.
func excluded(cols string) string {
	var parts []string
	for i, c := range strings.Split(cols, ",") {
		c = strings.TrimSpace(c)
		if i == 0 {
			continue
		}
		parts = append(parts, c+" = excluded."+c)
	}
	return strings.Join(parts, ", ")
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orEmptySlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ParseTime parses a bound of Filter.Since or Until: an RFC 3339 time, an RFC 3339 date
// (midnight UTC) or a duration before now. "" is the zero time.
func ParseTime(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("duration %q is negative: give how long ago", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("malformed time %q: want an RFC 3339 time or date (2026-11-22T10:00:00Z, 2026-11-22) or a duration ago (24h)", s)
}

// isDir reports whether path is a directory (following links); an error
// other than its absence (a directory that cannot be searched) counts as
// one, for opening the file to report.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR)
	}
	return fi.IsDir()
}

// badURLError is an error that matches ErrBadURL.
type badURLError struct{ error }

func (e badURLError) Unwrap() error        { return e.error }
func (e badURLError) Is(target error) bool { return target == ErrBadURL }
