//go:build unix

package localpg

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestLocalPGRestart(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	srv, err := Start(ctx, Options{Dir: parentDir(t), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	port, dir := srv.Port(), srv.Dir()

	conn, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE TABLE survivor (k INT PRIMARY KEY, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO survivor VALUES (1, 'one'), (2, 'two')"); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name      string
		immediate bool
		row       int
	}{
		{"immediate", true, 3},
		{"fast", false, 4},
	} {
		oldPID := srv.pm.cmd.Process.Pid
		logStart := fileSize(srv.logPath())
		if err := srv.Restart(ctx, tc.immediate); err != nil {
			t.Fatalf("Restart(%s): %v", tc.name, err)
		}
		if err := syscall.Kill(oldPID, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s: old postmaster pid %d still exists after Restart (kill -0: %v)", tc.name, oldPID, err)
		}
		if srv.Port() != port || srv.Dir() != dir {
			t.Errorf("%s: after Restart, port %d dir %s; want %d %s", tc.name, srv.Port(), srv.Dir(), port, dir)
		}
		// An immediate shutdown is a crash: the server recovers from WAL.
		log := readFrom(srv.logPath(), logStart)
		if recovered := containsAny(log, "automatic recovery in progress", "not properly shut down"); recovered != tc.immediate {
			t.Errorf("%s: crash recovery in the server log = %v, want %v; log:\n%s", tc.name, recovered, tc.immediate, tail(log, 20))
		}
		// The old connection is gone.
		if err := conn.Ping(ctx); err == nil {
			t.Errorf("%s: connection made before Restart still works", tc.name)
		}
		conn.Close(context.Background())
		if conn, err = pgx.Connect(ctx, srv.URL("postgres")); err != nil {
			t.Fatalf("%s: connecting after Restart: %v", tc.name, err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO survivor VALUES ($1, $2)", tc.row, tc.name); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM survivor").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != tc.row {
			t.Errorf("%s: %d rows survived Restart, want %d", tc.name, n, tc.row)
		}
	}
	if got := queryString(t, conn, "SELECT v FROM survivor WHERE k = 1"); got != "one" {
		t.Errorf("row 1 = %q after restarts, want one", got)
	}

	pid := srv.pm.cmd.Process.Pid
	if err := srv.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s still exists after Stop (%v)", dir, err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("postmaster pid %d still exists after Stop (kill -0: %v)", pid, err)
	}
	if err := srv.Restart(ctx, true); err == nil {
		t.Error("Restart after Stop succeeded")
	}
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
