package workload

import "testing"

// fakeGen is a Generator of fixed tables, constraint statements included.
type fakeGen struct {
	Generator
	tables []Table
	stmts  []string
}

func (g fakeGen) Tables() []Table                { return g.tables }
func (g fakeGen) ConstraintStatements() []string { return g.stmts }

// TestOwnsConstraint: a constraint or default is stampede's only when its
// workload's DDL makes it, by name or by the kind PostgreSQL names so; a
// user's UNIQUE, CHECK, EXCLUDE or foreign key on stampede's table, or a
// DEFAULT the user set, is not (chk28c F4). On stampede's record and
// marker, and on a table whose DDL the workload does not hold, only the
// primary key (and any default) is stampede's.
func TestOwnsConstraint(t *testing.T) {
	gen := fakeGen{
		tables: []Table{
			{Name: "bank", Schema: "(id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, payload TEXT NOT NULL)"},
			{Name: "sbtest1", Schema: "(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL)",
				Indexes: []string{"ALTER TABLE sbtest1 ADD PRIMARY KEY (id)", "CREATE UNIQUE INDEX k_1 ON sbtest1 (k)"}},
			{Name: "customer", Schema: "(c_id INT, CONSTRAINT customer_i1 PRIMARY KEY (c_id))"},
			{Name: "history", Schema: "(h_c_id INT)"},
		},
		stmts: []string{`ALTER TABLE public."history" ADD CONSTRAINT history_customer_fk FOREIGN KEY (h_c_id) REFERENCES customer`},
	}
	d := tableDDLs(gen)
	for _, c := range []struct {
		table, name, contype string
		want                 bool
	}{
		{"bank", "bank_pkey", "p", true},
		{"bank", "my_uq", "u", false},
		{"bank", "bank_id_balance_key", "u", false},
		{"bank", "bank_balance_check", "c", false},
		{"bank", "bank_balance_fkey", "f", false},
		{"bank", "my_excl", "x", false},
		{"sbtest1", "sbtest1_pkey", "p", true},
		{"sbtest3", "sbtest3_pkey", "p", true}, // a table of more than --tables
		{"sbtest1", "sbtest1_k_key", "u", false},
		{"customer", "customer_i1", "p", true},
		{"history", "history_customer_fk", "f", true},
		{"history", "history_pkey", "p", false}, // history has none
		{"stampede_load", "stampede_load_pkey", "p", true},
		{"stampede_load", "my_ck", "c", false},
		{"churn_1_2", "churn_1_2_pkey", "p", true},
		{"churn_1_2", "my_uq", "u", false},
	} {
		if got := d.ownsConstraint(c.table, c.name, c.contype); got != c.want {
			t.Errorf("constraint %s (%s) on %s: stampede's %v, want %v", c.name, c.contype, c.table, got, c.want)
		}
	}
	for _, c := range []struct {
		table, column string
		want          bool
	}{
		{"bank", "balance", false},
		{"sbtest1", "id", true},
		{"sbtest1", "k", true},
		{"stampede_load", "loaded_at", true},
	} {
		if got := d.ownsDefault(c.table, c.column); got != c.want {
			t.Errorf("default of %s.%s: stampede's %v, want %v", c.table, c.column, got, c.want)
		}
	}
}
