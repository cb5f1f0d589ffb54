package fleet

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// A split init of a fleet (init --tenants N --clients K --client-index I)
// has K inits, on one machine or many, each create a contiguous share of
// the tenants (ShareRange): the share's first tenant is loaded, the others
// copied from it, as one init copies every tenant from tenant 1. The
// clients draw the same data: each tenant's rows come from the same seed
// and flags, so tenant 4 loaded by client 1 holds what a clone of tenant 1
// would.
//
// The split is recorded in LoadTable, in the database that holds the
// fleet's records (the maintenance database "postgres" in database mode,
// the fleet's database otherwise): the number of clients, the data's
// flags and seed, and the shares complete. The first client records them;
// a client whose --clients, flags or seed differ is refused, naming what
// differs. A client adds its share once every tenant of it is complete;
// run refuses the fleet while a share is missing and names it
// (MissingShareError). A later init of the whole fleet from one process
// (which creates whatever is missing) deletes the record, as does
// cleanup.

// LoadTable records the split inits of fleets.
const LoadTable = "stampede_fleet_load"

// visibleTable is a query with one parameter, a table's name, that says
// whether the table exists on the search path. Under the fleet's lock it
// reads pg_class itself: to_regclass answers from the backend's catalog
// cache, which waiting on an advisory lock does not refresh, so a table
// another client made meanwhile could still read as missing.
const visibleTable = "SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = $1 AND pg_table_is_visible(oid))"

// lockKey is the key of the fleet's advisory lock.
func (e *env) lockKey() string { return "stampede fleet: " + e.fleetKey() }

