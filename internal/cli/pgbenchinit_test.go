package cli_test

import "testing"

// TestPgbenchInitBadInput: each bad option of the pgbench workload is one
// line, exit 2, before any connection (the URL's port is closed).
func TestPgbenchInitBadInput(t *testing.T) {
	const url = "postgresql://postgres@127.0.0.1:1/x?sslmode=disable"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--init-steps", "dtx"}, `unknown step 'x'`},
		{[]string{"--fillfactor", "9"}, "--fillfactor must be in range 10..100"},
		{[]string{"--partitions", "-1"}, "--partitions must be 0 (none) or more"},
		{[]string{"--partition-method", "hash"}, "needs --partitions greater than 0"},
		{[]string{"--partitions", "2", "--partition-method", "list"}, "--partition-method must be range or hash"},
	} {
		r := stampede(t, append(append([]string{"init", "pgbench"}, c.args...), url)...)
		checkOneLineError(t, r, 2, c.want)
	}
}
