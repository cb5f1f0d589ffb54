package cli_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/sqlx"
)

// userTables creates, in database db, a user's own tables of the given
// names, each holding one row, and returns a check that every row is
// still there.
func userTables(t *testing.T, db string, names ...string) func() {
	t.Helper()
	for _, n := range names {
		execIn(t, db, fmt.Sprintf("CREATE TABLE %s (mine INT PRIMARY KEY)", n), fmt.Sprintf("INSERT INTO %s VALUES (42)", n))
	}
	return func() {
		t.Helper()
		for _, n := range names {
			if got := queryInt(t, db, "SELECT count(*) FROM "+n+" WHERE mine = 42"); got != 1 {
				t.Errorf("the user's table %s lost its row (%d left)", n, got)
			}
		}
	}
}

// sysbenchConn is the sysbench form's connection options for database db.
func sysbenchConn(t *testing.T, db string) []string {
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--db-driver=pgsql", "--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(), "--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db}
}

// userObjects creates, in database db, a user's own objects of other
// kinds than tables (each statement of sqls), and returns a check that
// query still returns 1: they are all there.
func userObjects(t *testing.T, db, query string, sqls ...string) func() {
	t.Helper()
	execIn(t, db, sqls...)
	return func() {
		t.Helper()
		if got := queryInt(t, db, query); got != 1 {
			t.Errorf("the user's objects are gone (%s: %d)", query, got)
		}
	}
}

// forcePattern finds the one flag a refusal names to force it.
var forcePattern = regexp.MustCompile(`to drop (?:it|them|its marker) anyway, add (--[a-z-]+)(?: to -i)?$`)

