package cli_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestTenantRolesCLI drives init --tenant-roles, run and cleanup on a
// server of its own that checks every role's password but the
// superuser's: a user's role of a tenant's name is refused in one line
// before anything is created and left alone by cleanup; a run as tenant
// roles completes and no password appears in its output or its run
// directory; cleanup drops the roles it made.
func TestTenantRolesCLI(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"without tenants", []string{"init", "bank", "--tenant-roles", "postgresql://u@127.0.0.1:1/db"}, "--tenant-roles needs --tenants N (N >= 1)"},
		{"column mode", []string{"init", "bank", "--tenants", "2", "--tenant-mode", "column", "--tenant-roles", "postgresql://u@127.0.0.1:1/db"},
			"--tenant-roles with --tenant-mode column: every tenant's rows share one set of tables"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkOneLineError(t, stampede(t, tc.args...), 2, tc.want) })
	}

	srv := ownServers(t, 1)[0]
	if err := srv.PrependHBA("host all postgres 127.0.0.1/32 trust", "host all all 127.0.0.1/32 scram-sha-256"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	count := func(q string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	exec("SELECT pg_reload_conf()")
	exec("CREATE ROLE tr_2 LOGIN")
	u := srv.URL("")
	fleetArgs := []string{"--tenants", "3", "--tenant-pattern", "tr_%d"}
	cmd := func(verb string, extra ...string) result {
		return stampede(t, append(append(append([]string{verb, "bank"}, fleetArgs...), extra...), u)...)
	}

	r := cmd("init", "--rows", "100", "--tenant-roles")
	checkOneLineError(t, r, 2, "role tr_2 on 127.0.0.1:")
	if !strings.Contains(r.stderr, "was not made by stampede") {
		t.Errorf("refusal does not say why: %s", r.stderr)
	}
	if n := count("SELECT count(*) FROM pg_database WHERE datname LIKE 'tr\\_%'"); n != 0 {
		t.Errorf("%d tenant databases made before the refusal", n)
	}
	if r := cmd("init", "--rows", "100"); r.code != 0 {
		t.Fatalf("init without roles: exit %d: %s", r.code, r.stderr)
	}
	r = cmd("cleanup")
	if r.code != 0 || !strings.Contains(r.stdout, "left role tr_2 of the tenants' names alone: not made by stampede for this fleet") {
		t.Fatalf("cleanup beside a user's role: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if n := count("SELECT count(*) FROM pg_roles WHERE rolname = 'tr_2'"); n != 1 {
		t.Fatal("cleanup dropped the user's role tr_2")
	}

	exec("DROP ROLE tr_2")
	r = cmd("init", "--rows", "100", "--tenant-roles")
	if r.code != 0 || !strings.Contains(r.stdout, "roles:     3 login roles (3 created now, 0 renewed) in ") {
		t.Fatalf("init --tenant-roles: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	dir := t.TempDir()
	run := cmd("run", "--rows", "100", "--duration", "2s", "--results-dir", dir)
	if run.code != 0 || !strings.Contains(run.stderr, "each tenant's connections log in as its own role") || !strings.Contains(run.stdout+run.stderr, "as tenant roles") {
		t.Fatalf("run as tenant roles: exit %d: %s%s", run.code, run.stdout, run.stderr)
	}
	logins, err := fleet.Logins(ctx, fleet.Target{Spec: fleet.Spec{Tenants: 3, Mode: fleet.ModeDatabase, Pattern: "tr_%d"}, Base: sqlx.Options{URLs: []string{u}}})
	if err != nil || logins == nil {
		t.Fatalf("Logins: %v", err)
	}
	var passwords []string
	for id := 1; id <= 3; id++ {
		passwords = append(passwords, logins(id).Password)
	}
	outputs := map[string]string{"init's output": r.stdout + r.stderr, "run's output": run.stdout + run.stderr}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		outputs[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outputs) < 4 {
		t.Fatalf("the run directory holds %d files", len(outputs)-2)
	}
	for what, text := range outputs {
		for _, p := range passwords {
			if strings.Contains(text, p) {
				t.Errorf("%s holds a tenant role's password", what)
			}
		}
	}

	r = cmd("cleanup")
	if r.code != 0 || !strings.Contains(r.stdout, "dropped 3 tenant login roles\n") {
		t.Fatalf("cleanup: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if n := count("SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tr\\_%'"); n != 0 {
		t.Errorf("%d tenant roles left after cleanup", n)
	}
}
