package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// roleHolding is an object outside a tenant that the tenant's role owns
// or holds a privilege on (pg_shdepend): a user's, which DROP ROLE fails
// over (SQLSTATE 2BP01) and DROP OWNED BY would drop or revoke.
type roleHolding struct {
	// Role is the tenant role; What the object ("table public.t"); DB its
	// database ("" for a shared object: a database, a tablespace); Owns
	// whether the role owns it (else it holds privileges on it).
	Role, What, DB string
	Owns           bool
	// Member, when set, makes it a membership stampede did not grant,
	// which DROP ROLE would revoke without a word: Role is granted to
	// role Member (GRANT Role TO Member), or with Of Role is a member of
	// role Member (GRANT Member TO Role).
	Member string
	Of     bool
}

func (h roleHolding) String() string {
	switch {
	case h.Member != "" && h.Of:
		return fmt.Sprintf("role %s is a member of role %s", h.Role, h.Member)
	case h.Member != "":
		return fmt.Sprintf("role %s is granted to role %s", h.Role, h.Member)
	}
	how := "holds privileges on"
	if h.Owns {
		how = "owns"
	}
	where := ""
	if h.DB != "" {
		where = fmt.Sprintf(" in database %q", h.DB)
	}
	return fmt.Sprintf("role %s %s %s%s", h.Role, how, h.What, where)
}

// remedy is what the user runs to free role of h's objects.
func (h roleHolding) remedy(admin string) string {
	switch {
	case h.Member != "" && h.Of:
		return fmt.Sprintf("`REVOKE %s FROM %s`", h.Member, h.Role)
	case h.Member != "":
		return fmt.Sprintf("`REVOKE %s FROM %s`", h.Role, h.Member)
	}
	in := ""
	if h.DB != "" {
		in = fmt.Sprintf(" in database %q", h.DB)
	}
	if h.Owns {
		return fmt.Sprintf("`REASSIGN OWNED BY %s TO %s`%s", h.Role, admin, in)
	}
	on := h.What
	for _, k := range []string{"materialized view ", "foreign table ", "view ", "table "} {
		if rest, ok := strings.CutPrefix(on, k); ok {
			on = "TABLE " + rest
		}
	}
	if kind, rest, ok := strings.Cut(on, " "); ok {
		on = strings.ToUpper(kind) + " " + rest
	}
	return fmt.Sprintf("`REVOKE ALL ON %s FROM %s`%s", on, h.Role, in)
}

// RoleHoldsError refuses a cleanup when a tenant role of the fleet owns
// or holds privileges on objects outside its tenant: nothing is dropped.
// It matches workload.ErrForeign (exit 2).
type RoleHoldsError struct {
	// Held are the objects; Admin the role that runs cleanup.
	Held  []roleHolding
	Admin string
}

func (e *RoleHoldsError) Error() string {
	objs := make([]string, 0, len(e.Held))
	for _, h := range e.Held[:min(len(e.Held), 5)] {
		objs = append(objs, h.String())
	}
	more := ""
	if len(e.Held) > 5 {
		more = fmt.Sprintf(" and %d more", len(e.Held)-5)
	}
	var fixes []string
	for _, h := range e.Held[:min(len(e.Held), 5)] {
		if f := h.remedy(e.Admin); !slices.Contains(fixes, f) {
			fixes = append(fixes, f)
		}
	}
	return fmt.Sprintf("%s%s%s: cleanup drops nothing, as %s, and stampede neither drops nor gives away what is yours; run %s, then cleanup again, or to drop the tenants anyway and %s, add %s",
		strings.Join(objs, "; "), more, e.whose(), e.why(), strings.Join(fixes, ", "), e.ForceNote(), workload.ForceDropFlag)
}

// members counts the memberships among e.Held.
func (e *RoleHoldsError) members() int {
	n := 0
	for _, h := range e.Held {
		if h.Member != "" {
			n++
		}
	}
	return n
}

// whose follows the list: what stampede did not make or grant.
func (e *RoleHoldsError) whose() string {
	switch m := e.members(); {
	case m == 0:
		return ", which stampede did not make (outside the tenant)"
	case m == len(e.Held) && m == 1:
		return " (a membership stampede did not grant)"
	case m == len(e.Held):
		return " (memberships stampede did not grant)"
	}
	return ", which stampede did not make or grant (outside the tenant)"
}

