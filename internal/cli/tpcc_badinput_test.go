package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/workload"
)

// TestTPCCBadFlags checks TPC-C's flags on every verb, without a server.
func TestTPCCBadFlags(t *testing.T) {
	null := []string{"--driver", "null"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run warehouses 0", []string{"run", "tpcc", "--warehouses", "0"}, "--warehouses must be at least 1, not 0"},
		{"init warehouses 0", []string{"init", "tpcc", "--warehouses", "0"}, "--warehouses must be at least 1, not 0"},
		{"check warehouses 0", []string{"check", "tpcc", "--warehouses", "0"}, "--warehouses must be at least 1, not 0"},
		{"negative warehouses", []string{"run", "tpcc", "--warehouses", "-3"}, "--warehouses must be at least 1, not -3"},
		{"malformed warehouses", []string{"run", "tpcc", "--warehouses", "many"}, "--warehouses=many: give a whole number"},
		{"unknown transaction", []string{"run", "tpcc", "--mix", "newOrder=1,refund=1"}, `unknown transaction "refund"`},
		{"zero mix", []string{"run", "tpcc", "--mix", "newOrder=0"}, "add up to 0"},
		{"isolation", []string{"run", "tpcc", "--isolation", "read-uncommitted"}, "--isolation must be"},
		{"expensive-checks value", []string{"check", "tpcc", "--expensive-checks=maybe"}, `invalid value "maybe" for --expensive-checks: give true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkOneLineError(t, stampede(t, append(tc.args, null...)...), 2, tc.want)
		})
	}
}

// TestTPCCBadDatabase runs and checks TPC-C on databases that cannot
// serve: missing, not loaded, loaded with fewer warehouses or another
// schema version, and half loaded by an interrupted init. Each gives one
// clear error line; a --warehouses other than those loaded and an
// unfinished load are the command line's to change (exit 2), the rest
// exit 1.
func TestTPCCBadDatabase(t *testing.T) {
	srv := testServer(t)
	runArgs := func(db string, extra ...string) []string {
		return append([]string{"run", "tpcc", "--wait=false", "--duration", "1s", "--db", db, "--results-dir", t.TempDir()},
			append(extra, srv)...)
	}

	t.Run("no database", func(t *testing.T) {
		db := fmt.Sprintf("stampede_tpcc_none_%d", time.Now().UnixNano()%1e9)
		checkOneLineError(t, stampede(t, runArgs(db)...), 1, fmt.Sprintf(`database "%s" does not exist`, db))
	})

	t.Run("not loaded", func(t *testing.T) {
		db := freshDB(t, "stampede_tpcc_empty")
		adminExec(t, "CREATE DATABASE "+db)
		want := "table tpcc_meta does not exist in database " + db + ": run `stampede init tpcc --db " + db + " " + shellWord(srv) + "` first"
		checkOneLineError(t, stampede(t, runArgs(db)...), 1, want)
		checkOneLineError(t, stampede(t, "check", "tpcc", "--db", db, srv), 1, want)
	})

	db := freshDB(t, "stampede_tpcc_bad")
	if r := stampede(t, "init", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	t.Run("more warehouses than loaded", func(t *testing.T) {
		checkOneLineError(t, stampede(t, runArgs(db, "--warehouses", "3")...), 2,
			"holds 1 warehouse, not --warehouses 3: give --warehouses 1, or reload with `stampede init tpcc --drop --warehouses 3 --db "+db+" "+shellWord(srv)+"`")
	})
	t.Run("check of more warehouses than loaded", func(t *testing.T) {
		// As run, check refuses a --warehouses that differs from the
		// load (exit 2), in either form, saying what to type.
		dbu := dbURL(t, db)
		for _, tc := range []struct {
			args []string
			hint string
		}{
			{[]string{"check", "tpcc", "--warehouses", "3", "--db", db, srv}, "stampede check tpcc --warehouses 1 --db " + db + " " + shellWord(srv)},
			{[]string{"workload", "check", "tpcc", "--warehouses", "3", "--db", db, dbu}, "stampede workload check tpcc --warehouses 1 --db " + db + " " + shellWord(dbu)},
		} {
			checkOneLineError(t, stampede(t, tc.args...), 2, "database "+db+" holds 1 warehouse, not --warehouses 3: run `"+tc.hint+
				"`, or leave --warehouses out to check the warehouses init loaded")
		}
	})
	t.Run("check with and without --expensive-checks", func(t *testing.T) {
		// The flag is check's own: no warning that check ignores it, and
		// the costly conditions run with it only.
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"check", "tpcc", "--expensive-checks", "--db", db, srv}, "3.3.2.6 O_OL_CNT = count(order_line) per order: PASS"},
			{[]string{"check", "tpcc", "--db", db, srv}, "3.3.2.6 O_OL_CNT = count(order_line) per order: SKIP (costly: --expensive-checks runs it)"},
		} {
			r := stampede(t, tc.args...)
			if r.code != 0 || !strings.Contains(r.stdout, tc.want) || r.stderr != "" {
				t.Errorf("%v: exit %d, stdout lacks %q or stderr not empty:\n%s\n%s", tc.args, r.code, tc.want, r.stdout, r.stderr)
			}
		}
	})
	t.Run("other schema version", func(t *testing.T) {
		execIn(t, db, "UPDATE tpcc_meta SET version = '0.9.0'")
		defer execIn(t, db, "UPDATE tpcc_meta SET version = '"+tpccVersion(t)+"'")
		want := "holds tpcc data of version 0.9.0, not " + tpccVersion(t) + ": reload it with `stampede init tpcc --drop --db " + db + " " + shellWord(srv) + "`"
		checkOneLineError(t, stampede(t, runArgs(db)...), 1, want)
		checkOneLineError(t, stampede(t, "check", "tpcc", "--db", db, srv), 1, want)
	})
	t.Run("init over a loaded database", func(t *testing.T) {
		checkOneLineError(t, stampede(t, "init", "tpcc", "--db", db, srv), 2, "already exists")
	})
	t.Run("unfinished init", func(t *testing.T) {
		// What an init stopped before its end leaves: tpcc_meta's row is
		// written last.
		// A second warehouse row: the interrupted init loaded 2.
		execIn(t, db, "CREATE TABLE tpcc_meta_saved AS SELECT * FROM tpcc_meta", "DELETE FROM tpcc_meta", "DELETE FROM stock",
			"CREATE TABLE warehouse_2 AS SELECT * FROM warehouse", "UPDATE warehouse_2 SET w_id = 2",
			"INSERT INTO warehouse SELECT * FROM warehouse_2", "DROP TABLE warehouse_2")
		defer execIn(t, db, "INSERT INTO tpcc_meta SELECT * FROM tpcc_meta_saved", "DROP TABLE tpcc_meta_saved", "DELETE FROM warehouse WHERE w_id = 2")
		// Without --warehouses the command starts over with the
		// warehouses table warehouse holds; with it, with the user's.
		counted := "run `stampede init tpcc --drop --warehouses 2 --db " + db + " " + shellWord(srv) +
			"` to start over (table warehouse holds 2 warehouses: give the interrupted init's --warehouses if it was more)"
		given := "run `stampede init tpcc --drop --db " + db + " --warehouses 5 " + shellWord(srv) + "` to start over"
		for _, tc := range []struct {
			args []string
			want string
		}{
			{runArgs(db), counted},
			{[]string{"check", "tpcc", "--db", db, srv}, counted},
			{runArgs(db, "--warehouses", "5"), given},
			{[]string{"check", "tpcc", "--db", db, "--warehouses", "5", srv}, given},
		} {
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, 2, "holds an unfinished tpcc load")
			for _, want := range []string{"empty: stock", tc.want} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, want)
				}
			}
		}
	})
	t.Run("interrupted init", func(t *testing.T) {
		// Interrupt the load while the server is running one of its
		// COPYs, as Ctrl-C would: never before the load starts or after
		// it ends, however fast the machine.
		other := freshDB(t, "stampede_tpcc_intr")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		copying := make(chan struct{})
		go func() {
			defer close(copying)
			conn, err := pgx.Connect(ctx, srv)
			if err != nil {
				return
			}
			defer conn.Close(context.Background())
			for ctx.Err() == nil {
				var n int
				if conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query ILIKE 'copy %' AND state = 'active'", other).Scan(&n) == nil && n > 0 {
					cancel()
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
		r := stampedeCtx(t, ctx, "init", "tpcc", "--db", other, srv)
		cancel()
		<-copying
		start := "run `stampede init tpcc --drop --db " + other + " " + shellWord(srv) + "` to start over"
		if r.code == 0 {
			t.Fatalf("init finished although it was interrupted during a COPY:\n%s", r.stderr)
		}
		checkFinalError(t, r, 1, "init interrupted: the tables are partially loaded; "+start)
		r = stampede(t, runArgs(other, "--warehouses", "1")...)
		checkOneLineError(t, r, 2, "holds an unfinished tpcc load")
		if start := "run `stampede init tpcc --drop --db " + other + " --warehouses 1 " + shellWord(srv) + "` to start over"; !strings.Contains(r.stderr, start) {
			t.Errorf("stderr %q lacks %q", r.stderr, start)
		}
		if r := stampede(t, "init", "tpcc", "--drop", "--db", other, srv); r.code != 0 {
			t.Fatalf("init --drop after the interrupt: %d %s", r.code, r.stderr)
		}
		if r := stampede(t, "check", "tpcc", "--db", other, srv); r.code != 0 || !strings.Contains(r.stdout, "3.3.2.11") {
			t.Errorf("check after init --drop: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
}

// tpccVersion returns the schema version a fresh load records.
func tpccVersion(t *testing.T) string {
	t.Helper()
	m, ok := workload.Get("tpcc")
	if !ok {
		t.Fatal("tpcc is not registered")
	}
	return m.Version
}
