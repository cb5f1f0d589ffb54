package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// databaseWorkQuery lists, for the databases $1 (each with $2, the name
// of the login role stampede made for it and granted CONNECT and
// TEMPORARY on it, or ""), what a user did to the database as a whole,
// which DROP DATABASE takes along without a word: its settings (ALTER
// DATABASE ... SET, ALTER ROLE ... IN DATABASE ... SET: pg_db_role_setting),
// the grants and revokes of privileges on it (datacl against the
// default of its owner), its connection limit, a comment that is not
// stampede's mark (pg_shdescription) and its security labels
// (pg_shseclabel). Stampede's own role's grants, and the revoke from
// PUBLIC that goes with them (init --tenant-roles), are stampede's. It
// reads the cluster's catalogs only: one query for any number of
// databases, through a connection to any of the server's.
const databaseWorkQuery = `WITH t AS (SELECT n, r FROM unnest($1::text[], $2::text[]) u(n, r)),
d AS (SELECT d.oid, d.datname::text AS name, d.datdba, d.datacl, d.datconnlimit, t.r FROM pg_database d JOIN t ON t.n = d.datname),
own AS (SELECT d.oid, ro.oid AS role FROM d JOIN pg_roles ro ON ro.rolname = d.r
	WHERE shobj_description(ro.oid, 'pg_authid') LIKE 'made by stampede %')
SELECT name, item FROM (
	SELECT d.name, 1 AS k, 'setting ' || s AS item
		FROM d JOIN pg_db_role_setting r ON r.setdatabase = d.oid AND r.setrole = 0 CROSS JOIN unnest(r.setconfig) s
	UNION ALL SELECT d.name, 2, 'setting ' || s || ' for role ' || pg_get_userbyid(r.setrole)
		FROM d JOIN pg_db_role_setting r ON r.setdatabase = d.oid AND r.setrole <> 0 CROSS JOIN unnest(r.setconfig) s
	UNION ALL SELECT d.name, 3, 'grant of ' || g.privilege_type || ' to ' || CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(g.grantee) END
		FROM d CROSS JOIN LATERAL (SELECT * FROM aclexplode(d.datacl) EXCEPT SELECT * FROM aclexplode(acldefault('d', d.datdba))) g
		WHERE NOT (g.privilege_type IN ('CONNECT', 'TEMPORARY') AND g.grantee IN (SELECT role FROM own WHERE own.oid = d.oid))
	UNION ALL SELECT d.name, 4, 'revoke of ' || g.privilege_type || ' from ' || CASE g.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(g.grantee) END
		FROM d CROSS JOIN LATERAL (SELECT * FROM aclexplode(acldefault('d', d.datdba)) EXCEPT SELECT * FROM aclexplode(d.datacl)) g
		WHERE d.datacl IS NOT NULL AND NOT (g.grantee = 0 AND EXISTS (SELECT 1 FROM own WHERE own.oid = d.oid))
	UNION ALL SELECT d.name, 5, 'connection limit ' || d.datconnlimit FROM d WHERE d.datconnlimit <> -1
	UNION ALL SELECT d.name, 6, 'comment ' || quote_literal(c.description)
		FROM d JOIN pg_shdescription c ON c.objoid = d.oid AND c.classoid = 'pg_database'::regclass
		WHERE c.description NOT LIKE 'made by stampede %'
	UNION ALL SELECT d.name, 7, 'security label of provider ' || l.provider || ' (' || quote_literal(l.label) || ')'
		FROM d JOIN pg_shseclabel l ON l.objoid = d.oid AND l.classoid = 'pg_database'::regclass
) x ORDER BY name, k, item`