// TestNeverDropsWhatItDidNotMake runs every form of cleanup and --drop
// against a database holding a user's own objects of the workload's names
// (tables with rows; for the cockroach form, which drops a database,
// objects of every kind), and shows that each refuses in one line, exit 2,
// naming what it found and one flag that forces it, and that every row
// survives; then that the flag it names, added alone to the same command,
// does force it (exit 0).
func TestNeverDropsWhatItDidNotMake(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(testServer(t))
	sqlFile := writeFile(t, "CREATE TABLE branches (id INT);\nCREATE TABLE accounts (id INT PRIMARY KEY, balance INT);\nINSERT INTO accounts SELECT g, 0 FROM generate_series(1, 10) g;\n")
	pgbenchTables := []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"}
	ycsbFleet := func(db string) func() {
		survived := userTables(t, db, "bank")
		if r := stampede(t, "init", "ycsb", "--record-count", "20", "--tenant-mode", "column", "--tenants", "2", dbURL(t, db)); r.code != 0 {
			t.Fatalf("init of a ycsb column fleet: exit %d\n%s", r.code, r.stderr)
		}
		return survived
	}
	// objects makes a user's objects of every kind but tables in db.
	objects := func(kind string, sqls ...string) func(db string) func() {
		return func(db string) func() {
			return userObjects(t, db, "SELECT count(*) FROM "+kind, sqls...)
		}
	}
	seqFile := writeFile(t, "CREATE TABLE branches (id INT);\nCREATE SEQUENCE myseq;\n")
	// untouchedByFile adds to setup's check that the init file's first
	// table (first) was not created: no statement of the file ran.
	untouchedByFile := func(first string, setup func(db string) func()) func(db string) func() {
		return func(db string) func() {
			survived := setup(db)
			return func() {
				t.Helper()
				survived()
				if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = '"+first+"'"); n != 0 {
					t.Errorf("the refused init file had run: %s exists", first)
				}
			}
		}
	}
	cockroachDrop := func(db string, f ...string) []string {
		return append([]string{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db, dbURL(t, db)}, f...)
	}
	// partitioned makes a user's partitioned table name, with a
	// partition and a row.
	partitioned := func(name string) func(db string) func() {
		return func(db string) func() {
			return userObjects(t, db, "SELECT count(*) FROM "+name+" WHERE mine = 42",
				"CREATE TABLE "+name+" (mine INT) PARTITION BY RANGE (mine)",
				"CREATE TABLE "+name+"_0 PARTITION OF "+name+" FOR VALUES FROM (0) TO (1000)",
				"INSERT INTO "+name+" VALUES (42)")
		}
	}
	tests := []struct {
		name   string
		tables []string               // a user's tables, one row each
		setup  func(db string) func() // or this, returning the survival check
		args   func(db string, force ...string) []string
		want   string
	}{
		{"cleanup ycsb", []string{"usertable"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "ycsb"}, f...), dbURL(t, db))
		},
			"table usertable in database"},
		{"cleanup tpcc", []string{"customer", "item"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "tpcc"}, f...), dbURL(t, db))
		},
			"tables item, customer in database"},
		{"cleanup bank", []string{"bank"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "bank"}, f...), dbURL(t, db))
		},
			"table bank in database"},
		{"init ycsb --drop", []string{"usertable"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "ycsb", "--drop", "-p", "recordcount=10"}, f...), dbURL(t, db))
		}, "--drop leaves it alone"},
		{"init bank --drop", []string{"bank"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--drop", "--rows", "10"}, f...), dbURL(t, db))
		}, "--drop leaves it alone"},
		{"init tpcc --drop", []string{"warehouse"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "tpcc", "--drop", "--warehouses", "1"}, f...), dbURL(t, db))
		}, "table warehouse in database"},
		{"init without --drop", []string{"bank"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--rows", "10"}, f...), dbURL(t, db))
		}, "stampede did not make it: load into another database (--db NAME), or to drop it anyway, add --force-drop"},
		{"init pgbench (step d)", pgbenchTables, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "pgbench", "--scale", "1"}, f...), dbURL(t, db))
		}, "init's step d (drop) leaves them alone; to drop them anyway, add --force-drop"},
		{"init pgbench, steps without d", pgbenchTables, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "pgbench", "--scale", "1", "--init-steps", "tg"}, f...), dbURL(t, db))
		}, "stampede did not make them: load into another database (--db NAME), or to drop it anyway, add --force-drop"},
		{"pgbench form -i, a user's tables of pgbench's names", pgbenchTables, nil, func(db string, f ...string) []string {
			return append(append([]string{"pgbench", "-i", "-s", "1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username()}, f...), db)
		}, "-i would drop pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history in database"},
		{"init pgbench --as-pgbench", pgbenchTables, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "pgbench", "--as-pgbench", "--scale", "1"}, f...), dbURL(t, db))
		}, "unlike pgbench, stampede's -i drops only the tables it made"},
		// The refusal comes before any statement of the file runs: it
		// had created branches, and a retry failed on it.
		{"sql init --drop", nil, untouchedByFile("branches", func(db string) func() { return userTables(t, db, "accounts") }), func(db string, f ...string) []string {
			return append(append([]string{"init", "sql", "--init-file", sqlFile, "--drop"}, f...), dbURL(t, db))
		}, "table accounts in database"},
		{"sql init, a sequence of the user's", nil, untouchedByFile("branches", func(db string) func() {
			return userObjects(t, db, "SELECT count(*) FROM pg_sequences WHERE sequencename = 'myseq' AND last_value = 77",
				"CREATE SEQUENCE myseq START 77", "SELECT nextval('myseq')")
		}), func(db string, f ...string) []string {
			return append(append([]string{"init", "sql", "--init-file", seqFile}, f...), dbURL(t, db))
		}, "sequence myseq in database"},
		{"sysbench cleanup", []string{"sbtest1"}, nil, func(db string, f ...string) []string {
			return append(append(append([]string{"oltp_read_write"}, sysbenchConn(t, db)...), f...), "cleanup")
		}, "table sbtest1 in database"},
		{"sysbench prepare with a table of its name", []string{"sbtest1"}, nil, func(db string, f ...string) []string {
			return append(append(append([]string{"oltp_read_only", "--table-size=10"}, sysbenchConn(t, db)...), f...), "prepare")
		}, "stampede did not make it: load into another database (--pgsql-db=NAME), or to drop it anyway, add --force-drop"},
		{"sysbench bulk_insert cleanup", []string{"sbtest1", "sbtest7"}, nil, func(db string, f ...string) []string {
			return append(append(append([]string{"bulk_insert", "--threads=7"}, sysbenchConn(t, db)...), f...), "cleanup")
		}, "tables sbtest1, sbtest7 in database"},
		{"sysbench bulk_insert prepare", []string{"sbtest1", "sbtest3"}, nil, func(db string, f ...string) []string {
			return append(append(append([]string{"/usr/share/sysbench/bulk_insert.lua", "--threads=3"}, sysbenchConn(t, db)...), f...), "prepare")
		}, "tables sbtest1, sbtest3 in database"},
		{"init bulk_insert --drop", []string{"sbtest2"}, nil, func(db string, f ...string) []string {
			return append(append([]string{"init", "bulk_insert", "--threads", "3", "--drop"}, f...), dbURL(t, db))
		}, "table sbtest2 in database"},
		{"hammerdbcli buildschema", []string{"warehouse"}, nil, func(db string, f ...string) []string {
			script := writeFile(t, "dbset db pg\ndiset connection pg_host "+u.Hostname()+"\ndiset connection pg_port "+u.Port()+
				"\ndiset connection pg_sslmode disable\ndiset tpcc pg_count_ware 1\ndiset tpcc pg_num_vu 1\ndiset tpcc pg_superuser "+u.User.Username()+
				"\ndiset tpcc pg_user "+u.User.Username()+"\ndiset tpcc pg_dbase "+db+"\nbuildschema\n")
			return append([]string{"hammerdbcli", "auto", script}, f...)
		}, "load into another database (diset tpcc pg_dbase NAME in the script), or to drop it anyway, add --force-drop"},
		{"init tpcc --profile hammerdb --drop, a user's tables and routine", nil, func(db string) func() {
			survived := userTables(t, db, "warehouse", "district")
			kept := userObjects(t, db, "SELECT count(*) FROM pg_proc WHERE proname = 'neword' AND obj_description(oid, 'pg_proc') IS NULL",
				"CREATE FUNCTION neword(integer, integer, integer, integer, integer, integer) RETURNS int LANGUAGE sql AS 'SELECT 1'")
			return func() { survived(); kept() }
		}, func(db string, f ...string) []string {
			return append(append([]string{"init", "tpcc", "--profile", "hammerdb", "--warehouses", "1", "--drop"}, f...), dbURL(t, db))
		}, "function neword(integer,integer,integer,integer,integer,integer) in database " + "@" + " was not made by stampede, or was replaced since, nor were its tables warehouse, district: init never replaces a routine it did not make"},
		{"ycsb form cleanup", []string{"usertable"}, nil, func(db string, f ...string) []string {
			return append([]string{"cleanup", "jdbc", "-p", "db.url=jdbc:postgresql://" + u.Host + "/" + db, "-p", "db.user=" + u.User.Username()}, f...)
		}, "table usertable in database"},
		{"column fleet cleanup beside another workload's fleet", nil, ycsbFleet, func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "bank", "--tenant-mode", "column", "--tenants", "2"}, f...), dbURL(t, db))
		}, "table bank in database"},
		{"column fleet init --drop beside another workload's fleet", nil, ycsbFleet, func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--rows", "10", "--tenant-mode", "column", "--tenants", "2", "--drop"}, f...), dbURL(t, db))
		}, "table bank in database"},
		{"column fleet init beside another workload's fleet", nil, ycsbFleet, func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--rows", "10", "--tenant-mode", "column", "--tenants", "2"}, f...), dbURL(t, db))
		}, "is the marker of a column-mode fleet of ycsb, not of bank: init leaves it alone"},
		{"cockroach form init --drop", []string{"orders_archive"}, nil, func(db string, f ...string) []string {
			return append([]string{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db, dbURL(t, db)}, f...)
		}, "holds 1 object that stampede did not make (table public.orders_archive): --drop leaves the database alone; to drop it anyway, add --force-drop"},
		{"cockroach form init --drop, the workload's own names", []string{"bank"}, nil, func(db string, f ...string) []string {
			return append([]string{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db, dbURL(t, db)}, f...)
		}, "holds 1 object that stampede did not make (table public.bank)"},
		// A sequence of the user's OWNED BY a column of stampede's
		// table: a dependency of the table's, as a serial's sequence
		// is, but the column's default does not draw from it (the
		// database was dropped with it, exit 0).
		{"cockroach form init --drop, a sequence owned by stampede's table", nil, func(db string) func() {
			if r := stampede(t, "workload", "init", "bank", "--rows", "10", "--db", db, dbURL(t, db)); r.code != 0 {
				t.Fatalf("workload init bank: exit %d\n%s", r.code, r.stderr)
			}
			return userObjects(t, db, "SELECT count(*) FROM pg_sequences WHERE sequencename = 'invoice_no' AND last_value = 5000",
				"CREATE SEQUENCE invoice_no START 5000", "SELECT nextval('invoice_no')", "ALTER SEQUENCE invoice_no OWNED BY bank.id")
		}, cockroachDrop, "holds 1 object that stampede did not make (sequence public.invoice_no): --drop leaves the database alone"},
		// A user's partitioned table named as the workload's: every
		// form refuses it.
		{"cleanup bank, a partitioned bank", nil, partitioned("bank"), func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "bank"}, f...), dbURL(t, db))
		}, "table bank in database"},
		{"init bank --drop, a partitioned bank", nil, partitioned("bank"), func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--drop", "--rows", "10"}, f...), dbURL(t, db))
		}, "(table public.bank_0 (a partition of public.bank)): --drop drops nothing; to drop them anyway, add --force-drop"},
		{"cockroach form init --drop, a partitioned bank", nil, partitioned("bank"), cockroachDrop,
			"holds 2 objects that stampede did not make (partition public.bank_0, partitioned table public.bank): --drop leaves the database alone"},
	}
	cockroach := func(db string, f ...string) []string {
		return append([]string{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db, dbURL(t, db)}, f...)
	}
	for _, o := range []struct {
		name, kind, want string
		sqls             []string
	}{
		{"sequence", "pg_sequences WHERE sequencename = 'invoice_no' AND last_value = 5000", "(sequence public.invoice_no)",
			[]string{"CREATE SEQUENCE invoice_no START 5000", "SELECT nextval('invoice_no')"}},
		{"function", "pg_proc WHERE proname = 'billing'", "(function public.billing)",
			[]string{"CREATE FUNCTION billing() RETURNS int LANGUAGE sql AS 'SELECT 1'"}},
		{"procedure", "pg_proc WHERE proname = 'close_month'", "(procedure public.close_month)",
			[]string{"CREATE PROCEDURE close_month() LANGUAGE sql AS 'SELECT 1'"}},
		{"enum type", "pg_type WHERE typname = 'mood'", "(type public.mood)", []string{"CREATE TYPE mood AS ENUM ('ok', 'sad')"}},
		{"domain", "pg_type WHERE typname = 'posint'", "(domain public.posint)", []string{"CREATE DOMAIN posint AS int CHECK (VALUE > 0)"}},
		{"view", "pg_views WHERE viewname = 'v'", "(view public.v)", []string{"CREATE VIEW v AS SELECT 1 AS x"}},
		{"materialized view", "pg_matviews WHERE matviewname = 'mv'", "(materialized view public.mv)", []string{"CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x"}},
		{"large object", "pg_largeobject_metadata", "(1 large object)", []string{"SELECT lo_from_bytea(0, 'hello')"}},
		{"schema with contents", "pg_tables WHERE schemaname = 'app'", "(schema app, table app.t)", []string{"CREATE SCHEMA app", "CREATE TABLE app.t (x int)", "INSERT INTO app.t VALUES (1)"}},
		{"extension", "pg_extension WHERE extname = 'pgcrypto'", "(extension pgcrypto)", []string{"CREATE EXTENSION pgcrypto"}},
		// Kinds the census missed (the database dropped, exit 0).
		{"foreign-data wrapper, server and user mapping", "pg_foreign_server WHERE srvname = 'mysrv'",
			"(foreign-data wrapper myfdw, server mysrv, user mapping public on server mysrv)",
			[]string{"CREATE FOREIGN DATA WRAPPER myfdw", "CREATE SERVER mysrv FOREIGN DATA WRAPPER myfdw", "CREATE USER MAPPING FOR PUBLIC SERVER mysrv OPTIONS (password 'x')"}},
		{"text search configuration", "pg_ts_config WHERE cfgname = 'mycfg'", "(text search configuration public.mycfg)",
			[]string{"CREATE TEXT SEARCH CONFIGURATION mycfg (COPY = english)"}},
		{"text search dictionary", "pg_ts_dict WHERE dictname = 'mydict'", "(text search dictionary public.mydict)",
			[]string{"CREATE TEXT SEARCH DICTIONARY mydict (TEMPLATE = simple)"}},
		{"access method", "pg_am WHERE amname = 'myam'", "(access method myam)",
			[]string{"CREATE ACCESS METHOD myam TYPE TABLE HANDLER heap_tableam_handler"}},
		{"operator family", "pg_opfamily WHERE opfname = 'myopf'", "(operator family public.myopf)",
			[]string{"CREATE OPERATOR FAMILY myopf USING btree"}},
		// A partitioned table depends on itself in pg_depend (its key
		// column): it was taken for a part of another object, and the
		// database dropped with it, exit 0.
		{"partitioned table", "invoices WHERE id = 42", "(partition public.invoices_2026, partitioned table public.invoices)",
			[]string{"CREATE TABLE invoices (id int, amount int) PARTITION BY RANGE (id)",
				"CREATE TABLE invoices_2026 PARTITION OF invoices FOR VALUES FROM (0) TO (1000000)", "INSERT INTO invoices VALUES (42, 1)"}},
	} {
		tests = append(tests, struct {
			name   string
			tables []string
			setup  func(db string) func()
			args   func(db string, force ...string) []string
			want   string
		}{"cockroach form init --drop, a " + o.name, nil, objects(o.kind, o.sqls...), cockroach,
			"that stampede did not make " + o.want + ": --drop leaves the database alone; to drop it anyway, add --force-drop"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "foreign")
			adminExec(t, "CREATE DATABASE "+db)
			if strings.HasPrefix(tc.name, "cockroach form") {
				// A database stampede created (its mark), which the user
				// then filled: the census decides. (A user's own
				// database is never dropped: TestOtherLoadsStayTheirs.)
				adminExec(t, "COMMENT ON DATABASE "+db+" IS '"+sqlx.CreatedDatabaseMark+"'")
			}
			survived := userTables(t, db, tc.tables...)
			if tc.setup != nil {
				survived = tc.setup(db)
			}
			r := stampede(t, tc.args(db)...)
			checkFinalError(t, r, 2, strings.ReplaceAll(tc.want, "@", db))
			survived()
			m := forcePattern.FindStringSubmatch(strings.TrimSpace(r.stderr))
			if m == nil {
				t.Fatalf("the refusal does not end with the one flag that forces it: %s", r.stderr)
			}
			// That flag alone, added to the same command, forces it.
			if r := stampede(t, tc.args(db, m[1])...); r.code != 0 {
				t.Errorf("with %s, as the refusal says: exit %d\n%s", m[1], r.code, r.stderr)
			}
		})
	}
}

