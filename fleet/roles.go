package fleet

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Tenant login roles (init --tenant-roles).
//
// Each tenant of a database or schema fleet gets a login role named as
// the tenant (bank_17), which may use its own database or schema only:
//
//   - database mode: PUBLIC loses every privilege on the tenant's
//     database (CONNECT, TEMPORARY) and on its schema public; the
//     tenant's role gets CONNECT and TEMPORARY on its database, USAGE on
//     its schema public and SELECT, INSERT, UPDATE, DELETE on its tables
//     (USAGE, SELECT, UPDATE on its sequences; SELECT only on the
//     tenant's MarkerTable). A clone loses the grants of its template's
//     role (a database's ACLs are copied with it) first.
//   - a workload whose runs create tables (workload.RunCreator: churn,
//     bulk_insert) gets CREATE on the tenant's own schema too (schema
//     public of its database, or its schema), and nowhere else.
//   - schema mode: the role gets CONNECT and TEMPORARY on the fleet's
//     database, USAGE on its own schema and the same table and sequence
//     privileges there; PUBLIC loses CREATE on schema public (PostgreSQL
//     15 has taken it already). New schemas grant PUBLIC nothing.
//   - column mode is refused: PostgreSQL grants whole tables, and every
//     tenant's rows share them.
//
// Every role carries a comment, stampede's mark with the fleet's key
// (roleMark), made with the role in one transaction: cleanup drops the
// roles with the mark and only those, and init refuses, before it
// creates anything, a role of a tenant's name that is not stampede's.
//
// Credentials: init keeps one secret per fleet, 32 bytes (244 random bits) drawn by
// the server (newSecretSQL: never sent in a statement), in the
// table RoleTable of the database the fleet's admin connection uses (the
// maintenance database "postgres" in database mode, the fleet's database
// in schema mode), owned by the user who ran init and granted to nobody
// (superusers and that owner read it). A role's password is derived from
// it (rolePassword); the server stores only a SCRAM-SHA-256 verifier
// computed by stampede, as psql's \password does, so the password is sent
// nowhere, not even in the CREATE ROLE statement a server may log. A run
// connects with the same admin URL, reads the secret and derives each
// tenant's password in memory (Logins).

// RoleTable holds each fleet's secret, from which its tenant roles'
// passwords are derived.
const RoleTable = "stampede_tenant_roles"

// revokedPublicCreate is the key of RoleTable's row that records that an
// init --tenant-roles revoked PUBLIC's CREATE on schema public of the
// database (the user's grant, or PostgreSQL 14's default), so that the
// cleanup of the last fleet with tenant roles there grants it back.
const revokedPublicCreate = "(PUBLIC's CREATE on schema public revoked)"

// roleChunk is the number of roles created (or dropped) per statement
// batch.
const roleChunk = 100

// scramIterations is the SCRAM-SHA-256 iteration count of the roles'
// verifiers. PostgreSQL's default is 4096: iterations slow down guessing
// a person's password from a stolen verifier, but a tenant role's
// password is 256 random bits, which no number of guesses finds, while
// every iteration is paid by every CREATE or ALTER ROLE (the server
// hashes the empty password with the verifier's iterations to refuse an
// empty one) and by both sides of every tenant's login. With 4096, 1,000
// roles took 31-40 s here (2 CPUs, load 20), the server hashing.
const scramIterations = 16

// RoleName returns the name of tenant id's login role: the tenant's own
// name ("" in column mode).
func (s Spec) RoleName(id int) string { return s.Name(id) }

// fleetKey identifies the fleet in its roles' marks and in RoleTable.
func (e *env) fleetKey() string {
	if e.Spec.Mode == ModeSchema {
		return fmt.Sprintf("schemas %s in database %s", e.Spec.Pattern, e.Base.Database)
	}
	return "databases " + e.Spec.Pattern
}

// roleMark is the comment on every tenant role of the fleet.
func (e *env) roleMark() string { return workload.Mark + " tenant role of fleet " + e.fleetKey() }

// registryOptions are the options of the connection to the database that
// holds RoleTable.
func (e *env) registryOptions() sqlx.Options {
	if e.Spec.Mode == ModeSchema {
		return e.Base
	}
	return e.adminOptions()
}

