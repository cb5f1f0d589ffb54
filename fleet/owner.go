package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// tenantMark is the comment on the tenant databases and schemas a fleet
// creates: with the MarkerTable (created last), it tells them from a
// user's databases and schemas that a --tenant-pattern happens to match,
// half-created tenants included.
func (e *env) tenantMark() string {
	return workload.Mark + " fleet tenant of " + e.Workload
}

// markDatabase puts the tenant mark on database name, bound to its OID
// (dialect.MarkDatabase): a copy on another database is no mark.
func (e *env) markDatabase(ctx context.Context, admin *sqlx.DB, name string) error {
	if _, err := admin.Exec(ctx, dialect.MarkDatabase(admin.Dialect(), name, e.tenantMark())); err != nil {
		return fmt.Errorf("marking database %q as a tenant of stampede's: %w", name, err)
	}
	return nil
}

// tenantMarkPrefix begins the tenant mark of every workload's fleet.
const tenantMarkPrefix = workload.TenantMarkPrefix

// tenantMarker is what a tenant's marker table says: whether a table of
// its name exists, and whether it is stampede's marker (ok: of a marker's
// exact shape and rows, carrying stampede's mark bound to its own OID,
// see workload.TenantMarkerWorkloads), naming workloads.
type tenantMarker struct {
	exists, ok bool
	workloads  []string
	// copied is true for a tenant database whose marker is stampede's
	// but which carries no tenant mark bound to its own OID: a copy of
	// a tenant, or a clone init was stopped before marking.
	copied bool
	// copiedFrom is, for a tenant schema whose marker's mark names
	// another database, that database's OID: the schema is in a copy of
	// the fleet's database (workload.MarkerCopiedFrom).
	copiedFrom string
}

// tenantOf says whose tenant a database or schema is: this fleet's
// (ours), another workload's fleet's (other names it), or neither (a
// user's, whatever tables of stampede's names it holds). Its marker table
// decides (read by marker): stampede's marker names the fleet's workload;
// a table of the marker's name without stampede's mark bound to it (made
// by hand, or copied) makes it a user's. Without a marker table, a tenant
// that init left half-made is told by its comment (as
// dialect.OwnComment reads it: stampede's tenant mark bound to the
// database's or schema's own OID; a copy, or the unbound mark of an older
// stampede, reads as none).
func (e *env) tenantOf(comment string, marker func() (tenantMarker, error)) (ours bool, other string, err error) {
	m, err := marker()
	switch {
	case err != nil:
		return false, "", err
	case m.ok && len(m.workloads) == 1 && m.workloads[0] == e.Workload:
		return true, "", nil
	case m.ok && len(m.workloads) == 0:
		// The role may not read the marker's rows: the tenant's own
		// mark, bound to its OID, says whose fleet it is.
		if comment == e.tenantMark() {
			return true, "", nil
		}
	case m.ok:
		return false, strings.Join(m.workloads, ", "), nil
	case m.exists:
		return false, "", nil
	case comment == e.tenantMark():
		return true, "", nil
	}
	if w, ok := strings.CutPrefix(comment, tenantMarkPrefix); ok {
		return false, w, nil
	}
	return false, "", nil
}

// readTenantMarker reads the marker table of the tenant in schema of db
// ("" for db's own): see tenantMarker.
func readTenantMarker(ctx context.Context, db *sqlx.DB, schema string) (tenantMarker, error) {
	var m tenantMarker
	name := db.Dialect().QuoteIdent(MarkerTable)
	if schema != "" {
		name = db.Dialect().QuoteIdent(schema) + "." + name
	}
	if err := db.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&m.exists); err != nil || !m.exists {
		return m, err
	}
	var err error
	m.workloads, m.ok, err = workload.TenantMarkerWorkloads(ctx, db, schema, MarkerTable)
	return m, err
}

