package run

import (
	"strings"
	"testing"
)

// TestUploadCommand: the advice after losing the store names the store
// when --results-url named it (the upload fails without it), never with
// its password; $STAMPEDE_RESULTS_URL names it again by itself.
func TestUploadCommand(t *testing.T) {
	for _, tc := range []struct{ dir, url, from, want string }{
		{"/r/1", "postgresql://bench@db/s", "--results-url", "`stampede runs upload /r/1 --results-url postgresql://bench@db/s`"},
		{"/r/1", "postgresql://bench@db/s?sslmode=disable", "--results-url", "`stampede runs upload /r/1 --results-url 'postgresql://bench@db/s?sslmode=disable'`"},
		{"/r/my run", "postgresql://bench:hunter2@db/s", "--results-url", "`stampede runs upload '/r/my run' --results-url postgresql://bench:xxxxx@db/s` (the password in place of its mask)"},
		{"/r/1", "postgresql://bench:hunter2@db/s", "$STAMPEDE_RESULTS_URL", "`stampede runs upload /r/1`"},
	} {
		got := uploadCommand(tc.dir, tc.url, tc.from)
		if got != tc.want || strings.Contains(got, "hunter2") {
			t.Errorf("%s %s from %s:\n got %s\nwant %s", tc.dir, tc.url, tc.from, got, tc.want)
		}
	}
}
