package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// schemaState returns, for the tenant schemas that exist, whether each has
// its marker (is complete).
func schemaState(ctx context.Context, db *sqlx.DB, names []string) (map[string]bool, error) {
	rows, err := db.Query(ctx, `SELECT n.nspname, EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relname = $2)
		FROM pg_namespace n WHERE n.nspname = ANY($1)`, names, MarkerTable)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		var ok bool
		if err := rows.Scan(&n, &ok); err != nil {
			return nil, err
		}
		out[n] = ok
	}
	return out, rows.Err()
}

// refuseDependents refuses, unless ForceDrop, to drop the schemas names
// when objects outside them depend on what they hold (a user's view over
// a tenant's table, say): DROP SCHEMA ... CASCADE would take those along.
// Those of names in users are not stampede's tenants (foreignSchemas):
// the refusal names them apart, as the user's. What fleet exec made
// outside the tenants that the drop takes after them (e.outside) is
// stampede's too, and what depends on it is named with the rest.
func (e *env) refuseDependents(ctx context.Context, db *sqlx.DB, names, users []string, action string) error {
	ours, err := execMadeIn(ctx, db, without(names, users))
	if err != nil {
		return err
	}
	ours = append(ours, e.outside.refs()...)
	deps, err := workload.DependentsBeyond(ctx, db, e.outside.targets(workload.Targets{Schemas: names}), ours)
	if err != nil || len(deps) == 0 {
		return err
	}
	what := schemasWhat(without(names, users), users) + " in " + db.Where() + e.outside.what()
	if e.ForceDrop {
		e.logf("%s", workload.ForceDropNote(what, len(names), deps))
		return nil
	}
	return &workload.DependentsError{What: what, Objects: deps, Action: action}
}

// schemasWhat names schemas to drop, stampede's tenant schemas apart from
// the user's (which the tenant pattern matches but stampede did not make):
// `the tenant schemas t_1, t_2 and the user's schema "t_3"`; a single
// tenant schema is `schema "t_1"`.
func schemasWhat(tenants, users []string) string {
	if len(users) == 0 && len(tenants) == 1 {
		return fmt.Sprintf("schema %q", tenants[0])
	}
	list := func(kind string, names []string) string {
		if len(names) == 1 {
			return fmt.Sprintf("%s %q", kind, names[0])
		}
		return kind + "s " + nameList(names)
	}
	var parts []string
	if len(tenants) > 0 {
		parts = append(parts, "the "+list("tenant schema", tenants))
	}
	if len(users) > 0 {
		parts = append(parts, "the user's "+list("schema", users))
	}
	return strings.Join(parts, " and ")
}

// beforeDrop runs between dropSchemas' census of the tenant schemas and
// their drop; tests set it (export_test.go) to make an object in that
// window.
var beforeDrop = func() {}