// TestPgbenchFormKeepsForeignTables: pgbench's form (stampede pgbench
// -i) drops pgbench's four tables only where stampede made them (their
// mark), unlike pgbench: a user's own tables of those names (other
// columns), and tables of pgbench's columns made by the real pgbench -i
// that hold the user's changed rows, are refused in one line (exit 2)
// naming --force-drop, before anything is dropped, every row kept; -I
// without d meets the user's tables as pgbench does (its "already
// exists" error, exit 1), dropping nothing; --force-drop drops them.
func TestPgbenchFormKeepsForeignTables(t *testing.T) {
	srv, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	srvHost := srv.Host // each refusal names the server (fix28u 4)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	form := func(db string, args ...string) []string { return pgbenchInit(t, db, args...) }
	db := freshDB(t, "pgbforeign")
	adminExec(t, "CREATE DATABASE "+db)
	survived := userTables(t, db, "pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history")
	r := stampede(t, form(db, "-s", "1")...)
	checkFinalError(t, r, 2, "which stampede did not make (pgbench_branches (mine), pgbench_tellers (mine), pgbench_accounts (mine), pgbench_history (mine): columns that are not pgbench's): nothing was dropped; unlike pgbench, stampede's -i drops only the tables it made; to drop them anyway, add --force-drop")
	survived()
	r = stampede(t, form(db, "-I", "tg")...)
	if r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("-I tg over a user's tables: exit %d, want pgbench's error (exit 1)\n%s", r.code, r.stderr)
	}
	survived()
	// Tables of pgbench's columns that stampede did not make (the real
	// pgbench -i's, here stampede's own form's with the mark taken off),
	// holding the user's changed row: refused, the row kept.
	db2 := freshDB(t, "pgbform")
	adminExec(t, "CREATE DATABASE "+db2)
	if r := stampede(t, form(db2, "-s", "1")...); r.code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s", r.code, r.stderr)
	}
	for _, tb := range []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"} {
		execIn(t, db2, "COMMENT ON TABLE "+tb+" IS NULL", "COMMENT ON TYPE "+tb+" IS NULL")
	}
	execIn(t, db2, "UPDATE pgbench_accounts SET filler = 'USERDATA' WHERE aid = 1")
	r = stampede(t, form(db2, "-s", "1")...)
	checkFinalError(t, r, 2, "which stampede did not make (no mark of stampede's, made by the real pgbench -i or by you): nothing was dropped")
	if n := queryInt(t, db2, "SELECT count(*) FROM pgbench_accounts WHERE filler = 'USERDATA'"); n != 1 {
		t.Errorf("the user's changed row is gone after a refused -i")
	}
	// Steps g and G truncate the tables first: the same rule as step d
	// (they emptied tables stampede did not make, exit 0).
	for _, args := range [][]string{form(db2, "-I", "g", "-s", "1"), form(db2, "-I", "G", "-s", "1"),
		{"init", "pgbench", "--as-pgbench", "--init-steps", "g", "--scale", "1", dbURL(t, db2)}} {
		r = stampede(t, args...)
		checkFinalError(t, r, 2, "-i would empty pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history in database \""+db2+"\" on "+srvHost+",")
		if !strings.Contains(r.stderr, "nothing was emptied; unlike pgbench, stampede's -i empties only the tables it made; to empty them anyway, add --force-drop") {
			t.Errorf("%v: %s", args, r.stderr)
		}
		if n := queryInt(t, db2, "SELECT count(*) FROM pgbench_accounts WHERE filler = 'USERDATA'"); n != 1 {
			t.Fatalf("%v emptied the user's pgbench_accounts", args)
		}
	}
	r = stampede(t, form(db, "-I", "g", "-s", "1")...)
	checkFinalError(t, r, 2, "pgbench_history (mine): columns that are not pgbench's): nothing was emptied")
	survived()
	// --force-drop, stampede's own option of -i, drops them; then the
	// tables are stampede's (marked), and -i replaces them as pgbench does.
	if r := stampede(t, form(db2, "-s", "1", "--force-drop")...); r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history, which stampede did not make\ndropping old tables...") {
		t.Fatalf("pgbench -i --force-drop: exit %d\n%s", r.code, r.stderr)
	}
	if r := stampede(t, form(db2, "-s", "1")...); r.code != 0 || !strings.HasPrefix(r.stderr, "dropping old tables...") {
		t.Fatalf("pgbench -i over its own tables: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db2, "SELECT count(*) FROM pgbench_accounts WHERE filler = 'USERDATA'"); n != 0 {
		t.Errorf("pgbench_accounts still holds the old row after -i --force-drop")
	}
}

