package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// names returns the names of tenants 1..Tenants.
func (s Spec) names() []string {
	out := make([]string, s.Tenants)
	for i := range out {
		out[i] = s.Name(i + 1)
	}
	return out
}

// CreateOptions configure Create.
type CreateOptions struct {
	Target
	// NewGenerator returns a generator configured as the user asked (flags
	// parsed, seed set); it is called once per tenant in column mode.
	NewGenerator func() (workload.Generator, error)
	// Flags are the data-shaping flags, recorded in every tenant's marker:
	// a later init with other flags is refused instead of mixing data.
	Flags string
	// Seed is the data's seed, recorded in the marker.
	Seed uint64
	// LoadConcurrency is the number of COPY streams loading tenant 1 (and,
	// in column mode, each tenant).
	LoadConcurrency int
	// ExtraTables is the number of empty extra tables per tenant.
	ExtraTables int
	// Drop drops every tenant first.
	Drop bool
	// Roles gives each tenant a login role of its own (init
	// --tenant-roles; see RoleTable): refused in column mode, and when a
	// role of a tenant's name exists that this fleet did not make.
	Roles bool
	// ShareIndex of ShareCount, when ShareCount > 0, makes this Create
	// one of ShareCount that split the fleet's load (init --clients N
	// --client-index I; see LoadTable): it creates the tenants of its
	// share only (ShareRange), the share's first loaded and the others
	// copied from it, and records its share once they are complete.
	ShareIndex, ShareCount int
}

// ShareRange returns the tenants of share index of count of a fleet of
// tenants: contiguous, as run --clients splits them (7 in 3: 1-2, 3-4,
// 5-7).
func ShareRange(tenants, index, count int) (first, last int) {
	return index*tenants/count + 1, (index + 1) * tenants / count
}

// span returns the tenants this Create makes: its share's, or all.
func (o CreateOptions) span() (first, last int) {
	if o.ShareCount <= 0 {
		return 1, o.Spec.Tenants
	}
	return ShareRange(o.Spec.Tenants, o.ShareIndex, o.ShareCount)
}

// spanNames returns the names of the tenants of span.
func (o CreateOptions) spanNames() []string {
	f, l := o.span()
	out := make([]string, 0, l-f+1)
	for id := f; id <= l; id++ {
		out = append(out, o.Spec.Name(id))
	}
	return out
}

// Totals describes a fleet on the server.
type Totals struct {
	// Created is the number of tenants created by this call; Existing the
	// number that were already complete.
	Created, Existing int
	// Databases, Schemas and Tables count what the fleet holds.
	Databases, Schemas, Tables int64
	// Bytes is the fleet's size on the server.
	Bytes int64
	// Elapsed is the time the operation took.
	Elapsed time.Duration
	// Roles is what was done to the tenants' login roles.
	Roles RoleTotals
	// KeptTables (cleanup in column mode) are the fleet's tables left
	// in place, each with why ("table public.bank_keep (stampede's table
	// of bank, renamed)": the user's now), counted in Tables.
	KeptTables []string
	// ExecOutside (cleanup in schema and column modes) names what fleet
	// exec made in the fleet's database outside the tenants that the
	// cleanup dropped after them ("schema audit", "table audit.log").
	ExecOutside []string
	// SharesIn is, for one client of a split init (ShareCount > 0), the
	// number of shares recorded complete once its own was.
	SharesIn int
}

// TablesLeft says how many tables of a column-mode fleet its cleanup
// left, and which it kept and why: "0 tables left", "1 table left, kept
// as yours: table public.bank_keep (stampede's table of bank, renamed)".
func (t Totals) TablesLeft() string {
	s := Plural(int(t.Tables), "table") + " left"
	if len(t.KeptTables) > 0 {
		s += ", kept as yours: " + strings.Join(t.KeptTables, ", ")
	}
	return s
}

// ExecOutsideText is the line that says what fleet exec made outside the
// tenants that the cleanup dropped (ExecOutside), "" when nothing.
func (t Totals) ExecOutsideText() string {
	if len(t.ExecOutside) == 0 {
		return ""
	}
	return "dropped what fleet exec made outside the tenants: " + strings.Join(t.ExecOutside, ", ")
}