// why says why cleanup keeps the role: DROP ROLE fails over its objects,
// and revokes its memberships without a word.
func (e *RoleHoldsError) why() string {
	role := "the tenant's role"
	if strings.HasSuffix(e.ForceNote(), "roles") {
		role = "the tenants' roles"
	}
	if e.members() == len(e.Held) {
		return "dropping " + role + " would revoke " + map[bool]string{true: "it", false: "them"}[len(e.Held) == 1]
	}
	return role + " could not be dropped"
}

// ForceNote says what workload.ForceDropFlag does beside dropping the
// tenants (workload.ForceNoter): it keeps the roles.
func (e *RoleHoldsError) ForceNote() string {
	var roles []string
	for _, h := range e.Held {
		if !slices.Contains(roles, h.Role) {
			roles = append(roles, h.Role)
		}
	}
	if len(roles) > 1 {
		return "keep the roles"
	}
	return "keep the role"
}

// Is makes errors.Is(err, workload.ErrForeign) true.
func (e *RoleHoldsError) Is(target error) bool { return target == workload.ErrForeign }

// shdependQuery lists what the roles $1 own ('o') or hold privileges on
// ('a') in every database: role, database (oid, name: "" for a shared
// object), catalog, oid, sub-id, and the object named as
// pg_identify_object names it when it is shared (else "").
const shdependQuery = `SELECT r.rolname::text, sd.dbid, coalesce(d.datname::text, ''), sd.classid::regclass::text, sd.objid, sd.objsubid, sd.deptype = 'o',
	CASE WHEN sd.dbid = 0 THEN (SELECT i.type || ' ' || i.identity FROM pg_identify_object(sd.classid, sd.objid, 0) i) ELSE '' END
FROM pg_shdepend sd JOIN pg_roles r ON r.oid = sd.refobjid
LEFT JOIN pg_database d ON d.oid = sd.dbid
WHERE sd.refclassid = 'pg_authid'::regclass AND sd.deptype IN ('o', 'a') AND r.rolname = ANY($1)
ORDER BY 1, 3, 4, 5`

// identifyQuery names objects ($1 catalogs, $2 oids) of the database it
// runs in: kind and identity, and the schema they are in.
const identifyQuery = `SELECT (i).type || ' ' || (i).identity, coalesce((i).schema, ''), coalesce(CASE WHEN c = 'pg_namespace' THEN (i).identity END, '')
FROM (SELECT c, pg_identify_object(c::regclass, o, 0) AS i FROM unnest($1::text[], $2::oid[]) AS u(c, o)) x`