// locked runs fn in a transaction on db that holds the fleet's advisory
// lock (PostgreSQL's pg_advisory_xact_lock): the clients of a split init
// make what they share (tables, records, grants on one database) one at
// a time. Servers without advisory locks run fn unlocked.
func (e *env) locked(ctx context.Context, db *sqlx.DB, fn func(tx sqlx.Tx) error) error {
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if db.Dialect().Name() == "postgres" {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", e.lockKey()); err != nil {
			return fmt.Errorf("taking the fleet's lock: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// SplitSeed is the data's seed of a split init given no --seed: derived
// from the fleet (its mode, pattern and database) and the data's flags,
// so that every client, started alone with the same command line, draws
// the same rows.
func SplitSeed(spec Spec, database, flags string) uint64 {
	h := fnv.New64a()
	for _, p := range []string{string(spec.Mode), spec.Pattern, database, flags, strconv.Itoa(spec.Tenants)} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// shareRecord is a split init's row of LoadTable.
type shareRecord struct {
	workload, flags string
	seed            int64
	clients         int
	loaded          []int32
}

// fleetArgs returns the command-line flags that name the fleet, for
// messages.
func (e *env) fleetArgs() string {
	args := []string{"--tenants", strconv.Itoa(e.Spec.Tenants)}
	if e.Spec.Mode != ModeDatabase {
		args = append(args, "--tenant-mode", string(e.Spec.Mode), "--db", e.Base.Database)
	}
	if e.Spec.Mode != ModeColumn && e.Spec.Pattern != DefaultPattern(e.Workload) {
		args = append(args, "--tenant-pattern", e.Spec.Pattern)
	}
	return strings.Join(args, " ")
}

// ensureLoadTable creates LoadTable when missing (under the fleet's lock:
// the clients start together), refusing a table of that name that is not
// stampede's.
func ensureLoadTable(ctx context.Context, tx sqlx.Tx, d dialect.Dialect) error {
	var exists bool
	var comment *string
	if err := tx.QueryRow(ctx, visibleTable, LoadTable).Scan(&exists); err != nil {
		return err
	}
	if exists {
		if err := tx.QueryRow(ctx, "SELECT "+dialect.OwnComment(d, "to_regclass($1)", "pg_class"), d.QuoteIdent(LoadTable)).Scan(&comment); err != nil {
			return err
		}
	}
	if exists {
		if comment == nil || !workload.IsMark(*comment) {
			return fmt.Errorf("table %s exists and was not made by stampede (no mark of stampede's on it): a split init of a fleet records its shares in a table of that name; rename yours", LoadTable)
		}
		return nil
	}
	t := d.QuoteIdent(LoadTable)
	_, err := tx.Exec(ctx, "CREATE TABLE "+t+" (fleet TEXT PRIMARY KEY, workload TEXT NOT NULL, flags TEXT NOT NULL, seed BIGINT NOT NULL, clients INT NOT NULL, loaded INT[] NOT NULL DEFAULT '{}', started_at TIMESTAMPTZ NOT NULL DEFAULT now());\n"+
		dialect.CommentOnTable(d, LoadTable, workload.Mark+" fleet: the shares of split inits (init --tenants --clients)"))
	return err
}

// beginShare records the split init (the first client) or checks that
// this client's --clients, flags and seed agree with the record.
func (e *env) beginShare(ctx context.Context, o CreateOptions) error {
	if e.Spec.Mode != ModeDatabase {
		if err := e.ensureBase(ctx); err != nil {
			return err
		}
	}
	db, closeDB, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		return err
	}
	defer closeDB()
	d := db.Dialect()
	return e.locked(ctx, db, func(tx sqlx.Tx) error {
		if err := ensureLoadTable(ctx, tx, d); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO "+d.QuoteIdent(LoadTable)+" (fleet, workload, flags, seed, clients) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (fleet) DO NOTHING",
			e.fleetKey(), e.Workload, o.Flags, int64(o.Seed), o.ShareCount)
		if err != nil {
			return fmt.Errorf("recording the split init in %s: %w", LoadTable, err)
		}
		rec, _, err := readShares(ctx, tx, d, e.fleetKey())
		if err != nil {
			return err
		}
		differs := func(what, given, recorded string) error {
			return &ShareMismatchError{Given: what + " " + given, Recorded: recorded, Fleet: e.fleetKey(), Cleanup: fmt.Sprintf("stampede cleanup %s %s", e.Workload, e.fleetArgs())}
		}
		switch {
		case rec.clients != o.ShareCount:
			return differs("--clients", strconv.Itoa(o.ShareCount), fmt.Sprintf("--clients %d", rec.clients))
		case rec.workload != e.Workload:
			return differs("workload", e.Workload, "workload "+rec.workload)
		case rec.flags != o.Flags:
			return differs("the data flags", fmt.Sprintf("%q", o.Flags), fmt.Sprintf("the data flags %q", rec.flags))
		case rec.seed != int64(o.Seed):
			return differs("--seed", strconv.FormatUint(o.Seed, 10), fmt.Sprintf("--seed %d", uint64(rec.seed)))
		}
		return nil
	})
}

// readShares reads the fleet's record; ok is false without one.
func readShares(ctx context.Context, q sqlx.Querier, d dialect.Dialect, key string) (rec shareRecord, ok bool, err error) {
	err = q.QueryRow(ctx, "SELECT workload, flags, seed, clients, loaded FROM "+d.QuoteIdent(LoadTable)+" WHERE fleet = $1", key).
		Scan(&rec.workload, &rec.flags, &rec.seed, &rec.clients, &rec.loaded)
	if errors.Is(err, sqlx.ErrNoRows) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("reading the split init's record in %s: %w", LoadTable, err)
	}
	return rec, true, nil
}

// endShare records this client's share complete and returns how many
// shares are in, this one included.
func (e *env) endShare(ctx context.Context, index int) (in int, err error) {
	db, closeDB, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		return 0, err
	}
	defer closeDB()
	t := db.Dialect().QuoteIdent(LoadTable)
	_, err = db.Exec(ctx, "UPDATE "+t+" SET loaded = array_append(loaded, $2::int) WHERE fleet = $1 AND NOT ($2::int = ANY(loaded))", e.fleetKey(), index)
	if err == nil {
		err = db.QueryRow(ctx, "SELECT coalesce(cardinality(loaded), 0) FROM "+t+" WHERE fleet = $1", e.fleetKey()).Scan(&in)
	}
	if err != nil {
		return 0, fmt.Errorf("recording share %d in %s: %w", index, LoadTable, err)
	}
	return in, nil
}

