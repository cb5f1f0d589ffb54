package cli_test

import "testing"

// TestRefusalSpellsFlagsAsTyped: a refusal names sysbench's underscored
// options as the user typed them, in stampede's form and sysbench's.
func TestRefusalSpellsFlagsAsTyped(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "oltp_read_write", "--driver", "null", "--table-size=0"}, "--table-size=0: need at least 1 row per table"},
		{[]string{"run", "oltp_read_write", "--driver", "null", "--table_size=0"}, "--table_size=0: need at least 1 row per table"},
		{[]string{"oltp_read_write", "--table-size=0", "--db-driver=pgsql", "run"}, "--table-size=0: need at least 1 row per table"},
		{[]string{"oltp_read_write", "--table_size=0", "--db-driver=pgsql", "run"}, "--table_size=0: need at least 1 row per table"},
	} {
		r := stampede(t, tc.args...)
		checkOneLineError(t, r, 2, tc.want)
	}
}
