package cli_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestDropFormsKeepUsersDependentsAndColumns: every form of cleanup and
// --drop, over stampede's own tables on which a user made a view (which
// the drop without CASCADE failed over: exit 1, the raw "cannot drop
// table ... (SQLSTATE 2BP01)", and a column-mode fleet's cleanup dropped
// stampede_tenant first) or to which a user added a column and filled it
// (which went with the table, exit 0), refuses in one line, exit 2, naming
// the object or column and --force-drop; nothing is dropped, not even
// stampede's other tables; --force-drop alone then drops. Fleets of every
// mode (database, schema, column) refuse the same: their cleanup and
// --drop dropped a filled column of a tenant's table, exit 0.
func TestDropFormsKeepUsersDependentsAndColumns(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	admin := *u
	admin.Path = ""
	type form struct {
		name  string
		init  func(db string) []string
		table string                                    // stampede's table the user builds on
		args  func(db string, force ...string) []string // the drop
		// userDB is the database where the user works (a database-mode
		// fleet's tenant 1); nil for db.
		userDB func(db string) string
	}
	forms := []form{
		{"cleanup bank", func(db string) []string { return []string{"init", "bank", "--rows", "10", dbURL(t, db)} }, "bank",
			func(db string, f ...string) []string {
				return append(append([]string{"cleanup", "bank"}, f...), dbURL(t, db))
			}, nil},
		{"init bank --drop", func(db string) []string { return []string{"init", "bank", "--rows", "10", dbURL(t, db)} }, "bank",
			func(db string, f ...string) []string {
				return append(append([]string{"init", "bank", "--rows", "10", "--drop"}, f...), dbURL(t, db))
			}, nil},
		{"cleanup oltp_read_only", func(db string) []string {
			return []string{"init", "oltp_read_only", "--tables", "2", "--table-size", "10", dbURL(t, db)}
		}, "sbtest2", func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "oltp_read_only", "--tables", "2"}, f...), dbURL(t, db))
		}, nil},
		{"sysbench's cleanup", func(db string) []string {
			return []string{"init", "oltp_read_only", "--tables", "2", "--table-size", "10", dbURL(t, db)}
		}, "sbtest2", func(db string, f ...string) []string {
			return append(append(append([]string{"oltp_read_write", "--tables=2"}, sysbenchConn(t, db)...), f...), "cleanup")
		}, nil},
		{"cleanup pgbench", func(db string) []string { return []string{"init", "pgbench", "--scale", "1", dbURL(t, db)} }, "pgbench_branches",
			func(db string, f ...string) []string {
				return append(append([]string{"cleanup", "pgbench"}, f...), dbURL(t, db))
			}, nil},
		{"YCSB's form cleanup", func(db string) []string { return []string{"init", "ycsb", "--record-count", "10", dbURL(t, db)} }, "usertable",
			func(db string, f ...string) []string {
				return append([]string{"cleanup", "jdbc", "-p", "db.url=jdbc:postgresql://" + u.Host + "/" + db, "-p", "db.user=" + u.User.Username()}, f...)
			}, nil},
		{"cleanup tpcc", func(db string) []string { return []string{"init", "tpcc", "--warehouses", "1", dbURL(t, db)} }, "item",
			func(db string, f ...string) []string {
				return append(append([]string{"cleanup", "tpcc"}, f...), dbURL(t, db))
			}, nil},
		{"column-mode fleet cleanup", func(db string) []string {
			return []string{"init", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db)}
		}, "bank", func(db string, f ...string) []string {
			return append(append([]string{"cleanup", "bank", "--tenants", "2", "--tenant-mode", "column"}, f...), dbURL(t, db))
		}, nil},
		{"column-mode fleet init --drop", func(db string) []string {
			return []string{"init", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db)}
		}, "bank", func(db string, f ...string) []string {
			return append(append([]string{"init", "bank", "--rows", "10", "--drop", "--tenants", "2", "--tenant-mode", "column"}, f...), dbURL(t, db))
		}, nil},
		{"workload init --drop", func(db string) []string {
			return []string{"workload", "init", "bank", "--rows", "10", "--db", db, admin.String()}
		}, "bank", func(db string, f ...string) []string {
			return append(append([]string{"workload", "init", "bank", "--rows", "10", "--drop", "--db", db}, f...), admin.String())
		}, nil},
	}
	for _, mode := range []struct {
		name   string
		flags  func(db string) []string
		table  string
		userDB func(db string) string
	}{
		{"database-mode fleet", func(db string) []string { return []string{"--tenants", "2", "--tenant-pattern", db + "_t%d"} }, "bank",
			func(db string) string { return db + "_t1" }},
		{"schema-mode fleet", func(db string) []string { return []string{"--tenants", "2", "--tenant-mode", "schema"} }, "bank_1.bank", nil},
	} {
		forms = append(forms,
			form{mode.name + " cleanup", func(db string) []string {
				return append(append([]string{"init", "bank", "--rows", "10"}, mode.flags(db)...), dbURL(t, db))
			}, mode.table, func(db string, f ...string) []string {
				return append(append(append([]string{"cleanup", "bank"}, mode.flags(db)...), f...), dbURL(t, db))
			}, mode.userDB},
			form{mode.name + " init --drop", func(db string) []string {
				return append(append([]string{"init", "bank", "--rows", "10"}, mode.flags(db)...), dbURL(t, db))
			}, mode.table, func(db string, f ...string) []string {
				return append(append(append([]string{"init", "bank", "--rows", "10", "--drop"}, mode.flags(db)...), f...), dbURL(t, db))
			}, mode.userDB})
	}
	for _, fm := range forms {
		for _, kind := range []struct {
			name string
			user func(table string) []string
			kept func(table string) string // a count that must stay 10 (or the table's rows)
			want string
		}{
			{"view", func(tb string) []string { return []string{"CREATE VIEW myview AS SELECT * FROM " + tb} },
				func(tb string) string { return "SELECT count(*) FROM myview" }, "view public.myview"},
			{"filled column", func(tb string) []string {
				return []string{"ALTER TABLE " + tb + " ADD COLUMN notes TEXT", "UPDATE " + tb + " SET notes = 'mine'"}
			}, func(tb string) string { return "SELECT count(notes) FROM " + tb }, tbCol},
		} {
			t.Run(fm.name+"/"+kind.name, func(t *testing.T) {
				db := freshDB(t, "fix28g_drop")
				if strings.HasPrefix(fm.name, "workload") {
					adminExec(t, "DROP DATABASE IF EXISTS "+db) // workload init creates it
				}
				mustRun(t, fm.init(db)...)
				in := db
				if fm.userDB != nil {
					in = fm.userDB(db)
					t.Cleanup(func() {
						for _, tenant := range []string{db + "_t1", db + "_t2"} {
							adminExec(t, "DROP DATABASE IF EXISTS "+tenant+" WITH (FORCE)")
						}
					})
				}
				execIn(t, in, kind.user(fm.table)...)
				rows := queryInt(t, in, kind.kept(fm.table))
				const countTables = "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
				tables := queryInt(t, in, countTables)
				r := stampede(t, fm.args(db)...)
				want := kind.want
				if want == tbCol {
					want = fm.table + ".notes"
				}
				if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "add --force-drop") {
					t.Errorf("%s: exit %d, want 2 naming %q and --force-drop:\n%s", fm.name, r.code, want, r.stderr)
				}
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if last := lines[len(lines)-1]; !strings.HasPrefix(last, "stampede: error: ") || strings.Contains(last, "SQLSTATE") {
					t.Errorf("the refusal is not one line of stampede's: %q", last)
				}
				if n := queryInt(t, in, kind.kept(fm.table)); n != rows || n == 0 {
					t.Errorf("%s: %d, want %d", kind.kept(fm.table), n, rows)
				}
				if n := queryInt(t, in, countTables); n != tables {
					t.Errorf("%d tables after the refusal, want %d: something was dropped", n, tables)
				}
				if r := stampede(t, fm.args(db, "--force-drop")...); r.code != 0 {
					t.Errorf("with --force-drop: exit %d\n%s", r.code, r.stderr)
				}
			})
		}
	}
}