// clearShares deletes the fleet's record (its tenants are all complete,
// or dropped), and LoadTable when no record is left.
func (e *env) clearShares(ctx context.Context) error {
	db, closeDB, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil
		}
		return err
	}
	defer closeDB()
	if db.Dialect().Name() != "postgres" {
		return nil
	}
	var exists bool
	var comment *string
	d := db.Dialect()
	if err := db.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL, "+dialect.OwnComment(d, "to_regclass($1)", "pg_class"), d.QuoteIdent(LoadTable)).Scan(&exists, &comment); err != nil || !exists {
		return err
	}
	if comment == nil || !workload.IsMark(*comment) {
		return nil // a table of the user's: not ours to touch
	}
	t := d.QuoteIdent(LoadTable)
	var left int
	if err := db.QueryRow(ctx, "WITH d AS (DELETE FROM "+t+" WHERE fleet = $1 RETURNING 1) SELECT count(*) FROM "+t+" WHERE fleet <> $1", e.fleetKey()).Scan(&left); err != nil {
		return fmt.Errorf("deleting the split init's record from %s: %w", LoadTable, err)
	}
	if left == 0 {
		if _, err := db.Exec(ctx, d.DropTable(LoadTable)); err != nil {
			return fmt.Errorf("dropping %s: %w", LoadTable, err)
		}
	}
	return nil
}

// MissingShareError says that a split init of the fleet lacks a share:
// run refuses the fleet until it is in.
type MissingShareError struct {
	// Index of Count is the first share missing, tenants First..Last;
	// Missing is how many shares are.
	Index, Count, Missing, First, Last int
	// Command is the init that loads it, without its data flags and URL
	// (the CLI completes a command in backquotes from its own line).
	Command string
}

// Is makes the error match workload.ErrUnfinishedLoad.
func (e *MissingShareError) Is(target error) bool { return target == workload.ErrUnfinishedLoad }

func (e *MissingShareError) Error() string {
	more := ""
	if e.Missing > 1 {
		more = fmt.Sprintf(" (%d of the %d shares are missing: each missing client's init loads its own)", e.Missing, e.Count)
	}
	return fmt.Sprintf("client %d of %d's share of the fleet (tenants %d..%d) is not loaded: run `%s` (or wait for it, if that init is running)%s",
		e.Index, e.Count, e.First, e.Last, e.Command, more)
}

// ShareMismatchError refuses a client of a split init whose flags differ
// from those the first client recorded.
type ShareMismatchError struct {
	Given, Recorded, Fleet, Cleanup string
}

func (e *ShareMismatchError) Error() string {
	return fmt.Sprintf("%s differs from what the first client of this split init of the fleet (%s) recorded, %s: give every client the same flags, or start over with `%s`",
		e.Given, e.Fleet, e.Recorded, e.Cleanup)
}

// Is makes the error match workload.ErrForeign's kin for exit codes: it
// is bad input.
func (e *ShareMismatchError) Is(target error) bool { return target == ErrTenantMismatch }

// CheckShares refuses a fleet loaded by a split init with a share missing
// (a *MissingShareError). A fleet without a record is not checked here.
func CheckShares(ctx context.Context, t Target) error {
	if t.Base.Driver == sqlx.DriverNull {
		return nil // no server, no records
	}
	e := newEnv(t)
	db, closeDB, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil // the fleet's database: run says it is missing
		}
		return err
	}
	defer closeDB()
	d := db.Dialect()
	if ok, err := workload.TableExists(ctx, db, LoadTable); err != nil || !ok {
		return err
	}
	rec, ok, err := readShares(ctx, db, d, e.fleetKey())
	if err != nil || !ok {
		return err
	}
	var missing []int
	for i := range rec.clients {
		if !slices.Contains(rec.loaded, int32(i)) {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	i := missing[0]
	f, l := ShareRange(t.Spec.Tenants, i, rec.clients)
	cmd := strings.Join([]string{"stampede init", e.Workload, e.fleetArgs(), "--clients", strconv.Itoa(rec.clients), "--client-index", strconv.Itoa(i)}, " ")
	return &MissingShareError{Index: i, Count: rec.clients, Missing: len(missing), First: f, Last: l, Command: cmd}
}