// pgbenchInit is the pgbench form's `pgbench -i ARGS` of database db on
// the test server, in pgbench's connection options.
func pgbenchInit(t testing.TB, db string, args ...string) []string {
	u, _ := url.Parse(testServer(t))
	return append(append([]string{"pgbench", "-i"}, args...), "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), db)
}

// TestForceDropDropsForeignTables shows that --force-drop, the flag the
// refusal names, does drop a user's table, and says so.
func TestForceDropDropsForeignTables(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "forcedrop")
	adminExec(t, "CREATE DATABASE "+db)
	userTables(t, db, "bank")
	r := stampede(t, "cleanup", "bank", "--force-drop", dbURL(t, db))
	if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping 1 table (bank), which stampede did not make") {
		t.Fatalf("cleanup --force-drop: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'bank'"); n != 0 {
		t.Errorf("bank still exists after cleanup --force-drop")
	}
	// --force-drop implies --drop: alone, init drops and reloads.
	userTables(t, db, "bank")
	if r := stampede(t, "init", "bank", "--force-drop", "--rows", "10", dbURL(t, db)); r.code != 0 || queryInt(t, db, "SELECT count(*) FROM bank") != 10 {
		t.Fatalf("init --force-drop: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCleanupDropsWhatItMade shows the other side: what init made, cleanup
// and --drop drop without a flag, beside a user's table that survives,
// and after a load by a stampede that marked nothing (init's record alone)
// too.
func TestCleanupDropsWhatItMade(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "ownmade")
	adminExec(t, "CREATE DATABASE "+db)
	survived := userTables(t, db, "mine")
	for _, args := range [][]string{
		{"init", "bank", "--rows", "10"},
		{"init", "bank", "--rows", "10", "--drop"},
	} {
		if r := stampede(t, append(args, dbURL(t, db))...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	// An older stampede's load: no mark, only the record (which says
	// its load marked nothing).
	execIn(t, db, "COMMENT ON TABLE bank IS NULL", "COMMENT ON TYPE bank IS NULL")
	execIn(t, db, "UPDATE stampede_load SET marked = false")
	if r := stampede(t, "cleanup", "bank", dbURL(t, db)); r.code != 0 || !strings.Contains(r.stderr, "dropped table bank") {
		t.Fatalf("cleanup of stampede's own load: exit %d\n%s", r.code, r.stderr)
	}
	survived()
	// The cockroach form drops a database that holds only what stampede made.
	db2 := freshDB(t, "ownmadecr")
	for _, args := range [][]string{
		{"workload", "init", "bank", "--rows", "10", "--db", db2, dbURL(t, db2)},
		{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db2, dbURL(t, db2)},
	} {
		if r := stampede(t, args...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

// TestSwappedTableStaysTheUsers: after stampede's load, a user drops one
// of its tables and makes their own of the same name; the load's record
// is still there, but the table carries no mark: cleanup, init --drop and
// pgbench's -i refuse it, and the user's row survives. (The census found
// cleanup dropping it, exit 0.)
func TestSwappedTableStaysTheUsers(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		load  []string
		table string
		drops [][]string
	}{
		{[]string{"init", "bank", "--rows", "10"}, "bank", [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}}},
		{[]string{"init", "ycsb", "--record-count", "10"}, "usertable", [][]string{{"cleanup", "ycsb"}}},
		{[]string{"init", "pgbench", "--scale", "1"}, "pgbench_history", [][]string{{"cleanup", "pgbench"}, {"init", "pgbench", "--scale", "1"}}},
	} {
		t.Run(tc.table, func(t *testing.T) {
			db := freshDB(t, "swap")
			adminExec(t, "CREATE DATABASE "+db)
			if r := stampede(t, append(tc.load, dbURL(t, db))...); r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", tc.load, r.code, r.stderr)
			}
			execIn(t, db, "DROP TABLE "+tc.table+" CASCADE")
			execIn(t, db, "CREATE TABLE "+tc.table+" (mine text)")
			execIn(t, db, "INSERT INTO "+tc.table+" VALUES ('keep me')")
			for _, args := range tc.drops {
				r := stampede(t, append(args, dbURL(t, db))...)
				if r.code != 2 || !strings.Contains(r.stderr, tc.table) || !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%s: exit %d\n%s", args, r.code, r.stderr)
				}
				if n := queryInt(t, db, "SELECT count(*) FROM "+tc.table+" WHERE mine = 'keep me'"); n != 1 {
					t.Fatalf("%s dropped the user's %s", args, tc.table)
				}
			}
		})
	}
}

// TestFleetNeverDropsForeignTenants runs a fleet's cleanup and init (with
// and without --drop) where --tenant-pattern matches databases and
// schemas that are not stampede's tenants: each is refused in one line,
// every row survives; a real fleet's cleanup still works beside them.
func TestFleetNeverDropsForeignTenants(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	base := u0(t)
	pattern := fmt.Sprintf("fgn%d_%%d", time.Now().UnixNano()%1e6)
	one, two := fmt.Sprintf(pattern, 1), fmt.Sprintf(pattern, 2)
	for _, n := range []string{one, two} {
		adminExec(t, "CREATE DATABASE "+n)
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)") })
	}
	survived := userTables(t, one, "bank")
	fleet := []string{"--tenants", "2", "--tenant-pattern", pattern, "--rows", "10"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"cleanup", "bank"}, fleet[:4]...), "databases " + one + ", " + two + " were not made by stampede"},
		{append([]string{"init", "bank", "--drop"}, fleet...), "--drop leaves them alone; to drop them anyway, add --force-drop"},
		{append([]string{"init", "bank"}, fleet...), "database " + one + " was not made by stampede"},
	} {
		r := stampede(t, append(tc.args, base)...)
		checkFinalError(t, r, 2, tc.want)
		survived()
	}
	// init without --drop names --force-drop; alone, it works.
	r := stampede(t, append(append([]string{"init", "bank", "--force-drop"}, fleet...), base)...)
	if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping databases "+one+", "+two+", which stampede did not make") {
		t.Fatalf("fleet init --force-drop: exit %d\n%s", r.code, r.stderr)
	}

	// Schema mode: a user's schema that the pattern matches.
	db := freshDB(t, "fgnschema")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE SCHEMA bank_2", "CREATE TABLE bank_2.bank (mine INT PRIMARY KEY)", "INSERT INTO bank_2.bank VALUES (42)")
	schemaRows := func() {
		t.Helper()
		if n := queryInt(t, db, "SELECT count(*) FROM bank_2.bank WHERE mine = 42"); n != 1 {
			t.Errorf("the user's schema bank_2 lost its row")
		}
	}
	schema := []string{"--tenants", "3", "--tenant-mode", "schema"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"cleanup", "bank"}, schema...), "schema bank_2 in database"},
		{append([]string{"init", "bank", "--rows", "10"}, schema...), "init (which replaces a half-created tenant) leaves it alone"},
		{append([]string{"init", "bank", "--rows", "10", "--drop"}, schema...), "--drop leaves it alone"},
	} {
		r := stampede(t, append(tc.args, dbURL(t, db))...)
		checkFinalError(t, r, 2, tc.want)
		if !strings.HasSuffix(strings.TrimSpace(r.stderr), "to drop it anyway, add --force-drop") {
			t.Errorf("%s: the refusal does not end with the flag that forces it: %s", tc.args, r.stderr)
		}
		schemaRows()
	}
	// A real fleet of one tenant beside it is stampede's to drop.
	one1 := []string{"--tenants", "1", "--tenant-mode", "schema"}
	if r := stampede(t, append(append([]string{"init", "bank", "--rows", "10"}, one1...), dbURL(t, db))...); r.code != 0 {
		t.Fatalf("init of a one-tenant fleet: exit %d\n%s", r.code, r.stderr)
	}
	if r := stampede(t, append(append([]string{"cleanup", "bank"}, one1...), dbURL(t, db))...); r.code != 0 || !strings.Contains(r.stdout, "dropped 1 tenant schema from") {
		t.Fatalf("cleanup of a one-tenant fleet: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	schemaRows()

	// Column mode: a user's table of the shared table's name, no marker.
	db3 := freshDB(t, "fgncolumn")
	adminExec(t, "CREATE DATABASE "+db3)
	colRows := userTables(t, db3, "bank")
	r = stampede(t, "cleanup", "bank", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db3))
	checkFinalError(t, r, 2, "table bank in database")
	colRows()
	// A user's stampede_tenant, not of a fleet's columns: refused (it
	// was a raw server error), and kept.
	execIn(t, db3, "CREATE TABLE stampede_tenant (note text)", "INSERT INTO stampede_tenant VALUES ('mine')")
	for _, args := range [][]string{
		{"cleanup", "ycsb", "--tenants", "2", "--tenant-mode", "column"},
		{"init", "ycsb", "--record-count", "10", "--tenants", "2", "--tenant-mode", "column"},
	} {
		r = stampede(t, append(args, dbURL(t, db3))...)
		checkFinalError(t, r, 2, "table stampede_tenant in database \""+db3+"\"")
		if n := queryInt(t, db3, "SELECT count(*) FROM stampede_tenant WHERE note = 'mine'"); n != 1 {
			t.Errorf("%s: the user's stampede_tenant lost its row", args)
		}
	}
}

