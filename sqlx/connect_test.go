package sqlx_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// startHoldingServer forwards TCP connections to upstream, except those
// whose number (from 0, in order of arrival) hold or drop selects: it
// accepts those and never answers (hold), as a server too busy to start
// their backends, or closes them at once (drop), as a server that is
// going away.
func startHoldingServer(t *testing.T, upstream string, hold, drop func(i int) bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			if hold(i) {
				continue
			}
			if drop(i) {
				c.Close()
				continue
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			open = append(open, up)
			mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// TestConnect checks that DB.Connect opens every worker's connection, and
// then the server holds them: an attempt that times out behind a busy
// server is tried again, not a failure; connections lost on every attempt
// stop it with a warning (the workers make the rest, as without it); and
// a server that refuses a connection is an error that says so and how
// many were open.
func TestConnect(t *testing.T) {
	base := testDatabaseURL(t)
	ctx := context.Background()
	admin, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{base.String()}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, tc := range []struct {
		name     string
		hold     func(i int) bool // connections the server never answers
		drop     func(i int) bool // connections closed at once
		limit    int              // the role's CONNECTION LIMIT; 0: connect as the URL's user
		workers  int
		conns    int // Options.MaxConns; 0: one per worker
		busy     int // workers whose connection is taken before Connect
		parallel int
		want     int    // the workers' connections open (the server's count)
		wantErr  string // "" for none
		wantWarn string // "" for none
	}{
		// Open's connection (0) is answered, the next three never: the
		// three openers' first attempts time out after 1 s, and are
		// made again.
		{name: "timeouts are tried again", hold: func(i int) bool { return i >= 1 && i <= 3 }, workers: 6, parallel: 3, want: 6},
		{name: "every connection answered", workers: 5, parallel: 2, want: 5},
		// Workers that share 2 connections: the pool's 2.
		{name: "shared connections", workers: 6, conns: 2, parallel: 4, want: 2},
		// Worker 0 took its connection while the workload set up: the
		// pool has room for the other two (past its size Connect would
		// wait for ever), and the workers have three, as the server
		// counts them.
		{name: "a connection taken already", workers: 3, busy: 1, parallel: 3, want: 3},
		// Open's connection and two more, then every one is closed
		// at once: three attempts at the next, and Connect stops.
		{name: "lost connections leave the rest to the workers", drop: func(i int) bool { return i >= 3 }, workers: 5, parallel: 1, want: 3,
			wantWarn: "3 of the workers' 5 connections opened before the run; the others connect at their first operation: 3 attempts at one failed"},
		// Open's connection and one more, then the server refuses.
		{name: "a refusal is an error", limit: 2, workers: 5, parallel: 1, want: 2,
			wantErr: "opening the workers' connections (2 of 5 open): cannot connect to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := *base
			never := func(int) bool { return false }
			if tc.hold == nil {
				tc.hold = never
			}
			if tc.drop == nil {
				tc.drop = never
			}
			u.Host = startHoldingServer(t, base.Host, tc.hold, tc.drop)
			q := u.Query()
			q.Set("connect_timeout", "1")
			u.RawQuery = q.Encode()
			if tc.limit > 0 {
				role := fmt.Sprintf("stampede_connect_%d", rand.Uint32())
				if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN CONNECTION LIMIT %d", role, tc.limit)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if _, err := admin.Exec(ctx, "DROP ROLE "+role); err != nil {
						t.Errorf("dropping role %s: %v", role, err)
					}
				})
				u.User = url.User(role)
			}
			app := fmt.Sprintf("stampede_connect_%d", rand.Uint32())
			var warnings []string
			warn := func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }
			conns := tc.conns
			if conns == 0 {
				conns = tc.workers
			}
			db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{u.String()}, MaxConns: conns, Workers: tc.workers, AppName: app, Warn: warn})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for w := range tc.busy {
				c := db.Conn(w, true)
				defer c.Release()
				if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
					t.Fatal(err)
				}
			}
			began := time.Now()
			cctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a Connect that waits for ever fails
			defer cancel()
			n, err := db.Connect(cctx, tc.parallel)
			took := time.Since(began)
			t.Logf("opened %d in %s; error: %v; warnings: %q", n, took.Round(time.Millisecond), err, warnings)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("Connect: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "53300")):
				t.Fatalf("Connect: %v, want an error with %q and the server's SQLSTATE 53300", err, tc.wantErr)
			}
			if got := strings.Join(warnings, "\n"); (tc.wantWarn == "") != (got == "") || !strings.Contains(got, tc.wantWarn) {
				t.Errorf("warnings %q, want %q", got, tc.wantWarn)
			}
			if n != tc.want {
				t.Errorf("Connect said %d connections open, want %d (in %s)", n, tc.want, took)
			}
			var held int
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&held); err != nil {
				t.Fatal(err)
			}
			if held != tc.want {
				t.Errorf("the server holds %d of the connections, Connect said %d", held, tc.want)
			}
		})
	}
}
