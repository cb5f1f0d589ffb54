package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// cloneStrategy is the CREATE DATABASE strategy of tenant clones.
//
// PostgreSQL 15 copies a template either by WAL-logging every block
// (WAL_LOG, its default) or by copying its files between two checkpoints
// (FILE_COPY). Both allow concurrent clones of one template (each takes a
// share lock on it; measured on PostgreSQL 15). For 200 bank tenants of
// 100 rows (~7.5 MB databases, mostly system catalogs) on 2 cores, a busy
// shared server: WAL_LOG 16 and 13 clones/s at 4 at once, 25-34 at 8;
// FILE_COPY 5-8 at 4 and 12-29 at 8. On an idle server FILE_COPY was
// slightly ahead (20 vs 16 clones/s at 4, through psql), but its
// checkpoints flush every dirty buffer of the whole server, so its cost
// grows with everything else the server does, and clones queue behind
// them; WAL_LOG costs what the tenant weighs (its ~7.5 MB go through the
// WAL). WAL_LOG is faster where it matters and predictable.
const cloneStrategy = "WAL_LOG"

// serverVersion returns server_version_num.
func serverVersion(ctx context.Context, db *sqlx.DB) (int, error) {
	var v int
	err := db.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v)
	return v, err
}

// existingDatabases returns which of names exist as databases.
func existingDatabases(ctx context.Context, admin *sqlx.DB, names []string) (map[string]bool, error) {
	rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datname = ANY($1)", names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

// tenantIDs returns the ids of the tenants whose name is in set (present
// true) or not in it (present false).
func (s Spec) tenantIDs(set map[string]bool, present bool) []int {
	var ids []int
	for id := 1; id <= s.Tenants; id++ {
		if set[s.Name(id)] == present {
			ids = append(ids, id)
		}
	}
	return ids
}

// dropDatabases drops the tenant databases that exist.
func (e *env) dropDatabases(ctx context.Context, admin *sqlx.DB, names []string) (int, error) {
	if err := workload.RefuseDatabasesNotOwned(ctx, admin, names); err != nil {
		return 0, err
	}
	ids := e.Spec.tenantIDs(sliceSet(names), true)
	bar := e.bar("tenants dropped", int64(len(ids)))
	defer bar.Done()
	var mu sync.Mutex
	done := map[string]bool{}
	err := forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		// A drop begun finishes though another failed (or the user
		// interrupted): PostgreSQL leaves a DROP DATABASE cancelled
		// midway an invalid database that no one can connect to.
		if _, err := admin.Exec(context.WithoutCancel(ctx), admin.Dialect().DropDatabase(e.Spec.Name(id))+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping database %q: %w", e.Spec.Name(id), err)
		}
		mu.Lock()
		done[e.Spec.Name(id)] = true
		mu.Unlock()
		bar.Add(1)
		return nil
	})
	if err != nil {
		// Say how far it got: the databases already dropped are gone,
		// and the same cleanup drops the rest.
		mu.Lock()
		defer mu.Unlock()
		var left []string
		for _, id := range ids {
			if !done[e.Spec.Name(id)] {
				left = append(left, e.Spec.Name(id))
			}
		}
		return len(done), fmt.Errorf("dropped %d of %d tenant databases, then stopped at %w; %d not dropped (%s): run the same cleanup again to drop them",
			len(done), len(ids), err, len(left), nameList(left))
	}
	return len(ids), nil
}

func sliceSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// createDatabases creates a database per tenant.
func createDatabases(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := o.NewGenerator()
	if err != nil {
		return t, err
	}
	admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), e.Concurrency)
	if err != nil {
		return t, err
	}
	defer closeAdmin()
	names := o.spanNames()
	f, l := o.span()
	existing, err := existingDatabases(ctx, admin, names)
	if err != nil {
		return t, err
	}
	if o.Drop && len(existing) > 0 {
		foreign, err := e.foreignDatabases(ctx, admin, keys(existing))
		if err != nil {
			return t, err
		}
		ferr := e.refuseForeign("database", foreign, "", "--drop")
		holding, err := e.holdingDatabases(ctx, without(keys(existing), foreign), gen)
		if err != nil {
			return t, err
		}
		herr := e.refuseHolding("database", holding, "on "+strings.Join(admin.Endpoints(), ","), "--drop")
		werr := e.refuseDatabaseWork(ctx, admin, keys(existing), "--drop")
		if err := refusals(ferr, herr, werr); err != nil {
			return t, err
		}
		e.logf("--drop: dropping %d existing tenant databases: %s", len(existing), nameList(keys(existing)))
		n, err := e.dropDatabases(ctx, admin, keys(existing))
		if err != nil {
			return t, err
		}
		e.logf("dropped %d tenant databases", n)
		existing = map[string]bool{}
	}
	if len(existing) > 0 {
		// A tenant whose tables a user replaced is not a loaded tenant:
		// refused, not counted as existing (cleanup refuses it too).
		// (A database that is no tenant of stampede's is refused as
		// such below.)
		foreign, err := e.foreignDatabases(ctx, admin, keys(existing))
		if err != nil {
			return t, err
		}
		holding, err := e.holdingDatabases(ctx, without(keys(existing), foreign), gen)
		if err != nil {
			return t, err
		}
		// A clone that is not stampede's (a user's copy of a tenant, or
		// a clone init was stopped before marking) is no loaded tenant
		// either: refused, not counted. Tenant 1 is judged below, and a
		// refusal of it comes first.
		if slices.Contains(foreign, o.Spec.Name(f)) {
			foreign = nil
		}
		ferr := e.refuseForeign("database", foreign, "", resumeAction)
		herr := e.refuseHolding("database", holding, "on "+strings.Join(admin.Endpoints(), ","), resumeAction)
		// Those refused go with --force-drop: so does a user's work on
		// them as wholes, named with them.
		var werr error
		if ferr != nil || herr != nil {
			werr = e.refuseDatabaseWork(ctx, admin, append(keys(holding), foreign...), resumeAction)
		}
		if err := refusals(ferr, herr, werr); err != nil {
			return t, err
		}
		// ForceDrop, said by the refusals: those tenants go, and are
		// loaded again with the missing ones.
		if drop := append(keys(holding), foreign...); len(drop) > 0 {
			if _, err := e.dropDatabases(ctx, admin, drop); err != nil {
				return t, err
			}
			for _, name := range drop {
				delete(existing, name)
			}
		}
	}
	d := admin.Dialect()
	first := o.Spec.Name(f)
	t1opts := o.Spec.Options(e.Base, f)
	want := o.marker(gen)
	if existing[first] {
		db, closeDB, err := e.connect(ctx, t1opts, 1)
		if err != nil {
			return t, err
		}
		m, ok, err := readMarker(ctx, db, "")
		closeDB()
		if err != nil {
			return t, err
		}
		if ok {
			if err := compareMarker(first, m, want); err != nil {
				return t, err
			}
		} else {
			foreign, err := e.foreignDatabases(ctx, admin, []string{first})
			if err != nil {
				return t, err
			}
			ferr := e.refuseForeign("database", foreign, "", "init (which replaces a half-loaded tenant)")
			werr := e.refuseDatabaseWork(ctx, admin, []string{first}, "init (which replaces a half-loaded tenant)")
			if err := refusals(ferr, werr); err != nil {
				return t, err
			}
			e.logf("tenant database %q is half-loaded (no %s marker): dropping and reloading it", first, MarkerTable)
			if _, err := admin.Exec(ctx, d.DropDatabase(first)+" WITH (FORCE)"); err != nil {
				return t, fmt.Errorf("dropping half-loaded database %q: %w", first, err)
			}
			delete(existing, first)
		}
	}
	if !existing[first] {
		// Made and marked though interrupted, as a clone is (below).
		if _, err := admin.Exec(context.WithoutCancel(ctx), d.CreateDatabase(first)); err != nil {
			return t, fmt.Errorf("creating database %q: %w", first, err)
		}
		if err := e.markDatabase(context.WithoutCancel(ctx), admin, first); err != nil {
			return t, err
		}
		// The pools on tenant 1 are closed when loadTenant1 returns: a
		// template must have no other connection while it is cloned.
		if err := e.loadFirst(ctx, o, gen, f, t1opts, ""); err != nil {
			return t, err
		}
		t.Created++
	} else {
		t.Existing++
	}
	var missing []int
	for id := f + 1; id <= l; id++ {
		if !existing[o.Spec.Name(id)] {
			missing = append(missing, id)
		}
	}
	t.Existing += l - f - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants exist already; creating the %d missing", t.Existing, l-f+1, len(missing))
	}
	clone := "CREATE DATABASE %s TEMPLATE " + d.QuoteIdent(first)
	if v, err := serverVersion(ctx, admin); err == nil && v >= 150000 {
		clone += " STRATEGY " + cloneStrategy
	}
	bar := e.bar("tenants", int64(len(missing)))
	var created atomic.Int64
	err = forEach(ctx, e.Concurrency, missing, func(ctx context.Context, id int) error {
		name := o.Spec.Name(id)
		for attempt := 0; ; attempt++ {
			// A clone begun is made and marked though the user
			// interrupts: a clone has its template's marker but not
			// its mark (bound to the clone's own OID), and without the
			// mark it is told from a user's copy of tenant 1 by
			// nothing (CREATE DATABASE runs in no transaction), so it
			// would be refused as the user's. Only a kill between the
			// two leaves one so (--force-drop then drops it).
			keep := context.WithoutCancel(ctx)
			_, err := admin.Exec(keep, fmt.Sprintf(clone, d.QuoteIdent(name)))
			switch {
			case err == nil:
				if err := e.markDatabase(keep, admin, name); err != nil {
					return err
				}
				created.Add(1)
				bar.Add(1)
				return nil
			case sqlx.SQLState(err) == "42P04": // exists: created concurrently
				bar.Add(1)
				return nil
			case sqlx.SQLState(err) == "55006" && attempt < 20 && ctx.Err() == nil:
				// Someone is connected to the template: wait a little.
				time.Sleep(time.Duration(50*(attempt+1)) * time.Millisecond)
			case sqlx.SQLState(err) == "55006":
				return fmt.Errorf("cannot clone tenant %d: database %q, the template of every tenant, is in use by other sessions; disconnect them and rerun", id, first)
			default:
				return fmt.Errorf("creating database %q from template %q: %w", name, first, e.explain(err))
			}
		}
	})
	bar.Done()
	t.Created += int(created.Load())
	if err != nil {
		return t, err
	}
	err = admin.QueryRow(ctx, "SELECT count(*), coalesce(sum(pg_database_size(datname)), 0)::bigint FROM pg_database WHERE datname = ANY($1)", names).
		Scan(&t.Databases, &t.Bytes)
	if err != nil {
		return t, err
	}
	t.Tables = t.Databases * int64(len(gen.Tables())+o.ExtraTables+1)
	return t, nil
}
