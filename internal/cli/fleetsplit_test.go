package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
)

// TestFleetSplitInit loads a fleet of 6 bank tenants from 3 clients (init
// --clients 3 --client-index I): clients 0 and 2 at once, as separate
// processes; a run then refuses the fleet and names client 1's share; a
// client with other data flags is refused; once client 1 is in, every
// tenant holds the same rows as tenant 1 (what one init's clones hold),
// the run completes, and cleanup removes the record. The schema mode's
// case gives the tenants login roles too, granted by the clients at once.
func TestFleetSplitInit(t *testing.T) {
	testServer(t)
	bin := buildStampede(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, pattern string
		mode          []string // --tenant-mode and --db, or none
		regDB         string   // where the record lives
		roles         bool
	}{
		{name: "database", pattern: "sfd_%d", regDB: "postgres"},
		{name: "schema", pattern: "sfs_%d", mode: []string{"--tenant-mode", "schema", "--db", "splitfleet"}, regDB: "splitfleet", roles: true},
		// Column mode: the first client makes the shared tables, under
		// the fleet's lock, while the other waits.
		{name: "column", pattern: "bank_%d", mode: []string{"--tenant-mode", "column", "--db", "splitfleet"}, regDB: "splitfleet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl := append([]string{"bank", "--tenants", "6", "--tenant-pattern", tc.pattern, "--rows", "100"}, tc.mode...)
			u := dbURL(t, "postgres")
			cleanup := func() { stampede(t, append(append([]string{"cleanup"}, fl[:len(fl)-2]...), append(tc.mode, u)...)...) }
			cleanup()
			t.Cleanup(cleanup)
			if tc.mode != nil {
				t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS splitfleet WITH (FORCE)") })
			}
			initArgs := func(i int, extra ...string) []string {
				a := append(append([]string{"init"}, fl...), "--clients", "3", "--client-index", strconv.Itoa(i))
				if tc.roles {
					a = append(a, "--tenant-roles")
				}
				return append(append(a, extra...), u)
			}
			// Clients 0 and 2 at once.
			var cmds []*exec.Cmd
			var outs []*bytes.Buffer
			for _, i := range []int{0, 2} {
				var b bytes.Buffer
				c := exec.Command(bin, initArgs(i)...)
				c.Stdout, c.Stderr = &b, &b
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, outs = append(cmds, c), append(outs, &b)
			}
			for k, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("client %d: %v\n%s", 2*k, err, outs[k])
				}
			}
			dir := t.TempDir()
			runArgs := append(append([]string{"run"}, fl...), "--duration", "1s", "--results-dir", dir, u)
			r := stampede(t, runArgs...)
			checkOneLineError(t, r, 2, "client 1 of 3's share of the fleet (tenants 3..4) is not loaded: run `stampede init bank --tenants 6 ")
			if !strings.Contains(r.stderr, "--clients 3 --client-index 1") {
				t.Errorf("the refusal does not give client 1's command: %s", r.stderr)
			}
			chk := stampede(t, append(append([]string{"check"}, fl...), u)...)
			checkOneLineError(t, chk, 2, "client 1 of 3's share of the fleet (tenants 3..4) is not loaded")
			// Another client's data flags: refused before it loads.
			bad := stampede(t, append(append([]string{"init"}, fl[:len(fl)-len(tc.mode)-2]...), append(append([]string{"--rows", "200"}, tc.mode...),
				"--clients", "3", "--client-index", "1", u)...)...)
			checkOneLineError(t, bad, 2, `the data flags "--rows=200" differs from what the first client of this split init of the fleet`)
			for k, b := range outs {
				if !strings.Contains(b.String(), " of 3 shares are in: run and check refuse the fleet until every share is in") {
					t.Errorf("client %d does not say how many shares are in:\n%s", 2*k, b)
				}
			}
			if r := stampede(t, initArgs(1)...); r.code != 0 {
				t.Fatalf("client 1: exit %d: %s%s", r.code, r.stdout, r.stderr)
			} else if !strings.Contains(r.stdout+r.stderr, "client 1 of 3's share, tenants 3..4: 2 created, 0 complete before, in ") ||
				!strings.Contains(r.stdout+r.stderr, "; the load is complete: all 3 shares are in") {
				t.Errorf("the last client does not say its share and that the load is complete:\n%s%s", r.stdout, r.stderr)
			} else if !strings.Contains(r.stdout, "client 1 of 3's share: tenants 3..4 of the fleet's 6\ntenants:   2 (2 created now, 0 already there)\n") {
				// Its summary is its share's, the counts adding up.
				t.Errorf("the last client's summary is not its share's:\n%s", r.stdout)
			}
			// Every tenant as tenant 1, as one init's clones would be.
			sum := func(id int) string {
				db, table := fmt.Sprintf(tc.pattern, id), "bank"
				switch {
				case tc.name == "column":
					db, table = "splitfleet", fmt.Sprintf("bank WHERE tenant_id = %d", id)
				case tc.mode != nil:
					db, table = "splitfleet", fmt.Sprintf(tc.pattern, id)+".bank"
				}
				conn := connectTo(t, ctx, db)
				defer conn.Close(ctx)
				var s string
				var n int
				if err := conn.QueryRow(ctx, "SELECT count(*), md5(string_agg(id || ':' || balance, ',' ORDER BY id)) FROM "+table).Scan(&n, &s); err != nil || n != 100 {
					t.Fatalf("tenant %d: %d rows, %v", id, n, err)
				}
				return s
			}
			want := sum(1)
			for id := 2; id <= 6; id++ {
				if got := sum(id); got != want {
					t.Errorf("tenant %d's rows differ from tenant 1's (md5 %s, want %s)", id, got, want)
				}
			}
			if tc.roles {
				conn := connectTo(t, ctx, "postgres")
				var n int
				err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'sfs\\_%' AND shobj_description(oid, 'pg_authid') LIKE 'made by stampede tenant role of %'").Scan(&n)
				conn.Close(ctx)
				if err != nil || n != 6 {
					t.Errorf("%d marked tenant roles (%v), want 6", n, err)
				}
			}
			r = stampede(t, runArgs...)
			if r.code != 0 {
				t.Fatalf("run after every share: exit %d: %s", r.code, r.stderr)
			}
			cleanup()
			conn := connectTo(t, ctx, tc.regDB)
			var left bool
			err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", fleet.LoadTable).Scan(&left)
			conn.Close(ctx)
			if err != nil || left {
				t.Errorf("%s left after cleanup (%v)", fleet.LoadTable, err)
			}
		})
	}
}