// dropSchemas drops the named schemas and what stampede made in them
// (the tables of own, see tenantOwn, the fleet's extra tables and the
// tables carrying stampede's mark); it first refuses
// (refuseDependents) if objects outside them depend on them. Each schema
// goes in one transaction: its tables by name (no CASCADE), then the
// schema with RESTRICT, so that an object made between the census and
// the drop (a user's table in the schema, or a view over a tenant's
// table elsewhere) fails the drop, which then drops nothing of that
// schema, rather than going with it. With ForceDrop the schemas go with
// CASCADE, as the flag says.
func (e *env) dropSchemas(ctx context.Context, db *sqlx.DB, names []string, own []string, action string) error {
	slices.Sort(names)
	if err := e.refuseDependents(ctx, db, names, nil, action); err != nil {
		return err
	}
	if err := workload.RefuseSchemasNotOwned(ctx, db, names); err != nil {
		return err
	}
	beforeDrop()
	ids := e.Spec.tenantIDs(sliceSet(names), true)
	bar := e.bar("tenants dropped", int64(len(ids)))
	defer bar.Done()
	// What the census (holdingSchemas) took for stampede's: by name,
	// the tables marked in any tenant (a clone copies them unmarked).
	ownSet := tenantOwn(own)
	objs, err := workload.Objects(ctx, db)
	if err != nil {
		return err
	}
	set := sliceSet(names)
	for _, o := range objs {
		if o.Marked && o.IsTable() && set[o.Schema] {
			ownSet[o.Name] = true
		}
	}
	// A clone's defaults draw from the sequences of the tenant it was
	// copied from: that tenant's drop fails until its clones are gone.
	// So the schemas whose drop is refused (2BP01) are tried again, in
	// rounds, as long as a round drops some; what is still refused then
	// is what stampede did not make.
	var mu sync.Mutex
	for len(ids) > 0 {
		var refused []int
		var firstErr error
		err := forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
			name := e.Spec.Name(id)
			if e.ForceDrop {
				if _, err := db.Exec(ctx, "DROP SCHEMA IF EXISTS "+db.Dialect().QuoteIdent(name)+" CASCADE"); err != nil {
					return fmt.Errorf("dropping schema %q: %w", name, e.explain(err))
				}
			} else if err := dropSchemaRestrict(ctx, db, name, ownSet); err != nil {
				if sqlx.SQLState(err) != "2BP01" {
					return fmt.Errorf("dropping schema %q: %w", name, e.explain(err))
				}
				why := sqlx.Detail(err)
				if why == "" {
					why = lastLine(err)
				}
				mu.Lock()
				defer mu.Unlock()
				refused = append(refused, id)
				if firstErr == nil {
					firstErr = &gainedError{fmt.Sprintf("schema %q in %s gained objects that stampede did not make since %s checked it (%s): %s drops nothing of it; run it again to see them, or to drop them too, add %s",
						name, db.Where(), action, why, action, workload.ForceDropFlag)}
				}
				return nil
			}
			bar.Add(1)
			return nil
		})
		if err != nil {
			return err
		}
		if len(refused) == len(ids) {
			return firstErr
		}
		slices.Sort(refused)
		ids = refused
	}
	return nil
}

// gainedError refuses a drop that failed because objects stampede did
// not make appeared after the census (dropSchemas). It matches
// workload.ErrForeign, for its exit code.
type gainedError struct{ msg string }

func (e *gainedError) Error() string { return e.msg }

// Is makes errors.Is(err, workload.ErrForeign) true.
func (e *gainedError) Is(target error) bool { return target == workload.ErrForeign }