// tbCol stands for "TABLE.notes" in the wanted text.
const tbCol = "\x00table.notes"

// TestRunsKeepUsersTables: stampede's own init of bulk_insert over a
// user's sbtestN exited 0, "loaded 0 rows", and its runs would append to
// the user's table; a run of churn over a user's churn_tables failed with
// the raw "column dropped_at does not exist" (exit 1). Both now refuse in
// one line, exit 2, and the user's rows stay. churn's runs beside a
// user's churn_W_N, cleanup churn, and workload run --drop or --init over
// a user's table leave every row of it too.
func TestRunsKeepUsersTables(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = ""
	for _, tc := range []struct {
		name   string
		before func(db string) []string // stampede's commands before the user's table
		table  string                   // the user's table, one row (42)
		args   func(db string) []string
		code   int
		want   string
	}{
		{"init bulk_insert", nil, "sbtest2", func(db string) []string {
			return []string{"init", "bulk_insert", "--threads", "3", dbURL(t, db)}
		}, 2, "table sbtest2 in database " + `"@"` + " on * was not made by stampede (no mark of stampede's on it, which every table stampede makes carries; bulk_insert's runs would write into it; nothing was created): init leaves it alone; to drop it anyway, add --force-drop"},
		{"init churn over churn_tables", nil, "churn_tables", func(db string) []string { return []string{"init", "churn", dbURL(t, db)} },
			2, "table churn_tables already exists in database " + `"@"` + " and stampede did not make it"},
		{"run churn over churn_tables", nil, "churn_tables", func(db string) []string {
			return []string{"run", "churn", "--duration", "1s", dbURL(t, db)}
		}, 2, "table churn_tables in database " + `"@"` + " was not made by stampede (no mark of stampede's init on it): a run of churn would write into it"},
		{"cleanup churn over churn_tables", nil, "churn_tables", func(db string) []string { return []string{"cleanup", "churn", dbURL(t, db)} },
			2, "table churn_tables in database " + `"@"` + " on * was not made by stampede"},
		{"run churn beside a user's churn_0_1", func(db string) []string { return []string{"init", "churn", dbURL(t, db)} }, "churn_0_1", func(db string) []string {
			return []string{"run", "churn", "--duration", "2s", "--concurrency", "2", dbURL(t, db)}
		}, 0, ""},
		{"cleanup churn beside a user's churn_0_1", func(db string) []string { return []string{"init", "churn", dbURL(t, db)} }, "churn_0_1", func(db string) []string {
			return []string{"cleanup", "churn", dbURL(t, db)}
		}, 0, ""},
		{"workload run --drop", nil, "bank", func(db string) []string {
			return []string{"workload", "run", "bank", "--drop", "--duration", "1s", "--db", db, u.String()}
		}, 2, "table bank in database " + `"@"` + " on * was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries): --drop leaves it alone; to drop it anyway, add --force-drop"},
		{"workload run --init", nil, "bank", func(db string) []string {
			return []string{"workload", "run", "bank", "--init", "--duration", "1s", "--db", db, u.String()}
		}, 2, "table bank already exists in database " + `"@"` + " and stampede did not make it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28g_runs")
			if tc.before != nil {
				mustRun(t, tc.before(db)...)
			} else {
				adminExec(t, "CREATE DATABASE "+db)
			}
			execIn(t, db, "CREATE TABLE "+tc.table+" (mine INT)", "INSERT INTO "+tc.table+" VALUES (42)")
			r := stampede(t, tc.args(db)...)
			if tc.code == 0 {
				if r.code != 0 {
					t.Fatalf("exit %d\n%s", r.code, r.stderr)
				}
			} else {
				want := strings.ReplaceAll(tc.want, "@", db)
				host := u.Host
				want = strings.ReplaceAll(want, "on *", "on "+host)
				checkFinalError(t, r, tc.code, want)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM "+tc.table+" WHERE mine = 42"); n != 1 {
				t.Errorf("the user's %s holds %d rows of 42, want 1", tc.table, n)
			}
			if tc.table == "sbtest2" {
				if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'stampede_load'"); n != 0 {
					t.Errorf("the refused init created stampede_load")
				}
			}
		})
	}
}