// ErrTenantMismatch is returned when tenant 1 holds data loaded with other
// flags or another version of the workload.
var ErrTenantMismatch = errors.New("tenant loaded with other flags")

// CheckCreate refuses, as Create does before it connects, more clients
// of a split init than tenants and tenant roles in column mode (a
// *RefusedError).
func CheckCreate(o CreateOptions) error {
	switch {
	case o.ShareCount > o.Spec.Tenants:
		return &RefusedError{fmt.Sprintf("--clients %d is more than --tenants %d: each client loads at least one tenant; use at most %d clients", o.ShareCount, o.Spec.Tenants, o.Spec.Tenants)}
	case o.Roles && o.Spec.Mode == ModeColumn:
		return errColumnRoles
	}
	return nil
}

// Create creates the fleet's missing tenants: tenant 1 is loaded as a
// single-tenant init would load it, then every other tenant is copied from
// it (a database cloned from tenant 1 as a template, a schema filled in one
// transaction from tenant 1's tables), or in column mode loaded into shared
// tables. Tenants complete from an earlier call are kept, so an
// interrupted Create resumes where it stopped; with Drop every tenant is
// dropped first.
func Create(ctx context.Context, o CreateOptions) (Totals, error) {
	start := time.Now()
	e := newEnv(o.Target)
	if o.LoadConcurrency < 1 {
		o.LoadConcurrency = 1
	}
	var t Totals
	var err error
	if err := CheckCreate(o); err != nil {
		return t, err
	}
	if o.Roles {
		// Before anything is created: a role of a tenant's name that
		// is not this fleet's is refused.
		if err := e.checkRoles(ctx); err != nil {
			return t, err
		}
	}
	if o.ShareCount > 0 {
		if err := e.beginShare(ctx, o); err != nil {
			return t, err
		}
	}
	switch o.Spec.Mode {
	case ModeDatabase:
		t, err = createDatabases(ctx, e, o)
	case ModeSchema:
		t, err = createSchemas(ctx, e, o)
	case ModeColumn:
		t, err = createColumns(ctx, e, o)
	default:
		err = fmt.Errorf("unknown tenant mode %q", o.Spec.Mode)
	}
	if err == nil && o.Roles {
		t.Roles, err = e.createRoles(ctx, o)
	}
	switch {
	case err != nil:
	case o.ShareCount > 0:
		t.SharesIn, err = e.endShare(ctx, o.ShareIndex)
	default:
		// Every tenant is complete: a split init's record, if any, has
		// nothing left to say.
		err = e.clearShares(ctx)
	}
	t.Elapsed = time.Since(start)
	return t, err
}

// marker is the content of a tenant's marker.
type marker struct {
	workload, version, flags string
}

func (o CreateOptions) marker(gen workload.Generator) marker {
	m := gen.Meta()
	return marker{workload: m.Name, version: m.Version, flags: o.Flags}
}

// markerDDL returns the statements that create and fill the marker table
// (qualified by schema when not empty).
func markerDDL(d dialect.Dialect, schema string, m marker) []string {
	name := d.QuoteIdent(MarkerTable)
	if schema != "" {
		name = d.QuoteIdent(schema) + "." + name
	}
	return []string{
		"CREATE TABLE " + name + " (workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
		fmt.Sprintf("INSERT INTO %s (workload, version, flags) VALUES (%s, %s, %s)", name, quoteLiteral(m.workload), quoteLiteral(m.version), quoteLiteral(m.flags)),
		markerComment(d, schema != "", name),
	}
}

