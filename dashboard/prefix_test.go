package dashboard_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestRunByPrefix: the API takes a unique prefix of a run ID, as report
// does (before, 404); a prefix of several runs is refused naming them.
func TestRunByPrefix(t *testing.T) {
	root := t.TempDir()
	a, b := "20261122-103512-ycsb-aaaa", "20261122-103512-ycsb-aabb"
	for _, id := range []string{a, b} {
		writeRun(t, root, spec{id: id, workload: "ycsb", start: t0, n: 3, rate: 100})
	}
	srv := serve(t, root, "")
	for _, c := range []struct {
		ref  string
		code int
		want string
	}{
		{a, http.StatusOK, `"id":"` + a + `"`},
		{"20261122-103512-ycsb-aaa", http.StatusOK, `"id":"` + a + `"`},
		{"20261122-103512-ycsb-aab", http.StatusOK, `"id":"` + b + `"`},
		{"20261122-103512-ycsb-aa", http.StatusNotFound, b},
		{"20261122-103512-ycsb-zz", http.StatusNotFound, "no run 20261122-103512-ycsb-zz"},
	} {
		code, body := get(t, srv.URL+"/api/runs/"+c.ref)
		if code != c.code || !strings.Contains(strings.ReplaceAll(string(body), " ", ""), strings.ReplaceAll(c.want, " ", "")) {
			t.Errorf("/api/runs/%s: %d %.300s, want %d with %s", c.ref, code, body, c.code, c.want)
		}
	}
}
