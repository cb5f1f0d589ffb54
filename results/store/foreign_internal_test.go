package store

import (
	"slices"
	"strings"
	"testing"
)

// TestStoreTables: the columns refuseForeignTables reads from the
// schema's CREATE TABLE statements are the store's: stampede_runs's are
// runCols, the columns every query of runs names.
func TestStoreTables(t *testing.T) {
	got := storeTables()
	want := strings.Fields(strings.ReplaceAll(runCols, ",", " "))
	if !slices.Equal(got["stampede_runs"], want) {
		t.Errorf("stampede_runs: %v, want %v", got["stampede_runs"], want)
	}
	for _, name := range []string{"stampede_run_ops", "stampede_run_tags", "stampede_run_files", "stampede_run_live"} {
		if len(got[name]) < 3 || slices.Contains(got[name], "PRIMARY") {
			t.Errorf("%s: columns %v", name, got[name])
		}
	}
	if len(got) != 5 {
		t.Errorf("%d tables read from the schema, want 5: %v", len(got), got)
	}
}
