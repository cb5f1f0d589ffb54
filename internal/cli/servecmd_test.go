package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/cli"
)

// startServe starts `stampede serve args...` and returns the URL it
// serves at, its stderr, and a function that stops it (as Ctrl-C does)
// and returns its exit code.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() { code <- cli.MainContext(ctx, append([]string{"serve"}, args...), &out, &errb) }()
	re := regexp.MustCompile(`at (http://\S+/) \(Ctrl-C stops it\)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			return m[1], &errb, func() int { cancel(); return <-code }
		}
		select {
		case c := <-code:
			cancel()
			t.Fatalf("serve exited %d: %s", c, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start: %s", errb.String())
	return "", nil, nil
}

// TestServe starts `stampede serve` over a results directory with a run
// in it: the runs and the run are served, a non-loopback --listen warns in
// one line, Ctrl-C stops it with exit 0, and nothing is written.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	if r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--display-every", "250ms",
		"--concurrency", "2", "--results-dir", dir); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	before := reportHashDir(t, dir)
	url, errb, stop := startServe(t, "--listen", "127.0.0.1:0", "--results-dir", dir)
	resp, err := http.Get(url + "api/runs")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Total int `json:"total"`
		Runs  []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || page.Total != 1 {
		t.Fatalf("runs: %+v %v", page, err)
	}
	resp, err = http.Get(url + "api/runs/" + page.Runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Report struct {
			Runs []string `json:"runs"`
		} `json:"report"`
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if resp.StatusCode != 200 || err != nil || len(doc.Report.Runs) != 1 || doc.Report.Runs[0] != page.Runs[0].ID {
		t.Errorf("run: %d %+v %v", resp.StatusCode, doc, err)
	}
	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>stampede") {
		t.Errorf("front page: %d %.200s", resp.StatusCode, body)
	}
	if code := stop(); code != 0 {
		t.Errorf("stopped: exit %d", code)
	}
	if strings.Contains(errb.String(), "warning") {
		t.Errorf("a loopback address warned: %s", errb.String())
	}
	// SQLite's -wal and -shm files, which any reader of a store in WAL
	// mode opens beside it, are SQLite's, not the store's content.
	after := reportHashDir(t, dir)
	for p := range after {
		if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
			delete(after, p)
		}
	}
	reportCheckUnchanged(t, before, after)

	_, errb, stop = startServe(t, "--listen", "0.0.0.0:0", "--results-dir", dir)
	stop()
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "warning: --listen 0.0.0.0:0 is not a loopback address: the dashboard, and the results it shows") ||
		!strings.HasPrefix(lines[1], "--listen 0.0.0.0:0: port 0 picked a free port, ") {
		t.Errorf("non-loopback: %q", lines)
	}
}

// TestServeBadInput checks serve's bad input: one line each, exit 2.
func TestServeBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", busy.Addr().String()}, "the port is in use"},
		{[]string{"--listen", "8080"}, `--listen "8080" is not HOST:PORT`},
		{[]string{"--listen", "127.0.0.1:http-alt-nope"}, "is not a port number"},
		{[]string{"--listen", "127.0.0.1:70000"}, "is not a port number: give one from 1 to 65535, such as 127.0.0.1:8080, or 0 for a free one (serve says which)"},
		{[]string{"--listen", "192.0.2.7:8080"}, "192.0.2.7 is not an address of this machine"},
		{[]string{"--results-dir", filepath.Join(dir, "none")}, "does not exist"},
		{[]string{"--results-dir", file}, "is not a directory"},
		{[]string{"--results-url", "sqlite:" + filepath.Join(dir, "none.sqlite")}, "does not exist"},
		{[]string{"--results-url", "mysql://x"}, "unsupported results store URL scheme"},
		{[]string{"extra"}, ""},
	} {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--results-dir", dir}, c.args...)
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, c.want)
	}
}