// DatabaseWork returns, for each of databases that has any, what a user
// did to it as a whole that dropping it would lose (see
// databaseWorkQuery), each as "setting work_mem=64MB", "grant of CONNECT
// to alice", "connection limit 5", ...; roles gives, where not "", the
// login role stampede made for a database (a fleet's tenant role), whose
// grants are stampede's. admin is a connection to any database of the
// server: the census is one query over the cluster's catalogs, however
// many databases. It is nil on other databases than PostgreSQL.
func DatabaseWork(ctx context.Context, admin *sqlx.DB, databases, roles []string) (map[string][]string, error) {
	if admin.Null() || admin.Dialect().Name() != "postgres" || len(databases) == 0 {
		return nil, nil
	}
	if roles == nil {
		roles = make([]string, len(databases))
	}
	rows, err := admin.Query(ctx, databaseWorkQuery, databases, roles)
	if err != nil {
		return nil, fmt.Errorf("reading the settings and grants of the databases to drop: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var name, item string
		if err := rows.Scan(&name, &item); err != nil {
			return nil, err
		}
		out[name] = append(out[name], item)
	}
	return out, rows.Err()
}

// databaseWorkInsideQuery lists what a user did to the current database
// that only a connection to it sees or can tell: its owner when it is
// not the role stampede made it as ($1, a table stampede made in it as
// SQL writes it, whose owner that is; or "" for the connection's role),
// and the default privileges set in it (ALTER DEFAULT PRIVILEGES:
// pg_default_acl, a catalog of each database).
const databaseWorkInsideQuery = `SELECT item FROM (
	SELECT 1 AS k, 'owner ' || pg_get_userbyid(d.datdba) || ' (stampede made it as ' || m.role || ')' AS item
		FROM pg_database d, (SELECT coalesce(pg_get_userbyid((SELECT relowner FROM pg_class WHERE oid = CASE WHEN $1 = '' THEN NULL ELSE to_regclass($1) END)),
			current_user::text) AS role) m
		WHERE d.datname = current_database() AND pg_get_userbyid(d.datdba) <> m.role
	UNION ALL SELECT 2, 'default privileges of role ' || pg_get_userbyid(a.defaclrole) || ' on ' ||
			CASE a.defaclobjtype WHEN 'r' THEN 'tables' WHEN 'S' THEN 'sequences' WHEN 'f' THEN 'functions' WHEN 'T' THEN 'types' WHEN 'n' THEN 'schemas' ELSE a.defaclobjtype::text END ||
			coalesce(' in schema ' || n.nspname, '')
		FROM pg_default_acl a LEFT JOIN pg_namespace n ON n.oid = a.defaclnamespace
) x ORDER BY k, item`

// DatabaseWorkInside returns what a user did to db's database as a whole
// that only a connection to it tells (see databaseWorkInsideQuery): an
// owner other than the role stampede made it as (the owner of made, a
// table stampede made in it as SQL writes it; "" for the connection's
// role), and the default privileges set in it. It is nil on other
// databases than PostgreSQL.
func DatabaseWorkInside(ctx context.Context, db *sqlx.DB, made string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	rows, err := db.Query(ctx, databaseWorkInsideQuery, made)
	if err != nil {
		return nil, fmt.Errorf("reading the owner and default privileges of database %q: %w", db.Database(), err)
	}
	defer rows.Close()
	return scanStrings(rows)
}

// DatabaseWorkOf is DatabaseWork and DatabaseWorkInside of db's own
// database (made as DatabaseWorkInside's), each item as "database
// setting work_mem=64MB": for a drop of the database db is on, beside
// ForeignObjectsIn's census of its objects.
func DatabaseWorkOf(ctx context.Context, db *sqlx.DB, made string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	var name string
	if err := db.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
		return nil, err
	}
	work, err := DatabaseWork(ctx, db, []string{name}, nil)
	if err != nil {
		return nil, err
	}
	inside, err := DatabaseWorkInside(ctx, db, made)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range append(work[name], inside...) {
		out = append(out, "database "+w)
	}
	return out, nil
}

// DatabaseWorkError refuses to drop databases that stampede made when a
// user did work on them as a whole (DatabaseWork, DatabaseWorkInside:
// settings, grants, a connection limit, another owner, default
// privileges, a comment, a security label), which the drop would lose.
type DatabaseWorkError struct {
	// Work is, by database, what was found; Where where the databases
	// are ("on 127.0.0.1:5432"); Action what would have dropped them.
	Work   map[string][]string
	Where  string
	Action string
}

func (e *DatabaseWorkError) Error() string {
	names := slices.Sorted(maps.Keys(e.Work))
	if len(names) == 1 {
		return fmt.Sprintf("database %q %s has a user's %s, which dropping it would lose: %s drops nothing; to drop it anyway, add %s",
			names[0], e.Where, joinAnd(e.Work[names[0]]), e.Action, ForceDropFlag)
	}
	shown, more := names, ""
	if len(shown) > 5 {
		shown, more = shown[:5], fmt.Sprintf("; and %d more", len(names)-5)
	}
	var parts []string
	for _, n := range shown {
		parts = append(parts, fmt.Sprintf("%q: %s", n, joinAnd(e.Work[n])))
	}
	return fmt.Sprintf("%d databases %s have a user's work on them that dropping them would lose (%s%s): %s drops nothing; to drop them anyway, add %s",
		len(names), e.Where, strings.Join(parts, "; "), more, e.Action, ForceDropFlag)
}

// Is makes errors.Is(err, ErrForeign) true, for its exit code.
func (e *DatabaseWorkError) Is(target error) bool { return target == ErrForeign }

// DatabaseWorkNote is the line --force-drop says before it drops the
// databases of work (DatabaseWorkError's Work): what goes with each.
func DatabaseWorkNote(work map[string][]string) string {
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(work)) {
		parts = append(parts, fmt.Sprintf("%q and with it a user's %s", n, joinAnd(work[n])))
	}
	what := "database "
	if len(work) > 1 {
		what = "databases "
	}
	return ForceDropFlag + ": dropping " + what + strings.Join(parts, "; ")
}

// joinAnd joins items with commas and a last "and".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