// TestFleetKeepsUsersObjectsInTenants: a user's table added to a real
// tenant database or schema (stampede's, marked) after init was dropped
// with it by cleanup and init --drop, exit 0: each now refuses in one
// line naming the object and --force-drop, exit 2, and the row survives;
// --force-drop alone drops the fleet.
func TestFleetKeepsUsersObjectsInTenants(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	pattern := fmt.Sprintf("hold%d_%%d", time.Now().UnixNano()%1e6)
	schemaDB := freshDB(t, "holdschema")
	for _, tc := range []struct {
		mode, url string
		fleet     []string
		userDB    string // where the user's table goes
		table     string // its name there
		want      string
	}{
		{"database", u0(t), []string{"--tenants", "2", "--tenant-pattern", pattern}, fmt.Sprintf(pattern, 2), "mine",
			fmt.Sprintf(`database %q on `, fmt.Sprintf(pattern, 2))},
		{"schema", dbURL(t, schemaDB), []string{"--tenants", "2", "--tenant-mode", "schema"}, schemaDB, "bank_2.mine",
			`schema "bank_2" in database "` + schemaDB + `" on `},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Cleanup(func() {
				for i := 1; i <= 2; i++ {
					adminExec(t, "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)")
				}
			})
			mustRun(t, append(append([]string{"init", "bank", "--rows", "10"}, tc.fleet...), tc.url)...)
			survived := userTables(t, tc.userDB, tc.table)
			for _, args := range [][]string{
				append([]string{"cleanup", "bank"}, tc.fleet...),
				append([]string{"init", "bank", "--rows", "10", "--drop"}, tc.fleet...),
			} {
				r := stampede(t, append(args, tc.url)...)
				checkFinalError(t, r, 2, tc.want)
				for _, want := range []string{"holds 1 object that stampede did not make (table public.mine)", "to drop it anyway, add --force-drop"} {
					if tc.mode == "schema" {
						want = strings.Replace(want, "public.mine", "bank_2.mine", 1)
					}
					if !strings.Contains(r.stderr, want) {
						t.Errorf("%s: the refusal lacks %q: %s", args[:2], want, r.stderr)
					}
				}
				survived()
			}
			r := stampede(t, append(append([]string{"cleanup", "bank", "--force-drop"}, tc.fleet...), tc.url)...)
			if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping "+tc.mode) {
				t.Fatalf("cleanup --force-drop: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// TestForeignRecordTableRefused: a user's own table named stampede_load
// (the name of init's record) made every cleanup fail with a raw SQL error
// (column "workload" does not exist), exit 1; every verb now refuses it
// in one line naming it, exit 2, before dropping, creating or loading
// anything, and the table and its row survive.
func TestForeignRecordTableRefused(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "foreignrecord")
	adminExec(t, "CREATE DATABASE "+db)
	survived := userTables(t, db, "stampede_load")
	for _, args := range [][]string{
		{"cleanup", "bank", dbURL(t, db)},
		{"cleanup", "ycsb", "--force-drop", dbURL(t, db)},
		{"init", "bank", "--rows", "10", dbURL(t, db)},
		{"init", "ycsb", "--record-count", "10", "--drop", dbURL(t, db)},
		{"run", "bank", "--duration", "1s", dbURL(t, db)},
		{"check", "bank", dbURL(t, db)},
		{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db, dbURL(t, db)},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "table stampede_load in database \""+db+"\" on ")
		if !strings.Contains(r.stderr, "is not stampede's record of what init loaded (it has not the columns data, workload, version, settings)") {
			t.Errorf("%s: %s", args[:2], r.stderr)
		}
		survived()
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 1 {
		t.Errorf("%d tables in the database, want the user's stampede_load alone", n)
	}
}

// u0 is the test server's URL without a database.
func u0(t *testing.T) string {
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	return u.String()
}

// TestUnfinishedLoadIsSaid interrupts init of bank and shows that run and
// check then say that the load is unfinished, as TPC-C and YCSB do, and
// that a load whose record is missing (sysbench's, cut before its index
// was built) is caught the same way.
func TestUnfinishedLoadIsSaid(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "unfinished")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the table exists and rows are flowing.
		for range 200 {
			time.Sleep(50 * time.Millisecond)
			if queryIntMaybe(db, "SELECT count(*) FROM pg_tables WHERE tablename = 'bank'") == 1 {
				time.Sleep(200 * time.Millisecond)
				break
			}
		}
		cancel()
	}()
	r := stampedeCtx(t, ctx, "init", "bank", "--rows", "5000000", dbURL(t, db))
	if r.code == 0 {
		t.Fatalf("init of 5,000,000 rows finished before it was interrupted: make it larger\n%s", r.stderr)
	}
	for _, args := range [][]string{
		{"run", "bank", "--duration", "1s"},
		{"check", "bank"},
	} {
		r := stampede(t, append(args, dbURL(t, db))...)
		checkFinalError(t, r, 2, "holds an unfinished load of bank: init created table bank but never finished loading it")
		// The command it suggests reloads what the interrupted init
		// was loading, not the defaults.
		if !strings.Contains(r.stderr, "`stampede init bank --drop --rows 5000000 ") {
			t.Errorf("%s: the suggestion lacks the interrupted init's --rows: %s", args[0], r.stderr)
		}
	}
	// cleanup drops it: the mark says stampede made it.
	if r := stampede(t, "cleanup", "bank", dbURL(t, db)); r.code != 0 {
		t.Fatalf("cleanup of an unfinished load: exit %d\n%s", r.code, r.stderr)
	}

	sb := sysbenchConn(t, db)
	if r := stampede(t, append(append([]string{"oltp_read_only", "--table-size=100"}, sb...), "prepare")...); r.code != 0 {
		t.Fatalf("prepare: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, db, "DROP INDEX k_1", "DELETE FROM stampede_load")
	r = stampede(t, append(append([]string{"oltp_read_only", "--time=1"}, sb...), "run")...)
	checkFinalError(t, r, 2, "holds an unfinished load of oltp_read_only")

	// pgbench, interrupted in its step g (one transaction, rolled
	// back: the tables are there, empty): the built-in scripts' run and
	// pgbench's form said "pgbench_branches is empty" and suggested an
	// init without --drop; they say the load is unfinished, and give
	// the command that reloads it.
	pdb := freshDB(t, "unfinishedpgb")
	pctx, pcancel := context.WithCancel(context.Background())
	go func() {
		for range 400 {
			time.Sleep(50 * time.Millisecond)
			if queryIntMaybe(pdb, "SELECT count(*) FROM pg_tables WHERE tablename = 'pgbench_accounts'") == 1 {
				time.Sleep(300 * time.Millisecond)
				break
			}
		}
		pcancel()
	}()
	if r := stampedeCtx(t, pctx, "init", "pgbench", "--scale", "30", dbURL(t, pdb)); r.code == 0 {
		t.Fatalf("init pgbench --scale 30 finished before it was interrupted\n%s", r.stderr)
	}
	if n := queryInt(t, pdb, "SELECT count(*) FROM pgbench_branches"); n != 0 {
		t.Skipf("the interrupted init left %d branches: step g was not rolled back", n)
	}
	u, _ := url.Parse(testServer(t))
	for _, args := range [][]string{
		{"run", "sql", "-b", "tpcb-like", "--duration", "1s", dbURL(t, pdb)},
		{"pgbench", "-T", "1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), pdb},
		{"check", "pgbench", dbURL(t, pdb)},
	} {
		r := stampede(t, args...)
		checkFinalError(t, r, 2, "holds an unfinished load of pgbench: init created table pgbench_branches but never finished loading it")
		if !strings.Contains(r.stderr, "`stampede init pgbench --drop --scale 30 ") {
			t.Errorf("%s: the suggestion is not the reload with --drop --scale 30: %s", args[:2], r.stderr)
		}
	}
}

// queryIntMaybe is queryInt that returns -1 where the query fails (the
// database not created yet).
func queryIntMaybe(db, sql string) int64 {
	ctx := context.Background()
	u, err := url.Parse(os.Getenv("STAMPEDE_TEST_DATABASE"))
	if err != nil {
		return -1
	}
	u.Path = "/" + db
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return -1
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		return -1
	}
	return n
}

// TestRebuildNeverMovesAUsersFile gives --results-url a file that is not
// a results store (a user's notes, by mistake): runs, runs --rebuild and
// run refuse it in one line, exit 2, and leave it as it was; a damaged
// index.sqlite of a results directory is still moved aside and rebuilt.
func TestRebuildNeverMovesAUsersFile(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"runs", "--results-url", "sqlite:" + notes},
		{"runs", "--results-url", "sqlite:" + notes, "--rebuild"},
		{"run", "ycsb", "--driver", "null", "--duration", "100ms", "--results-dir", dir, "--results-url", "sqlite:" + notes},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "is not a SQLite database")
		if !strings.Contains(r.stderr, "stampede leaves that file alone") {
			t.Errorf("%v: %s", args, r.stderr)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "my notes\n" {
			t.Fatalf("%v changed the user's file: %q %v", args, b, err)
		}
	}
	if m, _ := filepath.Glob(notes + ".damaged-*"); len(m) != 0 {
		t.Errorf("the user's file was moved aside: %v", m)
	}
	results := t.TempDir()
	if err := os.WriteFile(filepath.Join(results, "index.sqlite"), []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "runs", "--results-dir", results, "--rebuild")
	if r.code != 0 || !strings.Contains(r.stderr, "moved it aside to") {
		t.Errorf("a damaged index.sqlite: exit %d, %s", r.code, r.stderr)
	}
}