// TestHammerdbBuildOverAnotherRolesTables: buildschema --force-drop over
// a user's warehouse owned by another role failed "must be owner of table
// warehouse (SQLSTATE 42501)", exit 1, and the refused run without the
// flag had already created pg_user. Both now refuse in one line, exit 2,
// before creating anything: without the flag naming it, with it naming
// the owner and what to do; the user's row stays.
func TestHammerdbBuildOverAnotherRolesTables(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "fix28g_hd")
	owner, user := db+"_owner", db+"_user"
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+user, "DROP ROLE IF EXISTS "+owner)
	})
	adminExec(t, "CREATE ROLE "+owner, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE TABLE warehouse (mine INT)", "INSERT INTO warehouse VALUES (42)", "ALTER TABLE warehouse OWNER TO "+owner)
	script := writeFile(t, "dbset db pg\ndiset connection pg_host "+u.Hostname()+"\ndiset connection pg_port "+u.Port()+
		"\ndiset connection pg_sslmode disable\ndiset tpcc pg_count_ware 1\ndiset tpcc pg_num_vu 1\ndiset tpcc pg_superuser "+u.User.Username()+
		"\ndiset tpcc pg_user "+user+"\ndiset tpcc pg_pass pw\ndiset tpcc pg_dbase "+db+"\nbuildschema\n")
	for _, tc := range []struct {
		force []string
		want  string
	}{
		{nil, "line 11: buildschema: table warehouse in database " + db + " on " + u.Host + " was not made by stampede (no mark of stampede's init on it; nothing was created): load into another database (diset tpcc pg_dbase NAME in the script), or to drop it anyway, add --force-drop, building as its owner or a superuser (table warehouse belongs to role " + owner + ", which pg_user " + user + " cannot drop: diset tpcc pg_user " + owner + ", or drop it as pg_superuser " + u.User.Username() + " first)"},
		{[]string{"--force-drop"}, "line 11: buildschema: --force-drop: table warehouse in database " + db + " belongs to role " + owner + ", and pg_user " + user +
			", which buildschema builds as, cannot drop it: connect as their owner or a superuser (diset tpcc pg_user " + owner + ", or drop them as pg_superuser " + u.User.Username() + " first); nothing was created"},
	} {
		r := stampede(t, append([]string{"hammerdbcli", "auto", script}, tc.force...)...)
		checkFinalError(t, r, 2, tc.want)
		if n := queryInt(t, db, "SELECT count(*) FROM warehouse WHERE mine = 42"); n != 1 {
			t.Errorf("%v: the user's warehouse holds %d rows of 42, want 1", tc.force, n)
		}
		if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = '"+user+"'"); n != 0 {
			t.Errorf("%v: the refused buildschema created role %s", tc.force, user)
		}
	}
}
