package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestForeignRolesWording makes a user's roles of the names of a fleet's
// tenant roles on the test server, one and then two, and checks the whole
// refusal of Create (--tenant-roles): one role "exists", is "it" and "the
// role"; several "exist", are "them" and "the roles" (the refusal said
// "no mark of stampede's on it" of two roles).
func TestForeignRolesWording(t *testing.T) {
	srv := testdb.URL(t)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	m, _ := workload.Get("bank")
	newGen := func() (workload.Generator, error) { return workload.FromFlags(m, "--rows=10") }
	const tail = ": --tenant-roles names each tenant's login role as the tenant and never takes over a role it did not make; "
	for _, tc := range []struct {
		name  string
		roles []int // tenants whose role's name a user's role takes
		want  string
	}{
		{"one role", []int{2}, "role P_2 on " + u.Host + " exists and was not made by stampede (no mark of stampede's on it)" + tail +
			"drop or rename the role, or give another --tenant-pattern"},
		{"two roles", []int{1, 3}, "roles P_1, P_3 on " + u.Host + " exist and were not made by stampede (no mark of stampede's on them)" + tail +
			"drop or rename the roles, or give another --tenant-pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := fmt.Sprintf("fw%d", rand.Uint32())
			for _, i := range tc.roles {
				role := fmt.Sprintf("%s_%d", prefix, i)
				if _, err := conn.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Exec(ctx, "DROP ROLE IF EXISTS "+role) })
			}
			spec := fleet.Spec{Tenants: 3, Mode: fleet.ModeDatabase, Pattern: prefix + "_%d"}
			target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{srv}}, Concurrency: 2, Workload: "bank"}
			_, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1, Roles: true})
			want := strings.ReplaceAll(tc.want, "P_", prefix+"_")
			if !errors.Is(err, workload.ErrForeign) || err.Error() != want {
				t.Errorf("Create with a user's roles %v:\n got %v\nwant %s", tc.roles, err, want)
			}
			var n int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", prefix+"%").Scan(&n); err != nil || n != 0 {
				t.Errorf("%d tenant databases created before the refusal (%v)", n, err)
			}
		})
	}
}
