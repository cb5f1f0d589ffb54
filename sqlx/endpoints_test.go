package sqlx_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestSplitLocality(t *testing.T) {
	for _, tc := range []struct{ in, conn, loc, err string }{
		{"postgresql://u@h:26257/db", "postgresql://u@h:26257/db", "", ""},
		{"postgresql://u@h:26257/db?locality=region%3Deast", "postgresql://u@h:26257/db", "region=east", ""},
		{"postgresql://u@h/db?sslmode=disable&locality=region=us,zone=a&application_name=x", "postgresql://u@h/db?sslmode=disable&application_name=x", "region=us,zone=a", ""},
		{"host=h port=5432 locality=region=west dbname=db", "host=h port=5432 dbname=db", "region=west", ""},
		{"postgresql://h/db?locality=east", "", "", `malformed locality "east"`},
		{"postgresql://h/db?locality=region%3D", "", "", `malformed locality "region="`},
	} {
		conn, loc, err := sqlx.SplitLocality(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil || conn != tc.conn || loc != tc.loc:
			t.Errorf("%s: %q %q %v, want %q %q", tc.in, conn, loc, err, tc.conn, tc.loc)
		}
	}
}

// TestEndpointsFileChanges opens the null driver over an endpoints file
// and changes the file: endpoints are added (with their localities) and
// removed within a read, watchers hear of each once, an unreadable file
// keeps the last list with one warning, and a worker's cell names its
// home's slot.
func TestEndpointsFileChanges(t *testing.T) {
	defer func(d time.Duration) { sqlx.EndpointsFileEvery = d }(sqlx.EndpointsFileEvery)
	sqlx.EndpointsFileEvery = 20 * time.Millisecond
	file := filepath.Join(t.TempDir(), "nodes")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file+".tmp", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(file+".tmp", file); err != nil {
			t.Fatal(err)
		}
	}
	write("# nodes\npostgresql://a:1/db region=east\n\npostgresql://b:2/db --locality region=west\n")
	var mu sync.Mutex
	var warnings, events []string
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, EndpointsFile: file,
		Warn: func(f string, a ...any) { mu.Lock(); warnings = append(warnings, fmt.Sprintf(f, a...)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.OnEndpoint(func(e sqlx.Endpoint, removed bool) {
		mu.Lock()
		events = append(events, fmt.Sprintf("%d %s %s %v", e.Slot, e.Name, e.Locality, removed))
		mu.Unlock()
	})
	wait := func(want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for strings.Join(db.Endpoints(), ",") != want {
			if time.Now().After(deadline) {
				t.Fatalf("endpoints %v, want %s", db.Endpoints(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	wait("a:1,b:2")
	db.Conn(2, true)
	cell := db.WorkerCell(2)
	if cell.Load() != 0 {
		t.Errorf("worker 2's cell %d, want slot 0 (a:1)", cell.Load())
	}
	write("postgresql://a:1/db region=east\npostgresql://b:2/db region=west\npostgresql://c:3/db region=west\n")
	wait("a:1,b:2,c:3")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // several reads of the missing file
	wait("a:1,b:2,c:3")
	write("postgresql://a:1/db east\n") // half edited: a new reason, warned about once
	time.Sleep(100 * time.Millisecond)
	wait("a:1,b:2,c:3")
	write("postgresql://c:3/db region=west\npostgresql://b:2/db region=west\n")
	wait("b:2,c:3")
	// Every node replaced: the new one is added before the old ones go.
	write("postgresql://d:4/db\n")
	wait("d:4")
	mu.Lock()
	defer mu.Unlock()
	want := []string{"0 a:1 region=east false", "1 b:2 region=west false", "2 c:3 region=west false", "0 a:1 region=east true",
		"3 d:4  false", "1 b:2 region=west true", "2 c:3 region=west true"}
	if strings.Join(events, "; ") != strings.Join(want, "; ") {
		t.Errorf("events %q, want %q", events, want)
	}
	got := strings.Join(warnings, "\n")
	for _, w := range []string{"endpoints file: added c:3 (region=west)", "no such file or directory; keeping its last list (3 endpoints) until it can be read",
		`:1: malformed locality "east": use KEY=VALUE tiers separated by commas, as region=east or region=us-east1,zone=a; keeping its last list (3 endpoints)`,
		"can be read again", "endpoints file: removed a:1 (region=east)", "endpoints file: added d:4\n", "endpoints file: removed c:3 (region=west)"} {
		if strings.Count(got+"\n", w) != 1 {
			t.Errorf("warnings have %q %d times, want once:\n%s", w, strings.Count(got+"\n", w), got)
		}
	}
	if strings.Contains(got, "keeping d:4") || strings.Contains(got, "the last endpoint") {
		t.Errorf("an endpoint kept as the last one while its replacement was listed:\n%s", got)
	}
	if st := db.EndpointStats(); len(st) != 4 || !st[0].Removed || st[2].Locality != "region=west" {
		t.Errorf("stats %+v", st)
	}
}

// TestEndpointsFileBadInput checks the one-line errors of a bad file at
// the start.
func TestEndpointsFileBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"", "lists no endpoint"},
		{"postgresql://a:1/db region=east extra\n", ":1: expected a URL and at most a locality, got 2 more words"},
		{"postgresql://a:1/db east\n", `:1: malformed locality "east"`},
		{"mysql://a:1/db\n", `:1: unsupported URL scheme "mysql"`},
	} {
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, EndpointsFile: f})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", tc.content, err, tc.want)
		}
	}
}
