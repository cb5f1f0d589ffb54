package sqlx_test

import (
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestAppName checks that Options.AppName names the connections unless
// the URL names them itself.
func TestAppName(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgresql://u@h:5432/db", "stampede"},
		{"postgresql://u@h:5432/db?application_name=mine", "mine"},
		{"postgresql://u@h:5432/db?application_name=", ""},
	} {
		cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{tc.url}, AppName: "stampede"})
		if err != nil {
			t.Fatal(err)
		}
		if got := cfgs[0].ConnConfig.RuntimeParams["application_name"]; got != tc.want {
			t.Errorf("%s: application_name %q, want %q", tc.url, got, tc.want)
		}
	}
}
