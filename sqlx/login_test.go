package sqlx_test

import (
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestOptionsLogin checks that Options.User and Password replace every
// URL's user and password (a tenant's login role), and that without them
// the URL's stay.
func TestOptionsLogin(t *testing.T) {
	urls := []string{"postgresql://admin:adminpw@h1:5432/db", "host=h2 user=admin password=adminpw dbname=db"}
	for _, tc := range []struct {
		name, user, password   string
		wantUser, wantPassword string
	}{
		{"the URL's", "", "", "admin", "adminpw"},
		{"a tenant's role", "bank_7", "derived", "bank_7", "derived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: urls, User: tc.user, Password: tc.password})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cfgs {
				if c.ConnConfig.User != tc.wantUser || c.ConnConfig.Password != tc.wantPassword {
					t.Errorf("URL %d: user %q, password %q; want %q, %q", i, c.ConnConfig.User, c.ConnConfig.Password, tc.wantUser, tc.wantPassword)
				}
			}
		})
	}
}