// ForeignRoleError refuses tenant roles whose names are taken by roles
// stampede did not make for this fleet. It matches workload.ErrForeign.
type ForeignRoleError struct {
	// Names are the roles, Where the server.
	Names []string
	Where string
	// Mark, when set, is the comment of a role stampede made for another
	// fleet.
	Mark string
}

func (e *ForeignRoleError) Error() string {
	what, verb, was, it, role := "role "+nameList(e.Names), "exists", "was", "it", "the role"
	if len(e.Names) > 1 {
		what, verb, was, it, role = "roles "+nameList(e.Names), "exist", "were", "them", "the roles"
	}
	if e.Mark != "" {
		return fmt.Sprintf("%s on %s %s and %s made by stampede for another fleet (%q): clean that fleet up first, or give another --tenant-pattern",
			what, e.Where, verb, was, e.Mark)
	}
	return fmt.Sprintf("%s on %s %s and %s not made by stampede (no mark of stampede's on %s): --tenant-roles names each tenant's login role as the tenant and never takes over a role it did not make; drop or rename %s, or give another --tenant-pattern",
		what, e.Where, verb, was, it, role)
}

// Is makes errors.Is(err, workload.ErrForeign) true.
func (e *ForeignRoleError) Is(target error) bool { return target == workload.ErrForeign }

// RefusedError refuses what a fleet operation cannot do as asked (tenant
// roles in column mode or on a server other than PostgreSQL, more clients
// than tenants): bad input, in one line.
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return e.Why }

// errColumnRoles refuses tenant roles in column mode.
var errColumnRoles = &RefusedError{"--tenant-roles with --tenant-mode column: every tenant's rows share one set of tables, and PostgreSQL grants a role whole tables, so each tenant's role would read every tenant's rows; use --tenant-mode database or schema"}

// roleState returns which of the fleet's role names exist as this fleet's
// roles (ours), and refuses any other role of those names.
func (e *env) roleState(ctx context.Context, db *sqlx.DB) (ours map[string]bool, err error) {
	ours, foreign, others, err := e.roles(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(foreign) > 0 {
		return nil, &ForeignRoleError{Names: foreign, Where: strings.Join(db.Endpoints(), ",")}
	}
	if len(others) > 0 {
		names := keys(others)
		slices.Sort(names)
		return nil, &ForeignRoleError{Names: names, Where: strings.Join(db.Endpoints(), ","), Mark: others[names[0]]}
	}
	return ours, nil
}

// roles sorts the existing roles of the fleet's tenant names: this
// fleet's (ours), a user's (foreign: no mark), and other fleets' of
// stampede's (others: name -> comment).
func (e *env) roles(ctx context.Context, db *sqlx.DB) (ours map[string]bool, foreign []string, others map[string]string, err error) {
	names := e.Spec.names()
	rows, err := db.Query(ctx, "SELECT rolname, shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = ANY($1)", names)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the roles of the tenants' names: %w", err)
	}
	defer rows.Close()
	ours, others = map[string]bool{}, map[string]string{}
	mark := e.roleMark()
	for rows.Next() {
		var name string
		var c *string
		if err := rows.Scan(&name, &c); err != nil {
			return nil, nil, nil, err
		}
		switch {
		case c != nil && *c == mark:
			ours[name] = true
		case c != nil && workload.IsMark(*c):
			others[name] = *c
		default:
			foreign = append(foreign, name)
		}
	}
	return ours, foreign, others, rows.Err()
}

// checkRoles refuses, before anything is created, tenant roles in column
// mode, on a server other than PostgreSQL, and role names taken by roles
// that are not this fleet's.
func (e *env) checkRoles(ctx context.Context) error {
	if e.Spec.Mode == ModeColumn {
		return errColumnRoles
	}
	admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), 1)
	if err != nil {
		return err
	}
	defer closeAdmin()
	if name := admin.Dialect().Name(); name != "postgres" {
		return &RefusedError{fmt.Sprintf("--tenant-roles needs PostgreSQL (the server is %s): the roles' marks are comments on roles, which it does not keep", name)}
	}
	var version int
	if err := admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return fmt.Errorf("reading the server's version: %w", err)
	}
	if version < minRolesVersion {
		return &RefusedError{fmt.Sprintf("--tenant-roles needs PostgreSQL 13 or later (the server's version is %d): the server draws the fleet's secret with gen_random_uuid, so that no statement it may log carries it", version)}
	}
	_, err = e.roleState(ctx, admin)
	return err
}

