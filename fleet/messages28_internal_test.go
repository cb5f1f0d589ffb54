package fleet

import "testing"

// TestRefusalWording: the refusals and notes of fleet cleanup in number
// with what they name: one column is "the column", the user's schemas
// are named apart from the tenant schemas, a foreign tenant says what was
// found in it, and a tenant role's memberships are named with the REVOKE
// that frees them.
func TestRefusalWording(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"one column", addedColumnsNote([]string{"bank.note"}),
			"--force-drop: dropping the column bank.note, which stampede did not make, with the shared tables"},
		{"two columns", addedColumnsNote([]string{"bank.note", "bank.tag"}),
			"--force-drop: dropping the columns bank.note, bank.tag, which stampede did not make, with the shared tables"},
		{"one tenant schema", schemasWhat([]string{"t_1"}, nil), `schema "t_1"`},
		{"tenant schemas", schemasWhat([]string{"t_10", "t_2"}, nil), "the tenant schemas t_2, t_10"},
		{"tenant and user's schemas", schemasWhat([]string{"t_1", "t_2"}, []string{"t_3"}), `the tenant schemas t_1, t_2 and the user's schema "t_3"`},
		{"tenant and users' schemas", schemasWhat([]string{"t_1"}, []string{"t_3", "t_4"}), `the tenant schema "t_1" and the user's schemas t_3, t_4`},
		{"user's schema alone", schemasWhat(nil, []string{"t_3"}), `the user's schema "t_3"`},
		{"no marker", foreignTenantWhy([]string{"i1"}, nil, "i%d"),
			`neither a stampede_tenant marker table nor stampede's tenant mark bound to it; --tenant-pattern "i%d" merely matches the name`},
		{"hand-made marker", foreignTenantWhy([]string{"i1"}, map[string]found{"i1": foundHandMade}, "i%d"),
			`a stampede_tenant table that carries no mark of stampede's bound to it (made by hand, copied, or an older stampede's); --tenant-pattern "i%d" merely matches the name`},
		{"both", foreignTenantWhy([]string{"i1", "i2"}, map[string]found{"i2": foundHandMade}, "i%d"),
			`i1: neither a stampede_tenant marker table nor stampede's tenant mark bound to it; i2: a stampede_tenant table that carries no mark of stampede's bound to it (made by hand, copied, or an older stampede's); --tenant-pattern "i%d" merely matches the name`},
		{"copied database", foreignTenantWhy([]string{"i2"}, map[string]found{"i2": foundCopy}, "i%d"),
			`a stampede_tenant marker of stampede's but no tenant mark of stampede's bound to the database itself (a copy of a tenant made with CREATE DATABASE ... TEMPLATE, or a clone whose init was stopped before marking it); --tenant-pattern "i%d" merely matches the name`},
		{"one membership", (&RoleHoldsError{Admin: "postgres", Held: []roleHolding{{Role: "t_1", Member: "alice"}}}).Error(),
			"role t_1 is granted to role alice (a membership stampede did not grant): cleanup drops nothing, as dropping the tenant's role would revoke it, and stampede neither drops nor gives away what is yours; run `REVOKE t_1 FROM alice`, then cleanup again, or to drop the tenants anyway and keep the role, add --force-drop"},
		{"memberships of two roles", (&RoleHoldsError{Admin: "postgres", Held: []roleHolding{{Role: "t_1", Member: "alice"}, {Role: "t_2", Member: "staff", Of: true}}}).Error(),
			"role t_1 is granted to role alice; role t_2 is a member of role staff (memberships stampede did not grant): cleanup drops nothing, as dropping the tenants' roles would revoke them, and stampede neither drops nor gives away what is yours; run `REVOKE t_1 FROM alice`, `REVOKE staff FROM t_2`, then cleanup again, or to drop the tenants anyway and keep the roles, add --force-drop"},
		{"an object and a membership", (&RoleHoldsError{Admin: "postgres", Held: []roleHolding{{Role: "t_1", What: "table public.t", DB: "app", Owns: true}, {Role: "t_1", Member: "alice"}}}).Error(),
			"role t_1 owns table public.t in database \"app\"; role t_1 is granted to role alice, which stampede did not make or grant (outside the tenant): cleanup drops nothing, as the tenant's role could not be dropped, and stampede neither drops nor gives away what is yours; run `REASSIGN OWNED BY t_1 TO postgres` in database \"app\", `REVOKE t_1 FROM alice`, then cleanup again, or to drop the tenants anyway and keep the role, add --force-drop"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}