// foreignDatabases returns those of names, databases that exist, that are
// not this fleet's tenants (tenantOf); those whose marker table is not
// stampede's are kept in e.handMade, for refuseForeign. The tenants of
// another workload's fleet are refused here, unless ForceDrop
// (*OtherTenantsError).
func (e *env) foreignDatabases(ctx context.Context, admin *sqlx.DB, names []string) ([]string, error) {
	comments, err := comments(ctx, admin, dialect.DatabaseCommentsQuery(admin.Dialect()), names)
	if err != nil {
		return nil, fmt.Errorf("reading the comments of the tenant databases: %w", err)
	}
	var mu sync.Mutex
	var foreign []string
	others := map[string]string{}
	err = forEach(ctx, e.Concurrency, e.Spec.tenantIDs(sliceSet(names), true), func(ctx context.Context, id int) error {
		name := e.Spec.Name(id)
		var m tenantMarker
		ours, other, err := e.tenantOf(comments[name], func() (tenantMarker, error) {
			db, closeDB, err := e.connect(ctx, e.Spec.Options(e.Base, id), 1)
			if err != nil {
				return m, err
			}
			defer closeDB()
			if m, err = readTenantMarker(ctx, db, ""); err == nil && m.ok && !strings.HasPrefix(comments[name], tenantMarkPrefix) {
				// The marker of a copy (CREATE DATABASE ... TEMPLATE
				// of a tenant) keeps its OID and so its mark; the
				// database's own mark, bound to its OID, is not
				// copied: without it, the database is the user's.
				m.ok, m.copied = false, true
			}
			if err == nil && m.ok {
				mu.Lock()
				defer mu.Unlock()
				err = e.keepMarker(ctx, db, "", id)
			}
			return m, err
		})
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			return err
		case other != "":
			others[name] = other
		case !ours:
			foreign = append(foreign, name)
			e.noteHandMade(name, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(foreign)
	return foreign, e.refuseOthers("database", others, "on "+strings.Join(admin.Endpoints(), ","))
}

// noteHandMade keeps name in e.handMade when its marker table exists but
// is not stampede's (m), for refuseForeign's message.
func (e *env) noteHandMade(name string, m tenantMarker) {
	if !m.exists || m.ok {
		return
	}
	if e.handMade == nil {
		e.handMade = map[string]found{}
	}
	e.handMade[name] = foundHandMade
	if m.copied {
		e.handMade[name] = foundCopy
	}
	if m.copiedFrom != "" {
		e.handMade[name] = foundCopiedDatabase
	}
}

// found is what foreignDatabases and foreignSchemas found in a database
// or schema that is not stampede's tenant though it holds a table of the
// marker's name (foreignTenantWhy says it).
type found int

const (
	// foundHandMade is a marker table without stampede's mark bound to
	// it.
	foundHandMade found = iota + 1
	// foundCopy is stampede's marker in a database without stampede's
	// tenant mark bound to the database's own OID.
	foundCopy
	// foundCopiedDatabase is stampede's marker of a tenant schema whose
	// mark names another database: a copy of the fleet's database.
	foundCopiedDatabase
)

// foreignSchemas returns the schemas of state (name: has its MarkerTable)
// in db that are not this fleet's tenants (tenantOf); those of another
// workload's fleet are refused here, unless ForceDrop.
func (e *env) foreignSchemas(ctx context.Context, db *sqlx.DB, state map[string]bool) ([]string, error) {
	if len(state) == 0 {
		return nil, nil
	}
	comments, err := comments(ctx, db, dialect.SchemaCommentsQuery(db.Dialect()), keys(state))
	if err != nil {
		return nil, fmt.Errorf("reading the comments of the tenant schemas: %w", err)
	}
	inCopy, err := schemasInCopy(ctx, db, comments)
	if err != nil {
		return nil, err
	}
	var foreign []string
	others := map[string]string{}
	for name, complete := range state {
		if slices.Contains(inCopy, name) {
			// Its mark names another database: a copy's, whatever
			// its marker says (the user may have dropped it).
			foreign = append(foreign, name)
			e.noteHandMade(name, tenantMarker{exists: true, copiedFrom: "mark"})
			continue
		}
		var m tenantMarker
		ours, other, err := e.tenantOf(comments[name], func() (tenantMarker, error) {
			if !complete {
				return m, nil
			}
			var err error
			if m, err = readTenantMarker(ctx, db, name); err == nil && m.ok {
				d := db.Dialect()
				m.copiedFrom, err = workload.MarkerCopiedFrom(ctx, db, d.QuoteIdent(name)+"."+d.QuoteIdent(MarkerTable))
				m.ok = m.copiedFrom == ""
			}
			if err == nil && m.ok {
				err = e.keepMarker(ctx, db, name, e.Spec.tenantIDs(map[string]bool{name: true}, true)...)
			}
			return m, err
		})
		switch {
		case err != nil:
			return nil, err
		case other != "":
			others[name] = other
		case !ours:
			foreign = append(foreign, name)
			e.noteHandMade(name, m)
		}
	}
	slices.Sort(foreign)
	return foreign, e.refuseOthers("schema", others, "in "+db.Where())
}

// keepMarker reads and keeps, for SurveyTenants, the marker of the
// tenant (schema in db, or db's own) whose id is the first one it
// surveys; with no survey, or of another tenant, it reads nothing.
func (e *env) keepMarker(ctx context.Context, db *sqlx.DB, schema string, id ...int) error {
	s := e.survey
	if s == nil || s.read || len(id) != 1 || id[0] != max(s.first, 1) {
		return nil
	}
	m, ok, err := readMarker(ctx, db, schema)
	if sqlx.SQLState(err) == "42501" {
		return nil // recordedFlags reads it again and says what it could not
	}
	if err != nil {
		return err
	}
	s.marker, s.ok, s.read = m, ok, true
	return nil
}

// refuseOthers refuses, unless ForceDrop, to drop the databases or
// schemas (kind) of others, tenants of other workloads' fleets (each with
// its workload); with ForceDrop it says that it drops them. With
// anyFleet (fleet exec, which drops nothing) any fleet's tenants pass.
func (e *env) refuseOthers(kind string, others map[string]string, where string) error {
	if len(others) == 0 || e.anyFleet {
		return nil
	}
	names := keys(others)
	slices.Sort(names)
	if e.ForceDrop {
		e.logf("%s: dropping %s %s, tenants of a fleet of %s", workload.ForceDropFlag, kinds(kind, len(names)), nameList(names), others[names[0]])
		return nil
	}
	return &OtherTenantsError{Kind: kind, Names: shortList(names), Where: where, Theirs: others[names[0]], Workload: e.Workload, Spec: e.Spec}
}

// OtherTenantsError refuses to drop the tenant databases or schemas of
// another workload's fleet (their tenant mark or marker names it) that a
// fleet's --tenant-pattern matches.
type OtherTenantsError struct {
	// Kind is "database" or "schema"; Names the tenants, Where where.
	Kind  string
	Names []string
	Where string
	// Theirs is the workload of the fleet they belong to; Workload the
	// one whose cleanup or --drop was asked for.
	Theirs, Workload string
	// Spec names the fleet, for the command that drops it.
	Spec Spec
}

func (e *OtherTenantsError) Error() string {
	what := e.Kind + " " + strings.Join(quotedNames(e.Names), ", ")
	verb, it := "is a tenant", "it is"
	if len(e.Names) > 1 {
		what = e.Kind + "s " + strings.Join(quotedNames(e.Names), ", ")
		verb, it = "are tenants", "they are"
	}
	return fmt.Sprintf("%s %s %s of stampede's fleet of %s, not of %s: %s left alone; drop that fleet with `stampede cleanup %s --tenants %d --tenant-mode %s --tenant-pattern '%s'`, or to drop it anyway, add %s",
		what, e.Where, verb, e.Theirs, e.Workload, it, strings.SplitN(e.Theirs, ",", 2)[0], e.Spec.Tenants, e.Spec.Mode, e.Spec.Pattern, workload.ForceDropFlag)
}

// Is makes errors.Is(err, workload.ErrForeign) true, for its exit code.
func (e *OtherTenantsError) Is(target error) bool { return target == workload.ErrForeign }

// quotedNames quotes each name.
func quotedNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// comments runs a query of (name, comment) rows for names.
func comments(ctx context.Context, db *sqlx.DB, query string, names []string) (map[string]string, error) {
	rows, err := db.Query(ctx, query, names)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var c *string
		if err := rows.Scan(&name, &c); err != nil {
			return nil, err
		}
		if c != nil {
			out[name] = *c
		}
	}
	return out, rows.Err()
}

// refuseForeign refuses, unless ForceDrop, to drop the databases or
// schemas (kind) named foreign, which are not stampede's tenants, by
// action ("cleanup", "--drop"); with ForceDrop it says that it drops them.
func (e *env) refuseForeign(kind string, foreign []string, where, action string) error {
	if len(foreign) == 0 {
		return nil
	}
	slices.Sort(foreign)
	if e.ForceDrop {
		e.logf("%s: dropping %s %s, which stampede did not make", workload.ForceDropFlag, kinds(kind, len(foreign)), nameList(foreign))
		return nil
	}
	why := foreignTenantWhy(foreign, e.handMade, e.Spec.Pattern)
	if e.Spec.Mode == ModeColumn {
		it, a := "it", "a table of the shared tables' name"
		if len(foreign) > 1 {
			it, a = "them", "tables of the shared tables' names"
		}
		why = fmt.Sprintf("no mark of stampede's init of %s on %s, which a %s fleet's shared tables carry: %s that someone else made", e.Workload, it, e.Workload, a)
	}
	return &workload.ForeignError{Kind: kind, Names: shortList(foreign), Where: where, Action: action, Why: why}
}

// foreignTenantWhy says why the databases or schemas foreign, which a
// fleet's --tenant-pattern matches, are not stampede's tenants: no marker
// table and no tenant mark of stampede's bound to them; or (foundHandMade
// in handMade) a table of the marker's name that carries no mark of
// stampede's bound to it (made by hand, copied from a tenant, or the
// marker of an older stampede, which marked none); or (foundCopy)
// stampede's marker in a database that carries no tenant mark bound to
// itself: a copy of a tenant made with CREATE DATABASE ... TEMPLATE, or
// a clone whose init was stopped between its CREATE DATABASE and its
// mark (which cannot be told apart: neither is dropped unless told).
func foreignTenantWhy(foreign []string, handMade map[string]found, pattern string) string {
	groups := map[found][]string{}
	for _, n := range foreign {
		groups[handMade[n]] = append(groups[handMade[n]], n)
	}
	says := map[found]string{
		0:                   fmt.Sprintf("neither a %s marker table nor stampede's tenant mark bound to it", MarkerTable),
		foundHandMade:       fmt.Sprintf("a %s table that carries no mark of stampede's bound to it (made by hand, copied, or an older stampede's)", MarkerTable),
		foundCopy:           fmt.Sprintf("a %s marker of stampede's but no tenant mark of stampede's bound to the database itself (a copy of a tenant made with CREATE DATABASE ... TEMPLATE, or a clone whose init was stopped before marking it)", MarkerTable),
		foundCopiedDatabase: copiedFleetWhy,
	}
	var whys []string
	for _, f := range []found{0, foundHandMade, foundCopy, foundCopiedDatabase} {
		switch {
		case len(groups[f]) == 0:
		case len(groups[f]) == len(foreign):
			whys = append(whys, says[f])
		default:
			whys = append(whys, nameList(groups[f])+": "+says[f])
		}
	}
	return strings.Join(whys, "; ") + fmt.Sprintf("; --tenant-pattern %q merely matches the name", pattern)
}

// kinds is kind ("database", "schema"), plural for n other than 1.
func kinds(kind string, n int) string {
	if n == 1 {
		return kind
	}
	return kind + "s"
}

// shortList keeps the first ten names, and says how many more there are.
func shortList(names []string) []string {
	if len(names) <= 10 {
		return names
	}
	return append(slices.Clone(names[:10]), fmt.Sprintf("and %d more", len(names)-10))
}

// columnMarker is what a database's MarkerTable says of the column-mode
// fleet that made it.
type columnMarker struct {
	// Exists is true when the table exists.
	Exists bool
	// Foreign is true when it exists without a fleet marker's columns:
	// a user's table of the name.
	Foreign bool
	// Workloads are the workloads its rows record, sorted.
	Workloads []string
	// MarksTables is true when the marker carries columnMarkerMark: the
	// fleet was made by a stampede that marks the shared tables, so one
	// of them without the mark is a user's, made in its place.
	MarksTables bool
	// CopiedFrom is the OID of the database the marker's mark names when
	// it is not this one: the database is a copy of the fleet's
	// (workload.MarkerCopiedFrom).
	CopiedFrom string
	// Unbound is true (with Foreign) when the marker carries stampede's
	// mark bound to another table's OID, not its own: a copy of a
	// fleet's marker (a restore of the fleet's pg_dump, or pg_dump -t),
	// which vouches for nothing, as database and schema modes read
	// theirs (workload.TenantMarkerWorkloads).
	Unbound bool
	// TablesCopied is true when CopiedFrom comes from the shared
	// tables' marks, not the marker's (sharedTablesCopied).
	TablesCopied bool
}

// unboundMarkerWhy says why a column-mode marker whose mark is bound to
// another table's OID (columnMarker.Unbound) is not stampede's.
var unboundMarkerWhy = fmt.Sprintf("a %s table that carries no mark of stampede's bound to it: its mark names another table's OID (a restore of a fleet's pg_dump, or a copy), so stampede did not make it", MarkerTable)

// copiedFleetWhy says why a schema or column-mode fleet's tables in a
// database whose marker names another database are not stampede's.
var copiedFleetWhy = fmt.Sprintf("its %s marker's mark names another database: a copy of the fleet's database made with CREATE DATABASE ... TEMPLATE, which stampede did not make", MarkerTable)

// columnMarkerMark is the comment on column mode's marker: with it, a
// shared table without the mark of init is no table of the fleet's (an
// older stampede's fleet, whose marker has none, marked no table).
const columnMarkerMark = workload.Mark + " fleet: the marker of a column-mode fleet, whose shared tables carry the mark of init"

// columnMarkerColumns are the columns of column mode's marker that tell it
// from a user's table of its name.
var columnMarkerColumns = []string{"tenant_id", "workload", "version", "flags", "seed"}

// readColumnMarker reads db's MarkerTable as column mode's marker.
func readColumnMarker(ctx context.Context, db *sqlx.DB) (columnMarker, error) {
	var m columnMarker
	ok, err := workload.TableExists(ctx, db, MarkerTable)
	if err != nil || !ok {
		return m, err
	}
	m.Exists = true
	c, err := workload.TableComment(ctx, db, MarkerTable)
	if err != nil {
		return m, err
	}
	m.MarksTables = c == columnMarkerMark || strings.HasPrefix(c, columnMarkerMark+dialect.DatabaseOIDTag)
	if c == "" && !db.Null() && db.Dialect().Name() == "postgres" {
		// A mark bound to an OID that reads as none (TableComment) is
		// bound to another table's: the marker is a copy.
		if err := db.QueryRow(ctx, "SELECT coalesce(obj_description(to_regclass($1), 'pg_class') ~ '^"+workload.Mark+" .*"+dialect.MarkOIDSep+"[0-9]+$', false)",
			db.Dialect().QuoteIdent(MarkerTable)).Scan(&m.Unbound); err != nil {
			return m, fmt.Errorf("reading the comment of table %s: %w", MarkerTable, err)
		}
		if m.Unbound {
			m.Foreign = true
			return m, nil
		}
	}
	if m.CopiedFrom, err = workload.MarkerCopiedFrom(ctx, db, db.Dialect().QuoteIdent(MarkerTable)); err != nil {
		return m, err
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(DISTINCT column_name) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 AND column_name = ANY($2)`, MarkerTable, columnMarkerColumns).Scan(&n); err != nil {
		return m, fmt.Errorf("reading the columns of table %s: %w", MarkerTable, err)
	}
	if n != len(columnMarkerColumns) {
		m.Foreign = true
		return m, nil
	}
	rows, err := db.Query(ctx, "SELECT DISTINCT workload FROM "+db.Dialect().QuoteIdent(MarkerTable)+" ORDER BY workload")
	if err != nil {
		return m, fmt.Errorf("reading table %s: %w", MarkerTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return m, err
		}
		m.Workloads = append(m.Workloads, w)
	}
	return m, rows.Err()
}

// recordsOnly reports whether the marker exists, is a fleet's, and records
// tenants of workload name and of no other.
func (m columnMarker) recordsOnly(name string) bool {
	return m.Exists && !m.Foreign && len(m.Workloads) == 1 && m.Workloads[0] == name
}

// other reports whether the marker records tenants of a workload other
// than name: a column-mode fleet of that workload owns it.
func (m columnMarker) other(name string) bool {
	return m.Exists && !m.Foreign && len(m.Workloads) > 0 && !m.recordsOnly(name)
}

// isInitMarkOf reports whether comment is the mark of a table that init of
// workload name made.
func isInitMarkOf(comment, name string) bool {
	return strings.HasPrefix(comment, workload.Mark+" init of "+name+" (")
}

// foreignSharedTables returns those of the shared tables of column mode
// of workload name that exist and are not stampede's for that workload:
// without the mark of name's init, unless the fleet's marker beside them
// records name's tenants alone and nothing says the fleet marked its
// tables (a fleet of a stampede that marked nothing, whose marker carries
// no columnMarkerMark and whose shared tables none carries the mark). A
// table without the mark beside a marker or a table that carries it is a
// user's, made in place of the fleet's (DROP TABLE bank; CREATE TABLE
// bank ...). A marker of another workload's fleet vouches for nothing of
// name's: a user's table of a shared table's name beside it stays the
// user's.
func foreignSharedTables(ctx context.Context, db *sqlx.DB, existing []string, m columnMarker, name string) ([]string, error) {
	marking := m.MarksTables
	comments := make([]string, len(existing))
	for i, t := range existing {
		c, err := workload.TableComment(ctx, db, t)
		if err != nil {
			return nil, err
		}
		comments[i] = c
		marking = marking || isInitMarkOf(c, name)
	}
	var foreign []string
	for i, t := range existing {
		c := comments[i]
		if isInitMarkOf(c, name) || c == "" && m.recordsOnly(name) && !marking {
			continue
		}
		foreign = append(foreign, t)
	}
	return foreign, nil
}

// markerOf says, unless ForceDrop, why the marker m of a column-mode fleet
// is not name's to drop: a user's table of the marker's name (refused as
// foreign), or the marker of another workload's fleet (refused, naming
// that workload's cleanup, where init needs the table: needed; cleanup
// leaves it alone and says so). ours is true when the marker is name's
// fleet's to drop (an empty marker, of a fleet's columns, holds nothing to
// lose).
func (e *env) markerOf(m columnMarker, name string, where, action string, needed bool) (ours bool, err error) {
	switch {
	case !m.Exists:
		return false, nil
	case m.Foreign:
		if e.ForceDrop {
			e.logf("%s: dropping table %s, which stampede did not make", workload.ForceDropFlag, MarkerTable)
			return true, nil
		}
		why := "it has not the columns of a fleet's marker (" + strings.Join(columnMarkerColumns, ", ") + "): a table of its name"
		if m.Unbound {
			why = unboundMarkerWhy
		}
		return false, &workload.ForeignError{Kind: "table", Names: []string{MarkerTable}, Where: where, Action: action, Why: why}
	case m.other(name) && !needed:
		e.logf("left table %s in %s alone: it is the marker of a column-mode fleet of %s", MarkerTable, where, strings.Join(m.Workloads, ", "))
		return false, nil
	case m.other(name) && e.ForceDrop:
		e.logf("%s: dropping table %s, the marker of a column-mode fleet of %s", workload.ForceDropFlag, MarkerTable, strings.Join(m.Workloads, ", "))
		return true, nil
	case m.other(name):
		return false, &OtherFleetError{Table: MarkerTable, Where: where, Workloads: m.Workloads, Workload: name, Action: action}
	}
	return true, nil
}

// OtherFleetError refuses to drop the marker of another workload's
// column-mode fleet: stampede's, but not this workload's.
type OtherFleetError struct {
	// Table is the marker table, Where where it is.
	Table, Where string
	// Workloads are the workloads the marker records; Workload the one
	// asked for.
	Workloads []string
	Workload  string
	// Action is what would have dropped it ("cleanup", "--drop").
	Action string
}

func (e *OtherFleetError) Error() string {
	w := strings.Join(e.Workloads, ", ")
	return fmt.Sprintf("table %s in %s is the marker of a column-mode fleet of %s, not of %s: %s leaves it alone; drop that fleet first (`stampede cleanup %s --tenant-mode column`), or to drop its marker anyway, add %s",
		e.Table, e.Where, w, e.Workload, e.Action, e.Workloads[0], workload.ForceDropFlag)
}

// Is makes errors.Is(err, workload.ErrForeign) true, for its exit code.
func (e *OtherFleetError) Is(target error) bool { return target == workload.ErrForeign }

// without returns names but those in drop.
func without(names, drop []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(drop, n) })
}

// refusals returns the first of errs that is no refusal (one not
// matching workload.ErrForeign: a failed query), else every refusal in
// one line (workload.Refusal), so that what ForceDrop then drops is what
// the refusal named.
func refusals(errs ...error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, workload.ErrForeign) {
			return err
		}
	}
	return workload.Refusal(errs...)
}

// refuseCopiedColumn refuses, unless ForceDrop, to drop the shared
// tables and marker (names) of a column-mode fleet in db, a copy of the
// fleet's database (m.CopiedFrom), by action; with ForceDrop it says
// that it drops them.
func (e *env) refuseCopiedColumn(db *sqlx.DB, m columnMarker, names []string, action string) error {
	if m.CopiedFrom == "" || len(names) == 0 {
		return nil
	}
	why := copiedFleetWhy
	if m.TablesCopied {
		why = copiedTablesWhy
	}
	if e.ForceDrop {
		e.logf("%s: dropping tables %s in %s (%s)", workload.ForceDropFlag, nameList(names), db.Where(), why)
		return nil
	}
	return &workload.ForeignError{Kind: "table", Names: shortList(names), Where: db.Where(), Action: action, Why: why}
}

// withMarker is the shared tables existing and, when m exists, the
// marker.
func withMarker(existing []string, m columnMarker) []string {
	if !m.Exists {
		return existing
	}
	return append(slices.Clone(existing), MarkerTable)
}

// refuseAddedColumns refuses, unless ForceDrop, to drop the shared
// tables of column mode (existing, gen's) when a user added to them
// columns holding data (workload.AddedColumns) or made indexes on them
// (workload.UserIndexes); with ForceDrop it says that they go.
func (e *env) refuseAddedColumns(ctx context.Context, db *sqlx.DB, gen workload.Generator, existing []string, action string) error {
	if gen == nil {
		return nil
	}
	cols, err := workload.AddedColumns(ctx, db, gen, existing)
	if err != nil {
		return err
	}
	made, err := execMadeOn(ctx, db)
	if err != nil {
		return err
	}
	cols = withoutMade(cols, made)
	idx, err := workload.UserIndexes(ctx, db, gen, append(slices.Clone(existing), MarkerTable))
	if err != nil || len(cols)+len(idx) == 0 {
		return err
	}
	if e.ForceDrop {
		if len(cols) > 0 {
			e.logf("%s", addedColumnsNote(cols))
		}
		if len(idx) > 0 {
			e.logf("%s: dropping %s, which stampede did not make, with the shared tables", workload.ForceDropFlag, strings.Join(idx, ", "))
		}
		return nil
	}
	var aerr, ierr error
	if len(cols) > 0 {
		aerr = &workload.AddedColumnsError{Columns: cols, Where: db.Where(), Action: action}
	}
	if len(idx) > 0 {
		ierr = &workload.UserIndexesError{Indexes: idx, Where: db.Where(), Action: action}
	}
	return workload.Refusal(aerr, ierr)
}

// addedColumnsNote is the line --force-drop says before it drops cols,
// columns a user added to column mode's shared tables, with the tables.
func addedColumnsNote(cols []string) string {
	what := "column " + cols[0]
	if len(cols) > 1 {
		what = "columns " + strings.Join(cols, ", ")
	}
	return fmt.Sprintf("%s: dropping the %s, which stampede did not make, with the shared tables", workload.ForceDropFlag, what)
}

// tenantOwn returns the names of the tables stampede makes in a tenant
// that may lack its mark: the workload's tables (tables) and the fleet's
// marker and init's record. Only the drop uses it, once the census
// (holdingDatabases, holdingSchemas) has found every table of the
// workload's names marked.
func tenantOwn(tables []string) map[string]bool {
	own := sliceSet(tables)
	own[MarkerTable] = true
	own[workload.LoadRecordTable] = true
	return own
}

// censusOwn returns the tables that the census of a tenant takes for
// stampede's by name: the fleet's marker and init's record. The
// workload's tables count only with stampede's mark, as a single
// workload's do (a clone carries its template's: see schemaCloneSQL): a
// table a user made in place of one is the user's.
func censusOwn() map[string]bool {
	return tenantOwn(nil)
}

// holdingDatabases returns, of names (tenant databases that are
// stampede's), those that hold objects stampede did not make (a user's
// table added since init, say: see workload.TenantForeign), each with
// them; a table of the load the user renamed to keep it is the user's
// now (workload.RenamedTables). The workload's tables (gen's) are stampede's only with its mark
// (censusOwn), and a column a user added to one and filled is named too
// (tenantAddedColumns), as are a trigger, rule, policy or statistics
// object on one (workload.AttachedForeign).
func (e *env) holdingDatabases(ctx context.Context, names []string, gen workload.Generator) (map[string][]string, error) {
	own := censusOwn()
	var mu sync.Mutex
	holding := map[string][]string{}
	err := forEach(ctx, e.Concurrency, e.Spec.tenantIDs(sliceSet(names), true), func(ctx context.Context, id int) error {
		db, closeDB, err := e.connect(ctx, e.Spec.Options(e.Base, id), 1)
		if err != nil {
			return err
		}
		defer closeDB()
		objs, err := workload.Objects(ctx, db)
		if err != nil {
			return err
		}
		foreign := append(workload.TenantForeign(objs, "*", own), workload.RenamedTables(objs, "*", gen)...)
		made, err := execMadeOn(ctx, db)
		if err != nil {
			return err
		}
		cols, err := tenantAddedColumns(ctx, db, gen, objs, "", made)
		if err != nil {
			return err
		}
		attached, err := workload.AttachedForeign(ctx, db, objs, "*", foreign)
		if err != nil {
			return err
		}
		cols = append(cols, withoutMade(attached, made)...)
		// Where the census connects, what of the database's own only a
		// connection to it tells (refuseDatabaseWork says it).
		inside, err := workload.DatabaseWorkInside(ctx, db, db.Dialect().QuoteIdent(MarkerTable))
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if len(inside) > 0 {
			if e.inside == nil {
				e.inside = map[string][]string{}
			}
			e.inside[e.Spec.Name(id)] = inside
		}
		if foreign = append(foreign, cols...); len(foreign) > 0 {
			holding[e.Spec.Name(id)] = foreign
		}
		return nil
	})
	return holding, err
}

// tenantAddedColumns returns, as objects of a census ("table column
// T.C (holding data)"), the columns holding data that a user added to
// the workload's tables (gen's, carrying stampede's mark) in schema of
// db ("" for a tenant database's current schema): see
// workload.AddedColumnsIn; those fleet exec made (made: execMadeOn) are
// stampede's. gen nil finds none.
func tenantAddedColumns(ctx context.Context, db *sqlx.DB, gen workload.Generator, objs []workload.Object, schema string, made map[string]bool) ([]string, error) {
	if gen == nil {
		return nil, nil
	}
	wanted := sliceSet(tableNames(gen.Tables()))
	var tables []string
	for _, o := range objs {
		if o.IsTable() && o.Marked && wanted[o.Name] && (schema == "" || o.Schema == schema) && !slices.Contains(tables, o.Name) {
			tables = append(tables, o.Name)
		}
	}
	cols, err := workload.AddedColumnsIn(ctx, db, gen, schema, tables)
	if err != nil {
		return nil, err
	}
	cols = withoutMade(cols, made)
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = "table column " + c + " (holding data)"
	}
	// An index or constraint a user made on one of them, or on the
	// fleet's marker, goes with the tenant too.
	in := schema
	if in == "" {
		in = "*"
	}
	idx, err := workload.UserIndexesIn(ctx, db, gen, schema, append(tables, workload.BookkeepingTables(objs, in)...))
	if err != nil {
		return nil, err
	}
	return append(out, idx...), nil
}

// holdingSchemas returns, of the tenant schemas names in db (stampede's),
// those that hold objects stampede did not make (a table of the load
// the user renamed among them: workload.RenamedTables), each with them. The
// workload's tables (gen's) are stampede's only with its mark
// (censusOwn), and a column a user added to one and filled is named too
// (tenantAddedColumns).
func holdingSchemas(ctx context.Context, db *sqlx.DB, names []string, gen workload.Generator) (map[string][]string, error) {
	objs, err := workload.Objects(ctx, db)
	if err != nil {
		return nil, err
	}
	own := censusOwn()
	made, err := execMadeOn(ctx, db)
	if err != nil {
		return nil, err
	}
	holding := map[string][]string{}
	for _, name := range names {
		foreign := append(workload.TenantForeign(objs, name, own), workload.RenamedTables(objs, name, gen)...)
		cols, err := tenantAddedColumns(ctx, db, gen, objs, name, made)
		if err != nil {
			return nil, err
		}
		if foreign = append(foreign, cols...); len(foreign) > 0 {
			holding[name] = foreign
		}
	}
	return holding, nil
}

// resumeAction is what refuses, in refuseHolding, a tenant that holds
// objects stampede did not make when init resumes a fleet: it neither
// counts such a tenant as loaded nor replaces it unless told.
const resumeAction = "init (which counts it as no loaded tenant)"

// refuseHolding refuses, unless ForceDrop, to drop the databases or
// schemas (kind) of holding, stampede's tenants that hold objects
// stampede did not make, by action ("cleanup", "--drop"); with ForceDrop
// it says that it drops them.
func (e *env) refuseHolding(kind string, holding map[string][]string, where, action string) error {
	if len(holding) == 0 {
		return nil
	}
	names := keys(holding)
	slices.Sort(names)
	// Every tenant's objects, not the first's only: what ForceDrop
	// drops is what the refusal names. A database's are told by it.
	var objs []string
	for i, name := range names {
		for _, o := range holding[name] {
			if kind == "database" && i > 0 {
				o += fmt.Sprintf(" in %q", name)
			}
			objs = append(objs, o)
		}
	}
	if e.ForceDrop {
		e.logf("%s: dropping %s %s with objects stampede did not make (%s)", workload.ForceDropFlag, kinds(kind, len(names)), nameList(names), strings.Join(objs, ", "))
		return nil
	}
	return &workload.HoldsForeignError{Kind: kind, Names: names, Where: where, Objects: objs, Action: action}
}

// refuseDatabaseWork refuses, unless ForceDrop, to drop the tenant
// databases names (those that exist) when a user did work on one as a
// whole that its drop would lose: settings, grants, a connection limit,
// a comment (workload.DatabaseWork, one query over the cluster's
// catalogs for every tenant), another owner or default privileges
// (found where holdingDatabases connected: e.inside); by action
// ("cleanup", "--drop"). With ForceDrop it says what goes with them.
func (e *env) refuseDatabaseWork(ctx context.Context, admin *sqlx.DB, names []string, action string) error {
	roles := make([]string, len(names))
	ids := map[string]int{}
	for id := 1; id <= e.Spec.Tenants; id++ {
		ids[e.Spec.Name(id)] = id
	}
	for i, n := range names {
		if id, ok := ids[n]; ok {
			roles[i] = e.Spec.RoleName(id)
		}
	}
	work, err := workload.DatabaseWork(ctx, admin, names, roles)
	if err != nil {
		return err
	}
	for _, n := range names {
		if in := e.inside[n]; len(in) > 0 {
			if work == nil {
				work = map[string][]string{}
			}
			work[n] = append(work[n], in...)
		}
	}
	if len(work) == 0 {
		return nil
	}
	if e.ForceDrop {
		e.logf("%s", workload.DatabaseWorkNote(work))
		return nil
	}
	return &workload.DatabaseWorkError{Work: work, Where: "on " + strings.Join(admin.Endpoints(), ","), Action: action}
}