// rolePassword derives role's password from the fleet's secret: HMAC-SHA-256
// of the role's name, in base64url.
func rolePassword(secret []byte, role string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("stampede tenant role\x00" + role))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// scramVerifier returns the SCRAM-SHA-256 verifier PostgreSQL stores for
// password (RFC 5802, RFC 7677; PostgreSQL's scram_build_secret): the
// salt and iteration count, StoredKey and ServerKey. password is ASCII,
// which SASLprep leaves as it is.
func scramVerifier(password string, salt []byte, iterations int) (string, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}

// roleTableState says whether RoleTable exists in db, and refuses one
// that is not stampede's.
func roleTableState(ctx context.Context, db *sqlx.DB) (bool, error) {
	ok, err := workload.TableExists(ctx, db, RoleTable)
	if err != nil || !ok {
		return false, err
	}
	c, err := workload.TableComment(ctx, db, RoleTable)
	if err != nil {
		return false, err
	}
	if !workload.IsMark(c) {
		return false, fmt.Errorf("table %s in %s was not made by stampede (no mark of stampede's on it): --tenant-roles keeps the fleet's secret in a table of that name; rename yours", RoleTable, db.Where())
	}
	return true, nil
}

// newSecretSQL is the SQL expression of a new fleet secret, drawn by the
// server: 32 bytes of two version 4 UUIDs, 244 bits from the server's
// strong random source (gen_random_uuid, PostgreSQL 13 and later). Drawn
// by stampede, the secret would travel in the INSERT's parameters, which a
// server with log_statement = all (or mod) writes to its log, and every
// tenant's password can be derived from it.
const newSecretSQL = "uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())"

// minRolesVersion is the oldest PostgreSQL (server_version_num) with
// gen_random_uuid built in (newSecretSQL).
const minRolesVersion = 130000

