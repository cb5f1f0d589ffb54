package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecRecord checks the exec record: tenants done survive a reopen, a
// line torn by a crash does not count, --restart forgets, and a record of
// another statement is refused.
func TestExecRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet-exec", "x.ndjson")
	hdr := recordHeader{Statement: "ALTER TABLE t ADD c INT", Mode: ModeDatabase, Pattern: "t_%d"}
	rec, done, err := openRecord(path, false, hdr)
	if err != nil || len(done) != 0 {
		t.Fatalf("new record: %v, %v", done, err)
	}
	for _, id := range []int{1, 2, 5} {
		if err := rec.append(recordLine{Tenant: id}); err != nil {
			t.Fatal(err)
		}
	}
	rec.close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"tenant":9,"na`) // torn by a crash
	f.Close()
	for _, tc := range []struct {
		name    string
		hdr     recordHeader
		restart bool
		want    []int
		err     string
	}{
		{"reopen", hdr, false, []int{1, 2, 5}, ""},
		{"reopen after an append", hdr, false, []int{1, 2, 5, 7}, ""},
		{"other statement", recordHeader{Statement: "DROP TABLE t", Mode: ModeDatabase, Pattern: "t_%d"}, false, nil, "--restart"},
		{"restart", hdr, true, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, done, err := openRecord(path, tc.restart, tc.hdr)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rec.close()
			if tc.name == "reopen" {
				if err := rec.append(recordLine{Tenant: 7}); err != nil {
					t.Fatal(err)
				}
			}
			if len(done) != len(tc.want) {
				t.Errorf("done %v, want %v", done, tc.want)
			}
			for _, id := range tc.want {
				if !done[id][""] {
					t.Errorf("tenant %d not done: %v", id, done)
				}
			}
		})
	}
}