// TestAdoptedTableStaysTheUsers: a usertable the user created (empty, of
// YCSB's shape, as the JDBC binding's README says) and `stampede load
// jdbc` then filled stays the user's: the load records it as adopted in
// stampede_load, and every form of cleanup and --drop refuses it in one
// line that names it, says it was adopted and names --force-drop, exit
// 2, every loaded row surviving; a load in two parts keeps the first
// part's adoption. --force-drop drops it.
func TestAdoptedTableStaysTheUsers(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(testServer(t))
	var cols []string
	for i := range 10 {
		cols = append(cols, fmt.Sprintf("FIELD%d TEXT", i))
	}
	create := "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, " + strings.Join(cols, ", ") + ")"
	wl := writeFile(t, "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=20\nreadproportion=1\nupdateproportion=0\n")
	for _, tc := range []struct {
		name  string
		loads [][]string // each load's properties beyond the file's
	}{
		{"one load", [][]string{nil}},
		{"two parts", [][]string{{"-p", "insertstart=0", "-p", "insertcount=10"}, {"-p", "insertstart=10", "-p", "insertcount=10"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "adopted")
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, create)
			jdbc := []string{"-p", "db.url=jdbc:postgresql://" + u.Host + "/" + db + "?sslmode=disable", "-p", "db.user=" + u.User.Username()}
			for _, props := range tc.loads {
				mustRun(t, append(append([]string{"load", "jdbc", "-P", wl}, jdbc...), props...)...)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 20 {
				t.Fatalf("%d rows loaded, want 20", n)
			}
			for _, args := range [][]string{
				append([]string{"cleanup", "jdbc"}, jdbc...),
				{"cleanup", "ycsb", dbURL(t, db)},
				{"init", "ycsb", "--drop", "--record-count", "20", dbURL(t, db)},
				{"workload", "init", "ycsb", "--drop", "--db", db, dbURL(t, db)},
			} {
				r := stampede(t, args...)
				want := "table usertable in database \"" + db + "\""
				if args[0] == "workload" {
					// A user's database: the cockroach form's --drop says
					// it keeps it, then refuses as init --drop does.
					checkFinalError(t, r, 2, want)
				} else {
					checkOneLineError(t, r, 2, want)
				}
				if !strings.Contains(r.stderr, "existed before stampede's init of ycsb loaded into it: adopted, as stampede_load records") {
					t.Errorf("%s: the refusal does not say the table was adopted: %s", args[:2], r.stderr)
				}
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%s: the refusal does not name --force-drop: %s", args[:2], r.stderr)
				}
				if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 20 {
					t.Fatalf("%s: %d rows left of the 20 loaded", args[:2], n)
				}
			}
			r := mustRun(t, "cleanup", "ycsb", "--force-drop", dbURL(t, db))
			if !strings.Contains(r.stderr, "dropped table usertable") {
				t.Errorf("cleanup --force-drop: %s", r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('usertable', 'stampede_load')"); n != 0 {
				t.Errorf("%d of usertable and its record left after cleanup --force-drop", n)
			}
		})
	}
}

