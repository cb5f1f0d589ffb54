package sqlx_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestScriptPreparedAsPgconn runs a script's prepared statements (the
// fast path of QueryScript with Protocol Prepared) through what pgconn's
// ExecStatement handled: rows and their columns, the rows a command
// counts, the transaction status after BEGIN, an error and COMMIT, a
// server error with its SQLSTATE, a statement whose columns only the
// server's Describe of the portal gives, a statement too large for the
// fast path, a cancelled context (the statement stops on the server too,
// and the next statement runs on a new connection), a context already
// done, and the server ending the session (FATAL) — on the poller's
// connections and on thread I/O's. Also rows then an error mid-result, a
// 3 MiB row, a notice and a ParameterStatus amid a reply.
func TestScriptPreparedAsPgconn(t *testing.T) {
	for _, threadIO := range []bool{false, true} {
		t.Run(fmt.Sprintf("threadIO=%v", threadIO), func(t *testing.T) {
			ctx, cancelRun := context.WithCancel(context.Background())
			defer cancelRun()
			db, conn := openWorkerDBIO(t, threadIO)
			q := conn.(sqlx.ScriptQuerier)
			admin := db.Conn(1, true)
			t.Cleanup(admin.Release)
			run := func(sql string, params ...string) ([]string, int64, error) {
				t.Helper()
				var got []string
				p := make([][]byte, len(params))
				for i, s := range params {
					p[i] = []byte(s)
				}
				n, err := q.QueryScript(ctx, sqlx.Prepared, sql, p, func(result int, fields []pgconn.FieldDescription, values [][]byte) {
					for i, f := range fields {
						got = append(got, fmt.Sprintf("%d:%s=%s", result, f.Name, values[i]))
					}
				})
				return got, n, err
			}
			must := func(sql string, params ...string) ([]string, int64) {
				t.Helper()
				got, n, err := run(sql, params...)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				return got, n
			}
			pid := func() string {
				got, _ := must("SELECT pg_backend_pid()::text AS pid")
				return strings.TrimPrefix(got[0], "0:pid=")
			}

			got, n := must("SELECT g AS a, g * $1::int AS b FROM generate_series(1, 3) g", "10")
			if want := "0:a=1 0:b=10 0:a=2 0:b=20 0:a=3 0:b=30"; strings.Join(got, " ") != want || n != 3 {
				t.Errorf("rows %q, count %d; want %q, 3", got, n, want)
			}
			must("CREATE TEMP TABLE t (k int PRIMARY KEY, v text)")
			if _, n := must("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 5) g"); n != 5 {
				t.Errorf("INSERT counted %d rows, want 5", n)
			}
			for _, step := range []struct {
				sql    string
				status byte
			}{
				{"BEGIN", 'T'},
				{"UPDATE t SET v = 'x' WHERE k <= 2", 'T'},
				{"SELECT 1 / 0", 'E'},
				{"ROLLBACK", 'I'},
				{"BEGIN", 'T'},
				{"COMMIT", 'I'},
			} {
				_, _, err := run(step.sql)
				if step.status == 'E' {
					var pe *pgconn.PgError
					if !errors.As(err, &pe) || pe.Code != "22012" {
						t.Errorf("%s: error %v, want SQLSTATE 22012", step.sql, err)
					}
				} else if err != nil {
					t.Fatalf("%s: %v", step.sql, err)
				}
				if st := q.TxStatus(); st != step.status {
					t.Errorf("after %s: TxStatus %q, want %q", step.sql, st, step.status)
				}
			}
			// A FETCH's columns are not known when it is prepared: the
			// server describes the portal.
			must("BEGIN")
			must("DECLARE c CURSOR FOR SELECT k, v FROM t ORDER BY k")
			if got, _ := must("FETCH 2 FROM c"); strings.Join(got, " ") != "0:k=1 0:v=v1 0:k=2 0:v=v2" {
				t.Errorf("FETCH: %q", got)
			}
			must("COMMIT")
			// Rows, then an error: the rows before it are handed out, as
			// pgconn's ResultReader hands them out, the error is the
			// server's, and the connection stays.
			got, _, err := run("SELECT (10 / (3 - g))::text AS q FROM generate_series(1, 5) g")
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "22012" || strings.Join(got, " ") != "0:q=5 0:q=10" {
				t.Errorf("error mid-result: rows %q, error %v; want 0:q=5 0:q=10 and SQLSTATE 22012", got, err)
			}
			// A row of 3 MiB, beyond any buffer, then a small one.
			if got, _ := must("SELECT length(repeat('x', $1::int) || g)::text AS n FROM generate_series(1, 2) g", "1000"); strings.Join(got, " ") != "0:n=1001 0:n=1001" {
				t.Errorf("small rows: %q", got)
			}
			rows := 0
			n, err = q.QueryScript(ctx, sqlx.Prepared, "SELECT repeat('x', 3 << 20) AS b, 'y' AS c UNION ALL SELECT 'z', 'w'", nil,
				func(_ int, _ []pgconn.FieldDescription, v [][]byte) {
					if rows++; rows == 1 && (len(v[0]) != 3<<20 || strings.Trim(string(v[0]), "x") != "" || string(v[1]) != "y") ||
						rows == 2 && (string(v[0]) != "z" || string(v[1]) != "w") {
						t.Errorf("row %d of the 3 MiB result: %d bytes and %q", rows, len(v[0]), v[1])
					}
				})
			if err != nil || n != 2 || rows != 2 {
				t.Errorf("3 MiB row: %d rows counted, %d seen, %v", n, rows, err)
			}
			// A notice and a ParameterStatus amid a statement's messages
			// are passed over; the next statement reads its own reply.
			must("CREATE FUNCTION pg_temp.noisy(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'n is %', n; RETURN n * 2; END $$")
			if got, _ := must("SELECT pg_temp.noisy($1::int)::text AS d", "21"); strings.Join(got, " ") != "0:d=42" {
				t.Errorf("statement with a notice: %q", got)
			}
			must("SET application_name = 'fastpath'")
			if got, _ := must("SELECT current_setting('application_name') AS a"); strings.Join(got, " ") != "0:a=fastpath" {
				t.Errorf("after SET application_name: %q", got)
			}
			// Beyond the fast path's write: pgconn's ExecStatement.
			big := strings.Repeat("y", 64<<10)
			if got, _ := must("SELECT length($1::text)::text AS n", big); strings.Join(got, " ") != "0:n=65536" {
				t.Errorf("64 KiB parameter: %q", got)
			}

			// A cancelled statement: context.Canceled at once, the server
			// cancels it, and the next statement gets a new connection.
			before := pid()
			ctx2, cancel := context.WithCancel(ctx)
			ctx = ctx2
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			_, _, err = run("SELECT pg_sleep(30)")
			if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
				t.Errorf("cancelled pg_sleep(30): %v after %v, want context.Canceled within 5s", err, time.Since(start))
			}
			if _, _, err := run("SELECT 1"); err == nil || !errors.Is(err, context.Canceled) {
				t.Errorf("statement on a cancelled context: %v, want context.Canceled", err)
			}
			ctx = context.WithoutCancel(ctx)
			if after := pid(); after == before {
				t.Errorf("the connection of the cancelled statement (backend %s) was kept", before)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				var left []string
				if _, err := admin.(sqlx.ScriptQuerier).QueryScript(ctx, sqlx.Simple,
					"SELECT pid FROM pg_stat_activity WHERE pid = "+before, nil, func(_ int, _ []pgconn.FieldDescription, v [][]byte) {
						left = append(left, string(v[0]))
					}); err != nil {
					t.Fatal(err)
				}
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("backend %s still there 10s after its statement was cancelled", before)
				}
				time.Sleep(50 * time.Millisecond)
			}

			// The server ends the session: the statement fails with the
			// server's error, and the next one runs on a new connection.
			victim := pid()
			if _, err := admin.(sqlx.ScriptQuerier).QueryScript(ctx, sqlx.Simple, "SELECT pg_terminate_backend("+victim+")", nil, nil); err != nil {
				t.Fatal(err)
			}
			if _, _, err := run("SELECT 1"); err == nil || !sqlx.IsConnectionError(err) {
				t.Errorf("statement on a terminated session: %v, want a connection error", err)
			}
			if st := q.TxStatus(); st != 0 {
				t.Errorf("TxStatus after the session ended: %q, want 0 (no connection)", st)
			}
			if again := pid(); again == victim {
				t.Errorf("statement after the session ended ran on backend %s, the terminated one", again)
			}

			// Statements under a context that cannot end (ctx, as the
			// engine's workers' own) watch nothing; a cancellable one
			// after them is watched again.
			ctx3, cancel3 := context.WithCancel(context.Background())
			defer cancel3()
			ctx = ctx3
			time.AfterFunc(200*time.Millisecond, cancel3)
			start = time.Now()
			if _, _, err := run("SELECT pg_sleep(30)"); !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
				t.Errorf("pg_sleep(30) cancelled after statements under a context that cannot end: %v after %v, want context.Canceled within 5s", err, time.Since(start))
			}
		})
	}
}

// TestScriptPreparedNoAllocs checks that a script's prepared statement
// allocates nothing per run under a context that can be cancelled (a
// run's workers have one): pgconn's ExecStatement made 5 allocations
// (280 bytes) for a pgbench select-only statement, 4 of them registering
// the context with context.AfterFunc. A notice function, which a run
// of scripts sets, costs nothing while no notice comes.
func TestScriptPreparedNoAllocs(t *testing.T) {
	db, conn := openWorkerDB(t)
	db.OnNotice(func(int, *pgconn.Notice) { t.Error("a notice from a SELECT") })
	q := conn.(sqlx.ScriptQuerier)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := [][]byte{[]byte("7")}
	rows := 0
	row := func(int, []pgconn.FieldDescription, [][]byte) { rows++ }
	const sql = "SELECT $1::int + 1 AS x"
	if _, err := q.QueryScript(ctx, sqlx.Prepared, sql, params, row); err != nil { // prepares it
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := q.QueryScript(ctx, sqlx.Prepared, sql, params, row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || rows != 202 {
		t.Errorf("%.1f allocations per statement, %d rows for 202 statements; want 0 and 202", allocs, rows)
	}
}
