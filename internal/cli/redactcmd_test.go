package cli_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSuggestedAndRecordedCommandsKeepConnection checks, on a real
// server, that the command a message suggests and the command run.json
// records carry the URL as typed with only its password masked: its user
// and its other parameters kept (else the command would log in as another
// user), in every form of connection string, a password equal to the
// user's name included.
func TestSuggestedAndRecordedCommandsKeepConnection(t *testing.T) {
	srv, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "files_redact")
	adminExec(t, "CREATE DATABASE "+db)
	host, port := srv.Hostname(), srv.Port()
	for _, tc := range []struct{ conn, want string }{
		{"postgresql://" + host + ":" + port + "/" + db + "?user=postgres&password=abc&sslmode=disable",
			"'postgresql://" + host + ":" + port + "/" + db + "?user=postgres&password=xxxxx&sslmode=disable'"},
		{"postgresql://postgres:postgres@" + host + ":" + port + "/" + db + "?sslmode=disable",
			"'postgresql://postgres:xxxxx@" + host + ":" + port + "/" + db + "?sslmode=disable'"},
		{"host=" + host + " port=" + port + " user=postgres password=postgres dbname=" + db + " sslmode=disable",
			"'host=" + host + " port=" + port + " user=postgres password=xxxxx dbname=" + db + " sslmode=disable'"},
	} {
		r := stampede(t, "run", "bank", "--rows", "5", "--duration", "1s", tc.conn)
		checkFinalError(t, r, 1, "run `stampede init bank --rows 5 "+tc.want+"` first")
		if strings.Contains(r.stderr, "abc") {
			t.Errorf("the password is printed: %s", r.stderr)
		}
	}
	// run.json's command.
	conn := "postgresql://postgres:postgres@" + host + ":" + port + "/" + db + "?application_name=files&sslmode=disable"
	mustRun(t, "init", "bank", "--rows", "5", conn)
	root := t.TempDir()
	mustRun(t, "run", "bank", "--rows", "5", "--duration", "300ms", "--telemetry=false", "--results-dir", root, conn)
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	b, err := os.ReadFile(filepath.Join(root, runs[0].ID, runlog.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Command []string }
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	want := "postgresql://postgres:xxxxx@" + host + ":" + port + "/" + db + "?application_name=files&sslmode=disable"
	if n := len(info.Command); n == 0 || info.Command[n-1] != want {
		t.Errorf("run.json's command %q, want it to end with %q", info.Command, want)
	}
}