// ensureSecret returns the fleet's secret, creating RoleTable (granted to
// nobody) and the secret when missing.
func (e *env) ensureSecret(ctx context.Context, db *sqlx.DB) ([]byte, error) {
	d := db.Dialect()
	t := d.QuoteIdent(RoleTable)
	exists, err := roleTableState(ctx, db)
	if err != nil {
		return nil, err
	}
	// Under the fleet's lock: the clients of a split init all find no
	// table at first.
	err = e.locked(ctx, db, func(tx sqlx.Tx) error {
		if !exists {
			_, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+t+" (fleet TEXT PRIMARY KEY, secret BYTEA NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now());\n"+
				"REVOKE ALL ON TABLE "+t+" FROM PUBLIC;\n"+
				dialect.CommentOnTable(d, RoleTable, workload.Mark+" fleet: the secrets of tenant roles (init --tenant-roles), readable by their owner only"))
			if err != nil {
				return fmt.Errorf("creating %s in %s: %w", RoleTable, db.Where(), err)
			}
		}
		// The server draws the secret (newSecretSQL): it is never sent in
		// a statement, which a server may log (log_statement).
		if _, err := tx.Exec(ctx, "INSERT INTO "+t+" (fleet, secret) VALUES ($1, "+newSecretSQL+") ON CONFLICT (fleet) DO NOTHING", e.fleetKey()); err != nil {
			return fmt.Errorf("keeping the fleet's secret in %s: %w", RoleTable, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	got, ok, err := e.readSecret(ctx, db)
	if err == nil && !ok {
		err = fmt.Errorf("the fleet's secret vanished from %s while init ran (a cleanup at the same time?): run init again", RoleTable)
	}
	return got, err
}

// readSecret reads the fleet's secret; ok is false when the fleet has
// none (no tenant roles).
func (e *env) readSecret(ctx context.Context, db *sqlx.DB) (secret []byte, ok bool, err error) {
	exists, err := roleTableState(ctx, db)
	if err != nil || !exists {
		return nil, false, err
	}
	err = db.QueryRow(ctx, "SELECT secret FROM "+db.Dialect().QuoteIdent(RoleTable)+" WHERE fleet = $1", e.fleetKey()).Scan(&secret)
	switch {
	case errors.Is(err, sqlx.ErrNoRows):
		return nil, false, nil
	case sqlx.SQLState(err) == "42501":
		return nil, false, fmt.Errorf("cannot read the fleet's tenant role secret (table %s in %s) as this connection's user: permission denied; connect as the user who ran init --tenant-roles, or a superuser",
			RoleTable, db.Where())
	case err != nil:
		return nil, false, fmt.Errorf("reading the fleet's tenant role secret: %w", err)
	}
	return secret, true, nil
}

// roleSQL returns the statements that create (or, when exists, update)
// tenant id's role with its password's verifier, mark it and grant it its
// database-level privileges.
func (e *env) roleSQL(d dialect.Dialect, id int, secret []byte, exists bool, objs map[string]schemaObjects, creates bool) (string, error) {
	r := d.QuoteIdent(e.Spec.RoleName(id))
	salt := make([]byte, 16)
	rand.Read(salt)
	v, err := scramVerifier(rolePassword(secret, e.Spec.RoleName(id)), salt, scramIterations)
	if err != nil {
		return "", err
	}
	var stmts []string
	if exists {
		stmts = append(stmts, "ALTER ROLE "+r+" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD "+dialect.QuoteLiteral(v))
	} else {
		stmts = append(stmts, "CREATE ROLE "+r+" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD "+dialect.QuoteLiteral(v),
			"COMMENT ON ROLE "+r+" IS "+dialect.QuoteLiteral(e.roleMark()))
	}
	switch e.Spec.Mode {
	case ModeDatabase:
		db := d.QuoteIdent(e.Spec.Name(id))
		stmts = append(stmts, "REVOKE ALL ON DATABASE "+db+" FROM PUBLIC", "GRANT CONNECT, TEMPORARY ON DATABASE "+db+" TO "+r)
	case ModeSchema:
		// CONNECT on the fleet's database comes after, in one statement
		// for every role: concurrent grants on one database collide
		// ("tuple concurrently updated").
		stmts = append(stmts, objs[e.Spec.Name(id)].grants(d, e.Spec.Name(id), r)...)
		if creates {
			stmts = append(stmts, "GRANT CREATE ON SCHEMA "+d.QuoteIdent(e.Spec.Name(id))+" TO "+r)
		}
	}
	return strings.Join(stmts, ";\n"), nil
}

// schemaObjects are the tables and sequences of a tenant schema.
type schemaObjects struct{ tables, sequences []string }

// grants returns the grants of role r (quoted) on schema s and the
// objects in it, named one by one: GRANT ... ON ALL TABLES IN SCHEMA
// scans the whole of pg_class, which a fleet of schemas makes large (30
// ms a grant at 1,000 tenants on a busy machine).
func (o schemaObjects) grants(d dialect.Dialect, s, r string) []string {
	q := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = d.QuoteIdent(s) + "." + d.QuoteIdent(n)
		}
		return strings.Join(out, ", ")
	}
	stmts := []string{"GRANT USAGE ON SCHEMA " + d.QuoteIdent(s) + " TO " + r}
	if len(o.tables) > 0 {
		stmts = append(stmts, "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "+q(o.tables)+" TO "+r)
	}
	if len(o.sequences) > 0 {
		stmts = append(stmts, "GRANT USAGE, SELECT, UPDATE ON SEQUENCE "+q(o.sequences)+" TO "+r)
	}
	if slices.Contains(o.tables, MarkerTable) {
		// The tenant's marker says what init loaded: the role reads it.
		stmts = append(stmts, "REVOKE INSERT, UPDATE, DELETE ON TABLE "+q([]string{MarkerTable})+" FROM "+r)
	}
	return stmts
}

// schemaObjectsOf returns the tables (and views) and sequences of every
// tenant schema, in one query.
func (e *env) schemaObjectsOf(ctx context.Context, db *sqlx.DB) (map[string]schemaObjects, error) {
	rows, err := db.Query(ctx, `SELECT n.nspname, c.relname, c.relkind = 'S' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') ORDER BY 1, 2`, e.Spec.names())
	if err != nil {
		return nil, fmt.Errorf("listing the tenant schemas' tables: %w", err)
	}
	defer rows.Close()
	out := map[string]schemaObjects{}
	for rows.Next() {
		var schema, name string
		var seq bool
		if err := rows.Scan(&schema, &name, &seq); err != nil {
			return nil, err
		}
		o := out[schema]
		if seq {
			o.sequences = append(o.sequences, name)
		} else {
			o.tables = append(o.tables, name)
		}
		out[schema] = o
	}
	return out, rows.Err()
}

// schemaGrants returns the grants of role r on schema s and everything in
// it (both quoted).
func schemaGrants(s, r string) []string {
	return []string{
		"GRANT USAGE ON SCHEMA " + s + " TO " + r,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + s + " TO " + r,
		"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA " + s + " TO " + r,
		// The tenant's marker says what init loaded: the role reads it.
		"REVOKE INSERT, UPDATE, DELETE ON TABLE " + s + "." + MarkerTable + " FROM " + r,
	}
}

// RoleTotals says what was done to a fleet's tenant roles.
type RoleTotals struct {
	// Created and Existing count the roles created now and those an
	// earlier init made (their passwords and grants renewed).
	Created, Existing int
	// Elapsed is the time the roles took.
	Elapsed time.Duration
	// Dropped counts the roles cleanup dropped; Kept names roles of the
	// tenants' names that stampede did not make for this fleet, which it
	// left alone.
	Dropped int
	Kept    []string
}

// KeptText names the roles cleanup left alone for the line that says so:
// "role R", or "N roles (R1, R2, ...)" with at most ten names.
func (t RoleTotals) KeptText() string {
	k := t.Kept
	if len(k) == 1 {
		return "role " + k[0]
	}
	shown := strings.Join(k[:min(len(k), 10)], ", ")
	if len(k) > 10 {
		shown += ", ..."
	}
	return fmt.Sprintf("%d roles (%s)", len(k), shown)
}

// createRoles creates the fleet's tenant roles (the tenants exist), or
// renews those that exist: password, grants. It is idempotent.
func (e *env) createRoles(ctx context.Context, o CreateOptions) (RoleTotals, error) {
	start := time.Now()
	var rt RoleTotals
	reg, closeReg, err := e.connect(ctx, e.registryOptions(), e.Concurrency)
	if err != nil {
		return rt, err
	}
	defer closeReg()
	secret, err := e.ensureSecret(ctx, reg)
	if err != nil {
		return rt, err
	}
	ours, err := e.roleState(ctx, reg)
	if err != nil {
		return rt, err
	}
	d := reg.Dialect()
	if e.Spec.Mode == ModeSchema {
		var revoked bool
		err := e.locked(ctx, reg, func(tx sqlx.Tx) error {
			var public bool
			if err := tx.QueryRow(ctx, "SELECT has_schema_privilege('public', 'public', 'CREATE')").Scan(&public); err != nil || !public {
				return err
			}
			_, err := tx.Exec(ctx, "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
			if err == nil {
				// Recorded, so that the cleanup of the database's
				// last fleet with tenant roles gives it back.
				_, err = tx.Exec(ctx, "INSERT INTO "+d.QuoteIdent(RoleTable)+" (fleet, secret) VALUES ($1, ''::bytea) ON CONFLICT (fleet) DO NOTHING", revokedPublicCreate)
			}
			revoked = err == nil
			return err
		})
		if err != nil {
			return rt, fmt.Errorf("revoking PUBLIC's CREATE on schema public: %w", err)
		}
		if revoked {
			e.logf("revoked PUBLIC's CREATE on schema public of database %q (PostgreSQL 15 and later grant none): a tenant's role creates nothing there", reg.Database())
		}
	}
	creates := createsAtRun(o)
	var objs map[string]schemaObjects
	if e.Spec.Mode == ModeSchema {
		if objs, err = e.schemaObjectsOf(ctx, reg); err != nil {
			return rt, err
		}
	}
	f, l := o.span()
	ids := make([]int, 0, l-f+1)
	for id := f; id <= l; id++ {
		ids = append(ids, id)
	}
	var chunks []int // first id of each chunk
	for i := 0; i < len(ids); i += roleChunk {
		chunks = append(chunks, ids[i])
	}
	bar := e.bar("tenant roles", int64(len(ids)))
	var created atomic.Int64
	err = forEach(ctx, e.Concurrency, chunks, func(ctx context.Context, first int) error {
		var stmts []string
		last := min(first+roleChunk-1, l)
		for id := first; id <= last; id++ {
			s, err := e.roleSQL(d, id, secret, ours[e.Spec.RoleName(id)], objs, creates)
			if err != nil {
				return err
			}
			stmts = append(stmts, s)
		}
		// One implicit transaction: a chunk's roles come with their
		// marks, or not at all.
		if _, err := reg.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
			return fmt.Errorf("creating the login roles of tenants %d..%d: %w", first, last, e.explain(err))
		}
		for id := first; id <= last; id++ {
			if !ours[e.Spec.RoleName(id)] {
				created.Add(1)
			}
		}
		if e.Spec.Mode == ModeSchema {
			bar.Add(int64(last - first + 1))
		}
		return nil
	})
	switch {
	case err != nil:
	case e.Spec.Mode == ModeDatabase:
		err = e.grantInDatabases(ctx, d, ids, creates, bar.Add)
	case e.Spec.Mode == ModeSchema:
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = e.Spec.RoleName(id)
		}
		// Under the fleet's lock: the clients of a split init grant on
		// the one database at once otherwise.
		err = e.locked(ctx, reg, func(tx sqlx.Tx) error {
			_, err := tx.Exec(ctx, "GRANT CONNECT, TEMPORARY ON DATABASE "+d.QuoteIdent(e.Base.Database)+" TO "+strings.Join(quoted(d, names), ", "))
			return err
		})
		if err != nil {
			err = fmt.Errorf("granting the tenant roles CONNECT on database %q: %w", e.Base.Database, err)
		}
	}
	bar.Done()
	rt.Created = int(created.Load())
	rt.Existing = len(ours)
	rt.Elapsed = time.Since(start)
	return rt, err
}