// dropSchemaRestrict drops, in one transaction, schema's tables that
// stampede made (named in own, the fleet's extra tables), without
// CASCADE, the routines that carry stampede's mark (dropMarkedRoutines),
// the extensions fleet exec made in it (dropExecExtensions), and then
// the schema with RESTRICT: any
// other object in it, or depending on it, fails the drop, which then
// drops nothing.
func dropSchemaRestrict(ctx context.Context, db *sqlx.DB, schema string, own map[string]bool) error {
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	d := db.Dialect()
	rows, err := tx.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`, schema)
	if err != nil {
		return err
	}
	var drop []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		if own[t] || workload.IsExtraTable(t) {
			drop = append(drop, d.QuoteIdent(schema)+"."+d.QuoteIdent(t))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if err := dropExecMade(ctx, db, tx, schema, "'v', 'm'", "VIEW"); err != nil {
		return err
	}
	if len(drop) > 0 {
		// One statement: the tables' foreign keys to each other need
		// no CASCADE.
		if _, err := tx.Exec(ctx, "DROP TABLE "+strings.Join(drop, ", ")); err != nil {
			return err
		}
	}
	if err := dropMarkedRoutines(ctx, db, tx, schema); err != nil {
		return err
	}
	if err := dropExecTypes(ctx, db, tx, schema); err != nil {
		return err
	}
	if err := dropExecMade(ctx, db, tx, schema, "'S'", "SEQUENCE"); err != nil {
		return err
	}
	if err := dropExecExtensions(ctx, db, tx, schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DROP SCHEMA "+d.QuoteIdent(schema)+" RESTRICT"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// dropExecMade drops, in one statement of kind ("VIEW", "SEQUENCE"),
// the relations of relkinds in schema that carry the mark of what fleet
// exec made (execMark) bound to them: stampede's, which the schema's drop
// (RESTRICT) would otherwise fail over. A materialized view is dropped
// as a view's kind is: DROP VIEW refuses it, so each kind is asked for
// on its own.
func dropExecMade(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, schema, relkinds, kind string) error {
	if db.Dialect().Name() != "postgres" {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT c.relkind = 'm', format('%I.%I', n.nspname, c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN (`+relkinds+`) AND `+dialect.OwnComment(db.Dialect(), "c.oid", "pg_class")+` = $2`, schema, execMark)
	if err != nil {
		return err
	}
	byKind := map[string][]string{}
	for rows.Next() {
		var mat bool
		var name string
		if err := rows.Scan(&mat, &name); err != nil {
			rows.Close()
			return err
		}
		k := kind
		if mat {
			k = "MATERIALIZED VIEW"
		}
		byKind[k] = append(byKind[k], name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range []string{"MATERIALIZED VIEW", kind} {
		if names := byKind[k]; len(names) > 0 {
			if _, err := tx.Exec(ctx, "DROP "+k+" "+strings.Join(names, ", ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// workloadTablesIn lists the tables of schema that a clone copies with
// their rows: all but the extra tables and the marker.
func workloadTablesIn(ctx context.Context, db *sqlx.DB, schema string) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> $2 AND tablename NOT LIKE 'extra\_%' ORDER BY tablename`, schema, MarkerTable)
	if err != nil {
		return nil, fmt.Errorf("listing the tables of schema %q: %w", schema, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// tableCommentsIn returns the comments of tables in schema (those that
// have one).
func tableCommentsIn(ctx context.Context, db *sqlx.DB, schema string, tables []string) (map[string]string, error) {
	out, err := comments(ctx, db, `SELECT c.relname, `+dialect.OwnComment(db.Dialect(), "c.oid", "pg_class")+` FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '`+strings.ReplaceAll(schema, "'", "''")+`' AND c.relname = ANY($1)`, tables)
	if err != nil {
		return nil, fmt.Errorf("reading the comments of the tables of schema %q: %w", schema, err)
	}
	return out, nil
}

// schemaCloneSQL returns the statements that create tenant schema to as a
// copy of schema from: its tables (LIKE ... INCLUDING ALL: columns,
// defaults, constraints, indexes) and their rows, each with its comment
// in from (comments: stampede's mark, which LIKE does not copy), the
// routines stampede made in from (TPC-C's HammerDB routines, which a
// tenant's run calls), the extra tables, and the marker last, with its
// mark.
func schemaCloneSQL(d dialect.Dialect, from, to string, tables []string, routines []markedRoutine, extra int, comments map[string]string) (string, error) {
	f, s := d.QuoteIdent(from), d.QuoteIdent(to)
	stmts := []string{"CREATE SCHEMA " + s}
	copyTable := func(name string, rows bool) {
		q := d.QuoteIdent(name)
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.%s (LIKE %s.%s INCLUDING ALL)", s, q, f, q))
		if rows {
			stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.%s SELECT * FROM %s.%s", s, q, f, q))
		}
		if name == MarkerTable {
			stmts = append(stmts, markerComment(d, true, s+"."+q))
		} else if c, ok := comments[name]; ok {
			stmts = append(stmts, dialect.CommentOnTableIdent(d, s+"."+q, c))
		}
	}
	for _, t := range tables {
		copyTable(t, true)
	}
	for _, r := range routines {
		sql, err := routineCloneSQL(r, s)
		if err != nil {
			return "", err
		}
		stmts = append(stmts, sql)
	}
	stmts = append(stmts, extraDDL(d, to, extra)...)
	// The marker carries stampede's mark bound to its own OID and its
	// database, as tenant 1's does (markerDDL): a marker without it is
	// no tenant's.
	stmts = append(stmts, rebindIndexMarks(d, from, to)...)
	copyTable(MarkerTable, true)
	return strings.Join(stmts, ";\n"), nil
}

// createSchemas creates a schema per tenant in one database.
func createSchemas(ctx context.Context, e *env, o CreateOptions) (Totals, error) {
	var t Totals
	gen, err := o.NewGenerator()
	if err != nil {
		return t, err
	}
	if err := e.ensureBase(ctx); err != nil {
		return t, err
	}
	db, closeDB, err := e.connect(ctx, e.Base, e.Concurrency)
	if err != nil {
		return t, err
	}
	defer closeDB()
	d := db.Dialect()
	names := o.spanNames()
	f, l := o.span()
	state, err := schemaState(ctx, db, names)
	if err != nil {
		return t, err
	}
	if o.Drop && len(state) > 0 {
		foreign, err := e.foreignSchemas(ctx, db, state)
		if err != nil {
			return t, err
		}
		ferr := e.refuseForeign("schema", foreign, db.Where(), "--drop")
		holding, err := holdingSchemas(ctx, db, without(keys(state), foreign), gen)
		if err != nil {
			return t, err
		}
		herr := e.refuseHolding("schema", holding, "in "+db.Where(), "--drop")
		oerr := e.surveyOutside(ctx, db, keys(state), keys(state), "--drop")
		var derr error // with ForceDrop, dropSchemas says what depends
		if !e.ForceDrop {
			derr = e.refuseDependents(ctx, db, keys(state), foreign, "--drop")
		}
		if err := refusals(ferr, herr, oerr, derr); err != nil {
			return t, err
		}
		e.logf("--drop: dropping %d existing tenant schemas in database %q: %s", len(state), db.Database(), nameList(keys(state)))
		if err := e.dropOutsideViews(ctx, db, keys(state)); err != nil {
			return t, err
		}
		if err := e.dropSchemas(ctx, db, keys(state), tableNames(gen.Tables()), "--drop"); err != nil {
			return t, err
		}
		e.logf("dropped %s", Plural(len(state), "tenant schema"))
		if err := e.dropOutsideSaid(ctx, db); err != nil {
			return t, err
		}
		state = map[string]bool{}
	}
	complete := map[string]bool{}
	for name, ok := range state {
		if ok {
			complete[name] = true
		}
	}
	if len(complete) > 0 {
		// A tenant whose tables a user replaced is not a loaded tenant:
		// refused, not counted as existing (cleanup refuses it too).
		foreign, err := e.foreignSchemas(ctx, db, complete)
		if err != nil {
			return t, err
		}
		holding, err := holdingSchemas(ctx, db, without(keys(complete), foreign), gen)
		if err != nil {
			return t, err
		}
		// A schema of the pattern's that is no tenant of stampede's (a
		// user's, holding a table of the marker's name) is no loaded
		// tenant either: refused, as database mode refuses it.
		ferr := e.refuseForeign("schema", foreign, db.Where(), resumeAction)
		herr := e.refuseHolding("schema", holding, "in "+db.Where(), resumeAction)
		if err := refusals(ferr, herr); err != nil {
			return t, err
		}
		// ForceDrop, said by the refusals: those tenants go, and are
		// loaded again with the missing ones.
		if drop := append(keys(holding), foreign...); len(drop) > 0 {
			if err := e.dropSchemas(ctx, db, drop, tableNames(gen.Tables()), resumeAction); err != nil {
				return t, err
			}
			for _, name := range drop {
				delete(state, name)
			}
		}
	}
	first := o.Spec.Name(f)
	complete1, exists := state[first]
	if exists && complete1 {
		m, _, err := readMarker(ctx, db, first)
		if err != nil {
			return t, err
		}
		if err := compareMarker(first, m, o.marker(gen)); err != nil {
			return t, err
		}
		t.Existing++
	} else {
		if exists {
			foreign, err := e.foreignSchemas(ctx, db, map[string]bool{first: false})
			if err != nil {
				return t, err
			}
			if err := e.refuseForeign("schema", foreign, db.Where(), "init (which replaces a half-loaded tenant)"); err != nil {
				return t, err
			}
			if err := e.refuseDependents(ctx, db, []string{first}, nil, "init (which replaces a half-loaded tenant)"); err != nil {
				return t, err
			}
			e.logf("tenant schema %q is half-loaded (no %s marker): dropping and reloading it", first, MarkerTable)
			if _, err := db.Exec(ctx, "DROP SCHEMA "+d.QuoteIdent(first)+" CASCADE"); err != nil {
				return t, fmt.Errorf("dropping half-loaded schema %q: %w", first, err)
			}
		}
		// One multi-statement query, one implicit transaction: the schema
		// never exists without its mark.
		if _, err := db.Exec(ctx, "CREATE SCHEMA "+d.QuoteIdent(first)+";\n"+dialect.MarkSchemaInDatabase(d, first, e.tenantMark())); err != nil {
			return t, fmt.Errorf("creating schema %q with its mark: %w", first, err)
		}
		if err := e.loadFirst(ctx, o, gen, f, o.Spec.Options(e.Base, f), first); err != nil {
			return t, err
		}
		t.Created++
	}
	var missing []int
	half := map[string]bool{}
	for id := f + 1; id <= l; id++ {
		name := o.Spec.Name(id)
		if complete, exists := state[name]; !complete {
			missing = append(missing, id)
			if exists {
				half[name] = false
			}
		}
	}
	// A schema without its marker is replaced: only if it is a tenant
	// of stampede's (its comment) that an earlier init left half-made.
	if foreign, err := e.foreignSchemas(ctx, db, half); err != nil {
		return t, err
	} else if err := e.refuseForeign("schema", foreign, db.Where(), "init (which replaces a half-created tenant)"); err != nil {
		return t, err
	}
	if halfNames := keys(half); len(halfNames) > 0 {
		slices.Sort(halfNames)
		if err := e.refuseDependents(ctx, db, halfNames, nil, "init (which replaces a half-created tenant)"); err != nil {
			return t, err
		}
	}
	t.Existing += l - f - len(missing)
	if t.Existing > 0 {
		e.logf("%d of %d tenants exist already; creating the %d missing", t.Existing, l-f+1, len(missing))
	}
	// Every table of tenant 1 but the extra ones and the marker: the
	// workload's tables and those its hooks made (tpcc_meta, say).
	tables, err := workloadTablesIn(ctx, db, first)
	if err != nil {
		return t, err
	}
	tableComments, err := tableCommentsIn(ctx, db, first, tables)
	if err != nil {
		return t, err
	}
	routines, err := markedRoutinesIn(ctx, db, first)
	if err != nil {
		return t, err
	}
	bar := e.bar("tenants", int64(len(missing)))
	var created atomic.Int64
	err = forEach(ctx, e.Concurrency, missing, func(ctx context.Context, id int) error {
		name := o.Spec.Name(id)
		clone, err := schemaCloneSQL(d, first, name, tables, routines, o.ExtraTables, tableComments)
		if err != nil {
			return err
		}
		sql := clone + ";\n" + dialect.MarkSchemaInDatabase(d, name, e.tenantMark())
		if _, half := state[name]; half {
			// A schema without its marker (created outside one
			// transaction, by hand say) is replaced.
			sql = "DROP SCHEMA " + d.QuoteIdent(name) + " CASCADE;\n" + sql
		}
		// A multi-statement simple-protocol query runs as one implicit
		// transaction: the tenant is created whole or not at all, in one
		// round trip. Its commit need not wait for the WAL flush: a
		// tenant lost to a crash is simply missing, and the next init
		// creates it.
		if _, err := db.Exec(ctx, "SET synchronous_commit = off;\n"+sql); err != nil {
			return fmt.Errorf("creating tenant schema %q: %w", name, e.explain(err))
		}
		created.Add(1)
		bar.Add(1)
		return nil
	})
	bar.Done()
	t.Created += int(created.Load())
	if err != nil {
		return t, err
	}
	err = db.QueryRow(ctx, `SELECT count(DISTINCT n.oid), count(c.oid) FILTER (WHERE c.relkind IN ('r', 'p')),
		coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relkind IN ('r', 'p', 'm')), 0)::bigint
		FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid WHERE n.nspname = ANY($1)`, names).
		Scan(&t.Schemas, &t.Tables, &t.Bytes)
	t.Databases = 1
	return t, err
}