// heldOutside returns what this fleet's tenant roles own or hold
// privileges on outside their tenants (see roleHolding), read before
// cleanup drops anything: inside are, in database mode, the objects of
// the tenant's database and its grants on it; in schema mode, the
// tenant's schema, what is in it, and its grants on the fleet's database.
func (e *env) heldOutside(ctx context.Context) ([]roleHolding, string, error) {
	if e.Spec.Mode == ModeColumn || e.Base.Driver == sqlx.DriverNull {
		return nil, "", nil
	}
	admin, closeAdmin, err := e.connect(ctx, e.adminOptions(), 1)
	if err != nil {
		return nil, "", err
	}
	defer closeAdmin()
	if admin.Dialect().Name() != "postgres" {
		return nil, "", nil
	}
	ours, _, _, err := e.roles(ctx, admin)
	if err != nil || len(ours) == 0 {
		return nil, "", err
	}
	var me string
	if err := admin.QueryRow(ctx, "SELECT current_user::text").Scan(&me); err != nil {
		return nil, "", err
	}
	names := keys(ours)
	slices.Sort(names)
	rows, err := admin.Query(ctx, shdependQuery, names)
	if err != nil {
		return nil, "", fmt.Errorf("reading what the tenant roles own or were granted (pg_shdepend): %w", err)
	}
	type entry struct {
		role, db, class, shared string
		oid                     uint32
		owns                    bool
	}
	var held []roleHolding
	byDB := map[string][]entry{}
	for rows.Next() {
		var en entry
		var dbid uint32
		var sub int32
		if err := rows.Scan(&en.role, &dbid, &en.db, &en.class, &en.oid, &sub, &en.owns, &en.shared); err != nil {
			rows.Close()
			return nil, "", err
		}
		switch {
		case dbid == 0:
			// A grant on (or ownership of) the tenant's database, or the
			// schema fleet's database, is stampede's.
			tenantDB := en.role
			if e.Spec.Mode == ModeSchema {
				tenantDB = e.Base.Database
			}
			if en.class == "pg_database" && en.shared == "database "+quoteIdent(tenantDB) {
				continue
			}
			held = append(held, roleHolding{Role: en.role, What: en.shared, Owns: en.owns})
		case e.Spec.Mode == ModeDatabase && en.db == en.role:
			// In the tenant's own database, dropped with it.
		default:
			byDB[en.db] = append(byDB[en.db], en)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	dbs := keys(byDB)
	slices.Sort(dbs)
	for _, name := range dbs {
		ens := byDB[name]
		classes := make([]string, len(ens))
		oids := make([]uint32, len(ens))
		for i, en := range ens {
			classes[i], oids[i] = en.class, en.oid
		}
		whats := make([]string, len(ens))
		schemas := make([]string, len(ens))
		selves := make([]string, len(ens))
		opts := e.adminOptions()
		opts.Database = name
		db, closeDB, err := e.connect(ctx, opts, 1)
		if err == nil {
			var qerr error
			func() {
				defer closeDB()
				r, err := db.Query(ctx, identifyQuery, classes, oids)
				if err != nil {
					qerr = err
					return
				}
				defer r.Close()
				for i := 0; r.Next(); i++ {
					if qerr = r.Scan(&whats[i], &schemas[i], &selves[i]); qerr != nil {
						return
					}
				}
				qerr = r.Err()
			}()
			err = qerr
		}
		if err != nil {
			// Unread (no connection there): named by catalog and oid.
			for i, en := range ens {
				whats[i] = fmt.Sprintf("an object (%s %d)", en.class, en.oid)
			}
		}
		for i, en := range ens {
			if e.Spec.Mode == ModeSchema && name == e.Base.Database && (schemas[i] == en.role || selves[i] == quoteIdent(en.role)) {
				continue // the tenant's schema, or in it
			}
			held = append(held, roleHolding{Role: en.role, What: whats[i], DB: name, Owns: en.owns})
		}
	}
	members, err := memberships(ctx, admin, names)
	if err != nil {
		return nil, "", err
	}
	return append(held, members...), me, nil
}

// membershipsQuery lists the memberships of the roles $1 that stampede
// did not grant (it grants none): (tenant role, other role, whether the
// tenant role is the member). PostgreSQL 16's grant of a role to the
// non-superuser that created it (ADMIN OPTION, by the bootstrap
// superuser) is the creator's, not a user's.
const membershipsQuery = `SELECT r.rolname::text, m.rolname::text, false FROM pg_auth_members am
	JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
	WHERE r.rolname = ANY($1) AND NOT (m.rolname = current_user AND am.admin_option AND am.grantor = 10)
UNION ALL
SELECT m.rolname::text, r.rolname::text, true FROM pg_auth_members am
	JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
	WHERE m.rolname = ANY($1)
ORDER BY 1, 3, 2`

// memberships returns the memberships of the tenant roles names (see
// membershipsQuery), as roleHoldings.
func memberships(ctx context.Context, admin *sqlx.DB, names []string) ([]roleHolding, error) {
	rows, err := admin.Query(ctx, membershipsQuery, names)
	if err != nil {
		return nil, fmt.Errorf("reading the memberships of the tenant roles (pg_auth_members): %w", err)
	}
	defer rows.Close()
	var out []roleHolding
	for rows.Next() {
		var h roleHolding
		if err := rows.Scan(&h.Role, &h.Member, &h.Of); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// quoteIdent quotes name as pg_identify_object's identities do.
func quoteIdent(name string) string {
	if name != "" && strings.ToLower(name) == name && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == "" && (name[0] < '0' || name[0] > '9') {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// refuseHeldRoles refuses (RoleHoldsError) a cleanup whose tenant roles
// own or hold privileges on objects outside their tenants, before
// anything is dropped; with ForceDrop it keeps those roles (keepRoles:
// dropRoles leaves them) and says what frees them.
func (e *env) refuseHeldRoles(ctx context.Context) error {
	held, me, err := e.heldOutside(ctx)
	if err != nil || len(held) == 0 {
		return err
	}
	if !e.ForceDrop {
		return &RoleHoldsError{Held: held, Admin: me}
	}
	e.keepRoles = map[string]bool{}
	for _, h := range held {
		if !e.keepRoles[h.Role] {
			e.logf("%s: keeping role %s: %s, which stampede did not make and neither drops nor gives away; run %s, then `DROP ROLE %s`", workload.ForceDropFlag, h.Role, h, h.remedy(me), h.Role)
		}
		e.keepRoles[h.Role] = true
	}
	return nil
}