// createsAtRun reports whether the fleet's workload creates tables in its
// runs (workload.RunCreator), so that its tenant roles need CREATE on
// their own schema.
func createsAtRun(o CreateOptions) bool {
	if o.NewGenerator == nil {
		return false
	}
	gen, err := o.NewGenerator()
	if err != nil {
		return false
	}
	rc, ok := gen.(workload.RunCreator)
	return ok && rc.CreatesAtRun()
}

// grantInDatabases grants each tenant's role its database's schema
// public, tables and sequences, taking PUBLIC's and, in clones of tenant
// 1, tenant 1's role's grants away (a clone copies its template's).
func (e *env) grantInDatabases(ctx context.Context, d dialect.Dialect, ids []int, creates bool, done func(int64)) error {
	names := e.Spec.names()
	return forEach(ctx, e.Concurrency, ids, func(ctx context.Context, id int) error {
		opts := e.Spec.Options(e.Base, id)
		opts.Dialect = d // known: no SELECT version() per tenant
		db, closeDB, err := e.connect(ctx, opts, 1)
		if err != nil {
			return err
		}
		defer closeDB()
		d := db.Dialect()
		r := d.QuoteIdent(e.Spec.RoleName(id))
		stmts := []string{"REVOKE ALL ON SCHEMA public FROM PUBLIC"}
		// A clone holds its template's grants to the template's role.
		others, err := grantees(ctx, db, names, e.Spec.RoleName(id))
		if err != nil {
			return fmt.Errorf("reading the grants in tenant %d's database %q: %w", id, e.Spec.Name(id), err)
		}
		for _, o := range others {
			q := d.QuoteIdent(o)
			stmts = append(stmts, "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM "+q,
				"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM "+q, "REVOKE ALL ON SCHEMA public FROM "+q)
		}
		stmts = append(stmts, schemaGrants("public", r)...)
		if creates {
			stmts = append(stmts, "GRANT CREATE ON SCHEMA public TO "+r)
		}
		if _, err := db.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
			return fmt.Errorf("granting tenant %d's role its database %q: %w", id, e.Spec.Name(id), e.explain(err))
		}
		done(1)
		return nil
	})
}