// markerComment returns the statement that marks the marker table name
// (as SQL writes it) as stampede's, bound to its OID; a schema tenant's
// names its database too (dialect.CommentOnTableInDatabase), which a
// copy of the database made with CREATE DATABASE ... TEMPLATE does not
// match. A tenant database's marker names none: its clones are such
// copies, each marked on the database itself (markDatabase).
func markerComment(d dialect.Dialect, inSchema bool, name string) string {
	if inSchema {
		return dialect.CommentOnTableInDatabase(d, name, workload.TenantMarkerMark)
	}
	return dialect.CommentOnTableIdent(d, name, workload.TenantMarkerMark)
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readMarker reads the marker of the tenant db connects to (schema, when
// not empty, qualifies it); ok is false when there is none.
func readMarker(ctx context.Context, db *sqlx.DB, schema string) (m marker, ok bool, err error) {
	d := db.Dialect()
	name := d.QuoteIdent(MarkerTable)
	if schema != "" {
		name = d.QuoteIdent(schema) + "." + name
	}
	var exists bool
	if err := db.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&exists); err != nil {
		return m, false, err
	}
	if !exists {
		return m, false, nil
	}
	rows, err := db.Query(ctx, "SELECT workload, version, flags FROM "+name+" LIMIT 1")
	if err != nil {
		return m, false, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&m.workload, &m.version, &m.flags); err != nil {
			return m, false, err
		}
		ok = true
	}
	return m, ok, rows.Err()
}

// compareMarker refuses a tenant 1 loaded with other flags.
func compareMarker(name string, got, want marker) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%w: tenant %s holds %s %s loaded with flags %q, not %q: give the same flags, or recreate the fleet with --drop",
		ErrTenantMismatch, name, got.workload, got.version, got.flags, want.flags)
}

// extraDDL returns the statements of k extra tables.
func extraDDL(d dialect.Dialect, schema string, k int) []string {
	var out []string
	for n := 1; n <= k; n++ {
		out = append(out, ExtraTableDDL(d, schema, n)...)
	}
	return out
}

// loadFirst creates tenant id's tables (the first of those Create makes,
// the others' template) in the database and schema opts names, loads
// them, adds the extra tables and, last, the marker.
func (e *env) loadFirst(ctx context.Context, o CreateOptions, gen workload.Generator, id int, opts sqlx.Options, schema string) error {
	db, closeDB, err := e.connect(ctx, opts, o.LoadConcurrency+1)
	if err != nil {
		return err
	}
	defer closeDB()
	rows := workload.TotalRows(gen.Tables())
	script, scripted := gen.(workload.ScriptLoader)
	if scripted {
		// A user's file runs as one stream, and only it knows its rows.
		e.logf("loading tenant %d (%s): running %s, one stream", id, o.Spec.Name(id), script.LoadScript())
	} else {
		e.logf("loading tenant %d (%s): %d rows, %d streams", id, o.Spec.Name(id), rows, o.LoadConcurrency)
	}
	bar := e.bar("rows", rows)
	err = workload.Setup(ctx, db, gen, workload.LoadOptions{Concurrency: o.LoadConcurrency, Progress: bar.Add})
	bar.Done()
	if err != nil {
		return fmt.Errorf("loading tenant %d (%s): %w", id, o.Spec.Name(id), err)
	}
	if scripted {
		e.logf("ran %s for tenant %d (%s): %d rows written by COPY and INSERT", script.LoadScript(), id, o.Spec.Name(id), script.LoadedRows())
	}
	stmts := append(extraDDL(db.Dialect(), schema, o.ExtraTables), markerDDL(db.Dialect(), schema, o.marker(gen))...)
	if _, err := db.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
		return fmt.Errorf("creating tenant %d's extra tables and marker: %w", id, err)
	}
	return nil
}

func tableNames(tables []workload.Table) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.Name
	}
	return out
}

func quoted(d dialect.Dialect, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = d.QuoteIdent(n)
	}
	return out
}

// copyAll copies every batch of t's initial rows in one COPY.
func copyAll(ctx context.Context, db *sqlx.DB, stream int, t workload.Table) error {
	if t.InitialRows.NumBatches == 0 {
		return nil
	}
	if err := workload.CopyBatches(ctx, db, stream, t, 0, t.InitialRows.NumBatches, nil); err != nil {
		return fmt.Errorf("loading %s: %w", t.Name, err)
	}
	return nil
}