// TestSplitInitNamesWhatWorks: a client of a split load (--clients N
// --client-index I) over a user's table refuses in one line, the row
// kept, and names what works in that form (--force-drop, which init's own
// form takes, is refused with --clients): `stampede cleanup W
// --force-drop` once first, after which every client's init loads.
func TestSplitInitNamesWhatWorks(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "splitforeign")
	adminExec(t, "CREATE DATABASE "+db)
	survived := userTables(t, db, "usertable")
	client := func(i string, extra ...string) []string {
		return append(append([]string{"init", "ycsb", "--record-count", "100", "--clients", "2", "--client-index", i}, extra...), dbURL(t, db))
	}
	r := stampede(t, client("0")...)
	checkFinalError(t, r, 2, "table usertable already exists in database \""+db+"\" and stampede did not make it: load into another database (--db NAME), or to drop it anyway, run `stampede cleanup ycsb --force-drop '"+dbURL(t, db)+"'` once first, then every client's init")
	survived()
	r = stampede(t, client("0", "--force-drop")...)
	checkFinalError(t, r, 2, "--force-drop with --clients: the clients of a split load would drop each other's shares; run `stampede cleanup WORKLOAD --force-drop` once")
	survived()
	if r := stampede(t, "cleanup", "ycsb", "--force-drop", dbURL(t, db)); r.code != 0 {
		t.Fatalf("cleanup ycsb --force-drop, as the refusal says: exit %d\n%s", r.code, r.stderr)
	}
	for _, i := range []string{"0", "1"} {
		if r := stampede(t, client(i)...); r.code != 0 {
			t.Fatalf("client %s's init after the cleanup: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 100 {
		t.Errorf("usertable holds %d rows after both shares, want 100", n)
	}
}