// grantees returns those of roles, other than own, that hold a privilege
// on schema public or on an object in it, in db's database.
func grantees(ctx context.Context, db *sqlx.DB, roles []string, own string) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT r.rolname FROM (
			SELECT (aclexplode(relacl)).grantee FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relacl IS NOT NULL
			UNION SELECT (aclexplode(nspacl)).grantee FROM pg_namespace WHERE nspname = 'public' AND nspacl IS NOT NULL) g
		JOIN pg_roles r ON r.oid = g.grantee WHERE r.rolname = ANY($1) AND r.rolname <> $2 ORDER BY 1`, roles, own)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// dropRoles drops this fleet's tenant roles (after their databases or
// schemas: DROP OWNED BY takes their privileges on the fleet's database
// away) and the fleet's secret; roles of the tenants' names that are not
// this fleet's are left alone and named in kept.
func (e *env) dropRoles(ctx context.Context) (dropped int, kept []string, err error) {
	admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), e.Concurrency)
	if err != nil {
		return 0, nil, err
	}
	defer closeAdmin()
	if admin.Dialect().Name() != "postgres" {
		return 0, nil, nil // no tenant roles there (init refuses them)
	}
	ours, foreign, others, err := e.roles(ctx, admin)
	if err != nil {
		return 0, nil, err
	}
	kept = append(foreign, keys(others)...)
	slices.Sort(kept)
	names := slices.DeleteFunc(keys(ours), func(n string) bool { return e.keepRoles[n] })
	slices.Sort(names)
	d := admin.Dialect()
	var chunks [][]string
	for i := 0; i < len(names); i += roleChunk {
		chunks = append(chunks, names[i:min(i+roleChunk, len(names))])
	}
	// One chunk at a time: DROP OWNED BY revokes the roles' CONNECT on a
	// schema fleet's one database, and concurrent revokes on one database
	// collide ("tuple concurrently updated").
	for _, c := range chunks {
		list := strings.Join(quoted(d, c), ", ")
		if _, err := admin.Exec(ctx, "DROP OWNED BY "+list+";\nDROP ROLE "+list); err != nil {
			return dropped, kept, fmt.Errorf("dropping the tenant roles %s: %w", nameList(c), e.explain(err))
		}
		dropped += len(c)
	}
	return dropped, kept, e.dropSecret(ctx)
}

// dropSecret deletes the fleet's secret, and RoleTable when no fleet's is
// left in it.
func (e *env) dropSecret(ctx context.Context) error {
	reg, closeReg, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil
		}
		return err
	}
	defer closeReg()
	exists, err := roleTableState(ctx, reg)
	if err != nil || !exists {
		return err
	}
	t := reg.Dialect().QuoteIdent(RoleTable)
	var left int
	var revoked bool
	err = reg.QueryRow(ctx, "WITH d AS (DELETE FROM "+t+" WHERE fleet = $1 RETURNING 1) SELECT count(*) FILTER (WHERE fleet NOT IN ($1, $2)), count(*) FILTER (WHERE fleet = $2) > 0 FROM "+t,
		e.fleetKey(), revokedPublicCreate).Scan(&left, &revoked)
	if err != nil {
		return fmt.Errorf("deleting the fleet's secret from %s: %w", RoleTable, err)
	}
	if revoked && left > 0 {
		e.logf("PUBLIC's CREATE on schema public of database %q stays revoked while tenant roles of %d other fleets remain: the cleanup of the last gives it back", reg.Database(), left)
	}
	if revoked && left == 0 {
		if _, err := reg.Exec(ctx, "GRANT CREATE ON SCHEMA public TO PUBLIC"); err != nil {
			return fmt.Errorf("giving back PUBLIC's CREATE on schema public of database %q, which init --tenant-roles revoked: %w", reg.Database(), err)
		}
		e.logf("gave back PUBLIC's CREATE on schema public of database %q, which init --tenant-roles revoked", reg.Database())
	}
	if left == 0 {
		if _, err := reg.Exec(ctx, reg.Dialect().DropTable(RoleTable)); err != nil {
			return fmt.Errorf("dropping %s: %w", RoleTable, err)
		}
	}
	return nil
}

// Login is a tenant's login role and its password: never print the
// password.
type Login struct {
	User, Password string
}

// Logins returns each tenant's login when the fleet has tenant roles
// (init --tenant-roles): the fleet's secret is read once, through the
// admin connection t.Base describes, and each password derived in memory.
// It returns nil when the fleet has none.
func Logins(ctx context.Context, t Target) (func(id int) Login, error) {
	if t.Spec.Mode == ModeColumn || t.Base.Driver == sqlx.DriverNull {
		return nil, nil
	}
	e := newEnv(t)
	reg, closeReg, err := e.connect(ctx, e.registryOptions(), 1)
	if err != nil {
		if sqlx.IsMissingDatabase(err) {
			return nil, nil
		}
		return nil, err
	}
	defer closeReg()
	if reg.Dialect().Name() != "postgres" {
		return nil, nil
	}
	secret, ok, err := e.readSecret(ctx, reg)
	if err != nil || !ok {
		return nil, err
	}
	spec := t.Spec
	return func(id int) Login {
		name := spec.RoleName(id)
		return Login{User: name, Password: rolePassword(secret, name)}
	}, nil
}

// Plural is "1 tenant schema" or "2 tenant schemas": what with n, in the
// plural unless n is 1.
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
